//! A server of a few lines over a blocking socket, for probing without an SDK: JSON
//! answers only, a session id on `initialize`, `tools/list` naming `echo` alone, `202` for
//! a notification, `404` for any other POST. What it answers a GET, the test says.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

/// A GET as the server reads it: its `Last-Event-ID`, if any.
pub struct Get {
    #[allow(
        dead_code,
        reason = "each test binary compiles this module; not all read it"
    )]
    pub last_event_id: Option<String>,
}

/// What the server answers a GET: a status line (`"409 Conflict"`) and a JSON body; an
/// empty status line closes the connection with no answer at all.
pub type GetAnswer = (&'static str, String);

/// Serves on a loopback port until the test ends; returns the MCP URL.
pub fn serve(mut on_get: impl FnMut(&Get) -> GetAnswer + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = answer(stream, &mut on_get);
        }
    });
    url
}

/// Reads one HTTP/1.1 request (head and `Content-Length` body) and answers it.
fn answer(stream: TcpStream, on_get: &mut impl FnMut(&Get) -> GetAnswer) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0usize;
    let mut last_event_id = None;
    let mut first = String::new();
    reader.read_line(&mut first)?;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("last-event-id:") {
            last_event_id = line.split_once(':').map(|(_, v)| v.trim().to_string());
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body);
    let id = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|m| m.get("id").cloned());
    let (status, json) = if first.starts_with("GET") {
        let (status, json) = on_get(&Get { last_event_id });
        if status.is_empty() {
            return Ok(());
        }
        (status, json)
    } else if !first.starts_with("POST") {
        ("404 Not Found", String::new())
    } else if body.contains("\"initialize\"") {
        let result = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "no-jobs", "version": "0"}}});
        ("200 OK", result.to_string())
    } else if body.contains("\"tools/list\"") {
        let result = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {
            "tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}});
        ("200 OK", result.to_string())
    } else if id.is_none() {
        ("202 Accepted", String::new())
    } else {
        ("404 Not Found", String::new())
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nMcp-Session-Id: s1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{json}",
        json.len()
    )?;
    out.flush()
}
