//! The bound on SSE bytes queued across all streams together (issue 29, item 2, second
//! half): many slow readers, each under its own queue's bound, cannot pin memory without
//! end. When the queues together would pass `max_server_queue_bytes`, the largest is cut
//! and the ledger's `cuts` says `server_queues_full`; a smaller slow stream is left alone
//! and other clients are served.
//!
//! Over real sockets with 4 KiB receive buffers and readers that stop reading. The stall
//! sweep is set far past the test and each stream's own hard bound above what its job
//! produces, so only the server-wide bound can cut. Nothing waits on wall time: a cut is
//! awaited on the server's own notice (`App::wait_closed`); `PATIENCE` turns a hang into a
//! failure.

use std::net::SocketAddr;
use std::time::Duration;

use crate::common::*;
use faultline_model::{ConnId, CutReason};
use faultline_server::{Config, Limits};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const SERVER_QUEUE_BYTES: usize = 4 << 20;

/// Opens a connection with a 4 KiB receive buffer, starts `long_job(steps, 0)` with a
/// progress token on it, and reads the response head only. Returns the connection (kept
/// unread) and its number.
async fn stalled_job(
    server: &faultline_server::Running,
    session: &str,
    steps: u32,
) -> (TcpStream, ConnId) {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut tcp = socket.connect(server.addr).await.unwrap();
    let conn = ConnId(server.app.next_conn());
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "long_job",
        "arguments": {"steps": steps, "interval_ms": 0},
        "_meta": {"progressToken": "p"},
    }})
    .to_string();
    tcp.write_all(request(server.addr, session, &body).as_bytes())
        .await
        .unwrap();
    let mut head = [0u8; 12];
    tokio::time::timeout(PATIENCE, tcp.read_exact(&mut head))
        .await
        .expect("a response head in time")
        .unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    (tcp, conn)
}

fn request(addr: SocketAddr, session: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn the_largest_queue_is_cut_when_all_queues_together_are_full() {
    let server = start(
        Config::well_behaved(7)
            .with_control(true)
            .with_limits(Limits {
                stream_stall: Duration::from_secs(3600),
                max_server_queue_bytes: SERVER_QUEUE_BYTES,
                ..Limits::default()
            }),
    )
    .await;
    let small_session = initialize(server.addr, "2025-11-25").await;
    let big_session = initialize(server.addr, "2025-11-25").await;
    // A small job's stream, never read: it holds some hundreds of KB, under every bound.
    let (_small, small) = stalled_job(&server, &small_session, 5_000).await;
    // A big one's, never read either: its queue passes the small one's long before the
    // two together reach the server-wide bound.
    let (_big, big) = stalled_job(&server, &big_session, 100_000).await;
    tokio::time::timeout(PATIENCE, server.app.wait_closed(big))
        .await
        .expect("the largest queue was cut at the server-wide bound");
    let cuts = server.app.with_engine(|e| e.server().ledger().cuts.clone());
    assert_eq!(cuts.len(), 1, "only the largest: {cuts:?}");
    assert_eq!(cuts[0].conn, big);
    let CutReason::ServerQueuesFull {
        queued_bytes,
        total_bytes,
        limit_bytes,
    } = cuts[0].reason
    else {
        panic!("the server's queues full: {:?}", cuts[0].reason);
    };
    assert_eq!(limit_bytes, SERVER_QUEUE_BYTES as u64);
    assert!(total_bytes <= limit_bytes, "{total_bytes}");
    assert!(
        queued_bytes * 2 > total_bytes,
        "the largest: {queued_bytes}"
    );
    assert!(
        server.app.is_open(small),
        "the smaller stream is left alone"
    );
    // Someone else is served, and the ledger names the reason.
    let other = initialize(server.addr, "2025-11-25").await;
    let response = Req::post(Some(&other), &rpc(3, "tools/list", json!({})))
        .send(server.addr)
        .await;
    assert_eq!(response.status(), 200);
    let whole = control(
        server.addr,
        "GET",
        "/_chaos/ledger",
        serde_json::Value::Null,
    )
    .await;
    assert_eq!(whole["ledger"]["cuts"][0]["reason"], "server_queues_full");
    server.shutdown().await.unwrap();
}
