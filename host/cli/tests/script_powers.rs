//! Issue 30: a script reaches what a plugin reaches. Each command and read that `Ctx` and
//! `View` give plugins has a script function, and the figure commands check what the
//! manifest declares and say why they refuse. The scripts here are written into scratch
//! folders and driven through scenario-style positions (`apply_setting`).

mod common;
use carcassonne_core::{
    FigureKindId, FigureLoc, Game, PlayerId, Pos, Position, PositionFigure, PositionSetting,
    Rotation, Ruleset, StartTile,
};
use carcassonne_rules::{build_ruleset, RulesSpec};
use common::Scratch;
use std::sync::Arc;

/// A script expansion `powers` in a scratch folder, with `figures` as extra manifest text,
/// and the ruleset it makes (or why it made none).
fn try_rules(name: &str, figures: &str, script: &str) -> (Scratch, Result<Arc<Ruleset>, String>) {
    let s = Scratch::new("powers", name);
    let dir = s.path("powers");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("expansion.toml"),
        format!(
            "[expansion]\nid = \"powers\"\nname = \"Powers\"\nversion = \"1.0.0\"\napi = \"1.2\"\nkind = \"script\"\nentry = \"powers.rhai\"\n{figures}"
        ),
    )
    .unwrap();
    std::fs::write(dir.join("powers.rhai"), script).unwrap();
    let rules = build_ruleset(&RulesSpec {
        expansions: vec!["powers".into()],
        options: Vec::new(),
        plugin_dirs: vec![s.dir().to_path_buf()],
    })
    .map_err(|e| e.to_string());
    (s, rules)
}

fn rules(name: &str, figures: &str, script: &str) -> (Scratch, Arc<Ruleset>) {
    let (s, rules) = try_rules(name, figures, script);
    (s, rules.unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// The start tile (city N, road WE) at the origin, R's knight on its city, then `settings`
/// applied in order; three straight roads to draw.
fn position(r: &Arc<Ruleset>, settings: &[(&str, &str)]) -> Result<Game, String> {
    let d = r.tiles().find("D").unwrap();
    let u = r.tiles().find("U").unwrap();
    let p = Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![StartTile {
            kind: d,
            pos: Pos::new(0, 0),
            rotation: Rotation::R0,
        }],
        draws: vec![u, u, u],
        figures: vec![PositionFigure {
            player: PlayerId(0),
            kind: FigureKindId::SMALL_FOLLOWER,
            pos: Pos::new(0, 0),
            segment: 1,
        }],
        settings: settings
            .iter()
            .map(|(k, v)| PositionSetting {
                expansion: "powers".into(),
                key: k.to_string(),
                value: v.to_string(),
            })
            .collect(),
        ..Position::default()
    };
    Game::from_position(Arc::clone(r), &p).map_err(|e| e.to_string())
}

fn slot(g: &Game, name: &str) -> i64 {
    let r = g.rules();
    let i = r
        .slots()
        .iter()
        .position(|d| d.name == name)
        .unwrap_or_else(|| panic!("no slot {name}"));
    g.state().slot(carcassonne_core::SlotId(i as u16), 0)
}

const PRISON: &str = r#"
fn setup() { declare_state("held", "game", 0); }
fn apply_setting(key, value) {
    if key == "hold" {
        let knight = feature_figures(segments_at(0, 0)[1])[0];
        hold_figure(knight);
        set_state("held", knight + 1);
    }
    if key == "release" { release_figure(state("held") - 1); }
    if key == "release-twice" { release_figure(state("held") - 1); release_figure(state("held") - 1); }
}
"#;

#[test]
fn a_script_takes_prisoners_and_gives_them_back() {
    let (_s, r) = rules("prison", "", PRISON);
    let g = position(&r, &[("hold", "")]).unwrap();
    let knight = (slot(&g, "held") - 1) as usize;
    assert_eq!(g.state().figures()[knight].loc, FigureLoc::Removed);
    assert_eq!(
        g.state()
            .in_supply(PlayerId(0), FigureKindId::SMALL_FOLLOWER),
        6
    );
    let city = g.state().segment_at(Pos::new(0, 0), 1).unwrap();
    assert_eq!(
        g.state()
            .graph()
            .totals(g.state().graph().feature_of(city))
            .occupants,
        0
    );
    let g = position(&r, &[("hold", ""), ("release", "")]).unwrap();
    assert_eq!(g.state().figures()[knight].loc, FigureLoc::Supply);
    assert_eq!(
        g.state()
            .in_supply(PlayerId(0), FigureKindId::SMALL_FOLLOWER),
        7
    );
    let err = position(&r, &[("hold", ""), ("release-twice", "")]).unwrap_err();
    assert!(
        err.contains("release_figure: figure 0 is not held"),
        "{err}"
    );
}

const READS: &str = r#"
fn setup() {
    declare_state("placements", "game", 0);
    declare_state("cities", "game", 0);
    declare_state("completed", "game", 0);
}
fn apply_setting(key, value) {
    // Where a straight road could go now: each cell with its rotation bits.
    let n = 0;
    for c in placements_of("U") { n += 1; }
    set_state("placements", n);
    // The farm north of the road borders the start tile's city (not complete).
    let farm = segments_at(0, 0)[2];
    set_state("cities", farm_cities(farm).len());
    set_state("completed", completed_features().len());
}
"#;

#[test]
fn a_script_reads_placements_farm_cities_and_completions() {
    let (_s, r) = rules("reads", "", READS);
    let g = position(&r, &[("go", "")]).unwrap();
    // What the script sees is what the engine offers the player.
    let mut cells = Vec::new();
    g.view()
        .placements_of(r.tiles().find("U").unwrap(), &mut cells)
        .unwrap();
    assert_eq!(slot(&g, "placements"), cells.len() as i64);
    assert!(slot(&g, "placements") > 0);
    assert_eq!(slot(&g, "cities"), 0, "the start city is not complete");
    assert_eq!(slot(&g, "completed"), 0);
}

const FIGURES: &str = r#"
fn setup() { declare_state("placed", "game", 0); }
fn apply_setting(key, value) {
    let road = segments_at(0, 0)[0];
    let city = segments_at(0, 0)[1];
    if key == "guard" { set_state("placed", deploy(0, #{type: "deploy", figure_kind: "guard", segment: road}) + 1); }
    if key == "guard-city" { deploy(0, #{type: "deploy", figure_kind: "guard", segment: city}); }
    if key == "guard-twice" {
        deploy(0, #{type: "deploy", figure_kind: "guard", segment: road});
        deploy(0, #{type: "deploy", figure_kind: "guard", segment: road});
    }
    if key == "banner" { set_state("placed", place_neutral("banner", city) + 1); }
    if key == "banner-guard" { place_neutral("guard", city); }
    if key == "banner-road" { place_neutral("banner", road); }
    if key == "move-knight" {
        let knight = feature_figures(city)[0];
        deploy(0, #{type: "deploy", figure_kind: "guard", segment: road});
        move_figure(knight, road);
    }
    if key == "virtual" {
        let v = add_virtual_feature("city", 3, true);
        add_border(segments_at(0, 0)[2], v);
        set_state("placed", v + 1);
    }
    if key == "move-guard" {
        let g = deploy(0, #{type: "deploy", figure_kind: "guard", segment: road});
        move_figure(g, city);
        set_state("placed", g + 1);
    }
}
"#;

const FIGURE_KINDS: &str = r##"
[[figures]]
name = "guard"
per-player = 1
deploy = "script"
stands-on = ["road", "city"]
shares = true

[[figures]]
name = "banner"
neutral = 2
deploy = "script"
stands-on = ["city"]
colour = "#123456"
"##;

#[test]
fn script_figures_are_deployed_placed_and_moved_within_their_declaration() {
    let (_s, r) = rules("figures", FIGURE_KINDS, FIGURES);
    // `deploy = "script"`: the script deploys it (it is never offered to players).
    let g = position(&r, &[("guard", "")]).unwrap();
    let guard = (slot(&g, "placed") - 1) as usize;
    assert!(matches!(g.state().figures()[guard].loc, FigureLoc::On(_)));
    // It shares: onto the city that holds R's knight too, and it occupies nothing.
    position(&r, &[("guard-city", "")]).unwrap();
    let err = position(&r, &[("guard-twice", "")]).unwrap_err();
    assert!(err.contains("player 0 has no `guard` in supply"), "{err}");
    // A neutral banner joins the knight; a second one too; never on a road.
    let g = position(&r, &[("banner", "")]).unwrap();
    let banner = (slot(&g, "placed") - 1) as usize;
    assert!(g.state().figures()[banner].is_neutral());
    assert_eq!(
        g.view()
            .figure_name(carcassonne_core::FigureId(banner as u16)),
        "banner.1"
    );
    let err = position(&r, &[("banner-road", "")]).unwrap_err();
    assert!(
        err.contains("a `banner` does not stand on a `road`"),
        "{err}"
    );
    let err = position(&r, &[("banner-guard", "")]).unwrap_err();
    assert!(err.contains("`guard` is not neutral"), "{err}");
    // The knight may move onto a road where only a sharing guard stands (it occupies
    // nothing), and a guard may join the knight's city without occupying it.
    position(&r, &[("move-knight", "")]).unwrap();
    // An off-board city, complete, bordering the start tile's north farm.
    let g = position(&r, &[("virtual", "")]).unwrap();
    let v = carcassonne_core::SegmentId::new((slot(&g, "placed") - 1) as usize);
    let node = g.state().graph().segment(v);
    assert!(node.is_virtual() && node.local == 3);
    assert!(g
        .state()
        .graph()
        .totals(g.state().graph().feature_of(v))
        .complete());
    let farm = g.state().segment_at(Pos::new(0, 0), 2).unwrap();
    let mut cities = Vec::new();
    g.view()
        .farm_cities(g.state().graph().feature_of(farm), &mut cities);
    assert_eq!(cities, [g.state().graph().feature_of(v)]);
    let g = position(&r, &[("move-guard", "")]).unwrap();
    let guard = (slot(&g, "placed") - 1) as usize;
    let city = g.state().segment_at(Pos::new(0, 0), 1).unwrap();
    assert_eq!(g.state().figures()[guard].loc, FigureLoc::On(city));
    assert_eq!(
        g.state()
            .graph()
            .totals(g.state().graph().feature_of(city))
            .occupants,
        1
    );
}

const MORE_TURNS: &str = r#"
fn start_game() { set_more_turns(true); request_scoring(); }
"#;

#[test]
fn a_script_keeps_turns_going_and_asks_for_a_scoring() {
    let (_s, r) = rules("more", "", MORE_TURNS);
    let g = position(&r, &[]).unwrap();
    assert!(g.state().more_turns());
    let err = rules_err(r#"fn setup() { set_more_turns(1); }"#);
    assert!(err.contains("set_more_turns"), "{err}");
}

fn rules_err(script: &str) -> String {
    match try_rules("err", "", script).1 {
        Ok(_) => "built".into(),
        Err(e) => e,
    }
}

const RIVER_FIRST: &str = r#"
fn start_game() {
    // Two straight roads first, then the rest (a river-like opening).
    supply_regroup("opening", ["BA/RFr", "BA/RFr"], true, true);
    supply_activate("default", false);
}
fn apply_setting(key, value) {
    if key == "too-many" { supply_regroup("x", ["BA/RFr", "BA/RFr", "BA/RFr", "BA/RFr"], false, false); }
    if key == "unknown" { supply_activate("nowhere", true); }
}
"#;

#[test]
fn a_script_arranges_the_supply() {
    let (_s, r) = rules("supply", "", RIVER_FIRST);
    let u = r.tiles().find("U").unwrap();
    for seed in 0..20 {
        let mut g = Game::new(
            Arc::clone(&r),
            &carcassonne_core::GameSetup::new(vec!["R".into(), "B".into()], seed),
        )
        .unwrap();
        let groups = &g.state().supply().groups;
        assert_eq!(groups[0].name, "opening");
        // The first two tiles drawn are the straight roads of the opening group.
        for _ in 0..2 {
            match g.decision().kind {
                carcassonne_core::DecisionKind::PlaceTile { tile } => {
                    assert_eq!(tile, u, "seed {seed}")
                }
                ref d => panic!("seed {seed}: {d:?}"),
            }
            let a = g.actions()[0];
            g.apply(a).unwrap();
            if matches!(
                g.decision().kind,
                carcassonne_core::DecisionKind::Deploy { .. }
            ) {
                g.apply(carcassonne_core::Action::Pass).unwrap();
            }
        }
        assert!(g
            .state()
            .supply()
            .groups
            .iter()
            .all(|g| g.name != "opening"));
    }
    // The position's three roads cannot give four: nothing changes, the refusal says why.
    let err = position(&r, &[("too-many", "")]).unwrap_err();
    assert!(err.contains("no `BA/RFr` left in the supply"), "{err}");
    let err = position(&r, &[("unknown", "")]).unwrap_err();
    assert!(err.contains("the supply has no group `nowhere`"), "{err}");
}

const DESCRIBE: &str = r#"
fn describe() {
    let city = segments_at(0, 0)[1];
    [
        #{type: "foreign", scheme: "jcz", segment: city, tile: "BA/RCr", feature: "City", location: "N"},
        #{type: "figure", name: "banner", icon: "banner", segment: city, stands: "tile"},
    ]
}
"#;

#[test]
fn a_script_names_features_for_other_programs() {
    let (_s, r) = rules("describe", "", DESCRIBE);
    let g = position(&r, &[]).unwrap();
    let city = g.state().segment_at(Pos::new(0, 0), 1).unwrap();
    let mut out = Vec::new();
    g.view().describe(&mut out).unwrap();
    assert_eq!(
        out,
        [
            carcassonne_core::Visible::ForeignName {
                scheme: "jcz".into(),
                segment: city,
                tile: "BA/RCr".into(),
                feature: "City".into(),
                location: "N".into(),
            },
            carcassonne_core::Visible::NeutralFigure {
                name: "banner".into(),
                icon: "banner".into(),
                segment: city,
                stands: carcassonne_core::Stands::OnTile,
            },
        ]
    );
}

/// A neutral "runner" a player may lead to any other tile, as Village Life's donkey.
const RUNNER_FIGURE: &str = "[[figures]]\nname = \"runner\"\nneutral = 1\ndeploy = \"script\"\nreturns = false\nstands-on = [\"road\", \"city\", \"field\", \"cloister\"]\n";

/// The runner's setup; `{lead}` is the `offer_tiles` line.
fn runner_script(lead: &str, apply: &str) -> String {
    format!(
        r#"
fn setup() {{
    declare_verb("lead"); declare_verb("lead-to");
    declare_state("at", "game", 0); declare_state("figure", "game", 0);
    declare_state("may", "player", 1);
    offer("lead", "may");
    offer_prompt("lead", 1);
    {lead}
}}
fn start_game() {{
    let s = segments_at(0, 0)[0];
    set_state("at", s + 1);
    set_state("figure", neutral_to_tile("runner", s) + 1);
}}
{apply}
"#
    )
}

/// The records of 12 random three-player games (seed 4) with a script expansion `powers`
/// (`manifest` is extra manifest text), in file order; `options` are `--option` values.
fn records(name: &str, manifest: &str, script: &str, options: &[&str]) -> (Scratch, Vec<String>) {
    let s = Scratch::new("powers", name);
    let dir = s.path("powers");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("expansion.toml"),
        format!("[expansion]\nid = \"powers\"\nname = \"Powers\"\nversion = \"1.0.0\"\napi = \"1.3\"\nkind = \"script\"\nentry = \"powers.rhai\"\n{manifest}"),
    )
    .unwrap();
    std::fs::write(dir.join("powers.rhai"), script).unwrap();
    let out = s.arg("records");
    let dir_arg = s.arg("");
    let mut args = vec![
        "simulate",
        "--games",
        "12",
        "--seed",
        "4",
        "--players",
        "3",
        "--bots",
        "random",
        "--expansions",
        "powers",
        "--expansion-dir",
        &dir_arg,
        "--record",
        &out,
    ];
    for o in options {
        args.extend(["--option", o]);
    }
    common::ok_with_plugins(&args);
    let mut files: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let texts = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    (s, texts)
}

/// `offer_tiles` with `lead` carries the answer out as a script's `apply_prompt` calling
/// `neutral_to_tile` would: the same games, record for record, with no script call.
#[test]
fn a_led_figure_moves_natively_as_the_script_would_move_it() {
    let looping = runner_script(
        r#"offer_tiles(1, "lead-to", "at");"#,
        r#"fn apply_prompt(player, code, arg, action) {
    set_state("at", action.segment + 1);
    set_state("figure", neutral_to_tile("runner", action.segment) + 1);
}"#,
    );
    let native = runner_script(
        r#"offer_tiles(1, "lead-to", "at", #{ lead: "runner", figure_state: "figure" });"#,
        "",
    );
    let (_a, native) = records("lead-native", RUNNER_FIGURE, &native, &[]);
    let (_b, looping) = records("lead-script", RUNNER_FIGURE, &looping, &[]);
    assert_eq!(native.len(), 12);
    // Random bots lead the runner in these games: the prompt's answer was carried out.
    assert!(
        native.iter().any(|r| r.contains("lead-to")),
        "no runner was led"
    );
    assert_eq!(native, looping);
}

/// Bad `offer_tiles` options name what is wrong.
#[test]
fn bad_lead_options_say_what_is_wrong() {
    let with = |options: &str| {
        try_rules(
            "lead-bad",
            RUNNER_FIGURE,
            &runner_script(
                &format!(r#"offer_tiles(1, "lead-to", "at", {options});"#),
                "",
            ),
        )
        .1
        .err()
        .unwrap_or_default()
    };
    let e = with("#{ figure_state: \"figure\" }");
    assert!(e.contains("the options need `lead`"), "{e}");
    let e = with("#{ lead: \"runner\", figure: \"figure\" }");
    assert!(e.contains("unknown option `figure`"), "{e}");
    let e = with("#{ lead: \"runner\", figure_state: \"nope\" }");
    assert!(
        e.contains("`nope` is not a declared game-scoped state"),
        "{e}"
    );
    assert_eq!(with("#{ lead: \"runner\" }"), "");
}

/// A runner that follows new followers, in a hook (`window_after_scoring`), as the Courier
/// did before `follow_deployments`: the reference the native declaration must match.
const FOLLOW_HOOK: &str = r#"
fn setup() {
    declare_label("follow");
    declare_state("runner", "game", 0);
}
fn start_game() {
    for s in segments_at(0, 0) {
        if state("runner") == 0 && ["road", "city", "field", "cloister"].contains(segment_kind(s)) {
            set_state("runner", place_neutral("runner", s) + 1);
        }
    }
}
fn window_after_scoring() {
    let c = state("runner") - 1;
    let t = last_placed();
    if c < 0 || t == () { return; }
    let cc = figure_cell(c);
    if cc == () { return; }
    if option("reach") == "adjacent" {
        if (t.x - cc.x).abs() + (t.y - cc.y).abs() > 1 { return; }
    } else if t.x != cc.x && t.y != cc.y { return; }
    let f = -1;
    for g in followers_near(t.x, t.y, 0, t.player) {
        if f < 0 && (option("farmers") || figure_role(g) != "field") { f = g; }
    }
    if f < 0 { return; }
    let at = figure_segment(f);
    let kind = segment_kind(at);
    let stands = ["road", "city", "field", "cloister"];
    let spot = -1;
    if stands.contains(kind) {
        spot = at;
    } else {
        for s in segments_at(t.x, t.y) {
            if spot < 0 && stands.contains(segment_kind(s)) && !feature_scored(s) { spot = s; }
        }
    }
    if spot >= 0 { move_figure(c, spot); }
    let kinds = ["road", "city", "cloister"];
    let features = if option("award") == "own" {
        if kinds.contains(kind) && !feature_complete(at) { [at] } else { [] }
    } else {
        features_near(t.x, t.y, 1, kinds)
    };
    for s in features {
        let k = segment_kind(s);
        let v = if k == "road" { feature_tiles(s) }
            else if k == "city" { feature_tiles(s) + feature_pennants(s) }
            else { let cell = segment_cell(s); 1 + tiles_around(cell.x, cell.y) };
        award(t.player, v, "follow");
    }
}
"#;

/// The same runner, declared: the engine leads it and scores without a script call.
const FOLLOW_NATIVE: &str = r#"
fn setup() {
    declare_label("follow");
    declare_state("runner", "game", 0);
    follow_deployments("runner", #{
        reach: #{ option: "reach" },
        farmers: #{ option: "farmers" },
        award: #{ option: "award" },
        kinds: ["road", "city", "cloister"],
        label: "follow",
    });
}
fn start_game() {
    for s in segments_at(0, 0) {
        if state("runner") == 0 && ["road", "city", "field", "cloister"].contains(segment_kind(s)) {
            set_state("runner", place_neutral("runner", s) + 1);
        }
    }
}
"#;

const FOLLOW_OPTIONS: &str = "[options.reach]\ntype = \"choice\"\nvalues = [\"line\", \"adjacent\"]\ndefault = \"line\"\ndescription = \"reach\"\n[options.farmers]\ntype = \"bool\"\ndefault = true\ndescription = \"farmers\"\n[options.award]\ntype = \"choice\"\nvalues = [\"area\", \"own\"]\ndefault = \"area\"\ndescription = \"award\"\n";

/// `follow_deployments` leads its figure and scores as the hook above does, record for
/// record, under each value of the options it reads when the rules are built.
#[test]
fn a_figure_follows_deployments_natively_as_a_hook_would_lead_it() {
    let manifest = format!("{RUNNER_FIGURE}{FOLLOW_OPTIONS}");
    // Without the declaration the runner stands still and brings nothing: the final
    // scores in the records are the base game's.
    let still = FOLLOW_NATIVE
        .replace("follow_deployments(", "if false { follow_deployments(")
        .replace("    });\n}", "    }); }\n}");
    let (_c, still) = records("follow-still", &manifest, &still, &[]);
    for options in [
        &[][..],
        &["powers.reach=adjacent"][..],
        &["powers.farmers=false", "powers.award=own"][..],
    ] {
        let (_a, native) = records("follow-native", &manifest, FOLLOW_NATIVE, options);
        let (_b, hook) = records("follow-hook", &manifest, FOLLOW_HOOK, options);
        assert_eq!(native.len(), 12);
        assert_ne!(
            native, still,
            "{options:?}: the runner never brought points"
        );
        assert_eq!(native, hook, "{options:?}");
    }
}

/// Bad `follow_deployments` declarations name what is wrong.
#[test]
fn bad_follow_declarations_say_what_is_wrong() {
    let with = |manifest: &str, options: &str| {
        let script = format!(
            "fn setup() {{ declare_label(\"follow\"); follow_deployments(\"runner\", {options}); }}"
        );
        try_rules("follow-bad", &format!("{RUNNER_FIGURE}{manifest}"), &script)
            .1
            .err()
            .unwrap_or_default()
    };
    let e = with("", r#"#{ reach: "far", label: "follow" }"#);
    assert!(
        e.contains("`reach` is `far` (known: line, adjacent, any)"),
        "{e}"
    );
    let e = with("", r#"#{ reach: "line" }"#);
    assert!(e.contains("the options need `label`"), "{e}");
    let e = with("", r#"#{ label: "nope" }"#);
    assert!(e.contains("label `nope` is not declared"), "{e}");
    let e = with("", r#"#{ label: "follow", speed: 3 }"#);
    assert!(e.contains("unknown option `speed`"), "{e}");
    let e = with("", r#"#{ label: "follow", radius: 9 }"#);
    assert!(e.contains("`radius` must be a number from 0 to 4"), "{e}");
    // An option the manifest does not declare is found out when the rules are built.
    let e = with("", r#"#{ label: "follow", reach: #{ option: "reach" } }"#);
    assert!(e.contains("option `powers.reach` is not declared"), "{e}");
    let e = with(
        FOLLOW_OPTIONS,
        r#"#{ label: "follow", farmers: #{ option: "reach" } }"#,
    );
    assert!(e.contains("reach"), "{e}");
}

/// A junction for the runner's owner-figure: `offer_per_corner` with `deploy` puts the
/// figure where an `apply_action` calling `corner_segment` and `deploy` would.
const POST_FIGURE: &str = "[[figures]]\nname = \"post\"\nper-player = 1\nshares = true\ndeploy = \"script\"\nreturns = false\nstands-on = [\"field\"]\n";

#[test]
fn an_offer_deploys_on_a_junction_natively_as_apply_action_would() {
    let head = r#"
fn setup() {
    declare_verb("post", "put your post", "corner");
    declare_state("in-supply", "player", 1);
    declare_state("out", "figure", 0);
"#;
    let native = format!(
        "{head}    offer_per_corner(\"post\", \"in-supply\", [\"field\"], #{{ \"in-supply\": 0, deploy: \"post\", deployed_state: \"out\" }});\n}}\n"
    );
    let hook = format!(
        r#"{head}    offer_per_corner("post", "in-supply", ["field"]);
}}
fn apply_action(player, action) {{
    let t = last_placed();
    let c = action.value;
    let x = if c == 1 || c == 2 {{ t.x + 1 }} else {{ t.x }};
    let y = if c >= 2 {{ t.y + 1 }} else {{ t.y }};
    set_player_state("in-supply", player, 0);
    let f = deploy(player, #{{ type: "deploy", figure_kind: "post", segment: corner_segment(x, y, 0) }});
    set_figure_state("out", f, 1);
}}
"#
    );
    let (_a, native) = records("post-native", POST_FIGURE, &native, &[]);
    let (_b, hook) = records("post-hook", POST_FIGURE, &hook, &[]);
    assert!(
        native
            .iter()
            .any(|r| r.contains("\"verb\":\"post\"") || r.contains("\"verb\": \"post\"")),
        "no post was put on a junction"
    );
    assert_eq!(native, hook);
}

/// A neutral marker on the first road of every placed tile that has one, for the bonus
/// tests below.
const MARKER_FIGURE: &str = "[[figures]]\nname = \"marker\"\nneutral = 12\ndeploy = \"script\"\nreturns = false\nstands-on = [\"road\"]\n";

const MARKER_PLACING: &str = r#"
fn on_tile_placed(x, y) {
    if figures_of_kind("marker").len() < 12 {
        for s in segments_at(x, y) {
            if segment_kind(s) == "road" && !feature_scored(s) {
                place_neutral("marker", s);
                return;
            }
        }
    }
}
"#;

/// `tile_bonus_per_figure` adds to a scoring what a `before_scoring` counting the markers on
/// each scored road would: the same records, and not the records without it.
#[test]
fn a_tile_bonus_per_figure_scores_as_before_scoring_would() {
    let native = format!(
        "fn setup() {{ tile_bonus_per_figure(\"marker\", [\"road\"]); }}\n{MARKER_PLACING}"
    );
    let hook = format!(
        r#"{MARKER_PLACING}
fn before_scoring(draft) {{
    let bonus = [];
    for f in draft.features {{
        let b = 0;
        if f.kind == "road" && f.tiles > 0 {{
            let n = 0;
            for g in feature_figures(f.segment) {{
                if figure_kind(g) == "marker" {{ n += 1; }}
            }}
            b = n * f.value / f.tiles;
        }}
        bonus.push(b);
    }}
    let awards = [];
    for a in draft.awards {{
        awards.push(#{{ item: a.item, player: a.player, points: a.points + bonus[a.item] }});
    }}
    awards
}}
"#
    );
    let (_a, native) = records("bonus-native", MARKER_FIGURE, &native, &[]);
    let (_b, hook) = records("bonus-hook", MARKER_FIGURE, &hook, &[]);
    let (_c, plain) = records("bonus-none", MARKER_FIGURE, MARKER_PLACING, &[]);
    assert_ne!(native, plain, "the markers never brought a bonus");
    assert_eq!(native, hook);
}

/// Every turn has a second part; the script counts its windows and who is active in them.
const AFTER_TURN: &str = r#"
fn setup() {
    declare_state("parts", "game", 0);
    declare_state("turns", "game", 0);
    declare_state("last", "game", 0);
}
fn window_after_scoring() { set_state("parts", state("parts") + 1); }
fn on_turn_end() { "extra" }
fn window_after_turn() {
    set_state("turns", state("turns") + 1);
    set_state("last", active_player() + 1);
}
"#;

/// `window_after_turn` (core's `Window::AfterTurn`) opens once per whole turn, after the
/// second part an `on_turn_end` of "extra" gives it, while the turn's player is still the
/// active one: what happens "after the turn" (BCB-13's bazaar) waits for every part.
#[test]
fn the_after_turn_window_follows_the_whole_turn() {
    let (_s, r) = rules("after-turn", "", AFTER_TURN);
    let mut g = Game::new(
        Arc::clone(&r),
        &carcassonne_core::GameSetup::new(vec!["R".into(), "B".into()], 3),
    )
    .unwrap();
    let mut placed = 0;
    loop {
        if let carcassonne_core::DecisionKind::PlaceTile { .. } = g.decision().kind {
            if placed == 6 {
                break;
            }
            placed += 1;
        }
        assert!(!g.is_over());
        let a = match g.decision().kind {
            carcassonne_core::DecisionKind::Deploy { .. } => carcassonne_core::Action::Pass,
            _ => g.actions()[0],
        };
        g.apply(a).unwrap();
    }
    // Six parts placed: R's two, B's two, then R's two; the seventh placement is pending.
    assert_eq!(slot(&g, "parts"), 6);
    assert_eq!(slot(&g, "turns"), 3);
    // The third whole turn was R's, and he was the active player in its window.
    assert_eq!(slot(&g, "last"), 1);
    assert_eq!(g.decision().player, PlayerId(1));
}

/// Each placement: a scoring on the board (`award_scoring`) and a plain award.
const AWARD_SCORING: &str = r#"
fn setup() {
    declare_label("board");
    declare_label("bonus");
}
fn on_tile_placed(x, y) {
    award_scoring(active_player(), 2, "board");
    award(active_player(), 1, "bonus");
}
"#;

/// `award_scoring` marks its event as a scoring on the board (`ScoreEvent::scoring`, what
/// the Count's deployment reads, CO-4), `award` does not, through a whole game. (The
/// memo's deferred awards keep the mark: `EDGY` in the script host's memo tests.)
#[test]
fn award_scoring_marks_its_events_as_scorings() {
    let (_s, r) = rules("award-scoring", "", AWARD_SCORING);
    let label = |name: &str| {
        let i = r.labels().iter().position(|l| l == name).unwrap();
        carcassonne_core::LabelId(i as u16)
    };
    let (board, bonus) = (label("board"), label("bonus"));
    let mut g = Game::new(
        Arc::clone(&r),
        &carcassonne_core::GameSetup::new(vec!["R".into(), "B".into()], 5),
    )
    .unwrap();
    let mut placed = 0;
    while !g.is_over() {
        if let carcassonne_core::DecisionKind::PlaceTile { .. } = g.decision().kind {
            placed += 1;
        }
        let a = g.actions()[g.actions().len() / 2];
        g.apply(a).unwrap();
    }
    let of = |l| {
        g.state()
            .events()
            .iter()
            .filter(|e| e.source == carcassonne_core::ScoreSource::Label(l))
            .collect::<Vec<_>>()
    };
    assert!(placed > 50, "{placed} placements");
    assert_eq!(of(board).len(), placed);
    assert_eq!(of(bonus).len(), placed);
    assert!(of(board).iter().all(|e| e.scoring && e.points == 2));
    assert!(of(bonus).iter().all(|e| !e.scoring && e.points == 1));
}
