//! The community's fan expansions written as scripts (issue 35; `docs/rules/<id>.md`): each
//! folder's scenario files pass `carcassonne expansions test`, every case of them, and the
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

/// Every scenario case of `fan-expansions/<id>` passes; there are exactly `cases` of them.
fn scenarios_pass(id: &str, cases: usize) {
    let dir = format!("fan-expansions/{id}");
    let (ok, out, err) = run(&["expansions", "test", &dir]);
    assert!(ok, "expansions test {dir}:\n{out}\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.iter().all(|l| l.starts_with("PASS ")), "{out}");
    assert_eq!(lines.len(), cases, "{out}");
}

/// Random games with the script and the official expansions it is meant to mix with.
fn plays_mixed(id: &str, with: &str) {
    let dir = format!("fan-expansions/{id}");
    let (ok, out, err) = run(&["expansions", "check", &dir, "--games", "12", "--with", with]);
    assert!(ok, "expansions check {dir} --with {with}:\n{out}\n{err}");
}

/// The Courier: CU-1 … CU-8 (seven files, five variants), one with Heretics & Shrines.
#[test]
fn courier_scenarios_pass() {
    scenarios_pass("courier", 12);
    plays_mixed(
        "courier",
        "count,princess-dragon,tower,abbey-mayor,traders-builders",
    );
}

/// The Wells: WE-1 … WE-3 (three files, three variants), with Abbey & Mayor's well.
#[test]
fn wells_scenarios_pass() {
    scenarios_pass("wells", 8);
    plays_mixed("wells", "inns-cathedrals,princess-dragon,river2,count");
}

/// The Obelisk: OB-1 … OB-5 (three files, two variants), the obelisk on a four-tile field
/// junction (`junction_corners`, `guard_area_full`), with the barn and the dragon about.
#[test]
fn obelisk_scenarios_pass() {
    scenarios_pass("obelisk", 5);
    plays_mixed(
        "obelisk",
        "abbey-mayor,princess-dragon,inns-cathedrals,traders-builders",
    );
}

/// Děčínský Sněžník: DS-1 … DS-5 and AM-23 with its tower (four files, two variants).
#[test]
fn decinsky_sneznik_scenarios_pass() {
    scenarios_pass("decinsky-sneznik", 6);
    plays_mixed(
        "decinsky-sneznik",
        "abbey-mayor,princess-dragon,inns-cathedrals,tower",
    );
}

// The sets whose tiles are not public: their rules work on tiles that carry the set's tag,
// and their scenarios place count-0 test tiles (`tiles.toml` of each folder).

/// Robber's Son: RS-1 … RS-6 (four files, four variants).
#[test]
fn robbers_son_scenarios_pass() {
    scenarios_pass("robbers-son", 8);
    plays_mixed(
        "robbers-son",
        "princess-dragon,tower,abbey-mayor,inns-cathedrals",
    );
}

/// Meteorites: ME-1 … ME-5 (five files, six variants), one with The Obelisk.
#[test]
fn meteorites_scenarios_pass() {
    scenarios_pass("meteorites", 11);
    plays_mixed("meteorites", "count,princess-dragon,tower,abbey-mayor");
}

/// Fish Huts: FH-1 … FH-5 (three files, two variants), one with River I.
#[test]
fn fish_huts_scenarios_pass() {
    scenarios_pass("fish-huts", 5);
    plays_mixed("fish-huts", "river,princess-dragon,abbey-mayor");
}

/// Gambler's Luck: GL-1 … GL-5 (five files, eight variants), one with Abbey & Mayor, two
/// with Under the Big Top.
#[test]
fn gamblers_luck_scenarios_pass() {
    scenarios_pass("gamblers-luck", 13);
    plays_mixed(
        "gamblers-luck",
        "abbey-mayor,inns-cathedrals,princess-dragon",
    );
}

/// Family Feud: FF-1 … FF-5 (three files, three variants), the placement rule read with
/// `joins_at`; with the Cathedral about (its pennants are blue-and-white).
#[test]
fn family_feud_scenarios_pass() {
    scenarios_pass("family-feud", 6);
    plays_mixed(
        "family-feud",
        "inns-cathedrals,princess-dragon,tower,abbey-mayor",
    );
}

/// The City Gates: CG-1 … CG-6 (three files, three variants), gate edges matched with
/// `edge_meets`; mixed with bridges (amended placements) and River I.
#[test]
fn city_gates_scenarios_pass() {
    scenarios_pass("city-gates", 6);
    plays_mixed(
        "city-gates",
        "bridges-castles-bazaars,river,princess-dragon,tower,abbey-mayor",
    );
}

/// `edge_meets` switches placements to side-by-side matching; with no gate tile in the
/// supply that matching must offer exactly what the exact one does: the same random games,
/// score for score (every summary field but the speed and the expansion list).
#[test]
fn city_gates_without_gate_tiles_plays_the_base_games() {
    let summary = |extra: &[&str]| {
        let mut args = vec!["simulate", "--games", "40", "--seed", "5", "--json"];
        args.extend_from_slice(extra);
        let (ok, out, err) = run(&args);
        assert!(ok, "simulate {extra:?}:\n{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("a JSON summary");
        let mut m = v.as_object().expect("an object").clone();
        m.remove("games_per_second");
        m.remove("expansions");
        m
    };
    let base = summary(&[]);
    let gates = summary(&[
        "--expansion-dir",
        "fan-expansions",
        "--expansions",
        "city-gates",
    ]);
    assert!(base.contains_key("decisions_mean"), "{base:?}");
    assert_eq!(base, gates);
}
