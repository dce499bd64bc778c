//! `host [":" port]`, read strictly: the one grammar the `Host` check (live server) and the
//! `Origin` check ([`crate::origin_is_local`]) both parse with.
//!
//! Why strict: a lenient reader that takes "the part before the last colon" as the host
//! accepts `localhost:80@evil.example` (host `localhost`, "port" `80@evil.example`) and
//! `[::1]evil.example`, values a browser or proxy may resolve to another machine; the
//! DNS-rebinding protection would then be a prefix test. Here the host is an IP literal
//! (`[v6]`), a dotted IPv4 address or a reg-name, and the port, if any, is 1 to 65535 in
//! decimal; anything else is not an authority at all (RFC 3986 section 3.2.2 and 3.2.3,
//! <https://www.rfc-editor.org/rfc/rfc3986#section-3.2.2>; `Host` is `uri-host [":" port]`,
//! RFC 9110 section 7.2). Userinfo (`user@`), percent-escapes, sub-delimiters and an
//! empty port, which RFC 3986 allows in a URI, are refused: no browser sends them in `Host`
//! or `Origin`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The host of an authority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host<'a> {
    /// An IPv4 address, or an IPv6 literal without its brackets.
    Ip(IpAddr),
    /// A registered name (`localhost`, `dev.example`): ASCII letters, digits, `-`, `.`,
    /// `_` and `~` (RFC 3986's unreserved characters), as sent (not lowercased).
    Name(&'a str),
}

/// The most bytes of a reg-name (a DNS name is at most 253).
const MAX_NAME_BYTES: usize = 255;

/// Parses `host [":" port]`; `None` when it is anything else (see the module docs).
pub fn parse_authority(text: &str) -> Option<(Host<'_>, Option<u16>)> {
    let (host, rest) = match text.strip_prefix('[') {
        Some(literal) => {
            let (inside, rest) = literal.split_once(']')?;
            (Host::Ip(IpAddr::V6(inside.parse::<Ipv6Addr>().ok()?)), rest)
        }
        None => {
            let (name, rest) = text.split_at(text.find(':').unwrap_or(text.len()));
            let host = match name.parse::<Ipv4Addr>() {
                Ok(ip) => Host::Ip(IpAddr::V4(ip)),
                Err(_) if is_reg_name(name) => Host::Name(name),
                Err(_) => return None,
            };
            (host, rest)
        }
    };
    let port = match rest {
        "" => None,
        _ => Some(parse_port(rest.strip_prefix(':')?)?),
    };
    Some((host, port))
}

/// 1 to 65535 in decimal digits only (no sign, no spaces, at most 5 digits).
fn parse_port(digits: &str) -> Option<u16> {
    if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u16>().ok().filter(|&p| p != 0)
}

fn is_reg_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_with_and_without_ports_parse() {
        assert_eq!(
            parse_authority("localhost:8080"),
            Some((Host::Name("localhost"), Some(8080)))
        );
        assert_eq!(
            parse_authority("127.0.0.1"),
            Some((Host::Ip("127.0.0.1".parse().unwrap()), None))
        );
        assert_eq!(
            parse_authority("[::1]:65535"),
            Some((Host::Ip("::1".parse().unwrap()), Some(65535)))
        );
        assert_eq!(
            parse_authority("dev.example"),
            Some((Host::Name("dev.example"), None))
        );
    }

    #[test]
    fn anything_after_the_host_but_a_port_is_refused() {
        for bad in [
            "localhost:80@evil.example",
            "[::1]evil.example",
            "[::1]:80x",
            "127.0.0.1:99999",
            "127.0.0.1:0",
            "127.0.0.1:",
            "127.0.0.1:+80",
            "localhost:8080:9",
            "user@localhost",
            "local%68ost",
            "[127.0.0.1]",
            "[::1",
            "",
            ":80",
            "evil.example/localhost",
            "localhost ",
        ] {
            assert_eq!(parse_authority(bad), None, "{bad}");
        }
    }
}
