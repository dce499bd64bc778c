//! The tasks extension's conformance fixtures on the 2026-07-28 path: a tool error is a
//! `completed` task with `isError`, a protocol error a `failed` one with an inlined
//! `error`; a task waiting for input is `input_required` with its `inputRequests` until
//! `tasks/update` answers them (one key at a time if it likes); `tasks/cancel` settles
//! running and waiting tasks to `cancelled`; a `required` tool without the extension is
//! -32021.

use crate::modern_common::*;
use faultline_model::{HttpResponse, Server, ServerKnobs, TaskStatus};
use serde_json::{Value, json};

fn task_meta() -> Value {
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    m
}

fn result(r: &HttpResponse) -> Value {
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(body(r).get("error").is_none(), "{:?}", r.body);
    body(r)["result"].clone()
}

/// Calls `tool` as a task at `now_ms` and returns its id.
fn create(server: &mut Server, tool: &str, arguments: Value, now_ms: u64) -> String {
    let mut params = json!({"name": tool, "arguments": arguments});
    params["_meta"] = task_meta();
    let r = result(&answer_at(
        server,
        modern_post(1, "tools/call", params),
        now_ms,
    ));
    assert_eq!(r["resultType"], "task", "{tool}");
    r["taskId"].as_str().expect("task id").to_string()
}

fn task_call(server: &mut Server, method: &str, params: Value, now_ms: u64) -> HttpResponse {
    let mut params = params;
    params["_meta"] = task_meta();
    answer_at(server, modern_post(2, method, params), now_ms)
}

fn get(server: &mut Server, task_id: &str, now_ms: u64) -> Value {
    result(&task_call(
        server,
        "tasks/get",
        json!({"taskId": task_id}),
        now_ms,
    ))
}

#[test]
fn a_tool_error_completes_and_a_protocol_error_fails() {
    let mut s = server(ServerKnobs::default());
    let failing = create(&mut s, "failing_job", json!({}), 0);
    let protocol = create(&mut s, "protocol_error_job", json!({}), 0);
    assert_eq!(get(&mut s, &failing, 0)["status"], "working");
    let done = get(&mut s, &failing, 1_000);
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["isError"], true);
    let failed = get(&mut s, &protocol, 1_000);
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(failed.get("result").is_none());
    let ended: Vec<_> = s
        .ledger()
        .tasks
        .iter()
        .map(|t| t.ended.map(|e| e.1))
        .collect();
    assert_eq!(
        ended,
        [Some(TaskStatus::Completed), Some(TaskStatus::Failed)]
    );
}

#[test]
fn slow_compute_runs_its_seconds_and_cancel_settles_it_to_cancelled() {
    let mut s = server(ServerKnobs::default());
    let quick = create(
        &mut s,
        "slow_compute",
        json!({"seconds": 2, "label": "q"}),
        0,
    );
    assert_eq!(get(&mut s, &quick, 1_999)["status"], "working");
    let done = get(&mut s, &quick, 2_000);
    assert_eq!(done["status"], "completed");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "slow_compute q done after 2s"
    );
    assert!(done["result"].get("_meta").is_none());

    let long = create(&mut s, "slow_compute", json!({"seconds": 60}), 0);
    let ack = result(&task_call(
        &mut s,
        "tasks/cancel",
        json!({"taskId": long}),
        10,
    ));
    assert_eq!(
        ack,
        json!({"resultType": "complete", "_meta": ack["_meta"]})
    );
    assert_eq!(get(&mut s, &long, 20)["status"], "cancelled");
    // Again, on a terminal task: the same empty ack.
    let again = result(&task_call(
        &mut s,
        "tasks/cancel",
        json!({"taskId": long}),
        30,
    ));
    assert_eq!(again["resultType"], "complete");
    assert!(again.get("status").is_none());
}

#[test]
fn without_the_extension_required_tools_are_refused_and_optional_ones_run_at_once() {
    let mut s = server(ServerKnobs::default());
    let plain = |tool: &str, arguments: Value| {
        modern_post(
            1,
            "tools/call",
            with_meta(json!({"name": tool, "arguments": arguments})),
        )
    };
    let r = answer_at(&mut s, plain("failing_job", json!({})), 0);
    assert_eq!((r.status, code(&r)), (400, Some(-32021)));
    assert!(body(&r)["error"]["data"]["requiredCapabilities"]["extensions"]
        ["io.modelcontextprotocol/tasks"]
        .is_object());
    let r = result(&answer_at(
        &mut s,
        plain("slow_compute", json!({"seconds": 0})),
        0,
    ));
    assert_eq!(r["resultType"], "complete");
    assert!(r.get("taskId").is_none());
    let r = result(&answer_at(&mut s, plain("greet", json!({"name": "x"})), 0));
    assert_eq!(r["content"][0]["text"], "Hello, x!");
    assert!(s.ledger().tasks.is_empty());
}

#[test]
fn a_task_waits_for_input_then_resumes_on_tasks_update() {
    let mut s = server(ServerKnobs::default());
    let id = create(&mut s, "confirm_delete", json!({"filename": "a.txt"}), 0);
    let waiting = get(&mut s, &id, 500);
    assert_eq!(waiting["status"], "input_required");
    assert_eq!(
        waiting["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    assert!(waiting.get("requestState").is_none());
    // Still waiting much later: nothing runs until the input arrives.
    assert_eq!(get(&mut s, &id, 60_000)["status"], "input_required");
    let ack = result(&task_call(
        &mut s,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"unknown": {"action": "accept", "content": {}}}}),
        60_000,
    ));
    assert_eq!(ack["resultType"], "complete");
    assert_eq!(get(&mut s, &id, 60_000)["status"], "input_required");
    let ack = result(&task_call(
        &mut s,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
        60_001,
    ));
    assert!(ack.get("status").is_none());
    let done = get(&mut s, &id, 60_002);
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "Deleted a.txt");
    assert!(done.get("inputRequests").is_none());
}

#[test]
fn partial_answers_leave_the_rest_pending() {
    let mut s = server(ServerKnobs::default());
    let id = create(&mut s, "multi_input", json!({}), 0);
    let keys = |v: &Value| -> Vec<String> {
        v["inputRequests"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    assert_eq!(keys(&get(&mut s, &id, 0)), ["confirm", "name"]);
    let answer = |key: &str| json!({"taskId": id, "inputResponses": {key: {"action": "accept", "content": {}}}});
    result(&task_call(&mut s, "tasks/update", answer("name"), 1));
    let still = get(&mut s, &id, 2);
    assert_eq!(still["status"], "input_required");
    assert_eq!(keys(&still), ["confirm"]);
    result(&task_call(&mut s, "tasks/update", answer("confirm"), 3));
    assert_eq!(get(&mut s, &id, 4)["status"], "completed");
    // Nothing left to answer: an update is now invalid.
    let r = task_call(&mut s, "tasks/update", answer("confirm"), 5);
    assert_eq!(code(&r), Some(-32602));
}

#[test]
fn a_waiting_task_can_be_cancelled() {
    let mut s = server(ServerKnobs::default());
    let id = create(&mut s, "confirm_delete", json!({"filename": "b"}), 0);
    result(&task_call(
        &mut s,
        "tasks/cancel",
        json!({"taskId": id}),
        10,
    ));
    let cancelled = get(&mut s, &id, 11);
    assert_eq!(cancelled["status"], "cancelled");
    assert!(cancelled.get("inputRequests").is_none());
    assert_eq!(s.ledger().tasks[0].ended, Some((10, TaskStatus::Cancelled)));
}
