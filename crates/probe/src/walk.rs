//! The probe's one fixed sequence of raw-HTTP steps against a 2025-11-25 server with
//! sessions: initialize, the standalone GET (and a second one while it is open), a tool
//! call over SSE, resumption with `Last-Event-ID` into a live call, into a finished call,
//! past an evicted window, with an unknown, a malformed and another session's cursor;
//! requests the server should refuse; DELETE and what follows it. Each step gives one
//! [`Row`].
//!
//! Timing is absorbed by pacing (a cut call is resumed while it still runs, a finished one
//! long after its result) and by reading each stream until it ends or has been quiet for a
//! while (`open`). The probe leaves the server as it found it: both sessions it creates
//! are deleted, and every connection it opened is closed.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::sleep;

use crate::connection::{Endpoint, EventStream, Head, RequestHeaders, send};
use crate::normalise::{
    FrameContext, body_class, describe_frames, is_answer_to, mutate, progress_of,
};
use crate::row::Row;
use crate::sse_frame::SseFrame;

const PROTOCOL: &str = "2025-11-25";
const ACCEPT_BOTH: &str = "application/json, text/event-stream";
const ACCEPT_SSE: &str = "text/event-stream";
/// How long a stream may stay quiet after what the step waits for before it counts as
/// `open`.
const LINGER: Duration = Duration::from_millis(600);
/// How many times a resumption answered `409 Conflict` is asked again (see
/// `Walk::resume`): pauses of 50 ms doubling, 1.55 s in all.
const CONFLICT_RETRIES: u32 = 5;
/// The tool with one `notifications/progress` per step that the resumption steps call.
pub const JOB_TOOL: &str = "long_job";

/// A step the probe could not take, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Untested {
    pub step: String,
    pub reason: String,
}

/// Everything one probe saw.
#[derive(Debug, Clone, Default)]
pub struct Walked {
    pub rows: Vec<Row>,
    /// Steps with no row: the server gave the probe no way to take them, or no answer.
    pub untested: Vec<Untested>,
    /// Steps with a row that reveals no knob, and why: a resumption sent with a cursor the
    /// server never issued (it numbered no events), which is what any made-up cursor gets.
    pub unrevealing: Vec<Untested>,
}

/// The steps that need the job tool, and so go untested without it.
const JOB_STEPS: [&str; 5] = [
    "call",
    "resume_live",
    "resume_finished",
    "resume_evicted",
    "resume_other_session",
];

struct Walk {
    endpoint: Endpoint,
    next_id: u64,
    out: Walked,
    /// Why the last request that got no answer got none.
    last_error: Option<String>,
}

/// Where a cut or whole call left its cursor: the first progress event's id and value.
#[derive(Default, Clone)]
struct Cursor {
    rid: Option<u64>,
    id: Option<String>,
    progress: Option<i64>,
}

/// Probes the server at `endpoint`. `Err` only when it cannot be initialized at all.
pub async fn walk(endpoint: Endpoint) -> Result<Walked, String> {
    let mut w = Walk {
        endpoint,
        next_id: 1,
        out: Walked::default(),
        last_error: None,
    };
    w.run().await?;
    // A step with no row is untested already: "reveals no knob" is said of rows.
    let rows = &w.out.rows;
    w.out
        .unrevealing
        .retain(|u| rows.iter().any(|r| r.step == u.step));
    Ok(w.out)
}

fn headers(session: Option<&str>, accept: Option<&'static str>) -> RequestHeaders {
    RequestHeaders {
        accept,
        session: session.map(str::to_string),
        protocol_version: session.map(|_| PROTOCOL),
        last_event_id: None,
    }
}

/// The tools a `tools/list` answer names.
fn tool_names(message: &Value) -> Vec<String> {
    message["result"]["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A response read as its step reads it.
enum Read {
    /// An event stream, still open: the caller looks at its frames, then closes it.
    Stream(EventStream),
    /// A whole body.
    Whole(Vec<u8>),
}

impl Read {
    /// The answer to request `rid` in it, if one came.
    fn answer(&self, rid: u64) -> Option<Value> {
        match self {
            Read::Stream(s) => s
                .frames
                .iter()
                .find(|f| is_answer_to(f, rid))
                .and_then(|f| serde_json::from_str(f.data.as_deref()?).ok()),
            Read::Whole(raw) => serde_json::from_slice(raw).ok(),
        }
    }

    /// The first progress event of a stream: a cursor and its value.
    fn first_progress(&self) -> (Option<String>, Option<i64>) {
        let Read::Stream(s) = self else {
            return (None, None);
        };
        s.frames
            .iter()
            .find(|f| progress_of(f).is_some())
            .map_or((None, None), |f| (f.id.clone(), progress_of(f)))
    }

    fn close(self) {
        if let Read::Stream(s) = self {
            s.close();
        }
    }
}

impl Walk {
    /// The cursor step `step` resumes with: the event id `cursor` holds, or, when the
    /// server put no id on the call's events, `1`, and the step said to reveal nothing of
    /// the server's resumption (a client holding no id has no cursor to present).
    fn cursor_for(&mut self, step: &str, cursor: &Cursor) -> String {
        if let Some(id) = &cursor.id {
            return id.clone();
        }
        self.out.unrevealing.push(Untested {
            step: step.to_string(),
            reason: "the server put no event id on the call's events, so the probe had no cursor of its own to present: it sent `1`, and the row is what a made-up cursor gets".to_string(),
        });
        "1".to_string()
    }

    fn request(&mut self, method: &str, params: Option<Value>) -> (u64, String) {
        let rid = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": rid, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        (rid, message.to_string())
    }

    fn job(&mut self, steps: u32, interval_ms: u32) -> (u64, String) {
        let token = format!("probe-{}", self.next_id);
        self.request(
            "tools/call",
            Some(json!({
                "name": JOB_TOOL,
                "arguments": {"steps": steps, "interval_ms": interval_ms},
                "_meta": {"progressToken": token},
            })),
        )
    }

    /// Sends one request and reads its response as step `step` does: an event stream
    /// until the answer to `cx.rid` (then until it ends or lingers quiet), or until it
    /// has been quiet for `linger` when there is no answer to wait for; its row recorded.
    async fn step(
        &mut self,
        step: &str,
        method: &str,
        h: RequestHeaders,
        body: Option<String>,
        cx: FrameContext,
        linger: Duration,
    ) -> Option<(Head, Read)> {
        // The very first request may meet a server still starting up.
        let first_contact = step == "init";
        let response = match send(&self.endpoint, method, &h, body, first_contact).await {
            Ok(response) => response,
            Err(e) => {
                // No row: a request that got no answer shows nothing of the server's
                // answer, and a row of "no answer" would be compared as if it did.
                self.out.untested.push(Untested {
                    step: step.to_string(),
                    reason: format!("no answer: {e}"),
                });
                self.last_error = Some(e);
                return None;
            }
        };
        let head = response.head.clone();
        let mut row = Row {
            step: step.into(),
            status: head.status,
            sid: if head.session.is_some() { "+" } else { "-" }.into(),
            body: "sse".into(),
            frames: "-".into(),
            ids: "-".into(),
            end: "-".into(),
        };
        let read = if head.is_sse() {
            let mut stream = response.into_stream();
            let answered = |f: &SseFrame| cx.rid.is_some_and(|r| is_answer_to(f, r));
            let until = cx.rid.map(|_| &answered as &dyn Fn(&SseFrame) -> bool);
            stream.read(until, linger, None).await;
            (row.frames, row.ids) = describe_frames(&stream.frames, cx);
            row.end = if stream.ended { "ended" } else { "open" }.into();
            Read::Stream(stream)
        } else {
            let raw = response.read_whole().await;
            row.body = body_class(&head.content_type, &raw);
            Read::Whole(raw)
        };
        self.out.rows.push(row);
        Some((head, read))
    }

    /// A request read to its end and closed: its head, and the answer to `rid`.
    async fn exchange(
        &mut self,
        step: &str,
        method: &str,
        h: RequestHeaders,
        body: Option<String>,
        rid: Option<u64>,
    ) -> (Option<Head>, Option<Value>) {
        let cx = FrameContext {
            rid,
            ..FrameContext::default()
        };
        let Some((head, read)) = self.step(step, method, h, body, cx, LINGER).await else {
            return (None, None);
        };
        let answer = rid.and_then(|r| read.answer(r));
        read.close();
        (Some(head), answer)
    }

    async fn initialize(&mut self, step: &str) -> Result<Option<String>, String> {
        let (rid, body) = self.request(
            "initialize",
            Some(json!({
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "faultline-probe", "version": env!("CARGO_PKG_VERSION")},
            })),
        );
        let (head, answer) = self
            .exchange(
                step,
                "POST",
                headers(None, Some(ACCEPT_BOTH)),
                Some(body),
                Some(rid),
            )
            .await;
        let Some(head) = head else {
            return Err(format!(
                "initialize got no answer: {}",
                self.last_error.as_deref().unwrap_or("no reason given")
            ));
        };
        if answer.as_ref().is_none_or(|a| a.get("result").is_none()) {
            // Nothing after this would be an MCP server's answer: comparing it with the
            // SDK servers' would name a closest profile for a server that is none.
            let said = match answer.as_ref().and_then(|a| a["error"]["message"].as_str()) {
                Some(message) => format!(", error {message:?}"),
                None => String::new(),
            };
            let body = self
                .out
                .rows
                .last()
                .map_or(String::new(), |r| format!(" ({})", r.body));
            return Err(format!(
                "not an MCP server speaking {PROTOCOL} with sessions at this URL: initialize was answered {}{body}{said}, with no JSON-RPC result",
                head.status
            ));
        }
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.exchange(
            &format!("{step}_initialized"),
            "POST",
            headers(head.session.as_deref(), Some(ACCEPT_BOTH)),
            Some(initialized.to_string()),
            None,
        )
        .await;
        Ok(head.session)
    }

    /// A GET with `Last-Event-ID: cursor`, read and closed.
    ///
    /// A `409 Conflict` (a stream already open) may be the server not having seen yet that
    /// the probe closed its previous stream, a moment ago: a server learns of a closed
    /// connection when it next reads or writes it. So a 409 is asked again after a pause,
    /// [`CONFLICT_RETRIES`] times with the pause doubling, before it is the step's answer.
    async fn resume(&mut self, step: &str, session: Option<&str>, cursor: &str, cx: FrameContext) {
        let mut pause = Duration::from_millis(50);
        for retries_left in (0..=CONFLICT_RETRIES).rev() {
            let h = RequestHeaders {
                last_event_id: Some(cursor.to_string()),
                ..headers(session, Some(ACCEPT_SSE))
            };
            let Some((head, read)) = self.step(step, "GET", h, None, cx, LINGER).await else {
                return;
            };
            read.close();
            if head.status != 409 || retries_left == 0 {
                return;
            }
            self.out.rows.pop();
            sleep(pause).await;
            pause *= 2;
        }
    }

    /// A job call read up to its first progress event, then cut by the client (no row:
    /// the resumption that follows is the step).
    async fn cut_call(&mut self, session: Option<&str>, steps: u32, interval_ms: u32) -> Cursor {
        let (rid, body) = self.job(steps, interval_ms);
        let mut cursor = Cursor {
            rid: Some(rid),
            ..Cursor::default()
        };
        let h = headers(session, Some(ACCEPT_BOTH));
        let Ok(response) = send(&self.endpoint, "POST", &h, Some(body), false).await else {
            return cursor;
        };
        if !response.head.is_sse() {
            response.read_whole().await;
            return cursor;
        }
        let mut stream = response.into_stream();
        let first_progress = |f: &SseFrame| progress_of(f).is_some();
        stream.read(None, LINGER, Some(&first_progress)).await;
        let read = Read::Stream(stream);
        (cursor.id, cursor.progress) = read.first_progress();
        read.close();
        cursor
    }

    /// A whole job call over SSE: its first event's id is the cursor into a finished call.
    async fn whole_call(&mut self, session: Option<&str>) -> Cursor {
        let (rid, body) = self.job(3, 50);
        let mut cursor = Cursor {
            rid: Some(rid),
            ..Cursor::default()
        };
        let cx = FrameContext {
            rid: Some(rid),
            cursor_progress: None,
            total: Some(3),
        };
        let h = headers(session, Some(ACCEPT_BOTH));
        if let Some((_, read)) = self.step("call", "POST", h, Some(body), cx, LINGER).await {
            (cursor.id, cursor.progress) = read.first_progress();
            read.close();
        }
        cursor
    }

    fn resumed(cursor: &Cursor, total: i64) -> FrameContext {
        FrameContext {
            rid: cursor.rid,
            cursor_progress: Some(cursor.progress.unwrap_or(0)),
            total: Some(total),
        }
    }

    async fn run(&mut self) -> Result<(), String> {
        let a = self.initialize("init").await?;
        let a = a.as_deref();
        let (rid, body) = self.request("tools/list", None);
        let (_, listed) = self
            .exchange(
                "tools_list",
                "POST",
                headers(a, Some(ACCEPT_BOTH)),
                Some(body),
                Some(rid),
            )
            .await;
        let tools = listed.as_ref().map(tool_names).unwrap_or_default();
        let has_job = tools.iter().any(|t| t == JOB_TOOL);

        // The standalone GET stream, and a second one while it is open.
        let first = self
            .step(
                "get",
                "GET",
                headers(a, Some(ACCEPT_SSE)),
                None,
                FrameContext::default(),
                Duration::from_millis(400),
            )
            .await;
        self.exchange(
            "get_second",
            "GET",
            headers(a, Some(ACCEPT_SSE)),
            None,
            None,
        )
        .await;
        if let Some((_, read)) = first {
            read.close();
        }
        sleep(Duration::from_millis(200)).await;

        let mut done = Cursor::default();
        if has_job {
            done = self.whole_call(a).await;
            // Into a call that still runs: cut after its first progress, resumed while
            // the second is produced (steps 250 ms apart).
            let live = self.cut_call(a, 4, 250).await;
            sleep(Duration::from_millis(300)).await;
            let cursor = self.cursor_for("resume_live", &live);
            self.resume("resume_live", a, &cursor, Self::resumed(&live, 4))
                .await;
            // Into the call finished above.
            let cursor = self.cursor_for("resume_finished", &done);
            self.resume("resume_finished", a, &cursor, Self::resumed(&done, 3))
                .await;
            // A cursor that fell out of a bounded window: 40 steps 25 ms apart, away 700 ms.
            let evicted = self.cut_call(a, 40, 25).await;
            sleep(Duration::from_millis(700)).await;
            let cx = Self::resumed(&evicted, 40);
            let cursor = self.cursor_for("resume_evicted", &evicted);
            self.resume("resume_evicted", a, &cursor, cx).await;
            sleep(Duration::from_millis(500)).await;
        } else {
            let reason = if tools.is_empty() {
                "tools/list named no tools".to_string()
            } else {
                format!(
                    "no `{JOB_TOOL}` tool (steps, interval_ms) with one progress event a step; the server lists {}",
                    tools.join(", ")
                )
            };
            for step in JOB_STEPS {
                self.out.untested.push(Untested {
                    step: step.to_string(),
                    reason: reason.clone(),
                });
            }
        }

        let nowhere = FrameContext {
            rid: None,
            cursor_progress: Some(0),
            total: None,
        };
        self.resume("resume_unknown", a, &mutate(done.id.as_deref()), nowhere)
            .await;
        self.resume("resume_malformed", a, "not a cursor!", nowhere)
            .await;

        // Another session presents the first session's cursor.
        let b = self.initialize("init_other").await.ok().flatten();
        let b = b.as_deref();
        if has_job {
            let cx = Self::resumed(&done, 3);
            let cursor = self.cursor_for("resume_other_session", &done);
            self.resume("resume_other_session", b, &cursor, cx).await;
        }

        // Requests the server should refuse.
        let (rid, body) = self.request("tools/list", None);
        self.exchange(
            "no_session",
            "POST",
            headers(None, Some(ACCEPT_BOTH)),
            Some(body),
            Some(rid),
        )
        .await;
        let unknown = Some("faultline-probe-unknown");
        let (rid, body) = self.request("tools/list", None);
        self.exchange(
            "unknown_session",
            "POST",
            headers(unknown, Some(ACCEPT_BOTH)),
            Some(body),
            Some(rid),
        )
        .await;
        self.exchange(
            "get_unknown_session",
            "GET",
            headers(unknown, Some(ACCEPT_SSE)),
            None,
            None,
        )
        .await;
        self.exchange(
            "get_no_session",
            "GET",
            headers(None, Some(ACCEPT_SSE)),
            None,
            None,
        )
        .await;
        let (rid, body) = self.request("tools/list", None);
        self.exchange(
            "accept_json_only",
            "POST",
            headers(a, Some("application/json")),
            Some(body),
            Some(rid),
        )
        .await;
        let (rid, body) = self.request("tools/list", None);
        self.exchange(
            "accept_any",
            "POST",
            headers(a, Some("*/*")),
            Some(body),
            Some(rid),
        )
        .await;
        self.exchange(
            "malformed_json",
            "POST",
            headers(a, Some(ACCEPT_BOTH)),
            Some("{not json".into()),
            None,
        )
        .await;
        let (rid, body) = self.request(
            "tools/call",
            Some(json!({"name": "echo", "arguments": {"text": "hi"}})),
        );
        self.exchange(
            "echo",
            "POST",
            headers(a, Some(ACCEPT_BOTH)),
            Some(body),
            Some(rid),
        )
        .await;

        // DELETE, and the deleted session afterwards.
        let (deleted, _) = self
            .exchange("delete", "DELETE", headers(a, None), None, None)
            .await;
        // A DELETE that got no answer, or a refusal (405: the server lets no client end
        // its session), deleted nothing the probe knows of: what follows asks a session
        // that may still live, and shows nothing of a deleted one.
        let deleted = deleted.is_some_and(|head| (200..300).contains(&head.status));
        if !deleted {
            for step in ["post_deleted", "get_deleted"] {
                self.out.unrevealing.push(Untested {
                    step: step.to_string(),
                    reason: "the DELETE before it got no answer or was refused, so the session it names may still live".to_string(),
                });
            }
        }
        let (rid, body) = self.request("tools/list", None);
        self.exchange(
            "post_deleted",
            "POST",
            headers(a, Some(ACCEPT_BOTH)),
            Some(body),
            Some(rid),
        )
        .await;
        // The session's refusal is what this step shows, whatever the cursor.
        let cursor = done.id.clone().unwrap_or_else(|| "1".to_string());
        self.resume("get_deleted", a, &cursor, nowhere).await;
        self.exchange("delete_other", "DELETE", headers(b, None), None, None)
            .await;
        Ok(())
    }
}
