//! The fleet: how many replicas of the server stand behind one address, how a load balancer
//! spreads requests over them, and what they share.
//!
//! A fleet is still **one** model [`Server`](crate::Server) whose sessions are tagged with
//! the replica that holds them: the balancer (in `faultline-scenario`) picks a
//! [`Route`](crate::Route) per request, and the model answers "as replica r". With one
//! replica (the default) every check short-circuits and nothing new reaches the ledger, so
//! a scenario without `fleet` runs byte for byte as it always did.

use serde::{Deserialize, Serialize};

/// The most replicas a fleet may have.
pub const MAX_REPLICAS: u8 = 16;

/// `fleet: (replicas: 3, balancer: RoundRobin, session_store: PerReplica)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FleetKnobs {
    /// How many replicas serve the one address (1..=16).
    pub replicas: u8,
    /// How the load balancer picks a replica for each request.
    pub balancer: Balancer,
    /// Where live sessions are kept.
    pub session_store: SessionStoreScope,
    /// Where event logs (what a `Last-Event-ID` resumes from) are kept. Left out of a
    /// scenario written back when it is the default, like every knob added after the first.
    #[serde(skip_serializing_if = "EventStoreScope::is_default")]
    pub event_store: EventStoreScope,
    /// Where a notification published on one replica reaches listeners.
    #[serde(skip_serializing_if = "Notifications::is_default")]
    pub notifications: Notifications,
}

impl Default for FleetKnobs {
    /// One replica; were there more, a round-robin balancer in front of in-memory
    /// (per-replica) session stores, as every SDK ships by default.
    fn default() -> Self {
        FleetKnobs {
            replicas: 1,
            balancer: Balancer::RoundRobin,
            session_store: SessionStoreScope::PerReplica,
            event_store: EventStoreScope::PerReplica,
            notifications: Notifications::AllReplicas,
        }
    }
}

impl FleetKnobs {
    /// Checks what serde cannot: the replica count's range.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=MAX_REPLICAS).contains(&self.replicas) {
            return Err(format!(
                "replicas: {} is out of range; a fleet has 1 to {MAX_REPLICAS} replicas",
                self.replicas
            ));
        }
        Ok(())
    }

    /// Whether every event the fleet produces for a listener is sent to it (when it is
    /// connected): a single server, or notifications heard by every replica. Under
    /// `SameReplica` an event published where the listener is not connected is logged and
    /// sent to nobody, which no client can tell from an event never produced.
    pub fn delivery_is_honest(&self) -> bool {
        !self.is_multi() || self.notifications == Notifications::AllReplicas
    }

    /// More than one replica: placement matters.
    pub fn is_multi(&self) -> bool {
        self.replicas > 1
    }

    /// The knobs a scenario without `fleet` gets (skipped when a scenario is written out).
    pub fn is_default(&self) -> bool {
        *self == FleetKnobs::default()
    }
}

/// How the load balancer in front of the fleet picks a replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Balancer {
    /// Each request goes to the next replica in turn (Kubernetes Services, most cloud load
    /// balancers without affinity).
    RoundRobin,
    /// Rendezvous hashing on `Mcp-Session-Id`; a request without one (`initialize`) goes
    /// round robin, since nothing pins it yet.
    StickySessionId,
    /// Each request goes to a replica drawn from the balancer's own seeded stream (nginx's
    /// `random`, Envoy's `RANDOM`).
    Random,
    /// The balancer pins a client with a cookie (`faultline-replica=<epoch>.<r>`, set on
    /// the first answer it routes): only a client that sends the cookie back stays on its
    /// replica (cookie affinity, as in Kubernetes ingress-nginx or AWS ALB stickiness).
    StickyCookie,
    /// Rendezvous hashing on the client's IP address (`sessionAffinity: ClientIP`, nginx
    /// `ip_hash`): every request from one address goes to one replica.
    ClientAddress,
}

/// Where a replica looks sessions up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SessionStoreScope {
    /// Each replica knows only the sessions it minted (the SDKs' in-memory stores).
    PerReplica,
    /// Every replica sees every session (Redis or a database behind the fleet).
    Shared,
}

/// Where a replica looks event logs up when it resolves a `Last-Event-ID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum EventStoreScope {
    /// Each replica holds the logs of the streams it opened (the SDKs' in-memory event
    /// stores): a cursor reaches only a stream opened on the replica it is sent to.
    PerReplica,
    /// One store every replica reads (Redis or a database behind the fleet), keyed `by`.
    Shared { by: SharedKey },
}

impl EventStoreScope {
    pub fn is_default(&self) -> bool {
        *self == EventStoreScope::PerReplica
    }
}

/// What a shared event store keys its logs by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SharedKey {
    /// Each session's streams apart: a cursor resolves among its own session's streams.
    Session,
    /// Each stream by its stream id alone, and every standalone stream under one key (the
    /// SDKs name every GET stream `_GET_stream`, and a store keyed by it, as fastmcp's was
    /// before <https://github.com/PrefectHQ/fastmcp/pull/4402>, mixes them): an honoured
    /// standalone cursor replays the retained events of every standalone stream above it,
    /// whichever session they belong to.
    Stream,
}

/// Where an event published on one replica (a notification by the replica that minted its
/// session, a tool call's progress and result by the replica running the call) reaches the
/// SSE connection reading its stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Notifications {
    /// Only on the publishing replica (the SDKs' in-memory transports): a listener whose
    /// GET the balancer sent to another replica gets nothing live; the event is logged,
    /// and sent to nobody. A dishonest server, as far as a client can tell.
    SameReplica,
    /// Every replica hears every publication (a pub/sub bus such as Redis behind the
    /// fleet): the listener gets the event wherever its GET landed. The default, which is
    /// what a fleet did before this knob existed.
    AllReplicas,
}

impl Notifications {
    pub fn is_default(&self) -> bool {
        *self == Notifications::AllReplicas
    }
}
