//! The placed-tile guards, `keep_open_on`, `offer_tiles` and `offer_prompt` decide exactly
//! as the script loops they replace: each native script plays the same random games, state
//! for state, as its looping twin.

use super::*;
use crate::compile_source;
use carcassonne_core::{Game, GameSetup};

/// A ruleset of the base tiles and one script (without a memo).
pub(crate) fn rules_with(text: &str) -> Arc<Ruleset> {
    Arc::new(try_rules_with(text).unwrap())
}

/// [`rules_with`], or the build's error as text (a script whose `setup` fails).
pub(crate) fn try_rules_with(text: &str) -> Result<Ruleset, String> {
    let script = compile_source("x", "1.0.0", "x.rhai".into(), text).unwrap();
    Ruleset::builder()
        .tiles(carcassonne_files::tiles::base_tile_set())
        .expansion(Arc::new(ScriptExpansion::new(script).without_memo()))
        .build()
        .map_err(|e| e.to_string())
}

/// The value of the script's game state `name` (`x.name`).
fn state(rules: &Ruleset, g: &Game, name: &str) -> i64 {
    super::tests::state(rules, g.state(), name)
}

/// Plays a game to the end, each choice drawn from `seed`; returns the game and the
/// number of actions offered over the game (a fingerprint of every decision).
fn play(rules: &Arc<Ruleset>, seed: u64) -> (Game, usize) {
    let mut g = Game::new(
        rules.clone(),
        &GameSetup::new(vec!["A".into(), "B".into()], seed),
    )
    .unwrap();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut offered = 0;
    while !g.is_over() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        offered += g.action_count();
        g.apply_offered((x % g.action_count() as u64) as usize)
            .unwrap();
    }
    (g, offered)
}

/// Both scripts play the same games: same scores, same offers, same `count` state.
fn same_games(native: &str, looping: &str) {
    let (a, b) = (rules_with(native), rules_with(looping));
    let mut counted = 0;
    for seed in 1..=12 {
        let (ga, na) = play(&a, seed);
        let (gb, nb) = play(&b, seed);
        let scores = |g: &Game| {
            g.state()
                .players()
                .iter()
                .map(|p| p.score)
                .collect::<Vec<_>>()
        };
        assert_eq!(scores(&ga), scores(&gb), "seed {seed}: scores");
        assert_eq!(na, nb, "seed {seed}: actions offered");
        assert_eq!(
            state(&a, &ga, "count"),
            state(&b, &gb, "count"),
            "seed {seed}"
        );
        counted += state(&a, &ga, "count");
    }
    assert!(counted > 0, "the hooks ran at least once");
}

/// CU-2's test, natively: the tile placed this turn holds a follower of its placer.
#[test]
fn guard_placed_follower_runs_only_when_the_placer_deployed_on_his_tile() {
    // The looping twin counts the turns whose tile holds a follower of its placer.
    let looping = r#"
fn setup() { declare_state("count", "game", 0); }
fn window_after_scoring() {
    let t = last_placed();
    for s in segments_at(t.x, t.y) {
        for f in feature_figures(s) {
            if figure_segment(f) == s && figure_owner(f) == t.player && is_follower(f) {
                set_state("count", state("count") + 1);
                return;
            }
        }
    }
}
"#;
    let native = r#"
fn setup() {
    declare_state("count", "game", 0);
    guard_placed_follower("window_after_scoring");
}
fn window_after_scoring() { set_state("count", state("count") + 1); }
"#;
    same_games(native, looping);
}

#[test]
fn guard_placed_in_line_sees_the_row_and_column_of_a_figure_kind() {
    // In line with any small follower (the base game's figure kind), and holding one of
    // the placer's: both guards at once.
    let looping = r#"
fn setup() { declare_state("count", "game", 0); }
fn window_after_scoring() {
    let t = last_placed();
    let line = false;
    for f in figures_of_kind("small-follower") {
        let c = figure_cell(f);
        if c != () && (c.x == t.x || c.y == t.y) { line = true; }
    }
    if !line { return; }
    for f in figures_near(t.x, t.y, 0) {
        if figure_owner(f) == t.player && is_follower(f) {
            set_state("count", state("count") + 1);
            return;
        }
    }
}
"#;
    let native = r#"
fn setup() {
    declare_state("count", "game", 0);
    guard_placed_in_line("window_after_scoring", "small-follower");
    guard_placed_follower("window_after_scoring");
}
fn window_after_scoring() { set_state("count", state("count") + 1); }
"#;
    same_games(native, looping);
}

/// `guard_placed_tile`: the hook runs after exactly the placements of the listed tiles.
#[test]
fn guard_placed_tile_runs_only_after_the_listed_tiles() {
    let looping = r#"
fn setup() { declare_state("count", "game", 0); }
fn on_tile_placed(x, y) {
    let t = tile_at(x, y);
    if t == "BA/LR" || t == "BA/RCr" { set_state("count", state("count") + 1); }
}
"#;
    let native = r#"
fn setup() {
    declare_state("count", "game", 0);
    guard_placed_tile("on_tile_placed", ["BA/LR", "BA/RCr", "no-such-tile"]);
}
fn on_tile_placed(x, y) { set_state("count", state("count") + 1); }
"#;
    same_games(native, looping);
}

/// A guard call that fails names itself and declares nothing: a script that catches the
/// failure keeps its hook unguarded, running after every placement.
#[test]
fn a_failed_guard_call_names_itself_and_declares_nothing() {
    for (call, message) in [
        (
            r#"guard_placed_tile("on_tile_placed", ["BA/LR", 7])"#,
            "guard_placed_tile: a tile id is a string, not i64",
        ),
        (
            r#"guard_placed_follower("apply_action")"#,
            "guard_placed_follower: hook `apply_action` cannot be guarded",
        ),
        (
            r#"guard_placed_tag("no_such_hook", "port")"#,
            "guard_placed_tag:",
        ),
    ] {
        let e = try_rules_with(&format!(
            "fn setup() {{ {call}; }}\nfn on_tile_placed(x, y) {{ }}\n"
        ))
        .expect_err(call);
        assert!(e.contains(message), "{call}: {e}");
    }
    let looping = r#"
fn setup() { declare_state("count", "game", 0); }
fn on_tile_placed(x, y) { set_state("count", state("count") + 1); }
"#;
    let caught = r#"
fn setup() {
    declare_state("count", "game", 0);
    try { guard_placed_tile("on_tile_placed", ["BA/LR", 7]); } catch (e) { }
}
fn on_tile_placed(x, y) { set_state("count", state("count") + 1); }
"#;
    same_games(caught, looping);
}

/// On `on_tile_drawn` the tile guards look at the drawn tile.
#[test]
fn guard_placed_tile_on_a_draw_looks_at_the_drawn_tile() {
    let looping = r#"
fn setup() { declare_state("count", "game", 0); }
fn on_tile_drawn(tile) {
    if tile == "BA/LR" { set_state("count", state("count") + 1); }
    "keep"
}
"#;
    let native = r#"
fn setup() {
    declare_state("count", "game", 0);
    guard_placed_tile("on_tile_drawn", ["BA/LR"]);
}
fn on_tile_drawn(tile) { set_state("count", state("count") + 1); "keep" }
"#;
    same_games(native, looping);
}

/// `keep_open_on` keeps the same placements open as `keep_open` over the tile's
/// scored kinds; `offer_tiles` and `offer_prompt` offer what the looping script offers.
#[test]
fn keep_open_on_offer_tiles_and_offer_prompt_match_their_loops() {
    let common = r#"
fn start_game() { set_state("here", 1); }
fn apply_prompt(player, code, arg, action) {
    set_state("here", action.segment + 1);
    set_state("count", state("count") + 1);
}
"#;
    let looping = format!(
        r#"
fn setup() {{
    declare_verb("go"); declare_verb("go-to");
    declare_state("here", "game", 0); declare_state("count", "game", 0);
    declare_state("may", "player", 1);
    offer("go", "may");
}}
fn apply_action(player, action) {{ prompt(player, 1, 0); }}
fn prompt_actions(player, code, arg) {{
    let here = segment_cell(state("here") - 1);
    let out = [];
    for s in placed_tiles() {{
        let c = segment_cell(s);
        if c.x != here.x || c.y != here.y {{
            let a = custom_action("go-to");
            a.segment = s;
            out.push(a);
        }}
    }}
    out
}}
fn filter_placements(player, tile, cells) {{
    let here = segment_cell(state("here") - 1);
    let guarded = [];
    for s in segments_at(here.x, here.y) {{
        if !feature_complete(s) && !feature_scored(s) {{ guarded.push(s); }}
    }}
    keep_open(tile, cells, guarded)
}}
{common}"#
    );
    let native = format!(
        r#"
fn setup() {{
    declare_verb("go"); declare_verb("go-to");
    declare_state("here", "game", 0); declare_state("count", "game", 0);
    declare_state("may", "player", 1);
    offer("go", "may");
    offer_prompt("go", 1);
    offer_tiles(1, "go-to", "here");
    keep_open_on("here");
}}
{common}"#
    );
    same_games(&native, &looping);
}

#[test]
fn bad_declarations_say_what_is_wrong() {
    let err = |setup: &str| {
        let text = format!("fn setup() {{ declare_verb(\"v\"); {setup} }}");
        let script = compile_source("x", "1.0.0", "x.rhai".into(), &text).unwrap();
        let r = Ruleset::builder()
            .tiles(carcassonne_files::tiles::base_tile_set())
            .expansion(Arc::new(ScriptExpansion::new(script)))
            .build();
        match r {
            Ok(_) => panic!("{setup} was accepted"),
            Err(e) => e.to_string(),
        }
    };
    let e = err(r#"guard_placed_follower("apply_action");"#);
    assert!(
        e.contains("guard_placed_follower") && e.contains("cannot be guarded"),
        "{e}"
    );
    let e = err(r#"keep_open_on("nope");"#);
    assert!(
        e.contains("keep_open_on: `nope` is not a declared game-scoped state"),
        "{e}"
    );
    let e = err(r#"offer_tiles(1, "w", "s");"#);
    assert!(e.contains("offer_tiles: verb `w` is not declared"), "{e}");
    let e = err(r#"declare_state("s", "game", 0); offer_tiles(1, "v", "s"); offer_moves(1, []);"#);
    assert!(
        e.contains("offer_moves: prompt code 1 is declared twice"),
        "{e}"
    );
    let e = err(r#"guard_placed_tile("on_tile_placed", [1]);"#);
    assert!(
        e.contains("guard_placed_tile: a tile id is a string"),
        "{e}"
    );
    let e = err(r#"guard_placed_tag("apply_action", "t");"#);
    assert!(
        e.contains("guard_placed_tag") && e.contains("cannot be guarded"),
        "{e}"
    );
    let e = err(r#"offer_prompt("v", 1);"#);
    assert!(e.contains("`v` is not offered"), "{e}");
}
