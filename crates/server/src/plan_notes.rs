//! What `serve --scenario` tells its user at start: which scenario items it plays against
//! live traffic and when, and which belong to the client (a real client makes its own
//! calls and decides when it comes back, so those are only described).

use faultline_model::DurationMs;
use faultline_scenario::{Armed, ArmedTrigger, Fault, Scenario, Work};

/// `auto_clock`: the server moves its own clock (`--time-scale auto`, grading), and so
/// holds a cut-off client's return to the fault's `away` (see `client_hold`).
pub(crate) fn plan_notes(scenario: &Scenario, armed: &Armed, auto_clock: bool) -> Vec<String> {
    let mut notes = Vec::new();
    let mut notify = armed.notifies.iter();
    let mut call = 0;
    for (i, work) in scenario.workload.iter().enumerate() {
        match work {
            Work::CallTool { .. } => {
                let at = armed.calls.get(call).map_or(0, |c| c.at_ms);
                notes.push(format!(
                    "workload[{i}] CallTool is client-side (Call({call}), at {}): make the call yourself",
                    DurationMs(at)
                ));
                call += 1;
            }
            Work::Tenant { .. } => notes.push(format!(
                "workload[{i}] Tenant: another client's session, played by the server on its model (no HTTP), with its own notifications"
            )),
            Work::Notify { .. } => {
                if let Some(n) = notify.next() {
                    notes.push(format!(
                        "workload[{i}] Notify: {} notifications every {} on the standalone stream of the newest session, the first at {}",
                        n.count,
                        DurationMs(n.every_ms),
                        DurationMs(n.from_ms)
                    ));
                }
            }
        }
    }
    for (i, (fault, armed)) in scenario.faults.iter().zip(&armed.faults).enumerate() {
        let what = match fault {
            Fault::Drop { mode, stream, .. } => format!("drop ({mode:?}) of {stream:?} streams"),
            Fault::Restart { .. } => "server restart".into(),
            Fault::Gc { .. } => "gc sweep".into(),
            Fault::CutCall { call, .. } => format!("cut of call {call}'s request stream"),
            Fault::ChangeList { list, notify, .. } => format!(
                "a change of the {} list{}",
                list.word(),
                if *notify { "" } else { " (silent)" }
            ),
            Fault::DropListen { end, .. } => match end {
                faultline_model::ListenEnd::Reset => "drop of the listen streams".into(),
                faultline_model::ListenEnd::Complete => {
                    "the listen streams ended (complete result)".into()
                }
                faultline_model::ListenEnd::Cancelled => {
                    "the listen streams ended (notifications/cancelled)".into()
                }
            },
            Fault::IdleProxy { cut_after } => {
                format!("an idle proxy cutting listen streams quiet for {cut_after}")
            }
            Fault::ReplicaDown { replica, down, .. } => {
                format!("replica r{replica} down for {down}")
            }
            Fault::RollingDeploy { every, down, .. } => {
                format!("a rolling deploy (each replica down for {down}, {every} apart)")
            }
            Fault::StickyLost { .. } => "the balancer forgets its pins".into(),
            Fault::Scale { to, .. } => format!("the fleet scaled to {to} replicas"),
            Fault::PurgeTasks { .. } => "the task store is purged".into(),
            Fault::Proxy502 {
                lasting, status, ..
            } => format!("a proxy answering {status} for {lasting}"),
            Fault::IdleProxySse { cut_after } => {
                format!("an idle proxy cutting SSE responses quiet for {cut_after}")
            }
            Fault::RollEra { to, .. } => format!("server restart into era {to:?}"),
            Fault::StaleTask { .. } => {
                notes.push(format!(
                    "faults[{i}] StaleTask is client-side: not played live"
                ));
                continue;
            }
        };
        let when = match armed.trigger {
            ArmedTrigger::At(t) => format!("at {}", DurationMs(t)),
            ArmedTrigger::AfterEvent { n, on } => {
                format!("right after event #{n} of a {on:?} stream is sent")
            }
            ArmedTrigger::Standing => "for the whole run".to_string(),
        };
        notes.push(format!("faults[{i}] {what} {when}"));
        if let Some(away) = armed.away_ms {
            notes.push(if auto_clock {
                format!(
                    "faults[{i}] away: {}: the auto clock handles the client's return (its resumption or next POST) at the fault's time + {}, whatever its back-off",
                    DurationMs(away),
                    DurationMs(away)
                )
            } else {
                format!(
                    "faults[{i}] away: {} is client-side: not applied live (the client decides when it comes back; `--time-scale auto` holds it to the away)",
                    DurationMs(away)
                )
            });
        }
    }
    notes
}
