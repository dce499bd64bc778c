//! The live server's limits: what one client (or a crowd of them) may make it do, hold or
//! keep before it says no.
//!
//! Why they exist: a server reachable by any program on the machine must not be frozen or
//! exhausted by one of them. A connection that never finishes its request headers, an idle
//! keep-alive connection, a flood of connections up to the descriptor limit, an SSE stream
//! nobody reads, a `long_job` of a million steps at interval 0, a session that opens
//! streams without end and a ledger that keeps every header as sent would each hold a
//! descriptor, the server's lock or memory without bound. Every limit is a field here and a
//! `faultline serve` flag; the defaults are far above what the bundled scenarios, the
//! conformance suite and the SDK clients use. docs/live-server.md, section "Limits", lists
//! them. The second round (a 200 KB progress token repeated in every event, a queue
//! that grows as fast as a slow reader lets it, 10,000 `initialize`s on one connection,
//! a batch of 5,000 jobs left running by a client that left) added the byte bound per
//! queue, the bound on repeated strings, the step budgets and the session room rules; the
//! third, the bound on all queues together and the step budgets on the 2026-07-28 path.
//!
//! | field | flag | default | bounds |
//! |---|---|---|---|
//! | `header_timeout` | `--header-timeout-ms` | 10 s | request headers (then the body) must arrive within it |
//! | `idle_timeout` | `--idle-timeout-ms` | 60 s | an idle keep-alive connection is closed after it |
//! | `max_connections` | `--max-connections` | descriptor limit - 64 | open connections; one more gets 503 |
//! | `stream_queue_bytes` | `--stream-queue-bytes` | 1 MiB | queued SSE bytes before a stall counts |
//! | `stream_stall` | `--stream-stall-ms` | 5 s | a stream over its queue bound whose reader took nothing this long is cut |
//! | `max_job_steps` | `--max-job-steps` | 100,000 | steps one `long_job` may ask for (more: JSON-RPC invalid params naming the limit) |
//! | `job_steps_per_turn` | `--job-steps-per-turn` | 1,000 | job steps run while holding the server's lock; the rest run in later turns, other requests in between |
//! | `max_streams_per_session` | `--max-streams-per-session` | 1,000 | SSE streams a session's event log may hold; a POST that would open one more gets 429 |
//! | `max_tasks` | `--max-tasks` | 10,000 | 2026-07-28 task records held; a new task takes a gone, expired or the oldest finished task's room, and when every one is working the call gets 429 |
//! | `max_handles` | `--max-handles` | 10,000 | 2026-07-28 state handles (baskets) held; a new one takes a lost, idle-expired or the least recently used one's room |
//! | `ledger_window` | `--ledger-window` | 10,000 | entries kept per ledger record without `--control` |
//! | `ledger_window_bytes` | `--ledger-window-bytes` | 64 MiB | bytes the ledger may weigh without `--control` |
//! | `max_queue_bytes` | `--max-queue-bytes` | 64 MiB | queued SSE bytes one stream may hold, whatever its reader's pace; a frame that would pass it cuts the stream (`queue_full` in the ledger's `cuts`) |
//! | `max_server_queue_bytes` | `--max-server-queue-bytes` | 128 MiB | queued SSE bytes all streams together may hold; a frame that would pass it cuts the largest queue first (`server_queues_full` in the ledger's `cuts`) |
//! | `max_echo_bytes` | `--max-echo-bytes` | 1 KiB | a request id or `_meta.progressToken` longer is refused (400) |
//! | `max_steps_per_request` | `--max-steps-per-request` | 1,000,000 | job steps one POST (a batch's summed) may ask for (400) |
//! | `max_steps_per_session` | `--max-steps-per-session` | 1,000,000 | job steps a session's running jobs may still have to run (429) |
//! | `max_steps_per_server` | `--max-steps-per-server` | 10,000,000 | job steps every running job may still have to run (503) |
//! | `max_sessions_per_peer` | `--max-sessions-per-peer` | 1,000 | live sessions per client address; the oldest unused one gives way, else 429 |
//! | `unused_session_ttl` | `--unused-session-ttl-ms` | 60 s | a session never used after `initialize` dies this long after it; a full store evicts the oldest such |
//! | `ledger_readers` | `--ledger-readers` | 1 | `GET /_chaos/ledger` bodies being written at once (more: 503) |

use std::time::Duration;

/// Request headers must be complete this long after the first byte of the request arrived
/// (or the connection opened, for its first request); the body then gets as long again.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// A keep-alive connection with no request in flight and no byte received is closed
/// after this long.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// Bytes of SSE frames that may wait for one stream's reader before a stall counts.
pub const DEFAULT_STREAM_QUEUE_BYTES: usize = 1 << 20;

/// A stream over its queue bound whose reader took nothing for this long is cut.
pub const DEFAULT_STREAM_STALL: Duration = Duration::from_secs(5);

/// Bytes of SSE frames one stream's queue may hold, whatever its reader's pace: far above
/// what a reader keeping up with a 100,000-step job at interval 0 falls behind by (some
/// 15 MB for the whole job), far below what one stream may pin in memory.
pub const DEFAULT_MAX_QUEUE_BYTES: usize = 64 << 20;

/// Bytes of SSE frames all streams' queues together may hold: two streams at their own
/// hard bound, so that many slow readers cannot pin more than one can many times over.
pub const DEFAULT_MAX_SERVER_QUEUE_BYTES: usize = 128 << 20;

/// The longest request id or progress token a long-lived server repeats.
pub const DEFAULT_MAX_ECHO_BYTES: u32 = 1 << 10;

/// Job steps one POST (a batch's summed) may ask for.
pub const DEFAULT_MAX_STEPS_PER_REQUEST: u64 = 1_000_000;

/// Job steps a session's running jobs may still have to run.
pub const DEFAULT_MAX_STEPS_PER_SESSION: u64 = 1_000_000;

/// Job steps every running job together may still have to run.
pub const DEFAULT_MAX_STEPS_PER_SERVER: u64 = 10_000_000;

/// Live sessions one client address may hold.
pub const DEFAULT_MAX_SESSIONS_PER_PEER: u32 = 1_000;

/// A never-used session dies this long after `initialize` (see `session_room` in the
/// model): a client that will use its session names it within a second.
pub const DEFAULT_UNUSED_SESSION_TTL: Duration = Duration::from_secs(60);

/// Task records a long-lived server's 2026-07-28 task store holds at most.
pub const DEFAULT_MAX_TASKS: u32 = 10_000;

/// State handles (baskets) a long-lived server holds at most.
pub const DEFAULT_MAX_HANDLES: u32 = 10_000;

/// Connections used when the descriptor limit cannot be read.
const FALLBACK_MAX_CONNECTIONS: usize = 900;

/// Descriptors kept back from the cap for the listener, logs, and refusals in progress.
const DESCRIPTORS_RESERVED: u64 = 64;

/// The live server's limits (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// See [`DEFAULT_HEADER_TIMEOUT`].
    pub header_timeout: Duration,
    /// See [`DEFAULT_IDLE_TIMEOUT`].
    pub idle_timeout: Duration,
    /// Open connections; one more is answered 503 with a sentence and closed.
    pub max_connections: usize,
    /// See [`DEFAULT_STREAM_QUEUE_BYTES`].
    pub stream_queue_bytes: usize,
    /// See [`DEFAULT_STREAM_STALL`].
    pub stream_stall: Duration,
    pub max_job_steps: u32,
    pub job_steps_per_turn: u32,
    pub max_streams_per_session: u32,
    /// Task records the 2026-07-28 task store may hold (see
    /// [`faultline_model::Limits::max_tasks`]). `None` for a scenario, whose run must keep
    /// every task as the simulator does.
    pub max_tasks: Option<u32>,
    /// State handles the 2026-07-28 handle store may hold (see
    /// [`faultline_model::Limits::max_handles`]). `None` for a scenario.
    pub max_handles: Option<u32>,
    pub ledger_window: u32,
    pub ledger_window_bytes: u64,
    /// What a dead session leaves that no request can reach (its logs, when GET
    /// validates the session; its TTL deadline) goes when it dies, so that memory
    /// follows the sessions alive. Off for a scenario, whose run must step where the
    /// simulator's does (see [`faultline_model::Limits::forget_dead_sessions`]).
    pub forget_dead_sessions: bool,
    /// See [`DEFAULT_MAX_QUEUE_BYTES`].
    pub max_queue_bytes: usize,
    /// See [`DEFAULT_MAX_SERVER_QUEUE_BYTES`].
    pub max_server_queue_bytes: usize,
    /// See [`faultline_model::Limits::max_echo_bytes`]; `None` for a scenario.
    pub max_echo_bytes: Option<u32>,
    /// See [`faultline_model::Limits::max_steps_per_request`]; `None` for a scenario.
    pub max_steps_per_request: Option<u64>,
    /// See [`faultline_model::Limits::max_steps_per_session`]; `None` for a scenario.
    pub max_steps_per_session: Option<u64>,
    /// See [`faultline_model::Limits::max_steps_per_server`]; `None` for a scenario.
    pub max_steps_per_server: Option<u64>,
    /// See [`faultline_model::Limits::max_sessions_per_peer`]; `None` for a scenario.
    pub max_sessions_per_peer: Option<u32>,
    /// In virtual time. See [`faultline_model::Limits::unused_session_ttl_ms`]; `None` for
    /// a scenario.
    pub unused_session_ttl: Option<Duration>,
    /// Whole-ledger bodies (`GET /_chaos/ledger` without `since`) being written at once;
    /// one more gets 503 (see `ledger_page`).
    pub ledger_readers: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: default_max_connections(),
            stream_queue_bytes: DEFAULT_STREAM_QUEUE_BYTES,
            stream_stall: DEFAULT_STREAM_STALL,
            max_job_steps: 100_000,
            job_steps_per_turn: 1_000,
            max_streams_per_session: 1_000,
            max_tasks: Some(DEFAULT_MAX_TASKS),
            max_handles: Some(DEFAULT_MAX_HANDLES),
            ledger_window: 10_000,
            ledger_window_bytes: 64 << 20,
            forget_dead_sessions: true,
            max_queue_bytes: DEFAULT_MAX_QUEUE_BYTES,
            max_server_queue_bytes: DEFAULT_MAX_SERVER_QUEUE_BYTES,
            max_echo_bytes: Some(DEFAULT_MAX_ECHO_BYTES),
            max_steps_per_request: Some(DEFAULT_MAX_STEPS_PER_REQUEST),
            max_steps_per_session: Some(DEFAULT_MAX_STEPS_PER_SESSION),
            max_steps_per_server: Some(DEFAULT_MAX_STEPS_PER_SERVER),
            max_sessions_per_peer: Some(DEFAULT_MAX_SESSIONS_PER_PEER),
            unused_session_ttl: Some(DEFAULT_UNUSED_SESSION_TTL),
            ledger_readers: 1,
        }
    }
}

impl Limits {
    /// The defaults, with the step bound of the simulator and no bound on tasks or
    /// handles, so that a scenario played live (`run --live`, `serve --scenario`) gets the
    /// answers it gets in simulation.
    pub fn for_scenario() -> Self {
        Limits {
            max_job_steps: faultline_model::tools::MAX_JOB_STEPS,
            forget_dead_sessions: false,
            max_tasks: None,
            max_handles: None,
            // A scenario's requests get the simulator's answers: none of these refuse or
            // evict there.
            max_echo_bytes: None,
            max_steps_per_request: None,
            max_steps_per_session: None,
            max_steps_per_server: None,
            max_sessions_per_peer: None,
            unused_session_ttl: None,
            ..Limits::default()
        }
    }

    /// The model's share of these bounds.
    pub(crate) fn model(&self) -> faultline_model::Limits {
        faultline_model::Limits {
            max_job_steps: self.max_job_steps,
            job_steps_per_turn: Some(self.job_steps_per_turn.max(1)),
            max_streams_per_session: Some(self.max_streams_per_session.max(1)),
            forget_dead_sessions: self.forget_dead_sessions,
            max_tasks: self.max_tasks.map(|n| n.max(1)),
            max_handles: self.max_handles.map(|n| n.max(1)),
            max_echo_bytes: self.max_echo_bytes,
            max_steps_per_request: self.max_steps_per_request,
            max_steps_per_session: self.max_steps_per_session,
            max_steps_per_server: self.max_steps_per_server,
            max_sessions_per_peer: self.max_sessions_per_peer.map(|n| n.max(1)),
            unused_session_ttl_ms: self
                .unused_session_ttl
                .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
        }
    }
}

/// The open-descriptor limit (soft), when the OS says.
fn descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one rlimit through a valid pointer and nothing else.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
        // `rlim_t` is u64 on Linux, not on every unix.
        #[allow(clippy::unnecessary_cast)]
        (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Below the descriptor limit by [`DESCRIPTORS_RESERVED`] (at least 16), or
/// [`FALLBACK_MAX_CONNECTIONS`] when it cannot be read.
pub fn default_max_connections() -> usize {
    match descriptor_limit() {
        Some(limit) => limit.saturating_sub(DESCRIPTORS_RESERVED).max(16) as usize,
        None => FALLBACK_MAX_CONNECTIONS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_lived_server_bounds_tasks_and_handles_and_a_scenario_does_not() {
        let live = Limits::default().model();
        assert_eq!(live.max_tasks, Some(DEFAULT_MAX_TASKS));
        assert_eq!(live.max_handles, Some(DEFAULT_MAX_HANDLES));
        let scenario = Limits::for_scenario().model();
        assert_eq!(scenario.max_tasks, None);
        assert_eq!(scenario.max_handles, None);
        assert_eq!(
            (scenario.max_tasks, scenario.max_handles),
            (
                faultline_model::Limits::default().max_tasks,
                faultline_model::Limits::default().max_handles
            ),
            "as the simulator"
        );
    }
}
