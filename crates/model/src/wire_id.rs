//! Event ids as written on the wire, in the spelling the `id_format` knob names, and read
//! back from `Last-Event-ID`.
//!
//! The model numbers events by its id scheme and never sees a spelling; this is the one
//! place that turns a number into text and text into a number. Spellings are pure functions
//! of the event (no randomness, no clock): the "random" parts are a bijective mix of the
//! number, so reading one back is arithmetic and a changed character names another,
//! almost surely unknown, event.

use crate::knobs::IdFormat;
use crate::ledger::{ProducedEvent, StreamKind};

/// A made-up epoch for the `<ms>` part of [`IdFormat::StreamMsRandom`] ids: virtual time
/// starts at 0, a JavaScript `Date.now()` does not (2026-01-01T00:00:00Z).
const EPOCH_MS: u64 = 1_767_225_600_000;
/// Keeps the two halves of a UUID (and a stream's UUID from an event's) apart.
const SALT: u64 = 0x6a09_e667_f3bc_c908;

/// The splitmix64 finalizer: a bijection on u64.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The inverse of [`mix`].
fn unmix(mut x: u64) -> u64 {
    x = (x ^ (x >> 31) ^ (x >> 62)).wrapping_mul(0x3196_42b2_d24d_8ec3);
    x = (x ^ (x >> 27) ^ (x >> 54)).wrapping_mul(0x96de_1b17_3f11_9089);
    x ^ (x >> 30) ^ (x >> 60)
}

fn uuid(n: u64) -> String {
    let (hi, lo) = (mix(n ^ SALT), mix(n));
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xffff,
        hi & 0xffff,
        lo >> 48,
        lo & 0xffff_ffff_ffff
    )
}

fn from_uuid(text: &str) -> Option<u64> {
    let hex: String = text.split('-').collect();
    let groups: Vec<usize> = text.split('-').map(str::len).collect();
    if groups != [8, 4, 4, 4, 12] || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let hi = u64::from_str_radix(&hex[..16], 16).ok()?;
    let n = unmix(u64::from_str_radix(&hex[16..], 16).ok()?);
    (mix(n ^ SALT) == hi).then_some(n)
}

fn base36(mut n: u64) -> String {
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(digits[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("ascii")
}

/// The `id:` text of `event` (numbered `id`), or `None` when the format writes none.
pub(crate) fn render(
    format: IdFormat,
    id: u64,
    event: &ProducedEvent,
    kind: StreamKind,
) -> Option<String> {
    Some(match format {
        IdFormat::Number => id.to_string(),
        IdFormat::Hidden => return None,
        IdFormat::IndexSlashRequest if kind == StreamKind::Standalone => id.to_string(),
        IdFormat::IndexSlashRequest => format!("{id}/{}", event.stream.0),
        IdFormat::Uuid => uuid(id),
        IdFormat::StreamMsRandom => format!(
            "{}_{}_{}",
            uuid(u64::from(event.stream.0).wrapping_add(SALT)),
            EPOCH_MS + event.at_ms,
            base36(mix(id))
        ),
    })
}

/// The number a `Last-Event-ID` names in `format`; `None` when it names none (a cursor no
/// event could have had, or any cursor under [`IdFormat::Hidden`]).
pub(crate) fn decode(format: IdFormat, text: &str) -> Option<u64> {
    let text = text.trim();
    match format {
        IdFormat::Number => text.parse().ok(),
        IdFormat::Hidden => None,
        IdFormat::IndexSlashRequest => {
            let index = text.split_once('/').map_or(text, |(index, request)| {
                if request.parse::<u32>().is_ok() {
                    index
                } else {
                    ""
                }
            });
            index.parse().ok()
        }
        IdFormat::Uuid => from_uuid(text),
        IdFormat::StreamMsRandom => {
            let (_, random) = text.rsplit_once('_')?;
            if random.is_empty() || !random.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return None;
            }
            u64::from_str_radix(&random.to_ascii_lowercase(), 36)
                .ok()
                .map(unmix)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{SessionKey, StreamId};
    use crate::ledger::Payload;

    fn event(stream: u32, at_ms: u64) -> ProducedEvent {
        ProducedEvent {
            id: 0,
            stream: StreamId(stream),
            ordinal: 1,
            session: SessionKey(0),
            generation: 1,
            at_ms,
            payload: Payload::Priming,
        }
    }

    #[test]
    fn every_spelling_reads_back_as_its_number() {
        for format in [
            IdFormat::Number,
            IdFormat::IndexSlashRequest,
            IdFormat::Uuid,
            IdFormat::StreamMsRandom,
        ] {
            for (id, stream, kind) in [
                (0, 1, StreamKind::Request),
                (41, 7, StreamKind::Standalone),
                (u64::MAX / 3, 9, StreamKind::Request),
            ] {
                let text = render(format, id, &event(stream, 1_234), kind).expect("an id");
                assert_eq!(decode(format, &text), Some(id), "{format:?} {text}");
            }
        }
    }

    #[test]
    fn spellings_have_their_servers_shapes() {
        let e = event(3, 250);
        assert_eq!(
            render(IdFormat::IndexSlashRequest, 4, &e, StreamKind::Request).unwrap(),
            "4/3"
        );
        assert_eq!(
            render(IdFormat::IndexSlashRequest, 4, &e, StreamKind::Standalone).unwrap(),
            "4"
        );
        let u = render(IdFormat::Uuid, 4, &e, StreamKind::Request).unwrap();
        assert_eq!(
            u.split('-').map(str::len).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        let t = render(IdFormat::StreamMsRandom, 4, &e, StreamKind::Request).unwrap();
        let parts: Vec<&str> = t.split('_').collect();
        assert_eq!(parts.len(), 3, "{t}");
        assert_eq!(parts[1], (EPOCH_MS + 250).to_string());
        assert_eq!(render(IdFormat::Hidden, 4, &e, StreamKind::Request), None);
    }

    #[test]
    fn a_changed_or_foreign_cursor_names_no_event() {
        let u = render(IdFormat::Uuid, 4, &event(1, 0), StreamKind::Request).unwrap();
        let changed = u.replace(|c: char| c.is_ascii_digit(), "9");
        assert_eq!(decode(IdFormat::Uuid, &changed), None);
        assert_eq!(decode(IdFormat::Uuid, "41"), None);
        assert_eq!(decode(IdFormat::Hidden, "41"), None);
        assert_eq!(decode(IdFormat::IndexSlashRequest, "4/x"), None);
        assert_eq!(decode(IdFormat::Number, "not a cursor!"), None);
    }
}
