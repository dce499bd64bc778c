//! ron's errors, retold as sentences about the scenario file.
//!
//! ron speaks of its own grammar ("Found invalid std identifier, try the raw identifier
//! `r#42`", "Expected opening `(` for struct `Scenario`"); a scenario author needs to hear
//! which field is wrong and which values it takes. Everything here is about wording: the
//! position comes from ron.

use faultline_model::{DeadSessionAnswer, EndMode, IdScheme, RestartPersistence, UnknownCursor};
use serde::de::DeserializeOwned;

use crate::scenario::{ClientModel, StreamSel, Tool, Trigger};
use crate::source_map::{TextPosition, field_at};

/// The variant names of a serde enum, read from the error serde gives for a name that
/// is not one of them (so the list cannot drift from the types).
fn variants<T: DeserializeOwned>() -> &'static [&'static str] {
    match ron::de::from_str::<T>("NotAVariant") {
        Err(e) => match e.code {
            ron::Error::NoSuchEnumVariant { expected, .. } => expected,
            _ => &[],
        },
        Ok(_) => &[],
    }
}

/// The values a field takes, for the fields whose value is one of a fixed set of names.
fn enum_field_values(field: &str) -> Option<&'static [&'static str]> {
    Some(match field {
        "id_scheme" => variants::<IdScheme>(),
        "unknown_cursor" => variants::<UnknownCursor>(),
        "restart_persistence" => variants::<RestartPersistence>(),
        "dead_session_answer" => variants::<DeadSessionAnswer>(),
        "model" => variants::<ClientModel>(),
        "mode" => variants::<EndMode>(),
        "stream" | "on" => variants::<StreamSel>(),
        "tool" => variants::<Tool>(),
        "when" => variants::<Trigger>(),
        _ => return None,
    })
}

/// The token that starts at `at` in `text` (what the author wrote where ron stopped).
fn token_at(text: &str, at: TextPosition) -> String {
    let Some(line) = text.lines().nth(at.line.saturating_sub(1)) else {
        return String::new();
    };
    let rest: String = line.chars().skip(at.column.saturating_sub(1)).collect();
    first_token(&rest)
}

/// The token `rest` starts with: a quoted string whole, else up to the next separator.
fn first_token(rest: &str) -> String {
    if let Some(quoted) = rest.strip_prefix('"') {
        let end = quoted.find('"').map_or(quoted.len(), |i| i + 1);
        return format!("\"{}", &quoted[..end]);
    }
    rest.chars()
        .take_while(|c| !matches!(c, ',' | ')' | ']' | '}') && !c.is_whitespace())
        .collect()
}

/// What the author wrote as `field`'s value on the line of `at` (the last `field:` before
/// it): a quoted string whole, else up to the next separator.
fn value_of(text: &str, at: TextPosition, field: &str) -> String {
    let Some(line) = text.lines().nth(at.line.saturating_sub(1)) else {
        return String::new();
    };
    let upto: String = line.chars().take(at.column.saturating_sub(1)).collect();
    let key = format!("{field}:");
    let Some(start) = upto.rfind(&key) else {
        return token_at(text, at);
    };
    first_token(line[start + key.len()..].trim_start())
}

/// Names listed once each: where both a CamelCase name and its snake_case alias are
/// accepted (verdict kinds), the snake_case one, which reports use.
fn distinct_names(expected: &[&str]) -> Vec<String> {
    let snake = |name: &str| {
        let mut out = String::new();
        for (i, c) in name.chars().enumerate() {
            if c.is_ascii_uppercase() {
                if i > 0 {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    };
    expected
        .iter()
        .filter(|name| {
            let s = snake(name);
            s == **name || !expected.contains(&s.as_str())
        })
        .map(|name| name.to_string())
        .collect()
}

/// Lowercases the first letter of ron's message so it reads after "field: ".
fn sentence(code: &ron::Error) -> String {
    let text = code.to_string();
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

/// Turns a ron error at `at` in `text` into a sentence that says what to change.
pub(crate) fn explain(code: &ron::Error, text: &str, at: TextPosition) -> String {
    match code {
        ron::Error::NoSuchStructField {
            expected,
            found,
            outer,
        } => {
            let outer = outer.as_deref().unwrap_or("this struct");
            format!(
                "unknown field `{found}` in {outer}; expected one of: {}",
                expected.join(", ")
            )
        }
        ron::Error::MissingStructField { field, outer } => {
            let outer = outer.as_deref().unwrap_or("this struct");
            format!("missing field `{field}` in {outer}")
        }
        ron::Error::NoSuchEnumVariant {
            expected,
            found,
            outer,
        } => {
            let outer = outer.as_deref().unwrap_or("this enum");
            format!(
                "unknown variant `{found}` of {outer}; expected one of: {}",
                distinct_names(expected).join(", ")
            )
        }
        other => {
            let Some(field) = field_at(text, at) else {
                return other.to_string();
            };
            match enum_field_values(&field) {
                Some(values) => {
                    let found = match other {
                        ron::Error::SuggestRawIdentifier(found)
                        | ron::Error::InvalidIdentifier(found) => found.clone(),
                        _ => token_at(text, at),
                    };
                    let hint = if found.starts_with('"') {
                        " (write the name bare, without quotes)"
                    } else {
                        ""
                    };
                    format!(
                        "{field}: expected one of {}; found `{found}`{hint}",
                        values.join(", ")
                    )
                }
                None => match other {
                    ron::Error::ExpectedOption => format!(
                        "{field}: this value is optional: write `Some({found})` (or `None` for none)",
                        found = value_of(text, at, &field)
                    ),
                    ron::Error::ExpectedString => format!(
                        "{field}: expected a string; found `{found}` (a duration is written as a string with its unit: \"90s\", \"5m\", \"1h\")",
                        found = value_of(text, at, &field).trim_start_matches("Some(")
                    ),
                    _ => format!("{field}: {}", sentence(other)),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_lists_come_from_the_types() {
        assert_eq!(
            variants::<IdScheme>(),
            ["SessionMonotonic", "PerStream", "PerGeneration", "Constant"]
        );
        assert!(variants::<Trigger>().contains(&"AfterEvent"));
    }

    #[test]
    fn camel_and_snake_spellings_are_listed_once() {
        assert_eq!(
            distinct_names(&["Clean", "clean", "SilentGap", "silent_gap", "Other"]),
            ["clean", "silent_gap", "Other"]
        );
    }
}
