//! Records for the rules' unit tests: a server notification as the ledger holds it, and a
//! modelled client's GET as its record holds it, every field no rule under test reads set
//! to its plainest value. Tests change the fields they are about with struct update syntax.

use faultline_model::{ConnId, Payload, ProducedEvent, SessionKey, StreamId};

use crate::client_record::{RequestRecord, Task};

/// Notification `id` (its `seq` too) of `session` on stream 0, produced at `at_ms`.
pub(crate) fn notification(id: u64, session: u32, at_ms: u64) -> ProducedEvent {
    ProducedEvent {
        id,
        stream: StreamId(0),
        ordinal: id as u32,
        session: SessionKey(session),
        generation: 0,
        at_ms,
        payload: Payload::Notification { seq: id },
    }
}

/// A GET on `conn` naming `session`, sent at 0 and answered 200.
pub(crate) fn get(conn: u64, session: &str) -> RequestRecord {
    RequestRecord {
        at_ms: 0,
        conn: ConnId(conn),
        task: Task::Main,
        http: "GET",
        rpc: None,
        session: Some(session.into()),
        last_event_id: None,
        status: Some(200),
        sent_seq: 1,
        answered_seq: Some(2),
        call: None,
    }
}
