//! A 2026-07-28 request stream: a `tools/call` that runs as a job is answered with an SSE
//! stream carrying this request's notifications (progress), then its response, and nothing
//! else. There is no priming event, no `retry:` and no `id:`: the stream cannot be resumed,
//! so a client whose stream is cut has lost the call
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>;
//! SEP-2575: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2575-stateless-mcp.md>).
//!
//! In the ledger such a stream belongs to the **stateless scope**: one `SessionEntry`
//! (`stateless: true`) outside the session store, with no wire id, that never expires. Its
//! streams number their events from 1 on their own (`ProducedEvent.id` is the event's
//! ordinal within its stream), since no session counter exists to share.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::http::{HttpRequest, HttpResponse, Output};
use crate::ids::{ConnId, JobId, SessionKey, StreamId};
use crate::knobs::OnStreamCut;
use crate::ledger::{JobEnd, SessionEntry, StreamKind};
use crate::rpc_params::ParamMembers;

use super::super::Server;
use super::super::jobs::JobSpec;
use super::effects::PlaceOrder;
use super::handles::HandleStore;
use super::input_required::StateKey;
use super::tasks::TaskStore;

/// The server's 2026-07-28 state: the stateless scope's ledger key, the request streams
/// still producing, and what their jobs need beyond a 2025 job.
#[derive(Debug)]
pub struct ModernState {
    scope: Option<SessionKey>,
    streams: BTreeSet<StreamId>,
    pub(in crate::server) jobs: BTreeMap<JobId, ModernJob>,
    /// The listen streams still open, each with its index in the ledger's `listens` and
    /// when bytes last went out on it ([`super::keepalive`]).
    pub(in crate::server) listens: BTreeMap<StreamId, super::keepalive::OpenListen>,
    /// When each open listen stream's next keep-alive is due (empty unless
    /// `listen_keepalive` is set).
    pub(in crate::server) keepalive_due: crate::min_set::MinSet<(u64, StreamId)>,
    /// The current version of each list (by [`crate::ledger::ListName`]; 1 before any
    /// change): kept here, as the ledger's record of changes may be trimmed.
    pub(in crate::server) list_versions: [u32; 3],
    /// The tasks extension's store ([`super::tasks`]).
    pub(in crate::server) tasks: TaskStore,
    /// The state handles `create_basket` minted ([`super::handles`]).
    pub(in crate::server) handles: HandleStore,
    /// The key that seals MRTR `requestState` ([`super::input_required`]).
    pub(in crate::server) state_key: StateKey,
    /// What the next answer says about its request's era, recorded with it in
    /// `Ledger.era_answers` ([`super::era_answers`]).
    pub(in crate::server) era_note: Option<super::era_answers::EraNote>,
}

/// A job answering a 2026-07-28 request.
#[derive(Debug)]
pub(in crate::server) struct ModernJob {
    pub(in crate::server) stream: StreamId,
    /// The order `place_order` commits, and at which step; `None` for other tools.
    pub(in crate::server) order: Option<(String, u32)>,
    pub(in crate::server) committed: bool,
    /// When its stream was cut, if it was.
    pub(in crate::server) cut_ms: Option<u64>,
}

impl ModernState {
    /// `seed` is the server's: task ids come from a stream of their own derived from it.
    pub fn new(seed: u64) -> Self {
        ModernState {
            scope: None,
            streams: BTreeSet::new(),
            jobs: BTreeMap::new(),
            listens: BTreeMap::new(),
            keepalive_due: crate::min_set::MinSet::default(),
            list_versions: [1; 3],
            tasks: TaskStore::new(seed),
            handles: HandleStore::new(seed),
            state_key: StateKey::new(seed),
            era_note: None,
        }
    }

    /// Whether `stream` is a 2026-07-28 request stream still being written.
    pub fn is_request_stream(&self, stream: StreamId) -> bool {
        self.streams.contains(&stream)
    }

    /// Whether `stream` is an open 2026-07-28 listen stream.
    pub fn is_listen(&self, stream: StreamId) -> bool {
        self.listens.contains_key(&stream)
    }

    /// The stateless scope's ledger key, once a modern request stream has opened.
    pub fn scope(&self) -> Option<SessionKey> {
        self.scope
    }

    pub(in crate::server) fn job(&self, job: JobId) -> Option<&ModernJob> {
        self.jobs.get(&job)
    }

    pub(in crate::server) fn job_mut(&mut self, job: JobId) -> Option<&mut ModernJob> {
        self.jobs.get_mut(&job)
    }

    /// A job ended: its stream has no writer left.
    pub(in crate::server) fn forget_job(&mut self, job: JobId) {
        if let Some(j) = self.jobs.remove(&job) {
            self.streams.remove(&j.stream);
        }
    }
}

/// What a step of a job does on the 2026-07-28 path.
pub(in crate::server) struct StepPlan {
    /// Produce the step's event (false once the stream was cut: nobody can receive it).
    pub(in crate::server) emit: bool,
    /// Stop the job after this step (`FinishThroughCommit` once its commit is done).
    pub(in crate::server) stop: bool,
}

impl Server {
    /// The stateless scope's key, creating its ledger entry on first use.
    pub(in crate::server) fn stateless_scope(&mut self) -> SessionKey {
        if let Some(key) = self.modern.scope {
            return key;
        }
        let key = SessionKey(self.ledger.sessions_end());
        let now = self.now_ms;
        self.ledger.sessions.push(SessionEntry {
            wire_id: String::new(),
            created_ms: now,
            generations: vec![now],
            died: None,
            // Any replica serves the stateless scope: no one holds it.
            held_by: None,
            stateless: true,
        });
        self.modern.scope = Some(key);
        key
    }

    /// Answers request `id` with an SSE stream on `conn` and starts the job writing to it
    /// (`order`: `place_order`'s commit).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::server) fn serve_request_stream<P: ParamMembers + ?Sized>(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        id: &Value,
        params: &P,
        spec: JobSpec,
        order: Option<PlaceOrder>,
        out: &mut Vec<Output>,
    ) {
        let scope = self.stateless_scope();
        let stream = self.open_stream(scope, StreamKind::Request);
        self.ledger.stream_mut(stream).modern = true;
        self.modern.streams.insert(stream);
        let job = JobId(self.ledger.jobs_end());
        self.start_job(scope, stream, id, params, spec);
        self.modern.jobs.insert(
            job,
            ModernJob {
                stream,
                order: order.map(|o| (o.order, o.commit_step)),
                committed: false,
                cut_ms: None,
            },
        );
        self.respond(conn, request, rpc, HttpResponse::sse(stream), out);
        self.attach(conn, stream, out);
        // Steps due "now" (interval 0) run at once, in order.
        let now = self.now_ms;
        self.advance(now, out);
    }

    /// Called by a job about to run step `step` (1-based): commits `place_order`'s order
    /// at its commit step (before the step's progress), and says whether the step is
    /// produced and whether the job stops after it. A 2025 job emits and goes on.
    pub(in crate::server) fn modern_step(&mut self, job: JobId, step: u32) -> StepPlan {
        let on_cut = self.knobs.on_stream_cut;
        let Some(j) = self.modern.job_mut(job) else {
            return StepPlan {
                emit: true,
                stop: false,
            };
        };
        let mut commit = None;
        if let Some((order, at)) = &j.order
            && *at == step
            && !j.committed
        {
            j.committed = true;
            commit = Some((order.clone(), j.stream));
        }
        let cut = j.cut_ms.is_some();
        let stop = cut && on_cut == OnStreamCut::FinishThroughCommit && !j.commit_pending();
        if let Some((order, stream)) = commit {
            self.commit_effect(job, order, stream);
        }
        StepPlan { emit: !cut, stop }
    }

    /// How a job that reached its end finishes without producing its result: a cut one
    /// ends `StreamClosed`, a task's ends `Finished` (its result is read with `tasks/get`).
    pub(in crate::server) fn modern_end(&self, job: JobId) -> Option<JobEnd> {
        if self.modern.tasks.owns(job) {
            return Some(JobEnd::Finished);
        }
        self.modern
            .job(job)
            .filter(|j| j.cut_ms.is_some())
            .map(|_| JobEnd::StreamClosed)
    }
}

impl ModernJob {
    /// A commit this job has still to make.
    pub(in crate::server) fn commit_pending(&self) -> bool {
        self.order.is_some() && !self.committed
    }
}

/// The response ending a 2026-07-28 request stream: the tool's text result, marked
/// `resultType: "complete"` like every modern result.
pub(in crate::server) fn job_result(entry: &crate::ledger::JobEntry) -> Value {
    let text = format!("{} finished {} steps", entry.tool, entry.steps);
    crate::jsonrpc::result(
        &entry.request_id,
        super::discover::complete(crate::tools::text_result(&text)),
    )
}
