//! The load balancer in front of a fleet: one pick per request, in the engine's order.
//!
//! Its state is a round-robin counter and the seed its hashes are salted with (drawn last
//! in [`arm`](crate::arm), so a scenario without a fleet arms as it always did). Nothing
//! here reads a clock or the OS: the same requests in the same order get the same replicas,
//! simulated or live.

mod rendezvous;

use faultline_model::{Balancer as Kind, FleetKnobs, HttpRequest, ReplicaId, Route, RouteWhy};

pub use rendezvous::rendezvous;

/// The balancer's state for one run.
#[derive(Debug, Clone)]
pub struct Balancer {
    kind: Kind,
    replicas: u8,
    /// Salts the rendezvous hash, so another seed pins sessions elsewhere.
    seed: u64,
    /// The round-robin turn: the number of round-robin picks so far.
    turn: u64,
}

impl Balancer {
    pub fn new(fleet: &FleetKnobs, seed: u64) -> Balancer {
        Balancer {
            kind: fleet.balancer,
            replicas: fleet.replicas.max(1),
            seed,
            turn: 0,
        }
    }

    /// The replica that serves `request`.
    pub fn pick(&mut self, request: &HttpRequest) -> Route {
        match (self.kind, request.session_id.as_deref()) {
            (Kind::StickySessionId, Some(session)) => Route {
                replica: rendezvous(session.as_bytes(), self.seed, self.replicas),
                why: RouteWhy::SessionHash,
            },
            // No session id yet (`initialize`): nothing to be sticky on.
            (Kind::StickySessionId, None) | (Kind::RoundRobin, _) => self.round_robin(),
        }
    }

    fn round_robin(&mut self) -> Route {
        let replica = ReplicaId((self.turn % u64::from(self.replicas)) as u8);
        self.turn += 1;
        Route {
            replica,
            why: RouteWhy::RoundRobin,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faultline_model::SessionStoreScope;
    use serde_json::Value;

    fn fleet(balancer: Kind) -> FleetKnobs {
        FleetKnobs {
            replicas: 3,
            balancer,
            session_store: SessionStoreScope::PerReplica,
        }
    }

    fn post(session: Option<&str>) -> HttpRequest {
        HttpRequest::post(session.map(str::to_string), Value::Null)
    }

    fn replicas(picks: &[Route]) -> Vec<u8> {
        picks.iter().map(|r| r.replica.0).collect()
    }

    #[test]
    fn round_robin_takes_the_replicas_in_turn_whatever_the_session() {
        let mut b = Balancer::new(&fleet(Kind::RoundRobin), 7);
        let picks: Vec<Route> = [None, Some("a"), Some("a"), Some("b"), None]
            .into_iter()
            .map(|s| b.pick(&post(s)))
            .collect();
        assert_eq!(replicas(&picks), vec![0, 1, 2, 0, 1]);
        assert!(picks.iter().all(|r| r.why == RouteWhy::RoundRobin));
    }

    #[test]
    fn a_session_id_keeps_its_replica_under_sticky_session_id() {
        let mut b = Balancer::new(&fleet(Kind::StickySessionId), 7);
        for session in ["3f2a", "c0ffee", "0123456789abcdef0123456789abcdef"] {
            let first = b.pick(&post(Some(session)));
            assert_eq!(first.why, RouteWhy::SessionHash);
            for _ in 0..20 {
                // Requests without a session in between move the round-robin turn only.
                b.pick(&post(None));
                assert_eq!(b.pick(&post(Some(session))), first, "{session}");
            }
        }
    }

    #[test]
    fn without_a_session_id_sticky_falls_back_to_round_robin() {
        let mut b = Balancer::new(&fleet(Kind::StickySessionId), 7);
        let picks: Vec<Route> = (0..4).map(|_| b.pick(&post(None))).collect();
        assert_eq!(replicas(&picks), vec![0, 1, 2, 0]);
        assert!(picks.iter().all(|r| r.why == RouteWhy::RoundRobin));
    }

    /// The same seed pins the same sessions to the same replicas; another seed pins some
    /// of them elsewhere, and every replica gets some.
    #[test]
    fn sticky_picks_are_a_function_of_the_seed() {
        let sessions: Vec<String> = (0..64).map(|i| format!("{i:032x}")).collect();
        let pins = |seed: u64| -> Vec<u8> {
            let mut b = Balancer::new(&fleet(Kind::StickySessionId), seed);
            sessions
                .iter()
                .map(|s| b.pick(&post(Some(s))).replica.0)
                .collect()
        };
        assert_eq!(pins(1), pins(1));
        assert_ne!(pins(1), pins(2));
        for r in 0..3 {
            assert!(pins(1).contains(&r), "replica {r} gets no session");
        }
    }
}
