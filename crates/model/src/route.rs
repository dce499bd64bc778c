//! Which replica of a fleet answered a request, and why the balancer sent it there.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A replica of the fleet, counted from 0.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct ReplicaId(pub u8);

impl fmt::Display for ReplicaId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// Why the balancer picked the replica it picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteWhy {
    /// The next replica in turn.
    RoundRobin,
    /// The rendezvous hash of the request's `Mcp-Session-Id`.
    SessionHash,
    /// A draw from the balancer's seeded stream.
    Random,
    /// The request's affinity cookie named this replica.
    Cookie,
    /// No (current) affinity cookie: the next replica in turn, pinned with a new cookie.
    NewPin,
    /// The rendezvous hash of the client's address.
    AddressHash,
    /// The replica the request was pinned to is down: another one, that is up.
    Failover,
    /// No replica is up: the balancer answers 503 itself.
    NoneHealthy,
}

impl RouteWhy {
    /// In words, for reports ("went to r1 by round robin").
    pub fn label(self) -> &'static str {
        match self {
            RouteWhy::RoundRobin => "round robin",
            RouteWhy::SessionHash => "session-id hash",
            RouteWhy::Random => "random pick",
            RouteWhy::Cookie => "affinity cookie",
            RouteWhy::NewPin => "round robin, pinned by a new cookie",
            RouteWhy::AddressHash => "client-address hash",
            RouteWhy::Failover => "failover (its replica is down)",
            RouteWhy::NoneHealthy => "no replica up",
        }
    }
}

/// One balancer decision: the replica that serves a request, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Route {
    pub replica: ReplicaId,
    pub why: RouteWhy,
}

impl Route {
    /// Replica 0, the only one of a single-replica server.
    pub const FIRST: Route = Route {
        replica: ReplicaId(0),
        why: RouteWhy::RoundRobin,
    };
}

/// Who holds a session: one replica, or every replica (a shared store).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeldBy {
    Replica(ReplicaId),
    Shared,
}
