//! A graded run as a sequence diagram, drawn from the server's side.
//!
//! A real client is a black box: there is no trace of what it believed, only the ledger
//! (every answer, resumption, event produced and event put on a connection), the faults
//! the scenario fired, and the client's final report. That is enough to draw what a
//! person needs to see: which requests were answered how, which events went out on which
//! connection, where the cut came, and which of the events the application never got.
//!
//! Harm is not worked out again here: it comes from the judge's verdicts and their
//! evidence (the missing steps and sequence numbers, the requests that went to a dead or
//! stale session, the resumption that re-used a cursor), so the diagram and the table can
//! never tell two stories.

use std::collections::BTreeSet;

use faultline_model::{
    AnswerEntry, CursorResolution, DeathCause, EffectEntry, JobEnd, Ledger, Payload, ProducedEvent,
    ResumeEntry, SendEntry,
};
use faultline_scenario::FiredFault;
use faultline_sim::{short_id, vtime};
use faultline_teach::{ArrowKind, Diagram, Harm, Lane, Row, Shape, Tone, VerdictLine};
use serde_json::Value;

use crate::{ReportVerdict, VerdictKind};

/// What the judge's evidence says, in the shape the diagram needs.
#[derive(Debug, Default)]
struct Marks {
    missing_steps: BTreeSet<u64>,
    missing_seqs: BTreeSet<u64>,
    /// The call's result was produced and never reached the application.
    result_missing: bool,
    duplicate_steps: BTreeSet<u64>,
    duplicate_seqs: BTreeSet<u64>,
    /// `(at_ms, status)` of requests that went to a session already gone.
    retries: BTreeSet<(u64, u64)>,
    /// `(at_ms, status)` of requests that carried a session id from before a re-initialize.
    collisions: BTreeSet<(u64, u64)>,
    /// Times of resumptions that honoured a cursor against another generation's numbering.
    cursor_reuses: BTreeSet<u64>,
    /// The graded client's own sessions (see [`faultline_verdicts::client_sessions`]): a
    /// notification's harm is drawn only on theirs, never on a tenant's that shares its
    /// sequence number (progress and results are the call's, whatever the session).
    own: BTreeSet<faultline_model::SessionKey>,
}

impl Marks {
    fn of(ledger: &Ledger, verdicts: &[ReportVerdict]) -> Marks {
        let mut marks = Marks {
            own: faultline_verdicts::client_sessions(ledger),
            ..Marks::default()
        };
        for v in verdicts {
            let e = &v.evidence;
            match v.kind {
                VerdictKind::SilentGap | VerdictKind::SurfacedLoss => {
                    marks.missing_steps = numbers(&e["missing_progress"]);
                    marks.missing_seqs = numbers(&e["missing_notifications"]);
                    marks.result_missing = e["result_missing"].as_bool() == Some(true);
                }
                VerdictKind::Duplicate => {
                    marks.duplicate_steps = numbers(&e["progress"]);
                    marks.duplicate_seqs = numbers(&e["notifications"]);
                }
                VerdictKind::RetryAmplification => marks.retries.extend(requests(&e["requests"])),
                VerdictKind::ReinitCollision => marks.collisions.extend(requests(&e["requests"])),
                VerdictKind::CursorReuse => {
                    marks.cursor_reuses.extend(e["resumed_at_ms"].as_u64());
                }
                VerdictKind::Clean
                | VerdictKind::Hung
                | VerdictKind::ZombieSession
                | VerdictKind::MisroutedSession
                | VerdictKind::DuplicateEffect
                | VerdictKind::MissedChange => {}
                VerdictKind::LostTask | VerdictKind::ForeignEvent | VerdictKind::EraMismatch => {}
                VerdictKind::QuarantineViolation
                | VerdictKind::Detected
                | VerdictKind::ReconnectLoop
                | VerdictKind::RefusedWithoutRecovery
                | VerdictKind::SessionAbandoned
                | VerdictKind::Untested => {}
                // About the client's process, its declarations, its order or its era:
                // no row of the ledger to mark.
                VerdictKind::Crashed
                | VerdictKind::BadReport
                | VerdictKind::NotApplicable
                | VerdictKind::OutOfOrder
                | VerdictKind::OtherEra => {}
            }
        }
        marks
    }
}

fn numbers(value: &Value) -> BTreeSet<u64> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

fn requests(value: &Value) -> Vec<(u64, u64)> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|r| Some((r["at_ms"].as_u64()?, r["status"].as_u64()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// One thing in the ledger, before folding. The rank orders things that share a
/// millisecond the way they happen: a fault or a death before the answer it causes, an
/// answer before the events of its stream.
enum Item<'a> {
    Fault(&'a FiredFault),
    Restart,
    Death(&'a str, DeathCause),
    JobKilled(u32, &'a str),
    /// A 2026-07-28 job ended because its request stream was cut (`JobEnd::StreamClosed`).
    JobStreamClosed(u32, &'a str),
    /// A non-idempotent tool committed its effect; `true` when the order was committed
    /// before (a duplicate effect).
    Effect(&'a EffectEntry, bool),
    /// The answer and its index in the ledger.
    Answer(usize, &'a AnswerEntry),
    Created(&'a str),
    Generation(&'a str, usize),
    Resume(&'a ResumeEntry),
    Send(&'a SendEntry),
    /// Owed to the application, produced, and never put on any connection.
    NeverSent(&'a ProducedEvent),
}

impl Item<'_> {
    fn rank(&self) -> u8 {
        match self {
            Item::Fault(_) => 0,
            Item::Restart => 1,
            Item::Death(..) => 2,
            Item::JobKilled(..) | Item::Effect(..) => 3,
            // A session appears right after the answer that created it (see `order`).
            Item::Answer(..) | Item::Created(_) => 4,
            Item::Generation(..) => 5,
            Item::Resume(_) => 6,
            Item::Send(_) => 7,
            Item::NeverSent(_) => 8,
            // A cut comes right after the event it followed, at the same instant.
            Item::JobStreamClosed(..) => 9,
        }
    }
}

/// Draws one graded run. `title` names it (the scenario).
pub fn diagram_of_grade(
    ledger: &Ledger,
    faults: &[FiredFault],
    verdicts: &[ReportVerdict],
    title: &str,
) -> Diagram {
    let marks = Marks::of(ledger, verdicts);
    let mut items: Vec<(u64, Item)> = Vec::new();
    items.extend(faults.iter().map(|f| (f.at_ms, Item::Fault(f))));
    items.extend(ledger.restarts.iter().map(|&at| (at, Item::Restart)));
    for s in &ledger.sessions {
        if s.stateless {
            // The 2026-07-28 requests' ledger scope: no session was created.
            continue;
        }
        items.push((s.created_ms, Item::Created(&s.wire_id)));
        for (g, &at) in s.generations.iter().enumerate().skip(1) {
            items.push((at, Item::Generation(&s.wire_id, g + 1)));
        }
        if let Some((at, cause)) = s.died {
            items.push((at, Item::Death(&s.wire_id, cause)));
        }
    }
    for (i, job) in ledger.jobs.iter().enumerate() {
        let id = ledger.jobs_base + i as u32;
        match job.ended {
            Some((at, JobEnd::Killed)) => items.push((at, Item::JobKilled(id, &job.tool))),
            Some((at, JobEnd::StreamClosed)) => {
                items.push((at, Item::JobStreamClosed(id, &job.tool)));
            }
            _ => {}
        }
    }
    let mut orders: BTreeSet<&str> = BTreeSet::new();
    for effect in &ledger.effects {
        let again = !orders.insert(effect.order.as_str());
        items.push((effect.at_ms, Item::Effect(effect, again)));
    }
    items.extend(
        ledger
            .answers
            .iter()
            .enumerate()
            .map(|(i, a)| (a.at_ms, Item::Answer(i, a))),
    );
    items.extend(
        ledger
            .resumptions
            .iter()
            .map(|r| (r.at_ms, Item::Resume(r))),
    );
    items.extend(ledger.sends.iter().map(|s| (s.at_ms, Item::Send(s))));
    let sent: BTreeSet<u32> = ledger.sends.iter().map(|s| s.event.0).collect();
    for (i, e) in ledger.events.iter().enumerate() {
        let id = ledger.events_base + i as u32;
        if !sent.contains(&id) && marks.owes(e) {
            items.push((e.at_ms, Item::NeverSent(e)));
        }
    }
    let order = creation_order(ledger);
    items.sort_by_key(|(at, item)| {
        let within = match item {
            Item::Answer(i, _) => 2 * i,
            Item::Created(id) => order.get(id).map_or(0, |i| 2 * i + 1),
            _ => 0,
        };
        (*at, item.rank(), within)
    });

    let mut rows: Vec<Row> = Vec::new();
    let mut fold: Option<Fold> = None;
    for (at, item) in &items {
        let (at, item) = (*at, item);
        let next = match item {
            Item::Send(send) => Some(Fold::start(send, ledger.event(send.event), &marks)),
            Item::NeverSent(event) => Some(Fold::never_sent(event)),
            _ => None,
        };
        if let Some(next) = next {
            match &mut fold {
                Some(f) if f.extends(&next) => f.absorb(next),
                _ => {
                    if let Some(done) = fold.replace(next) {
                        rows.push(done.row());
                    }
                }
            }
            continue;
        }
        if let Some(done) = fold.take() {
            rows.push(done.row());
        }
        rows.push(match item {
            Item::Fault(f) => note(at, Lane::Network, Tone::Fault, &f.note),
            Item::Restart => note(
                at,
                Lane::Server,
                Tone::Fault,
                "server restarted: in-memory state lost as the restart-persistence knob says",
            ),
            Item::Death(id, cause) => note(
                at,
                Lane::Store,
                Tone::Death,
                &format!("session {} died ({})", short_id(id), death_words(*cause)),
            ),
            Item::JobKilled(job, tool) => note(
                at,
                Lane::Server,
                Tone::Death,
                &format!("job #{job} ({tool}) killed: its session or server went away"),
            ),
            Item::JobStreamClosed(job, tool) => note(
                at,
                Lane::Server,
                Tone::Death,
                &format!(
                    "job #{job} ({tool}) ended: its 2026-07-28 request stream was cut (on_stream_cut)"
                ),
            ),
            Item::Effect(e, again) => note(
                at,
                Lane::Server,
                if *again { Tone::Fault } else { Tone::Neutral },
                &format!(
                    "order {} committed{} by request {} (job #{})",
                    e.order,
                    if *again { " AGAIN" } else { "" },
                    e.request_id,
                    e.job.0
                ),
            ),
            Item::Answer(_, a) => answer_row(a, &marks),
            Item::Created(id) => note(
                at,
                Lane::Store,
                Tone::Neutral,
                &format!("session {} created", short_id(id)),
            ),
            Item::Generation(id, g) => note(
                at,
                Lane::Store,
                Tone::Fault,
                &format!(
                    "session {}: generation {g} begins (event ids may start again)",
                    short_id(id)
                ),
            ),
            Item::Resume(r) => resume_row(r, &marks),
            Item::Send(_) | Item::NeverSent(_) => unreachable!("folded above"),
        });
    }
    if let Some(done) = fold.take() {
        rows.push(done.row());
    }

    let end = rows.last().map_or(0, |r| r.until_ms);
    let mut verdict_lines = Vec::new();
    for v in verdicts.iter().filter(|v| v.kind != VerdictKind::Clean) {
        let at_ms = verdict_time(v).unwrap_or(end);
        if let Some(row) = rows
            .iter_mut()
            .find(|r| r.harm.is_some_and(|h| harm_shows(h, v.kind)))
        {
            row.verdicts.push(v.kind.name().to_string());
        }
        verdict_lines.push(VerdictLine {
            kind: v.kind.name().to_string(),
            at_ms,
            summary: v.why.clone(),
        });
    }
    Diagram {
        title: title.to_string(),
        subtitle: format!(
            "drawn from the server's ledger: {} answers, {} events sent, virtual time T+0s to {}",
            ledger.answers.len(),
            ledger.sends.len(),
            vtime(end)
        ),
        lanes: vec![
            Lane::Client,
            Lane::Network,
            Lane::Server,
            Lane::Store,
            Lane::Log,
        ],
        rows,
        verdicts: verdict_lines,
        entries: items.len(),
        anchor: format!("{}-row", anchor_of(title)),
    }
}

/// For each session, the index of the answer that created it: the n-th `initialize`
/// answered 200 at the session's creation time.
fn creation_order(ledger: &Ledger) -> std::collections::BTreeMap<&str, usize> {
    let mut used = BTreeSet::new();
    let mut order = std::collections::BTreeMap::new();
    for s in &ledger.sessions {
        let found = ledger.answers.iter().enumerate().position(|(i, a)| {
            !used.contains(&i)
                && a.at_ms == s.created_ms
                && a.status == 200
                && a.rpc_method.as_deref() == Some("initialize")
        });
        if let Some(i) = found {
            used.insert(i);
            order.insert(s.wire_id.as_str(), i);
        }
    }
    order
}

/// A name safe in an element id.
pub(crate) fn anchor_of(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

impl Marks {
    /// Whether the application was owed this event and never got it: one of its own
    /// sessions' events whose value the judge found missing.
    fn owes(&self, event: &ProducedEvent) -> bool {
        match event.payload {
            Payload::Progress { step, .. } => self.missing_steps.contains(&u64::from(step)),
            Payload::Notification { seq } => {
                self.own.contains(&event.session) && self.missing_seqs.contains(&seq)
            }
            Payload::ToolResult { .. } => self.result_missing,
            _ => false,
        }
    }

    fn duplicated(&self, event: &ProducedEvent) -> bool {
        match event.payload {
            Payload::Progress { step, .. } => self.duplicate_steps.contains(&u64::from(step)),
            Payload::Notification { seq } => {
                self.own.contains(&event.session) && self.duplicate_seqs.contains(&seq)
            }
            _ => false,
        }
    }
}

/// The verdict's moment, where its evidence names one.
fn verdict_time(v: &ReportVerdict) -> Option<u64> {
    ["resumed_at_ms", "replay_at_ms", "since_ms"]
        .iter()
        .find_map(|k| v.evidence[*k].as_u64())
}

fn harm_shows(harm: Harm, kind: VerdictKind) -> bool {
    matches!(
        (harm, kind),
        (
            Harm::Lost | Harm::NeverDelivered,
            VerdictKind::SilentGap | VerdictKind::SurfacedLoss
        ) | (Harm::Duplicate, VerdictKind::Duplicate)
            | (Harm::Retry, VerdictKind::RetryAmplification)
            | (Harm::Collision, VerdictKind::ReinitCollision)
            | (Harm::CursorReuse, VerdictKind::CursorReuse)
            | (Harm::DeadSession, VerdictKind::ZombieSession)
    )
}

fn death_words(cause: DeathCause) -> &'static str {
    match cause {
        DeathCause::IdleTtl => "idle TTL",
        DeathCause::AbsoluteTtl => "absolute TTL",
        DeathCause::Deleted => "deleted",
        DeathCause::Restart => "lost in a restart",
        DeathCause::ReplicaDown => "lost with its replica",
        DeathCause::ReplicaRemoved => "lost with its replica (scaled away)",
    }
}

fn note(at_ms: u64, lane: Lane, tone: Tone, text: &str) -> Row {
    let mut row = Row::new(at_ms, Shape::Note { lane, tone }, text);
    row.detail = format!("{}: {text}", vtime(at_ms));
    row
}

fn answer_row(a: &AnswerEntry, marks: &Marks) -> Row {
    let session = a
        .session_sent
        .as_deref()
        .map(|s| format!(" [{}]", short_id(s)))
        .unwrap_or_default();
    let label = format!(
        "{} {}{session} -> {}",
        faultline_verdicts::reconnect_loop::method_name(a.method),
        a.rpc_method.as_deref().unwrap_or(""),
        a.status
    );
    let mut row = Row::new(
        a.at_ms,
        Shape::Arrow {
            from: Lane::Client,
            to: Lane::Server,
            kind: ArrowKind::Request,
            count: 1,
            dashed: false,
        },
        label.replace("  ", " "),
    );
    let key = (a.at_ms, u64::from(a.status));
    row.harm = if marks.collisions.contains(&key) {
        Some(Harm::Collision)
    } else if marks.retries.contains(&key) {
        Some(Harm::Retry)
    } else if matches!(a.status, 404 | 410) && a.session_sent.is_some() {
        Some(Harm::DeadSession)
    } else {
        None
    };
    row.detail = format!(
        "{}: {} on conn {}\nMcp-Session-Id: {}\nanswered {}",
        vtime(a.at_ms),
        faultline_verdicts::reconnect_loop::method_name(a.method),
        a.conn.0,
        a.session_sent.as_deref().unwrap_or("(none)"),
        a.status
    );
    row.data = vec![
        ("conn", a.conn.0.to_string()),
        ("status", a.status.to_string()),
    ];
    row
}

fn resume_row(r: &ResumeEntry, marks: &Marks) -> Row {
    let what = match r.resolution {
        CursorResolution::Honoured {
            generation,
            replayed,
            ..
        } => format!("honoured in generation {generation}: {replayed} replayed"),
        CursorResolution::Stale {
            answer, replayed, ..
        } => format!("evicted past it: {answer:?}, {replayed} replayed"),
        CursorResolution::Unknown { answer } => format!("unknown: {answer:?}"),
        CursorResolution::SessionRejected { status } => format!("session rejected: {status}"),
    };
    let text = format!("Last-Event-ID {}: {what}", r.cursor);
    let mut row = note(r.at_ms, Lane::Log, Tone::Neutral, &text);
    if marks.cursor_reuses.contains(&r.at_ms) {
        row.harm = Some(Harm::CursorReuse);
    }
    row.data = vec![("conn", r.conn.0.to_string())];
    row
}

/// A run of alike events: sent on one connection in a row (live or replayed), or owed and
/// never sent, of one kind, with the same harm.
struct Fold {
    first_ms: u64,
    last_ms: u64,
    /// `None`: never sent.
    conn: Option<u64>,
    replay: bool,
    kind: &'static str,
    /// Event ids, and the values the application sees (steps or seqs).
    ids: Vec<u64>,
    values: Vec<u64>,
    harm: Option<Harm>,
}

impl Fold {
    fn start(send: &SendEntry, event: &ProducedEvent, marks: &Marks) -> Fold {
        let harm = if marks.owes(event) {
            Some(Harm::Lost)
        } else if send.replay && marks.duplicated(event) {
            Some(Harm::Duplicate)
        } else {
            None
        };
        let (kind, value) = kind_of(&event.payload);
        Fold {
            first_ms: send.at_ms,
            last_ms: send.at_ms,
            conn: Some(send.conn.0),
            replay: send.replay,
            kind,
            ids: vec![event.id],
            values: value.into_iter().collect(),
            harm,
        }
    }

    fn never_sent(event: &ProducedEvent) -> Fold {
        let (kind, value) = kind_of(&event.payload);
        Fold {
            first_ms: event.at_ms,
            last_ms: event.at_ms,
            conn: None,
            replay: false,
            kind,
            ids: vec![event.id],
            values: value.into_iter().collect(),
            harm: Some(Harm::NeverDelivered),
        }
    }

    fn extends(&self, next: &Fold) -> bool {
        self.conn == next.conn
            && self.replay == next.replay
            && self.kind == next.kind
            && self.harm == next.harm
            && !matches!(self.kind, "result" | "response")
    }

    fn absorb(&mut self, next: Fold) {
        self.last_ms = next.last_ms;
        self.ids.extend(next.ids);
        self.values.extend(next.values);
    }

    fn row(self) -> Row {
        let count = self.ids.len() as u32;
        let values = if self.values.is_empty() {
            String::new()
        } else {
            format!(" {}", faultline_verdicts::ranges(&self.values))
        };
        let ids = format!("id {}", faultline_verdicts::ranges(&self.ids));
        let times = if count > 1 {
            format!(" x{count}")
        } else {
            String::new()
        };
        let replay = if self.replay { " (replay)" } else { "" };
        let (from, to, whereto) = match self.conn {
            Some(conn) => (
                if self.replay { Lane::Log } else { Lane::Server },
                Lane::Client,
                format!("conn {conn}"),
            ),
            None => (Lane::Log, Lane::Log, "never sent".to_string()),
        };
        let fate = match self.harm {
            Some(Harm::Lost) => " · sent, never handed to the application",
            Some(Harm::NeverDelivered) => " · owed to the application, never sent",
            Some(Harm::Duplicate) => " · handed to the application again",
            _ => "",
        };
        let label = format!(
            "{ids} {}{values}{times}{replay} -> {whereto}{fate}",
            self.kind
        );
        let shape = match self.conn {
            Some(_) => Shape::Arrow {
                from,
                to,
                kind: ArrowKind::Event,
                count,
                dashed: false,
            },
            None => Shape::Note {
                lane: to,
                tone: Tone::Error,
            },
        };
        let mut row = Row::new(self.first_ms, shape, label.clone());
        row.until_ms = self.last_ms;
        row.harm = self.harm;
        row.detail = format!(
            "{} .. {}: {label}",
            vtime(self.first_ms),
            vtime(self.last_ms)
        );
        row.data = vec![
            ("ids", faultline_verdicts::ranges(&self.ids)),
            ("count", count.to_string()),
        ];
        if let Some(conn) = self.conn {
            row.data.push(("conn", conn.to_string()));
        }
        row
    }
}

/// The event's kind in words, and the value the application sees (a step or a seq).
fn kind_of(payload: &Payload) -> (&'static str, Option<u64>) {
    match *payload {
        Payload::Priming => ("priming", None),
        Payload::Progress { step, .. } => ("progress", Some(u64::from(step))),
        Payload::ToolResult { .. } => ("result", None),
        Payload::Notification { seq } => ("notification seq", Some(seq)),
        Payload::Response { .. } => ("response", None),
        Payload::ListenAck { .. } => ("listen ack", None),
        Payload::ListChanged { change, .. } | Payload::SessionListChanged { change } => {
            ("list changed #", Some(u64::from(change)))
        }
        Payload::ListenEnded {
            end: faultline_model::ListenEnd::Cancelled,
            ..
        } => ("listen cancelled", None),
        Payload::ListenEnded { .. } => ("listen complete", None),
    }
}

#[cfg(test)]
mod tests {
    use faultline_model::{ConnId, HttpMethod, SessionEntry};

    use super::*;

    fn answer(conn: u64, at_ms: u64, rpc: &str, session: Option<&str>, status: u16) -> AnswerEntry {
        AnswerEntry {
            conn: ConnId(conn),
            at_ms,
            method: HttpMethod::Post,
            rpc_method: Some(rpc.to_string()),
            session_sent: session.map(str::to_string),
            session_sent_len: None,
            rpc_method_len: None,
            status,
            route: None,
            list_version: None,
            list_ttl_ms: None,
            dead_session: false,
        }
    }

    fn labels(d: &Diagram) -> Vec<&str> {
        d.rows.iter().map(|r| r.label.as_str()).collect()
    }

    #[test]
    fn a_session_appears_right_after_the_initialize_that_created_it() {
        let ledger = Ledger {
            sessions: vec![SessionEntry {
                wire_id: "abcdef0123".into(),
                created_ms: 0,
                generations: vec![0],
                died: Some((5_000, DeathCause::IdleTtl)),
                held_by: None,
                stateless: false,
            }],
            answers: vec![
                answer(1, 0, "initialize", None, 200),
                answer(2, 0, "tools/list", Some("abcdef0123"), 200),
                answer(3, 5_000, "tools/call", Some("abcdef0123"), 404),
            ],
            ..Ledger::default()
        };
        let d = diagram_of_grade(&ledger, &[], &[], "t");
        assert_eq!(
            labels(&d),
            [
                "POST initialize -> 200",
                "session abcdef01 created",
                "POST tools/list [abcdef01] -> 200",
                "session abcdef01 died (idle TTL)",
                "POST tools/call [abcdef01] -> 404",
            ]
        );
        // A request to a dead session is harm even without a verdict about it.
        assert_eq!(d.rows[4].harm, Some(Harm::DeadSession));
    }

    /// A 2026-07-28 run: no session is drawn for the stateless scope, a job ended by its
    /// cut stream says so, and each commit of an order is a row, the second marked.
    #[test]
    fn a_cut_request_stream_and_a_second_commit_are_drawn() {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenarios/field/reissue_duplicate_effect.ron");
        let scenario = faultline_sim::Scenario::load(&file).expect("loads");
        let outcome =
            faultline_sim::run(&scenario, scenario.seed, faultline_sim::ClientModel::Naive);
        let d = diagram_of_grade(&outcome.result.ledger, &[], &[], "t");
        let labels = labels(&d);
        assert!(
            !labels.iter().any(|l| l.starts_with("session")),
            "{labels:?}"
        );
        let at = |text: &str| {
            labels
                .iter()
                .position(|l| *l == text)
                .unwrap_or_else(|| panic!("no row {text:?} in {labels:?}"))
        };
        let first = at("order call-0 committed by request 1 (job #0)");
        let closed =
            at("job #0 (place_order) ended: its 2026-07-28 request stream was cut (on_stream_cut)");
        let again = at("order call-0 committed AGAIN by request 2 (job #1)");
        assert!(first < closed && closed < again, "{labels:?}");
        assert!(matches!(
            d.rows[again].shape,
            Shape::Note {
                tone: Tone::Fault,
                ..
            }
        ));
        assert!(matches!(
            d.rows[first].shape,
            Shape::Note {
                tone: Tone::Neutral,
                ..
            }
        ));
    }

    #[test]
    fn a_retry_named_by_the_verdict_is_marked_as_one() {
        let ledger = Ledger {
            answers: vec![
                answer(1, 10, "tools/call", Some("s"), 404),
                answer(2, 20, "tools/call", Some("s"), 404),
            ],
            ..Ledger::default()
        };
        let verdicts = [ReportVerdict {
            kind: VerdictKind::RetryAmplification,
            why: "1 request(s) still went to session s".into(),
            evidence: serde_json::json!({
                "session": "s", "since_ms": 10,
                "requests": [{"at_ms": 20, "task": "client", "method": "POST tools/call", "status": 404}],
            }),
        }];
        let d = diagram_of_grade(&ledger, &[], &verdicts, "t");
        assert_eq!(d.rows[0].harm, Some(Harm::DeadSession));
        assert_eq!(d.rows[1].harm, Some(Harm::Retry));
        assert_eq!(d.rows[1].verdicts, ["retry_amplification"]);
        assert_eq!(
            d.verdicts[0].at_ms, 10,
            "the verdict's moment is its evidence's"
        );
    }

    /// A notification is drawn as never delivered only on the graded client's own
    /// sessions: a tenant's notification that shares its sequence number (the same seq
    /// counts in every session) is someone else's, not harm to this client.
    #[test]
    fn harm_is_drawn_only_on_the_clients_own_sessions() {
        use faultline_model::{ProducedEvent, SessionEntry, SessionKey, StreamId};
        let session = |wire: &str| SessionEntry {
            wire_id: wire.into(),
            created_ms: 0,
            generations: vec![0],
            died: None,
            held_by: None,
            stateless: false,
        };
        let notification = |session: u32, at_ms: u64| ProducedEvent {
            id: 1,
            stream: StreamId(session),
            ordinal: 1,
            session: SessionKey(session),
            generation: 1,
            at_ms,
            payload: Payload::Notification { seq: 0 },
        };
        let ledger = Ledger {
            sessions: vec![session("own"), session("tenant")],
            // Neither was ever sent: the tenant's has no client to go to.
            events: vec![notification(0, 5), notification(1, 6)],
            answers: vec![answer(1, 10, "tools/call", Some("own"), 200)],
            ..Ledger::default()
        };
        let verdicts = [ReportVerdict {
            kind: VerdictKind::SilentGap,
            why: "lost notifications seq 0".into(),
            evidence: serde_json::json!({
                "missing_progress": [], "missing_notifications": [0], "result_missing": false,
            }),
        }];
        let d = diagram_of_grade(&ledger, &[], &verdicts, "t");
        let lost: Vec<u64> = d
            .rows
            .iter()
            .filter(|r| r.harm == Some(Harm::NeverDelivered))
            .map(|r| r.at_ms)
            .collect();
        assert_eq!(
            lost,
            [5],
            "only the client's own notification: {:?}",
            labels(&d)
        );
    }
}
