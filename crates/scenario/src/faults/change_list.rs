//! `ChangeList`: the server's application changes one of its lists (a deploy adds a tool, a
//! plugin loads), with or without publishing `notifications/<list>/list_changed`. On
//! 2026-07-28 the change reaches only the listen streams open at that instant
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>):
//! a client whose listen stream is down never hears of it, which is what the
//! `missed_change` verdict judges. No connection is cut.

use faultline_model::{ListName, Output};

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct ChangeList {
    pub list: ListName,
    pub notify: bool,
}

impl FaultAction for ChangeList {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let version = target
            .server()
            .change_list(self.list, self.notify, now_ms, out);
        let how = if self.notify {
            "published to the open listen streams"
        } else {
            "silently (no list_changed)"
        };
        Strike {
            note: format!(
                "the {} list changed to version {version}, {how}",
                self.list.word()
            ),
            conns: Vec::new(),
            then: Vec::new(),
        }
    }
}
