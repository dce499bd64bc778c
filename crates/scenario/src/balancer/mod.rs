//! The load balancer in front of a fleet: one pick per request, in the engine's order.
//!
//! Its state is a round-robin counter, its own seeded random stream (`Random`), the pin
//! epoch (bumped when it forgets its pins: `StickyLost`) and the seed its hashes are
//! salted with (drawn last in [`arm`](crate::arm), so a scenario without a fleet arms as
//! it always did). It sends nothing to a replica that is down: pinned traffic fails over
//! to one that is up, and with none up the request gets 503. Nothing here reads a clock
//! or the OS: the same requests in the same order get the same replicas, simulated or
//! live.

mod cookie;
mod rendezvous;

use faultline_model::{Balancer as Kind, FleetKnobs, HttpRequest, ReplicaId, Route, RouteWhy};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;

pub use cookie::{COOKIE_NAME, pin_of, set_cookie};
pub use rendezvous::{rendezvous, rendezvous_among};

use rendezvous::splitmix64;

/// Keeps the random balancer's stream apart from the hash salt drawn from the same seed.
const RANDOM_STREAM: u64 = 0x5eed_ba1a_0ce5_0001;

/// One decision: the route, and the affinity cookie to set on the answer, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    pub route: Route,
    /// `Set-Cookie` for the answer (a `StickyCookie` balancer pinning the client).
    pub set_cookie: Option<String>,
}

/// The balancer's state for one run.
#[derive(Debug, Clone)]
pub struct Balancer {
    kind: Kind,
    replicas: u8,
    /// Salts the rendezvous hash, so another seed pins sessions elsewhere.
    seed: u64,
    /// The round-robin turn: the number of round-robin picks so far.
    turn: u64,
    /// `Random`'s draws.
    rng: ChaCha8Rng,
    /// The pin table's generation: cookies of another epoch name nothing, and hashes are
    /// salted with it (0, the first, salts as before it existed).
    epoch: u32,
}

impl Balancer {
    pub fn new(fleet: &FleetKnobs, seed: u64) -> Balancer {
        Balancer {
            kind: fleet.balancer,
            replicas: fleet.replicas.clamp(1, faultline_model::MAX_REPLICAS),
            seed,
            turn: 0,
            rng: ChaCha8Rng::seed_from_u64(splitmix64(seed ^ RANDOM_STREAM)),
            epoch: 0,
        }
    }

    /// The balancer forgets every pin (a balancer restarted, its table flushed): cookies
    /// already set name nothing, and hashes move to a new salt.
    pub fn forget_pins(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// The fleet was scaled to `replicas`: picks are among them from now on. Rendezvous
    /// keeps every key whose replica survives; round robin turns over the new count.
    pub fn set_replicas(&mut self, replicas: u8) {
        self.replicas = replicas.clamp(1, faultline_model::MAX_REPLICAS);
    }

    /// The pin table's generation (0 until [`forget_pins`](Balancer::forget_pins)).
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The replica that serves `request`, when the replicas in the bit set `up` are up.
    pub fn pick(&mut self, request: &HttpRequest, up: u16) -> Pick {
        let up = up & self.all();
        if up == 0 {
            return Pick {
                route: Route {
                    replica: ReplicaId(0),
                    why: RouteWhy::NoneHealthy,
                },
                set_cookie: None,
            };
        }
        let route = match self.kind {
            Kind::RoundRobin => self.round_robin(up),
            Kind::Random => self.random(up),
            Kind::StickySessionId => match request.session_id.as_deref() {
                Some(session) => self.hashed(session.as_bytes(), RouteWhy::SessionHash, up),
                // No session id yet (`initialize`): nothing to be sticky on.
                None => self.round_robin(up),
            },
            Kind::ClientAddress => match request.peer {
                Some(std::net::IpAddr::V4(ip)) => {
                    self.hashed(&ip.octets(), RouteWhy::AddressHash, up)
                }
                Some(std::net::IpAddr::V6(ip)) => {
                    self.hashed(&ip.octets(), RouteWhy::AddressHash, up)
                }
                None => self.round_robin(up),
            },
            Kind::StickyCookie => return self.by_cookie(request, up),
        };
        Pick {
            route,
            set_cookie: None,
        }
    }

    fn all(&self) -> u16 {
        (((1u32) << self.replicas) - 1) as u16
    }

    fn by_cookie(&mut self, request: &HttpRequest, up: u16) -> Pick {
        let pin = request
            .cookie
            .as_deref()
            .and_then(pin_of)
            .filter(|&(epoch, r)| epoch == self.epoch && r.0 < self.replicas);
        if let Some((_, replica)) = pin
            && up & (1 << replica.0) != 0
        {
            return Pick {
                route: Route {
                    replica,
                    why: RouteWhy::Cookie,
                },
                set_cookie: None,
            };
        }
        // No pin, or one to a replica that is down: pin anew (a balancer re-pins a client
        // whose replica failed its health check).
        let next = self.round_robin(up);
        let why = if pin.is_some() {
            RouteWhy::Failover
        } else {
            RouteWhy::NewPin
        };
        Pick {
            route: Route {
                replica: next.replica,
                why,
            },
            set_cookie: Some(set_cookie(self.epoch, next.replica)),
        }
    }

    /// Rendezvous on `key`; its replica if up, else the best of those up (`Failover`).
    fn hashed(&self, key: &[u8], why: RouteWhy, up: u16) -> Route {
        let salt = if self.epoch == 0 {
            self.seed
        } else {
            self.seed ^ splitmix64(u64::from(self.epoch))
        };
        let home = rendezvous(key, salt, self.replicas);
        if up & (1 << home.0) != 0 {
            return Route { replica: home, why };
        }
        Route {
            replica: rendezvous_among(key, salt, self.replicas, up).unwrap_or(home),
            why: RouteWhy::Failover,
        }
    }

    /// The next replica in turn that is up.
    fn round_robin(&mut self, up: u16) -> Route {
        let n = u64::from(self.replicas);
        for _ in 0..n {
            let r = (self.turn % n) as u8;
            self.turn += 1;
            if up & (1 << r) != 0 {
                return Route {
                    replica: ReplicaId(r),
                    why: RouteWhy::RoundRobin,
                };
            }
        }
        Route::FIRST
    }

    /// A replica drawn uniformly among those up.
    fn random(&mut self, up: u16) -> Route {
        let count = u64::from(up.count_ones());
        let mut nth = self.rng.next_u64() % count;
        let mut replica = ReplicaId(0);
        for r in 0..self.replicas {
            if up & (1 << r) != 0 {
                if nth == 0 {
                    replica = ReplicaId(r);
                    break;
                }
                nth -= 1;
            }
        }
        Route {
            replica,
            why: RouteWhy::Random,
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
            ..FleetKnobs::default()
        }
    }

    const ALL: u16 = u16::MAX;

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
            .map(|s| b.pick(&post(s), ALL).route)
            .collect();
        assert_eq!(replicas(&picks), vec![0, 1, 2, 0, 1]);
        assert!(picks.iter().all(|r| r.why == RouteWhy::RoundRobin));
    }

    #[test]
    fn a_session_id_keeps_its_replica_under_sticky_session_id() {
        let mut b = Balancer::new(&fleet(Kind::StickySessionId), 7);
        for session in ["3f2a", "c0ffee", "0123456789abcdef0123456789abcdef"] {
            let first = b.pick(&post(Some(session)), ALL).route;
            assert_eq!(first.why, RouteWhy::SessionHash);
            for _ in 0..20 {
                // Requests without a session in between move the round-robin turn only.
                b.pick(&post(None), ALL);
                assert_eq!(b.pick(&post(Some(session)), ALL).route, first, "{session}");
            }
        }
    }

    #[test]
    fn without_a_session_id_sticky_falls_back_to_round_robin() {
        let mut b = Balancer::new(&fleet(Kind::StickySessionId), 7);
        let picks: Vec<Route> = (0..4).map(|_| b.pick(&post(None), ALL).route).collect();
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
                .map(|s| b.pick(&post(Some(s)), ALL).route.replica.0)
                .collect()
        };
        assert_eq!(pins(1), pins(1));
        assert_ne!(pins(1), pins(2));
        for r in 0..3 {
            assert!(pins(1).contains(&r), "replica {r} gets no session");
        }
    }

    fn with_cookie(cookie: Option<&str>) -> HttpRequest {
        HttpRequest {
            cookie: cookie.map(str::to_string),
            ..post(None)
        }
    }

    fn from(ip: [u8; 4]) -> HttpRequest {
        HttpRequest {
            peer: Some(std::net::IpAddr::from(ip)),
            ..post(Some("ignored"))
        }
    }

    /// The `name=value` a client with a jar sends back.
    fn sent(set_cookie: &str) -> String {
        set_cookie.split(';').next().unwrap().to_string()
    }

    #[test]
    fn round_robin_skips_replicas_that_are_down_and_none_up_is_503() {
        let mut b = Balancer::new(&fleet(Kind::RoundRobin), 7);
        let picks: Vec<Route> = (0..4).map(|_| b.pick(&post(None), 0b101).route).collect();
        assert_eq!(replicas(&picks), vec![0, 2, 0, 2]);
        let none = b.pick(&post(None), 0);
        assert_eq!(none.route.why, RouteWhy::NoneHealthy);
        assert_eq!(none.set_cookie, None);
    }

    #[test]
    fn a_cookie_pins_a_client_that_sends_it_back_and_only_that_client() {
        let mut b = Balancer::new(&fleet(Kind::StickyCookie), 7);
        let first = b.pick(&with_cookie(None), ALL);
        assert_eq!(first.route.why, RouteWhy::NewPin);
        let set = first.set_cookie.expect("a new pin sets the cookie");
        assert_eq!(set, format!("{COOKIE_NAME}=0.0; Path=/"));
        for _ in 0..5 {
            let again = b.pick(&with_cookie(Some(&sent(&set))), ALL);
            assert_eq!(again.route.replica, first.route.replica);
            assert_eq!(again.route.why, RouteWhy::Cookie);
            assert_eq!(
                again.set_cookie, None,
                "a pinned client is not pinned again"
            );
        }
        // A client without a jar is pinned anew each time: round robin.
        let dropped: Vec<Route> = (0..3)
            .map(|_| b.pick(&with_cookie(None), ALL).route)
            .collect();
        assert_eq!(replicas(&dropped), vec![1, 2, 0]);
        assert!(dropped.iter().all(|r| r.why == RouteWhy::NewPin));
    }

    #[test]
    fn forgetting_the_pins_makes_old_cookies_name_nothing() {
        let mut b = Balancer::new(&fleet(Kind::StickyCookie), 7);
        let set = b.pick(&with_cookie(None), ALL).set_cookie.unwrap();
        b.forget_pins();
        assert_eq!(b.epoch(), 1);
        let after = b.pick(&with_cookie(Some(&sent(&set))), ALL);
        assert_eq!(after.route.why, RouteWhy::NewPin);
        assert_eq!(after.route.replica, ReplicaId(1), "moved on, round robin");
        assert_eq!(
            after.set_cookie.unwrap(),
            format!("{COOKIE_NAME}=1.1; Path=/")
        );
    }

    #[test]
    fn a_pinned_replica_down_fails_over_and_re_pins() {
        let mut b = Balancer::new(&fleet(Kind::StickyCookie), 7);
        let set = b.pick(&with_cookie(None), ALL).set_cookie.unwrap();
        let failover = b.pick(&with_cookie(Some(&sent(&set))), 0b110);
        assert_eq!(failover.route.why, RouteWhy::Failover);
        assert_ne!(failover.route.replica, ReplicaId(0));
        let repinned = failover.set_cookie.expect("a new pin");
        let next = b.pick(&with_cookie(Some(&sent(&repinned))), ALL);
        assert_eq!(next.route.replica, failover.route.replica);
        assert_eq!(next.route.why, RouteWhy::Cookie);
    }

    #[test]
    fn client_address_pins_an_address_and_fails_over_while_its_replica_is_down() {
        let mut b = Balancer::new(&fleet(Kind::ClientAddress), 7);
        let home = b.pick(&from([127, 0, 0, 1]), ALL).route;
        assert_eq!(home.why, RouteWhy::AddressHash);
        for _ in 0..5 {
            assert_eq!(b.pick(&from([127, 0, 0, 1]), ALL).route, home);
        }
        let spread: Vec<u8> = (0..64u8)
            .map(|i| b.pick(&from([10, 0, 0, i]), ALL).route.replica.0)
            .collect();
        for r in 0..3 {
            assert!(spread.contains(&r), "replica {r} gets no address");
        }
        let up = 0b111 & !(1 << home.replica.0);
        let moved = b.pick(&from([127, 0, 0, 1]), up).route;
        assert_eq!(moved.why, RouteWhy::Failover);
        assert_ne!(moved.replica, home.replica);
        assert_eq!(b.pick(&from([127, 0, 0, 1]), ALL).route, home, "back home");
        // No address known (a driver that does not say): round robin.
        let unknown = b.pick(&post(None), ALL).route;
        assert_eq!(unknown.why, RouteWhy::RoundRobin);
    }

    #[test]
    fn random_picks_are_seeded_and_only_among_replicas_up() {
        let draws = |seed: u64, up: u16| -> Vec<u8> {
            let mut b = Balancer::new(&fleet(Kind::Random), seed);
            (0..64)
                .map(|_| {
                    let route = b.pick(&post(Some("s")), up).route;
                    assert_eq!(route.why, RouteWhy::Random);
                    route.replica.0
                })
                .collect()
        };
        assert_eq!(draws(1, ALL), draws(1, ALL));
        assert_ne!(draws(1, ALL), draws(2, ALL));
        for r in 0..3 {
            assert!(draws(1, ALL).contains(&r));
        }
        assert!(draws(1, 0b011).iter().all(|&r| r != 2));
    }

    #[test]
    fn a_scale_keeps_the_pins_of_surviving_replicas_and_picks_among_the_new_set() {
        let sessions: Vec<String> = (0..64).map(|i| format!("session-{i}")).collect();
        let pins = |b: &mut Balancer| -> Vec<Route> {
            sessions
                .iter()
                .map(|s| b.pick(&post(Some(s)), ALL).route)
                .collect()
        };
        let mut b = Balancer::new(&fleet(Kind::StickySessionId), 7);
        let before = pins(&mut b);
        b.set_replicas(2);
        let after = pins(&mut b);
        for (was, is) in before.iter().zip(&after) {
            assert_eq!(is.why, RouteWhy::SessionHash, "removed, not failed over");
            assert!(is.replica.0 < 2);
            if was.replica.0 < 2 {
                assert_eq!(was, is, "a surviving replica keeps its pins");
            }
        }
        b.set_replicas(4);
        let grown = pins(&mut b);
        assert!(
            grown.iter().any(|r| r.replica.0 == 3),
            "the new replica takes keys"
        );
        for (was, is) in after.iter().zip(&grown) {
            assert!(
                is == was || is.replica.0 >= 2,
                "keys move only to new replicas"
            );
        }
        let mut rr = Balancer::new(&fleet(Kind::RoundRobin), 7);
        rr.set_replicas(4);
        let turns: Vec<u8> = (0..4)
            .map(|_| rr.pick(&post(None), ALL).route.replica.0)
            .collect();
        assert_eq!(turns, vec![0, 1, 2, 3]);
    }
}
