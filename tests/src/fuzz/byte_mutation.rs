//! Byte-level mutations, and invalid UTF-8 carried through a `String`.

use super::extreme_values::EXTREME_NUMBERS;
use super::rng::Rng;
use std::fmt::Write as _;

pub(super) const INTERESTING_BYTES: &[u8] =
    b"\x00\x01\x7f\x80\xff\n\r\t \"\\{}[]():,=.#-+0123456789eE'`$";

/// One byte-level mutation of `data`; returns its name.
pub(super) fn mutate_bytes(
    rng: &mut Rng,
    data: &mut Vec<u8>,
    donors: &[&str],
    words: &[String],
) -> &'static str {
    let n = data.len();
    let pos = |rng: &mut Rng, n: usize| rng.below(n + 1);
    match rng.below(11) {
        0 if n > 0 => {
            let i = rng.below(n);
            data[i] ^= 1 << rng.below(8);
            "bytes:flip-bit"
        }
        1 if n > 0 => {
            let i = rng.below(n);
            data[i] = if rng.chance(1, 2) {
                *rng.pick(INTERESTING_BYTES)
            } else {
                rng.next_u64() as u8
            };
            "bytes:set"
        }
        2 => {
            let i = pos(rng, n);
            let k = 1 + rng.small(8);
            let bytes: Vec<u8> = (0..k)
                .map(|_| {
                    if rng.chance(2, 3) {
                        *rng.pick(INTERESTING_BYTES)
                    } else {
                        rng.next_u64() as u8
                    }
                })
                .collect();
            data.splice(i..i, bytes);
            "bytes:insert"
        }
        3 if n > 0 => {
            let i = rng.below(n);
            let k = 1 + rng.small(32.min(n - i));
            data.drain(i..(i + k).min(n));
            "bytes:delete"
        }
        4 if n > 0 => {
            let i = rng.below(n);
            let k = 1 + rng.small(64.min(n - i));
            let chunk: Vec<u8> = data[i..(i + k).min(n)].to_vec();
            let at = pos(rng, n);
            data.splice(at..at, chunk);
            "bytes:duplicate"
        }
        5 if !donors.is_empty() => {
            let other = rng.pick(donors).as_bytes();
            let i = pos(rng, n);
            let j = rng.below(other.len() + 1);
            data.truncate(i);
            data.extend_from_slice(&other[j..]);
            "bytes:splice"
        }
        6 if n > 0 => {
            data.truncate(rng.below(n));
            "bytes:truncate"
        }
        7 if !words.is_empty() => {
            let w = rng.pick(words).clone();
            let i = pos(rng, n);
            data.splice(i..i, w.into_bytes());
            "bytes:insert-word"
        }
        8 => {
            let c = *rng.pick(b"[{(\"");
            let k = 1 + rng.small(400);
            let i = pos(rng, n);
            data.splice(i..i, std::iter::repeat_n(c, k));
            "bytes:repeat"
        }
        9 if n > 1 => {
            // Swap two chunks.
            let a = rng.below(n);
            let b = rng.below(n);
            data.swap(a, b);
            "bytes:swap"
        }
        _ => {
            let i = pos(rng, n);
            let w = rng.pick(EXTREME_NUMBERS);
            data.splice(i..i, w.bytes());
            "bytes:insert-number"
        }
    }
}

pub(super) fn bytes_to_text(rng: &mut Rng, data: Vec<u8>) -> String {
    match String::from_utf8(data) {
        Ok(s) => s,
        // The files are read as UTF-8: invalid text is refused at once, so keep most
        // cases valid and let a few through to that error.
        Err(e) => {
            if rng.chance(1, 8) {
                // Written as bytes by `write_input`; the text is only the report's.
                unsafe_invalid(e.into_bytes())
            } else {
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        }
    }
}

/// Invalid UTF-8 cannot live in a `String`: mark it with a prefix that `write_input`
/// turns back into the bytes.
pub(super) const RAW_BYTES: &str = "\u{0}carcassonne-fuzz-raw-bytes:";

pub(super) fn unsafe_invalid(bytes: Vec<u8>) -> String {
    let mut s = String::from(RAW_BYTES);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

pub(super) fn input_bytes(text: &str) -> Vec<u8> {
    match text.strip_prefix(RAW_BYTES) {
        Some(hex) => (0..hex.len() / 2)
            .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
            .collect(),
        None => text.as_bytes().to_vec(),
    }
}
