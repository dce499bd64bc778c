//! An answer of a ledger for the rules' unit tests: a POST answered `status`, every field
//! no rule under test reads left empty. Each test sets the fields it is about with
//! struct update syntax (`AnswerEntry { rpc_method: ..., ..answer(1, 0, 200) }`).

use faultline_model::{AnswerEntry, ConnId, HttpMethod};

pub(crate) fn answer(conn: u64, at_ms: u64, status: u16) -> AnswerEntry {
    AnswerEntry {
        conn: ConnId(conn),
        at_ms,
        method: HttpMethod::Post,
        rpc_method: None,
        session_sent: None,
        status,
        rpc_method_len: None,
        session_sent_len: None,
        route: None,
        list_version: None,
        list_ttl_ms: None,
        dead_session: false,
    }
}
