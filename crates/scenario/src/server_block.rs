//! A scenario's `server:` block, read as knobs on top of a base: `(profile: "rmcp-3.11",
//! event_log_ttl: "30s")` starts from that SDK profile's knobs and changes the ones it
//! names; without `profile`, from the defaults. The same reading sets one knob by name
//! (`faultline serve --knob NAME=VALUE`), so the CLI and the file cannot disagree on a
//! knob's spelling.
//!
//! Each field's value is read into its own type while the parser stands on it, so a bad
//! value's error has its line and column, as with the derived reading it replaces.

use std::fmt;

use faultline_model::{ServerKnobs, profile};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

type Setter = Box<dyn FnOnce(&mut ServerKnobs)>;

/// Every field of [`ServerKnobs`], by its name in a scenario file, and how to read it, from
/// the one list of fields (`faultline_model::with_server_knob_fields`). A field missing
/// there does not compile (`every_field_is_listed`).
macro_rules! knob_fields {
    ($($field:ident),* $(,)?) => {
        /// The names a `server:` block (and `--knob`) takes: `profile`, then every knob.
        pub const SERVER_FIELDS: &[&str] = &["profile", $(stringify!($field)),*];

        fn read_field<'de, A: MapAccess<'de>>(
            name: &str,
            map: &mut A,
        ) -> Result<Option<Setter>, A::Error> {
            Ok(Some(match name {
                $(stringify!($field) => {
                    let value = map.next_value()?;
                    Box::new(move |k: &mut ServerKnobs| k.$field = value)
                })*
                _ => return Ok(None),
            }))
        }

        #[allow(dead_code)]
        fn every_field_is_listed(k: ServerKnobs) {
            let ServerKnobs { $($field: _),* } = k;
        }
    };
}

faultline_model::with_server_knob_fields!(knob_fields);

/// Reads a `server:` block onto `base` (the knobs the block starts from unless it names a
/// profile).
pub(crate) struct ServerBlock {
    pub base: ServerKnobs,
}

impl<'de> DeserializeSeed<'de> for ServerBlock {
    type Value = ServerKnobs;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<ServerKnobs, D::Error> {
        d.deserialize_struct("ServerKnobs", SERVER_FIELDS, self)
    }
}

impl<'de> Visitor<'de> for ServerBlock {
    type Value = ServerKnobs;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("server knobs: (profile: \"NAME\", knob: value, …)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ServerKnobs, A::Error> {
        let mut base = self.base;
        let mut setters = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            if seen.contains(&name) {
                return Err(de::Error::custom(format!("duplicate field `{name}`")));
            }
            if name == "profile" {
                let wanted: String = map.next_value()?;
                base = profile(&wanted).map_err(de::Error::custom)?.knobs();
            } else {
                match read_field(&name, &mut map)? {
                    Some(set) => setters.push(set),
                    None => return Err(de::Error::unknown_field(&name, SERVER_FIELDS)),
                }
            }
            seen.push(name);
        }
        for set in setters {
            set(&mut base);
        }
        Ok(base)
    }
}

/// `#[serde(deserialize_with)]` for a scenario's `server` field.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ServerKnobs, D::Error> {
    ServerBlock {
        base: ServerKnobs::default(),
    }
    .deserialize(d)
}

/// Sets the knob `name` of `knobs` to `value`, written as in a scenario file. A value
/// that starts with a digit and ends with a letter is a duration (`30s`) and needs no
/// quotes; an optional knob takes its value without `Some(…)`. `profile=NAME` replaces
/// every knob with that profile's.
pub fn set_knob(knobs: &mut ServerKnobs, name: &str, value: &str) -> Result<(), String> {
    let value = value.trim();
    let quoted = (value.starts_with(|c: char| c.is_ascii_digit())
        && value.ends_with(|c: char| c.is_ascii_alphabetic()))
        || (name == "profile" && !value.starts_with('"'));
    let value = if quoted {
        format!("{value:?}")
    } else {
        value.to_string()
    };
    let read = |v: &str| {
        let block = ServerBlock {
            base: knobs.clone(),
        };
        ron::Options::default().from_str_seed(&format!("({name}: {v})"), block)
    };
    let set = read(&value)
        .or_else(|first| read(&format!("Some({value})")).map_err(|_| first))
        .map_err(|e| format!("--knob {name}={value}: {}", e.code))?;
    set.validate()
        .map_err(|e| format!("--knob {name}={value}: {e}"))?;
    *knobs = set;
    Ok(())
}

#[cfg(test)]
mod tests {
    use faultline_model::{IdFormat, UnknownCursor};

    use super::*;

    fn block(text: &str) -> Result<ServerKnobs, ron::error::SpannedError> {
        ron::Options::default().from_str_seed(
            text,
            ServerBlock {
                base: ServerKnobs::default(),
            },
        )
    }

    #[test]
    fn a_profile_is_the_base_and_named_knobs_override_it_in_any_order() {
        let rmcp = profile("rmcp-3.11").unwrap().knobs();
        assert_eq!(block("(profile: \"rmcp-3.11\")").unwrap(), rmcp);
        let changed = block("(event_log_capacity: Some(4), profile: \"rmcp-3.11\")").unwrap();
        assert_eq!(changed.event_log_capacity, Some(4));
        assert_eq!(changed.id_format, IdFormat::IndexSlashRequest);
        assert_eq!(block("()").unwrap(), ServerKnobs::default());
    }

    #[test]
    fn bad_blocks_are_refused_with_a_position_and_the_known_names() {
        let e = block("(\n  profile: \"rmcp-9\",\n)").unwrap_err();
        assert!(e.to_string().contains("rmcp-3.11"), "{e}");
        assert_eq!(e.span.start.line, 2, "{e}");
        let e = block("(id_sheme: PerStream)").unwrap_err();
        assert!(e.to_string().contains("id_scheme"), "{e}");
        let e = block("(\n\n  unknown_cursor: Sometimes)").unwrap_err();
        assert_eq!(e.span.start.line, 3, "{e}");
        assert!(block("(priming_events: true, priming_events: false)").is_err());
    }

    #[test]
    fn set_knob_reads_values_as_a_scenario_does() {
        let mut k = ServerKnobs::default();
        set_knob(&mut k, "event_log_ttl", "30s").unwrap();
        assert_eq!(k.event_log_ttl.map(|d| d.ms()), Some(30_000));
        set_knob(&mut k, "event_log_capacity", "5").unwrap();
        assert_eq!(k.event_log_capacity, Some(5));
        set_knob(&mut k, "unknown_cursor", "Empty200").unwrap();
        assert_eq!(k.unknown_cursor, UnknownCursor::Empty200);
        set_knob(&mut k, "profile", "python-2.3-store").unwrap();
        assert_eq!(k, profile("python-2.3-store").unwrap().knobs());
        let e = set_knob(&mut k, "nope", "1").unwrap_err();
        assert!(e.contains("nope") && e.contains("unknown_cursor"), "{e}");
        assert!(set_knob(&mut k, "event_log_capacity", "0").is_err());
    }
}
