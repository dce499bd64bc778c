//! List versions: each list the 2026-07-28 path serves (tools, prompts, resources) starts
//! at version 1, and a change (the `ChangeList` fault, or the conformance suite's
//! `test_trigger_tool_change` tool) moves it to the next version, recorded in
//! [`Ledger::list_changes`](crate::ledger::Ledger). A change is published as
//! `notifications/<list>/list_changed` to the listen streams open *at that instant* whose
//! filter wants that list, or not at all (a silent change); a listen stream that opens
//! later never hears of it. 2025 sessions that opened a standalone GET stream get it there
//! (<https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification>),
//! logged with the session's other notifications; a sessionless 2025 server's GET stream
//! (`legacy_get: ServeStream`) belongs to no session and carries nothing, as the stream
//! of <https://github.com/akutishevsky/nutrition-mcp/pull/31> carried nothing. Each `tools/list` answer records the version it gave, so the
//! oracle can tell which version a client held when it called a tool.
//!
//! The tools list shows its version: from version 2 on, it ends with one tool per change
//! (`tool_v2`, `tool_v3`, …), listed only (calling one is an unknown tool). A client that kept an old list does
//! not know them.
//!
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>

use serde_json::{Map, Value, json};

use crate::fleet::Notifications;
use crate::http::Output;
use crate::ids::SessionKey;
use crate::ledger::{ListChange, ListName, Payload};
use crate::route::ReplicaId;

use super::super::Server;

/// The conformance suite's hook: calling it changes the tools list and publishes the change.
pub const TEST_TRIGGER_TOOL_CHANGE: &str = "test_trigger_tool_change";

impl Server {
    /// The current version of `list` (1 before any change).
    pub fn list_version(&self, list: ListName) -> u32 {
        self.modern.list_versions[list as usize]
    }

    /// Changes `list` at `now_ms`: its version moves on, and when `notify` is set every
    /// listen stream open now whose filter wants it is sent `list_changed`. Returns the
    /// new version.
    pub fn change_list(
        &mut self,
        list: ListName,
        notify: bool,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) -> u32 {
        self.change_list_on(list, notify, None, now_ms, out)
    }

    /// [`change_list`](Server::change_list) published by one replica of a fleet (`on`;
    /// `None`: by every replica, as a deploy that changes every process does). With a
    /// per-replica bus (`notifications: SameReplica`, the SDKs' in-memory event bus)
    /// only the listen streams that replica holds hear of it; with a shared bus, all.
    pub fn change_list_on(
        &mut self,
        list: ListName,
        notify: bool,
        on: Option<ReplicaId>,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) -> u32 {
        self.advance(now_ms, out);
        self.publish_change(list, notify, on, out)
    }

    /// Records on the answer just given that it listed `version` of the tools list.
    pub(in crate::server) fn note_list_version(&mut self, version: u32) {
        if let Some(answer) = self.ledger.answers.last_mut() {
            answer.list_version = Some(version);
        }
    }

    /// [`note_list_version`](Server::note_list_version) for a 2026-07-28 list, which came
    /// with a `ttlMs` (the `list_ttl` knob, 0 when unset).
    pub(in crate::server) fn note_modern_list(&mut self, version: u32) {
        let ttl_ms = super::discover::cache_ttl_ms(&self.knobs);
        if let Some(answer) = self.ledger.answers.last_mut() {
            answer.list_version = Some(version);
            answer.list_ttl_ms = Some(ttl_ms);
        }
    }

    /// [`change_list`](Server::change_list) at the current instant.
    pub(in crate::server) fn publish_change(
        &mut self,
        list: ListName,
        notify: bool,
        on: Option<ReplicaId>,
        out: &mut Vec<Output>,
    ) -> u32 {
        let on = on.filter(|_| self.multi);
        let version = self.list_version(list) + 1;
        self.modern.list_versions[list as usize] = version;
        let change = self.ledger.list_changes_end();
        let listening = self.modern.listens.values().any(|l| l.filter.wants(list));
        self.ledger.list_changes.push(ListChange {
            at_ms: self.now_ms,
            list,
            version,
            notified: notify,
            published_on: on,
            listening,
        });
        if notify {
            // Open listens only, in the order they opened: no state outlives a listen. On a
            // per-replica bus, only those the publishing replica holds (where the listen
            // request landed): the others' processes never hear of the change.
            let bus = on.filter(|_| self.fleet.notifications == Notifications::SameReplica);
            let targets: Vec<(crate::ids::StreamId, u32)> = self
                .modern
                .listens
                .iter()
                .filter(|(_, l)| l.filter.wants(list))
                .filter(|(s, _)| bus.is_none_or(|r| self.log.get(**s).is_some_and(|l| l.home == r)))
                .map(|(&s, l)| (s, l.index))
                .collect();
            for (stream, listen) in targets {
                self.emit(stream, Payload::ListChanged { listen, change }, out);
            }
            // 2025 sessions hear it on their standalone stream, as any notification of
            // theirs: logged for the session (replayed on a resumption) whether or not its
            // GET is connected now. Only sessions that ever opened one listen; a sessionless
            // server's GET stream belongs to no session and carries nothing.
            let sessions: Vec<SessionKey> = self
                .sessions
                .keys()
                .filter(|&k| self.sessions.get(k).is_some_and(|s| s.listening))
                .collect();
            for key in sessions {
                let stream = self.standalone_stream(key);
                self.emit(stream, Payload::SessionListChanged { change }, out);
            }
        }
        version
    }
}

/// The 2025 `tools/list` result at `version`: the fixed list, then one tool per change.
pub fn legacy_tool_list(version: u32) -> Value {
    let mut list = crate::tools::list();
    if version > 1
        && let Some(tools) = list.get_mut("tools").and_then(Value::as_array_mut)
    {
        tools.extend(added_tools(version));
    }
    list
}

/// The tools of `version` beyond the fixed list: one per change since version 1.
pub fn added_tools(version: u32) -> Vec<Value> {
    (2..=version)
        .map(|v| {
            json!({
                "name": format!("tool_v{v}"),
                "description": format!("Added by the change to version {v} of the tools list (listed only)."),
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}
            })
        })
        .collect()
}

/// `notifications/<list>/list_changed` as a listen stream carries it.
pub fn list_changed_message(list: ListName, subscription: &Value) -> Value {
    super::listen::tagged(
        &format!("notifications/{}/list_changed", list.word()),
        Map::new(),
        subscription,
    )
}
