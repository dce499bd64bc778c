//! `Content-Encoding` on a request: anything but `identity` is refused with 415.
//!
//! Why: neither `/mcp` nor `/_chaos` decodes request content, so a body sent with
//! `Content-Encoding: deflate` that happens to be plain JSON would be executed as if the
//! header were not there, and a gzip body would be answered "not JSON", which tells the
//! client the wrong thing. RFC 9110 section 15.5.16
//! (<https://www.rfc-editor.org/rfc/rfc9110#name-415-unsupported-media-type>) says a
//! server refusing a request's content coding answers 415, and section 12.5.3 that it may
//! say what it accepts with `Accept-Encoding` (here `identity`). Decoding instead would
//! need a bound on the decoded size as well (a few KiB of gzip inflate to gigabytes).

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;

/// The refusal's sentence when `headers` declare a content coding other than `identity`.
pub(crate) fn unsupported_coding(headers: &HeaderMap) -> Option<String> {
    for value in headers.get_all(header::CONTENT_ENCODING) {
        let text = String::from_utf8_lossy(value.as_bytes());
        for coding in text.split(',').map(str::trim) {
            if !coding.is_empty() && !coding.eq_ignore_ascii_case("identity") {
                return Some(format!(
                    "Unsupported Media Type: Content-Encoding {coding:?} is not supported; send the body unencoded (identity)"
                ));
            }
        }
    }
    None
}

/// Adds `Accept-Encoding: identity` to a 415 for a content coding.
pub(crate) fn with_accepted_coding(mut response: Response) -> Response {
    debug_assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    response.headers_mut().insert(
        header::ACCEPT_ENCODING,
        HeaderValue::from_static("identity"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coding(values: &[&str]) -> Option<String> {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(header::CONTENT_ENCODING, v.parse().unwrap());
        }
        unsupported_coding(&headers)
    }

    #[test]
    fn only_identity_passes() {
        assert_eq!(coding(&[]), None);
        assert_eq!(coding(&["identity"]), None);
        assert_eq!(coding(&["Identity, identity"]), None);
        for bad in [
            &["gzip"][..],
            &["deflate"],
            &["identity, br"],
            &["identity", "x"],
        ] {
            assert!(coding(bad).unwrap().contains("Content-Encoding"), "{bad:?}");
        }
    }
}
