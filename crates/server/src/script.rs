//! A scenario's server-side half, played against live traffic: its `faults` (drops,
//! restarts, GC sweeps) and its `Notify` workload.
//!
//! The simulator plays a scenario against a modelled client; here the client is whoever
//! connects, so only what the *server* (or a middlebox in front of it) does can be played:
//!
//! | scenario item | live |
//! |---|---|
//! | `Drop { when, mode, stream }` | cuts the matching open SSE connections (`mode`: clean end or abort) |
//! | `Restart`, `Gc` | `Server::restart`, `Server::gc_now` |
//! | `Notify { from, every, count }` | notifications on the standalone stream of **every** session, `from` measured from that session's `initialize` |
//! | `away`, `StaleTask`, `CallTool` | client-side: not played (logged once at start) |
//!
//! Triggers: `At(t)` fires at virtual time `t` (from server start or the last
//! `/_chaos/reset`). `AfterEvent { n, on }` fires right after the server has put the
//! `n`-th event of a matching stream on a connection (`ProducedEvent::ordinal`, priming
//! events included, replays included), once. Stream selectors:
//! `Any` matches every stream; `Standalone` the streams the ledger calls standalone;
//! `Call(k)` the stream answering the `k`-th `tools/call` the server accepted (0-based,
//! counting every 200-answered `tools/call` POST since start/reset, JSON or SSE), plus any
//! stream the job of that call was later moved to (Behavior A's fresh stream adopts an
//! orphaned call).
//!
//! Ranges are picked from one `ChaCha8Rng` seeded with the scenario's seed, in the same
//! order as the simulator (`crates/sim/src/world.rs`: server seed, client start, workload
//! in file order, faults in file order), so a live server plays the same member of a
//! scenario family as `faultline run` with the same seed.

use std::collections::{BTreeMap, BTreeSet};

use faultline_model::{EndMode, JobId, StreamId, StreamKind};
use faultline_sim::{Fault, Scenario, StreamSel, Tool, Trigger, Work};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// A fault as the live server performs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LiveFault {
    Drop { mode: EndMode, stream: StreamSel },
    Restart,
    Gc,
}

impl LiveFault {
    pub fn label(&self) -> String {
        match self {
            LiveFault::Drop { mode, stream } => format!("drop ({mode:?}) of {stream:?} streams"),
            LiveFault::Restart => "server restart".into(),
            LiveFault::Gc => "gc sweep".into(),
        }
    }
}

#[derive(Debug)]
struct Armed {
    fault: LiveFault,
    /// `(n, selector)` for `AfterEvent` triggers.
    after: Option<(u32, StreamSel)>,
    fired: bool,
}

#[derive(Debug, Clone, Copy)]
struct NotifyPlan {
    from_ms: u64,
    every_ms: u64,
    count: u64,
}

/// Something the script does at a virtual time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    Notify {
        session: String,
        item: usize,
        remaining: u64,
    },
    Fault(usize),
}

#[derive(Debug, Default)]
struct CallTrack {
    streams: BTreeSet<StreamId>,
}

/// One fault that fired, for `GET /_chaos/ledger`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FiredFault {
    pub at_ms: u64,
    pub fault: String,
    pub connections: Vec<u64>,
}

#[derive(Debug, Default)]
pub(crate) struct Script {
    notify: Vec<NotifyPlan>,
    faults: Vec<Armed>,
    /// `(at_ms, seq) -> action`; `seq` keeps simultaneous actions in scheduling order.
    queue: BTreeMap<(u64, u64), Action>,
    seq: u64,
    /// How many ledger sessions have been given their notification schedule.
    pub sessions_seen: usize,
    /// Only the calls some `Call(k)` selector can name are tracked (bounded memory).
    calls_tracked: usize,
    calls: Vec<CallTrack>,
    call_of_job: BTreeMap<JobId, usize>,
}

impl Script {
    /// Builds the script, picking ranges from `rng` (already past the server seed) in
    /// the simulator's order. Returns it with the notes to log about what is not played.
    pub fn new(scenario: Option<&Scenario>, rng: &mut ChaCha8Rng) -> (Script, Vec<String>) {
        let mut script = Script::default();
        let mut notes = Vec::new();
        let Some(scenario) = scenario else {
            return (script, notes);
        };
        let _client_start = scenario.client.start_at.pick(rng);
        let mut max_call = None::<usize>;
        for (i, work) in scenario.workload.iter().enumerate() {
            match work {
                Work::CallTool { at, tool, .. } => {
                    let _at = at.pick(rng);
                    if let Tool::LongJob { steps, .. } = tool {
                        let _steps = steps.pick(rng);
                    }
                    notes.push(format!(
                        "workload[{i}] CallTool is client-side: not played live (make the call yourself)"
                    ));
                }
                Work::Notify { from, every, count } => {
                    let from_ms = from.pick(rng);
                    let count = count.pick(rng);
                    script.notify.push(NotifyPlan {
                        from_ms,
                        every_ms: every.ms().max(1),
                        count,
                    });
                    notes.push(format!(
                        "workload[{i}] Notify: {count} notifications every {every} on each session's standalone stream, the first {} after its initialize",
                        faultline_model::DurationMs(from_ms)
                    ));
                }
            }
        }
        for (i, fault) in scenario.faults.iter().enumerate() {
            let (when, live) = match fault {
                Fault::Drop {
                    when,
                    mode,
                    stream,
                    away,
                } => {
                    if let Some(away) = away {
                        let _ = away.pick(rng);
                        notes.push(format!(
                            "faults[{i}] away: {away} is client-side: not applied live (the client decides when it comes back)"
                        ));
                    }
                    if let StreamSel::Call(k) = stream {
                        max_call = max_call.max(Some(*k));
                    }
                    (
                        when,
                        LiveFault::Drop {
                            mode: *mode,
                            stream: *stream,
                        },
                    )
                }
                Fault::Restart { when, away } => {
                    if let Some(away) = away {
                        let _ = away.pick(rng);
                        notes.push(format!(
                            "faults[{i}] away: {away} is client-side: not applied live"
                        ));
                    }
                    (when, LiveFault::Restart)
                }
                Fault::Gc { when } => (when, LiveFault::Gc),
                Fault::StaleTask { at, .. } => {
                    let _ = at.pick(rng);
                    notes.push(format!(
                        "faults[{i}] StaleTask is client-side: not played live"
                    ));
                    continue;
                }
            };
            let index = script.faults.len();
            let after = match when {
                Trigger::At(t) => {
                    let at_ms = t.pick(rng);
                    script.schedule(at_ms, Action::Fault(index));
                    notes.push(format!(
                        "faults[{i}] {} at {}",
                        live.label(),
                        faultline_model::DurationMs(at_ms)
                    ));
                    None
                }
                Trigger::AfterEvent { n, on } => {
                    let n = u32::try_from(n.pick(rng)).unwrap_or(u32::MAX);
                    if let StreamSel::Call(k) = on {
                        max_call = max_call.max(Some(*k));
                    }
                    notes.push(format!(
                        "faults[{i}] {} right after event #{n} of a {on:?} stream is sent",
                        live.label()
                    ));
                    Some((n, *on))
                }
            };
            script.faults.push(Armed {
                fault: live,
                after,
                fired: false,
            });
        }
        script.calls_tracked = max_call.map_or(0, |k| k + 1);
        (script, notes)
    }

    pub fn schedule(&mut self, at_ms: u64, action: Action) {
        self.seq += 1;
        self.queue.insert((at_ms, self.seq), action);
    }

    pub fn next_due(&self) -> Option<u64> {
        self.queue.first_key_value().map(|(&(t, _), _)| t)
    }

    pub fn pop(&mut self) -> Option<(u64, Action)> {
        self.queue.pop_first().map(|((t, _), a)| (t, a))
    }

    pub fn fault(&mut self, index: usize) -> Option<LiveFault> {
        let armed = self.faults.get_mut(index)?;
        armed.fired = true;
        Some(armed.fault)
    }

    /// A session was created: queue its notifications.
    pub fn on_new_session(&mut self, wire_id: &str, created_ms: u64) {
        for (item, plan) in self.notify.clone().into_iter().enumerate() {
            if plan.count > 0 {
                self.schedule(
                    created_ms.saturating_add(plan.from_ms),
                    Action::Notify {
                        session: wire_id.to_string(),
                        item,
                        remaining: plan.count,
                    },
                );
            }
        }
    }

    /// The next notification of `item` for `session` after one went out at `at_ms`.
    pub fn notify_again(&mut self, session: String, item: usize, remaining: u64, at_ms: u64) {
        if remaining > 1 {
            let every = self.notify[item].every_ms;
            self.schedule(
                at_ms.saturating_add(every),
                Action::Notify {
                    session,
                    item,
                    remaining: remaining - 1,
                },
            );
        }
    }

    /// The server accepted a `tools/call`: its SSE stream (if any) and the jobs it started.
    pub fn on_call(&mut self, stream: Option<StreamId>, jobs: &[JobId]) {
        if self.calls.len() >= self.calls_tracked {
            return;
        }
        let index = self.calls.len();
        let mut track = CallTrack::default();
        track.streams.extend(stream);
        self.calls.push(track);
        for &job in jobs {
            self.call_of_job.insert(job, index);
        }
    }

    /// An event of `job` went out on `stream`: the call's output may have moved there.
    pub fn on_job_event(&mut self, job: JobId, stream: StreamId) {
        if let Some(&k) = self.call_of_job.get(&job) {
            self.calls[k].streams.insert(stream);
        }
    }

    pub fn matches(&self, sel: StreamSel, stream: StreamId, kind: StreamKind) -> bool {
        match sel {
            StreamSel::Any => true,
            StreamSel::Standalone => kind == StreamKind::Standalone,
            StreamSel::Call(k) => self
                .calls
                .get(k)
                .is_some_and(|c| c.streams.contains(&stream)),
        }
    }

    /// Faults armed on "after the `ordinal`-th event of a matching stream"; marks them fired.
    pub fn event_triggers(
        &mut self,
        ordinal: u32,
        stream: StreamId,
        kind: StreamKind,
    ) -> Vec<usize> {
        let mut due = Vec::new();
        for i in 0..self.faults.len() {
            let armed = &self.faults[i];
            if armed.fired {
                continue;
            }
            if let Some((n, sel)) = armed.after
                && n == ordinal
                && self.matches(sel, stream, kind)
            {
                self.faults[i].fired = true;
                due.push(i);
            }
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn scenario(text: &str) -> Scenario {
        Scenario::parse(text, "test.ron").expect("valid scenario")
    }

    #[test]
    fn client_side_items_are_noted_not_played() {
        let s = scenario(
            r#"Scenario(name: "t", summary: "t",
                workload: [CallTool(at: "0s", tool: Echo(text: "x")), Notify(from: "1s", every: "1s", count: 3)],
                faults: [
                    Drop(when: AfterEvent(n: 2, on: Call(0)), mode: Reset, stream: Call(0), away: Some("5s")),
                    StaleTask(at: "1m", holds_session_from: "0s"),
                    Gc(when: At("10s")),
                ])"#,
        );
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (mut script, notes) = Script::new(Some(&s), &mut rng);
        let joined = notes.join("\n");
        assert!(joined.contains("CallTool is client-side"), "{joined}");
        assert!(joined.contains("StaleTask is client-side"), "{joined}");
        assert!(joined.contains("away: 5s is client-side"), "{joined}");
        assert_eq!(script.next_due(), Some(10_000));
        script.on_new_session("abc", 500);
        assert_eq!(script.next_due(), Some(1_500));
        // Call(0) is unknown until the server accepts a call.
        assert!(
            script
                .event_triggers(2, StreamId(0), StreamKind::Request)
                .is_empty()
        );
        script.on_call(Some(StreamId(0)), &[JobId(0)]);
        script.on_call(Some(StreamId(5)), &[JobId(1)]); // not tracked: nobody names Call(1)
        assert!(
            script
                .event_triggers(1, StreamId(0), StreamKind::Request)
                .is_empty()
        );
        script.on_job_event(JobId(0), StreamId(3));
        assert_eq!(
            script.event_triggers(2, StreamId(3), StreamKind::Standalone),
            vec![0]
        );
        assert!(
            script
                .event_triggers(2, StreamId(3), StreamKind::Standalone)
                .is_empty()
        );
    }
}
