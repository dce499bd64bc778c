//! List versions: each list the 2026-07-28 path serves (tools, prompts, resources) starts
//! at version 1, and a change (the `ChangeList` fault, or the conformance suite's
//! `test_trigger_tool_change` tool) moves it to the next version, recorded in
//! [`Ledger::list_changes`](crate::ledger::Ledger). A change is published as
//! `notifications/<list>/list_changed` to the listen streams open *at that instant* whose
//! filter wants that list, or not at all (a silent change); a listen stream that opens
//! later never hears of it. Each `tools/list` answer records the version it gave, so the
//! oracle can tell which version a client held when it called a tool.
//!
//! The tools list shows its version: from version 2 on, it ends with one tool per change
//! (`tool_v2`, `tool_v3`, …), listed only (calling one is an unknown tool). A client that kept an old list does
//! not know them.
//!
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>

use serde_json::{Map, Value, json};

use crate::http::Output;
use crate::ledger::{ListChange, ListName, Payload};

use super::super::Server;

/// The conformance suite's hook: calling it changes the tools list and publishes the change.
pub const TEST_TRIGGER_TOOL_CHANGE: &str = "test_trigger_tool_change";

impl Server {
    /// The current version of `list` (1 before any change).
    pub fn list_version(&self, list: ListName) -> u32 {
        self.ledger
            .list_changes
            .iter()
            .rev()
            .find(|c| c.list == list)
            .map_or(1, |c| c.version)
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
        self.advance(now_ms, out);
        self.publish_change(list, notify, out)
    }

    /// [`change_list`](Server::change_list) at the current instant.
    pub(in crate::server) fn publish_change(
        &mut self,
        list: ListName,
        notify: bool,
        out: &mut Vec<Output>,
    ) -> u32 {
        let version = self.list_version(list) + 1;
        let change = self.ledger.list_changes.len() as u32;
        self.ledger.list_changes.push(ListChange {
            at_ms: self.now_ms,
            list,
            version,
            notified: notify,
        });
        if notify {
            // Open listens only, in the order they opened: no state outlives a listen.
            let targets: Vec<(crate::ids::StreamId, u32)> = self
                .modern
                .listens
                .iter()
                .map(|(&s, &l)| (s, l))
                .filter(|&(_, l)| self.ledger.listens[l as usize].filter.wants(list))
                .collect();
            for (stream, listen) in targets {
                self.emit(stream, Payload::ListChanged { listen, change }, out);
            }
        }
        version
    }
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
