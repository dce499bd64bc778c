//! `PurgeTasks`: the server's task store is wiped (an operator's cleanup, a cache
//! eviction): every task id of the 2026-07-28 tasks extension is unknown from now on
//! (`tasks/get` answers -32602) and work still running stops. Tasks lost in a restart
//! come from `Restart` under the `task_persistence` knob instead.
//! SEP-2663: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2663-tasks-extension.md>

use faultline_model::Output;

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct PurgeTasks;

impl FaultAction for PurgeTasks {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        target.server().purge_tasks(now_ms, out);
        Strike {
            note: target.note(|| "the task store is purged".into()),
            conns: Vec::new(),
            then: Vec::new(),
        }
    }
}
