//! The tasks extension on the 2026-07-28 path: a job tool called by a client that declares
//! `io.modelcontextprotocol/tasks` answers with a task id; `tasks/get` reports the task
//! (its result inlined once `completed`); TTL, purge delay, `PurgeTasks` and restarts under
//! each `task_persistence` decide when the id vanishes (-32602).

use crate::modern_common::*;
use faultline_model::{
    DurationMs, HttpRequest, HttpResponse, JobEnd, PositiveDurationMs, Server, ServerKnobs,
    TaskLoss, TaskPersistence, TaskStatus,
};
use serde_json::{Value, json};

/// `_meta` declaring the tasks extension.
fn task_meta() -> Value {
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    m
}

fn call_as_task(id: u64, steps: u32, interval_ms: u64) -> HttpRequest {
    let mut params = json!({
        "name": "long_job",
        "arguments": {"steps": steps, "interval_ms": interval_ms}
    });
    params["_meta"] = task_meta();
    modern_post(id, "tools/call", params)
}

fn task_request(id: u64, method: &str, task_id: &str) -> HttpRequest {
    let mut params = json!({"taskId": task_id});
    params["_meta"] = task_meta();
    modern_post(id, method, params)
}

/// Sends `request` at `now_ms` and returns its answer.
/// Creates a 3-step task (100 ms apart) at time 0 and returns its id.
fn create(server: &mut Server) -> String {
    let r = answer_at(server, call_as_task(1, 3, 100), 0);
    assert_eq!(r.status, 200);
    let result = &body(&r)["result"];
    assert_eq!(result["resultType"], "task");
    assert_eq!(result["status"], "working");
    assert!(result.get("task").is_none(), "flat, no nested task");
    assert!(result.get("result").is_none());
    assert_eq!(result["createdAt"], "1970-01-01T00:00:00.000Z");
    assert_eq!(result["pollIntervalMs"], 1000);
    result["taskId"].as_str().expect("a task id").to_string()
}

fn get(server: &mut Server, task_id: &str, now_ms: u64) -> HttpResponse {
    answer_at(server, task_request(2, "tasks/get", task_id), now_ms)
}

#[test]
fn a_task_is_working_then_completed_with_its_result_inlined() {
    let mut server = server(ServerKnobs::default());
    let task_id = create(&mut server);
    let working = get(&mut server, &task_id, 0);
    assert_eq!(body(&working)["result"]["status"], "working");
    assert_eq!(body(&working)["result"]["resultType"], "complete");
    assert_eq!(body(&working)["result"]["ttlMs"], Value::Null);

    let done = get(&mut server, &task_id, 300);
    let result = &body(&done)["result"];
    assert_eq!(result["status"], "completed");
    assert_eq!(
        result["result"]["content"][0]["text"],
        "long_job finished 3 steps"
    );
    assert_eq!(result["lastUpdatedAt"], "1970-01-01T00:00:00.300Z");
    let ledger = server.ledger();
    assert_eq!(ledger.tasks.len(), 1);
    assert_eq!(ledger.tasks[0].ended, Some((300, TaskStatus::Completed)));
    // The work ran as a job; nothing was streamed to anyone.
    let job = ledger.tasks[0].jobs[0];
    assert_eq!(
        ledger.jobs[job.0 as usize].ended,
        Some((300, JobEnd::Finished))
    );
    assert!(ledger.events.is_empty());
}

#[test]
fn without_the_extension_a_job_tool_streams_and_task_methods_are_refused() {
    let mut server = server(ServerKnobs::default());
    let plain = with_meta(json!({"name": "long_job", "arguments": {"steps": 1}}));
    let r = answer_at(&mut server, modern_post(1, "tools/call", plain), 0);
    assert!(matches!(r.body, faultline_model::ResponseBody::Sse(_)));
    let mut params = with_meta(json!({"taskId": "x"}));
    params["taskId"] = json!("x");
    let r = answer_at(&mut server, modern_post(2, "tasks/get", params), 0);
    assert_eq!(code(&r), Some(-32021));
    assert_eq!(
        body(&r)["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
}

#[test]
fn tasks_result_and_tasks_list_are_gone_and_an_unknown_id_is_invalid_params() {
    let mut server = server(ServerKnobs::default());
    for method in ["tasks/result", "tasks/list"] {
        let r = answer_at(&mut server, task_request(1, method, "x"), 0);
        assert_eq!((r.status, code(&r)), (404, Some(-32601)), "{method}");
    }
    let r = get(&mut server, "never-minted", 0);
    assert_eq!(code(&r), Some(-32602));
}

#[test]
fn tasks_get_after_expiry_and_purge_is_invalid_params() {
    let mut server = server(ServerKnobs {
        task_ttl: PositiveDurationMs::new(1_000),
        task_purge_delay: Some(DurationMs(500)),
        ..ServerKnobs::default()
    });
    let task_id = create(&mut server);
    let r = get(&mut server, &task_id, 999);
    assert_eq!(body(&r)["result"]["status"], "completed");
    assert_eq!(body(&r)["result"]["ttlMs"], 1000);
    // Expired: failed, for the purge delay.
    let r = get(&mut server, &task_id, 1_000);
    assert_eq!(body(&r)["result"]["status"], "failed");
    assert_eq!(body(&r)["result"]["error"]["message"], "Task has expired");
    assert!(body(&r)["result"].get("result").is_none());
    // Purged.
    let r = get(&mut server, &task_id, 1_500);
    assert_eq!(code(&r), Some(-32602));
    let task = &server.ledger().tasks[0];
    assert_eq!(task.lost, Some((1_500, TaskLoss::Expired)));
    assert_eq!(task.misses.len(), 1);
    assert_eq!(task.misses[0].at_ms, 1_500);
    assert_eq!(task.misses[0].method, "tasks/get");
}

#[test]
fn without_a_purge_delay_an_expired_task_goes_at_once() {
    let mut server = server(ServerKnobs {
        task_ttl: PositiveDurationMs::new(1_000),
        ..ServerKnobs::default()
    });
    let task_id = create(&mut server);
    assert_eq!(code(&get(&mut server, &task_id, 1_000)), Some(-32602));
}

/// A restart at 150 ms, with the task's work half done.
fn restarted(persistence: TaskPersistence) -> (Server, String) {
    let mut server = server(ServerKnobs {
        task_persistence: persistence,
        ..ServerKnobs::default()
    });
    let task_id = create(&mut server);
    let mut out = Vec::new();
    server.restart(150, &mut out);
    (server, task_id)
}

#[test]
fn with_nothing_persisted_a_restart_loses_the_task() {
    let (mut server, task_id) = restarted(TaskPersistence::Nothing);
    let r = get(&mut server, &task_id, 1_000);
    assert_eq!(code(&r), Some(-32602));
    let task = &server.ledger().tasks[0];
    assert_eq!(task.lost, Some((150, TaskLoss::Restart)));
    assert_eq!(task.misses.len(), 1);
}

#[test]
fn with_terminal_only_an_interrupted_task_reports_failed() {
    let (mut server, task_id) = restarted(TaskPersistence::TerminalOnly);
    let r = get(&mut server, &task_id, 1_000);
    let result = &body(&r)["result"];
    assert_eq!(result["status"], "failed");
    assert!(result["error"]["code"].is_i64());
    assert!(result.get("result").is_none());
    let task = &server.ledger().tasks[0];
    assert_eq!(task.lost, None);
    assert_eq!(task.ended, Some((150, TaskStatus::Failed)));
}

#[test]
fn with_terminal_only_a_finished_task_survives_a_restart() {
    let mut server = server(ServerKnobs {
        task_persistence: TaskPersistence::TerminalOnly,
        ..ServerKnobs::default()
    });
    let task_id = create(&mut server);
    let mut out = Vec::new();
    server.restart(500, &mut out);
    let r = get(&mut server, &task_id, 1_000);
    assert_eq!(body(&r)["result"]["status"], "completed");
}

#[test]
fn with_everything_persisted_an_interrupted_task_runs_again() {
    let (mut server, task_id) = restarted(TaskPersistence::Everything);
    let r = get(&mut server, &task_id, 1_000);
    assert_eq!(body(&r)["result"]["status"], "completed");
    let task = &server.ledger().tasks[0];
    assert_eq!(task.jobs.len(), 2, "the work ran again");
    assert_eq!(task.ended, Some((450, TaskStatus::Completed)));
}

#[test]
fn purge_tasks_forgets_every_task_and_stops_its_work() {
    let mut server = server(ServerKnobs::default());
    let task_id = create(&mut server);
    let mut out = Vec::new();
    server.purge_tasks(150, &mut out);
    assert_eq!(code(&get(&mut server, &task_id, 200)), Some(-32602));
    let ledger = server.ledger();
    assert_eq!(ledger.tasks[0].lost, Some((150, TaskLoss::Purged)));
    let job = ledger.tasks[0].jobs[0];
    assert_eq!(
        ledger.jobs[job.0 as usize].ended,
        Some((150, JobEnd::Killed))
    );
}

#[test]
fn tasks_cancel_acks_empty_and_the_task_settles_cancelled() {
    let mut server = server(ServerKnobs::default());
    let task_id = create(&mut server);
    let r = answer_at(&mut server, task_request(3, "tasks/cancel", &task_id), 50);
    assert_eq!(body(&r)["result"]["resultType"], "complete");
    assert!(body(&r)["result"].get("taskId").is_none());
    assert_eq!(
        body(&get(&mut server, &task_id, 60))["result"]["status"],
        "cancelled"
    );
    // Idempotent on a terminal task.
    let r = answer_at(&mut server, task_request(4, "tasks/cancel", &task_id), 70);
    assert_eq!(body(&r)["result"]["resultType"], "complete");
}

#[test]
fn discover_advertises_the_extension_unless_tasks_are_not_offered() {
    for (offered, advertised) in [(true, true), (false, false)] {
        let mut server = server(ServerKnobs {
            tasks_offered: offered,
            ..ServerKnobs::default()
        });
        let r = answer_at(
            &mut server,
            modern_post(1, "server/discover", with_meta(json!({}))),
            0,
        );
        let ext =
            &body(&r)["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"];
        assert_eq!(!ext.is_null(), advertised);
    }
}
