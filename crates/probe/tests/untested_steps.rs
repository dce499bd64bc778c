//! A server without the `long_job` tool: the probe cannot take its resumption steps, and
//! says so (`untested`, with the tools the server does list) instead of comparing or
//! inferring anything from steps it never took.
//!
//! The server here is a few lines over a blocking socket: JSON answers only, a session id
//! on `initialize`, `tools/list` naming `echo` alone, `404` for anything else.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

/// Reads one HTTP/1.1 request (head and `Content-Length` body) and answers it.
fn answer(stream: std::net::TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0usize;
    let mut first = String::new();
    reader.read_line(&mut first)?;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body);
    let id = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|m| m.get("id").cloned());
    let (status, json) = if !first.starts_with("POST") {
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

#[test]
fn a_server_without_long_job_leaves_the_resumption_steps_untested() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = answer(stream);
        }
    });
    let probed = faultline_probe::probe(&url).expect("the probe runs");
    let untested: Vec<&str> = probed.untested.iter().map(|u| u.step).collect();
    assert_eq!(
        untested,
        [
            "call",
            "resume_live",
            "resume_finished",
            "resume_evicted",
            "resume_other_session"
        ]
    );
    assert!(
        probed.untested[0].reason.contains("no `long_job` tool")
            && probed.untested[0].reason.contains("echo"),
        "{:?}",
        probed.untested[0]
    );
    // None of those steps has a row, so none is compared or inferred from.
    assert!(
        probed
            .rows
            .iter()
            .all(|r| !untested.contains(&r.step.as_str()))
    );
    assert!(
        probed
            .profiles
            .iter()
            .all(|c| c.steps_compared == probed.rows.len())
    );
    let text = probed.text();
    assert!(
        text.contains("untested: resume_live: no `long_job` tool"),
        "{text}"
    );
    let block = probed.inferred.server_block();
    assert!(block.contains("not probed (resume_live)"), "{block}");
}
