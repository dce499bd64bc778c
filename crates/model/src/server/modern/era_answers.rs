//! The ledger's record of era trouble: answers where a request's era met a server that
//! does not serve it as asked (`Ledger.era_answers`), and the restarts that switched the
//! server's eras (`Ledger.era_changes`, the `RollEra` fault). Both are the ground truth of
//! the `era_mismatch` verdict, and both stay empty in a run where every request is served
//! in its own era, so such ledgers keep their bytes.
//!
//! A note is taken before the answer is known (the 2025 path may still answer a modern
//! probe, under `legacy_probe_answer: AsToday`), and completed by `Server::respond`,
//! through which every answer passes.

use crate::http::Output;
use crate::ids::ConnId;
use crate::knobs::{Era, RestartPersistence};
use crate::ledger::{EraAnswer, EraAnswerKind, EraChange};

use super::super::Server;
use super::super::era::RequestEra;

/// An era answer waiting for its status.
#[derive(Debug, Clone, Copy)]
pub(in crate::server) struct EraNote {
    request_era: RequestEra,
    kind: EraAnswerKind,
    rpc_error: Option<i64>,
}

impl Server {
    /// The next answer is one of `kind` to a request of `request_era`.
    pub(in crate::server) fn note_era_answer(
        &mut self,
        request_era: RequestEra,
        kind: EraAnswerKind,
        rpc_error: Option<i64>,
    ) {
        self.modern.era_note = Some(EraNote {
            request_era,
            kind,
            rpc_error,
        });
    }

    /// Called for every answer: records it when a note waits for it.
    pub(in crate::server) fn complete_era_answer(
        &mut self,
        conn: ConnId,
        rpc_method: Option<&str>,
        status: u16,
    ) {
        let Some(note) = self.modern.era_note.take() else {
            return;
        };
        self.ledger.era_answers.push(EraAnswer {
            at_ms: self.now_ms,
            conn,
            rpc_method: rpc_method.map(str::to_string),
            status,
            request_era: note.request_era,
            server_era: self.era(),
            kind: note.kind,
            rpc_error: note.rpc_error,
        });
    }

    /// A restart after which the server speaks `to` (a deploy of another SDK version):
    /// recorded in `Ledger.era_changes`, then an ordinary restart. A build that serves
    /// 2025 without sessions (or not at all) has no session store to load, so a roll into
    /// such an era keeps no 2025 session, whatever `restart_persistence` says: its
    /// sessions die in the restart (otherwise they would linger, their standalone streams
    /// unreachable, still logging the `list_changed` of a change nobody can fetch).
    pub fn roll_era(&mut self, to: Era, now_ms: u64, out: &mut Vec<Output>) {
        self.advance(now_ms, out);
        let from = self.knobs.era;
        self.ledger.era_changes.push(EraChange {
            at_ms: now_ms,
            from,
            to,
            replica: None,
        });
        self.knobs.era = to;
        self.replica_eras.clear();
        let persistence = if to.serves_legacy_sessions() {
            self.knobs.restart_persistence
        } else {
            RestartPersistence::Nothing
        };
        self.restart_keeping(persistence, now_ms, out);
    }
}
