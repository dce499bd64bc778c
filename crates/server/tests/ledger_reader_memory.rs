//! A whole-ledger reader that takes nothing does not make the server hold the ledger's
//! JSON (issue 29, item 5, second half): the body is copied under the lock and written
//! as JSON as the reader takes it, a few 64 KiB chunks ahead, outside the lock. Written
//! whole under the lock, it held every byte of the JSON until read (and stalled every
//! other client while it was written).
//!
//! The server runs in this test's process, so the heap it holds is counted by this
//! binary's allocator ([`Counting`]): the bytes live after the stalled reader got its
//! response head, against those live before, are compared with the size of the JSON.
//! Nothing waits on wall time.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use common::*;
use faultline_server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[tokio::test]
async fn a_stalled_whole_ledger_reader_holds_a_copy_not_the_json() {
    let server = start(
        Config::well_behaved(7)
            .with_control(true)
            .with_time_scale(0.0),
    )
    .await;
    let session = initialize(server.addr, "2025-11-25").await;
    // 100,000 progress events, read to the end.
    let mut job = TcpStream::connect(server.addr).await.unwrap();
    let body = long_job(2, 100_000, 0).to_string();
    job.write_all(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            server.addr,
            body.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut stream = Vec::new();
    tokio::time::timeout(PATIENCE, job.read_to_end(&mut stream))
        .await
        .expect("the job's stream ended")
        .unwrap();
    drop(stream);
    let json_bytes = server.app.ledger_json().to_string().len() as isize;
    assert!(json_bytes > 10 << 20, "a big ledger: {json_bytes} bytes");
    let before = LIVE_BYTES.load(Ordering::SeqCst);
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stalled = socket.connect(server.addr).await.unwrap();
    stalled
        .write_all(
            format!(
                "GET /_chaos/ledger HTTP/1.1\r\nHost: {}\r\n\r\n",
                server.addr
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut head = [0u8; 12];
    tokio::time::timeout(PATIENCE, stalled.read_exact(&mut head))
        .await
        .expect("a response head in time")
        .unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    let held = LIVE_BYTES.load(Ordering::SeqCst) - before;
    // The copy of the records is well under half the JSON; the JSON is all of it (less
    // what the kernel's socket buffers took, a few MB at most).
    assert!(
        held * 3 < json_bytes * 2,
        "a stalled reader holds {held} bytes, against {json_bytes} of JSON"
    );
    drop(stalled);
    server.shutdown().await.unwrap();
}
