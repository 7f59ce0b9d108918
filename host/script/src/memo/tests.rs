use super::*;
use crate::{compile_source, ScriptExpansion};
use carcassonne_core::{Game, GameSetup, OptionDef, OptionType, OptionValue};
use std::sync::Arc;

thread_local! {
    /// Calls looked up and answered on this thread (test instrumentation only).
    pub(crate) static CALLS: Cell<u64> = const { Cell::new(0) };
    pub(crate) static HITS: Cell<u64> = const { Cell::new(0) };
}

fn shape(text: &str, hook: &str, arity: usize) -> Shape {
    let (engine, traced) = crate::sandbox::new_engine_traced();
    let ast = engine.compile(text).unwrap().clone_functions_only();
    analyze(&ast, hook, arity, &traced)
}

fn opaque(text: &str) -> u32 {
    shape(text, "deploy_actions", 3).opaque
}

#[test]
fn parameters_passed_only_to_game_functions_are_opaque() {
    let f = |body: &str| opaque(&format!("fn deploy_actions(p, x, y) {{ {body} }}"));
    // Straight into game functions (reads and commands), or unused.
    assert_eq!(f("tile_has_feature(tile_at(x, y), \"road\")"), 0b111);
    assert_eq!(f("player_state(\"t\", p) + segments_at(x, y).len()"), 0b111);
    // Any other use keeps a parameter in the key.
    assert_eq!(f("if x > 2 { tile_at(x, y) }"), 0b101, "a comparison");
    assert_eq!(f("tile_at(x + 1, y)"), 0b101, "arithmetic");
    assert_eq!(f("let q = y; tile_at(x, q)"), 0b011, "a copy");
    assert_eq!(f("let x = 1; tile_at(x, y)"), 0b101, "shadowed by let");
    assert_eq!(
        f("for x in 0..2 { tile_at(x, y) }"),
        0b101,
        "shadowed by for"
    );
    assert_eq!(f("x.tile_at(y)"), 0b001, "a method call");
    assert_eq!(f("help(x, y)"), 0b001, "a script function");
    assert_eq!(f("`${x}`; tile_at(1, y)"), 0b101, "interpolated");
    assert_eq!(
        f("[x].map(|v| tile_at(v, y))"),
        0b001,
        "in an array, captured"
    );
    assert_eq!(f("let g = |v| tile_at(x, v); g.call(y)"), 0b001, "captured");
    assert_eq!(f("x = 3; tile_at(x, y)"), 0b101, "assigned");
    assert_eq!(
        f("try { tile_at(x, y) } catch (x) { 0 }"),
        0b101,
        "catch variable"
    );
    // A script function of the same name hides the game function: it is a helper, which
    // returns `a` (kept) and never looks at `b`.
    let t = "fn tile_at(a, b) { a }\nfn deploy_actions(p, x, y) { tile_at(x, y) }";
    assert_eq!(opaque(t), 0b101);
    // Builders are not traced: their result depends on the parameter.
    assert_eq!(f("figure_action(\"v\", x)"), 0b101);
}

/// A parameter handed to a helper of the script stays out of the key when the helper only
/// hands it on to game functions, however rarely the call is taken; any doubt keeps it.
#[test]
fn parameters_passed_through_helpers_are_opaque() {
    let f = |helpers: &str, body: &str| {
        opaque(&format!(
            "{helpers}\nfn deploy_actions(p, x, y) {{ {body} }}"
        ))
    };
    let road = "fn road(a, b) { tile_has_feature(tile_at(a, b), \"road\") }";
    assert_eq!(
        f(road, "if state(\"n\") == 9 { road(x, y) } else { 0 }"),
        0b111
    );
    assert_eq!(f(road, "road(x, y) || road(x, y)"), 0b111, "the same twice");
    // Its sites are the hook's: the argument is replayed with the current parameter.
    let text = format!("{road}\nfn deploy_actions(p, x, y) {{ road(x, y) }}");
    let sh = shape(&text, "deploy_actions", 3);
    assert_eq!(
        sh.helper_sites.iter().map(|s| s.2).collect::<Vec<_>>(),
        [1, 2]
    );
    // Doubt keeps the parameters passed to helpers in the key.
    assert_eq!(f(road, "road(x, y) || road(y, x)"), 0b001, "other places");
    assert_eq!(f(road, "road(x, 1)"), 0b111, "a constant beside it");
    let plus = "fn road(a, b) { tile_at(a + 1, b) }";
    assert_eq!(f(plus, "road(x, y)"), 0b101, "arithmetic in the helper");
    let nested = "fn inner(a, b) { tile_at(a, b) }\nfn road(a, b) { inner(a, b) }";
    assert_eq!(
        f(nested, "road(x, y)"),
        0b001,
        "a helper that calls a script function"
    );
    assert_eq!(
        f(road, "road(x, y); Fn(\"road\").call(1, 2)"),
        0b001,
        "a function pointer"
    );
    assert_eq!(f(road, "x.road(y)"), 0b001, "a method call");
}

#[test]
fn map_parameters_read_by_field_are_keyed_by_those_fields() {
    let s = |body: &str| {
        shape(
            &format!("fn after_scoring(d) {{ {body} }}"),
            "after_scoring",
            1,
        )
    };
    let fields = |sh: Shape| {
        sh.fields
            .iter()
            .map(|f| f.1.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        fields(s("if d.final || state(\"w\") == 0 { return; }")),
        ["final"]
    );
    assert_eq!(fields(s("d.placer + d.final")), ["final", "placer"]);
    // Anything else: the whole map.
    assert!(fields(s("d.final; d.features.len()")).is_empty());
    assert!(fields(s("d.final; d.final = 1")).is_empty());
    assert!(fields(s("d.final; help(d)")).is_empty());
    assert!(fields(s("d.final; d.keys()")).is_empty());
    assert!(fields(s("d.final; figure_state(\"f\", d)")).is_empty());
}

#[test]
fn squares_hold_cells_far_away_without_overflow() {
    let s = Square {
        x: i32::MAX,
        y: 0,
        radius: 2,
        reason: None,
    };
    assert!(s.holds(i32::MAX - 2, 1) && !s.holds(i32::MIN, 0) && !s.holds(0, i32::MIN));
}

#[test]
fn opaque_arguments_are_found_by_call_position() {
    let s = shape(
        "fn deploy_actions(p, x, y) {\n  tile_at(x, y)\n}",
        "deploy_actions",
        3,
    );
    assert_eq!(s.opaque, 0b111);
    let pos = Position::new(2, 3);
    assert_eq!(
        (s.param_at(pos, 0, 1), s.param_at(pos, 1, 1)),
        (Some(1), Some(2))
    );
    assert_eq!(s.param_at(Position::new(2, 4), 0, 1), None);
}

/// A script that uses the memo's corners: a caught failing read, a closure, awards
/// followed by `score`, prompts, redraws, an extra part, strength, removals.
const TRICKY: &str = r#"
fn setup() {
    declare_state("n", "game", 0);
    declare_state("t", "player", 0);
    declare_state("f", "figure", 0);
    declare_state("extra", "game", 0);
    declare_verb("poke");
    declare_verb("yes");
    declare_label("bonus");
}
fn start_game() { set_state("n", 1); }
fn on_tile_drawn(tile) {
    if state("n") % 7 == 3 && tiles_left() > 5 && tile_has_feature(tile, "city") {
        set_state("n", state("n") + 1);
        "redraw"
    } else { "keep" }
}
fn forbidden_cells(player, tile) {
    let out = [];
    if turn() % 3 == 0 {
        try { segment_kind(999999); } catch { out.push(#{ x: 50, y: 50 }); }
    }
    if turn() % 5 == player { out.push(#{ x: player, y: 4, radius: 1 }); }
    out
}
fn on_tile_placed(x, y) {
    let near = |k| tile_at(k, y);
    if near.call(x + 1) != () { set_state("n", state("n") + 1); }
    let p = active_player();
    if score(p) > 5 {
        award(p, 1, "bonus");
        set_player_state("t", p, score(p));
    }
}
fn deploy_actions(player, x, y) {
    let out = [];
    if player_state("t", player) % 2 == 0 { out.push(custom_action("poke", 3)); }
    if tile_has_feature(tile_at(x, y), "road") { out.push(custom_action("poke", 4)); }
    out
}
fn apply_action(player, action) {
    if action.value == 3 {
        set_player_state("t", player, player_state("t", player) + 1);
    } else {
        prompt((player + 1) % players(), 1, action.value);
    }
}
fn prompt_actions(player, code, arg) { [custom_action("yes"), pass_action()] }
fn apply_prompt(player, code, arg, action) { if action.type == "custom" { award(player, arg); } }
fn strength(f) { figure_state("f", f) }
fn on_figure_removed(f, reason) { if reason == "scored" { set_figure_state("f", f, 1 - figure_state("f", f)); } }
fn window_after_scoring() { let x = 0; for p in 0..players() { x += score(p); } set_state("n", x); }
fn on_turn_end() {
    if state("extra") == 0 && turn() % 11 == 5 { set_state("extra", 1); "extra" }
    else { set_state("extra", 0); "next" }
}
fn final_scoring() { for p in 0..players() { award(p, player_state("t", p)); } }
fn before_scoring(draft) {
    if !draft.final && turn() % 4 == 0 { draft.awards }
}
fn after_scoring(draft) {
    if draft.final { return; }
    if state("n") % 2 == 0 { set_state("n", state("n") + draft.placer + 1); }
}
"#;

/// A script's rules, with the memo and without it.
#[derive(Clone)]
struct Pair {
    memo: Arc<Ruleset>,
    plain: Arc<Ruleset>,
}

fn ruleset(id: &str, text: &str, options: &[OptionDef], memo: bool) -> Arc<Ruleset> {
    let script = compile_source(id, "1.0.0", format!("{id}.rhai").into(), text).unwrap();
    let mut x = ScriptExpansion::new(script);
    if !memo {
        x = x.without_memo();
    }
    assert_eq!(x.memo(), memo);
    let mut b = Ruleset::builder()
        .tiles(carcassonne_files::tiles::base_tile_set())
        .expansion(Arc::new(x));
    for o in options {
        b = b.declare_option(o.clone());
    }
    Arc::new(b.build().unwrap())
}

fn rules(id: &str, text: &str, options: Vec<OptionDef>) -> Pair {
    Pair {
        memo: ruleset(id, text, &options, true),
        plain: ruleset(id, text, &options, false),
    }
}

/// Plays a game with random choices; what happened, as text.
fn play(rules: &Pair, seed: u64, players: usize, memo: bool) -> String {
    let rules = if memo { &rules.memo } else { &rules.plain };
    let names = (0..players).map(|i| format!("P{i}")).collect();
    let mut g = Game::new(rules.clone(), &GameSetup::new(names, seed)).unwrap();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = String::new();
    while !g.is_over() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let i = (x % g.action_count() as u64) as usize;
        out.push_str(&format!("{:?};", g.actions()[i]));
        if let Err(e) = g.apply_offered(i) {
            // A hook failed: the error is part of what happened.
            out.push_str(&format!("error: {e:?};"));
            break;
        }
    }
    out.push_str(&format!("{:?}", g.state()));
    out
}

/// Memoized calls do exactly what the script does: the same games, action by action
/// and to the last state value, with the memo off, cold and warm.
fn same_games(rules: &Pair) {
    for seed in 1..=12 {
        let players = 2 + seed as usize % 3;
        let plain = play(rules, seed, players, false);
        assert_eq!(plain, play(rules, seed, players, true), "seed {seed}");
        assert_eq!(plain, play(rules, seed, players, true), "seed {seed}, warm");
    }
}

/// The fan scripts of the project whose games are compared and timed: id, text, the
/// options their manifest declares.
fn fan_scripts() -> Vec<(&'static str, &'static str, Vec<OptionDef>)> {
    let pilgrims = vec![
        OptionDef {
            key: "pilgrims.perPlayer".into(),
            ty: OptionType::Int { min: 1, max: 4 },
            default: OptionValue::Int(2),
            description: String::new(),
        },
        OptionDef::choice("pilgrims.lostPilgrim", &["penalty", "free"], ""),
    ];
    vec![
        (
            "ferry-lite",
            include_str!("../../../cli/benches/fan/ferry-lite/ferry-lite.rhai"),
            vec![],
        ),
        (
            "promotions",
            include_str!("../../../../fan-expansions/promotions/promotions.rhai"),
            vec![],
        ),
        (
            "pilgrims",
            include_str!("../../../../docs/examples/pilgrims/pilgrims.rhai"),
            pilgrims,
        ),
    ]
}

#[test]
fn memoized_games_are_the_games_the_script_plays() {
    same_games(&rules("tricky", TRICKY, vec![]));
    for (id, text, options) in fan_scripts() {
        same_games(&rules(id, text, options));
    }
}

/// Hooks whose memoized walk sets state values or awards points (`award_scoring`'s mark
/// kept through the wait) and then misses
/// (those must be undone before the script runs), that use `random`, and that fail
/// (a script error or the operations limit) in some calls.
const EDGY: &str = r#"
fn setup() {
    declare_state("a", "game", 0);
    declare_state("b", "game", 0);
    declare_state("r", "game", 0);
    declare_state("c", "player", 0);
    declare_label("edge");
}
fn on_tile_placed(x, y) {
    set_state("a", state("a") % 5 + 1);
    award(active_player(), 1, "edge");
    if tile_at(x, y + 1) != () {
        set_state("b", state("b") + state("a"));
        award_scoring(active_player(), 2, "edge");
    }
    set_player_state("c", active_player(), score(active_player()) % 3);
}
fn on_turn_end() {
    if turn() % 4 == 1 { set_state("r", random(6)); }
    set_player_state("c", active_player(), player_state("c", active_player()) + state("r"));
    "next"
}
"#;

/// [`EDGY`] with a hook that fails late in the game, by `throw` or by running out of
/// operations, after it has set a state value.
fn failing(how: &str) -> String {
    format!(
        "{EDGY}\nfn window_after_deploy() {{ set_state(\"b\", state(\"b\") + 1); \
         if turn() > 40 && state(\"a\") == 3 {{ {how} }} }}"
    )
}

/// Hooks that hand the game functions the integers' extremes, in every turn.
const EXTREME: &str = r#"
fn setup() {
    declare_state("m", "game", 0);
    declare_state("p", "player", 0);
    declare_state("f", "figure", 0);
}
fn on_tile_placed(x, y) {
    let big = 9223372036854775807;
    let small = -9223372036854775807 - 1;
    if tile_at(big, small) == () && tile_at(x, y) != () { set_state("m", small); }
    try { set_player_state("p", big, 1); } catch { set_state("m", big); }
    try { set_figure_state("f", small, big); } catch { }
    try { let s = score(big); } catch { }
    try { let k = segment_kind(small); } catch { }
    try { let o = figure_owner(big); } catch { }
    set_player_state("p", active_player(), state("m"));
}
fn deploy_actions(player, x, y) {
    if player_state("p", player) == -9223372036854775807 - 1 && tile_at(x, y) != () { [] } else { [] }
}
"#;

#[test]
fn extreme_integers_play_the_same_and_never_panic() {
    let r = rules("extreme", EXTREME, vec![]);
    same_games(&r);
    let game = play(&r, 3, 2, true);
    assert!(!game.contains("error:"), "{game}");
}

#[test]
fn undone_walks_random_and_failing_hooks_play_the_same() {
    same_games(&rules("edgy", EDGY, vec![]));
    same_games(&rules("throws", &failing("throw \"boom\";"), vec![]));
    same_games(&rules("loops", &failing("loop {}"), vec![]));
    // The failing scripts do fail in some of those games.
    let r = rules("throws", &failing("throw \"boom\";"), vec![]);
    assert!((1..=12).any(|seed| play(&r, seed, 2, true).contains("boom")));
}

#[test]
fn most_calls_are_answered_from_the_memo() {
    let r = rules(
        "ferry-lite",
        include_str!("../../../cli/benches/fan/ferry-lite/ferry-lite.rhai"),
        vec![],
    );
    for seed in 1..=20 {
        play(&r, seed, 2, true);
    }
    let (calls, hits) = (CALLS.with(|c| c.get()), HITS.with(|h| h.get()));
    assert!(hits * 10 > calls * 9, "{hits} hits in {calls} calls");
}

/// The pitfall of the memo fixed: a hook that hands its cell to a helper, even in a branch
/// it rarely takes, is remembered (its games are the script's, and most calls are hits).
#[test]
fn hooks_that_call_helpers_are_remembered_and_play_the_same() {
    let text = r#"
fn setup() { declare_state("mode", "game", 0); }
fn road_here(a, b) { tile_has_feature(tile_at(a, b), "road") }
fn on_tile_placed(x, y) {
    if state("mode") == 1 { if road_here(x, y) { set_state("mode", 2); } }
    if road_here(x, y) { award(active_player(), 1); }
}
"#;
    let r = rules("helpers", text, vec![]);
    same_games(&r);
    let (calls0, hits0) = (CALLS.with(|c| c.get()), HITS.with(|h| h.get()));
    for seed in 1..=20 {
        play(&r, seed, 2, true);
    }
    let (calls, hits) = (
        CALLS.with(|c| c.get()) - calls0,
        HITS.with(|h| h.get()) - hits0,
    );
    assert!(hits * 10 > calls * 9, "{hits} hits in {calls} calls");
}
