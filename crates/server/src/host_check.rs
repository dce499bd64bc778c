//! DNS-rebinding protection: every request's `Host` must name this machine.
//!
//! A web page can make a browser send requests to `127.0.0.1:PORT` under its own domain
//! name (DNS rebinding): the browser then treats the answers as same-origin and lets the
//! page read them. The page cannot change the `Host` header the browser sends, which
//! carries its domain, so checking `Host` against the names this server is reached by
//! shuts the door, on every route (`/mcp` and `/_chaos` alike). See the spec's
//! [security warning](https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#security-warning).
//!
//! Allowed: `localhost`, any loopback address, the address the server is bound to, and
//! the names given with `--allow-host`; the port is not compared. A request with no
//! `Host` at all (HTTP/1.0, or a test client talking straight to a socket) is not a
//! browser's and passes. The value is parsed strictly ([`faultline_model::authority`]:
//! a reg-name or an IP literal, then an optional port 1-65535, nothing else), so that
//! `localhost:80@evil.example` or `[::1]evil.example` is not read as `localhost`.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use faultline_model::authority::{Host as AuthorityHost, parse_authority};
use faultline_model::jsonrpc;
use serde_json::json;

use crate::App;
use crate::http::json_response;

/// Which `Host` names the server answers to.
#[derive(Debug, Clone)]
pub(crate) struct HostPolicy {
    bound: IpAddr,
    /// `--allow-host` names, lowercase.
    extra: Vec<String>,
}

impl HostPolicy {
    pub fn new(bound: SocketAddr, extra: &[String]) -> HostPolicy {
        HostPolicy {
            bound: bound.ip().to_canonical(),
            extra: extra.iter().map(|h| h.to_ascii_lowercase()).collect(),
        }
    }

    /// `Ok` when the request may go on; else the sentence that says why not.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), String> {
        let mut hosts = headers.get_all(header::HOST).iter();
        let Some(host) = hosts.next() else {
            return Ok(());
        };
        if hosts.next().is_some() {
            return Err("Forbidden: more than one Host header".to_string());
        }
        let Ok(host) = host.to_str() else {
            return Err("Forbidden: the Host header is not ASCII".to_string());
        };
        if self.allows(host) {
            Ok(())
        } else {
            Err(format!(
                "Forbidden: Host {host:?} does not name this server (DNS-rebinding protection); \
                 it answers to localhost, loopback addresses and {} (a name or an IP literal, \
                 then an optional port 1-65535); start it with \
                 `faultline serve --allow-host NAME` to accept another name",
                self.bound
            ))
        }
    }

    fn allows(&self, host: &str) -> bool {
        match parse_authority(host) {
            Some((AuthorityHost::Name(name), _)) => {
                name.eq_ignore_ascii_case("localhost")
                    || self.extra.iter().any(|h| h.eq_ignore_ascii_case(name))
            }
            Some((AuthorityHost::Ip(ip), _)) => {
                let ip = ip.to_canonical();
                ip.is_loopback()
                    || (ip == self.bound && !ip.is_unspecified())
                    || self.extra.iter().any(|h| {
                        let literal = h.trim_start_matches('[').trim_end_matches(']');
                        literal.parse::<IpAddr>().map(|e| e.to_canonical()) == Ok(ip)
                    })
            }
            None => false,
        }
    }
}

/// The middleware: 403 with a sentence for a foreign `Host`, before any handler runs.
pub(crate) async fn check_host(State(app): State<App>, request: Request, next: Next) -> Response {
    if let Some(policy) = app.inner.host_policy.get()
        && let Err(why) = policy.check(request.headers())
    {
        tracing::debug!("{why}");
        return if request.uri().path().starts_with("/mcp") {
            json_response(
                StatusCode::FORBIDDEN,
                &jsonrpc::error_without_id(jsonrpc::INVALID_REQUEST, &why),
            )
        } else {
            json_response(StatusCode::FORBIDDEN, &json!({"error": why}))
        };
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> HostPolicy {
        HostPolicy::new("127.0.0.1:8080".parse().unwrap(), &["Dev.Example".into()])
    }

    fn check(host: &str) -> Result<(), String> {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, host.parse().unwrap());
        policy().check(&headers)
    }

    #[test]
    fn names_of_this_machine_pass() {
        for host in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "localhost:8080",
            "LOCALHOST",
            "[::1]:8080",
            "127.0.0.2:1",
            "dev.example:9",
        ] {
            assert_eq!(check(host), Ok(()), "{host}");
        }
    }

    #[test]
    fn foreign_names_are_refused_with_a_sentence() {
        for host in [
            "evil.example:8080",
            "localhost.evil.example",
            "10.0.0.1:8080",
            "[::2]",
            "",
            "localhost:80@evil.example",
            "[::1]evil.example",
            "127.0.0.1:99999",
            "127.0.0.1:0",
            "localhost:",
            "[127.0.0.1]",
            "dev.example:9@evil.example",
        ] {
            let why = check(host).unwrap_err();
            assert!(why.contains("DNS-rebinding"), "{host}: {why}");
        }
    }

    #[test]
    fn no_host_passes_and_two_are_refused() {
        assert_eq!(policy().check(&HeaderMap::new()), Ok(()));
        let mut headers = HeaderMap::new();
        headers.append(header::HOST, "localhost".parse().unwrap());
        headers.append(header::HOST, "evil.example".parse().unwrap());
        assert!(policy().check(&headers).is_err());
    }
}
