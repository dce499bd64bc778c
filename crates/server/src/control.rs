//! The `/_chaos` control API (only with `--control`, only from loopback peers).
//!
//! | endpoint | effect |
//! |---|---|
//! | `POST /_chaos/clock/advance {"ms":N}` | jump virtual time by N ms and run what came due |
//! | `POST /_chaos/streams/drop [{"session":ID,"mode":"close"\|"reset"}]` | cut open SSE connections (all, or one session's); default mode `reset` |
//! | `POST /_chaos/restart` | `Server::restart` (what survives is `restart_persistence`) |
//! | `POST /_chaos/reset` | a fresh model with the same knobs, script re-armed, virtual time 0 |
//! | `GET /_chaos/clock` | the virtual time and the time scale |
//! | `GET /_chaos/ledger` | the ground truth as JSON (see [`ledger_view`]) |

use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use faultline_model::EndMode;
use serde_json::{Value, json};

use crate::App;
use crate::core::State as Driver;
use crate::counted_listener::PeerAddr;
use crate::http::json_response;

fn error(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({"error": message}))
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
            let now = app.with_state(|s| s.advance_clock(ms));
            json_response(StatusCode::OK, &json!({"now_ms": now}))
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
            let (now, dropped) = app.with_state(|s| {
                let dropped = s.drop_streams(session.as_deref(), mode);
                (s.server().now_ms(), dropped)
            });
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
            let (now, scale) = app.with_state(|s| (s.sync(), s.time_scale_json()));
            json_response(StatusCode::OK, &json!({"now_ms": now, "time_scale": scale}))
        }
        (Method::GET, "ledger") => {
            let view = app.with_state(|s| {
                s.sync();
                ledger_view(s)
            });
            json_response(StatusCode::OK, &view)
        }
        (_, p) if known.contains(&p) => error(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("{method} is not allowed on /_chaos/{p}"),
        ),
        _ => error(StatusCode::NOT_FOUND, "unknown control path"),
    }
}

/// The ledger, reshaped for people and scripts: sessions with their generations and fate;
/// per stream the events produced (id, ordinal, generation, virtual time, payload); every
/// send (event, conn, time, replay or live); every answer with its status; every
/// resumption with how its cursor was resolved; jobs; restarts; the faults that fired.
pub(crate) fn ledger_view(state: &Driver) -> Value {
    let server = state.server();
    let ledger = server.ledger();
    let sessions: Vec<Value> = ledger
        .sessions
        .iter()
        .enumerate()
        .map(|(key, s)| {
            json!({
                "key": key,
                "wire_id": s.wire_id,
                "created_ms": s.created_ms,
                "generation": s.generations.len(),
                "generations": s.generations,
                "alive": server.is_live(&s.wire_id),
                "died": s.died.map(|(at_ms, cause)| json!({"at_ms": at_ms, "cause": cause})),
            })
        })
        .collect();
    let mut events: Vec<Vec<Value>> = vec![Vec::new(); ledger.streams.len()];
    for (index, e) in ledger.events.iter().enumerate() {
        if let Some(list) = events.get_mut(e.stream.0 as usize) {
            list.push(json!({
                "event": index,
                "id": e.id,
                "ordinal": e.ordinal,
                "generation": e.generation,
                "at_ms": e.at_ms,
                "payload": e.payload,
            }));
        }
    }
    let streams: Vec<Value> = ledger
        .streams
        .iter()
        .zip(events)
        .enumerate()
        .map(|(index, (s, events))| {
            json!({
                "stream": index,
                "session": s.session,
                "generation": s.generation,
                "kind": s.kind,
                "opened_ms": s.opened_ms,
                "events": events,
            })
        })
        .collect();
    json!({
        "now_ms": server.now_ms(),
        "time_scale": state.time_scale_json(),
        "knobs": server.knobs(),
        "scenario": state.config().scenario.as_ref().map(|s| s.name.clone()),
        "sessions": sessions,
        "streams": streams,
        "sends": ledger.sends,
        "answers": ledger.answers,
        "resumptions": ledger.resumptions,
        "jobs": ledger.jobs,
        "restarts": ledger.restarts,
        "faults_fired": state.fired,
        "open_connections": server.open_connections(None),
    })
}
