//! The client side: one keep-alive HTTP/1.1 connection speaking MCP Streamable HTTP.
//!
//! hyper's connection-level client rather than a pooled one: each worker owns exactly one
//! connection with one request in flight, so the concurrency the phases ask for is the
//! concurrency the server sees, and no pool adds latency or connections of its own.

use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::TcpStream;

use crate::Result;

pub const PROTOCOL_VERSION: &str = "2025-11-25";
const BOTH: &str = "application/json, text/event-stream";

/// One keep-alive HTTP/1.1 connection (`TCP_NODELAY`).
pub struct Conn {
    tx: SendRequest<Full<Bytes>>,
    host: String,
}

impl Conn {
    pub async fn open(addr: SocketAddr) -> Result<Conn> {
        let tcp = TcpStream::connect(addr).await?;
        tcp.set_nodelay(true)?;
        let (tx, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tcp)).await?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Conn {
            tx,
            host: addr.to_string(),
        })
    }

    /// A POST to `/mcp` as a spec-following client sends it.
    pub async fn post(&mut self, session: Option<&str>, body: Bytes) -> Result<Response<Incoming>> {
        let mut req = Request::post("/mcp")
            .header(HOST, &self.host)
            .header(ACCEPT, BOTH)
            .header(CONTENT_TYPE, "application/json")
            .header("mcp-protocol-version", PROTOCOL_VERSION);
        if let Some(s) = session {
            req = req.header("mcp-session-id", s);
        }
        self.tx.ready().await?;
        Ok(self.tx.send_request(req.body(Full::new(body))?).await?)
    }

    /// A GET for the session's standalone SSE stream.
    pub async fn get_stream(&mut self, session: &str) -> Result<Response<Incoming>> {
        let req = Request::get("/mcp")
            .header(HOST, &self.host)
            .header(ACCEPT, "text/event-stream")
            .header("mcp-protocol-version", PROTOCOL_VERSION)
            .header("mcp-session-id", session)
            .body(Full::new(Bytes::new()))?;
        self.tx.ready().await?;
        Ok(self.tx.send_request(req).await?)
    }

    /// `DELETE /mcp`: ends the session.
    pub async fn delete(&mut self, session: &str) -> Result<Response<Incoming>> {
        let req = Request::delete("/mcp")
            .header(HOST, &self.host)
            .header("mcp-protocol-version", PROTOCOL_VERSION)
            .header("mcp-session-id", session)
            .body(Full::new(Bytes::new()))?;
        self.tx.ready().await?;
        Ok(self.tx.send_request(req).await?)
    }

    /// `initialize` then `notifications/initialized`; returns the session id.
    pub async fn initialize(&mut self) -> Result<String> {
        let body = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "faultline-loadgen", "version": env!("CARGO_PKG_VERSION")},
            }
        });
        let resp = self.post(None, Bytes::from(body.to_string())).await?;
        let status = resp.status();
        let session = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        resp.into_body().collect().await?;
        let session = match (status, session) {
            (StatusCode::OK, Some(s)) => s,
            (status, _) => return Err(format!("initialize answered {status}").into()),
        };
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let resp = self.post(Some(&session), Bytes::from_static(note)).await?;
        let status = resp.status();
        resp.into_body().collect().await?;
        if status != StatusCode::ACCEPTED {
            return Err(format!("notifications/initialized answered {status}").into());
        }
        Ok(session)
    }
}
