//! Fan-out in a fleet: whether an event published on one replica reaches the connection
//! reading its stream, which may be attached to another.
//!
//! The publisher of a notification is the replica that minted its session (where the
//! SDKs keep the session's server object and its in-memory transport); the publisher of a
//! tool call's progress and result is the replica that opened the call's stream (where
//! its job runs). With `notifications: AllReplicas` (a pub/sub bus behind the fleet)
//! every replica hears every publication; with `SameReplica` a listener whose GET the
//! balancer sent elsewhere gets nothing live: the event is produced and logged, and sent
//! to nobody. With one replica nothing here runs (`emit` tests `multi` first).

use crate::fleet::Notifications;
use crate::ids::{ConnId, SessionKey};
use crate::ledger::StreamKind;
use crate::route::ReplicaId;

use super::Server;

impl Server {
    /// Whether an event of a stream (opened on `home`, of `kind`, for `session`) that is
    /// produced now is delivered to `conn`, the connection reading the stream.
    pub(super) fn reaches_listener(
        &self,
        home: ReplicaId,
        kind: StreamKind,
        session: SessionKey,
        conn: ConnId,
    ) -> bool {
        if self.fleet.notifications == Notifications::AllReplicas {
            return true;
        }
        let publisher = match kind {
            StreamKind::Standalone => self.sessions.get(session).map_or(home, |s| s.home),
            _ => home,
        };
        self.conn_replica.get(&conn) == Some(&publisher)
    }
}
