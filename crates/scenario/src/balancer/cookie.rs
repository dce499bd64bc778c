//! The affinity cookie of a `StickyCookie` balancer: `faultline-replica=<epoch>.<r>`.
//!
//! The epoch is the balancer's pin table generation: a balancer that forgets its pins
//! (`StickyLost`) moves to the next epoch, and every cookie it set before names nothing.

use faultline_model::ReplicaId;

/// The cookie's name.
pub const COOKIE_NAME: &str = "faultline-replica";

/// The `Set-Cookie` value that pins a client to `replica` in `epoch`.
pub fn set_cookie(epoch: u32, replica: ReplicaId) -> String {
    format!("{COOKIE_NAME}={epoch}.{}; Path=/", replica.0)
}

/// The pin a `Cookie` header carries, if it has a well-formed affinity cookie: the last
/// one wins, as a balancer reading the header left to right would leave it. Anything else
/// in the header is someone else's.
pub fn pin_of(cookie_header: &str) -> Option<(u32, ReplicaId)> {
    cookie_header
        .split(';')
        .rev()
        .filter_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            if name.trim() != COOKIE_NAME {
                return None;
            }
            let (epoch, replica) = value.trim().split_once('.')?;
            Some((epoch.parse().ok()?, ReplicaId(replica.parse().ok()?)))
        })
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_set_is_a_cookie_read_back() {
        let set = set_cookie(3, ReplicaId(2));
        assert_eq!(set, "faultline-replica=3.2; Path=/");
        // A client sends back the name=value part only.
        let sent = set.split(';').next().unwrap();
        assert_eq!(pin_of(sent), Some((3, ReplicaId(2))));
    }

    #[test]
    fn other_cookies_and_malformed_pins_are_ignored() {
        assert_eq!(
            pin_of("theme=dark; faultline-replica=0.1; lang=en"),
            Some((0, ReplicaId(1)))
        );
        assert_eq!(pin_of("theme=dark"), None);
        assert_eq!(pin_of("faultline-replica=1"), None);
        assert_eq!(pin_of("faultline-replica=x.1"), None);
        assert_eq!(pin_of("faultline-replica=1.999"), None);
        assert_eq!(
            pin_of("faultline-replica=0.1; faultline-replica=2.0"),
            Some((2, ReplicaId(0)))
        );
    }
}
