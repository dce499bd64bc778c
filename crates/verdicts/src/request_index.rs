//! The client's requests by session and by connection, for the oracle.
//!
//! Several checks ask "the requests of this session sent after that moment" or "the first
//! request on this connection answered 200", once per resumption, per session that got a
//! 404 or per re-initialization. Asked of the whole record each time, a client that
//! resumed a thousand times spent most of its run being judged. The index is built once
//! per judgment, and only if a check asks.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use faultline_model::ConnId;

use crate::client_record::{ClientRecord, RequestRecord, Task};

/// The index, built on first use.
pub(crate) struct LazyRequestIndex<'a> {
    record: &'a ClientRecord,
    built: OnceCell<RequestIndex<'a>>,
}

impl<'a> LazyRequestIndex<'a> {
    pub(crate) fn new(record: &'a ClientRecord) -> Self {
        LazyRequestIndex {
            record,
            built: OnceCell::new(),
        }
    }

    pub(crate) fn get(&self) -> &RequestIndex<'a> {
        self.built.get_or_init(|| RequestIndex::new(self.record))
    }
}

pub(crate) struct RequestIndex<'a> {
    requests: &'a [RequestRecord],
    /// Each session's requests (positions in the record), in the record's order.
    by_session: BTreeMap<&'a str, Vec<usize>>,
    /// The same, only the POSTs sent by the client's own tasks (not by a stale one): a
    /// client that resumed a thousand times would otherwise read its GETs once per
    /// resumption to find the next POST.
    own_posts_by_session: BTreeMap<&'a str, Vec<usize>>,
    /// Each connection's first request answered 200, by connection id (the modelled
    /// client numbers its connections 1, 2, 3...).
    first_200: Vec<Option<usize>>,
    /// Whether the record lists requests in sending order (it does: a request is
    /// recorded as it is sent), which lets [`RequestIndex::of_session_after`] skip to
    /// the first one sent after a moment instead of reading them all.
    in_sending_order: bool,
}

impl<'a> RequestIndex<'a> {
    fn new(record: &'a ClientRecord) -> Self {
        let requests = record.requests.as_slice();
        let mut by_session: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut own_posts_by_session: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut first_200: Vec<Option<usize>> = Vec::new();
        for (i, q) in requests.iter().enumerate() {
            if let Some(session) = q.session.as_deref() {
                by_session.entry(session).or_default().push(i);
                if q.http == "POST" && !matches!(q.task, Task::Stale(_)) {
                    own_posts_by_session.entry(session).or_default().push(i);
                }
            }
            if q.status == Some(200) {
                let conn = q.conn.0 as usize;
                if first_200.len() <= conn {
                    first_200.resize(conn + 1, None);
                }
                first_200[conn].get_or_insert(i);
            }
        }
        RequestIndex {
            requests,
            by_session,
            own_posts_by_session,
            first_200,
            in_sending_order: requests.windows(2).all(|w| w[0].sent_seq <= w[1].sent_seq),
        }
    }

    /// The first request on `conn` answered 200.
    pub(crate) fn first_200(&self, conn: ConnId) -> Option<&'a RequestRecord> {
        let first = self.first_200.get(conn.0 as usize).copied().flatten();
        first.map(|i| &self.requests[i])
    }

    /// The requests that carried `session` and were sent after `seq` (in the client's
    /// order of actions), in the record's order.
    pub(crate) fn of_session_after(
        &self,
        session: &str,
        seq: u64,
    ) -> impl Iterator<Item = &'a RequestRecord> + '_ {
        self.after(&self.by_session, session, seq)
    }

    /// The first POST that carried `session`, sent after `seq` by one of the client's own
    /// tasks (a stale task's requests are not the client acting on what it believes).
    pub(crate) fn first_own_post_after(
        &self,
        session: &str,
        seq: u64,
    ) -> Option<&'a RequestRecord> {
        self.after(&self.own_posts_by_session, session, seq).next()
    }

    fn after<'s>(
        &'s self,
        index: &'s BTreeMap<&'a str, Vec<usize>>,
        session: &str,
        seq: u64,
    ) -> impl Iterator<Item = &'a RequestRecord> + 's {
        let positions = index.get(session).map_or(&[][..], Vec::as_slice);
        let start = if self.in_sending_order {
            positions.partition_point(|&i| self.requests[i].sent_seq <= seq)
        } else {
            0
        };
        positions[start..]
            .iter()
            .map(|&i| &self.requests[i])
            .filter(move |q| q.sent_seq > seq)
    }
}

#[cfg(test)]
mod tests {
    use faultline_model::ConnId;

    use crate::client_record::{ClientRecord, RequestRecord, Task};

    use super::LazyRequestIndex;

    fn request(conn: u64, session: &str, status: u16, sent_seq: u64) -> RequestRecord {
        RequestRecord {
            at_ms: sent_seq,
            conn: ConnId(conn),
            task: Task::Main,
            http: "POST",
            rpc: None,
            session: Some(session.to_string()),
            last_event_id: None,
            status: Some(status),
            sent_seq,
            answered_seq: Some(sent_seq + 1),
            call: None,
        }
    }

    fn sent_after(record: &ClientRecord, session: &str, seq: u64) -> Vec<u64> {
        let index = LazyRequestIndex::new(record);
        let index = index.get();
        index
            .of_session_after(session, seq)
            .map(|q| q.sent_seq)
            .collect()
    }

    #[test]
    fn a_session_s_requests_after_a_moment_come_in_order() {
        let mut record = ClientRecord::default();
        for (seq, session) in [(1, "a"), (2, "b"), (3, "a"), (5, "a"), (8, "b")] {
            record.requests.push(request(seq, session, 200, seq));
        }
        assert_eq!(sent_after(&record, "a", 0), [1, 3, 5]);
        assert_eq!(sent_after(&record, "a", 3), [5]);
        assert_eq!(sent_after(&record, "b", 2), [8]);
        assert!(sent_after(&record, "a", 5).is_empty());
        assert!(sent_after(&record, "c", 0).is_empty());
        // Out of sending order, the same question gets the same answer by reading all.
        record.requests.swap(0, 2);
        assert_eq!(sent_after(&record, "a", 1), [3, 5]);
        assert_eq!(sent_after(&record, "a", 0), [3, 1, 5]);
    }

    #[test]
    fn the_first_own_post_after_a_moment_skips_gets_and_stale_tasks() {
        let mut record = ClientRecord::default();
        let mut get = request(1, "a", 200, 1);
        get.http = "GET";
        record.requests.push(get);
        let mut stale = request(2, "a", 404, 2);
        stale.task = Task::Stale(0);
        record.requests.push(stale);
        record.requests.push(request(3, "a", 404, 3));
        record.requests.push(request(4, "b", 200, 4));
        let index = LazyRequestIndex::new(&record);
        let first = |seq| {
            index
                .get()
                .first_own_post_after("a", seq)
                .map(|q| q.sent_seq)
        };
        assert_eq!(first(0), Some(3));
        assert_eq!(first(3), None);
    }

    #[test]
    fn a_connection_s_first_200_is_the_first_answered_200() {
        let mut record = ClientRecord::default();
        record.requests.push(request(1, "a", 404, 1));
        record.requests.push(request(1, "a", 200, 2));
        record.requests.push(request(1, "a", 200, 3));
        let index = LazyRequestIndex::new(&record);
        assert_eq!(
            index.get().first_200(ConnId(1)).map(|q| q.sent_seq),
            Some(2)
        );
        assert!(index.get().first_200(ConnId(2)).is_none());
    }
}
