//! The client half of a simulated world: the 2025 session client or the 2026-07-28
//! stateless one, chosen by the scenario's `client.era`. Both answer the same callbacks,
//! so the world loop, the scheduler and the links do not care which revision is spoken.

use faultline_model::{ConnId, EndMode, HttpResponse};
use faultline_scenario::{ClientConfig, ClientEra, Tool};

use crate::client::{Client, ClientIo, Fate, Policy, WireEvent};
use crate::client_record::ClientRecord;
use crate::era_probe::AutoClient;
use crate::modern_client::ModernClient;

/// Each client is boxed: one is most of a kilobyte, built once per run and moved into its
/// world, and the variants stay the size of a pointer whichever grows.
#[derive(Debug)]
pub enum ClientSide {
    Legacy(Box<Client>),
    Modern(Box<ModernClient>),
    /// Finds the era by probing, then acts as one of the two ([`crate::era_probe`]).
    Auto(Box<AutoClient>),
}

/// Calls the same method on whichever client this is.
macro_rules! each {
    ($self:expr, $c:ident => $call:expr) => {
        match $self {
            ClientSide::Legacy($c) => $call,
            ClientSide::Modern($c) => $call,
            ClientSide::Auto($c) => $call,
        }
    };
}

/// The 2025 client `cfg` describes, with `policy`'s guards (whatever `cfg.era` says: the
/// era probe builds it too, once it has found a 2025 server).
pub(crate) fn legacy_client(cfg: &ClientConfig, policy: Policy) -> Client {
    Client::new(
        policy,
        &cfg.protocol_version,
        cfg.reconnect_delay.ms(),
        cfg.standalone_stream,
    )
    .with_tools_list(cfg.lists_tools)
}

/// The 2026-07-28 client `cfg` describes, with `policy`'s guards (whatever `cfg.era`
/// says, as [`legacy_client`]).
pub(crate) fn modern_client(cfg: &ClientConfig, policy: Policy) -> ModernClient {
    ModernClient::new(
        policy,
        cfg.reconnect_delay.ms(),
        cfg.lists_tools,
        cfg.use_tasks,
    )
}

impl ClientSide {
    /// The client `cfg` describes, with `policy`'s guards.
    pub fn of(cfg: &ClientConfig, policy: Policy) -> ClientSide {
        let policy = Policy {
            requires_session: policy.requires_session && !cfg.accepts_sessionless,
            ..policy
        };
        let era = if policy.speaks_2025_only {
            ClientEra::Legacy
        } else {
            cfg.era
        };
        match era {
            ClientEra::Legacy => ClientSide::Legacy(Box::new(legacy_client(cfg, policy))),
            ClientEra::Modern => ClientSide::Modern(Box::new(modern_client(cfg, policy))),
            ClientEra::Auto { era_cache } => {
                ClientSide::Auto(Box::new(AutoClient::new(cfg, policy, era_cache.ms())))
            }
        }
    }

    pub fn record(&self) -> &ClientRecord {
        match self {
            ClientSide::Legacy(c) => &c.record,
            ClientSide::Modern(c) => &c.record,
            ClientSide::Auto(c) => c.record(),
        }
    }

    pub fn record_mut(&mut self) -> &mut ClientRecord {
        match self {
            ClientSide::Legacy(c) => &mut c.record,
            ClientSide::Modern(c) => &mut c.record,
            ClientSide::Auto(c) => c.record_mut(),
        }
    }

    pub fn into_record(self) -> ClientRecord {
        match self {
            ClientSide::Legacy(c) => c.record,
            ClientSide::Modern(c) => c.record,
            ClientSide::Auto(c) => c.into_record(),
        }
    }

    pub fn schedule_start(&mut self, io: &mut ClientIo, at: u64) {
        each!(self, c => c.schedule_start(io, at))
    }

    pub fn plan_call(&mut self, tool: Tool, progress: bool) -> usize {
        each!(self, c => c.plan_call(tool, progress))
    }

    pub fn mark_sent(&mut self, conn: ConnId, now: u64) {
        each!(self, c => c.mark_sent(conn, now))
    }

    /// A request held back while the client was away is about to leave at `now`: false
    /// when the client takes it back (only the 2026-07-28 client does, for a call whose
    /// tools list went stale meanwhile).
    pub fn may_leave(&mut self, io: &mut ClientIo, now: u64, conn: ConnId) -> bool {
        match self {
            ClientSide::Legacy(_) => true,
            ClientSide::Modern(c) => c.may_leave(io, now, conn),
            ClientSide::Auto(c) => c.may_leave(io, now, conn),
        }
    }

    pub fn on_call(&mut self, io: &mut ClientIo, now: u64, call: usize) {
        each!(self, c => c.on_call(io, now, call));
        // Asked now: from here on the application waits for it (`hung` reads this).
        if let Some(asked) = self.record_mut().calls.get_mut(call) {
            asked.asked_at_ms.get_or_insert(now);
        }
    }

    pub fn on_wake(&mut self, io: &mut ClientIo, now: u64, token: u64) {
        each!(self, c => c.on_wake(io, now, token))
    }

    /// Another task with a remembered session id: only a 2025 client has one (the
    /// scenario check refuses `StaleTask` for a 2026-07-28 client).
    pub fn on_stale_task(&mut self, io: &mut ClientIo, now: u64, from_ms: u64) {
        if let ClientSide::Legacy(c) = self {
            c.on_stale_task(io, now, from_ms);
        }
    }

    pub fn on_response(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        response: &HttpResponse,
    ) {
        each!(self, c => c.on_response(io, now, conn, response))
    }

    pub fn on_event(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        event: &WireEvent,
    ) -> Fate {
        each!(self, c => c.on_event(io, now, conn, event))
    }

    pub fn on_end(&mut self, io: &mut ClientIo, now: u64, conn: ConnId, how: EndMode) {
        each!(self, c => c.on_end(io, now, conn, how))
    }

    /// After a callback: a 2025 client whose application exits when its calls are done
    /// (`when_done: Exit`) leaves once they are. The 2026-07-28 client has no session to
    /// end and stays, as does a client that probes for its era.
    #[inline]
    pub fn leave_if_done(&mut self, io: &mut ClientIo, now: u64) {
        if let ClientSide::Legacy(c) = self {
            c.leave_if_done(io, now);
        }
    }
}
