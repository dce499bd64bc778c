//! The `/_chaos` control API (only with `--control`, only from loopback peers).
//!
//! | endpoint | effect |
//! |---|---|
//! | `POST /_chaos/clock/advance {"ms":N}` | jump virtual time by N ms and run what came due (400 if it would pass [`MAX_VIRTUAL_MS`], 100 years) |
//! | `POST /_chaos/streams/drop [{"session":ID,"mode":"close"\|"reset"}]` | cut open SSE connections (all, or one session's); default mode `reset` |
//! | `POST /_chaos/restart` | `Server::restart` (what survives is `restart_persistence`) |
//! | `POST /_chaos/reset` | a fresh model with the same knobs, script re-armed, virtual time 0 |
//! | `GET /_chaos/clock` | the virtual time and the time scale |
//! | `GET /_chaos/ledger` | the typed ledger and what the driver knows (see [`LedgerSnapshot`]) |
//!
//! Without `--control` every `/_chaos` path answers 404 with a body that says so
//! ([`control_off`]): a bare 404 sent users looking for a typo in the path.

use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use faultline_model::EndMode;
use serde_json::{Value, json};

use crate::App;
use crate::clock::MAX_VIRTUAL_MS;
use crate::conn_watch::TcpConn;
use crate::counted_listener::PeerAddr;
use crate::http::json_response;
use crate::ledger_page::{LedgerBody, LedgerQuery, ledger_response};

fn error(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({"error": message}))
}

/// `ANY /_chaos` and `ANY /_chaos/{*path}` on a server started without `--control`.
pub(crate) async fn control_off() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "the control API is off: start the server with `faultline serve --control` to use /_chaos",
    )
}

/// Cross-site protection: a web page the user opens must not drive the control API.
///
/// A browser sends `Origin` with every cross-origin POST, so a foreign one is refused
/// (403). A page can still POST without a preflight only as a form or `text/plain`, so a
/// POST must say `Content-Type: application/json` (415), which a page can only send
/// after a CORS preflight this server never grants. A POST with no body and no
/// `Content-Type` (`curl -X POST .../restart`) passes: a browser sending one cross-site
/// also sends `Origin`.
fn cross_site_check(method: &Method, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
    for origin in headers.get_all(header::ORIGIN) {
        let origin = String::from_utf8_lossy(origin.as_bytes());
        if !faultline_model::origin_is_local(&origin) {
            return Err((
                StatusCode::FORBIDDEN,
                format!(
                    "Forbidden: Origin {origin:?} is not on this machine; the control API answers only pages served from localhost or a loopback address"
                ),
            ));
        }
    }
    if method != Method::POST {
        return Ok(());
    }
    let mut types = headers.get_all(header::CONTENT_TYPE).iter();
    let json = match (types.next(), types.next()) {
        (None, _) => headers
            .get(header::CONTENT_LENGTH)
            .is_none_or(|n| n.as_bytes() == b"0"),
        (Some(one), None) => is_json_media_type(one.as_bytes()),
        (Some(_), Some(_)) => false,
    };
    if json {
        Ok(())
    } else {
        Err((
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: a POST to /_chaos needs `Content-Type: application/json` (a body-less POST may omit it)".to_string(),
        ))
    }
}

/// `application/json`, case-insensitively, with or without parameters
/// (`application/json; charset=utf-8`); not `application/jsonx`.
fn is_json_media_type(value: &[u8]) -> bool {
    let text = String::from_utf8_lossy(value);
    let essence = text.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json")
}

/// `ANY /_chaos/{*path}`.
pub(crate) async fn chaos(
    State(app): State<App>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    Path(path): Path<String>,
    parts: Parts,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let Parts {
        method,
        uri,
        headers,
        extensions,
        ..
    } = parts;
    // The connection's watch, to close it if a whole-ledger body goes unread.
    let tcp = extensions.get::<TcpConn>().cloned();
    if !peer.ip().to_canonical().is_loopback() {
        return error(
            StatusCode::FORBIDDEN,
            "the control API only answers loopback peers",
        );
    }
    if let Err((status, why)) = cross_site_check(&method, &headers) {
        return error(status, &why);
    }
    if let Some(why) = crate::content_coding::unsupported_coding(&headers) {
        return crate::content_coding::with_accepted_coding(error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            &why,
        ));
    }
    let body = match body {
        Ok(b) => b,
        Err(rejection) => return error(rejection.status(), &rejection.body_text()),
    };
    let parsed: Option<Value> = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => Some(v),
            Err(e) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    &format!("the body is not JSON: {e}"),
                );
            }
        }
    };
    let known = [
        "clock/advance",
        "streams/drop",
        "restart",
        "reset",
        "clock",
        "ledger",
    ];
    let path = path.trim_end_matches('/');
    match (method.clone(), path) {
        (Method::POST, "clock/advance") => {
            let Some(ms) = parsed
                .as_ref()
                .and_then(|v| v.get("ms"))
                .and_then(Value::as_u64)
            else {
                return error(
                    StatusCode::BAD_REQUEST,
                    "clock/advance needs a body {\"ms\": N} with N a non-negative integer",
                );
            };
            // Refused whole rather than cut short: a script that asked for a jump it did
            // not get would go on in the wrong virtual time.
            let advanced = app.with_state(|s| {
                let room = s.clock.room_ms();
                if ms > room {
                    Err(MAX_VIRTUAL_MS - room)
                } else {
                    Ok(s.advance_clock(ms))
                }
            });
            match advanced {
                Ok(now) => json_response(StatusCode::OK, &json!({"now_ms": now})),
                Err(now) => error(
                    StatusCode::BAD_REQUEST,
                    &format!(
                        "clock/advance: {ms} ms from {now} ms would pass the end of virtual time, {MAX_VIRTUAL_MS} ms (100 years); advance by at most {} ms",
                        MAX_VIRTUAL_MS - now
                    ),
                ),
            }
        }
        (Method::POST, "streams/drop") => {
            let session = parsed
                .as_ref()
                .and_then(|v| v.get("session"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let mode = match parsed
                .as_ref()
                .and_then(|v| v.get("mode"))
                .and_then(Value::as_str)
            {
                None | Some("reset") => EndMode::Reset,
                Some("close") => EndMode::Close,
                Some(other) => {
                    return error(
                        StatusCode::BAD_REQUEST,
                        &format!("mode {other:?}: use \"close\" or \"reset\""),
                    );
                }
            };
            let dropped = app.with_state(|s| {
                if let Some(id) = session.as_deref()
                    && s.server().session_key(id).is_none()
                {
                    return None;
                }
                let dropped = s.drop_streams(session.as_deref(), mode);
                Some((s.server().now_ms(), dropped))
            });
            let Some((now, dropped)) = dropped else {
                return error(
                    StatusCode::NOT_FOUND,
                    &format!(
                        "no session {:?}: this server never created it (after /_chaos/reset it knows none of the old ids); omit \"session\" to cut every open stream",
                        session.unwrap_or_default()
                    ),
                );
            };
            json_response(
                StatusCode::OK,
                &json!({"now_ms": now, "mode": format!("{mode:?}").to_lowercase(), "dropped": dropped}),
            )
        }
        (Method::POST, "restart") => {
            let now = app.with_state(|s| s.restart());
            json_response(StatusCode::OK, &json!({"restarted_at_ms": now}))
        }
        (Method::POST, "reset") => {
            app.with_state(|s| s.reset());
            json_response(StatusCode::OK, &json!({"reset": true, "now_ms": 0}))
        }
        (Method::GET, "clock") => {
            let (now, scale) = app.with_state(|s| (s.sync(), s.time_scale()));
            json_response(StatusCode::OK, &json!({"now_ms": now, "time_scale": scale}))
        }
        (Method::GET, "ledger") => {
            let query = match LedgerQuery::parse(uri.query()) {
                Ok(query) => query,
                Err(why) => return error(StatusCode::BAD_REQUEST, &why),
            };
            let held: Option<Box<dyn Send + Sync>> = match query {
                LedgerQuery::Whole => match app.whole_ledger_reader(tcp.clone()) {
                    Some(held) => Some(held),
                    None => {
                        return error(
                            StatusCode::SERVICE_UNAVAILABLE,
                            "Service Unavailable: another whole-ledger body is being read; retry when it is, or read pages with ?since=N",
                        );
                    }
                },
                LedgerQuery::Page { .. } => None,
            };
            let body = app.with_state(|s| {
                s.sync();
                LedgerBody::take(s, query)
            });
            ledger_response(body, held).await
        }
        (_, p) if known.contains(&p) => error(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("{method} is not allowed on /_chaos/{p}"),
        ),
        _ => error(StatusCode::NOT_FOUND, "unknown control path"),
    }
}
