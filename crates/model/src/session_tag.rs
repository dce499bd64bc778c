//! The session tag a fleet puts in every notification's `_meta`, so that a client can tell
//! which session an event belongs to.
//!
//! An SSE event id says nothing about its session, and a shared event store keyed by stream
//! can replay one session's notifications to another (the SDKs name every standalone
//! stream `_GET_stream`; <https://github.com/PrefectHQ/fastmcp/pull/4402> fixed a store
//! keyed by it). A client that checks each event's tag
//! against its own session turns that silent cross-session replay into an error it can act
//! on. The tag is a digest of the session id, not the id itself: an event replayed into
//! the wrong session must not hand its reader a session it could then use. FNV-1a, never
//! `std::hash`, so it is the same in every process and on both sides of the wire.

/// The `_meta` key under which a notification carries its session's tag.
pub const SESSION_TAG_META: &str = "io.faultline/session";

/// The tag of the session whose wire id (`Mcp-Session-Id`) is `wire_id`.
pub fn session_tag(wire_id: &str) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    wire_id
        .bytes()
        .fold(OFFSET, |h, b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// The tag as it is written on the wire: 16 lowercase hex digits.
pub fn session_tag_text(wire_id: &str) -> String {
    crate::hex::hex_id("", &[session_tag(wire_id)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_differ_per_session_and_are_fnv1a() {
        // FNV-1a 64 of the empty string is its offset basis; of "a", the published value.
        assert_eq!(session_tag(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(session_tag("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(
            session_tag("0123456789abcdef0123456789abcdef"),
            session_tag("0123456789abcdef0123456789abcdee")
        );
        assert_eq!(session_tag_text(""), "cbf29ce484222325");
    }
}
