//! The headers a 2026-07-28 POST repeats from its body, so that proxies can route without
//! reading it: `MCP-Protocol-Version` (equal to `_meta`'s protocol version), `Mcp-Method`
//! (every request) and `Mcp-Name` (`tools/call`, `resources/read`, `prompts/get`; and,
//! optionally, the task id of `tasks/get`, `tasks/update`, `tasks/cancel`). A value
//! that is not ASCII travels as `=?base64?…?=`. A header that is missing or differs from the
//! body is -32020.
//!
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>

use std::borrow::Cow;

use serde_json::Value;

use crate::http::HttpRequest;

use super::errors::ModernRejection;

/// The methods whose target is repeated in `Mcp-Name`, and the params field it repeats.
pub const NAMED_METHODS: [(&str, &str); 3] = [
    ("tools/call", "name"),
    ("resources/read", "uri"),
    ("prompts/get", "name"),
];

/// The tasks extension's methods, whose `Mcp-Name` (when sent) repeats `params.taskId`
/// (SEP-2663): optional, but a value that differs from the body is -32020.
pub const TASK_NAMED_METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

/// Checks the request's headers against its body: the version against `_meta`'s
/// `meta_version`, then `Mcp-Method`, then `Mcp-Name`.
pub fn check_headers(
    request: &HttpRequest,
    method: &str,
    params: &Value,
    meta_version: &str,
) -> Result<(), ModernRejection> {
    let version = header_value(request.protocol_version.as_deref(), "MCP-Protocol-Version")?;
    if version != meta_version {
        return Err(ModernRejection::HeaderMismatch(format!(
            "MCP-Protocol-Version is {version:?} but _meta names {meta_version:?}"
        )));
    }
    let header_method = header_value(request.mcp_method.as_deref(), "Mcp-Method")?;
    if header_method != method {
        return Err(ModernRejection::HeaderMismatch(format!(
            "Mcp-Method is {header_method:?} but the body's method is {method:?}"
        )));
    }
    if let Some((_, field)) = NAMED_METHODS.iter().find(|(m, _)| *m == method) {
        let name = header_value(request.mcp_name.as_deref(), "Mcp-Name")?;
        let body_name = params.get(*field).and_then(Value::as_str).unwrap_or("");
        if name != body_name {
            return Err(ModernRejection::HeaderMismatch(format!(
                "Mcp-Name is {name:?} but params.{field} is {body_name:?}"
            )));
        }
    }
    if TASK_NAMED_METHODS.contains(&method) && request.mcp_name.is_some() {
        let name = header_value(request.mcp_name.as_deref(), "Mcp-Name")?;
        let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
        if name != task_id {
            return Err(ModernRejection::HeaderMismatch(format!(
                "Mcp-Name is {name:?} but params.taskId is {task_id:?}"
            )));
        }
    }
    Ok(())
}

/// A header's value, decoded from the base64 sentinel when it is one (borrowed when it is
/// not: every request's headers are read, and most are plain ASCII).
fn header_value<'h>(raw: Option<&'h str>, name: &str) -> Result<Cow<'h, str>, ModernRejection> {
    let Some(raw) = raw else {
        return Err(ModernRejection::HeaderMismatch(format!(
            "the {name} header is required"
        )));
    };
    let raw = raw.trim();
    match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(encoded) => decode_base64(encoded)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(Cow::Owned)
            .ok_or_else(|| {
                ModernRejection::HeaderMismatch(format!(
                    "the {name} header is not valid =?base64?…?= UTF-8"
                ))
            }),
        None => Ok(Cow::Borrowed(raw)),
    }
}

/// Standard base64 (RFC 4648 §4), padding optional; `None` on any other byte.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let digits = text.trim_end_matches('=').as_bytes();
    if digits.len() % 4 == 1 || text.len() - digits.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// Standard base64 as SEP-2243 wants it in an `Mcp-Param-*` header: padded to a multiple
/// of four, padding only at the end; `None` otherwise.
pub fn decode_base64_strict(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(4) || text.trim_end_matches('=').contains('=') {
        return None;
    }
    decode_base64(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(decode_base64("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(decode_base64("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(
            decode_base64("w6llY2hv").as_deref(),
            Some("éecho".as_bytes())
        );
        assert_eq!(decode_base64("").as_deref(), Some(&b""[..]));
        assert_eq!(decode_base64("a"), None);
        assert_eq!(decode_base64("a*=="), None);
    }

    #[test]
    fn strict_base64_wants_padding_and_the_alphabet() {
        assert_eq!(
            decode_base64_strict("SGVsbG8=").as_deref(),
            Some(&b"Hello"[..])
        );
        assert_eq!(decode_base64_strict("SGVsbG8"), None);
        assert_eq!(decode_base64_strict("SGVs!!!bG8="), None);
        assert_eq!(decode_base64_strict("SG=sbG8="), None);
    }

    #[test]
    fn a_sentinel_header_is_decoded_before_it_is_compared() {
        assert_eq!(
            header_value(Some("=?base64?w6llY2hv?="), "Mcp-Name").ok(),
            Some(Cow::Owned("éecho".to_string()))
        );
        assert_eq!(
            header_value(Some(" echo "), "Mcp-Name").ok(),
            Some(Cow::Borrowed("echo"))
        );
        assert!(header_value(Some("=?base64?*?="), "Mcp-Name").is_err());
        assert!(header_value(None, "Mcp-Name").is_err());
    }
}
