//! Set-ups a JCloisterZone save can have beyond the sets' defaults (issue 31, item 5), with
//! our own saves `tests/jcz/setup-*.jcz`: an element switched on without its set's tiles
//! (the mayor, the wagon, the pig), only some parts of Princess & Dragon, another number of
//! small followers (1, none), several copies of one set. Each save's assertions hold through
//! `carcassonne replay --json`, and its record (`convert`) carries the ruleset options the
//! set-up became: `figures.<kind>` (figures per player), `tiles.<set>` (copies of a tile set)
//! and the expansions' part switches.

mod common;

use carcassonne_jcz::assertions::{check_all, Outcome};
use common::{repo, Scratch};
use serde_json::Value;
use std::process::Command;

fn carcassonne(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_carcassonne"))
        .args(args)
        .args([
            "--plugin-dir",
            &repo().join("expansions").display().to_string(),
        ])
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn save_path(name: &str) -> String {
    repo().join("tests/jcz").join(name).display().to_string()
}

/// Every assertion of the save holds; returns how many were checked.
fn check_save(name: &str) -> usize {
    let save: Value =
        serde_json::from_str(&std::fs::read_to_string(save_path(name)).expect("read save"))
            .expect("JSON");
    let assertions: Vec<String> = save["test"]["assertions"]
        .as_array()
        .expect("assertions")
        .iter()
        .filter_map(|s| s.as_str().map(String::from))
        .collect();
    let out: Value = serde_json::from_slice(&carcassonne(&["replay", "--json", &save_path(name)]))
        .expect("JSON output");
    let mut n = 0;
    for (text, outcome) in check_all(&assertions, &out) {
        match outcome {
            Outcome::Passed => n += 1,
            Outcome::Failed(why) => panic!("{name}: `{text}` fails: {why}"),
            Outcome::Ignored(_) => {}
        }
    }
    n
}

/// The options of the record `convert` writes for the save.
fn record_options(name: &str) -> Value {
    let dir = Scratch::new("jcz_setups", name);
    let rec = dir.arg("record.json");
    carcassonne(&["convert", &save_path(name), "-o", &rec]);
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(&rec).expect("record")).expect("JSON");
    record["setup"]["options"].clone()
}

/// AM-11, AM-12: the mayor alone on the base tiles (Abbey & Mayor loaded without its tiles
/// or abbey); a pennantless city pays nobody and is reported as 0 points (JCZ). TB-19 with
/// two pigs each and no builder (Traders & Builders without its tiles).
#[test]
fn elements_alone_load_their_expansion_without_its_tiles() {
    assert_eq!(check_save("setup-mayor-alone-zero.jcz"), 4);
    let o = record_options("setup-mayor-alone-zero.jcz");
    assert_eq!(o["tiles.abbey-mayor"], "0");
    assert_eq!(o["abbey-mayor.abbey"], "false");
    assert_eq!(o["figures.mayor"], "1");
    assert_eq!(o["figures.wagon"], "0");
    assert_eq!(o["figures.barn"], "0");
    assert_eq!(o["abbey-mayor.mayorEmptyCity"], "zero-points");
    assert_eq!(o["tiles.traders-builders"], "0");
    assert_eq!(o["figures.pig"], "2");
    assert_eq!(o["figures.builder"], "0");
    assert_eq!(o["figures.small-follower"], "7");
}

/// AM-16 C1 with the wagon alone: a road running into a city on a base tile (BA/CccR's
/// wagon-move link) offers that city, and the roads of the crossroads where it ends.
#[test]
fn the_wagon_alone_moves_by_the_base_tiles_links() {
    assert_eq!(check_save("setup-wagon-alone-c1.jcz"), 5);
    let o = record_options("setup-wagon-alone-c1.jcz");
    assert_eq!(o["abbey-mayor.wagonMove"], "C1");
    assert_eq!(o["figures.wagon"], "1");
    assert_eq!(o["figures.mayor"], "0");
}

/// PD-19 with only the princess, and one follower each: the removed knight is back in
/// supply and offered again.
#[test]
fn princess_and_dragon_with_some_parts_and_one_follower() {
    assert_eq!(check_save("setup-princess-one-follower.jcz"), 2);
    let o = record_options("setup-princess-one-follower.jcz");
    assert_eq!(o["figures.small-follower"], "1");
    assert_eq!(o["princess-dragon.princess"], "true");
    for part in ["dragon", "fairy", "portal"] {
        assert_eq!(o[format!("princess-dragon.{part}")], "false", "{part}");
    }
    assert_eq!(o["tiles.princess-dragon"], Value::from("1"));
}

/// Three copies of Abbey & Mayor's tiles, and a game without small followers: only the
/// mayor and the wagon are offered.
#[test]
fn several_copies_of_a_set_and_no_small_followers() {
    assert_eq!(check_save("setup-three-copies-no-followers.jcz"), 3);
    let o = record_options("setup-three-copies-no-followers.jcz");
    assert_eq!(o["tiles.abbey-mayor"], "3");
    assert_eq!(o["figures.small-follower"], "0");
    let out: Value = serde_json::from_slice(&carcassonne(&[
        "replay",
        "--json",
        &save_path("setup-three-copies-no-followers.jcz"),
    ]))
    .expect("JSON");
    let kinds: Vec<&str> = out["pending"]["deployments"]
        .as_array()
        .expect("deployments")
        .iter()
        .filter_map(|d| d["figure"].as_str())
        .collect();
    assert_eq!(kinds, ["mayor", "wagon"]);
}
