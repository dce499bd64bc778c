//! `ChangeList`: the server's application changes one of its lists (a deploy adds a tool, a
//! plugin loads), with or without publishing `notifications/<list>/list_changed`. On
//! 2026-07-28 the change reaches only the listen streams open at that instant
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>):
//! a client whose listen stream is down never hears of it, which is what the
//! `missed_change` verdict judges. A 2025 session that opened a GET stream gets it there,
//! logged for a resumption. No connection is cut. On a fleet, `on` has one replica publish
//! it; behind a per-replica bus (`notifications: SameReplica`, the TypeScript SDK's
//! in-memory `InMemoryServerEventBus`) only the listens that replica holds hear of it.

use faultline_model::{ListName, Output, Payload, ReplicaId};

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct ChangeList {
    pub list: ListName,
    pub notify: bool,
    pub on: Option<ReplicaId>,
}

impl FaultAction for ChangeList {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let first = target.server().ledger().next_event().0;
        let version = target
            .server()
            .change_list_on(self.list, self.notify, self.on, now_ms, out);
        let ledger = target.server().ledger();
        let from = first.saturating_sub(ledger.events_base) as usize;
        // The change's own events: `list_changed` on 2025 GET streams and on listens.
        let (mut sessions, mut listens) = (0, 0);
        for event in ledger.events.get(from..).unwrap_or_default() {
            match event.payload {
                Payload::SessionListChanged { .. } => sessions += 1,
                Payload::ListChanged { .. } => listens += 1,
                _ => {}
            }
        }
        // Which listens heard it is worth saying only when one replica published it.
        let by = match self.on {
            Some(r) => format!(" by replica {r} (heard by {listens} listen stream(s))"),
            None => String::new(),
        };
        let how = match (self.notify, sessions) {
            (false, _) => "silently (no list_changed)".to_string(),
            (true, 0) => format!("published to the open listen streams{by}"),
            (true, n) => format!(
                "published to the open listen streams{by} and the GET streams of {n} 2025 session(s)"
            ),
        };
        Strike {
            note: target.note(|| {
                format!(
                    "the {} list changed to version {version}, {how}",
                    self.list.word()
                )
            }),
            conns: Vec::new(),
            then: Vec::new(),
        }
    }
}
