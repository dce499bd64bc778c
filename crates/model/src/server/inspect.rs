//! Read-only views for drivers, timelines and reports: nothing here changes state.
//!
//! Kept apart so that the protocol files show only what moves the state machine.

use serde_json::{Value, json};

use crate::ids::{ConnId, EventRef, SessionKey, StreamId};
use crate::jsonrpc;
use crate::knobs::ServerKnobs;
use crate::ledger::{Ledger, Payload};
use crate::tools;

use super::Server;

impl Server {
    pub fn knobs(&self) -> &ServerKnobs {
        &self.knobs
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// Live sessions: (wire id, generation).
    pub fn live_sessions(&self) -> Vec<(String, u32)> {
        self.sessions
            .keys()
            .filter_map(|k| {
                self.sessions
                    .get(k)
                    .map(|s| (s.wire_id.clone(), s.generation))
            })
            .collect()
    }

    pub fn live_session_count(&self) -> usize {
        self.sessions.len()
    }

    /// How many events the log retains for each stream of `session` (for timelines).
    pub fn retained_events(&self, session: SessionKey) -> u32 {
        self.log
            .streams
            .values()
            .filter(|l| l.session == session)
            .map(|l| l.retained.len() as u32)
            .sum()
    }

    /// How many wire ids the server remembers (live sessions, and dead ones whose ledger
    /// entries are kept): what a long-lived server holds per session ever created.
    pub fn remembered_session_ids(&self) -> usize {
        self.ever_minted.len()
    }

    pub fn session_key(&self, wire_id: &str) -> Option<SessionKey> {
        self.ever_minted.get(wire_id).copied()
    }

    pub fn is_live(&self, wire_id: &str) -> bool {
        self.sessions.lookup(wire_id).is_some()
    }

    /// The stream a connection is attached to.
    pub fn stream_of(&self, conn: ConnId) -> Option<StreamId> {
        self.conns.get(&conn).copied()
    }

    /// Open SSE connections, optionally only those of one session.
    pub fn open_connections(&self, session: Option<&str>) -> Vec<ConnId> {
        let key = session.and_then(|s| self.ever_minted.get(s).copied());
        self.conns
            .iter()
            .filter(|(_, stream)| match key {
                None => session.is_none(),
                Some(k) => self.log.get(**stream).is_some_and(|l| l.session == k),
            })
            .map(|(&c, _)| c)
            .collect()
    }

    /// One line each for the session store and the event log, for timelines:
    /// `("3f2a1c9e gen 1 alive", "stream #1 [4472..=4473] detached")`.
    pub fn state_summary(&self) -> (String, String) {
        let store: Vec<String> = self
            .ledger
            .sessions
            .iter()
            .map(|entry| {
                if entry.stateless {
                    return "stateless scope (2026-07-28 requests: no session)".to_string();
                }
                let short = &entry.wire_id[..8.min(entry.wire_id.len())];
                match (self.sessions.lookup(&entry.wire_id), entry.died) {
                    (Some(k), _) => {
                        let s = self.sessions.get(k).expect("live");
                        let until = self
                            .deadline_of(s)
                            .map(|d| format!(", dies at {}", crate::DurationMs(d)))
                            .unwrap_or_default();
                        format!("{short} gen {} alive{until}", s.generation)
                    }
                    (None, Some((at, cause))) => {
                        format!("{short} dead since {} ({cause:?})", crate::DurationMs(at))
                    }
                    (None, None) => format!("{short} gone"),
                }
            })
            .collect();
        let log: Vec<String> = self
            .log
            .streams
            .iter()
            .map(|(id, l)| {
                let held = match (l.retained.front(), l.retained.back()) {
                    (Some(a), Some(b)) if a.id == b.id => format!("[{}]", a.id),
                    (Some(a), Some(b)) => format!("[{}..={}]", a.id, b.id),
                    _ => "[]".to_string(),
                };
                let state = if l.attached.is_some() {
                    "attached"
                } else {
                    "detached"
                };
                format!("stream #{} gen {} {held} {state}", id.0, l.generation)
            })
            .collect();
        let or_none = |v: Vec<String>| {
            if v.is_empty() {
                "(empty)".to_string()
            } else {
                v.join("; ")
            }
        };
        (or_none(store), or_none(log))
    }

    /// Whether `event` carries an `id:` on the wire at all: all a client can know of its
    /// id. (A server without an event store writes none, and its clients have no cursor.)
    /// The rule of [`wire_event_id`](Self::wire_event_id), without spelling the id.
    #[inline]
    pub fn spells_event_id(&self, event: EventRef) -> bool {
        match self.knobs.id_format {
            crate::knobs::IdFormat::Hidden => false,
            crate::knobs::IdFormat::IndexSlashRequest => self
                .produced_event(event)
                .is_none_or(|p| !self.unnumbered_initialize_answer(p)),
            _ => true,
        }
    }

    /// The `id:` text of `event` (numbered `id` by the id scheme), in the spelling the
    /// `id_format` knob names; `None` when it writes no id.
    ///
    /// An event whose ledger entry the ledger window has let go (a long-lived server
    /// replaying an old event) is spelled as a number.
    pub fn wire_event_id(&self, event: EventRef, id: u64) -> Option<String> {
        let format = self.knobs.id_format;
        if format == crate::knobs::IdFormat::Number {
            return Some(id.to_string());
        }
        let Some(produced) = self.produced_event(event) else {
            return (format != crate::knobs::IdFormat::Hidden).then(|| id.to_string());
        };
        if format == crate::knobs::IdFormat::IndexSlashRequest
            && self.on_initialize_stream(produced)
        {
            return (!self.unnumbered_initialize_answer(produced)).then(|| id.to_string());
        }
        let ledger = &self.ledger;
        let kind = produced
            .stream
            .0
            .checked_sub(ledger.streams_base)
            .and_then(|i| ledger.streams.get(i as usize))
            .map_or(crate::ledger::StreamKind::Request, |s| s.kind);
        crate::wire_id::render(format, id, produced, kind)
    }

    /// `event`'s ledger entry, unless the ledger window has let it go.
    fn produced_event(&self, event: EventRef) -> Option<&crate::ledger::ProducedEvent> {
        let ledger = &self.ledger;
        event
            .0
            .checked_sub(ledger.events_base)
            .and_then(|i| ledger.events.get(i as usize))
    }

    /// Whether `produced` went on the stream that answers `initialize`.
    fn on_initialize_stream(&self, produced: &crate::ledger::ProducedEvent) -> bool {
        self.log
            .get(produced.stream)
            .is_some_and(|l| l.answers_initialize)
    }

    /// rmcp's `initialize` stream has no request number (`IndexSlashRequest`): its priming
    /// event is spelled `<n>` and its answer carries no id at all.
    fn unnumbered_initialize_answer(&self, produced: &crate::ledger::ProducedEvent) -> bool {
        self.on_initialize_stream(produced)
            && !matches!(produced.payload, crate::ledger::Payload::Priming)
    }

    pub fn event_message(&self, event: EventRef) -> Option<Value> {
        let produced = self.ledger.event(event);
        match produced.payload {
            Payload::Priming => None,
            Payload::Progress { job, step, total } => {
                let entry = self.ledger.job(job);
                Some(json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {
                        "progressToken": entry.progress_token,
                        "progress": step,
                        "total": total,
                        "message": format!("step {step} of {total}"),
                    }
                }))
            }
            Payload::ToolResult { job } => {
                let entry = self.ledger.job(job);
                if self.modern.scope() == Some(entry.session) {
                    return Some(super::modern::request_stream::job_result(entry));
                }
                Some(jsonrpc::result(
                    &entry.request_id,
                    tools::job_result(entry.steps),
                ))
            }
            Payload::Notification { seq } => {
                let mut message = json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": "info", "logger": "faultline", "data": {"seq": seq}},
                });
                // A fleet tags each notification with its session (see `session_tag.rs`);
                // a single server's messages stay as they always were.
                if self.multi {
                    let wire_id = &self.ledger.session(produced.session).wire_id;
                    message["params"]["_meta"] =
                        json!({ crate::SESSION_TAG_META: crate::session_tag_text(wire_id) });
                }
                Some(message)
            }
            Payload::Response { message } => Some(self.ledger.message(message).clone()),
            Payload::ListenAck { listen } => {
                let (request_id, filter) = self.listen_of(produced.stream, listen)?;
                let mut params = serde_json::Map::new();
                params.insert(
                    "notifications".into(),
                    super::modern::listen::filter_json(filter),
                );
                Some(super::modern::listen::tagged(
                    "notifications/subscriptions/acknowledged",
                    params,
                    request_id,
                ))
            }
            Payload::SessionListChanged { change } => {
                let list = self.ledger.kept_list_change(change)?.list;
                let mut message = json!({
                    "jsonrpc": "2.0",
                    "method": format!("notifications/{}/list_changed", list.word()),
                });
                if self.multi {
                    let wire_id = &self.ledger.session(produced.session).wire_id;
                    message["params"] = json!({"_meta": { crate::SESSION_TAG_META: crate::session_tag_text(wire_id) }});
                }
                Some(message)
            }
            Payload::ListChanged { listen, change } => {
                let (request_id, _) = self.listen_of(produced.stream, listen)?;
                let list = self.ledger.kept_list_change(change)?.list;
                Some(super::modern::list_versions::list_changed_message(
                    list, request_id,
                ))
            }
            Payload::ListenEnded { listen, end } => {
                let (request_id, _) = self.listen_of(produced.stream, listen)?;
                super::modern::listen::end_message(end, request_id)
            }
        }
    }

    /// The subscription id and filter of listen `listen` on `stream`: from the open
    /// listen, or from the ledger once it closed (`None` if the ledger trimmed it: a
    /// listen stream is never replayed, so nothing asks for its messages again).
    fn listen_of(
        &self,
        stream: crate::ids::StreamId,
        listen: u32,
    ) -> Option<(&Value, crate::ledger::ListenFilter)> {
        if let Some(open) = self.modern.listens.get(&stream) {
            return Some((&open.request_id, open.filter));
        }
        let kept = listen.checked_sub(self.ledger.listens_base)?;
        let entry = self.ledger.listens.get(kept as usize)?;
        Some((&entry.request_id, entry.filter))
    }
}
