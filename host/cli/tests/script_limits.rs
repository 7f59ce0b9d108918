//! Load-time limits of fan scripts (issue 13, item 4): compile time must not grow faster
//! than a script's size lets it.
//!
//! Rhai's parser does quadratic work in some constructs of one function (the arms of a
//! `switch`, the `let`s of a scope, the parameters of a function): the two reproductions of
//! the issue, a never-called function with a 100,000-arm `switch` (1.5 MiB) and 40,000
//! `let`s, took 42 s and 6 s to compile in a release build (far longer in a debug build).
//! The host now refuses, before compiling, a script over
//! [`LOAD_LIMITS`](carcassonne_script::LOAD_LIMITS): its size in bytes, the tokens of
//! one function (or of the code outside functions) and the tokens of the whole script. These
//! tests check that
//!
//! 1. both reproductions, and scripts that stay under the size limit but pack one huge
//!    function, are refused quickly with a one-line error that says which limit;
//! 2. scripts exactly at the limits load (the worst of them quickly);
//! 3. the shipped fan scripts load, with a wide margin under every limit;
//! 4. the guide and the README state the limits.

mod common;
use carcassonne_script::limits::{check, count_tokens};
use carcassonne_script::{compile_source, LOAD_LIMITS};
use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest a refused script's whole `expansions check` run may take, debug build.
const REFUSED_WITHIN: Duration = Duration::from_secs(10);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Writes `<scratch>/<id>/expansion.toml` and `<scratch>/<id>/<id>.rhai`; returns the folder.
fn expansion(tmp: &Scratch, id: &str, script: &str) -> PathBuf {
    let dir = tmp.path(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("expansion.toml"),
        format!(
            "[expansion]\nid = \"{id}\"\nname = \"{id}\"\nversion = \"1.0.0\"\napi = \"1.0\"\nkind = \"script\"\nentry = \"{id}.rhai\"\n"
        ),
    )
    .unwrap();
    std::fs::write(dir.join(format!("{id}.rhai")), script).unwrap();
    dir
}

/// `carcassonne expansions check DIR --games 1` under a kill timer: exit code, stdout +
/// stderr, and how long the whole run took.
fn check_cli(dir: &Path) -> (i32, String, Duration) {
    let out = dir.with_extension("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_carcassonne"))
        .args(["expansions", "check"])
        .arg(dir)
        .args(["--games", "1"])
        .env_remove("CARCASSONNE_EXPANSION_PATH")
        .env_remove("CARCASSONNE_PLUGIN_PATH")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the carcassonne binary runs");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`expansions check {}` still runs after 120 s",
                dir.display()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    let mut text = std::fs::read_to_string(&out).unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    text.push_str(&err);
    assert!(!text.contains("panicked"), "{text}");
    (status.code().unwrap_or(-1), text, elapsed)
}

/// The first reproduction: a never-called function with a `switch` of `arms` arms.
fn switch_script(arms: usize) -> String {
    let mut s = String::from("fn setup() { }\n\nfn f(x) {\n    switch x {\n");
    for i in 0..arms {
        s.push_str(&format!("{i} => {i},\n"));
    }
    s.push_str("        _ => 0\n    }\n}\n");
    s
}

/// The second: a never-called function with `n` `let`s.
fn lets_script(n: usize) -> String {
    let mut s = String::from("fn setup() { }\n\nfn f() {\n");
    for i in 0..n {
        s.push_str(&format!("    let v{i} = {i};\n"));
    }
    s.push_str("}\n");
    s
}

fn compile(text: &str) -> Result<(), String> {
    compile_source("x", "1.0.0", PathBuf::from("x.rhai"), text)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------------------
// 1. Refused, quickly, with the limit named

#[test]
fn the_100000_arm_switch_is_refused_quickly() {
    let tmp = Scratch::new("script-limits", "switch");
    let script = switch_script(100_000);
    assert!(
        script.len() > 1_500_000,
        "the reproduction: {} bytes",
        script.len()
    );
    let dir = expansion(&tmp, "switchy", &script);
    let (code, text, took) = check_cli(&dir);
    assert_eq!(code, 1, "{text}");
    let expected = format!(
        "expansion.toml:7: `expansion.entry`: the script `{}` of expansion `switchy` is 1.5 MiB ({} bytes), more than the 256 KiB a script may have",
        dir.join("switchy.rhai").display(),
        script.len()
    );
    assert!(
        text.contains(&expected),
        "expected …{expected}\n in:\n{text}"
    );
    assert!(took < REFUSED_WITHIN, "took {took:?}");
}

#[test]
fn forty_thousand_lets_are_refused_quickly() {
    let tmp = Scratch::new("script-limits", "lets");
    let script = lets_script(40_000);
    let dir = expansion(&tmp, "lets", &script);
    let (code, text, took) = check_cli(&dir);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!(
            "of expansion `lets` is 915.8 KiB ({} bytes), more than the 256 KiB a script may have",
            script.len()
        )),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.contains("256 KiB")).count(),
        1,
        "one line: {text}"
    );
    assert!(took < REFUSED_WITHIN, "took {took:?}");
}

#[test]
fn a_long_switch_under_the_size_limit_is_refused_by_the_function_limit() {
    // 15,000 arms fit in 210 KiB; unchecked, they took 1.1 s to compile in a release
    // build and about 25 s in a debug build.
    let tmp = Scratch::new("script-limits", "switch-15000");
    let script = switch_script(15_000);
    assert!(script.len() < LOAD_LIMITS.script_bytes);
    let dir = expansion(&tmp, "switchy", &script);
    let (code, text, took) = check_cli(&dir);
    assert_eq!(code, 1, "{text}");
    let expected = format!(
        "problem: expansion `switchy`, {}:3:1, compile: function `f` (line 3) has 60014 tokens, more than the 10000 one function may have; split it into smaller functions",
        dir.join("switchy.rhai").display()
    );
    assert!(
        text.contains(&expected),
        "expected {expected}\n in:\n{text}"
    );
    assert!(took < REFUSED_WITHIN, "took {took:?}");
}

#[test]
fn many_lets_or_parameters_under_the_size_limit_are_refused_by_the_function_limit() {
    let e = compile(&lets_script(10_000)).unwrap_err();
    assert!(
        e.starts_with("expansion `x`, x.rhai:3:1, compile: function `f` (line 3) has 50005 tokens, more than the 10000 one function may have"),
        "{e}"
    );
    let params: Vec<String> = (0..6000).map(|i| format!("p{i}")).collect();
    let e = compile(&format!(
        "fn setup() {{ }}\nfn g({}) {{ 0 }}\n",
        params.join(", ")
    ))
    .unwrap_err();
    assert!(
        e.starts_with("expansion `x`, x.rhai:2:1, compile: function `g` (line 2) has 12006 tokens"),
        "{e}"
    );
}

#[test]
fn code_outside_functions_is_limited_too() {
    let mut s = String::from("fn setup() { }\n// top-level code is parsed, although never run\n");
    for i in 0..2500 {
        s.push_str(&format!("let v{i} = {i};\n"));
    }
    let e = compile(&s).unwrap_err();
    assert_eq!(
        e,
        "expansion `x`, x.rhai:3:1, compile: the code outside functions has 12500 tokens, more than the 10000 it may have"
    );
}

#[test]
fn the_whole_script_is_limited() {
    // Six functions of 9,967 tokens each: every one passes, together they do not.
    let mut s = String::from("fn setup() { }\n");
    for f in 0..6 {
        s.push_str(&format!("fn f{f}(x) {{\n"));
        for _ in 0..2490 {
            s.push_str("    x += 1;\n");
        }
        s.push_str("}\n");
    }
    let count = count_tokens(&s, LOAD_LIMITS.script_tokens);
    assert!(count
        .regions
        .iter()
        .all(|r| r.tokens <= LOAD_LIMITS.function_tokens));
    let e = compile(&s).unwrap_err();
    assert!(
        e.starts_with(&format!(
            "expansion `x`, x.rhai:{}:",
            count.total_exceeded_at.unwrap().0
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "compile: the script has {} tokens, more than the 50000 a script may have (counted up to here)",
            count.total
        )),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------
// 2. At the limits, a script loads

/// A `switch` function of exactly `tokens` tokens (an even number, at least 16): the most
/// expensive construct per token for Rhai's parser.
fn switch_function(name: &str, tokens: usize) -> String {
    // `fn f(x) { switch x {` 9, an arm `i => i,` 4, `_ => 0 }` 4, `}` 1, `x;` 2.
    let arms = (tokens - 14) / 4;
    let pad = (tokens - 14 - 4 * arms) / 2;
    let mut s = format!("fn {name}(x) {{\n");
    for _ in 0..pad {
        s.push_str("x;\n");
    }
    s.push_str("switch x {\n");
    for i in 0..arms {
        s.push_str(&format!("{i} => {i},\n"));
    }
    s.push_str("_ => 0 }\n}\n");
    s
}

#[test]
fn a_function_at_the_token_limit_loads_and_one_token_more_does_not() {
    let limit = LOAD_LIMITS.function_tokens;
    let at = format!("fn setup() {{ }}\n{}", switch_function("f", limit));
    let count = check(&at, &LOAD_LIMITS).expect("at the limit");
    assert_eq!(count.regions[1].tokens, limit);
    let start = Instant::now();
    compile(&at).expect("a function at the limit compiles");
    let took = start.elapsed();
    eprintln!("a {limit}-token switch function compiled in {took:?}");
    assert!(took < Duration::from_secs(10), "took {took:?}");

    let over = at.replacen("x;\n", "x; x;\n", 1);
    let e = compile(&over).unwrap_err();
    assert!(
        e.contains(&format!("function `f` (line 2) has {} tokens", limit + 2)),
        "{e}"
    );
}

#[test]
fn a_script_at_the_token_limit_loads_and_one_token_more_does_not() {
    // Cheap functions (`x += 1;` is linear to parse) adding up to exactly the limit.
    let limit = LOAD_LIMITS.script_tokens;
    let mut s = String::from("fn setup() { }\n"); // 5 tokens
    let per_function = 7 + 4 * 2000; // `fn fN(x) {` … `}` around 2,000 statements
    let functions = (limit - 5) / per_function;
    for f in 0..functions {
        s.push_str(&format!("fn f{f}(x) {{\n{}}}\n", "x += 1;\n".repeat(2000)));
    }
    // The rest in one more function: statements of 4 (`x += 1;`), 2 (`x;`), 3 (`-x;`) tokens.
    let body = limit - 5 - functions * per_function - 7;
    let (fours, tail) = match body % 4 {
        0 => (body / 4, ""),
        1 => (body / 4 - 1, "x;\n-x;\n"),
        2 => (body / 4, "x;\n"),
        _ => (body / 4, "-x;\n"),
    };
    s.push_str(&format!(
        "fn last(x) {{\n{}{tail}}}\n",
        "x += 1;\n".repeat(fours)
    ));
    assert_eq!(count_tokens(&s, limit).total, limit);
    compile(&s).expect("a script at the token limit compiles");
    let e = compile(&format!("{s}fn one() {{ }}\n")).unwrap_err();
    assert!(
        e.contains("the script has 50005 tokens, more than the 50000 a script may have"),
        "{e}"
    );
}

#[test]
fn a_script_at_the_size_limit_loads_and_one_byte_more_does_not() {
    let tmp = Scratch::new("script-limits", "size");
    let head = "fn setup() { }\n";
    // `head`, then one comment line: exactly `n` bytes.
    let fill = |n: usize| format!("{head}// {}\n", "x".repeat(n - head.len() - 4));
    let at = fill(LOAD_LIMITS.script_bytes);
    assert_eq!(at.len(), LOAD_LIMITS.script_bytes);
    let (code, text, _) = check_cli(&expansion(&tmp, "big", &at));
    assert_eq!(code, 0, "{text}");
    let over = fill(LOAD_LIMITS.script_bytes + 1);
    let (code, text, _) = check_cli(&expansion(&tmp, "bigger", &over));
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("is 256.0 KiB (262145 bytes), more than the 256 KiB a script may have"),
        "{text}"
    );
    // Text that does not come from a file is held to the same size.
    let e = compile(&over).unwrap_err();
    assert_eq!(
        e,
        "expansion `x`, x.rhai:1:1, compile: the script is 256.0 KiB (262145 bytes), more than the 256 KiB a script may have"
    );
}

#[test]
fn the_worst_script_under_the_limits_compiles_in_seconds_even_unoptimised() {
    // As many functions of the costliest construct as the limits allow: five switch
    // functions of 9,990 tokens (0.15 s in a release build; a few seconds here, where
    // Rhai is not optimised).
    let mut s = String::from("fn setup() { }\n");
    for f in 0..5 {
        s.push_str(&switch_function(&format!("f{f}"), 9_990));
    }
    check(&s, &LOAD_LIMITS).expect("under the limits");
    let start = Instant::now();
    compile(&s).expect("compiles");
    let took = start.elapsed();
    eprintln!("the worst script under the limits compiled in {took:?}");
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

// ---------------------------------------------------------------------------------------
// 3. The shipped scripts: well under every limit

#[test]
fn the_shipped_fan_scripts_load_with_a_wide_margin() {
    let l = LOAD_LIMITS;
    for path in [
        "fan-expansions/tactician/tactician.rhai",
        "fan-expansions/promotions/promotions.rhai",
        "docs/examples/pilgrims/pilgrims.rhai",
    ] {
        let text = std::fs::read_to_string(repo().join(path)).unwrap();
        let count = check(&text, &l).unwrap_or_else(|e| panic!("{path}: {}", e.message));
        let largest = count.regions.iter().max_by_key(|r| r.tokens).unwrap();
        eprintln!(
            "{path}: {} bytes, {} tokens, largest function `{}` {} tokens",
            text.len(),
            count.total,
            largest.function.as_deref().unwrap_or("(outside)"),
            largest.tokens
        );
        // At least ten times under each limit.
        assert!(
            text.len() * 10 < l.script_bytes,
            "{path}: {} bytes",
            text.len()
        );
        assert!(
            count.total * 10 < l.script_tokens,
            "{path}: {} tokens",
            count.total
        );
        assert!(
            largest.tokens * 10 < l.function_tokens,
            "{path}: {} tokens in one function",
            largest.tokens
        );
        compile_source("shipped", "1.0.0", PathBuf::from(path), &text)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}

// ---------------------------------------------------------------------------------------
// 4. The documents state the limits

#[test]
fn the_guide_and_the_readme_state_the_limits() {
    let guide = std::fs::read_to_string(repo().join("docs/modding.md")).unwrap();
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let l = LOAD_LIMITS;
    for needle in [
        format!("{} KiB", l.script_bytes / 1024),
        format!("{} tokens", group(l.function_tokens)),
        format!("{} tokens", group(l.script_tokens)),
    ] {
        assert!(guide.contains(&needle), "docs/modding.md states `{needle}`");
        assert!(readme.contains(&needle), "README.md states `{needle}`");
    }
}

/// `10000` → `10,000`.
fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
