//! The community's fan expansions whose tiles are not public (issue 35; `docs/rules/<id>.md`):
//! their rules work on tiles that carry the set's tag, and each folder's scenarios place
//! count-0 test tiles. Every scenario case passes `carcassonne expansions test`, and the
//! script plays random games mixed with the official expansions (`expansions check`).

mod common;
use common::repo;
use std::process::Command;

/// `carcassonne <args>` run from the repository root: (success, stdout, stderr).
fn run(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_carcassonne"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("the carcassonne binary runs");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every scenario case of `fan-expansions/<id>` passes; there are exactly `cases` of them;
/// then random games with the official expansions of `with`.
fn passes(id: &str, cases: usize, with: &str) {
    let dir = format!("fan-expansions/{id}");
    let (ok, out, err) = run(&["expansions", "test", &dir]);
    assert!(ok, "expansions test {dir}:\n{out}\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.iter().all(|l| l.starts_with("PASS ")), "{out}");
    assert_eq!(lines.len(), cases, "{out}");
    let (ok, out, err) = run(&["expansions", "check", &dir, "--games", "12", "--with", with]);
    assert!(ok, "expansions check {dir} --with {with}:\n{out}\n{err}");
}

/// Robber's Son: RS-1 … RS-6 (four files, four variants).
#[test]
fn robbers_son_scenarios_pass() {
    passes(
        "robbers-son",
        8,
        "princess-dragon,tower,abbey-mayor,inns-cathedrals",
    );
}

/// Meteorites: ME-1 … ME-5 (five files, six variants), one with The Obelisk.
#[test]
fn meteorites_scenarios_pass() {
    passes("meteorites", 11, "count,princess-dragon,tower,abbey-mayor");
}

/// Fish Huts: FH-1 … FH-5 (three files, two variants), one with River I.
#[test]
fn fish_huts_scenarios_pass() {
    passes("fish-huts", 5, "river,princess-dragon,abbey-mayor");
}

/// Gambler's Luck: GL-1 … GL-5 (three files, six variants), one with Abbey & Mayor.
#[test]
fn gamblers_luck_scenarios_pass() {
    passes(
        "gamblers-luck",
        9,
        "abbey-mayor,inns-cathedrals,princess-dragon",
    );
}
