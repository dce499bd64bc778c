//! What legitimately differs between two servers that behave alike, normalised away, so
//! that their rows compare cell by cell:
//!
//! * event ids are reduced to their shape (`int`, `idx/req`, `uuid`, `stream_ms_rand`, …);
//! * progress values of a resumed stream are said relative to the cursor's own value
//!   (`cursor`: the cursor's event again, `next`: the one after it, `gap`: later), with
//!   whether the run reaches the job's last step (`end`);
//! * a body is reduced to its class (`empty`, `text`, `jsonrpc-error(CODE)`, …).

use serde_json::Value;

use crate::sse_frame::SseFrame;

/// The JSON-RPC message a frame carries: `None` without data, `Err` when it is not JSON.
pub fn message(frame: &SseFrame) -> Option<Result<Value, ()>> {
    let data = frame.data.as_deref().filter(|d| !d.is_empty())?;
    Some(serde_json::from_str(data).map_err(|_| ()))
}

/// The progress value of a `notifications/progress` frame.
pub fn progress_of(frame: &SseFrame) -> Option<i64> {
    let Some(Ok(m)) = message(frame) else {
        return None;
    };
    if m.get("method")?.as_str()? != "notifications/progress" {
        return None;
    }
    let p = m.get("params")?.get("progress")?;
    p.as_i64()
        .or_else(|| p.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
}

/// Whether `frame` is the answer (result or error) to request `rid`.
pub fn is_answer_to(frame: &SseFrame, rid: u64) -> bool {
    matches!(message(frame), Some(Ok(m))
        if m.get("id").and_then(Value::as_u64) == Some(rid)
            && (m.get("result").is_some() || m.get("error").is_some()))
}

fn all(text: &str, f: impl Fn(char) -> bool) -> bool {
    !text.is_empty() && text.chars().all(f)
}

fn digits(text: &str) -> bool {
    all(text, |c| c.is_ascii_digit())
}

fn is_uuid(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && all(p, |c| matches!(c, '0'..='9' | 'a'..='f')))
}

/// The shape of an event id: how an SDK spells ids, without the values.
pub fn id_shape(id: &str) -> &'static str {
    if digits(id) {
        return "int";
    }
    if let Some((a, b)) = id.split_once('/')
        && digits(a)
        && digits(b)
    {
        return "idx/req";
    }
    if is_uuid(id) {
        return "uuid";
    }
    let mut tail = id.rsplitn(3, '_');
    if let (Some(rand), Some(ms), Some(stream)) = (tail.next(), tail.next(), tail.next())
        && all(rand, |c| c.is_ascii_digit() || c.is_ascii_lowercase())
        && digits(ms)
        && (is_uuid(stream) || stream == "_GET_stream")
    {
        return "stream_ms_rand";
    }
    if let Some((stream, idx)) = id.rsplit_once('_')
        && all(stream, |c| c.is_ascii_alphanumeric())
        && digits(idx)
    {
        return "stream_idx";
    }
    "other"
}

/// An id of the same shape that the server never issued.
pub fn mutate(id: Option<&str>) -> String {
    match id {
        None => "999999".into(),
        Some(id) if id_shape(id) == "int" => "999999".into(),
        Some(id) if id_shape(id) == "idx/req" => "999999/999999".into(),
        Some(id) => {
            let changed: String = id
                .chars()
                .map(|c| match c {
                    '0'..='9' => '9',
                    'a'..='f' => 'e',
                    c => c,
                })
                .collect();
            if changed != id {
                changed
            } else {
                format!("{id}9")
            }
        }
    }
}

/// How the frames of a stream are read: which request's answer is "ours", and for a
/// resumed stream the cursor's own progress value and the job's last step.
#[derive(Default, Clone, Copy)]
pub struct FrameContext {
    pub rid: Option<u64>,
    pub cursor_progress: Option<i64>,
    pub total: Option<i64>,
}

/// The normalised frame sequence and the id shapes of a stream (`-` for none).
pub fn describe_frames(frames: &[SseFrame], cx: FrameContext) -> (String, String) {
    let mut tokens: Vec<String> = Vec::new();
    let mut shapes: Vec<&str> = Vec::new();
    let mut run: Vec<i64> = Vec::new();
    let mut last = cx.cursor_progress;
    let flush = |run: &mut Vec<i64>, last: &mut Option<i64>, tokens: &mut Vec<String>| {
        let (Some(&first), Some(&end)) = (run.first(), run.last()) else {
            return;
        };
        let contiguous = run.windows(2).all(|w| w[1] == w[0] + 1);
        let start = match *last {
            None => first.to_string(),
            Some(before) if first == before => {
                if Some(before) == cx.cursor_progress {
                    "cursor".into()
                } else {
                    "again".into()
                }
            }
            Some(before) if first == before + 1 => "next".into(),
            Some(before) if first > before + 1 => "gap".into(),
            Some(_) => "before".into(),
        };
        *last = Some(end);
        let reach = if cx.total == Some(end) { "end" } else { "part" };
        let order = if contiguous { "" } else { ",unordered" };
        tokens.push(format!("progress[{start}..{reach}{order}]"));
        run.clear();
    };
    for frame in frames {
        let shape = frame.id.as_deref().map_or("none", id_shape);
        if !shapes.contains(&shape) {
            shapes.push(shape);
        }
        if let Some(p) = progress_of(frame) {
            run.push(p);
            continue;
        }
        flush(&mut run, &mut last, &mut tokens);
        tokens.push(match message(frame) {
            None if frame.retry => "prime+retry".into(),
            None => "prime".into(),
            Some(Err(())) => "unparsable".into(),
            Some(Ok(m)) => {
                let ours = match (m.get("id").filter(|id| !id.is_null()), cx.rid) {
                    (None, None) => true,
                    (Some(id), Some(rid)) => id.as_u64() == Some(rid),
                    _ => false,
                };
                if let Some(method) = m.get("method").and_then(Value::as_str) {
                    let kind = if m.get("id").is_some() {
                        "request"
                    } else {
                        "notify"
                    };
                    format!("{kind}:{method}")
                } else if let Some(error) = m.get("error") {
                    let code = error.get("code").map_or("None".into(), Value::to_string);
                    let who = if ours { "" } else { "foreign-" };
                    format!("{who}error({code})")
                } else if ours {
                    "result".into()
                } else {
                    "foreign-result".into()
                }
            }
        });
    }
    flush(&mut run, &mut last, &mut tokens);
    let frames_text = if tokens.is_empty() {
        "-".into()
    } else {
        tokens.join(" ")
    };
    let shapes_text = if frames.is_empty() {
        "-".into()
    } else {
        shapes.join(",")
    };
    (frames_text, shapes_text)
}

/// The class of a whole (non-SSE) body.
pub fn body_class(content_type: &str, raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return "empty".into();
    }
    if content_type != "application/json" && !trimmed.starts_with(['{', '[']) {
        return "text".into();
    }
    let Ok(value) = serde_json::from_str::<Value>(trimmed) else {
        return "json(unparsable)".into();
    };
    let error = value.get("error");
    if let Some(error) = error.filter(|e| e.is_object()) {
        let code = error.get("code").map_or("None".into(), Value::to_string);
        format!("jsonrpc-error({code})")
    } else if value.get("result").is_some() {
        "jsonrpc-result".into()
    } else if error.is_some() {
        "json-error".into()
    } else {
        "json".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(data: &str, id: Option<&str>, retry: bool) -> SseFrame {
        SseFrame {
            id: id.map(str::to_string),
            data: Some(data.to_string()),
            retry,
            comment: false,
        }
    }

    fn progress(n: i64, id: &str) -> SseFrame {
        let data = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progress":{n}}}}}"#
        );
        frame(&data, Some(id), false)
    }

    fn result(rid: u64, id: &str) -> SseFrame {
        frame(
            &format!(r#"{{"jsonrpc":"2.0","id":{rid},"result":{{}}}}"#),
            Some(id),
            false,
        )
    }

    fn resumed(cursor_progress: i64) -> FrameContext {
        FrameContext {
            rid: Some(7),
            cursor_progress: Some(cursor_progress),
            total: Some(3),
        }
    }

    #[test]
    fn each_sdk_spelling_has_its_shape() {
        assert_eq!(id_shape("41"), "int");
        assert_eq!(id_shape("3/1"), "idx/req");
        let uuid = "0b4f2a3c-9d1e-4f00-8a7b-123456789abc";
        assert_eq!(id_shape(uuid), "uuid");
        assert_eq!(
            id_shape(&format!("{uuid}_1767225600250_k3j9x")),
            "stream_ms_rand"
        );
        assert_eq!(
            id_shape("_GET_stream_1767225600250_k3j9x"),
            "stream_ms_rand"
        );
        assert_eq!(id_shape("s1_4"), "stream_idx");
        assert_eq!(id_shape("not a cursor!"), "other");
    }

    #[test]
    fn a_mutated_cursor_keeps_its_shape_and_changes() {
        for cursor in ["41", "3/1", "0b4f2a3c-9d1e-4f00-8a7b-123456789abc"] {
            let changed = mutate(Some(cursor));
            assert_ne!(changed, cursor);
            assert_eq!(id_shape(&changed), id_shape(cursor));
        }
        assert_eq!(mutate(None), "999999");
    }

    #[test]
    fn progress_is_said_relative_to_the_cursor() {
        let frames = [progress(2, "5"), progress(3, "6"), result(7, "7")];
        assert_eq!(
            describe_frames(&frames, resumed(1)),
            ("progress[next..end] result".into(), "int".into())
        );
        let again: Vec<_> = [progress(1, "4")].into_iter().chain(frames).collect();
        assert_eq!(
            describe_frames(&again, resumed(1)).0,
            "progress[cursor..end] result"
        );
        let gap = [progress(3, "6"), result(7, "7")];
        assert_eq!(
            describe_frames(&gap, resumed(1)).0,
            "progress[gap..end] result"
        );
        let reordered = [progress(3, "6"), progress(2, "5")];
        assert_eq!(
            describe_frames(&reordered, resumed(1)).0,
            "progress[gap..part,unordered]"
        );
    }

    #[test]
    fn priming_retry_and_foreign_answers_are_named() {
        let frames = [frame("", Some("1"), true), progress(1, "2"), result(9, "3")];
        let cx = FrameContext {
            rid: Some(7),
            cursor_progress: None,
            total: Some(1),
        };
        assert_eq!(
            describe_frames(&frames, cx),
            (
                "prime+retry progress[1..end] foreign-result".into(),
                "int".into()
            )
        );
        assert_eq!(describe_frames(&[], cx), ("-".to_string(), "-".to_string()));
        let unnumbered = [frame(
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32000}}"#,
            None,
            false,
        )];
        assert_eq!(
            describe_frames(&unnumbered, cx),
            ("error(-32000)".into(), "none".into())
        );
    }

    #[test]
    fn bodies_are_classed() {
        assert_eq!(body_class("application/json", b" "), "empty");
        assert_eq!(body_class("text/plain", b"Not Found"), "text");
        assert_eq!(
            body_class(
                "application/json",
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#
            ),
            "jsonrpc-error(-32600)"
        );
        assert_eq!(
            body_class("text/plain", br#"{"result":{}}"#),
            "jsonrpc-result"
        );
        assert_eq!(body_class("application/json", b"{oops"), "json(unparsable)");
        assert_eq!(
            body_class("application/json", br#"{"error":"no"}"#),
            "json-error"
        );
    }
}
