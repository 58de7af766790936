//! The numbers of an SWF line: decimal fields read into thousandths without a float where
//! they are whole or plain decimals, bounded by [`MAX_FIELD`] (split from the reader, issue #30).

use super::FIELDS;

/// Parses a decimal number into thousandths (ticks for times): `12` → 12000,
/// `-1` → -1000, `3600.25` → 3600250. Exponents fall back to the float parser.
/// Largest magnitude a field may have, in thousandths: 10¹² (seconds, about 31,700 years).
/// Far beyond any real log, and small enough that the engine's millisecond arithmetic
/// (submit + wait + runtime, plans, sums) can never overflow an i64.
pub const MAX_FIELD: i64 = 1_000_000_000_000;

/// A field in thousandths (times become milliseconds), if it is a number within ±MAX_FIELD.
pub(crate) fn parse_milli(tok: &[u8]) -> Option<i64> {
    parse_milli_unbounded(tok).filter(|m| m.abs() <= MAX_FIELD * 1000)
}

pub(super) fn parse_milli_unbounded(tok: &[u8]) -> Option<i64> {
    let (neg, digits) = match tok.first()? {
        b'-' => (true, &tok[1..]),
        b'+' => (false, &tok[1..]),
        _ => (false, tok),
    };
    if digits.is_empty() {
        return None;
    }
    // Up to 15 integer digits cannot overflow once scaled by 1000; longer numbers take the
    // float path (and its range check).
    let mut int: i64 = 0;
    let mut i = 0;
    while i < digits.len() && digits[i].is_ascii_digit() {
        int = int * 10 + (digits[i] - b'0') as i64;
        i += 1;
        if i > 15 {
            return parse_float_milli(tok);
        }
    }
    let mut milli = int * 1000;
    if i < digits.len() {
        if digits[i] != b'.' {
            return parse_float_milli(tok);
        }
        i += 1;
        let mut scale = 100;
        let mut frac = 0i64;
        let mut round_up = false;
        while i < digits.len() && digits[i].is_ascii_digit() {
            let d = (digits[i] - b'0') as i64;
            if scale > 0 {
                frac += d * scale;
                scale /= 10;
            } else if scale == 0 {
                round_up = d >= 5;
                scale = -1;
            }
            i += 1;
        }
        if i < digits.len() {
            return parse_float_milli(tok);
        }
        milli += frac + round_up as i64;
    }
    Some(if neg { -milli } else { milli })
}

/// The fields of a job line written the usual way — exactly 18 whole numbers of at most 12
/// digits, each with an optional `-`, separated by bytes up to ' ' — in thousandths, in one
/// pass over the bytes; `None` for anything else (decimals, `+`, longer numbers, other
/// bytes, another field count), which the general tokenizer then reads and, if need be,
/// reports. Both give the same fields for every line this accepts: 12 digits are below
/// [`MAX_FIELD`], so no range check is needed. Real logs are nearly all such lines, and
/// tokenizing then parsing each token read every byte twice.
pub(super) fn whole_number_fields(line: &[u8]) -> Option<[i64; FIELDS]> {
    let mut f = [0i64; FIELDS];
    let mut n = 0usize;
    let mut i = 0usize;
    let len = line.len();
    while i < len {
        if line[i] <= b' ' {
            i += 1;
            continue;
        }
        if n == FIELDS {
            return None;
        }
        let neg = line[i] == b'-';
        i += neg as usize;
        let start = i;
        let mut v = 0i64;
        while i < len {
            let d = line[i].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v * 10 + d as i64;
            i += 1;
        }
        let digits = i - start;
        if digits == 0 || digits > 12 || (i < len && line[i] > b' ') {
            return None;
        }
        f[n] = if neg { -v * 1000 } else { v * 1000 };
        n += 1;
    }
    (n == FIELDS).then_some(f)
}

pub(super) fn parse_float_milli(tok: &[u8]) -> Option<i64> {
    let v: f64 = std::str::from_utf8(tok).ok()?.parse().ok()?;
    let m = (v * 1000.0).round();
    (m.is_finite() && m.abs() < 9.0e18).then_some(m as i64)
}
