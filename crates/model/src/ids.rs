//! Small copyable handles. Wire-visible session ids are strings; everything inside the
//! model refers to sessions, streams, connections and events by dense integers so that
//! maps iterate in a fixed order and the hot path allocates nothing.

use serde::{Deserialize, Serialize};

/// A session record in the store (stable across generations of the same wire id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SessionKey(pub u32);

/// One SSE stream: the answer to one POST, or a standalone GET stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct StreamId(pub u32);

/// One HTTP exchange, named by whoever drives the model (simulator or live server).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ConnId(pub u64);

/// An event the server produced: its index in the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EventRef(pub u32);

/// A long-running tool call on the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct JobId(pub u32);
