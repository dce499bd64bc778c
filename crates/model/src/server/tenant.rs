//! A tenant: another client of the same fleet, played by the scenario engine directly on
//! the model (no HTTP, no connection). It initializes a session and listens for
//! notifications, so the server produces them into its standalone stream's log; nobody
//! reads them there. What matters is who else can: a shared event store keyed by stream
//! replays them to a client that resumes its own standalone stream.

use crate::http::Output;
use crate::ids::SessionKey;
use crate::route::Route;

use super::{LATEST_PROTOCOL_VERSION, Server};

impl Server {
    /// A tenant joins at `now_ms`: a session minted (by replica 0) as an `initialize`
    /// would, listening on a standalone stream that no connection reads.
    pub fn admit_tenant(&mut self, now_ms: u64, out: &mut Vec<Output>) -> SessionKey {
        self.advance(now_ms, out);
        self.serving = Route::FIRST;
        let wire_id = self.mint_session(LATEST_PROTOCOL_VERSION, None);
        let key = self
            .sessions
            .lookup(&wire_id)
            .expect("a session just minted is live");
        let stream = self.standalone_stream(key);
        if let Some(s) = self.sessions.get_mut(key) {
            s.standalone = Some(stream);
            s.listening = true;
        }
        key
    }
}
