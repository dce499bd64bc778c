//! Pinning the oracle's verdicts onto a diagram built from the trace.
//!
//! The trace shows harm as it happens; the verdicts say what it amounts to, and know one
//! thing the trace cannot show: events the server produced that never reached any
//! connection (Behavior B's generation-2 ids 1..=41). Those become a row of their own on
//! the event-log lane. Every verdict is listed in the legend; each is also pinned to the
//! row where its harm shows, so the badge and the arrow are read together.

use faultline_sim::{Evidence, Verdict, VerdictKind, short_id, vtime};

use crate::diagram::{Diagram, Harm, Lane, Row, Shape, Tone, VerdictLine};

/// Adds the verdicts to the legend and pins each to its row.
pub fn pin_verdicts(diagram: &mut Diagram, verdicts: &[Verdict]) {
    for v in verdicts {
        diagram.verdicts.push(VerdictLine {
            kind: v.kind.name().to_string(),
            at_ms: v.at_ms,
            summary: v.summary.clone(),
        });
        if let Evidence::Gap {
            session,
            generation,
            stream,
            never_delivered,
            ..
        } = &v.evidence
            && !never_delivered.0.is_empty()
        {
            let mut row = Row::new(
                v.at_ms,
                Shape::Note {
                    lane: Lane::Log,
                    tone: Tone::Death,
                },
                format!(
                    "produced, never delivered: ids {never_delivered} of stream #{stream} gen {generation}"
                ),
            );
            row.harm = Some(Harm::NeverDelivered);
            row.verdicts.push(v.kind.name().to_string());
            row.detail = format!(
                "{} onward: the server produced {} event(s) for session {} (generation {generation}, stream #{stream}), ids {never_delivered}, and never put them on a connection the client held\n{}: {}",
                vtime(v.at_ms),
                never_delivered.count(),
                short_id(session),
                v.kind.name(),
                v.summary
            );
            row.data = vec![
                ("ids", never_delivered.to_string()),
                ("stream", stream.to_string()),
                ("generation", generation.to_string()),
            ];
            insert_at(diagram, row);
            continue;
        }
        if v.kind == VerdictKind::Clean {
            continue;
        }
        let wanted: &[Harm] = match v.kind {
            VerdictKind::SilentGap | VerdictKind::SurfacedLoss => &[Harm::Lost],
            VerdictKind::CursorReuse => &[Harm::CursorReuse],
            VerdictKind::ZombieSession => &[Harm::DeadSession],
            VerdictKind::RetryAmplification => &[Harm::Retry, Harm::Collision],
            VerdictKind::ReinitCollision => &[Harm::Collision],
            VerdictKind::QuarantineViolation => &[Harm::AppliedAfterDeath],
            VerdictKind::Duplicate => &[Harm::Duplicate],
            _ => &[],
        };
        let found = diagram
            .rows
            .iter()
            .position(|r| r.at_ms >= v.at_ms && r.harm.is_some_and(|h| wanted.contains(&h)))
            .or_else(|| {
                diagram.rows.iter().position(|r| {
                    r.until_ms >= v.at_ms
                        && (r.harm.is_some()
                            || matches!(
                                r.shape,
                                Shape::Note {
                                    tone: Tone::Guard,
                                    ..
                                }
                            ))
                })
            })
            .or_else(|| diagram.rows.iter().position(|r| r.until_ms >= v.at_ms))
            .or(diagram.rows.len().checked_sub(1));
        if let Some(i) = found {
            let row = &mut diagram.rows[i];
            row.verdicts.push(v.kind.name().to_string());
            row.detail
                .push_str(&format!("\nverdict {}: {}", v.kind.name(), v.summary));
        }
    }
}

/// Inserts a row after every row that starts at or before its time.
fn insert_at(diagram: &mut Diagram, row: Row) {
    let i = diagram
        .rows
        .iter()
        .position(|r| r.at_ms > row.at_ms)
        .unwrap_or(diagram.rows.len());
    diagram.rows.insert(i, row);
}
