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
use axum::http::{Method, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use faultline_model::EndMode;
use serde_json::{Value, json};

use crate::App;
use crate::clock::MAX_VIRTUAL_MS;
use crate::counted_listener::PeerAddr;
use crate::http::json_response;
use crate::ledger_snapshot::LedgerSnapshot;

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

/// `ANY /_chaos/{*path}`.
pub(crate) async fn chaos(
    State(app): State<App>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    Path(path): Path<String>,
    method: Method,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    if !peer.ip().to_canonical().is_loopback() {
        return error(
            StatusCode::FORBIDDEN,
            "the control API only answers loopback peers",
        );
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
        (Method::GET, "ledger") => app.with_state(|s| {
            s.sync();
            json_response(StatusCode::OK, &LedgerSnapshot::of(s))
        }),
        (_, p) if known.contains(&p) => error(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("{method} is not allowed on /_chaos/{p}"),
        ),
        _ => error(StatusCode::NOT_FOUND, "unknown control path"),
    }
}
