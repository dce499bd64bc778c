//! The whole-ledger body (`GET /_chaos/ledger` without `since`), written as JSON while its
//! reader takes it, outside the server's lock.
//!
//! Why: written whole under the lock, a 300,000-event ledger stalled every other client
//! for some 600 ms, and a reader that took nothing held the whole JSON (some 56 MB) until
//! the idle timeout. Now the lock is held only to copy the records ([`LedgerCopy`]); a
//! blocking thread writes the copy as JSON into 64 KiB chunks, at most [`CHUNKS_AHEAD`] of
//! them ahead of the reader. A reader that stops reading holds the copy and those chunks,
//! and parks that thread, until its connection is closed (one such reader at a time: see
//! `ledger_page`). The copy is let go before the last chunk is sent, so a reader that saw
//! the end of the body knows it is gone; and once it is, glibc's allocator is asked to
//! give the freed memory back to the OS (it keeps freed heap otherwise, and RSS stayed at
//! its peak after the readers left). The `faultline` binary's allocator, mimalloc, gives
//! freed pages back by itself after its purge delay; the request matters to a program
//! that embeds the server on the system allocator, the tests among them.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use tokio::sync::mpsc;

use crate::ledger_page::CHUNK_BYTES;
use crate::ledger_snapshot::LedgerCopy;

/// Chunks written ahead of the reader, at most.
const CHUNKS_AHEAD: usize = 4;

/// A chunk, or the error that ends the body early (the client sees the connection
/// aborted, never a body that looks whole).
type Chunk = Result<Bytes, io::Error>;

/// Starts writing `copy` on a blocking thread and answers with a body that carries what
/// it writes; `held` lives as long as the body.
pub(crate) fn streamed_json(copy: Box<LedgerCopy>, held: Option<Box<dyn Send + Sync>>) -> Response {
    let (tx, rx) = mpsc::channel::<Chunk>(CHUNKS_AHEAD);
    tokio::task::spawn_blocking(move || write_chunks(copy, tx));
    let mut response = Response::new(Body::new(StreamedBody { rx, _held: held }));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Writes `copy` as JSON into `tx`, a chunk at a time; stops when the reader is gone.
fn write_chunks(copy: Box<LedgerCopy>, tx: mpsc::Sender<Chunk>) {
    let mut writer = ChunkWriter {
        tx,
        open: Vec::with_capacity(CHUNK_BYTES + 256),
    };
    let written = serde_json::to_writer(&mut writer, &*copy);
    drop(copy);
    match written {
        Ok(()) => {
            let last = std::mem::take(&mut writer.open);
            if !last.is_empty() {
                let _ = writer.tx.blocking_send(Ok(Bytes::from(last)));
            }
        }
        Err(e) if e.is_io() => {} // the reader left
        Err(e) => {
            let _ = writer.tx.blocking_send(Err(io::Error::other(format!(
                "the ledger did not serialize: {e}"
            ))));
        }
    }
    drop(writer);
    return_freed_memory();
}

/// The writing end: fills a chunk, hands it over when full (waiting while
/// [`CHUNKS_AHEAD`] are unread).
struct ChunkWriter {
    tx: mpsc::Sender<Chunk>,
    open: Vec<u8>,
}

impl io::Write for ChunkWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.open.extend_from_slice(buf);
        if self.open.len() >= CHUNK_BYTES {
            let full = std::mem::replace(&mut self.open, Vec::with_capacity(CHUNK_BYTES + 256));
            self.tx
                .blocking_send(Ok(Bytes::from(full)))
                .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The reading end, owned by the response.
struct StreamedBody {
    rx: mpsc::Receiver<Chunk>,
    /// The reader's permit and its deadline's guard (see `ledger_page`).
    _held: Option<Box<dyn Send + Sync>>,
}

impl http_body::Body for StreamedBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        self.get_mut()
            .rx
            .poll_recv(cx)
            .map(|chunk| chunk.map(|c| c.map(http_body::Frame::data)))
    }
}

/// Asks the allocator to give freed heap back to the OS (glibc only; elsewhere nothing).
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it takes no pointer.
    unsafe {
        libc::malloc_trim(0);
    }
}
