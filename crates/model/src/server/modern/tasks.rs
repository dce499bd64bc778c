//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): durable work on the
//! stateless path. A 2026-07-28 stream cannot be resumed, so work that must outlive a
//! connection goes through a task: the client declares the extension in the request's
//! `_meta` client capabilities, a job tool answers at once with a `CreateTaskResult`
//! (`resultType: "task"`, a task id, `ttlMs`, `pollIntervalMs`), the work runs as a job no
//! stream carries, and the client polls `tasks/get`, which inlines the result once the task
//! is `completed` (there is no `tasks/result` and no `tasks/list`: both answer -32601).
//! <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2663-tasks-extension.md>
//!
//! A task id can vanish, and the work with it; that is what the `lost_task` verdict looks
//! for. The knobs and the fault that make it vanish:
//!
//! - `task_ttl` (`ttlMs`, from creation) and `task_purge_delay`: an expired task is
//!   reported `failed` for the purge delay, then purged (with no delay it goes at expiry);
//!   expiry is read when the task is asked about, from the recorded times;
//! - `task_persistence` on a restart: `Everything` keeps every record and runs an
//!   interrupted task's work again, `TerminalOnly` keeps the records and reports an
//!   interrupted task `failed`, `Nothing` forgets every id;
//! - the `PurgeTasks` fault ([`Server::purge_tasks`]): the store is wiped, in-flight work
//!   stops.
//!
//! A vanished or never-known id gets JSON-RPC -32602 "Task not found"; a request that did not
//! declare the extension gets -32021. Task ids come from their own ChaCha stream (the seed
//! xor [`TASK_ID_SALT`]), so minting them moves no session id.
//!
//! A simulation keeps every id ever minted. A long-lived server bounds the store
//! ([`crate::Limits::max_tasks`], [`super::task_bounds`]): a new task takes the room of a
//! gone record, an expired one or the oldest finished one (evicted), and a record keeps
//! what it needs to answer (its times, its request id, how it ended) so that the ledger
//! window may trim its entry first.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;
use serde_json::{Value, json};

use crate::http::Output;
use crate::ids::JobId;
use crate::jsonrpc::{self, INVALID_PARAMS};
use crate::knobs::TaskPersistence;
use crate::ledger::{JobEnd, StreamKind, TaskEntry, TaskLoss, TaskMiss, TaskStatus};
use crate::rpc_answer::RpcAnswer;
use crate::rpc_params::RpcParams;
use crate::tools;

use super::super::Server;
use super::super::jobs::JobSpec;
use super::effects::PlaceOrder;
use super::errors::ModernRejection;
use super::meta::RequestMeta;
use super::request_stream::ModernJob;
use super::task_fixtures::{TaskFixture, TaskOutcome};
use super::tombstones::{Tombstone, Tombstones};

/// The extension's identifier, in `capabilities.extensions` and in a request's
/// `clientCapabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Xored into the server's seed for the task-id stream.
pub const TASK_ID_SALT: u64 = 0x7a5c_2663_0000_0001;

/// Why an interrupted task failed, as its `error.message` says.
const INTERRUPTED: &str = "the task's work was interrupted (the server restarted or its replica went down): re-issue the call";
const EXPIRED: &str = "Task has expired";

/// The task store: every id minted, live or gone (the ledger keeps the history; this
/// keeps what the server needs to answer and to re-run work). Under
/// [`crate::Limits::max_tasks`] it holds at most that many records, and tombstones of as
/// many whose room was taken.
#[derive(Debug)]
pub struct TaskStore {
    rng: ChaCha8Rng,
    pub(super) by_id: BTreeMap<String, TaskRecord>,
    pub(super) by_job: BTreeMap<JobId, String>,
    pub(super) tombstones: Tombstones<TaskLoss>,
}

#[derive(Debug)]
pub(super) struct TaskRecord {
    /// Index of its entry in `Ledger::tasks`, counting across trims (`tasks_base`).
    pub(super) entry: u32,
    /// How its record vanished (its ledger entry says when): the id answers "Task not
    /// found" from then on.
    pub(super) lost: Option<TaskLoss>,
    /// What `tasks/get` reports, kept here too so that the ledger window may trim the
    /// entry of a task that still answers.
    request_id: Value,
    pub(super) created_ms: u64,
    pub(super) ttl_ms: Option<u64>,
    pub(super) ended: Option<(u64, TaskStatus)>,
    /// What the work is, to run it again after a restart.
    params: Value,
    tool: String,
    steps: u32,
    interval_ms: u64,
    order: Option<(String, u32)>,
    /// Set when a restart or a replica crash killed its work.
    interrupted: bool,
    /// A conformance fixture's ending and the input it waits for
    /// ([`super::task_fixtures`]); `None` for the other tools.
    fixture: Option<TaskFixture>,
}

impl TaskStore {
    pub fn new(seed: u64) -> Self {
        TaskStore {
            rng: ChaCha8Rng::seed_from_u64(seed ^ TASK_ID_SALT),
            by_id: BTreeMap::new(),
            by_job: BTreeMap::new(),
            tombstones: Tombstones::new(),
        }
    }

    /// Whether `job` does a task's work (it writes to no one: its result is read with
    /// `tasks/get`).
    pub fn owns(&self, job: JobId) -> bool {
        self.by_job.contains_key(&job)
    }
}

impl TaskRecord {
    /// When its TTL and the purge delay after it run out, if it has a TTL.
    pub(super) fn purge_at(&self, purge_delay_ms: u64) -> Option<u64> {
        self.ttl_ms.map(|ttl| {
            self.created_ms
                .saturating_add(ttl)
                .saturating_add(purge_delay_ms)
        })
    }
}

/// Whether the request declared the tasks extension in its client capabilities.
pub fn declares_tasks(meta: &RequestMeta) -> bool {
    meta.client_capabilities
        .get("extensions")
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some()
}

/// What a task id names right now.
enum Lookup {
    Live(String),
    Gone(String),
    /// Its room went to a newer task ([`super::tombstones`]); answered once.
    Buried(Tombstone<TaskLoss>),
    Unknown,
}

impl Server {
    /// Creates a task for a job tool call (request `id`): the work starts as a job, and the
    /// answer is the flat `CreateTaskResult`. The record exists before the answer leaves,
    /// so a `tasks/get` right after it resolves (SEP-2663's consistency rule).
    pub(in crate::server) fn create_task(
        &mut self,
        id: &Value,
        params: &RpcParams,
        spec: JobSpec,
        order: Option<PlaceOrder>,
    ) -> RpcAnswer {
        self.create_task_with(id, params, spec, order, None)
    }

    /// [`Server::create_task`] for a conformance fixture: its work starts only once no
    /// input is pending.
    pub(in crate::server) fn create_task_with(
        &mut self,
        id: &Value,
        params: &RpcParams,
        spec: JobSpec,
        order: Option<PlaceOrder>,
        fixture: Option<TaskFixture>,
    ) -> RpcAnswer {
        let waits = fixture.as_ref().is_some_and(|f| !f.pending.is_empty());
        let task_id = crate::hex::hex_id("task-", &[self.modern.tasks.rng.next_u64()]);
        let now = self.now_ms;
        let entry = self.ledger.tasks_end();
        let ttl_ms = self.knobs.task_ttl.map(|t| t.ms());
        self.ledger.tasks.push(TaskEntry {
            task_id: task_id.clone(),
            tool: spec.tool.clone(),
            request_id: id.clone(),
            created_ms: now,
            ttl_ms,
            jobs: Vec::new(),
            ended: None,
            lost: None,
            misses: Vec::new(),
        });
        // The record keeps the params as JSON; no stream reads a task's work: no progress
        // is asked for.
        let mut params = params.to_value();
        if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
            meta.remove("progressToken");
        }
        self.modern.tasks.by_id.insert(
            task_id.clone(),
            TaskRecord {
                entry,
                lost: None,
                request_id: id.clone(),
                created_ms: now,
                ttl_ms,
                ended: None,
                params,
                tool: spec.tool,
                steps: spec.steps,
                interval_ms: spec.interval_ms,
                order: order.map(|o| (o.order, o.commit_step)),
                interrupted: false,
                fixture,
            },
        );
        if !waits {
            self.start_task_job(&task_id);
        }
        let mut fields = self.task_fields(&task_id);
        fields.created = true;
        RpcAnswer::task(id, fields)
    }

    /// Starts (or, after a restart, starts again) the job doing task `task_id`'s work, on a
    /// stream of the stateless scope that no connection reads.
    fn start_task_job(&mut self, task_id: &str) {
        let scope = self.stateless_scope();
        let stream = self.open_stream(scope, StreamKind::Request);
        self.ledger.stream_mut(stream).modern = true;
        let job = JobId(self.ledger.jobs_end());
        let r = &self.modern.tasks.by_id[task_id];
        let (entry, order) = (r.entry, r.order.clone());
        let spec = JobSpec {
            tool: r.tool.clone(),
            steps: r.steps,
            interval_ms: r.interval_ms,
        };
        let params = r.params.clone();
        let request_id = r.request_id.clone();
        self.start_job(scope, stream, &request_id, &params, spec);
        self.modern.jobs.insert(
            job,
            ModernJob {
                stream,
                order,
                committed: false,
                cut_ms: None,
            },
        );
        self.modern.tasks.by_job.insert(job, task_id.to_string());
        if let Some(e) = self.ledger.kept_task_mut(entry) {
            e.jobs.push(job);
        }
    }

    /// Records that task `task_id` reached `ended` (or, with `None`, runs again), in its
    /// record and in its ledger entry.
    fn set_task_end(&mut self, task_id: &str, ended: Option<(u64, TaskStatus)>) {
        let Some(r) = self.modern.tasks.by_id.get_mut(task_id) else {
            return;
        };
        r.ended = ended;
        if let Some(e) = self.ledger.kept_task_mut(r.entry) {
            e.ended = ended;
        }
    }

    /// Records that `r`'s record vanished at `at` by `how`.
    pub(super) fn lose_task(
        ledger: &mut crate::ledger::Ledger,
        r: &mut TaskRecord,
        at: u64,
        how: TaskLoss,
    ) {
        r.lost = Some(how);
        if let Some(e) = ledger.kept_task_mut(r.entry) {
            e.lost = Some((at, how));
        }
    }

    /// A job ended: if it did a task's work, the task reaches its terminal status.
    pub(in crate::server) fn task_job_ended(&mut self, job: JobId, at: u64, how: JobEnd) {
        let Some(task_id) = self.modern.tasks.by_job.remove(&job) else {
            return;
        };
        let Some(r) = self.modern.tasks.by_id.get_mut(&task_id) else {
            return;
        };
        if r.lost.is_some() {
            return;
        }
        let protocol_error = matches!(
            r.fixture.as_ref().map(|f| &f.outcome),
            Some(TaskOutcome::ProtocolError(_))
        );
        let status = match how {
            JobEnd::Finished if protocol_error => TaskStatus::Failed,
            JobEnd::Finished => TaskStatus::Completed,
            JobEnd::Cancelled => TaskStatus::Cancelled,
            JobEnd::Killed | JobEnd::StreamClosed => {
                r.interrupted = true;
                TaskStatus::Failed
            }
        };
        self.set_task_end(&task_id, Some((at, status)));
    }

    /// A restart: the task store keeps what `task_persistence` says. Called after every
    /// job died (so interrupted tasks are already `failed`).
    pub(in crate::server) fn restart_tasks(&mut self, now: u64) {
        match self.knobs.task_persistence {
            TaskPersistence::Nothing => {
                for r in self.modern.tasks.by_id.values_mut() {
                    if r.lost.is_none() {
                        Self::lose_task(&mut self.ledger, r, now, TaskLoss::Restart);
                    }
                }
            }
            TaskPersistence::TerminalOnly => {}
            TaskPersistence::Everything => {
                let rerun: Vec<String> = self
                    .modern
                    .tasks
                    .by_id
                    .iter()
                    .filter(|(_, r)| {
                        r.lost.is_none()
                            && r.interrupted
                            && r.ended == Some((now, TaskStatus::Failed))
                    })
                    .map(|(id, _)| id.clone())
                    .collect();
                for task_id in rerun {
                    let r = self.modern.tasks.by_id.get_mut(&task_id).expect("task");
                    r.interrupted = false;
                    self.set_task_end(&task_id, None);
                    self.start_task_job(&task_id);
                }
            }
        }
    }

    /// The `PurgeTasks` fault: every task record is deleted now; work still running stops.
    pub fn purge_tasks(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        self.advance(now_ms, out);
        let now = self.now_ms;
        let mut jobs = Vec::new();
        for r in self.modern.tasks.by_id.values_mut() {
            if r.lost.is_none() {
                Self::lose_task(&mut self.ledger, r, now, TaskLoss::Purged);
            }
        }
        for (&job, _) in self.modern.tasks.by_job.iter() {
            jobs.push(job);
        }
        for job in jobs {
            self.end_job(job, now, JobEnd::Killed, out);
        }
    }

    /// Finds `task_id`, purging it first if its TTL and purge delay have run out.
    fn lookup_task(&mut self, task_id: &str) -> Lookup {
        let now = self.now_ms;
        let purge_delay = self.knobs.task_purge_delay.map_or(0, |d| d.ms());
        let Some(r) = self.modern.tasks.by_id.get_mut(task_id) else {
            return match self.modern.tasks.tombstones.take(task_id) {
                Some(stone) => Lookup::Buried(stone),
                None => Lookup::Unknown,
            };
        };
        if r.lost.is_none()
            && let Some(purge_at) = r.purge_at(purge_delay).filter(|&t| t <= now)
        {
            Self::lose_task(&mut self.ledger, r, purge_at, TaskLoss::Expired);
        }
        if r.lost.is_some() {
            Lookup::Gone(task_id.to_string())
        } else {
            Lookup::Live(task_id.to_string())
        }
    }

    /// `tasks/get`, `tasks/cancel` and `tasks/update`, after the common checks.
    pub(in crate::server) fn task_method(
        &mut self,
        conn: crate::ids::ConnId,
        id: &Value,
        method: &str,
        params: &Value,
        meta: &RequestMeta,
    ) -> Result<RpcAnswer, ModernRejection> {
        if !self.knobs.tasks_offered {
            return Err(ModernRejection::MethodNotFound(method.to_string()));
        }
        if !declares_tasks(meta) {
            return Err(ModernRejection::MissingExtension(TASKS_EXTENSION));
        }
        let Some(task_id) = params.get("taskId").and_then(Value::as_str) else {
            return Ok(RpcAnswer::error(
                id,
                INVALID_PARAMS,
                "Invalid params: taskId (a string) is required",
            ));
        };
        let live = match self.lookup_task(task_id) {
            Lookup::Live(task_id) => task_id,
            Lookup::Gone(task_id) => {
                let entry = self.modern.tasks.by_id[&task_id].entry;
                self.note_task_miss(entry, conn, id, method);
                if self.limits.max_tasks.is_some() {
                    // It answered its "Task not found" (and the ledger has the miss): a
                    // bounded store forgets it now.
                    self.modern.tasks.by_id.remove(&task_id);
                }
                return Ok(not_found(id, &task_id, None));
            }
            Lookup::Buried(stone) => {
                self.note_task_miss(stone.entry, conn, id, method);
                let evicted = (stone.loss == TaskLoss::Evicted)
                    .then_some(self.limits.max_tasks)
                    .flatten();
                return Ok(not_found(id, task_id, evicted));
            }
            Lookup::Unknown => return Ok(not_found(id, task_id, None)),
        };
        match method {
            "tasks/get" => Ok(RpcAnswer::task(id, self.task_fields(&live))),
            "tasks/cancel" => {
                let running: Vec<JobId> = self
                    .modern
                    .tasks
                    .by_job
                    .iter()
                    .filter(|(_, t)| **t == live)
                    .map(|(&j, _)| j)
                    .collect();
                let now = self.now_ms;
                let mut out = Vec::new();
                for job in running {
                    self.end_job(job, now, JobEnd::Cancelled, &mut out);
                }
                debug_assert!(out.is_empty(), "a task's stream has no reader");
                self.cancel_waiting_task(&live);
                Ok(RpcAnswer::complete(id, json!({})))
            }
            _ => self.update_task(id, &live, params),
        }
    }

    /// Records in task entry `entry` that `method` (request `id`) missed it.
    fn note_task_miss(&mut self, entry: u32, conn: crate::ids::ConnId, id: &Value, method: &str) {
        let at_ms = self.now_ms;
        if let Some(e) = self.ledger.kept_task_mut(entry) {
            e.misses.push(TaskMiss {
                at_ms,
                conn,
                method: method.to_string(),
                request_id: id.clone(),
            });
        }
    }

    /// A task waiting for input has no job to cancel: it is cancelled here.
    fn cancel_waiting_task(&mut self, task_id: &str) {
        let now = self.now_ms;
        let Some(r) = self.modern.tasks.by_id.get_mut(task_id) else {
            return;
        };
        let Some(fixture) = r.fixture.as_mut().filter(|f| !f.pending.is_empty()) else {
            return;
        };
        fixture.pending.clear();
        if r.ended.is_none() {
            self.set_task_end(task_id, Some((now, TaskStatus::Cancelled)));
        }
    }

    /// `tasks/update`: the responses in `params.inputResponses` answer the pending input
    /// requests they name (other keys are ignored); once none is pending the task's work
    /// starts (a task with no work completes at once). Acknowledged with an empty
    /// `resultType: "complete"`; the task's state is read with `tasks/get`.
    fn update_task(
        &mut self,
        id: &Value,
        task_id: &str,
        params: &Value,
    ) -> Result<RpcAnswer, ModernRejection> {
        let now = self.now_ms;
        let r = self
            .modern
            .tasks
            .by_id
            .get_mut(task_id)
            .expect("a live task");
        let Some(fixture) = r.fixture.as_mut().filter(|f| !f.pending.is_empty()) else {
            return Ok(RpcAnswer::error(
                id,
                INVALID_PARAMS,
                format!("Invalid params: task {task_id} is not waiting for input"),
            ));
        };
        let Some(responses) = params.get("inputResponses").and_then(Value::as_object) else {
            return Ok(RpcAnswer::error(
                id,
                INVALID_PARAMS,
                "Invalid params: inputResponses (an object) is required",
            ));
        };
        for (key, response) in responses {
            if response.is_object() {
                fixture.pending.remove(key);
            }
        }
        if fixture.pending.is_empty() {
            if r.steps == 0 {
                self.set_task_end(task_id, Some((now, TaskStatus::Completed)));
            } else {
                self.start_task_job(task_id);
            }
        }
        Ok(RpcAnswer::complete(id, json!({})))
    }

    /// The task's fields as `tasks/get` reports them (`CreateTaskResult` has the same
    /// without `result`/`error`).
    fn task_fields(&self, task_id: &str) -> TaskFields {
        let r = &self.modern.tasks.by_id[task_id];
        let expired = r
            .ttl_ms
            .is_some_and(|ttl| r.created_ms.saturating_add(ttl) <= self.now_ms);
        let pending = r
            .fixture
            .as_ref()
            .map(|f| &f.pending)
            .filter(|p| !p.is_empty() && r.ended.is_none() && !expired);
        let (status, updated_ms) = match r.ended {
            _ if expired => (TaskStatus::Failed, r.created_ms + r.ttl_ms.unwrap_or(0)),
            Some((at, status)) => (status, at),
            None => (TaskStatus::Working, r.created_ms),
        };
        let mut fields = TaskFields {
            task_id: task_id.to_string(),
            status: status.wire(),
            created_ms: r.created_ms,
            updated_ms,
            ttl_ms: r.ttl_ms,
            poll_interval_ms: self.knobs.task_poll_interval.ms(),
            created: false,
            result: None,
            error: None,
            input_requests: None,
        };
        let outcome = r.fixture.as_ref().map(|f| &f.outcome);
        match status {
            TaskStatus::Completed => {
                fields.result = Some(outcome.and_then(TaskOutcome::result).unwrap_or_else(|| {
                    tools::text_result(&format!("{} finished {} steps", r.tool, r.steps))
                }));
            }
            TaskStatus::Failed => {
                let message = match outcome {
                    _ if expired => EXPIRED,
                    Some(TaskOutcome::ProtocolError(message)) if !r.interrupted => message,
                    _ => INTERRUPTED,
                };
                fields.error = Some(json!({"code": jsonrpc::INTERNAL_ERROR, "message": message}));
            }
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
        if let Some(pending) = pending {
            fields.status = "input_required";
            fields.input_requests = Some(json!(pending));
        }
        fields
    }
}

/// A task's fields as `tasks/get` reports them (and, marked `resultType: "task"`,
/// `CreateTaskResult`), typed: a polling client reads its `status` (and once, its id and
/// poll interval), so the two timestamps and the maps are written only when JSON is
/// needed. Polls are most of a 2026-07-28 task's requests.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskFields {
    pub task_id: String,
    /// `status`: a [`TaskStatus`]'s wire word, or `input_required`.
    pub status: &'static str,
    /// `createdAt` and `lastUpdatedAt`, in virtual ms.
    pub created_ms: u64,
    pub updated_ms: u64,
    /// `ttlMs` (`null` when `None`).
    pub ttl_ms: Option<u64>,
    pub poll_interval_ms: u64,
    /// `resultType: "task"`: the answer that created the task.
    pub created: bool,
    /// `result` (a completed task), `error` (a failed one), `inputRequests` (one waiting
    /// for input).
    pub result: Option<Value>,
    pub error: Option<Value>,
    pub input_requests: Option<Value>,
}

impl TaskFields {
    /// The fields as JSON, the object `tasks/get` answers with (before `complete`).
    pub(crate) fn to_value(&self) -> Value {
        let mut fields = serde_json::Map::new();
        fields.insert("taskId".to_string(), Value::from(self.task_id.as_str()));
        fields.insert("status".to_string(), Value::from(self.status));
        fields.insert(
            "createdAt".to_string(),
            Value::from(iso_8601(self.created_ms)),
        );
        fields.insert(
            "lastUpdatedAt".to_string(),
            Value::from(iso_8601(self.updated_ms)),
        );
        fields.insert("ttlMs".to_string(), Value::from(self.ttl_ms));
        fields.insert(
            "pollIntervalMs".to_string(),
            Value::from(self.poll_interval_ms),
        );
        for (name, value) in [
            ("result", &self.result),
            ("error", &self.error),
            ("inputRequests", &self.input_requests),
        ] {
            if let Some(value) = value {
                fields.insert(name.to_string(), value.clone());
            }
        }
        if self.created {
            fields.insert("resultType".to_string(), Value::from("task"));
        }
        Value::Object(fields)
    }

    /// The member `name` of [`to_value`](Self::to_value), built alone (`None` for
    /// `resultType` of a poll's answer, which `complete` marks).
    pub(crate) fn member(&self, name: &str) -> Option<Value> {
        Some(match name {
            "taskId" => Value::from(self.task_id.as_str()),
            "status" => Value::from(self.status),
            "ttlMs" => Value::from(self.ttl_ms),
            "pollIntervalMs" => Value::from(self.poll_interval_ms),
            "resultType" if self.created => Value::from("task"),
            "resultType" => return None,
            "result" => self.result.clone()?,
            "error" => self.error.clone()?,
            "inputRequests" => self.input_requests.clone()?,
            "createdAt" => Value::from(iso_8601(self.created_ms)),
            "lastUpdatedAt" => Value::from(iso_8601(self.updated_ms)),
            _ => return None,
        })
    }
}

/// The -32602 for an id the server does not know; `evicted` (the store's bound) when its
/// record was evicted to make room, which the message then says.
fn not_found(id: &Value, task_id: &str, evicted: Option<u32>) -> RpcAnswer {
    let shown: String = task_id.chars().take(64).collect();
    let message = match evicted {
        Some(max) => format!(
            "Task not found: {shown} (evicted after it finished: the server holds at most {max} tasks)"
        ),
        None => format!("Task not found: {shown}"),
    };
    RpcAnswer::error(id, INVALID_PARAMS, message)
}

/// Virtual milliseconds as a UTC civil date and time: (year, month, day, hour, minute,
/// second, millisecond). The model's clock starts at the epoch.
fn civil(ms: u64) -> (i64, i64, i64, u64, u64, u64, u64) {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to a civil date (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        month,
        day,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000,
    )
}

/// Virtual milliseconds as an ISO-8601 UTC timestamp: `createdAt` and `lastUpdatedAt`
/// must be ISO-8601 strings.
pub fn iso_8601(ms: u64) -> String {
    let (year, month, day, hour, minute, second, milli) = civil(ms);
    if !(0..=9999).contains(&year) {
        return format!(
            "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z"
        );
    }
    // Every task answer carries two of these: written digit by digit into a fixed
    // buffer, the bytes `format!` writes for a four-digit year (a tenth of its cost).
    let mut text = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut n: u64| {
        for i in (at..at + width).rev() {
            text[i] = b'0' + (n % 10) as u8;
            n /= 10;
        }
    };
    put(0, 4, year as u64);
    put(5, 2, month as u64);
    put(8, 2, day as u64);
    put(11, 2, hour);
    put(14, 2, minute);
    put(17, 2, second);
    put(20, 3, milli);
    String::from_utf8(text.to_vec()).expect("ASCII digits")
}

#[cfg(test)]
mod tests {
    use super::{civil, iso_8601};

    #[test]
    fn iso_8601_of_virtual_ms() {
        assert_eq!(iso_8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_8601(2_500), "1970-01-01T00:00:02.500Z");
        assert_eq!(iso_8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    /// The digit-by-digit spelling is the one `format!` gives, across days, months, years
    /// and leap days, and past the four-digit years it leaves to `format!`.
    #[test]
    fn iso_8601_spells_what_format_would() {
        let reference = |ms: u64| {
            let (year, month, day, hour, minute, second, milli) = civil(ms);
            format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z")
        };
        let mut ms = 0u64;
        while ms < 400_000_000_000_000 {
            assert_eq!(iso_8601(ms), reference(ms), "{ms}");
            ms = ms * 3 / 2 + 7_919;
        }
        for ms in [
            0,
            999,
            86_399_999,
            253_402_300_799_999,
            253_402_300_800_000,
            u64::MAX,
        ] {
            assert_eq!(iso_8601(ms), reference(ms), "{ms}");
        }
    }
}
