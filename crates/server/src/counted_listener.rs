//! A TCP stream that knows how many connections are open and tells its watchdog when
//! bytes arrive.
//!
//! The auto-advancing clock must not jump through background work (a TTL running out)
//! while a client is connected and merely between two requests: a client holding a
//! keep-alive connection is about to speak. HTTP handlers only see requests, not idle
//! connections, so the count is kept where connections are accepted and dropped (see
//! `accept_loop`). The connection cap reads the same count.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::conn_watch::ConnWatch;

/// An accepted stream, counted in `open` until dropped.
pub(crate) struct CountedStream {
    inner: TcpStream,
    open: Arc<AtomicUsize>,
    /// Called after every accept and close (wakes the auto clock's ticker).
    on_change: Arc<dyn Fn() + Send + Sync>,
    watch: Arc<ConnWatch>,
}

impl CountedStream {
    pub fn new(
        inner: TcpStream,
        open: Arc<AtomicUsize>,
        on_change: Arc<dyn Fn() + Send + Sync>,
        watch: Arc<ConnWatch>,
    ) -> CountedStream {
        // Nagle + delayed ACK would hold every small SSE frame back ~40 ms.
        if let Err(e) = inner.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
        open.fetch_add(1, Ordering::AcqRel);
        on_change();
        CountedStream {
            inner,
            open,
            on_change,
            watch,
        }
    }
}

impl Drop for CountedStream {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
        (self.on_change)();
    }
}

impl AsyncRead for CountedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.watch.bytes_read();
        }
        polled
    }
}

impl AsyncWrite for CountedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// The peer's address, as `ConnectInfo` for the handlers (inserted by `accept_loop`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PeerAddr(pub std::net::SocketAddr);
