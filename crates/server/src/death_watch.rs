//! Notices session deaths for the event feed (`server_events`). The model records a
//! death only in its ledger (`SessionEntry::died`: nothing goes on the wire when a TTL
//! runs out), so the driver has to look. To stay off the request path it looks only when
//! the ledger has minted more sessions than the store holds plus the deaths already
//! reported, and then only from the first session not yet reported dead. A long-lived
//! server trims dead sessions from its ledger; the driver looks before every trim, so
//! every death is told first.

use std::collections::BTreeSet;

use faultline_model::Server;

use crate::server_events::ServerEvent;

#[derive(Debug, Default)]
pub(crate) struct DeathWatch {
    /// Keys at or above `scan_from` whose death was reported.
    reported: BTreeSet<u32>,
    reported_count: usize,
    /// Every session below this key was reported dead (or trimmed after it was).
    scan_from: u32,
}

impl DeathWatch {
    /// Appends a [`ServerEvent::SessionDied`] for every death not reported yet.
    pub fn new_deaths(&mut self, server: &Server, out: &mut Vec<ServerEvent>) {
        let ledger = server.ledger();
        let minted = ledger.sessions_end() as usize;
        let dead = minted.saturating_sub(server.live_session_count());
        if dead <= self.reported_count {
            return;
        }
        let base = ledger.sessions_base;
        self.scan_from = self.scan_from.max(base);
        let from = self.scan_from;
        self.reported.retain(|&key| key >= from);
        for (offset, entry) in ledger
            .sessions
            .iter()
            .enumerate()
            .skip((from - base) as usize)
        {
            let key = base + offset as u32;
            if self.reported.contains(&key) {
                continue;
            }
            if let Some((at_ms, cause)) = entry.died {
                self.reported.insert(key);
                self.reported_count += 1;
                out.push(ServerEvent::SessionDied {
                    at_ms,
                    session: entry.wire_id.clone(),
                    cause,
                });
            }
        }
        while self.reported.remove(&self.scan_from) {
            self.scan_from += 1;
        }
    }
}
