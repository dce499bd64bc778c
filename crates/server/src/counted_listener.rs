//! A listener that knows how many TCP connections are open.
//!
//! The auto-advancing clock must not jump through background work (a TTL running out)
//! while a client is connected and merely between two requests: a client holding a
//! keep-alive connection is about to speak. HTTP handlers only see requests, not idle
//! connections, so the count is kept where connections are accepted and dropped.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// Wraps a [`TcpListener`]; every accepted stream counts itself in `open` until dropped.
pub(crate) struct CountedListener {
    pub inner: TcpListener,
    pub open: Arc<AtomicUsize>,
    /// Called after every accept and close (wakes the auto clock's ticker).
    pub on_change: Arc<dyn Fn() + Send + Sync>,
}

pub(crate) struct CountedStream {
    inner: TcpStream,
    open: Arc<AtomicUsize>,
    on_change: Arc<dyn Fn() + Send + Sync>,
}

impl Drop for CountedStream {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
        (self.on_change)();
    }
}

impl Listener for CountedListener {
    type Io = CountedStream;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (stream, addr) = Listener::accept(&mut self.inner).await;
        // Nagle + delayed ACK would hold every small SSE frame back ~40 ms.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
        self.open.fetch_add(1, Ordering::AcqRel);
        (self.on_change)();
        let counted = CountedStream {
            inner: stream,
            open: self.open.clone(),
            on_change: self.on_change.clone(),
        };
        (counted, addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

impl AsyncRead for CountedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
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

/// The peer's address, as `ConnectInfo` for handlers behind a [`CountedListener`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct PeerAddr(pub std::net::SocketAddr);

impl Connected<IncomingStream<'_, CountedListener>> for PeerAddr {
    fn connect_info(stream: IncomingStream<'_, CountedListener>) -> Self {
        PeerAddr(*stream.remote_addr())
    }
}
