//! Media types as HTTP writes them (RFC 9110 §8.3.1, §12.5.1): `type/subtype`, then
//! `;`-separated parameters, compared case-insensitively.
//!
//! A prefix or substring test takes `application/jsonx` for JSON and `text/event-streams`
//! for SSE; the transport's checks ask this module instead, which reads the type and
//! subtype whole and ignores parameters (`charset=utf-8`, `q=0.9`).

/// The bytes this module takes in a type or subtype token (letters, digits and
/// `!#$&-^_.+*`), as a table: every byte of every media type of every POST is checked.
const TOKEN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'!' | b'#' | b'$' | b'&' | b'-' | b'^' | b'_' | b'.' | b'+' | b'*'
            );
        b += 1;
    }
    table
};

/// The `type/subtype` of one media type, without parameters or spaces (as written: compare
/// it with [`str::eq_ignore_ascii_case`]); `None` when it is not of that shape.
///
/// Borrowed, not lowercased into a new string, and read byte by byte: every POST asks
/// this for each of its media ranges, and the allocating, char-searching version was 6 %
/// of an explored seed.
fn essence(media_type: &str) -> Option<&str> {
    let bytes = media_type.as_bytes();
    let end = bytes.iter().position(|&b| b == b';').unwrap_or(bytes.len());
    let essence = media_type[..end].trim();
    let bytes = essence.as_bytes();
    let slash = bytes.iter().position(|&b| b == b'/')?;
    let token = |t: &[u8]| !t.is_empty() && t.iter().all(|&b| TOKEN[b as usize]);
    if !token(&bytes[..slash]) || !token(&bytes[slash + 1..]) {
        return None;
    }
    Some(essence)
}

/// True when a `Content-Type` value is exactly `wanted` (a lowercase `type/subtype`),
/// whatever its parameters.
pub(crate) fn is(content_type: &str, wanted: &str) -> bool {
    // What every modelled client sends (and most real ones): known without parsing.
    if content_type == "application/json" {
        return wanted.eq_ignore_ascii_case(content_type);
    }
    essence(content_type).is_some_and(|e| e.eq_ignore_ascii_case(wanted))
}

/// True when an `Accept` value names `wanted` (a lowercase `type/subtype`) itself; `*/*`
/// does not count (the `accept_wildcard` knob off: the TypeScript SDK's reading).
pub(crate) fn names(accept: &str, wanted: &str) -> bool {
    accept
        .split(',')
        .filter_map(essence)
        .any(|range| range.eq_ignore_ascii_case(wanted))
}

/// True when an `Accept` value lists `wanted` (a lowercase `type/subtype`), itself or
/// through `*/*`.
pub(crate) fn accepts(accept: &str, wanted: &str) -> bool {
    // The lists every modelled client sends (and most real ones): known without parsing.
    match accept {
        "application/json, text/event-stream" => {
            return wanted.eq_ignore_ascii_case("application/json")
                || wanted.eq_ignore_ascii_case("text/event-stream");
        }
        "text/event-stream" => return wanted.eq_ignore_ascii_case(accept),
        _ => {}
    }
    accept
        .split(',')
        .filter_map(essence)
        .any(|range| range.eq_ignore_ascii_case(wanted) || range == "*/*")
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

    /// The lists answered without parsing answer what parsing them would (the same lists,
    /// spelled so that they take the parsing path).
    #[test]
    fn the_unparsed_common_lists_agree_with_parsing() {
        for wanted in ["application/json", "text/event-stream", "text/plain", "*/*"] {
            assert_eq!(
                accepts("application/json, text/event-stream", wanted),
                accepts("application/json ,text/event-stream", wanted),
                "{wanted}"
            );
            assert_eq!(
                accepts("text/event-stream", wanted),
                accepts("text/event-stream ", wanted),
                "{wanted}"
            );
            assert_eq!(
                is("application/json", wanted),
                is("application/json ", wanted),
                "{wanted}"
            );
        }
    }
}
