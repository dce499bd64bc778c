//! Fixed-width lowercase hex for the ids the model mints (session ids, task ids, handles).
//!
//! A session id is minted on every `initialize`; `format!("{:016x}")` went through the
//! formatting machinery for each half. Writing the digits directly gives the same text.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Appends `value` as exactly 16 lowercase hex digits, as `{:016x}` writes it.
pub(crate) fn push_hex_u64(out: &mut String, value: u64) {
    // The digits are written as bytes and appended at once (`String::push` per digit
    // encoded each as UTF-8 and checked the capacity each time: 600 instructions an id).
    let mut digits = [0u8; 16];
    for (i, digit) in digits.iter_mut().enumerate() {
        *digit = DIGITS[((value >> ((15 - i) * 4)) & 0xf) as usize];
    }
    out.push_str(std::str::from_utf8(&digits).expect("hex digits are ASCII"));
}

/// `prefix` followed by each of `values` as 16 hex digits.
pub(crate) fn hex_id(prefix: &str, values: &[u64]) -> String {
    let mut out = String::with_capacity(prefix.len() + 16 * values.len());
    out.push_str(prefix);
    for &v in values {
        push_hex_u64(&mut out, v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_what_the_formatter_writes() {
        for v in [0, 1, 0xf, 0xabc, u64::MAX, 0x0123_4567_89ab_cdef, 1 << 63] {
            let mut s = String::new();
            push_hex_u64(&mut s, v);
            assert_eq!(s, format!("{v:016x}"));
        }
        assert_eq!(
            hex_id("bsk_", &[7, u64::MAX]),
            format!("bsk_{:016x}{:016x}", 7, u64::MAX)
        );
    }
}
