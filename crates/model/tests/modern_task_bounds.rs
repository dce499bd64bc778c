//! A long-lived server's task store is bounded (`Limits::max_tasks`): a new task takes the
//! room of a gone record, else of one past its TTL and purge delay, else of the oldest
//! finished task (evicted, and the ledger says so); when every task held is working, the
//! call is refused with 429. A gone or evicted id answers one "Task not found" (recorded
//! as a miss) and is then forgotten. The ledger window trims task entries too, and a task
//! that outlives its entry still answers. With `Limits::default()` nothing is bounded.

use crate::modern_common::*;
use faultline_model::{
    DurationMs, HttpResponse, Limits, PositiveDurationMs, Server, ServerKnobs, TaskLoss,
};
use serde_json::{Value, json};

fn task_meta() -> Value {
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    m
}

/// A `long_job` task call of `steps` steps `interval_ms` apart, at `now_ms`.
fn call(server: &mut Server, steps: u32, interval_ms: u64, now_ms: u64) -> HttpResponse {
    let mut params = json!({
        "name": "long_job",
        "arguments": {"steps": steps, "interval_ms": interval_ms}
    });
    params["_meta"] = task_meta();
    answer_at(server, modern_post(1, "tools/call", params), now_ms)
}

/// Creates a task and returns its id.
fn create(server: &mut Server, steps: u32, interval_ms: u64, now_ms: u64) -> String {
    let r = call(server, steps, interval_ms, now_ms);
    assert_eq!(r.status, 200, "{:?}", r.body);
    body(&r)["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_string()
}

/// A task that finishes 10 ms after `now_ms`.
fn quick(server: &mut Server, now_ms: u64) -> String {
    create(server, 1, 10, now_ms)
}

/// A task still working for a long while after `now_ms`.
fn slow(server: &mut Server, now_ms: u64) -> String {
    create(server, 100, 1_000, now_ms)
}

fn get(server: &mut Server, task_id: &str, now_ms: u64) -> HttpResponse {
    let mut params = json!({"taskId": task_id});
    params["_meta"] = task_meta();
    answer_at(server, modern_post(2, "tasks/get", params), now_ms)
}

fn bounded(max_tasks: u32, knobs: ServerKnobs) -> Server {
    let limits = Limits {
        max_tasks: Some(max_tasks),
        ..Limits::default()
    };
    limited(knobs, limits)
}

fn entry<'a>(server: &'a Server, task_id: &str) -> &'a faultline_model::TaskEntry {
    server
        .ledger()
        .tasks
        .iter()
        .find(|t| t.task_id == task_id)
        .expect("a ledger entry")
}

fn message(r: &HttpResponse) -> String {
    body(r)["error"]["message"]
        .as_str()
        .expect("an error message")
        .to_string()
}

#[test]
fn the_store_never_holds_more_than_the_bound() {
    let mut server = bounded(3, ServerKnobs::default());
    let mut ids = Vec::new();
    for i in 0..50u64 {
        ids.push(quick(&mut server, i * 100));
        let held = server.tasks_held();
        assert!(held.records <= 3, "{i}: {held:?}");
        assert!(held.tombstones <= 3, "{i}: {held:?}");
    }
    // Every task is in the ledger; all but the last three were evicted after they
    // finished, and the ledger says when.
    let ledger = server.ledger();
    assert_eq!(ledger.tasks.len(), 50);
    let evicted: Vec<_> = ledger.tasks.iter().filter_map(|t| t.lost).collect();
    assert_eq!(evicted.len(), 47);
    assert!(evicted.iter().all(|(_, how)| *how == TaskLoss::Evicted));
    assert_eq!(ledger.tasks[0].lost, Some((300, TaskLoss::Evicted)));
    // The newest still answer.
    let r = get(&mut server, &ids[49], 5_000);
    assert_eq!(body(&r)["result"]["status"], "completed");
}

#[test]
fn a_new_task_takes_a_gone_room_then_an_expired_one_then_the_oldest_finished() {
    let knobs = ServerKnobs {
        task_ttl: PositiveDurationMs::new(1_000),
        task_purge_delay: Some(DurationMs(0)),
        ..ServerKnobs::default()
    };
    let mut server = bounded(3, knobs);
    // Gone: purged while working.
    let gone = slow(&mut server, 0);
    server.purge_tasks(10, &mut Vec::new());
    // Past its TTL (at 1,020) while still working.
    let expired = slow(&mut server, 20);
    // Finished at 510, its TTL runs until 1,500.
    let finished = quick(&mut server, 500);

    // The gone record's room goes first, though it is neither expired nor finished.
    let n1 = slow(&mut server, 1_100);
    assert_eq!(entry(&server, &gone).lost, Some((10, TaskLoss::Purged)));
    assert_eq!(entry(&server, &expired).lost, None);
    assert_eq!(entry(&server, &finished).lost, None);
    assert_eq!(server.tasks_held().records, 3);
    assert_eq!(server.tasks_held().tombstones, 1);

    // Next, the expired one (still working), though a finished task is held.
    let n2 = slow(&mut server, 1_200);
    assert_eq!(
        entry(&server, &expired).lost,
        Some((1_020, TaskLoss::Expired))
    );
    assert_eq!(entry(&server, &finished).lost, None);

    // Last, the oldest finished task is evicted.
    let n3 = slow(&mut server, 1_300);
    assert_eq!(
        entry(&server, &finished).lost,
        Some((1_300, TaskLoss::Evicted))
    );
    for id in [&n1, &n2, &n3] {
        assert_eq!(entry(&server, id).lost, None);
    }
    assert_eq!(server.tasks_held().records, 3);

    // The evicted id answers once, saying why, and the ledger has the miss; then it is
    // unknown.
    let r = get(&mut server, &finished, 1_310);
    assert_eq!(code(&r), Some(-32602));
    let text = message(&r);
    assert!(
        text.contains("Task not found") && text.contains("evicted") && text.contains("at most 3"),
        "{text}"
    );
    assert_eq!(entry(&server, &finished).misses.len(), 1);
    let r = get(&mut server, &finished, 1_320);
    assert_eq!(message(&r), format!("Task not found: {finished}"));
    assert_eq!(entry(&server, &finished).misses.len(), 1);
    // The purged one's tombstone records its miss too.
    let r = get(&mut server, &gone, 1_330);
    assert_eq!(message(&r), format!("Task not found: {gone}"));
    assert_eq!(entry(&server, &gone).misses.len(), 1);
}

#[test]
fn when_every_task_is_working_a_task_call_gets_429_naming_the_limit() {
    let mut server = bounded(2, ServerKnobs::default());
    let a = slow(&mut server, 0);
    slow(&mut server, 10);
    let r = call(&mut server, 100, 1_000, 20);
    assert_eq!(r.status, 429);
    assert_eq!(body(&r)["id"], 1, "the error answers the request");
    assert_eq!(code(&r), Some(-32600));
    let text = message(&r);
    assert!(
        text.contains("task store is full") && text.contains("at most 2 tasks"),
        "{text}"
    );
    // Refused before anything started: no task, no job.
    assert_eq!(server.ledger().tasks.len(), 2);
    assert_eq!(server.ledger().jobs.len(), 2);
    // Once one is cancelled (so finished), a new task takes its room.
    let mut params = json!({"taskId": a});
    params["_meta"] = task_meta();
    answer_at(&mut server, modern_post(3, "tasks/cancel", params), 30);
    let r = call(&mut server, 100, 1_000, 40);
    assert_eq!(r.status, 200);
    assert_eq!(entry(&server, &a).lost, Some((40, TaskLoss::Evicted)));
}

#[test]
fn a_gone_record_is_forgotten_once_it_answered_its_first_miss() {
    let knobs = ServerKnobs {
        task_ttl: PositiveDurationMs::new(100),
        task_purge_delay: Some(DurationMs(0)),
        ..ServerKnobs::default()
    };
    let mut server = bounded(10, knobs.clone());
    let id = quick(&mut server, 0);
    assert_eq!(code(&get(&mut server, &id, 200)), Some(-32602));
    assert_eq!(entry(&server, &id).lost, Some((100, TaskLoss::Expired)));
    assert_eq!(entry(&server, &id).misses.len(), 1);
    assert_eq!(server.tasks_held().records, 0, "forgotten");
    assert_eq!(code(&get(&mut server, &id, 300)), Some(-32602));
    assert_eq!(entry(&server, &id).misses.len(), 1);

    // Unbounded, the record stays and every miss is recorded.
    let mut server = self::server(knobs);
    let id = quick(&mut server, 0);
    get(&mut server, &id, 200);
    get(&mut server, &id, 300);
    assert_eq!(entry(&server, &id).misses.len(), 2);
    assert_eq!(server.tasks_held().records, 1);
}

#[test]
fn with_default_limits_no_task_is_ever_given_up() {
    let mut server = server(ServerKnobs::default());
    assert_eq!(server.limits().max_tasks, None);
    for i in 0..50u64 {
        slow(&mut server, i);
    }
    assert_eq!(server.tasks_held().records, 50);
    assert!(server.ledger().tasks.iter().all(|t| t.lost.is_none()));
}

#[test]
fn the_ledger_window_trims_task_entries_and_a_task_that_outlives_its_entry_still_answers() {
    let mut server = bounded(5, ServerKnobs::default());
    server.bound_ledger(10);
    // Working for 5 s: never evicted while 100 quick tasks come and go around it.
    let long = create(&mut server, 5, 1_000, 0);
    for i in 1..=100u64 {
        quick(&mut server, i * 20);
        server.trim_ledger();
        assert!(server.ledger().tasks.len() <= 20, "{i}");
    }
    let ledger = server.ledger();
    assert!(ledger.tasks_base > 0);
    assert_eq!(ledger.tasks_end(), 101, "indexes keep counting");
    assert!(
        ledger.kept_task(0).is_none(),
        "the long task's entry was trimmed"
    );
    let text = serde_json::to_string(ledger).unwrap();
    assert!(text.contains("\"tasks_base\""), "written once set");

    let r = get(&mut server, &long, 2_500);
    let result = &body(&r)["result"];
    assert_eq!(result["status"], "working");
    assert_eq!(result["createdAt"], "1970-01-01T00:00:00.000Z");
    let r = get(&mut server, &long, 5_000);
    let result = &body(&r)["result"];
    assert_eq!(result["status"], "completed");
    assert_eq!(result["lastUpdatedAt"], "1970-01-01T00:00:05.000Z");
    assert_eq!(
        result["result"]["content"][0]["text"],
        "long_job finished 5 steps"
    );

    // An untrimmed ledger writes no base.
    let text = serde_json::to_string(&faultline_model::Ledger::default()).unwrap();
    assert!(!text.contains("tasks_base") && !text.contains("handles_base"));
}
