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

    /// The next virtual time at which the engine has work of its own.
    fn next_due(&self) -> Option<u64>;

    /// Runs the engine's work due up to `now`; what it emitted goes to `out`.
    fn advance_to(&mut self, now: u64, out: &mut Vec<Emitted>);

    /// Sends one HTTP exchange; what the engine emitted in answer goes to `out`.
    fn handle(&mut self, conn: ConnId, request: HttpRequest, now: u64, out: &mut Vec<Emitted>);

    /// The client closes `conn`.
    fn disconnect(&mut self, conn: ConnId, now: u64, out: &mut Vec<Emitted>);

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

    #[inline]
    fn next_due(&self) -> Option<u64> {
        self.engine.next_due()
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
