//! Tool jobs: a long `tools/call` stepping on the virtual clock, writing progress and its
//! result to a stream.
//!
//! A job belongs to its session, not to the connection that started it: it keeps producing
//! after the client goes away, and when its stream is forgotten it is adopted by the
//! standalone stream. That is what turns a dropped connection into a resumption question.

use std::borrow::Cow;

use serde_json::Value;

use crate::rpc_params::ParamMembers;

use crate::http::Output;
use crate::ids::{JobId, SessionKey, StreamId};
use crate::ledger::{JobEnd, JobEntry, Payload, StreamKind};
use crate::route::ReplicaId;

/// What a `tools/call` asked to run: the tool, and how many steps how far apart.
pub(super) struct JobSpec {
    pub(super) tool: String,
    pub(super) steps: u32,
    pub(super) interval_ms: u64,
}

impl JobSpec {
    /// The job a `tools/call` with `params` asked for (`ToolCall::Job`'s steps and
    /// interval), named after its tool: the legacy and the 2026-07-28 dispatch both start
    /// jobs this way.
    pub(super) fn of_call<P: ParamMembers + ?Sized>(
        params: &P,
        steps: u32,
        interval_ms: u64,
    ) -> JobSpec {
        JobSpec {
            tool: params.tool_name().unwrap_or("long_job").to_string(),
            steps,
            interval_ms,
        }
    }
}

use super::Server;

impl Server {
    /// Starts the job a `tools/call` (request `id`, `params`) asked for, writing to `stream`;
    /// its first step is due one interval from now.
    pub(super) fn start_job<P: ParamMembers + ?Sized>(
        &mut self,
        key: SessionKey,
        stream: StreamId,
        id: &Value,
        params: &P,
        spec: JobSpec,
    ) {
        let JobSpec {
            tool,
            steps,
            interval_ms,
        } = spec;
        let job = JobId(self.ledger.jobs_end());
        let progress_token = params.progress_token().map(Cow::into_owned);
        let idempotency_key = params.idempotency_key().map(str::to_string);
        let generation = self.sessions.get(key).map_or(1, |s| s.generation);
        self.ledger.jobs.push(JobEntry {
            session: key,
            generation,
            tool,
            request_id: id.clone(),
            progress_token: progress_token.clone(),
            idempotency_key,
            steps,
            started_ms: self.now_ms,
            ended: None,
        });
        self.jobs.insert(
            job,
            Job {
                session: key,
                replica: self.serving.replica,
                stream,
                step: 0,
                total: steps,
                interval_ms,
                progress: progress_token.is_some(),
                request_id: id.clone(),
                turn_cost: turn_cost(progress_token.as_ref()),
            },
        );
        if let Some(log) = self.log.get_mut(stream) {
            log.open_jobs.push(job);
        }
        self.job_due
            .insert((self.now_ms.saturating_add(interval_ms), job));
    }

    /// True when some job's last step is due at or before `at_ms`: a driver that runs the
    /// clock to there answers a call its client waits on (the result, or the job's end).
    pub fn job_ends_by(&self, at_ms: u64) -> bool {
        self.job_due
            .iter()
            .take_while(|&(t, _)| t <= at_ms)
            .any(|(_, job)| self.jobs.get(&job).is_some_and(|j| j.step + 1 >= j.total))
    }

    /// `notifications/cancelled`: ends the session's job for that request, if it runs.
    pub(super) fn cancel(
        &mut self,
        key: SessionKey,
        request_id: Option<&Value>,
        out: &mut Vec<Output>,
    ) {
        let Some(request_id) = request_id else {
            return;
        };
        let found = self
            .jobs
            .iter()
            .find(|(_, j)| j.session == key && &j.request_id == request_id)
            .map(|(&id, _)| id);
        if let Some(job) = found {
            let now = self.now_ms;
            self.end_job(job, now, JobEnd::Cancelled, out);
        }
    }

    /// Where a job's output goes: its own stream, or, once the log has forgotten that
    /// stream, the session's standalone stream (created detached if need be). This is the
    /// path by which a fresh stream "adopts" an orphaned call in Behavior A.
    fn job_stream(&mut self, job: JobId) -> StreamId {
        let (stream, session) = {
            let j = &self.jobs[&job];
            (j.stream, j.session)
        };
        if self.log.get(stream).is_some() {
            return stream;
        }
        let target = self.standalone_stream(session);
        self.jobs.get_mut(&job).expect("job").stream = target;
        if let Some(log) = self.log.get_mut(target) {
            log.open_jobs.push(job);
        }
        target
    }

    /// Runs one step: a progress event (if the client asked for progress), or the result
    /// and the end of the job.
    pub(super) fn step_job(&mut self, job: JobId, at: u64, out: &mut Vec<Output>) {
        self.now_ms = self.now_ms.max(at);
        let Some(j) = self.jobs.get(&job) else {
            return;
        };
        let (step, total, progress, interval) = (j.step, j.total, j.progress, j.interval_ms);
        let stream = self.job_stream(job);
        if step < total {
            let next = step + 1;
            // On 2026-07-28: a commit due at this step, and whether the stream was cut.
            let plan = self.modern_step(job, next);
            if progress && plan.emit {
                self.emit(
                    stream,
                    Payload::Progress {
                        job,
                        step: next,
                        total,
                    },
                    out,
                );
            }
            self.jobs.get_mut(&job).expect("job").step = next;
            if plan.stop {
                self.end_job(job, at, JobEnd::StreamClosed, out);
                return;
            }
            if next < total {
                self.job_due.insert((at.saturating_add(interval), job));
                return;
            }
        }
        if let Some(how) = self.modern_end(job) {
            self.end_job(job, at, how, out);
            return;
        }
        self.emit(stream, Payload::ToolResult { job }, out);
        self.end_job(job, at, JobEnd::Finished, out);
    }

    /// Removes a job; a request stream with no job left writing to it is complete.
    pub(super) fn end_job(&mut self, job: JobId, at: u64, how: JobEnd, out: &mut Vec<Output>) {
        let Some(j) = self.jobs.remove(&job) else {
            return;
        };
        self.job_due.retain(|&(_, id)| id != job);
        self.ledger.job_mut(job).ended = Some((at, how));
        self.task_job_ended(job, at, how);
        self.modern.forget_job(job);
        if let Some(log) = self.log.get_mut(j.stream) {
            log.open_jobs.retain(|&id| id != job);
            if log.open_jobs.is_empty() && log.kind == StreamKind::Request {
                self.complete_stream(j.stream, out);
            }
        }
    }
}

/// A running tool call: where it writes, how far it got, when it steps next.
#[derive(Debug)]
pub(super) struct Job {
    pub(super) session: SessionKey,
    /// The replica of a fleet that runs it (the one that took the call; 0 for a single
    /// server): it dies with that replica.
    pub(super) replica: ReplicaId,
    stream: StreamId,
    step: u32,
    total: u32,
    interval_ms: u64,
    progress: bool,
    request_id: Value,
    /// What one of its steps takes of a turn's step budget (see [`turn_cost`]).
    pub(super) turn_cost: u32,
}

/// The rendered bytes one step of a turn's budget stands for: a progress notification
/// with a short token renders some 170.
const TURN_BYTES_PER_STEP: usize = 256;

/// What one step of a job takes of a turn's budget ([`crate::Limits::job_steps_per_turn`]):
/// 1, and one more per [`TURN_BYTES_PER_STEP`] of its progress token, which every progress
/// notification repeats. So a turn renders about as many bytes whatever the token, and
/// other clients wait no longer for the lock behind a job whose events are big (a 1 KiB
/// token made each turn five times longer). Only a driver with a turn budget (the live
/// server) sees it.
fn turn_cost(progress_token: Option<&Value>) -> u32 {
    let bytes = progress_token.map_or(0, super::request_budget::echo_bytes);
    u32::try_from(1 + bytes / TURN_BYTES_PER_STEP).unwrap_or(u32::MAX)
}

impl Job {
    /// Steps it has still to run.
    pub(super) fn steps_left(&self) -> u64 {
        u64::from(self.total.saturating_sub(self.step))
    }
}
