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
}

impl Default for FleetKnobs {
    /// One replica; were there more, a round-robin balancer in front of in-memory
    /// (per-replica) session stores, as every SDK ships by default.
    fn default() -> Self {
        FleetKnobs {
            replicas: 1,
            balancer: Balancer::RoundRobin,
            session_store: SessionStoreScope::PerReplica,
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
