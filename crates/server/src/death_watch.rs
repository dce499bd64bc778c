//! Notices session deaths for the event feed (`server_events`). The model records a
//! death only in its ledger (`SessionEntry::died`: nothing goes on the wire when a TTL
//! runs out), so the driver has to look. To stay off the request path it looks only when
//! the store holds fewer sessions than the ledger has minted minus the deaths already
//! reported, and then only from the first session not yet reported dead.

use faultline_model::Server;

use crate::server_events::ServerEvent;

#[derive(Debug, Default)]
pub(crate) struct DeathWatch {
    /// Per session key: its death was reported.
    reported: Vec<bool>,
    reported_count: usize,
    /// Every session below this key was reported dead.
    scan_from: usize,
}

impl DeathWatch {
    /// Appends a [`ServerEvent::SessionDied`] for every death not reported yet.
    pub fn new_deaths(&mut self, server: &Server, out: &mut Vec<ServerEvent>) {
        let sessions = &server.ledger().sessions;
        let dead = sessions.len().saturating_sub(server.live_session_count());
        if dead <= self.reported_count {
            return;
        }
        self.reported.resize(sessions.len(), false);
        for (key, entry) in sessions.iter().enumerate().skip(self.scan_from) {
            if self.reported[key] {
                continue;
            }
            if let Some((at_ms, cause)) = entry.died {
                self.reported[key] = true;
                self.reported_count += 1;
                out.push(ServerEvent::SessionDied {
                    at_ms,
                    session: entry.wire_id.clone(),
                    cause,
                });
            }
        }
        while self.reported.get(self.scan_from) == Some(&true) {
            self.scan_from += 1;
        }
    }
}
