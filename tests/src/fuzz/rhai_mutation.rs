//! Structure-aware mutations of Rhai scripts, as tokens and lines.

use super::extreme_values::extreme_string;
use super::rng::Rng;
use std::fmt::Write as _;
use std::sync::OnceLock;

/// A token of Rhai text, as byte ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Int,
    Ident,
    Str,
}

pub(super) fn rhai_tokens(text: &str) -> Vec<(Tok, usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'"' || c == b'`' {
            let s = i;
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
            out.push((Tok::Str, s, i));
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Int, s, i));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident, s, i));
        } else {
            i += 1;
        }
    }
    out
}

pub(super) const RHAI_ARGS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "8",
    "255",
    "65536",
    "9223372036854775807",
    "-9223372036854775808",
    "\"\"",
    "\"city\"",
    "\"road\"",
    "\"field\"",
    "\"cloister\"",
    "\"player\"",
    "\"game\"",
    "\"figure\"",
    "\"token\"",
    "\"count.countMove\"",
    "\"farmScoring\"",
    "\"BA/C\"",
    "\"small-follower\"",
    "\"take-token\"",
    "\"keep\"",
    "\"\\n\\r\\u0000\"",
    "()",
    "[]",
    "[1, 2, 3]",
    "#{}",
    "#{ token: 1 }",
    "#{ x: 0, y: 0 }",
    "true",
    "false",
    "active_player()",
    "players()",
];

/// Script API function names with their arity, and hook names with their parameters.
pub(super) type RhaiApi = (Vec<(String, usize)>, Vec<(String, Vec<String>)>);

/// The script API's function names with their arity, and the hooks with their parameters.
pub(super) fn rhai_api() -> &'static RhaiApi {
    static API: OnceLock<RhaiApi> = OnceLock::new();
    API.get_or_init(|| {
        let fns = carcassonne_script::api::FUNCTIONS
            .iter()
            .filter_map(|f| {
                let (name, rest) = f.signature.split_once('(')?;
                let args = rest.split_once(')')?.0.trim();
                let arity = if args.is_empty() {
                    0
                } else {
                    args.split(',').count()
                };
                Some((name.trim().to_string(), arity))
            })
            .collect();
        let hooks = carcassonne_script::HOOKS
            .iter()
            .map(|h| {
                (
                    h.name.to_string(),
                    h.params.iter().map(|p| p.to_string()).collect(),
                )
            })
            .collect();
        (fns, hooks)
    })
}

pub(super) fn rhai_call(rng: &mut Rng, params: &[String]) -> String {
    let (fns, _) = rhai_api();
    let (name, arity) = rng.pick(fns).clone();
    // Now and then a wrong number of arguments.
    let arity = if rng.chance(1, 10) {
        rng.below(4)
    } else {
        arity
    };
    let args: Vec<String> = (0..arity)
        .map(|_| {
            if !params.is_empty() && rng.chance(1, 3) {
                rng.pick(params).clone()
            } else {
                rng.pick(RHAI_ARGS).to_string()
            }
        })
        .collect();
    format!("{name}({});", args.join(", "))
}

pub(super) fn mutate_rhai(
    rng: &mut Rng,
    text: &mut String,
    donors: &[&str],
    words: &[String],
) -> &'static str {
    let (_, hooks) = rhai_api();
    match rng.below(9) {
        0 => {
            // Delete, duplicate or swap lines, or take a line from another script.
            let mut lines: Vec<String> = text.lines().map(String::from).collect();
            if lines.is_empty() {
                return "rhai:none";
            }
            let i = rng.below(lines.len());
            let name = match rng.below(4) {
                0 => {
                    let k = 1 + rng.small(6);
                    lines.drain(i..(i + k).min(lines.len()));
                    "rhai:delete-lines"
                }
                1 => {
                    let l = lines[i].clone();
                    lines.insert(rng.below(lines.len() + 1), l);
                    "rhai:duplicate-line"
                }
                2 => {
                    let j = rng.below(lines.len());
                    lines.swap(i, j);
                    "rhai:swap-lines"
                }
                _ => {
                    let d: Vec<&str> = rng.pick(donors).lines().collect();
                    if !d.is_empty() {
                        lines.insert(i, d[rng.below(d.len())].to_string());
                    }
                    "rhai:foreign-line"
                }
            };
            *text = lines.join("\n");
            name
        }
        1 | 2 => {
            // Replace a token: an integer with an extreme one, a name with another name,
            // a string with an extreme one.
            let toks = rhai_tokens(text);
            if toks.is_empty() {
                return "rhai:none";
            }
            let (kind, s, e) = *rng.pick(&toks);
            let (with, name) = match kind {
                Tok::Int => (rng.pick(&RHAI_ARGS[..10]).to_string(), "rhai:extreme-int"),
                Tok::Ident if !words.is_empty() => (rng.pick(words).clone(), "rhai:swap-name"),
                Tok::Ident => ("x".to_string(), "rhai:swap-name"),
                Tok::Str => {
                    let s = extreme_string(rng);
                    let mut lit = String::from("\"");
                    for c in s.chars() {
                        match c {
                            '"' => lit.push_str("\\\""),
                            '\\' => lit.push_str("\\\\"),
                            c => lit.push(c),
                        }
                    }
                    lit.push('"');
                    (lit, "rhai:extreme-string")
                }
            };
            text.replace_range(s..e, &with);
            name
        }
        3 | 4 => {
            // Call an API function with random arguments at the start of a function body.
            let starts: Vec<(usize, Vec<String>)> = text
                .match_indices("fn ")
                .filter_map(|(i, _)| {
                    let rest = &text[i..];
                    let open = rest.find('(')?;
                    let close = rest.find(')')?;
                    let brace = rest.find('{')?;
                    (open < close && close < brace).then(|| {
                        let params = rest[open + 1..close]
                            .split(',')
                            .map(|p| p.trim().to_string())
                            .filter(|p| !p.is_empty())
                            .collect();
                        (i + brace + 1, params)
                    })
                })
                .collect();
            if starts.is_empty() {
                return "rhai:none";
            }
            let (at, params) = rng.pick(&starts).clone();
            let calls: String = (0..1 + rng.small(3))
                .map(|_| format!(" {}", rhai_call(rng, &params)))
                .collect();
            text.insert_str(at, &calls);
            "rhai:insert-call"
        }
        5 | 6 => {
            // Define a hook the script lacks, calling API functions.
            let free: Vec<&(String, Vec<String>)> = hooks
                .iter()
                .filter(|(n, _)| !text.contains(&format!("fn {n}(")))
                .collect();
            let (name, params) = if free.is_empty() || rng.chance(1, 6) {
                rng.pick(hooks)
            } else {
                *rng.pick(&free)
            };
            let calls: String = (0..1 + rng.small(4))
                .map(|_| format!("    {}\n", rhai_call(rng, params)))
                .collect();
            let ret = if rng.chance(1, 2) {
                format!("    {}\n", rng.pick(RHAI_ARGS))
            } else {
                String::new()
            };
            let _ = write!(
                text,
                "\nfn {name}({}) {{\n{calls}{ret}}}\n",
                params.join(", ")
            );
            "rhai:add-hook"
        }
        7 => {
            // Hostile statements the sandbox must stop.
            let stmt = *rng.pick(&[
                "loop { }",
                "let a = []; loop { a.push(a.len()); }",
                "let s = \"x\"; loop { s += s; }",
                "fn_rec(1);",
                "throw \"fuzz\";",
                "let m = #{}; for i in 0..100000 { m[`k${i}`] = i; }",
                "let x = 1 / 0;",
                "let x = 9223372036854775807 + 1;",
                "let x = -9223372036854775808 / -1;",
                "let x = [1][5];",
                "let x = \"abc\".sub_string(-5, 100);",
                "let x = (); x.y = 1;",
            ]);
            let at = text.find('{').map(|i| i + 1).unwrap_or(0);
            text.insert_str(at, &format!(" {stmt} "));
            if stmt.starts_with("fn_rec") {
                text.push_str("\nfn fn_rec(n) { fn_rec(n + 1) }\n");
            }
            "rhai:hostile"
        }
        _ => {
            // Wrap a function body in deep nesting.
            let depth = 1 + rng.small(100);
            let at = text.find('{').map(|i| i + 1).unwrap_or(0);
            let open = "{ ".repeat(depth);
            text.insert_str(at, &open);
            let close_at = text[at..].find('}').map(|i| i + at).unwrap_or(text.len());
            text.insert_str(close_at, &" }".repeat(depth));
            "rhai:deep-nesting"
        }
    }
}
