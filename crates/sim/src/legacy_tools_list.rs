//! The tools list a 2025 client with `lists_tools` works from, as an agent host does: it
//! calls `tools/list` once it has a session and calls a tool only while it holds a list,
//! listing first when it holds none. Its change channel is the standalone GET stream,
//! where a 2025 server sends `notifications/tools/list_changed`
//! (<https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification>);
//! both clients drop the list when one arrives. Two guards differ, both under
//! [`Policy::relisten_after_drop`](crate::client::Policy):
//!
//! - **naive** keeps its list for good otherwise, across a dropped GET stream and a new
//!   session alike: a change made while its stream was down never reaches it (a new
//!   stream replays nothing unless it resumes), and it calls tools from the old list;
//! - **guarded** drops the list when its standalone stream ends (what was published
//!   while it reconnects may never arrive) and when it starts a new session, and never
//!   trusts a list on a server that assigned no session: such a server's GET stream
//!   belongs to no session and carries nothing
//!   (<https://github.com/akutishevsky/nutrition-mcp/pull/31>), so it lists before each
//!   call. Nor does it trust one without a standalone stream of its own (no channel at
//!   all: a restart into a new build may bring other tools, and nothing would say so).
//!
//! The `missed_change` verdict judges a call made from a list that changed while the
//! channel was down, from the ledger alone.

/// What the client holds of the tools list and what waits on it.
#[derive(Debug, Default)]
pub(crate) struct LegacyToolsList {
    /// The client works from a tools list at all (`lists_tools`).
    pub enabled: bool,
    /// It holds a list it may call from.
    pub held: bool,
    /// The JSON-RPC id of the `tools/list` in flight.
    pub listing: Option<u64>,
    /// Workload calls asked for while no list was held, to send once one arrives.
    pub waiting: Vec<usize>,
}

impl LegacyToolsList {
    pub fn new(enabled: bool) -> Self {
        LegacyToolsList {
            enabled,
            ..LegacyToolsList::default()
        }
    }

    /// Whether call `call` may go now; otherwise it waits for a list (and the caller lists,
    /// when [`Self::should_list`] says so).
    pub fn admits(&mut self, call: usize, trusts_lists: bool) -> bool {
        if !self.enabled || (self.held && trusts_lists) {
            return true;
        }
        if !self.waiting.contains(&call) {
            self.waiting.push(call);
        }
        false
    }

    /// Whether a `tools/list` must be sent now: a list is wanted and none is in flight.
    pub fn should_list(&self) -> bool {
        self.enabled && self.listing.is_none()
    }

    /// The list arrived (or its request failed): the calls waiting on it, to send now.
    pub fn answered(&mut self, request_id: u64, listed: bool) -> Option<Vec<usize>> {
        if self.listing != Some(request_id) {
            return None;
        }
        self.listing = None;
        self.held |= listed;
        Some(std::mem::take(&mut self.waiting))
    }

    /// The `tools/list` with `request_id` will never be answered with a list (its session
    /// died): a new one may be sent, and the calls waiting keep waiting for it.
    pub fn abandon(&mut self, request_id: u64) {
        if self.listing == Some(request_id) {
            self.listing = None;
        }
    }

    /// The list may be out of date from now on.
    pub fn drop_list(&mut self) {
        self.held = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_without_a_list_calls_at_once() {
        let mut list = LegacyToolsList::new(false);
        assert!(list.admits(0, true));
        assert!(!list.should_list());
    }

    #[test]
    fn calls_wait_for_the_list_and_go_when_it_arrives() {
        let mut list = LegacyToolsList::new(true);
        assert!(!list.admits(0, true));
        assert!(!list.admits(1, true));
        assert!(list.should_list());
        list.listing = Some(7);
        assert!(!list.should_list(), "one tools/list at a time");
        assert_eq!(list.answered(8, true), None, "another request's answer");
        assert_eq!(list.answered(7, true), Some(vec![0, 1]));
        assert!(list.admits(2, true));
        assert!(!list.admits(3, false), "an untrusted list is listed again");
        list.drop_list();
        assert!(!list.admits(4, true));
        list.listing = Some(9);
        list.abandon(9);
        assert!(
            list.should_list(),
            "a list whose session died is sent again"
        );
        assert_eq!(list.answered(10, true), None);
        list.listing = Some(10);
        assert_eq!(
            list.answered(10, true),
            Some(vec![3, 4]),
            "the calls kept waiting"
        );
    }
}
