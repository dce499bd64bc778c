//! Explicit state handles on the stateless path (SEP-2567). A 2026-07-28 server keeps no
//! session, so state a conversation builds up is named by a handle the server mints and
//! the client passes back in later calls as an ordinary tool argument: `create_basket`
//! mints one (`bsk_` and 128 random bits in hex, as the SEP advises for unauthenticated
//! servers), and `add_item {basket, item}` appends to the basket it names and answers its
//! contents. The SEP leaves expiry, the answer to an unknown handle and where replicas keep
//! the state to the server; the knobs below are those choices
//! (<https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2567-sessionless-mcp.md>;
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>).
//!
//! A handle can vanish under the client, which is what this module is for:
//!
//! - `handle_idle_ttl`: a handle unused that long is gone (read when it is next named,
//!   from the recorded times; the loss is dated when the time ran out);
//! - `handle_persistence: Nothing`: a restart forgets every handle;
//! - in a fleet (`fleet.replicas > 1`), a handle lives on the replica that minted it, as
//!   sessions do ([`super::super::placement`]): with `session_store: PerReplica` another
//!   replica does not know it (the handle is not lost, only elsewhere), with `Shared` every
//!   replica does. Handles follow the session store because a server that keeps handle
//!   state keeps it where it keeps session state.
//!
//! `unknown_handle` decides how a call naming a handle the serving replica does not know
//! is answered: a clear tool error a model can act on, an opaque one, or JSON-RPC -32602.
//! Handles come from their own ChaCha stream (the seed xor [`HANDLE_SALT`]), so minting
//! them moves no session or task id.
//!
//! A basket holds at most [`MAX_BASKET_ITEMS`] items of at most [`MAX_BASKET_BYTES`] in
//! all. A simulation keeps every handle
//! ever minted; a long-lived server bounds the store ([`crate::Limits::max_handles`],
//! [`super::handle_bounds`]), and a record keeps what it needs to answer, so that the
//! ledger window may trim its entry first.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;
use serde_json::{Value, json};

use crate::fleet::SessionStoreScope;
use crate::ids::ConnId;
use crate::jsonrpc::INVALID_PARAMS;
use crate::knobs::{HandlePersistence, UnknownHandle};
use crate::ledger::{HandleEntry, HandleLoss, HandleMiss};
use crate::route::ReplicaId;
use crate::rpc_answer::RpcAnswer;
use crate::tools;

use super::super::Server;
use super::dispatch::Answer;
use super::tombstones::Tombstones;

/// The tool that mints a basket handle.
pub const CREATE_BASKET: &str = "create_basket";
/// The tool that appends to the basket a handle names.
pub const ADD_ITEM: &str = "add_item";

/// Xored into the server's seed for the handle stream.
pub const HANDLE_SALT: u64 = 0x5e9_2567_0000_0001;

/// The most items one basket holds: an `add_item` past it gets a tool error saying so
/// (a client adding without end would otherwise grow one record without bound).
pub const MAX_BASKET_ITEMS: usize = 1_000;

/// The most bytes of item text one basket holds: an `add_item` that would pass it gets a
/// tool error saying so. Items count, and so do their bytes: a client adding a request
/// body's worth (1 MiB) per item would otherwise keep a gigabyte in one basket.
pub const MAX_BASKET_BYTES: usize = 16 * 1024;

/// The handle store: every handle minted, live or gone. Under
/// [`crate::Limits::max_handles`] it holds at most that many records, and tombstones of
/// as many whose room was taken.
#[derive(Debug)]
pub struct HandleStore {
    rng: ChaCha8Rng,
    pub(super) by_handle: BTreeMap<String, HandleRecord>,
    pub(super) tombstones: Tombstones<HandleLoss>,
    /// Mints and uses so far: the order of use, which the clock alone cannot give when
    /// several land on the same millisecond.
    uses: u64,
}

#[derive(Debug)]
pub(super) struct HandleRecord {
    /// Index of its entry in `Ledger::handles`, counting across trims (`handles_base`).
    pub(super) entry: u32,
    items: Vec<String>,
    pub(super) last_used_ms: u64,
    /// When it was minted or last used, in [`HandleStore::uses`]' count: the least
    /// recently used handle has the lowest.
    pub(super) last_use: u64,
    home: ReplicaId,
    /// Why it vanished, as its ledger entry says (unknown from then on).
    pub(super) lost: Option<HandleLoss>,
}

impl HandleStore {
    pub fn new(seed: u64) -> Self {
        HandleStore {
            rng: ChaCha8Rng::seed_from_u64(seed ^ HANDLE_SALT),
            by_handle: BTreeMap::new(),
            tombstones: Tombstones::new(),
            uses: 0,
        }
    }

    /// The next number in the order of use.
    fn next_use(&mut self) -> u64 {
        self.uses += 1;
        self.uses
    }
}

/// The two tools, as the 2026-07-28 `tools/list` lists them.
pub fn basket_tools() -> Vec<Value> {
    vec![
        json!({
            "name": CREATE_BASKET,
            "description": "Creates an empty basket and returns its handle (bsk_...): pass it to add_item.",
            "inputSchema": {"type": "object", "properties": {}}
        }),
        json!({
            "name": ADD_ITEM,
            "description": "Adds an item to the basket a handle from create_basket names, and returns the basket's contents.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "basket": {"type": "string"},
                    "item": {"type": "string"}
                },
                "required": ["basket", "item"]
            }
        }),
    ]
}

/// Why the serving replica does not know a handle.
enum Unknown {
    /// Lost (its record, or its tombstone, says how); with the index of its ledger entry.
    Lost(HandleLoss, u32),
    /// Minted by another replica with its own store (the handle is not lost, only
    /// elsewhere); with the index of its ledger entry.
    Elsewhere(u32),
    /// Never minted, or forgotten.
    NeverSeen,
}

impl Server {
    /// A `tools/call` of `create_basket` or `add_item`, or `None` for any other tool.
    pub(super) fn basket_call(
        &mut self,
        conn: ConnId,
        id: &Value,
        params: &Value,
    ) -> Option<Answer> {
        let name = params.get("name").and_then(Value::as_str)?;
        let args = params.get("arguments").cloned().unwrap_or(Value::Null);
        match name {
            CREATE_BASKET => Some(self.create_basket(id)),
            ADD_ITEM => Some(self.add_item(conn, id, &args)),
            _ => None,
        }
    }

    fn create_basket(&mut self, id: &Value) -> Answer {
        self.make_handle_room();
        let rng = &mut self.modern.handles.rng;
        let (high, low) = (rng.next_u64(), rng.next_u64());
        let handle = crate::hex::hex_id("bsk_", &[high, low]);
        let now = self.now_ms;
        let home = self.serving.replica;
        let entry = self.ledger.handles_end();
        self.ledger.handles.push(HandleEntry {
            handle: handle.clone(),
            minted_ms: now,
            replica: home,
            used_ms: Vec::new(),
            lost: None,
            misses: Vec::new(),
        });
        let record = HandleRecord {
            entry,
            items: Vec::new(),
            last_used_ms: now,
            last_use: self.modern.handles.next_use(),
            home,
            lost: None,
        };
        self.modern.handles.by_handle.insert(handle.clone(), record);
        let mut result = tools::text_result(&handle);
        result["structuredContent"] = json!({"basket": handle});
        Answer::Now(RpcAnswer::complete(id, result))
    }

    fn add_item(&mut self, conn: ConnId, id: &Value, args: &Value) -> Answer {
        let (Some(handle), Some(item)) = (
            args.get("basket").and_then(Value::as_str),
            args.get("item").and_then(Value::as_str),
        ) else {
            return Answer::Now(RpcAnswer::error(
                id,
                INVALID_PARAMS,
                "Invalid params: add_item needs a string basket and a string item",
            ));
        };
        let now = self.now_ms;
        match self.find_handle(handle) {
            Ok(()) => {
                let last_use = self.modern.handles.next_use();
                let r = self
                    .modern
                    .handles
                    .by_handle
                    .get_mut(handle)
                    .expect("found");
                if r.items.len() >= MAX_BASKET_ITEMS {
                    return tool_error(
                        id,
                        &format!(
                            "basket {handle} is full: it holds at most {MAX_BASKET_ITEMS} items; call {CREATE_BASKET} for another"
                        ),
                    );
                }
                let held: usize = r.items.iter().map(String::len).sum();
                if held + item.len() > MAX_BASKET_BYTES {
                    return tool_error(
                        id,
                        &format!(
                            "basket {handle} is full: it holds at most {MAX_BASKET_BYTES} bytes of items, has {held} and the item is {} bytes; call {CREATE_BASKET} for another",
                            item.len()
                        ),
                    );
                }
                r.items.push(item.to_string());
                r.last_used_ms = now;
                r.last_use = last_use;
                if let Some(e) = self.ledger.kept_handle_mut(r.entry) {
                    e.used_ms.push(now);
                }
                let mut result =
                    tools::text_result(&format!("basket {handle}: {}", r.items.join(", ")));
                result["structuredContent"] = json!({"basket": handle, "items": r.items});
                Answer::Now(RpcAnswer::complete(id, result))
            }
            Err(why) => {
                let entry = match why {
                    Unknown::Lost(_, entry) | Unknown::Elsewhere(entry) => Some(entry),
                    Unknown::NeverSeen => None,
                };
                let replica = self.serving.replica;
                if let Some(e) = entry.and_then(|e| self.ledger.kept_handle_mut(e)) {
                    e.misses.push(HandleMiss {
                        at_ms: now,
                        conn,
                        replica,
                        request_id: id.clone(),
                    });
                }
                if matches!(why, Unknown::Lost(..)) && self.limits.max_handles.is_some() {
                    // It answered once (and the ledger has the miss): a bounded store
                    // forgets it now.
                    self.modern.handles.by_handle.remove(handle);
                }
                let max_handles = self.limits.max_handles;
                unknown_answer(self.knobs.unknown_handle, id, handle, why, max_handles)
            }
        }
    }

    /// Whether the serving replica knows `handle` now; expires it first if it idled out.
    fn find_handle(&mut self, handle: &str) -> Result<(), Unknown> {
        let ttl = self.knobs.handle_idle_ttl.map(|d| d.ms());
        let shared = !self.multi || self.fleet.session_store == SessionStoreScope::Shared;
        let serving = self.serving.replica;
        let now = self.now_ms;
        let Some(r) = self.modern.handles.by_handle.get_mut(handle) else {
            return Err(match self.modern.handles.tombstones.take(handle) {
                Some(stone) => Unknown::Lost(stone.loss, stone.entry),
                None => Unknown::NeverSeen,
            });
        };
        if r.lost.is_none()
            && let Some(ttl) = ttl
            && now >= r.last_used_ms.saturating_add(ttl)
        {
            let at = r.last_used_ms.saturating_add(ttl);
            Self::lose_handle(&mut self.ledger, r, at, HandleLoss::Expired);
        }
        if let Some(why) = r.lost {
            return Err(Unknown::Lost(why, r.entry));
        }
        if !shared && r.home != serving {
            return Err(Unknown::Elsewhere(r.entry));
        }
        Ok(())
    }

    /// Records that `r`'s handle vanished at `at` by `how`.
    pub(super) fn lose_handle(
        ledger: &mut crate::ledger::Ledger,
        r: &mut HandleRecord,
        at: u64,
        how: HandleLoss,
    ) {
        r.lost = Some(how);
        r.items = Vec::new();
        if let Some(e) = ledger.kept_handle_mut(r.entry) {
            e.lost = Some((at, how));
        }
    }

    /// A restart: the handle store keeps what `handle_persistence` says.
    pub(in crate::server) fn restart_handles(&mut self, now: u64) {
        if self.knobs.handle_persistence == HandlePersistence::Nothing {
            for r in self.modern.handles.by_handle.values_mut() {
                if r.lost.is_none() {
                    Self::lose_handle(&mut self.ledger, r, now, HandleLoss::Restart);
                }
            }
        }
    }
}

/// The answer to a call naming a handle the serving replica does not know
/// (`max_handles`: the store's bound, which an eviction's message names).
fn unknown_answer(
    how: UnknownHandle,
    id: &Value,
    handle: &str,
    why: Unknown,
    max_handles: Option<u32>,
) -> Answer {
    let text = match how {
        UnknownHandle::InvalidParams => {
            return Answer::Now(RpcAnswer::error(
                id,
                INVALID_PARAMS,
                format!("Invalid params: unknown basket {handle}"),
            ));
        }
        UnknownHandle::OpaqueIsError => "Internal error".to_string(),
        UnknownHandle::ClearIsError => match why {
            Unknown::Lost(HandleLoss::Expired, _) => {
                format!("basket {handle} has expired; call {CREATE_BASKET} again")
            }
            Unknown::Lost(HandleLoss::Restart, _) => format!(
                "basket {handle} was lost when the server restarted; call {CREATE_BASKET} again"
            ),
            Unknown::Lost(HandleLoss::Evicted, _) => {
                let max =
                    max_handles.map_or_else(|| "a bounded number of".into(), |n| n.to_string());
                format!(
                    "basket {handle} was evicted because the server holds at most {max} handles and it was the least recently used; call {CREATE_BASKET} again"
                )
            }
            Unknown::Elsewhere(_) | Unknown::NeverSeen => {
                format!("basket {handle} is unknown to this server; call {CREATE_BASKET} again")
            }
        },
    };
    tool_error(id, &text)
}

/// A tool result with `isError: true` saying `text`.
fn tool_error(id: &Value, text: &str) -> Answer {
    let mut result = tools::text_result(text);
    result["isError"] = json!(true);
    Answer::Now(RpcAnswer::complete(id, result))
}
