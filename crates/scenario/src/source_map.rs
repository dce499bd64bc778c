//! Where things are in a scenario's RON text, for errors found after parsing.
//!
//! serde hands the checks a parsed [`crate::Scenario`] without positions, yet a check that
//! finds `faults[1]` wrong still owes the reader a line and a column, and an error inside a
//! value is clearer when it names the field it is in. This scanner reads the text once,
//! skipping comments and string contents, and answers both questions.

/// A 1-based line and column, as ron reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct TextPosition {
    pub line: usize,
    pub column: usize,
}

/// One character that matters to structure: not whitespace, not in a comment; a string
/// is kept as its opening quote only.
#[derive(Debug, Clone, Copy)]
struct Significant {
    at: TextPosition,
    ch: char,
}

fn significant(text: &str) -> Vec<Significant> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let (mut line, mut column) = (1, 1);
    let step = |c: char, line: &mut usize, column: &mut usize| {
        if c == '\n' {
            *line += 1;
            *column = 1;
        } else {
            *column += 1;
        }
    };
    while let Some(c) = chars.next() {
        let at = TextPosition { line, column };
        step(c, &mut line, &mut column);
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    step(c, &mut line, &mut column);
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut previous = ' ';
                for c in chars.by_ref() {
                    step(c, &mut line, &mut column);
                    if previous == '*' && c == '/' {
                        break;
                    }
                    previous = c;
                }
            }
            '"' => {
                out.push(Significant { at, ch: c });
                let mut escaped = false;
                for c in chars.by_ref() {
                    step(c, &mut line, &mut column);
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => break,
                        _ => escaped = false,
                    }
                }
            }
            c if c.is_whitespace() => {}
            c => out.push(Significant { at, ch: c }),
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `b` directly follows `a` in the text (same line, next column).
fn adjacent(a: &Significant, b: &Significant) -> bool {
    a.at.line == b.at.line && a.at.column + 1 == b.at.column
}

/// The identifier that ends at index `end` (inclusive) of `sig`, if any.
fn identifier_ending_at(sig: &[Significant], end: usize) -> Option<String> {
    if !is_ident(sig[end].ch) {
        return None;
    }
    let mut start = end;
    while start > 0 && is_ident(sig[start - 1].ch) && adjacent(&sig[start - 1], &sig[start]) {
        start -= 1;
    }
    Some(sig[start..=end].iter().map(|s| s.ch).collect())
}

/// Whether there is nothing but whitespace and comments in `text`.
pub(crate) fn is_blank(text: &str) -> bool {
    significant(text).is_empty()
}

/// The field whose value starts at `at` (`id_scheme` for the `42` of `id_scheme: 42`).
pub(crate) fn field_at(text: &str, at: TextPosition) -> Option<String> {
    let sig = significant(text);
    let mut before = sig.iter().rposition(|s| s.at < at)?;
    // Inside an optional value, `field: Some(...)`: the field is before the `Some(`.
    if sig[before].ch == '('
        && before > 0
        && identifier_ending_at(&sig, before - 1).as_deref() == Some("Some")
    {
        before = before.checked_sub(5)?;
    }
    if sig[before].ch != ':' || before == 0 {
        return None;
    }
    identifier_ending_at(&sig, before - 1)
}

/// Where `name(` opens, outside comments and strings (the first one).
pub(crate) fn struct_open(text: &str, name: &str) -> Option<TextPosition> {
    let sig = significant(text);
    let chars: Vec<char> = name.chars().collect();
    (0..sig.len().saturating_sub(chars.len())).find_map(|i| {
        let matches = sig[i..i + chars.len()]
            .iter()
            .zip(&chars)
            .all(|(s, c)| s.ch == *c)
            && sig[i + chars.len()].ch == '('
            && (i == 0 || !(sig[i - 1].ch.is_alphanumeric() || sig[i - 1].ch == '_'));
        matches.then_some(sig[i].at)
    })
}

/// Where item `index` (0-based) of the top-level list field `field` starts, e.g. the
/// second entry of `faults: [ ... ]`.
pub(crate) fn list_item(text: &str, field: &str, index: usize) -> Option<TextPosition> {
    let sig = significant(text);
    let mut depth = 0usize;
    let mut i = 0;
    while i < sig.len() {
        match sig[i].ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ':' if depth == 1
                && i + 1 < sig.len()
                && sig[i + 1].ch == '['
                && i > 0
                && identifier_ending_at(&sig, i - 1).as_deref() == Some(field) =>
            {
                return nth_item(&sig[i + 2..], index);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// In the characters after a list's `[`, where item `index` starts.
fn nth_item(sig: &[Significant], index: usize) -> Option<TextPosition> {
    let mut depth = 0usize;
    let mut item = 0;
    let mut expecting_item = true;
    for s in sig {
        match s.ch {
            ']' | ')' | '}' if depth == 0 => return None,
            ',' if depth == 0 => {
                expecting_item = true;
                continue;
            }
            _ => {}
        }
        if expecting_item {
            if item == index {
                return Some(s.at);
            }
            item += 1;
            expecting_item = false;
        }
        match s.ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "Scenario(\n    name: \"a, [b]\", // faults: [x]\n    faults: [\n        Gc(when: At(\"1m\")),\n        /* a, b */ Drop(when: At(\"2m\"), mode: Reset),\n    ],\n    server: (id_scheme: 42),\n)";

    #[test]
    fn finds_list_items_past_strings_and_comments() {
        let at = |line, column| Some(TextPosition { line, column });
        assert_eq!(list_item(TEXT, "faults", 0), at(4, 9));
        assert_eq!(list_item(TEXT, "faults", 1), at(5, 20));
        assert_eq!(list_item(TEXT, "faults", 2), None);
        assert_eq!(list_item(TEXT, "workload", 0), None);
    }

    #[test]
    fn names_the_field_a_value_belongs_to() {
        let at = TextPosition {
            line: 7,
            column: 25,
        };
        assert_eq!(field_at(TEXT, at).as_deref(), Some("id_scheme"));
    }

    #[test]
    fn comments_and_whitespace_are_blank() {
        assert!(is_blank(" \n// nothing here\n/* nor here */\n"));
        assert!(!is_blank("Scenario()"));
    }
}
