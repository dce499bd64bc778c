//! `StaleTask`: another task of the client application sends `tools/call echo` with the
//! session id it remembered at `holds_session_from` (the cascade's collision). It is the
//! client's doing, so the server does nothing here; a driver with a modelled client plays
//! it from the [`ClientEffect`], a live server with real clients only logs it.

use faultline_model::{DurationMs, Output};

use super::{ClientEffect, FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct StaleTask {
    pub holds_session_from_ms: u64,
}

impl FaultAction for StaleTask {
    fn strike(&self, target: &mut Target<'_>, _now_ms: u64, _out: &mut Vec<Output>) -> Strike {
        Strike {
            note: target.note(|| {
                format!(
                    "stale task sends with the session id held at {}",
                    DurationMs(self.holds_session_from_ms)
                )
            }),
            conns: Vec::new(),
            then: Vec::new(),
        }
    }

    fn client_effect(&self) -> Option<ClientEffect> {
        Some(ClientEffect::StaleTask {
            holds_session_from_ms: self.holds_session_from_ms,
        })
    }
}
