//! # faultline-model
//!
//! A sans-IO model of an MCP server on the Streamable HTTP transport, written so that the
//! two pieces of state that session resumption depends on — the **session**
//! (`Mcp-Session-Id`) and the **event log** behind the SSE cursor (`Last-Event-ID`) — expire
//! on independent clocks and are numbered by configurable schemes.
//!
//! The model is a plain state machine: [`Server::handle`] takes an [`HttpRequest`] and the
//! current virtual time and appends [`Output`]s; [`Server::advance`] runs clock-driven work
//! (tool-job steps, TTL expiry). It never reads the wall clock, the OS RNG or the
//! environment, and iterates only ordered maps, so the same inputs give the same outputs
//! byte for byte. Everything it produces is recorded in a [`Ledger`], the ground truth that
//! verdicts are checked against.

pub mod authority;
mod duration;
mod event_log;
mod fleet;
mod hex;
mod http;
mod ids;
pub mod jsonrpc;
mod knobs;
mod ledger;
mod limits;
mod media_type;
mod min_set;
mod profile;
mod route;
mod rpc_answer;
mod rpc_message;
mod rpc_params;
mod server;
mod session_store;
mod session_tag;
pub mod tools;
mod wire_id;

pub use duration::{DurationError, DurationMs, PositiveDurationMs};
pub use fleet::{
    Balancer, EventStoreScope, FleetKnobs, MAX_REPLICAS, Notifications, SessionStoreScope,
    SharedKey,
};
pub use http::{EndMode, HttpMethod, HttpRequest, HttpResponse, Output, RequestBody, ResponseBody};
pub use ids::{ConnId, EventRef, JobId, SessionKey, StreamId};
pub use knobs::{
    DEFAULT_LIST_TTL_MS, DeadSessionAnswer, DeleteAnswer, Era, ErrorCodes, HandlePersistence,
    IdFormat, IdScheme, LegacyGet, LegacyProbeAnswer, OnStreamCut, RefusalBody, RestartPersistence,
    ResumedStreamEnd, SecondStandalone, ServerKnobs, SessionIdHeader, StaleStandalone,
    StaleStandaloneAnswer, StandaloneGet, TaskPersistence, UnknownCursor, UnknownHandle,
};
pub use ledger::{
    AnswerEntry, CursorResolution, CutEntry, CutReason, DeathCause, EffectEntry, EraAnswer,
    EraAnswerKind, EraChange, HandleEntry, HandleLoss, HandleMiss, HangCause, HangEntry, JobEnd,
    JobEntry, Ledger, ListChange, ListName, ListenEnd, ListenEntry, ListenFilter, MisrouteEntry,
    Payload, ProducedEvent, ReplicaChange, ReplicaEvent, ResumeEntry, SendEntry, SessionEntry,
    StreamEntry, StreamKind, TaskEntry, TaskLoss, TaskMiss, TaskStatus,
};
pub use limits::{KEPT_TEXT_BYTES, Limits};
pub use profile::{PROFILES, Profile, profile};
pub use route::{HeldBy, ReplicaId, Route, RouteWhy};
pub use rpc_answer::{Outcome, RpcAnswer};
pub use rpc_message::RpcMessage;
pub use rpc_params::{
    ClientMeta, InitializeParams, ModernParams, ParamMembers, RpcParams, ToolCallParams,
};
pub use server::era::{MODERN_PROTOCOL_VERSIONS, RequestEra};
pub use server::{
    LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, Server, era, modern, origin_is_local,
};
pub use session_tag::{SESSION_TAG_META, session_tag, session_tag_text};
