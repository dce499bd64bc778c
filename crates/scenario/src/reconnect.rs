//! When a modelled client stops reconnecting a stream that keeps delivering nothing.
//!
//! A habit, not a law: the field's clients differ. Many reset their retry counter on a
//! clean end of stream or an empty `200` and so reconnect for ever
//! (<https://github.com/modelcontextprotocol/rust-sdk/issues/958>,
//! <https://github.com/modelcontextprotocol/python-sdk/issues/2393>,
//! <https://github.com/modelcontextprotocol/typescript-sdk/issues/2682>). A scenario sets
//! the habit (`client: (reconnect: Forever)`) so that such a loop can be simulated,
//! shrunk and explained like any other verdict; the run then ends at the scenario's
//! `horizon`.

use serde::{Deserialize, Serialize};

/// How a 2025 client's stream reconnects end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reconnect {
    /// Give up on a stream after this many reconnects in a row that delivered nothing new,
    /// and surface the failure (the default: 5).
    GiveUpAfter(u32),
    /// Never give up: reconnect after every empty answer, for as long as the run lasts.
    Forever,
}

impl Reconnect {
    /// The default habit of both modelled clients.
    pub const DEFAULT: Reconnect = Reconnect::GiveUpAfter(5);

    /// The most reconnects in a row without progress, `None` for no limit.
    pub fn limit(self) -> Option<u32> {
        match self {
            Reconnect::GiveUpAfter(n) => Some(n),
            Reconnect::Forever => None,
        }
    }

    pub fn is_default(&self) -> bool {
        *self == Reconnect::DEFAULT
    }
}

impl Default for Reconnect {
    fn default() -> Self {
        Reconnect::DEFAULT
    }
}
