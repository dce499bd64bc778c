//! Finding the moment of harm from the trace alone.
//!
//! The trace does not name verdicts, but it holds everything needed to see harm as it
//! happens: what the client did with each event (skipped as seen, lost in flight,
//! quarantined), which requests met a dead session (404/410), which requests still carried
//! a session id after the client had re-initialized away from it, and which replays came
//! from another generation's numbering than the cursor's. This module walks the trace in
//! order and keeps just enough state to say so. When the verdicts are known as well, they
//! are pinned on top (see `marks`), but the picture never depends on them.

use std::collections::BTreeMap;

use faultline_sim::{EventRun, Fate, Task, short_id, vtime};

use crate::diagram::Harm;

/// What the trace told us about one connection's request.
#[derive(Debug, Clone)]
pub struct ConnInfo {
    pub task: Task,
    pub http: String,
    pub rpc: Option<String>,
    pub session: Option<String>,
    pub last_event_id: Option<String>,
}

/// Harm found so far, and the state needed to find more.
#[derive(Debug, Default)]
pub struct HarmTracker {
    pub conns: BTreeMap<u64, ConnInfo>,
    /// Sessions the client obtained from `initialize`, in order, with the time.
    sessions: Vec<(u64, String)>,
    /// Sessions that answered 404/410: when, and with which status.
    dead: BTreeMap<String, (u64, u16)>,
    /// Sessions whose resumption GET answered 200: when.
    resumed_ok: BTreeMap<String, u64>,
    /// Sessions the server removed: wire id -> when.
    died: BTreeMap<String, u64>,
    /// (session index, id) -> generation of the event the client applied with that id.
    applied_generation: BTreeMap<(u32, u64), u32>,
    /// Every (session index, stream, generation, id) the client applied.
    applied: std::collections::BTreeSet<(u32, u32, u32, u64)>,
}

impl HarmTracker {
    pub fn task_of(&self, conn: u64) -> Task {
        self.conns.get(&conn).map_or(Task::Main, |c| c.task)
    }

    /// Records a request; returns the harm it does, if any, and why.
    pub fn request(&mut self, conn: u64, info: ConnInfo) -> Option<(Harm, String)> {
        let verdict = info.session.as_deref().and_then(|s| {
            let current = self.sessions.last().map(|(_, c)| c.as_str());
            let superseded = self.sessions.len() >= 2
                && current != Some(s)
                && self.sessions.iter().any(|(_, old)| old == s);
            if superseded {
                let (at, new) = self.sessions.last().expect("len >= 2");
                return Some((
                    Harm::Collision,
                    format!(
                        "carries session {} although the client re-initialized to {} at {}",
                        short_id(s),
                        short_id(new),
                        vtime(*at)
                    ),
                ));
            }
            self.dead.get(s).map(|(at, status)| {
                (
                    Harm::Retry,
                    format!(
                        "session {} already answered {status} at {}",
                        short_id(s),
                        vtime(*at)
                    ),
                )
            })
        });
        self.conns.insert(conn, info);
        verdict
    }

    /// Records a response; returns the harm it reveals, if any, and why.
    pub fn response(
        &mut self,
        at_ms: u64,
        conn: u64,
        status: u16,
        session: Option<&str>,
    ) -> Option<(Harm, String)> {
        let info = self.conns.get(&conn)?;
        if let Some(s) = session
            && info.rpc.as_deref() == Some("initialize")
        {
            self.sessions.push((at_ms, s.to_string()));
        }
        let sent = info.session.clone()?;
        if status == 200 && info.http == "GET" && info.last_event_id.is_some() {
            self.resumed_ok.entry(sent.clone()).or_insert(at_ms);
        }
        if !matches!(status, 404 | 410) {
            return None;
        }
        let first = !self.dead.contains_key(&sent);
        self.dead.entry(sent.clone()).or_insert((at_ms, status));
        let mut why = format!("session {} is dead on the server", short_id(&sent));
        if first && let Some(at) = self.resumed_ok.get(&sent) {
            why.push_str(&format!(
                ", although the resumption GET at {} answered 200",
                vtime(*at)
            ));
        }
        Some((Harm::DeadSession, why))
    }

    /// Records that the server removed a session.
    pub fn session_died(&mut self, at_ms: u64, session: &str) {
        self.died.entry(session.to_string()).or_insert(at_ms);
    }

    /// The wire id of a session index: sessions are numbered in the order the client
    /// obtained them (one client per run).
    fn wire_of(&self, index: u32) -> Option<&str> {
        self.sessions.get(index as usize).map(|(_, s)| s.as_str())
    }

    /// Classifies a folded run of events and records what the client applied.
    pub fn events(&mut self, run: &EventRun) -> Option<(Harm, String)> {
        let harm = match run.fate {
            Fate::SkippedAsSeen => Some((
                Harm::Lost,
                "discarded by the client as already seen (id <= its cursor)".to_string(),
            )),
            Fate::Ignored => Some((
                Harm::Lost,
                "sent on a connection the client had already abandoned".to_string(),
            )),
            Fate::Quarantined => Some((
                Harm::Quarantined,
                "refused by the client: the session is dead, its events must not be applied"
                    .to_string(),
            )),
            _ => None,
        };
        let harm = harm
            .or_else(|| self.cursor_reuse(run))
            .or_else(|| self.applied_after_death(run))
            .or_else(|| self.duplicate(run));
        if run.fate == Fate::Applied {
            for id in &run.ids {
                self.applied
                    .insert((run.session, run.stream, run.generation, *id));
                self.applied_generation
                    .insert((run.session, *id), run.generation);
            }
        }
        harm
    }

    fn duplicate(&self, run: &EventRun) -> Option<(Harm, String)> {
        if run.fate != Fate::Applied {
            return None;
        }
        let again: Vec<u64> = run
            .ids
            .iter()
            .copied()
            .filter(|id| {
                self.applied
                    .contains(&(run.session, run.stream, run.generation, *id))
            })
            .collect();
        (!again.is_empty()).then(|| {
            (
                Harm::Duplicate,
                format!(
                    "ids {} of stream #{} were already applied once",
                    faultline_sim::IdRanges::from_sorted(again),
                    run.stream
                ),
            )
        })
    }

    fn applied_after_death(&self, run: &EventRun) -> Option<(Harm, String)> {
        if run.fate != Fate::Applied {
            return None;
        }
        let wire = self.wire_of(run.session)?;
        let died = *self.died.get(wire)?;
        (died < run.last_at).then(|| {
            (
                Harm::AppliedAfterDeath,
                format!(
                    "applied although session {} died at {}: these events must be quarantined",
                    short_id(wire),
                    vtime(died)
                ),
            )
        })
    }

    fn cursor_reuse(&self, run: &EventRun) -> Option<(Harm, String)> {
        if !run.replay {
            return None;
        }
        let cursor: u64 = self
            .conns
            .get(&run.conn)?
            .last_event_id
            .as_deref()?
            .parse()
            .ok()?;
        let minted = *self.applied_generation.get(&(run.session, cursor))?;
        (minted != run.generation).then(|| {
            (
                Harm::CursorReuse,
                format!(
                    "Last-Event-ID {cursor} was minted in generation {minted} and honoured in generation {}",
                    run.generation
                ),
            )
        })
    }
}
