//! The live server's bounds on what clients can make it do or keep. Each is a field of
//! [`crate::Config`] and a `faultline serve` flag; the defaults are far above what the
//! bundled scenarios, the conformance suite and the SDK clients use, and low enough that
//! one client cannot stall or exhaust the server.
//!
//! | field | flag | default | bounds |
//! |---|---|---|---|
//! | `max_job_steps` | `--max-job-steps` | 100,000 | steps one `long_job` may ask for (more: JSON-RPC invalid params naming the limit) |
//! | `job_steps_per_turn` | `--job-steps-per-turn` | 1,000 | job steps run while holding the server's lock; the rest run in later turns, other requests in between |
//! | `max_streams_per_session` | `--max-streams-per-session` | 1,000 | SSE streams a session's event log may hold; a POST that would open one more gets 429 |
//! | `ledger_window` | `--ledger-window` | 10,000 | entries kept per ledger record without `--control` |
//! | `ledger_window_bytes` | `--ledger-window-bytes` | 64 MiB | bytes the ledger may weigh without `--control` |

/// See the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_job_steps: u32,
    pub job_steps_per_turn: u32,
    pub max_streams_per_session: u32,
    pub ledger_window: u32,
    pub ledger_window_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_job_steps: 100_000,
            job_steps_per_turn: 1_000,
            max_streams_per_session: 1_000,
            ledger_window: 10_000,
            ledger_window_bytes: 64 << 20,
        }
    }
}

impl Limits {
    /// The defaults, with the step bound of the simulator, so that a scenario played live
    /// (`run --live`, `serve --scenario`) gets the answers it gets in simulation.
    pub fn for_scenario() -> Self {
        Limits {
            max_job_steps: faultline_model::tools::MAX_JOB_STEPS,
            ..Limits::default()
        }
    }

    /// The model's share of these bounds.
    pub(crate) fn model(&self) -> faultline_model::Limits {
        faultline_model::Limits {
            max_job_steps: self.max_job_steps,
            job_steps_per_turn: Some(self.job_steps_per_turn.max(1)),
            max_streams_per_session: Some(self.max_streams_per_session.max(1)),
        }
    }
}
