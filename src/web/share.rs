//! Share URLs: the whole scenario in the URL fragment, versioned and compact:
//! `#s1=` + base64url(deflate(JSON of [`Shared`])). Files travel as name, size and SHA-256
//! only; the page asks for the same file again and checks the hash.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

use super::protocol::FileInfo;
use crate::scenario::{Scenario, SCENARIO_VERSION};

/// The fragment prefix; the digit is the share format's version.
pub const PREFIX: &str = "s1=";
/// Longest fragment accepted (characters after `#`).
pub const MAX_FRAGMENT: usize = 32 * 1024;
/// Longest inflated JSON accepted (guards against deflate bombs).
pub const MAX_JSON: u64 = 512 * 1024;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shared {
    pub scenario: Scenario,
    #[serde(default)]
    pub files: Vec<FileInfo>,
}

/// This page's address (origin, path, query) with `fragment` after the `#`.
pub fn link(fragment: &str) -> String {
    let loc = web_sys::window().map(|w| w.location());
    let base = loc
        .map(|l| {
            format!(
                "{}{}{}",
                l.origin().unwrap_or_default(),
                l.pathname().unwrap_or_default(),
                l.search().unwrap_or_default()
            )
        })
        .unwrap_or_default();
    format!("{base}#{fragment}")
}

/// The fragment (without `#`) for a scenario.
pub fn encode(shared: &Shared) -> String {
    pack(PREFIX, shared)
}

/// Reads a fragment (with or without its `#`). `Ok(None)` for an empty fragment or one that
/// is not a scenario link; `Err` says what is wrong with a share link that cannot be read.
pub fn decode(fragment: &str) -> Result<Option<Shared>, String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    if !f.starts_with(PREFIX) && f.len() > 1 && f.as_bytes()[0] == b's' && f.contains('=') {
        return Err(format!(
            "this link uses share format '{}', which this version cannot read",
            f.split('=').next().unwrap_or("?")
        ));
    }
    let Some(shared) = unpack::<Shared>(PREFIX, f, "scenario")? else {
        return Ok(None);
    };
    if shared.scenario.version != SCENARIO_VERSION {
        return Err(format!(
            "the shared scenario has version {}; this build reads version {SCENARIO_VERSION}",
            shared.scenario.version
        ));
    }
    Ok(Some(shared))
}

/// The SF panel's share links: `#w1=` + the same encoding, holding a sweep and its seeds
/// and batches, so the link re-runs the same sweep to the same numbers.
pub const SWEEP_PREFIX: &str = "w1=";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharedSweep {
    pub spec: crate::allocation::sweep::SweepSpec,
    pub seeds: u64,
    pub batches: u64,
}

pub fn encode_sweep(s: &SharedSweep) -> String {
    pack(SWEEP_PREFIX, s)
}

/// `Ok(None)` when the fragment is not a sweep link.
pub fn decode_sweep(fragment: &str) -> Result<Option<SharedSweep>, String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    unpack(SWEEP_PREFIX, f, "sweep")
}

/// The SES and KKOR panels' share links: `#f1=` + the same encoding, holding the request
/// (family, preset, seeds and the preset's parameters), so the link re-runs it.
pub const FAMILY_PREFIX: &str = "f1=";

pub fn encode_family(r: &super::families::FamilyRequest) -> String {
    pack(FAMILY_PREFIX, r)
}

/// `Ok(None)` when the fragment is not a family link.
pub fn decode_family(fragment: &str) -> Result<Option<super::families::FamilyRequest>, String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    unpack(FAMILY_PREFIX, f, "preset run")
}

/// `prefix` + base64url(deflate(JSON)).
fn pack<T: Serialize>(prefix: &str, value: &T) -> String {
    let json = serde_json::to_vec(value).unwrap_or_default();
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    let _ = enc.write_all(&json);
    let bytes = enc.finish().unwrap_or_default();
    format!("{prefix}{}", b64url_encode(&bytes))
}

/// The inverse of [`pack`], with size limits; `what` names the payload in errors.
fn unpack<T: serde::de::DeserializeOwned>(
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
        .map_err(|e| format!("the share link is damaged (cannot inflate: {e})"))?;
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
