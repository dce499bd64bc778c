//! The real rmcp 3.11 Streamable HTTP server with its defaults (LocalSessionManager, legacy
//! session mode, no EventStore), serving the two tools the profile probe calls with the
//! shapes `faultline serve` gives them: `echo {text}` and `long_job {steps, interval_ms}`
//! (one `notifications/progress` per step when the request carries a progress token).
//! Prints `listening on http://ADDR/mcp` as `faultline serve` does.
use std::{sync::Arc, time::Duration};

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
        PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
    },
    service::RequestContext,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use serde_json::{Value, json};

#[derive(Clone, Default)]
struct Probed;

fn schema(v: Value) -> Arc<serde_json::Map<String, Value>> {
    Arc::new(v.as_object().expect("object schema").clone())
}

impl ServerHandler for Probed {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new(
                "echo",
                "Returns its text argument.",
                schema(
                    json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}),
                ),
            ),
            Tool::new(
                "long_job",
                "Runs `steps` steps, one every `interval_ms`, with progress.",
                schema(
                    json!({"type":"object","properties":{"steps":{"type":"integer"},"interval_ms":{"type":"integer"}}}),
                ),
            ),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.clone().unwrap_or_default();
        match request.name.as_ref() {
            "echo" => {
                let text = args
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                    ContentBlock::text(text),
                ])))
            }
            "long_job" => {
                let steps = args.get("steps").and_then(Value::as_u64).unwrap_or(3);
                let interval_ms = args
                    .get("interval_ms")
                    .and_then(Value::as_u64)
                    .unwrap_or(100);
                let token = context.meta.get_progress_token();
                for step in 1..=steps {
                    tokio::time::sleep(Duration::from_millis(interval_ms)).await;
                    if let Some(token) = &token {
                        let _ = context
                            .peer
                            .notify_progress(
                                ProgressNotificationParam::new(token.clone(), step as f64)
                                    .with_total(steps as f64),
                            )
                            .await;
                    }
                }
                Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                    ContentBlock::text(format!("long_job finished {steps} steps")),
                ])))
            }
            other => Err(ErrorData::invalid_params(
                format!("unknown tool {other}"),
                None,
            )),
        }
    }
}

#[tokio::main]
async fn main() {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let service: StreamableHttpService<Probed, LocalSessionManager> = StreamableHttpService::new(
        || Ok(Probed),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("bind");
    println!(
        "listening on http://{}/mcp",
        listener.local_addr().expect("addr")
    );
    axum::serve(listener, router).await.expect("serve");
}
