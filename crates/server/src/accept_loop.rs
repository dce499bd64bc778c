//! The accept loop: hyper's HTTP/1 connections under the server's transport limits.
//!
//! `axum::serve` offers no header timeout, no idle timeout and no connection cap, so a
//! crowd of half-open connections could hold every descriptor (see `limits`). This loop
//! accepts, refuses a connection beyond [`Limits::max_connections`] with a 503 and a
//! sentence, and serves every other one with its watchdog (`conn_watch`) beside it.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::Instant;
use tower_service::Service;

use crate::App;
use crate::conn_watch::{self, ConnWatch, InFlight, TcpConn};
use crate::counted_listener::{CountedStream, PeerAddr};
use crate::limits::Limits;

/// Refusals that may be in progress at once (each writes a 503 and waits up to
/// [`REFUSAL_LINGER`] for the client to read it); beyond that a refused connection is
/// closed at once.
const REFUSALS_IN_PROGRESS: usize = 64;

/// How long a refused connection is kept so that its client reads the 503.
const REFUSAL_LINGER: Duration = Duration::from_secs(1);

/// After an accept error (out of descriptors), wait this long before accepting again.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `router` on `listener` until `stop` turns true, then lets the open connections
/// finish (graceful shutdown) and returns.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    app: App,
    limits: Limits,
    stop: watch::Receiver<bool>,
) -> io::Result<()> {
    let mut stopping = stop.clone();
    let wake = app.clone();
    let on_change: Arc<dyn Fn() + Send + Sync> =
        // Not activity: a control call's connection must not restart a quiet period.
        Arc::new(move || wake.inner.wake.notify_one());
    let refusing = Arc::new(AtomicUsize::new(0));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        tracing::warn!("accept: {e}");
                        tokio::time::sleep(ACCEPT_BACKOFF).await;
                        continue;
                    }
                };
                if app.open_tcp() >= limits.max_connections {
                    refuse(stream, limits.max_connections, &refusing);
                    continue;
                }
                let watch = Arc::new(ConnWatch::new());
                let stream = CountedStream::new(
                    stream,
                    app.inner.open_tcp.clone(),
                    on_change.clone(),
                    watch.clone(),
                );
                connections.spawn(connection(
                    stream,
                    peer,
                    router.clone(),
                    watch,
                    limits,
                    stop.clone(),
                ));
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            _ = async { stopping.wait_for(|stop| *stop).await.map(|_| ()) } => break,
        }
    }
    drop(listener);
    app.close_all_streams();
    while connections.join_next().await.is_some() {}
    Ok(())
}

/// One connection: hyper serves it while its watchdog closes it when a phase runs out of
/// time or the driver cuts it.
async fn connection(
    stream: CountedStream,
    peer: SocketAddr,
    router: Router,
    watch: Arc<ConnWatch>,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
) {
    let requests = watch.clone();
    let body_timeout = limits.header_timeout;
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let in_flight = requests.request_started();
        // A body declared over the limit is refused before it is read: waiting for it
        // (a `Content-Length` of 10 GB and a trickle) would hold the connection until
        // the body timeout only to refuse it then. The connection closes after.
        let declared_too_long = request
            .headers()
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok())
            .is_some_and(|length| length > crate::MAX_BODY_BYTES as u64);
        let mut request = request.map(|body| TimedBody::new(body, body_timeout, requests.clone()));
        request.extensions_mut().insert(ConnectInfo(PeerAddr(peer)));
        request.extensions_mut().insert(TcpConn(requests.clone()));
        // A Router is always ready: `call` needs no `poll_ready` first.
        let answer = (!declared_too_long).then(|| router.clone().call(request));
        async move {
            let response = match answer {
                Some(answer) => answer.await?,
                None => {
                    let mut refused = crate::http::payload_too_large();
                    refused.headers_mut().insert(
                        hyper::header::CONNECTION,
                        hyper::header::HeaderValue::from_static("close"),
                    );
                    refused
                }
            };
            Ok::<_, Infallible>(response.map(|body| Body::new(Served { body, in_flight })))
        }
    });
    let conn =
        hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let mut stopping = false;
    loop {
        let due = match watch.next_check(Instant::now(), limits.header_timeout, limits.idle_timeout)
        {
            conn_watch::Check::Close(phase) => {
                tracing::debug!(%peer, ?phase, "connection closed: its phase ran out of time");
                return;
            }
            conn_watch::Check::At(at) => at,
        };
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = watch.cut_signalled() => {
                if watch.is_cut() {
                    tracing::debug!(%peer, "connection cut by the server");
                    return;
                }
            }
            // Not a deadline yet: the phase is read again at the top of the loop.
            _ = tokio::time::sleep_until(due) => {}
            _ = async { stop.wait_for(|stop| *stop).await.map(|_| ()) }, if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

/// A request body that must arrive within the header timeout of its headers: a client
/// that sends its headers and then trickles (or withholds) the body would otherwise hold
/// the connection, and the handler waiting for it, forever. When time runs out the
/// connection is cut.
struct TimedBody {
    body: Incoming,
    deadline: std::pin::Pin<Box<tokio::time::Sleep>>,
    watch: Arc<ConnWatch>,
}

impl TimedBody {
    fn new(body: Incoming, timeout: Duration, watch: Arc<ConnWatch>) -> TimedBody {
        TimedBody {
            body,
            deadline: Box::pin(tokio::time::sleep(timeout)),
            watch,
        }
    }
}

/// What a body that did not arrive in time is told (the handler answers it 408).
pub(crate) const BODY_TIMEOUT: &str = "the request body did not arrive within the header timeout";

/// The request body did not arrive in time.
#[derive(Debug)]
struct BodyTimeout;

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(BODY_TIMEOUT)
    }
}

impl std::error::Error for BodyTimeout {}

impl http_body::Body for TimedBody {
    type Data = bytes::Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        if let std::task::Poll::Ready(frame) = std::pin::Pin::new(&mut this.body).poll_frame(cx) {
            return std::task::Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            this.watch.cut();
            return std::task::Poll::Ready(Some(Err(Box::new(BodyTimeout))));
        }
        std::task::Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A response body that marks its connection busy until it is dropped.
struct Served {
    body: Body,
    #[allow(dead_code)]
    in_flight: InFlight,
}

impl http_body::Body for Served {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The answer to a connection beyond the cap.
fn refusal(max_connections: usize) -> String {
    let body = format!(
        "{{\"error\":\"too many open connections: this server holds at most {max_connections} at once (faultline serve --max-connections); close one and retry\"}}"
    );
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Answers 503 on a connection beyond the cap and closes it, reading what the client
/// sent meanwhile so that the close does not reset the answer away.
fn refuse(mut stream: TcpStream, max_connections: usize, refusing: &Arc<AtomicUsize>) {
    if refusing.fetch_add(1, Ordering::AcqRel) >= REFUSALS_IN_PROGRESS {
        refusing.fetch_sub(1, Ordering::AcqRel);
        return;
    }
    let refusing = refusing.clone();
    tokio::spawn(async move {
        let answer = refusal(max_connections);
        let _ = tokio::time::timeout(REFUSAL_LINGER, async {
            stream.write_all(answer.as_bytes()).await?;
            stream.shutdown().await?;
            let mut sink = [0u8; 4096];
            while stream.read(&mut sink).await? > 0 {}
            Ok::<_, io::Error>(())
        })
        .await;
        refusing.fetch_sub(1, Ordering::AcqRel);
    });
}
