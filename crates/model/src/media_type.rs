//! Media types as HTTP writes them (RFC 9110 §8.3.1, §12.5.1): `type/subtype`, then
//! `;`-separated parameters, compared case-insensitively.
//!
//! A prefix or substring test takes `application/jsonx` for JSON and `text/event-streams`
//! for SSE; the transport's checks ask this module instead, which reads the type and
//! subtype whole and ignores parameters (`charset=utf-8`, `q=0.9`).

/// The `type/subtype` of one media type, lowercased, without parameters or spaces;
/// `None` when it is not of that shape.
fn essence(media_type: &str) -> Option<String> {
    let essence = media_type.split(';').next()?.trim();
    let (kind, subtype) = essence.split_once('/')?;
    let token = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+*".contains(&b))
    };
    if !token(kind) || !token(subtype) {
        return None;
    }
    Some(essence.to_ascii_lowercase())
}

/// True when a `Content-Type` value is exactly `wanted` (a lowercase `type/subtype`),
/// whatever its parameters.
pub(crate) fn is(content_type: &str, wanted: &str) -> bool {
    essence(content_type).as_deref() == Some(wanted)
}

/// True when an `Accept` value lists `wanted` (a lowercase `type/subtype`), itself or
/// through `*/*`.
pub(crate) fn accepts(accept: &str, wanted: &str) -> bool {
    accept
        .split(',')
        .filter_map(essence)
        .any(|range| range == wanted || range == "*/*")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_type_is_read_whole_with_parameters_and_any_case() {
        assert!(is("application/json", "application/json"));
        assert!(is("Application/JSON; charset=utf-8", "application/json"));
        assert!(is("  application/json ;charset=UTF-8", "application/json"));
        assert!(!is("application/jsonx", "application/json"));
        assert!(!is("application/json-seq", "application/json"));
        assert!(!is("application/json/x", "application/json"));
        assert!(!is("text/plain", "application/json"));
        assert!(!is("", "application/json"));
        assert!(!is("application/", "application/json"));
    }

    #[test]
    fn accept_lists_are_split_into_media_ranges() {
        let both = "application/json, text/event-stream";
        assert!(accepts(both, "application/json"));
        assert!(accepts(both, "text/event-stream"));
        assert!(accepts("TEXT/EVENT-STREAM;q=0.9", "text/event-stream"));
        assert!(accepts("*/*", "application/json"));
        assert!(!accepts(
            "application/jsonx, text/event-streams",
            "application/json"
        ));
        assert!(!accepts(
            "application/jsonx, text/event-streams",
            "text/event-stream"
        ));
    }
}
