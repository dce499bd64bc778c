//! How a virtual time and a session id are spelled, everywhere a person reads them.
//!
//! The text report, both judges' verdict sentences, the diagrams, `explain` and grade's
//! card all print times and session ids; they spell them through these two functions so
//! that a time or an id copied from one output can be searched for in any other.

use faultline_model::DurationMs;

/// A moment of virtual time, counted from the start of the run: `T+0s`, `T+5m`,
/// `T+1m50ms`, `T+4m43s550ms` (the shortest exact [`DurationMs`] spelling).
pub fn vtime(at_ms: u64) -> String {
    format!("T+{}", DurationMs(at_ms))
}

/// The first 8 characters of a session id (the whole id if shorter): enough to tell the
/// sessions of a run apart. Cuts on a character boundary, so any text is safe.
pub fn short_id(session: &str) -> &str {
    match session.char_indices().nth(8) {
        Some((i, _)) => &session[..i],
        None => session,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_spelled_from_the_start_of_the_run() {
        assert_eq!(vtime(0), "T+0s");
        assert_eq!(vtime(300_000), "T+5m");
        assert_eq!(vtime(60_050), "T+1m50ms");
        assert_eq!(vtime(283_550), "T+4m43s550ms");
    }

    #[test]
    fn session_ids_are_cut_to_eight_characters_on_a_char_boundary() {
        assert_eq!(short_id("5e26b79a0c1d4e2f"), "5e26b79a");
        assert_eq!(short_id("abc"), "abc");
        assert_eq!(short_id(""), "");
        // Trace files come from outside: a multi-byte id must not panic.
        assert_eq!(short_id("ééééééééé"), "éééééééé");
    }
}
