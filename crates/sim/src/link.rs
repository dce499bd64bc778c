//! The network between the modelled client and the engine.
//!
//! The world loop ([`crate::world`]) is written once against this trait. In simulation
//! ([`SimLink`]) the engine is called directly and its outputs reach the client at once.
//! `run --live` (`faultline-live`) implements it over a real HTTP server and real sockets:
//! requests go out as HTTP, and before the client is handed an output the link waits for
//! its bytes to arrive and checks they say what the engine emitted. Same loop, same
//! decisions, same order; only the transport differs.

use faultline_model::{ConnId, HttpRequest, Ledger, Output};
use faultline_scenario::{Emitted, Engine};

pub trait Link {
    /// Read access to the engine (its ledger, its state for the trace).
    fn with_engine<R>(&self, f: impl FnOnce(&Engine) -> R) -> R;

    /// The next virtual time at which the engine has work of its own. A link may leave out
    /// work no driver can see happen (the simulator's leaves out event-log expiry, which the
    /// engine runs in its order whenever it next moves); it then reports, through
    /// [`last_unstepped_due`](Link::last_unstepped_due), when the last of that work would
    /// have run.
    fn next_due(&self) -> Option<u64>;

    /// The last instant at or before `horizon_ms` of the work [`next_due`](Link::next_due)
    /// left out, once nothing else is due: the time a driver stepping on every deadline
    /// would have ended at. `None` when `next_due` leaves nothing out.
    fn last_unstepped_due(&self, _horizon_ms: u64) -> Option<u64> {
        None
    }

    /// Runs the engine's work due up to `now`; what it emitted goes to `out`.
    fn advance_to(&mut self, now: u64, out: &mut Vec<Emitted>);

    /// Sends one HTTP exchange; what the engine emitted in answer goes to `out`.
    fn handle(&mut self, conn: ConnId, request: HttpRequest, now: u64, out: &mut Vec<Emitted>);

    /// The client closes `conn`.
    fn disconnect(&mut self, conn: ConnId, now: u64, out: &mut Vec<Emitted>);

    /// The client took back the request it had numbered `conn` (held while it was away,
    /// reconsidered as it came back) and will never send it: the number is spent. The
    /// simulated server numbers a connection with the client's number and needs nothing; a
    /// link whose server numbers connections as they arrive must skip this one too, or
    /// every later connection would carry another number there.
    fn forgo(&mut self, _conn: ConnId) {}

    /// Called before `output` is handed to the client: returns false when it could not be
    /// received as emitted (the link is then [`broken`](Link::broken)).
    fn receive(&mut self, _output: &Output) -> bool {
        true
    }

    /// True once the link failed; the run stops.
    fn broken(&self) -> bool {
        false
    }

    /// The engine's ledger once the run is over. This copies it; a link whose engine is
    /// not used after the run may hand it over instead (the simulator's does).
    fn final_ledger(&mut self) -> Ledger {
        self.with_engine(|e| e.server().ledger().clone())
    }
}

/// The simulator's network: zero latency, nothing lost that a fault does not cut.
#[derive(Debug)]
pub struct SimLink {
    engine: Engine,
}

impl SimLink {
    pub fn new(engine: Engine) -> Self {
        SimLink { engine }
    }
}

impl Link for SimLink {
    #[inline]
    fn with_engine<R>(&self, f: impl FnOnce(&Engine) -> R) -> R {
        f(&self.engine)
    }

    /// Steps over event-log expiry (one step per logged event, most of a long run's steps
    /// otherwise): the engine runs it when it next moves, before anything later.
    #[inline]
    fn next_due(&self) -> Option<u64> {
        self.engine.next_visible_due()
    }

    fn last_unstepped_due(&self, horizon_ms: u64) -> Option<u64> {
        self.engine.server().last_log_expiry_by(horizon_ms)
    }

    fn advance_to(&mut self, now: u64, out: &mut Vec<Emitted>) {
        self.engine.advance_to(now, out);
    }

    fn handle(&mut self, conn: ConnId, request: HttpRequest, now: u64, out: &mut Vec<Emitted>) {
        self.engine.handle(conn, request, now, out);
    }

    fn disconnect(&mut self, conn: ConnId, now: u64, out: &mut Vec<Emitted>) {
        self.engine.disconnect(conn, now, out);
    }

    /// Hands the ledger over rather than copying it (thousands of events in a long run):
    /// the engine is done with once its run is.
    fn final_ledger(&mut self) -> Ledger {
        self.engine.take_ledger()
    }
}
