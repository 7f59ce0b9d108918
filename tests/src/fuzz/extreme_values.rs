//! Extreme values (numbers, strings, JSON) that the mutations put into inputs.

use super::json::Json;
use super::rng::Rng;

pub(super) const EXTREME_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "8",
    "9",
    "255",
    "256",
    "511",
    "512",
    "513",
    "-512",
    "-513",
    "65535",
    "65536",
    "2147483647",
    "-2147483648",
    "2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9007199254740993",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "100000000000000000000000000000",
    "0.5",
    "-0.0",
    "1.0",
    "0.9999999999999999",
    "1e308",
    "1e309",
    "-1e999",
    "1e-400",
    "2e9",
];

pub(super) const EXTREME_RAW_JSON: &[&str] = &[
    "NaN",
    "Infinity",
    "-Infinity",
    "\"\\ud800\"",
    "\"\\udc00\\ud800\"",
    "01",
    "+1",
    ".5",
    "1.",
    "-",
    "0x10",
    "1e",
    "\"\\u0000\"",
    "undefined",
    "[,]",
    "{,}",
];

pub(super) fn extreme_string(rng: &mut Rng) -> String {
    match rng.below(24) {
        0 => String::new(),
        1 => " ".into(),
        2 => "NaN".into(),
        3 => "-Infinity".into(),
        4 => "null".into(),
        5 => "\u{0}".into(),
        6 => "line one\nline two".into(),
        7 => "\r\n".into(),
        8 => "\u{1b}[31mred\u{1b}[0m".into(),
        9 => "\u{202e}esrever".into(),
        10 => "\u{feff}BOM".into(),
        11 => "é🀄\u{10ffff}".into(),
        12 => "x".repeat(1 << rng.below(17)),
        13 => "../../../etc/hostname".into(),
        14 => "-1".into(),
        15 => "9223372036854775808".into(),
        16 => "0.5".into(),
        17 => "true".into(),
        18 => "\t\u{7}\u{8}\u{c}".into(),
        19 => "#END".into(),
        20 => "R360".into(),
        21 => "a.b.c.d".into(),
        22 => "{}".into(),
        _ => "ẞ".repeat(1 + rng.below(2000)),
    }
}

/// A word of the corpus, half of the time one as long as `like` (an edge string for an
/// edge string, a half-edge for a half-edge).
pub(super) fn similar_word(rng: &mut Rng, words: &[String], like: &str) -> String {
    if rng.chance(1, 2) {
        let same: Vec<&String> = words
            .iter()
            .filter(|w| w.len() == like.len() && *w != like)
            .collect();
        if !same.is_empty() {
            return rng.pick(&same).to_string();
        }
    }
    rng.pick(words).clone()
}

pub(super) fn deep_json(rng: &mut Rng, inner: Json) -> Json {
    let depth = 1 + rng.small(300);
    let obj = rng.chance(1, 3);
    let mut v = inner;
    for _ in 0..depth {
        v = if obj {
            Json::Obj(vec![("a".into(), v)])
        } else {
            Json::Arr(vec![v])
        };
    }
    v
}

pub(super) fn extreme_json(rng: &mut Rng, like: &Json, words: &[String], same_kind: bool) -> Json {
    // Mostly the same kind of value, sometimes any kind.
    let kind = match (like, same_kind || rng.chance(2, 3)) {
        (Json::Num(_), true) => 0,
        (Json::Str(_), true) => 1,
        _ => rng.below(8),
    };
    match kind {
        // Half of the numbers plausible (a coordinate, an index, a count), half extreme.
        0 if rng.chance(1, 2) => Json::Num((rng.below(140) as i64 - 20).to_string()),
        0 => Json::Num(rng.pick(EXTREME_NUMBERS).to_string()),
        1 if !words.is_empty() && (same_kind || rng.chance(1, 2)) && rng.chance(4, 5) => {
            Json::Str(similar_word(
                rng,
                words,
                match like {
                    Json::Str(s) => s,
                    _ => "",
                },
            ))
        }
        1 => Json::Str(extreme_string(rng)),
        2 => Json::Raw(rng.pick(EXTREME_RAW_JSON).to_string()),
        3 => Json::Null,
        4 => Json::Bool(rng.chance(1, 2)),
        5 => Json::Arr(Vec::new()),
        6 => Json::Obj(Vec::new()),
        _ => deep_json(rng, Json::Num("1".into())),
    }
}
