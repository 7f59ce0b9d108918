//! The script hooks that mirror core's (`prepare_game`, `window_before_draw`,
//! `filter_prompt_actions`, `describe`) and reads of the board, each in real games.

use super::*;
use crate::compile_source;
use carcassonne_core::{DecisionKind, Game, GameSetup, GameState, PlayerId, Rotation, Visible};

/// A tile with nine segments (a cloister where four roads meet, four fields).
const NINE: &str = r#"
schema = 1
set = "nine"

[[tile]]
id = "T/LRRRR"
count = 1
edges = "RRRR"
features = [
  { kind = "cloister" },
  { kind = "road", sides = "N" },
  { kind = "road", sides = "W" },
  { kind = "road", sides = "S" },
  { kind = "road", sides = "E" },
  { kind = "field", halves = ["NL", "WR"] },
  { kind = "field", halves = ["NR", "EL"] },
  { kind = "field", halves = ["ER", "SL"] },
  { kind = "field", halves = ["SR", "WL"] },
]
"#;

fn rules_with(text: &str, nine: bool) -> Arc<Ruleset> {
    let script = compile_source("x", "1.0.0", "x.rhai".into(), text).unwrap();
    let mut b = Ruleset::builder()
        .tiles(carcassonne_files::tiles::base_tile_set())
        .expansion(Arc::new(ScriptExpansion::new(script)));
    if nine {
        b = b.tiles(carcassonne_files::tiles::parse_tile_set(NINE, "nine.toml").unwrap());
    }
    Arc::new(b.build().unwrap())
}

fn game(rules: &Arc<Ruleset>, seed: u64) -> Result<Game, carcassonne_core::GameError> {
    Game::new(
        rules.clone(),
        &GameSetup::new(vec!["A".into(), "B".into()], seed),
    )
}

/// The value of the script's game state `name` (also used by `native_tests`).
pub(super) fn state(rules: &Ruleset, st: &GameState, name: &str) -> i64 {
    let me = rules.expansion_index("x").unwrap();
    let slot = rules
        .slots()
        .iter()
        .position(|s| s.expansion == me && s.name == name)
        .expect("a declared state");
    st.slot(carcassonne_core::SlotId(slot as u16), 0)
}

/// Plays to the end with choices drawn from `seed` (0: the first action, passing when it
/// can).
fn play_out(g: &mut Game, seed: u64) {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    while !g.is_over() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let first = g.actions().iter().position(|a| *a == Action::Pass);
        let i = match seed {
            0 => first.unwrap_or(0),
            _ => (x % g.action_count() as u64) as usize,
        };
        g.apply_offered(i).unwrap();
    }
}

#[test]
fn prepare_game_lays_the_start_tiles() {
    let rules = rules_with(
        r#"
fn setup() { declare_state("laid", "game", 0); }
fn prepare_game(start) {
    set_state("laid", start.len());
    [#{tile: start[0].tile, x: 3, y: -2, rotation: 1}, #{tile: "T/LRRRR", x: 9, y: 6}]
}
"#,
        true,
    );
    let g = game(&rules, 1).unwrap();
    let board = g.state().board();
    let t = board
        .at(carcassonne_core::Pos::new(3, -2))
        .expect("the first start tile");
    assert_eq!(t.rotation, Rotation::R90);
    assert!(board.at(carcassonne_core::Pos::new(9, 6)).is_some());
    assert!(board.at(carcassonne_core::Pos::new(0, 0)).is_none());
    assert_eq!(
        state(&rules, g.state(), "laid"),
        1,
        "core's layout had one tile"
    );

    // `()` keeps the layout; a tile the rules do not have is an error naming the line.
    let keep = rules_with("fn prepare_game(start) { }", false);
    assert!(game(&keep, 1)
        .unwrap()
        .state()
        .board()
        .at(carcassonne_core::Pos::new(0, 0))
        .is_some());
    let bad = rules_with(
        "fn prepare_game(start) {\n  [#{tile: \"nope\", x: 0, y: 0}]\n}",
        false,
    );
    let Err(e) = game(&bad, 1) else {
        panic!("an unknown tile fails")
    };
    let e = e.to_string();
    assert!(
        e.contains("x.rhai:1:1") && e.contains("unknown tile `nope`"),
        "{e}"
    );
}

#[test]
fn window_before_draw_opens_before_every_draw() {
    let rules = rules_with(
        r#"
fn setup() { declare_state("starts", "game", 0); declare_state("draws", "game", 0); }
fn window_turn_start() { set_state("starts", state("starts") + 1); }
fn window_before_draw() {
    // The turn start came first.
    if state("draws") >= state("starts") { throw "before-draw before the turn start"; }
    set_state("draws", state("draws") + 1);
}
"#,
        false,
    );
    let mut g = game(&rules, 7).unwrap();
    assert_eq!(
        state(&rules, g.state(), "draws"),
        1,
        "the first turn's draw"
    );
    play_out(&mut g, 0);
    let (starts, draws) = (
        state(&rules, g.state(), "starts"),
        state(&rules, g.state(), "draws"),
    );
    // One draw per turn (the base game has no second parts).
    assert!(
        draws > 60 && draws == starts,
        "{draws} draws, {starts} turn starts"
    );
}

/// `verb_by_chance`: a script's prompt that offers the verb's actions is a draw by chance
/// (`Game::is_chance`), its actions the outcomes, each weight 1; the script's other verb in
/// the same prompt is no outcome. An undeclared verb is refused.
#[test]
fn a_script_verb_by_chance_makes_its_prompt_a_draw() {
    let rules = rules_with(
        r#"
fn setup() { declare_verb("roll"); declare_verb("keep"); verb_by_chance("roll"); }
fn window_turn_start() { if turn() == 0 { prompt(active_player(), 1, 0); } }
fn prompt_actions(player, code, arg) {
    [custom_action("roll", 1), custom_action("roll", 2), custom_action("keep")]
}
"#,
        false,
    );
    assert!(rules.has_chance_verbs());
    let mut g = game(&rules, 3).unwrap();
    while !matches!(g.state().decision().kind, DecisionKind::Prompt(_)) {
        assert!(!g.is_chance());
        g.apply_offered(0).unwrap();
    }
    assert!(g.is_chance());
    let mut outcomes = Vec::new();
    g.chance_outcomes(&mut outcomes);
    assert_eq!(outcomes, [(0, 1), (1, 1)]);
    let script = compile_source(
        "x",
        "1.0.0",
        "x.rhai".into(),
        r#"fn setup() { verb_by_chance("roll"); }"#,
    )
    .unwrap();
    let Err(err) = Ruleset::builder()
        .tiles(carcassonne_files::tiles::base_tile_set())
        .expansion(Arc::new(ScriptExpansion::new(script)))
        .build()
    else {
        panic!("an undeclared verb is refused");
    };
    assert!(
        err.to_string().contains("verb `roll` is not declared"),
        "{err}"
    );
}

#[test]
fn filter_prompt_actions_removes_choices_of_any_prompt() {
    let rules = rules_with(
        r#"
fn setup() { declare_verb("keep"); declare_verb("drop"); }
fn window_turn_start() { if turn() == 0 { prompt(active_player(), 1, 0); } }
fn prompt_actions(player, code, arg) { [custom_action("keep"), custom_action("drop"), pass_action()] }
fn filter_prompt_actions(player, owner, actions) {
    if owner != "x" { throw "the owner is this expansion"; }
    actions.filter(|a| a.type != "custom" || a.verb != "drop")
}
"#,
        false,
    );
    let mut g = game(&rules, 3).unwrap();
    // Turn 1's prompt is asked after the first turn's start.
    let mut asked = None;
    for _ in 0..4 {
        if let DecisionKind::Prompt(_) = g.state().decision().kind {
            asked = Some(g.actions().to_vec());
            break;
        }
        g.apply_offered(0).unwrap();
    }
    let asked = asked.expect("the prompt is asked");
    let verbs: Vec<String> = asked
        .iter()
        .filter_map(|a| match a {
            Action::Custom(c) => Some(rules.verbs()[c.verb.0 as usize].1.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(verbs, ["keep"]);
    assert!(asked.contains(&Action::Pass));
}

#[test]
fn describe_shows_what_the_script_declares() {
    let rules = rules_with(
        r#"
fn describe() {
    [#{type: "title", group: "ferry", name: "Ferry", icon: "f", holder: 1, detail: "on the lake"},
     #{type: "place", group: "ferry", name: "Dock", segment: segments_at(0, 0)[0]},
     #{type: "title", group: "ferry", name: "Nobody's"}]
}
"#,
        false,
    );
    let g = game(&rules, 1).unwrap();
    let mut out = Vec::new();
    g.view().describe(&mut out).unwrap();
    let first = g
        .state()
        .segment_at(carcassonne_core::Pos::new(0, 0), 0)
        .unwrap();
    assert_eq!(
        out,
        [
            Visible::Title {
                group: "ferry".into(),
                name: "Ferry".into(),
                icon: "f".into(),
                holder: Some(PlayerId(1)),
                detail: "on the lake".into(),
            },
            Visible::Place {
                group: "ferry".into(),
                name: "Dock".into(),
                segment: first,
            },
            Visible::Title {
                group: "ferry".into(),
                name: "Nobody's".into(),
                icon: String::new(),
                holder: None,
                detail: String::new(),
            },
        ]
    );
    let bad = rules_with("fn describe() {\n  [#{type: \"banner\"}]\n}", false);
    let e = game(&bad, 1)
        .unwrap()
        .view()
        .describe(&mut Vec::new())
        .unwrap_err();
    assert!(
        e.to_string().contains("x.rhai:1:1") && e.to_string().contains("banner"),
        "{e}"
    );
}

#[test]
fn segments_at_lists_every_segment_deployments_offer() {
    let rules = rules_with(
        r#"
fn setup() { declare_state("segments", "game", 0); declare_state("missing", "game", 0); }
fn prepare_game(start) { [#{tile: "T/LRRRR", x: 0, y: 0}] }
fn start_game() {
    let on = segments_at(0, 0);
    set_state("segments", on.len());
    for d in deployments(0, 0, 0) {
        if !on.contains(d.segment) { set_state("missing", state("missing") + 1); }
    }
}
"#,
        true,
    );
    let g = game(&rules, 1).unwrap();
    assert_eq!(state(&rules, g.state(), "segments"), 9);
    assert_eq!(state(&rules, g.state(), "missing"), 0);
}

#[test]
fn feature_figures_lists_each_figure_once() {
    // After every turn: each figure on the board is listed once by the feature it stands
    // on, also after the script moved one along its road.
    let rules = rules_with(
        r#"
fn setup() { declare_state("wrong", "game", 0); declare_state("moved", "game", 0); }
fn on_turn_end() {
    let l = last_placed();
    if state("moved") == 0 && l != () {
        for f in figures() {
            let s = figure_segment(f);
            if segment_kind(s) != "road" { continue; }
            for t in segments_at(l.x, l.y) {
                if state("moved") == 0 && segment_kind(t) == "road" && feature_figures(t).len() == 0 {
                    move_figure(f, t);
                    set_state("moved", 1);
                }
            }
        }
    }
    for f in figures() {
        let n = 0;
        for g in feature_figures(figure_segment(f)) { if g == f { n += 1; } }
        if n != 1 { set_state("wrong", state("wrong") + 1); }
    }
}
"#,
        false,
    );
    for seed in 1..=3 {
        let mut g = game(&rules, seed).unwrap();
        play_out(&mut g, seed);
        assert_eq!(state(&rules, g.state(), "moved"), 1, "seed {seed}");
        assert_eq!(state(&rules, g.state(), "wrong"), 0, "seed {seed}");
    }
}

#[test]
fn game_state_guards_become_core_gates() {
    let rules = rules_with(
        r#"
fn setup() {
    declare_state("on", "game", 0);
    declare_state("ready", "player", 0);
    declare_state("placed", "game", 0);
    declare_state("calls", "game", 0);
    guard("on_turn_end", "on");
    guard("window_after_scoring", "on");
    guard("deploy_actions", "ready");
    reaction_deploy("after-scoring", "ready", "clockwise", 1);
}
fn on_tile_placed(x, y) {
    set_state("placed", state("placed") + 1);
    if turn() == 3 { set_state("on", 1); }
}
fn on_turn_end() { set_state("calls", state("calls") + 1); }
fn window_after_scoring() { }
fn deploy_actions(player, x, y) { [] }
"#,
        false,
    );
    // Only the game-scoped guard of a hook that does nothing else: the window runs a
    // declared reaction natively, and `deploy_actions`'s state is per player.
    let on = rules.slots().iter().position(|s| s.name == "on").unwrap();
    let gates = rules.bound()[0].hook_gates();
    assert_eq!(gates.len(), 1, "{gates:?}");
    assert_eq!(gates[0].hooks, HookSet::ON_TURN_END);
    assert_eq!(gates[0].slot.id(), SlotId(on as u16));
    assert_eq!(rules.gated_members(HookSet::ON_TURN_END), 1);
    let mut g = game(&rules, 5).unwrap();
    play_out(&mut g, 0);
    let placed = state(&rules, g.state(), "placed");
    assert_eq!(
        state(&rules, g.state(), "calls"),
        placed - 3,
        "turns 0..3 skipped"
    );
}

/// Every action offered, decision by decision, and the final scores of a game played with
/// choices drawn from `seed`.
fn transcript(rules: &Arc<Ruleset>, seed: u64) -> (Vec<Vec<Action>>, Vec<i32>) {
    let mut g = game(rules, seed).unwrap();
    let mut offered = Vec::new();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    while !g.is_over() {
        offered.push(g.actions().to_vec());
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        g.apply_offered((x % g.action_count() as u64) as usize)
            .unwrap();
    }
    let scores = g.state().players().iter().map(|p| p.score).collect();
    (offered, scores)
}

/// `offer_per_segment` offers what a guarded `deploy_actions` listing the unfinished
/// segments of the chosen kinds on the tile just placed offers, in the same order, without
/// a script call (Pilgrims' P-2, docs/modding.md section 8.5).
#[test]
fn offer_per_segment_offers_what_deploy_actions_did() {
    let common = r#"
fn start_game() { for p in 0..players() { set_player_state("ready", p, 1); } }
fn apply_action(player, action) {
    set_player_state("ready", player, 0);
    set_state("sent", state("sent") + 1);
}
"#;
    let native = rules_with(
        &format!(
            r#"
fn setup() {{
    declare_state("ready", "player", 0); declare_state("sent", "game", 0);
    declare_verb("send");
    offer_per_segment("send", "ready", ["road", "city"]);
}}
{common}"#
        ),
        false,
    );
    let scripted = rules_with(
        &format!(
            r#"
fn setup() {{
    declare_state("ready", "player", 0); declare_state("sent", "game", 0);
    declare_verb("send");
    guard("deploy_actions", "ready");
}}
fn deploy_actions(player, x, y) {{
    let out = [];
    for s in segments_at(x, y) {{
        let k = segment_kind(s);
        if (k == "road" || k == "city") && !feature_complete(s) {{
            out.push(#{{ type: "custom", verb: "send", segment: s }});
        }}
    }}
    out
}}
{common}"#
        ),
        false,
    );
    let mut sent = 0;
    for seed in 1..=12 {
        let (a, sa) = transcript(&native, seed);
        let (b, sb) = transcript(&scripted, seed);
        assert_eq!(a, b, "seed {seed}: the offers differ");
        assert_eq!(sa, sb, "seed {seed}");
        sent += a
            .iter()
            .flatten()
            .filter(|x| matches!(x, Action::Custom(c) if c.segment.is_some()))
            .count();
    }
    assert!(sent > 0, "some segment was offered");
}

/// `guard_scoring_state` and `guard_not_final` call `after_scoring` exactly for the
/// scorings during play that hold a segment the state names: the unguarded hook, counting
/// the calls it acts on, counts the same, and the guarded one is never called for another.
#[test]
fn scoring_state_and_not_final_guards_call_only_what_the_hook_acts_on() {
    let body = r#"
fn on_tile_placed(x, y) {
    let p = active_player();
    if player_state("road", p) == 0 {
        for s in segments_at(x, y) {
            if segment_kind(s) == "road" && !feature_complete(s) {
                set_player_state("road", p, s + 1);
                return;
            }
        }
    }
}
fn after_scoring(draft) {
    set_state("calls", state("calls") + 1);
    let hit = false;
    for p in 0..players() {
        let s = player_state("road", p) - 1;
        if s >= 0 {
            for f in draft.features {
                if feature_of(f.segment) == feature_of(s) { hit = true; }
            }
        }
    }
    if hit && !draft.final {
        set_state("acts", state("acts") + 1);
        for p in 0..players() {
            let s = player_state("road", p) - 1;
            if s >= 0 && feature_complete(s) { set_player_state("road", p, 0); }
        }
    }
}
"#;
    let decl = r#"declare_state("road", "player", 0); declare_state("calls", "game", 0);
    declare_state("acts", "game", 0);"#;
    let guarded = rules_with(
        &format!(
            "fn setup() {{ {decl} guard_scoring_state(\"after_scoring\", \"road\"); \
             guard_not_final(\"after_scoring\"); }}\n{body}"
        ),
        false,
    );
    let open = rules_with(&format!("fn setup() {{ {decl} }}\n{body}"), false);
    let mut acts = 0;
    for seed in 1..=12 {
        let mut a = game(&guarded, seed).unwrap();
        let mut b = game(&open, seed).unwrap();
        play_out(&mut a, seed);
        play_out(&mut b, seed);
        let (ga, gb) = (a.state(), b.state());
        assert_eq!(
            state(&guarded, ga, "acts"),
            state(&open, gb, "acts"),
            "seed {seed}"
        );
        assert_eq!(
            state(&guarded, ga, "calls"),
            state(&guarded, ga, "acts"),
            "seed {seed}: the guarded hook ran for a scoring it ignores"
        );
        assert!(
            state(&open, gb, "calls") > state(&open, gb, "acts"),
            "seed {seed}"
        );
        acts += state(&guarded, ga, "acts");
    }
    assert!(acts > 0, "some road was completed");
}

/// `explain_refusal` reaches scripts through the generic binding, as every core hook does:
/// a script that defines it explains refusals of its own making; `()` leaves the refusal to
/// the engine, and a value of another type is the script's error.
#[test]
fn explain_refusal_is_a_script_hook_like_every_core_hook() {
    let rules = rules_with(
        r#"
fn explain_refusal(player, action) {
    if action.type == "pass" { `X-1 player ${player} may not pass here` } else { () }
}
"#,
        false,
    );
    let mut g = game(&rules, 3).unwrap();
    // A tile is to be placed: passing is not offered.
    assert!(!g.actions().contains(&Action::Pass));
    let before = g.state().clone();
    match g.apply(Action::Pass) {
        Err(carcassonne_core::ActionError::Refused {
            expansion, reason, ..
        }) => {
            assert_eq!(expansion, "x");
            assert_eq!(reason, "X-1 player 0 may not pass here");
        }
        other => panic!("expected the script's refusal, got {other:?}"),
    }
    assert_eq!(g.state().turn(), before.turn(), "a refusal changes nothing");
    // An action the script does not explain gets the engine's own refusal.
    let far = Action::Place {
        pos: carcassonne_core::Pos::new(40, 40),
        rotation: Rotation::R0,
    };
    assert!(matches!(
        g.apply(far),
        Err(carcassonne_core::ActionError::NotOffered { .. })
    ));
    // A reason must be a string.
    let bad = rules_with("fn explain_refusal(player, action) { 7 }", false);
    let mut g = game(&bad, 3).unwrap();
    match g.apply(Action::Pass) {
        Err(carcassonne_core::ActionError::Hook(e)) => {
            assert!(e.message.contains("explain_refusal"), "{e}");
            assert!(e.message.contains("type"), "{e}");
        }
        other => panic!("expected the script's error, got {other:?}"),
    }
}

/// The base game's second tile kind and its id (a tile the scripts below play instead of
/// the draw).
fn second_base_tile() -> (carcassonne_core::TileKindId, String) {
    let kind = carcassonne_core::TileKindId(1);
    let base = Ruleset::builder()
        .tiles(carcassonne_files::tiles::base_tile_set())
        .build()
        .unwrap();
    let id = base.tiles().get(kind).id.clone();
    (kind, id)
}

/// `prompt_placements_next`: the engine offers the tile's placements (no `prompt_actions`
/// in the script), the ones `placements_for` lists, and `apply_prompt` gets the chosen one.
#[test]
fn prompt_placements_offers_the_tiles_placements() {
    let (kind, id) = second_base_tile();
    let rules = rules_with(
        &format!(
            r#"
fn setup() {{ declare_state("placed", "game", 0); }}
fn window_before_draw() {{ if turn() == 1 {{ prompt_placements_next(active_player(), 2, 0, "{id}"); }} }}
fn apply_prompt(player, code, arg, action) {{
    play_tile_instead("{id}", action.x, action.y, action.rotation);
    set_state("placed", state("placed") + 1);
}}
"#
        ),
        false,
    );
    assert_eq!(rules.tiles().get(kind).id, id);
    let mut g = game(&rules, 3).unwrap();
    let mut asked = 0;
    let mut listed = Vec::new();
    while !g.is_over() && g.state().turn() < 3 {
        if let DecisionKind::Prompt(p) = g.state().decision().kind {
            assert_eq!(p.placements_of(), Some(kind));
            g.placements_for(kind, &mut listed).unwrap();
            assert!(!listed.is_empty());
            assert_eq!(g.actions(), &listed[..]);
            assert_eq!(g.action_count(), listed.len());
            let last = *listed.last().unwrap();
            assert_eq!(g.play_offered(listed.len() - 1).unwrap(), last);
            assert_eq!(state(&rules, g.state(), "placed"), 1);
            let Action::Place { pos, .. } = last else {
                unreachable!("placements are `place` actions")
            };
            assert_eq!(g.state().board().at(pos).map(|t| t.kind), Some(kind));
            asked += 1;
            continue;
        }
        g.apply_offered(0).unwrap();
    }
    assert_eq!(asked, 1);
}

/// One tile replaces a draw: once a prompt's answer chose a tile instead
/// (`tile_chosen_instead` names it), a second `play_tile_instead` in the same window is
/// refused with a clear error and the state is unchanged.
#[test]
fn a_second_tile_instead_of_the_draw_is_refused() {
    let (kind, id) = second_base_tile();
    let rules = rules_with(
        &format!(
            r#"
fn setup() {{ declare_state("chosen", "game", 0); }}
fn window_before_draw() {{
    if turn() == 1 {{
        prompt_placements(active_player(), 2, 0, "{id}");
        prompt_placements(active_player(), 3, 0, "{id}");
    }}
}}
fn apply_prompt(player, code, arg, action) {{
    if code == 2 && tile_chosen_instead() == () {{
        play_tile_instead("{id}", action.x, action.y, action.rotation);
        if tile_chosen_instead() == "{id}" {{ set_state("chosen", 1); }}
    }} else {{
        play_tile_instead("{id}", action.x, action.y, action.rotation);
    }}
}}
"#
        ),
        false,
    );
    let mut g = game(&rules, 3).unwrap();
    while !matches!(g.state().decision().kind, DecisionKind::Prompt(_)) {
        g.apply_offered(0).unwrap();
    }
    g.apply_offered(0).unwrap();
    assert_eq!(state(&rules, g.state(), "chosen"), 1);
    let DecisionKind::Prompt(p) = g.state().decision().kind else {
        panic!("the second prompt is asked")
    };
    assert_eq!(p.code().tag, 3);
    let before = g.state().clone();
    let err = g.apply_offered(0).unwrap_err().to_string();
    assert!(
        err.contains("is already chosen instead of this turn's draw"),
        "{err}"
    );
    assert_eq!(g.state().decision(), before.decision());
    assert_eq!(g.state().tile_chosen_instead(), Some(kind));
}

/// `set_more_whole_turns`: turns after the supply ran out open their turn-start window, as
/// any turn; under `set_more_turns` they open only the before-draw window. The script keeps
/// two more turns going either way and counts turn starts.
#[test]
fn more_whole_turns_open_the_turn_start_window() {
    let starts = |command: &str| {
        let rules = rules_with(
            &format!(
                r#"
fn setup() {{ declare_state("starts", "game", 0); declare_state("extra", "game", 0); }}
fn window_turn_start() {{ set_state("starts", state("starts") + 1); }}
fn on_turn_end() {{
    if tiles_left() == 0 {{
        let more = state("extra") < 2;
        {command}(more);
        if more {{ set_state("extra", state("extra") + 1); }}
    }}
}}
"#
            ),
            false,
        );
        let mut g = game(&rules, 5).unwrap();
        while !g.is_over() {
            g.apply_offered(0).unwrap();
        }
        assert_eq!(state(&rules, g.state(), "extra"), 2, "{command}");
        state(&rules, g.state(), "starts")
    };
    assert_eq!(starts("set_more_whole_turns"), starts("set_more_turns") + 2);
}
