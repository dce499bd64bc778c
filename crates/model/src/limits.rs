//! Limits a long-lived server puts on what one client can make it do or keep.
//!
//! A simulation runs one scenario to its end and keeps everything; the live server meets
//! clients it does not know, so every quantity a request can grow (the work of a tool
//! call, the streams of a session, the text the ledger keeps of a header) has a bound
//! here, with a clear refusal when a request would pass it. [`Limits::default`] is what
//! the simulator uses; the live server sets its own from its flags.

/// The most bytes of a client-chosen text (`Mcp-Session-Id`, `Last-Event-ID`, a JSON-RPC
/// method name) the ledger keeps. The request itself is judged on the whole value; only
/// the record is shortened, and it says by how much (the `*_len` fields of the ledger).
pub const KEPT_TEXT_BYTES: usize = 128;

/// Bounds on one client's demands. Every field is independent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most steps a `long_job` may ask for; more gets a JSON-RPC "invalid params"
    /// error that names the limit.
    pub max_job_steps: u32,
    /// `Some(n)`: one turn of the driver ([`crate::Server::begin_turn`]) runs at most `n`
    /// job steps; steps still due wait for the next turn, so a driver that releases its
    /// lock between turns lets other requests in while a big job runs. A step of a job
    /// whose progress token is long counts for more (see `server/jobs.rs`, `turn_cost`).
    /// `None`: all due steps run at once (the simulator).
    pub job_steps_per_turn: Option<u32>,
    /// `Some(n)`: a POST that would open a stream for a session whose event log already
    /// holds `n` streams is refused (429). `None`: no cap.
    pub max_streams_per_session: Option<u32>,
    /// `true`: what a dead session leaves that no request can reach is let go when it
    /// dies: its event logs, on a server whose GET validates the session (when their
    /// last reader leaves, for a stream still read; see `server/dead_logs.rs`), and its
    /// queued TTL deadline. Otherwise both stay until their own TTLs run out (a log with
    /// no TTL, for ever). No request can tell, and the ledger is the same; what differs
    /// is the server's view of its state and the instants at which it has work due,
    /// which the simulator's trace shows: so the simulator, and a scenario played live,
    /// keep them. A long-lived server sets it, so that its memory follows the sessions
    /// alive, not the sessions ever created.
    pub forget_dead_sessions: bool,
    /// `Some(n)`: the 2026-07-28 task store holds at most `n` task records. A new task
    /// takes the room of a record already gone, else of one past its TTL and purge
    /// delay, else of the oldest finished one (evicted, and the ledger says so); when all
    /// `n` are still working, the call that would create one more is refused (429). A
    /// gone record is forgotten once it has answered its first "Task not found". `None`:
    /// every id ever minted is kept (the simulator).
    pub max_tasks: Option<u32>,
    /// `Some(n)`: the 2026-07-28 handle store holds at most `n` baskets. A new handle
    /// takes the room of a lost one, else of an idle-expired one, else of the least
    /// recently used one (evicted, and the ledger says so). `None`: every handle ever
    /// minted is kept (the simulator).
    pub max_handles: Option<u32>,
    /// `Some(n)`: a POST carrying a request id or a `_meta.progressToken` longer than `n`
    /// bytes (a string's UTF-8 length; another value's compact JSON) is refused whole
    /// with 400: the id with JSON-RPC invalid request, the token with invalid params.
    /// The server repeats both (the token in every progress notification of a job), so a
    /// big one multiplies into everything rendered for it. `None`: no bound.
    pub max_echo_bytes: Option<u32>,
    /// `Some(n)`: a POST whose `long_job`s ask for more than `n` steps in all (a batch's
    /// summed) is refused whole with 400 (JSON-RPC invalid params). `None`: no bound.
    pub max_steps_per_request: Option<u64>,
    /// `Some(n)`: a POST whose jobs would take the steps its session's running jobs still
    /// have to run past `n` is refused whole with 429. `None`: no bound.
    pub max_steps_per_session: Option<u64>,
    /// `Some(n)`: a POST whose jobs would take the steps every running job still has to
    /// run past `n` is refused whole with 503; jobs outlive their client, so this bounds
    /// what clients that left can leave running. `None`: no bound.
    pub max_steps_per_server: Option<u64>,
    /// `Some(n)`: a client address (the request's `peer`) holds at most `n` live
    /// sessions. An `initialize` beyond it takes the room of that address's oldest
    /// session not used yet (killed, recorded as an idle-TTL death), else gets 429.
    /// `None`: no bound per address.
    pub max_sessions_per_peer: Option<u32>,
    /// `Some(ms)`: a session no request but `notifications/initialized` has named since
    /// `initialize` dies this long after it was created (recorded as an idle-TTL death),
    /// and when the store is full (`max_sessions`), an `initialize` takes the room of the
    /// oldest such session instead of getting 503. `None`: unused sessions live as long
    /// as any.
    pub unused_session_ttl_ms: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_job_steps: crate::tools::MAX_JOB_STEPS,
            job_steps_per_turn: None,
            max_streams_per_session: None,
            forget_dead_sessions: false,
            max_tasks: None,
            max_handles: None,
            max_echo_bytes: None,
            max_steps_per_request: None,
            max_steps_per_session: None,
            max_steps_per_server: None,
            max_sessions_per_peer: None,
            unused_session_ttl_ms: None,
        }
    }
}

/// `text` cut to at most [`KEPT_TEXT_BYTES`] (at a character boundary), and its full
/// length in bytes when it was cut.
pub(crate) fn kept_text(text: &str) -> (String, Option<u64>) {
    match kept_end(text) {
        None => (text.to_string(), None),
        Some(end) => (text[..end].to_string(), Some(text.len() as u64)),
    }
}

/// Where `text` is cut to be kept: `None` when it is kept whole, else the last character
/// boundary at or before [`KEPT_TEXT_BYTES`].
fn kept_end(text: &str) -> Option<usize> {
    if text.len() <= KEPT_TEXT_BYTES {
        return None;
    }
    let mut end = KEPT_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(end)
}

/// [`kept_text`] of a string the caller owns: moved when short (no copy), cut in place
/// when long.
pub(crate) fn kept_owned_text(mut text: String) -> (String, Option<u64>) {
    match kept_end(&text) {
        None => (text, None),
        Some(end) => {
            let len = text.len() as u64;
            text.truncate(end);
            (text, Some(len))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The owned form keeps what the borrowed form keeps, for short, long and straddling
    /// text.
    #[test]
    fn owned_text_is_kept_as_borrowed_text_is() {
        let straddling = format!("{}é", "x".repeat(KEPT_TEXT_BYTES - 1));
        for text in ["abc".to_string(), "y".repeat(200_000), straddling] {
            assert_eq!(kept_owned_text(text.clone()), kept_text(&text));
        }
    }

    #[test]
    fn short_text_is_kept_whole_and_long_text_is_cut_at_a_character() {
        assert_eq!(kept_text("abc"), ("abc".to_string(), None));
        let long = "x".repeat(200_000);
        let (kept, len) = kept_text(&long);
        assert_eq!(kept.len(), KEPT_TEXT_BYTES);
        assert_eq!(len, Some(200_000));
        // A two-byte character straddling the cut is left out whole.
        let straddling = format!("{}é{}", "a".repeat(KEPT_TEXT_BYTES - 1), "b".repeat(10));
        let (kept, len) = kept_text(&straddling);
        assert_eq!(kept, "a".repeat(KEPT_TEXT_BYTES - 1));
        assert_eq!(len, Some(straddling.len() as u64));
    }
}
