//! `serve --addr`: what a user types for "listen here", read as a socket address.
//!
//! Users type `localhost:8080` and `[::ffff:127.0.0.1]:0` as often as `127.0.0.1:8080`,
//! and a bare `SocketAddr` parser refused the first and called the second non-loopback
//! (an IPv4-mapped IPv6 address is not `is_loopback()` until it is made canonical).
//! `localhost` is read as 127.0.0.1 without asking the resolver: RFC 6761 §6.3 reserves
//! the name for loopback, and the resolver may answer `::1` first, or anything at all
//! from a misconfigured hosts file. Other host names are resolved; the first address is
//! used and goes through the same loopback check as a literal one.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};

/// `HOST:PORT` (`127.0.0.1:0`, `localhost:8080`, `[::1]:0`, `[::ffff:127.0.0.1]:0`) as
/// the address to bind; IPv4-mapped IPv6 addresses become plain IPv4.
pub fn parse_listen_addr(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(canonical(addr));
    }
    let Some((host, port)) = text.rsplit_once(':') else {
        return Err(format!(
            "{text:?}: use HOST:PORT, e.g. 127.0.0.1:8080, localhost:8080, or 127.0.0.1:0 for a free port"
        ));
    };
    let port: u16 = port
        .parse()
        .map_err(|_| format!("{text:?}: the port {port:?} is not a number from 0 to 65535"))?;
    if host.eq_ignore_ascii_case("localhost") {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    let mut resolved = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("{text:?}: cannot resolve {host:?}: {e}"))?;
    resolved
        .next()
        .map(canonical)
        .ok_or_else(|| format!("{text:?}: {host:?} resolves to no address"))
}

fn canonical(addr: SocketAddr) -> SocketAddr {
    SocketAddr::new(addr.ip().to_canonical(), addr.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn localhost_and_mapped_loopback_are_loopback() {
        let addr = parse_listen_addr("localhost:0").unwrap();
        assert_eq!(addr, "127.0.0.1:0".parse().unwrap());
        let addr = parse_listen_addr("LOCALHOST:8080").unwrap();
        assert_eq!(addr, "127.0.0.1:8080".parse().unwrap());
        let addr = parse_listen_addr("[::ffff:127.0.0.1]:0").unwrap();
        assert_eq!(addr, "127.0.0.1:0".parse().unwrap());
        assert!(addr.ip().is_loopback());
    }

    #[test]
    fn literal_addresses_are_kept_and_mapped_ones_are_made_plain() {
        assert_eq!(
            parse_listen_addr("[::1]:9").unwrap(),
            "[::1]:9".parse().unwrap()
        );
        let mapped = parse_listen_addr("[::ffff:10.0.0.1]:0").unwrap();
        assert_eq!(mapped, "10.0.0.1:0".parse().unwrap());
        assert!(!mapped.ip().is_loopback());
    }

    #[test]
    fn malformed_addresses_are_refused_with_a_sentence() {
        let e = parse_listen_addr("localhost").unwrap_err();
        assert!(e.contains("HOST:PORT"), "{e}");
        let e = parse_listen_addr("localhost:99999").unwrap_err();
        assert!(e.contains("65535"), "{e}");
    }
}
