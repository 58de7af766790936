//! The encoding of share links, without the browser: `prefix` + base64url(raw deflate(JSON)),
//! with size limits on the fragment and on the inflated JSON (a deflate bomb is refused by
//! size). The page's `web::share` names the payloads (`#s1=` scenarios, `#w1=` sweeps, `#f2=`
//! family runs and the older `#f1=`); the fuzz tests drive [`unpack`] natively.

use std::io::{Read, Write};

use serde::Serialize;

/// Longest fragment accepted (characters after `#`).
pub const MAX_FRAGMENT: usize = 32 * 1024;
/// Longest inflated JSON accepted (guards against deflate bombs).
pub const MAX_JSON: u64 = 512 * 1024;

/// `prefix` + base64url(deflate(JSON)). A value that cannot be written (a map with
/// non-string keys, say) or compressed is an error the caller shows, never an empty link
/// that would open as nothing.
pub fn pack<T: Serialize>(prefix: &str, value: &T) -> Result<String, String> {
    let json =
        serde_json::to_vec(value).map_err(|e| format!("cannot write the share link: {e}"))?;
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&json)
        .and_then(|_| enc.finish())
        .map(|bytes| format!("{prefix}{}", b64url_encode(&bytes)))
        .map_err(|e| format!("cannot compress the share link: {e}"))
}

/// The inverse of [`pack`], with size limits; `what` names the payload in errors.
pub fn unpack<T: serde::de::DeserializeOwned>(
    prefix: &str,
    f: &str,
    what: &str,
) -> Result<Option<T>, String> {
    let Some(body) = f.strip_prefix(prefix) else {
        return Ok(None);
    };
    if f.len() > MAX_FRAGMENT {
        return Err(format!(
            "the shared {what} is too large ({} characters; at most {MAX_FRAGMENT})",
            f.len()
        ));
    }
    let bytes = b64url_decode(body).ok_or("the share link is damaged (not base64url)")?;
    let mut json = Vec::new();
    flate2::read::DeflateDecoder::new(&bytes[..])
        .take(MAX_JSON + 1)
        .read_to_end(&mut json)
        // Said in plain words (issue #38: "cannot inflate: corrupt deflate stream" is jargon
        // to a visitor); the decoder's own words stay in brackets for a bug report.
        .map_err(|e| {
            format!("the share link is damaged: its packed part does not unpack, so it was probably cut short or changed when it was copied ({e})")
        })?;
    if json.len() as u64 > MAX_JSON {
        return Err(format!(
            "the shared {what} is too large (over {MAX_JSON} bytes)"
        ));
    }
    serde_json::from_slice(&json)
        .map(Some)
        .map_err(|e| format!("the share link does not hold a {what}: {e}"))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub fn b64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..chunk.len() + 1 {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

pub fn b64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = ALPHABET.iter().position(|&a| a == c)? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_that_cannot_be_written_is_an_error_not_an_empty_link() {
        // JSON object keys must be strings: a map keyed by pairs cannot be written.
        let bad: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
        let e = pack("s1=", &bad).unwrap_err();
        assert!(e.contains("cannot write the share link"), "{e}");
        let good = pack("s1=", &serde_json::json!({"a": 1})).unwrap();
        assert_eq!(
            unpack::<serde_json::Value>("s1=", &good, "test").unwrap(),
            Some(serde_json::json!({"a": 1}))
        );
    }
}
