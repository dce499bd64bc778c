//! Which lane answers a connection: the one HTTP server, or in a fleet the replica the
//! balancer sent that connection's request to.
//!
//! A fleet's trace carries the balancer's choice on every request (`route`); a single
//! server's carries none, and its diagram keeps its one server lane. Events and responses
//! come back from the replica that took the request on their connection, so a diagram
//! shows a session's requests scattering across replicas (round robin) or staying on one
//! (stickiness), and a fault that names a replica sits on that replica's lane.

use std::collections::BTreeMap;

use faultline_model::{ReplicaId, Route};
use faultline_sim::{TraceEntry, TraceWhat};

use crate::diagram::Lane;

pub(crate) struct ServerLanes {
    /// How many replica lanes to draw; 0 for a single server.
    replicas: u8,
    by_conn: BTreeMap<u64, ReplicaId>,
}

impl ServerLanes {
    /// Finds the replicas a trace names: in the balancer's routes, and in fault notes.
    pub(crate) fn of_trace(entries: &[TraceEntry]) -> ServerLanes {
        let mut highest: Option<u8> = None;
        for e in entries {
            let named = match &e.what {
                TraceWhat::Request {
                    route: Some(route), ..
                } => Some(route.replica.0),
                TraceWhat::Fault { fault } => replica_named(fault),
                _ => None,
            };
            if let Some(r) = named {
                highest = Some(highest.map_or(r, |h| h.max(r)));
            }
        }
        // Fault notes alone do not make a fleet: routes do.
        let routed = entries
            .iter()
            .any(|e| matches!(e.what, TraceWhat::Request { route: Some(_), .. }));
        ServerLanes {
            replicas: if routed {
                highest.map_or(0, |h| h.saturating_add(1))
            } else {
                0
            },
            by_conn: BTreeMap::new(),
        }
    }

    /// The lanes between the clients and the store: the network, then the server or the
    /// balancer and one lane per replica.
    pub(crate) fn lanes(&self) -> Vec<Lane> {
        let mut lanes = vec![Lane::Network];
        if self.replicas == 0 {
            lanes.push(Lane::Server);
        } else {
            lanes.push(Lane::Balancer);
            lanes.extend((0..self.replicas).map(Lane::Replica));
        }
        lanes
    }

    /// Remembers which replica took the request on `conn`.
    pub(crate) fn routed(&mut self, conn: u64, route: Option<&Route>) {
        if let Some(route) = route {
            self.by_conn.insert(conn, route.replica);
        }
    }

    /// The lane that answers on `conn`.
    pub(crate) fn of_conn(&self, conn: u64) -> Lane {
        match self.by_conn.get(&conn) {
            Some(r) if self.replicas > 0 => Lane::Replica(r.0),
            _ => Lane::Server,
        }
    }

    /// The lane a fault note belongs on: the replica it names in a fleet, the server for
    /// a restart, else the network.
    pub(crate) fn of_fault(&self, note: &str) -> Lane {
        if self.replicas > 0 {
            if let Some(r) = replica_named(note) {
                return Lane::Replica(r);
            }
            if note.starts_with("server restart") || note.starts_with("the balancer") {
                return Lane::Balancer;
            }
        } else if note.starts_with("server restart") {
            return Lane::Server;
        }
        Lane::Network
    }
}

/// The replica a fault note names: the fleet faults write it as `replica rN`
/// ([`ReplicaId`]'s display).
fn replica_named(note: &str) -> Option<u8> {
    let at = note.find("replica r")? + "replica r".len();
    let digits: String = note[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::replica_named;

    #[test]
    fn fault_notes_name_their_replica() {
        assert_eq!(
            replica_named("replica r1 down for 3s (persistence: Nothing)"),
            Some(1)
        );
        assert_eq!(
            replica_named(
                "rolling deploy: replica r12 down for 3s (2 of 16; persistence: Nothing)"
            ),
            Some(12)
        );
        assert_eq!(replica_named("server restart (persistence: Nothing)"), None);
        assert_eq!(replica_named("replica rx"), None);
    }
}
