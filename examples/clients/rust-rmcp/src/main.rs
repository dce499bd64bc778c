//! The Rust SDK's client (crates.io `rmcp`, pinned to exactly 3.11.0 in Cargo.toml and
//! Cargo.lock), unmodified and with its default settings, behind the `faultline grade` client
//! contract (docs/client-contract.md): whatever the SDK does by default about reconnection and
//! resumption is what gets graded, so this file only wires the application's side and prints
//! the report as the last line of stdout.
//!
//! - `StreamableHttpClientTransport::from_uri(url)` (the reqwest backend, default config: SSE
//!   resumption with `Last-Event-ID` on rmcp's `ExponentialBackoff`, re-initialization on an
//!   expired session) served by a `ClientHandler` whose `on_progress` and
//!   `on_logging_message` record what the application is handed;
//! - `ServiceExt::serve` (rmcp's default lifecycle, the 2025-11-25 `initialize`); with
//!   `--modern`, `serve_with_lifecycle(ClientLifecycleMode::Auto)`, which probes
//!   `server/discover` and speaks 2026-07-28 against faultline's dual-era server (not the
//!   default: rmcp's documented opt-in to 2026-07-28);
//! - the call, then `followup_echo` echo calls. rmcp puts a progress token on every request
//!   by itself; the application records progress when the context asks for it.
//! - `lists_tools` (2026-07-28): the application keeps its tools list current the way rmcp
//!   documents (`Peer::listen` with a `tools_list_changed` filter, refetching the list on each
//!   notification), reports an abrupt end of that subscription as its error and never listens
//!   again (rmcp does not), and lists tools (through rmcp's response cache) before each call.
//! - `use_tasks`: rmcp 3.11.0 has the tasks extension's messages (`tasks/get`, ...) but no
//!   client that asks for a task and drives it, so the call is a plain one and the report
//!   says so (`tasks`).
//!
//!   FAULTLINE_CONTEXT='{"call":{...},"followup_echo":K}' faultline-client-rmcp [--modern] URL

// Logging messages are deprecated by SEP-2577 (2026-07-28), but they are how a 2025 server sends
// `notifications/message`, and the contract records them.
#![expect(deprecated)]

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProtocolVersion, SubscriptionFilter,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RoleClient, RunningService,
    SubscriptionEnd,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Map, Value, json};

/// What the application was handed, and the report it prints.
#[derive(Default)]
struct Report {
    progress: Vec<Value>,
    notifications: Vec<Value>,
    result: Option<String>,
    error: Option<String>,
    extra: Map<String, Value>,
}

type Shared = Arc<Mutex<Report>>;

fn with<T>(report: &Shared, f: impl FnOnce(&mut Report) -> T) -> T {
    f(&mut report.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Keeps the first error seen: that is what the contract's `error` means.
fn fail(report: &Shared, what: &str, error: impl std::fmt::Display) {
    with(report, |r| {
        r.error.get_or_insert_with(|| format!("{what}: {error}"));
    });
}

/// The application's side of the connection: rmcp calls these for every progress and
/// logging-message notification.
#[derive(Clone)]
struct App {
    report: Shared,
    record_progress: bool,
}

impl ClientHandler for App {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if self.record_progress {
            // rmcp hands floats; 3.0 is printed as 3, as the server sent it.
            let value = if params.progress.fract() == 0.0 && params.progress.abs() < 1e15 {
                json!(params.progress as i64)
            } else {
                json!(params.progress)
            };
            with(&self.report, |r| r.progress.push(value));
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let seq = params.data.get("seq").cloned().unwrap_or(Value::Null);
        with(&self.report, |r| r.notifications.push(seq));
    }
}

/// The text of the first text content item.
fn first_text(result: &CallToolResult) -> Option<String> {
    let value = serde_json::to_value(result).ok()?;
    value
        .get("content")?
        .as_array()?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("text"))
        .and_then(|c| c.get("text")?.as_str().map(str::to_owned))
}

fn params_of(tool: &str, arguments: Option<&Value>) -> CallToolRequestParams {
    let params = CallToolRequestParams::new(tool.to_owned());
    match arguments.and_then(Value::as_object) {
        Some(arguments) => params.with_arguments(arguments.clone()),
        None => params,
    }
}

/// Lists tools (rmcp's response cache may answer) and checks `name` is on the list.
async fn tool_from_list(
    client: &RunningService<RoleClient, App>,
    report: &Shared,
    name: &str,
) -> Result<(), String> {
    let tools = client.list_tools(None).await.map_err(|e| e.to_string())?;
    with(report, |r| {
        let listed = r.extra.entry("listed").or_insert_with(|| json!([]));
        if let Some(listed) = listed.as_array_mut() {
            listed.push(json!(tools.tools.len()));
        }
    });
    if tools.tools.iter().any(|t| t.name == name) {
        Ok(())
    } else {
        Err(format!("tool {name} is not on the tools list"))
    }
}

/// The loop rmcp documents for a `subscriptions/listen`: refetch the list on each change.
async fn keep_tools_current(
    client: Arc<RunningService<RoleClient, App>>,
    report: Shared,
    opened: tokio::sync::oneshot::Sender<()>,
) {
    let filter: SubscriptionFilter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut subscription = match client.peer().listen(filter).await {
        Ok(subscription) => subscription,
        Err(e) => {
            with(&report, |r| {
                r.extra
                    .insert("listen".into(), json!(format!("not opened: {e}")))
            });
            fail(&report, "listen", e);
            let _ = opened.send(());
            return;
        }
    };
    with(&report, |r| r.extra.insert("listen".into(), json!("open")));
    let _ = opened.send(());
    loop {
        match subscription.next().await {
            Ok(Some(_change)) => {
                with(&report, |r| {
                    let heard = r
                        .extra
                        .get("list_changes_heard")
                        .and_then(Value::as_u64)
                        .unwrap_or(0);
                    r.extra
                        .insert("list_changes_heard".into(), json!(heard + 1));
                });
                if let Err(e) = client.list_tools(None).await {
                    fail(&report, "tools list refresh", e);
                }
            }
            Ok(None) => {
                let how = match subscription.end() {
                    Some(SubscriptionEnd::Graceful(_)) => "graceful",
                    Some(SubscriptionEnd::Cancelled) => "cancelled",
                    Some(SubscriptionEnd::Lagged { .. }) => "lagged",
                    _ => "abrupt",
                };
                with(&report, |r| r.extra.insert("listen".into(), json!(how)));
                if how == "abrupt" || how == "lagged" {
                    fail(
                        &report,
                        "listen",
                        format!("the tools subscription ended ({how})"),
                    );
                }
                return;
            }
            Err(e) => {
                with(&report, |r| {
                    r.extra
                        .insert("listen".into(), json!(format!("error: {e}")))
                });
                fail(&report, "listen", e);
                return;
            }
        }
    }
}

async fn run(url: String, context: Value, modern: bool, report: Shared) {
    let call = context
        .get("call")
        .cloned()
        .unwrap_or_else(|| json!({"tool": "echo", "arguments": {"text": "hello"}}));
    let lists_tools = modern && context.get("lists_tools").and_then(Value::as_bool) == Some(true);
    if context.get("use_tasks").and_then(Value::as_bool) == Some(true) {
        with(&report, |r| {
            r.extra.insert(
                "tasks".into(),
                json!("rmcp 3.11.0 has no client that drives a task: a plain call"),
            )
        });
    }
    let app = App {
        report: report.clone(),
        record_progress: call.get("progress").and_then(Value::as_bool) == Some(true),
    };
    let transport = StreamableHttpClientTransport::from_uri(url);
    let connected = if modern {
        app.serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::LATEST],
                legacy_version: None,
            },
        )
        .await
    } else {
        app.serve(transport).await
    };
    let client = match connected {
        Ok(client) => Arc::new(client),
        Err(e) => return fail(&report, "connect", e),
    };
    let version = client
        .peer_info()
        .map(|info| info.protocol_version.to_string());
    with(&report, |r| {
        r.extra.insert("protocol_version".into(), json!(version))
    });

    let listener = if lists_tools {
        let (opened, was_opened) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(keep_tools_current(client.clone(), report.clone(), opened));
        let _ = was_opened.await;
        Some(task)
    } else {
        None
    };

    let tool = call.get("tool").and_then(Value::as_str).unwrap_or("echo");
    let first = async {
        if lists_tools {
            tool_from_list(&client, &report, tool).await?;
        }
        client
            .call_tool(params_of(tool, call.get("arguments")))
            .await
            .map_err(|e| e.to_string())
    };
    match first.await {
        Ok(result) => {
            let text = first_text(&result);
            with(&report, |r| r.result = text.clone());
            if result.is_error == Some(true) {
                fail(
                    &report,
                    "call",
                    format!("tool error: {}", text.unwrap_or_default()),
                );
            }
        }
        Err(e) => fail(&report, "call", e),
    }

    let followups = context
        .get("followup_echo")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let mut texts = Vec::new();
    for k in 1..=followups {
        let what = format!("followup {k}");
        let answer = async {
            if lists_tools {
                tool_from_list(&client, &report, "echo").await?;
            }
            let text = json!({"text": format!("followup {k}")});
            client
                .call_tool(params_of("echo", Some(&text)))
                .await
                .map_err(|e| e.to_string())
        };
        match answer.await {
            Ok(result) => {
                texts.push(json!(first_text(&result)));
                if result.is_error == Some(true) {
                    fail(
                        &report,
                        &what,
                        format!("tool error: {}", first_text(&result).unwrap_or_default()),
                    );
                }
            }
            Err(e) => {
                texts.push(Value::Null);
                fail(&report, &what, e);
            }
        }
    }
    with(&report, |r| {
        r.extra.insert("followups".into(), json!(texts))
    });

    if let Some(listener) = listener {
        listener.abort();
        let _ = listener.await;
    }
    // Closing a dead session may fail; the report already says what the application saw.
    if let Ok(client) = Arc::try_unwrap(client) {
        let _ = client.cancel().await;
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let modern = args.iter().any(|a| a == "--modern");
    args.retain(|a| a != "--modern");
    let url = args.pop().unwrap_or_default();
    let context: Value = std::env::var("FAULTLINE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_else(|| json!({}));
    let report: Shared = Arc::default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(run(url, context, modern, report.clone()));
    // The service's tasks may still hold the runtime; the report is what matters.
    runtime.shutdown_background();

    let r = std::mem::take(&mut *report.lock().unwrap_or_else(PoisonError::into_inner));
    let mut out = Map::new();
    out.insert("progress".into(), json!(r.progress));
    out.insert("notifications".into(), json!(r.notifications));
    out.insert("result".into(), json!(r.result));
    out.insert("error".into(), json!(r.error));
    out.insert(
        "sdk".into(),
        json!(format!(
            "rmcp 3.11.0{}",
            if modern { " (lifecycle Auto)" } else { "" }
        )),
    );
    out.insert(
        "scenario".into(),
        json!(std::env::var("FAULTLINE_SCENARIO").ok()),
    );
    out.extend(r.extra);
    println!("{}", Value::Object(out));
}
