//! Fault kinds, one file each, the way toxiproxy keeps one toxic per file: a fault is a
//! small value that knows how to describe itself and what it does when it fires. Adding a
//! fault kind is one file here and one arm in [`action_of`].
//!
//! A fault acts on the server and on the network in front of it (a [`Target`]); what it
//! means for the modelled client (a stale task, an away window) travels with the fired
//! record as a [`ClientEffect`] or `away_ms`, for the driver that has a modelled client.

mod change_list;
mod cut_call;
mod drop;
mod drop_listen;
mod gc;
mod idle_proxy;
mod idle_proxy_sse;
mod proxy_502;
mod purge_tasks;
mod replica_down;
mod restart;
mod roll_era;
mod rolling_deploy;
mod scale;
mod stale_task;
mod sticky_lost;

use std::fmt;
use std::sync::Arc;

use faultline_model::{ConnId, EndMode, Output, Server};

use crate::balancer::Balancer;
use crate::calls::CallTracker;
use crate::proxy::Proxy;
use crate::scenario::{Fault, StreamSel};

/// What a fault does when it fires.
pub trait FaultAction: fmt::Debug + Send + Sync {
    /// Performs the fault at `now_ms`; its wire effects go to `out`. Returns what happened,
    /// in words, and which connections it cut.
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike;

    /// What the application's side does because of this fault, if anything.
    fn client_effect(&self) -> Option<ClientEffect> {
        None
    }

    /// A standing fault ([`ArmedTrigger::Standing`](crate::ArmedTrigger)): the next
    /// virtual time it has something to do, given the server's state now (`None`:
    /// nothing, until the server changes). The engine strikes it then, after the model's
    /// work and the scripted actions of that instant. A fault with a trigger never is.
    fn due(&self, _server: &Server, _proxy: &Proxy) -> Option<u64> {
        None
    }

    /// Whether the fault acts only by cutting connections (a drop, a cut request stream,
    /// an ended listen), so that a strike that cut none did nothing at all: it fired at
    /// its moment, but met no stream of the client's, and exercised nothing (see
    /// [`FiredFault::missed`](crate::FiredFault::missed)).
    fn only_cuts(&self) -> bool {
        false
    }
}

/// The result of a fault firing.
#[derive(Debug, Clone)]
pub struct Strike {
    /// One line for the trace and the server's log ("drop (reset) of conn 3 [Standalone]").
    pub note: String,
    /// The connections it cut.
    pub conns: Vec<ConnId>,
    /// What the fault does next, `delay_ms` after this strike: a fault that unfolds over
    /// time (a rolling deploy, one replica after another) queues its next step here, so
    /// that the step's time is known only once the fault has fired (its trigger may be an
    /// event). The engine plays each as the same scenario fault.
    pub then: Vec<(u64, Arc<dyn FaultAction>)>,
}

/// Client-side consequences a modelled client must play (a live server only logs them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientEffect {
    /// Another task of the client sends a call with the session id it held at this time.
    StaleTask { holds_session_from_ms: u64 },
}

/// What a fault may act on: the server model, the streams the scenario can name, and a
/// fleet's load balancer.
pub struct Target<'a> {
    pub(crate) server: &'a mut Server,
    pub(crate) calls: &'a CallTracker,
    pub(crate) balancer: Option<&'a mut Balancer>,
    /// The proxy in front of the server (what it answers itself).
    pub(crate) proxy: &'a mut Proxy,
    /// Whether the strike's note is wanted (see [`Target::note`]).
    pub(crate) notes: bool,
}

impl Target<'_> {
    pub fn server(&mut self) -> &mut Server {
        self.server
    }

    /// The fleet's load balancer (`None` for a single server).
    pub fn balancer(&mut self) -> Option<&mut Balancer> {
        self.balancer.as_deref_mut()
    }

    /// A strike's note: `text()`, or nothing when no one will read it (see
    /// [`Engine::without_notes`](crate::Engine::without_notes)).
    pub fn note(&self, text: impl FnOnce() -> String) -> String {
        if self.notes { text() } else { String::new() }
    }

    /// Open SSE connections whose stream matches `sel`, in connection order.
    pub fn connections_on(&self, sel: StreamSel) -> Vec<ConnId> {
        self.server
            .open_connections(None)
            .into_iter()
            .filter(|&conn| {
                self.server
                    .stream_of(conn)
                    .is_some_and(|stream| self.calls.matches(self.server, sel, stream))
            })
            .collect()
    }
}

/// Ends each of `conns` as `mode` says.
fn drop_all(
    target: &mut Target<'_>,
    conns: &[ConnId],
    mode: EndMode,
    now_ms: u64,
    out: &mut Vec<Output>,
) {
    for &conn in conns {
        target.server().drop_connection(conn, mode, now_ms, out);
    }
}

/// `conns` listed for a strike's note: "3, 7", or `none` when there are none.
fn conn_list(conns: &[ConnId], none: &str) -> String {
    if conns.is_empty() {
        return none.to_string();
    }
    conns
        .iter()
        .map(|c| c.0.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The action of a scenario fault.
pub(crate) fn action_of(fault: &Fault) -> Arc<dyn FaultAction> {
    match fault {
        Fault::Drop { mode, stream, .. } => Arc::new(drop::DropStreams {
            mode: *mode,
            stream: *stream,
        }),
        Fault::Restart { .. } => Arc::new(restart::Restart),
        Fault::Gc { .. } => Arc::new(gc::GcSweep),
        Fault::ReplicaDown { replica, down, .. } => Arc::new(replica_down::ReplicaDown {
            replica: faultline_model::ReplicaId(*replica),
            down_ms: down.ms(),
        }),
        Fault::RollingDeploy {
            every,
            down,
            to_era,
            ..
        } => Arc::new(rolling_deploy::RollingDeploy {
            every_ms: every.ms(),
            down_ms: down.ms(),
            to_era: *to_era,
            next: 0,
        }),
        Fault::StickyLost { .. } => Arc::new(sticky_lost::StickyLost),
        Fault::Scale { to, .. } => Arc::new(scale::Scale { to: *to }),
        Fault::StaleTask {
            holds_session_from, ..
        } => Arc::new(stale_task::StaleTask {
            holds_session_from_ms: holds_session_from.ms(),
        }),
        Fault::CutCall { call, .. } => Arc::new(cut_call::CutCall { call: *call }),
        Fault::ChangeList {
            list,
            notify,
            on_replica,
            ..
        } => Arc::new(change_list::ChangeList {
            list: *list,
            notify: *notify,
            on: on_replica.map(faultline_model::ReplicaId),
        }),
        Fault::DropListen { end, .. } => Arc::new(drop_listen::DropListen { end: *end }),
        Fault::IdleProxy { cut_after } => Arc::new(idle_proxy::IdleProxy {
            cut_after_ms: cut_after.ms(),
        }),
        Fault::PurgeTasks { .. } => Arc::new(purge_tasks::PurgeTasks),
        Fault::IdleProxySse { cut_after } => Arc::new(idle_proxy_sse::IdleProxySse {
            cut_after_ms: cut_after.ms(),
        }),
        Fault::Proxy502 {
            lasting, status, ..
        } => Arc::new(proxy_502::Proxy502 {
            lasting_ms: lasting.ms(),
            status: *status,
        }),
        Fault::RollEra { to, .. } => Arc::new(roll_era::RollEra { to: *to }),
    }
}
