//! Issue 15: feature kinds and figure kinds declared by a fan expansion's manifest go through
//! every path of the engine like built-in ones (deploy, majority with strength 0 and > 0,
//! completion, final scoring, conservation, record and replay, pictures), refusals name
//! their expansion and reason, discards say why, and bad declarations are errors with file,
//! line and field. Fixtures: `tests/fixtures/canals` (a canal kind scored by declared points,
//! a boatman of strength 4 and a lock-keeper of strength 0) and the guide's second worked
//! example, `docs/examples/ferryman`.

mod common;
use carcassonne_core::{
    Action, ActionError, FigureKindId, FigureLoc, Game, GameSetup, PlayerId, Ruleset,
};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_rules::{build_ruleset, RulesError, RulesSpec};
use common::ok_in_repo as ok;
use common::Scratch;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::repo;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

fn ferryman_dir() -> PathBuf {
    repo().join("docs").join("examples").join("ferryman")
}

fn rules(expansions: &[&str]) -> Arc<Ruleset> {
    build_ruleset(&RulesSpec {
        expansions: expansions.iter().map(|s| s.to_string()).collect(),
        options: Vec::new(),
        plugin_dirs: vec![fixtures(), repo().join("docs").join("examples")],
    })
    .unwrap_or_else(|e| panic!("the ruleset builds: {e}"))
}

// ---------------------------------------------------------------------------------------
// The guide's example and the fixture pass their own checks and scenarios

#[test]
fn the_guide_shows_the_ferryman_files_byte_for_byte() {
    let guide = std::fs::read_to_string(repo().join("docs").join("modding.md")).unwrap();
    let listing = ok(&[
        "tiles",
        "--set",
        "ferryman",
        "--expansion-dir",
        "docs/examples",
    ]);
    assert!(
        guide.contains(&format!(
            "$ carcassonne tiles --set ferryman --expansion-dir docs/examples\n{listing}```"
        )),
        "the guide does not show this listing:\n{listing}"
    );
    for file in [
        "expansion.toml",
        "tiles.toml",
        "ferryman.rhai",
        "scenarios/FE-01.toml",
    ] {
        let text = std::fs::read_to_string(ferryman_dir().join(file)).unwrap();
        assert!(
            guide.contains(&text),
            "docs/modding.md section 8b does not show docs/examples/ferryman/{file} as it is"
        );
    }
}

#[test]
fn ferryman_and_canals_pass_check_and_their_scenarios() {
    let dir = ferryman_dir();
    let out = ok(&["expansions", "check", &dir.display().to_string()]);
    assert!(out.contains("ok: ruleset: ferryman"), "{out}");
    for dir in [dir, fixtures().join("canals")] {
        let out = ok(&["expansions", "test", &dir.display().to_string()]);
        assert!(!out.contains("FAIL"), "{out}");
        assert!(out.contains("PASS"), "{out}");
    }
}

// ---------------------------------------------------------------------------------------
// Every path

/// Each player owns exactly `per_player` figures of every kind: in supply or on the board.
fn assert_conserved(g: &Game) {
    let st = g.state();
    for (k, def) in g.rules().figure_kinds().iter().enumerate() {
        let kind = FigureKindId(k as u8);
        for p in 0..st.players().len() {
            let p = PlayerId(p as u8);
            let on_board = st
                .figures()
                .iter()
                .filter(|f| f.owner == p && f.kind == kind && matches!(f.loc, FigureLoc::On(_)))
                .count();
            assert_eq!(
                st.in_supply(p, kind) as usize + on_board,
                def.per_player as usize,
                "{} of player {}",
                def.name,
                p.0
            );
        }
    }
}

/// Random games with both fan expansions: fan figures are offered only on their kinds, are
/// conserved after every action, and the games end.
#[test]
fn fan_figures_are_offered_on_their_kinds_and_conserved() {
    let rules = rules(&["canals", "ferryman"]);
    let names: Vec<&str> = rules
        .figure_kinds()
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    for want in ["boatman", "lock-keeper", "ferryman"] {
        assert!(names.contains(&want), "{names:?}");
    }
    let mut deployed = std::collections::BTreeSet::new();
    for seed in 0..40u64 {
        let mut g = Game::new(
            Arc::clone(&rules),
            &GameSetup::new(vec!["A".into(), "B".into(), "C".into()], seed),
        )
        .unwrap();
        let mut bot = RandomBot::new(seed);
        while !g.is_over() {
            for a in g.actions() {
                if let Action::Deploy { figure, segment } = *a {
                    let kind = g.state().graph().segment(segment).kind;
                    let fig = rules.figure_kind(figure);
                    assert!(
                        fig.deploy_on.contains(kind),
                        "{} offered on {}",
                        fig.name,
                        rules.kind(kind).name
                    );
                }
            }
            let i = bot.choose(&g);
            if let Some(Action::Deploy { figure, .. }) = g.state().offered_at(i) {
                deployed.insert(rules.figure_kind(figure).name.clone());
            }
            g.apply_offered(i).unwrap();
            assert_conserved(&g);
        }
    }
    for want in ["boatman", "lock-keeper", "ferryman"] {
        assert!(
            deployed.contains(want),
            "{want} was never deployed: {deployed:?}"
        );
    }
}

/// Records of games with fan figures replay to the same scores, and pictures draw the fan
/// figures on their features in their declared shapes.
#[test]
fn fan_games_record_replay_and_render() {
    let tmp = Scratch::new("fan-vocabulary", "record");
    let dirs = [
        "--plugin-dir",
        &fixtures().display().to_string(),
        "--plugin-dir",
        &repo().join("docs").join("examples").display().to_string(),
    ]
    .map(|s| s.to_string());
    let mut args = vec![
        "simulate",
        "--games",
        "6",
        "--players",
        "2",
        "--seed",
        "5",
        "--expansions",
        "canals,ferryman",
        "--record",
    ];
    let rec_dir = tmp.arg("");
    args.push(&rec_dir);
    args.extend(dirs.iter().map(String::as_str));
    ok(&args);
    let mut drew_fan_figure = false;
    for i in 0..6 {
        let rec = tmp.arg(&format!("game-{i}.json"));
        let mut replay = vec!["replay", rec.as_str(), "--json"];
        replay.extend(dirs.iter().map(String::as_str));
        let out: serde_json::Value = serde_json::from_str(&ok(&replay)).unwrap();
        assert_eq!(out["finished"], true, "{rec}");
        let svg_path = tmp.arg(&format!("game-{i}.svg"));
        let mut render = vec!["render", rec.as_str(), "-o", svg_path.as_str()];
        render.extend(dirs.iter().map(String::as_str));
        ok(&render);
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        // The legend and the supply panel show every figure kind.
        for kind in ["boatman", "lock-keeper", "ferryman", "landing", "canal"] {
            assert!(svg.contains(kind), "game {i}: no `{kind}` in the picture");
        }
        drew_fan_figure |= ["boatman", "lock-keeper", "ferryman"].iter().any(|k| {
            svg.contains(r#"class="figure" data-figure="#)
                && svg.contains(&format!(r#"data-kind="{k}""#))
        });
    }
    assert!(
        drew_fan_figure,
        "no game ended with a fan figure on the board"
    );
}

// ---------------------------------------------------------------------------------------
// Refusals and discards

/// FE-2: a refused placement names the expansion and the rule.
#[test]
fn a_refused_placement_names_the_expansion_and_the_reason() {
    let rules = rules(&["ferryman"]);
    let t = |id: &str| rules.tiles().find(id).unwrap();
    let pos = carcassonne_core::Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![
            carcassonne_core::StartTile {
                kind: t("BA/RCr"),
                pos: carcassonne_core::Pos::new(0, 0),
                rotation: carcassonne_core::Rotation::R0,
            },
            carcassonne_core::StartTile {
                kind: t("BA/RRR"),
                pos: carcassonne_core::Pos::new(-1, 0),
                rotation: carcassonne_core::Rotation::R0,
            },
        ],
        draws: vec![t("FM/L"), t("FM/CL")],
        ..Default::default()
    };
    let mut g = Game::from_position(Arc::clone(&rules), &pos).unwrap();
    g.apply(Action::Place {
        pos: carcassonne_core::Pos::new(1, 0),
        rotation: carcassonne_core::Rotation::R90,
    })
    .unwrap();
    g.apply(Action::Pass).unwrap();
    let refused = Action::Place {
        pos: carcassonne_core::Pos::new(2, 0),
        rotation: carcassonne_core::Rotation::R0,
    };
    let before = format!("{:?}", g.state());
    let e = g.apply(refused).unwrap_err();
    assert_eq!(
        e,
        ActionError::Refused {
            action: refused,
            expansion: "ferryman".into(),
            reason: "FE-2 a landing within 2 cells of (1,0)".into(),
        }
    );
    assert_eq!(
        e.to_string(),
        "place at (2,0) rotation 0 is refused by `ferryman`: FE-2 a landing within 2 cells of (1,0)"
    );
    assert_eq!(before, format!("{:?}", g.state()), "unchanged");
}

/// FE-2 with A-4: `replay` says which drawn tile was discarded, by whom and why, exactly as
/// the guide shows it (section 8b.5).
#[test]
fn replay_says_when_a_drawn_tile_fits_nowhere() {
    let out = ok(&[
        "replay",
        "docs/examples/ferryman-record.json",
        "--expansion-dir",
        "docs/examples",
    ]);
    let guide = std::fs::read_to_string(repo().join("docs").join("modding.md")).unwrap();
    assert!(
        guide.contains(&format!(
            "$ carcassonne replay docs/examples/ferryman-record.json --expansion-dir docs/examples\n{out}```"
        )),
        "the guide does not show this output:\n{out}"
    );
    assert!(
        out.contains("turn 2: P2 drew FM/L, discarded: fits nowhere"),
        "{out}"
    );
    // The same through the library, in the FE-03 situation.
    let rules = rules(&["ferryman"]);
    let t = |id: &str| rules.tiles().find(id).unwrap();
    let pos = carcassonne_core::Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![carcassonne_core::StartTile {
            kind: t("BA/RCr"),
            pos: carcassonne_core::Pos::new(0, 0),
            rotation: carcassonne_core::Rotation::R0,
        }],
        draws: vec![t("FM/L"), t("FM/CL"), t("BA/RRR")],
        ..Default::default()
    };
    let mut g = Game::from_position(Arc::clone(&rules), &pos).unwrap();
    g.apply(Action::Place {
        pos: carcassonne_core::Pos::new(1, 0),
        rotation: carcassonne_core::Rotation::R90,
    })
    .unwrap();
    g.apply(Action::Pass).unwrap();
    let out = carcassonne_play::replay::replay_output(&g);
    assert_eq!(out.discards.len(), 1, "{:?}", out.discards);
    let d = &out.discards[0];
    assert_eq!(
        (
            d.turn,
            d.player.as_str(),
            d.tile.as_str(),
            d.reason.as_str()
        ),
        (1, "B", "FM/CL", "fits nowhere")
    );
}

// ---------------------------------------------------------------------------------------
// Bad declarations

struct Fan {
    tmp: Scratch,
}

impl Fan {
    fn new(name: &str) -> Fan {
        Fan {
            tmp: Scratch::new("fan-vocabulary", name),
        }
    }

    /// Writes expansion `id` with `extra` manifest text, an empty script and `tiles`.
    fn expansion(&self, id: &str, extra: &str, tiles: Option<&str>) -> PathBuf {
        let dir = self.tmp.path(id);
        std::fs::create_dir_all(&dir).unwrap();
        let assets = if tiles.is_some() {
            "\n[assets]\ntiles = [\"tiles.toml\"]\n"
        } else {
            ""
        };
        let manifest = format!(
            "[expansion]\nid = \"{id}\"\nname = \"{id}\"\nversion = \"0.1.0\"\napi = \"1.1\"\nkind = \"script\"\nentry = \"{id}.rhai\"\n{assets}\n{extra}"
        );
        std::fs::write(dir.join("expansion.toml"), manifest).unwrap();
        std::fs::write(dir.join(format!("{id}.rhai")), "fn setup() {}\n").unwrap();
        if let Some(t) = tiles {
            std::fs::write(dir.join("tiles.toml"), t).unwrap();
        }
        dir.join("expansion.toml")
    }

    fn rules(&self, ids: &[&str]) -> Result<Arc<Ruleset>, RulesError> {
        build_ruleset(&RulesSpec {
            expansions: ids.iter().map(|s| s.to_string()).collect(),
            options: Vec::new(),
            plugin_dirs: vec![self.tmp.dir().to_path_buf()],
        })
    }
}

fn err_text(r: Result<Arc<Ruleset>, RulesError>) -> String {
    r.expect_err("the ruleset is refused").to_string()
}

const LANDING: &str = "[[feature-kinds]]\nname = \"landing\"\nshape = \"site\"\n";

#[test]
fn a_kind_with_a_built_in_name_is_refused_with_file_line_and_field() {
    let fan = Fan::new("builtin");
    let m = fan.expansion(
        "a",
        "[[feature-kinds]]\nname = \"city\"\nshape = \"site\"\n",
        None,
    );
    assert_eq!(
        err_text(fan.rules(&["a"])),
        format!(
            "{}:9: `feature-kinds[0].name`: `city` is the base game's feature kind; choose another name",
            m.display()
        )
    );
}

#[test]
fn a_kind_declared_twice_in_one_manifest_is_refused() {
    let fan = Fan::new("twice");
    let m = fan.expansion("a", &format!("{LANDING}\n{LANDING}"), None);
    assert_eq!(
        err_text(fan.rules(&["a"])),
        format!(
            "{}:13: `feature-kinds[1].name`: `landing` is declared twice",
            m.display()
        )
    );
}

#[test]
fn a_kind_another_expansion_declares_is_refused() {
    let fan = Fan::new("clash");
    fan.expansion("a", LANDING, None);
    let m = fan.expansion("b", LANDING, None);
    assert_eq!(
        err_text(fan.rules(&["a", "b"])),
        format!(
            "expansion `b`: {}:9: `feature-kinds[0].name`: feature kind `landing` is already declared by the base game or another expansion",
            m.display()
        )
    );
}

#[test]
fn a_figure_on_an_unknown_or_unoccupiable_kind_is_refused() {
    let fan = Fan::new("stands-on");
    let m = fan.expansion(
        "a",
        "[[figures]]\nname = \"boat\"\nper-player = 1\nstands-on = [\"lake\"]\n",
        None,
    );
    assert_eq!(
        err_text(fan.rules(&["a"])),
        format!(
            "expansion `a`: {}:9: `figures[0].stands-on`: no feature kind `lake` (declare it in `[[feature-kinds]]` or load the expansion that has it)",
            m.display()
        )
    );
    let fan = Fan::new("unoccupiable");
    let m = fan.expansion(
        "a",
        "[[feature-kinds]]\nname = \"lake\"\nshape = \"site\"\noccupiable = false\n\n[[figures]]\nname = \"boat\"\nper-player = 1\nstands-on = [\"lake\"]\n",
        None,
    );
    assert_eq!(
        err_text(fan.rules(&["a"])),
        format!(
            "expansion `a`: {}:14: `figures[0].stands-on`: figures may not stand on `lake` (it is not occupiable)",
            m.display()
        )
    );
}

#[test]
fn a_tile_of_an_undeclared_kind_is_refused_naming_the_tile() {
    let fan = Fan::new("tile-kind");
    fan.expansion(
        "a",
        LANDING,
        Some("schema = 1\nset = \"a\"\n\n[[tile]]\nid = \"A/1\"\ncount = 1\nedges = \"FFFF\"\nfeatures = [\n  { kind = \"landng\" },\n  { kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] },\n]\n"),
    );
    let e = err_text(fan.rules(&["a"]));
    assert!(e.contains("A/1") && e.contains("landng"), "{e}");
}

#[test]
fn vocabulary_needs_engine_api_1_1() {
    let fan = Fan::new("api");
    let m = fan.expansion("a", LANDING, None);
    let text = std::fs::read_to_string(&m)
        .unwrap()
        .replace("api = \"1.1\"", "api = \"1.0\"");
    std::fs::write(&m, text).unwrap();
    assert_eq!(
        err_text(fan.rules(&["a"])),
        format!(
            "{}:5: `expansion.api`: `[[feature-kinds]]` and `[[figures]]` need engine API 1.1 or later (this manifest targets 1.0)",
            m.display()
        )
    );
}

#[test]
fn bad_kind_and_figure_fields_are_named() {
    let cases = [
        ("[[feature-kinds]]\nname = \"moat\"\nshape = \"edge\"\n", "feature-kinds[0].letter", "an edge kind needs `letter`"),
        ("[[feature-kinds]]\nname = \"moat\"\nshape = \"edge\"\nletter = \"R\"\n", "feature-kinds[0].letter", "`R` is a base game edge letter"),
        ("[[feature-kinds]]\nname = \"moat\"\nshape = \"site\"\ncompletes = \"closed\"\n", "feature-kinds[0].completes", "`closed`: an site kind completes `surrounded` or `never`"),
        ("[[feature-kinds]]\nname = \"moat\"\nshape = \"site\"\nscoring = \"points\"\n", "feature-kinds[0].points", "needs `points"),
        ("[[feature-kinds]]\nname = \"moat\"\nshape = \"site\"\ncolour = \"blue\"\n", "feature-kinds[0].colour", "is not a colour"),
        ("[[feature-kinds]]\nname = \"moat\"\nshape = \"site\"\ntakes = [\"Boat!\"]\n", "feature-kinds[0].takes", "is not a figure kind name"),
        ("[[feature-kinds]]\nname = \"moat\"\nshape = \"site\"\noccupiable = false\ntakes = [\"boat\"]\n", "feature-kinds[0].takes", "takes no figures"),
        ("[[figures]]\nname = \"small-follower\"\nper-player = 1\nstands-on = [\"road\"]\n", "figures[0].name", "the base game's figure"),
        ("[[figures]]\nname = \"boat\"\nper-player = 0\nstands-on = [\"road\"]\n", "figures[0].per-player", "outside 1..=30"),
        ("[[figures]]\nname = \"boat\"\nper-player = 1\nstands-on = [\"road\"]\nshape = \"blob\"\n", "figures[0].shape", "is not one of"),
    ];
    for (i, (extra, field, message)) in cases.iter().enumerate() {
        let fan = Fan::new(&format!("field-{i}"));
        let m = fan.expansion("a", extra, None);
        let e = err_text(fan.rules(&["a"]));
        let want = format!("{}:9: `{field}`: ", m.display());
        assert!(e.starts_with(&want) && e.contains(message), "case {i}: {e}");
    }
}

// ---------------------------------------------------------------------------------------
// Guards that need no state, and the board-wide reads (docs/modding.md 5.1)

/// `guard_figure`: the guarded hook runs exactly in the turns that end with a figure of the
/// kind in play; `figures_of_kind` and `segments_of_kind` see what the game holds.
#[test]
fn guard_figure_runs_the_hook_only_while_such_a_figure_is_in_play() {
    let fan = Fan::new("guard-figure");
    fan.expansion(
        "watch",
        "[[figures]]\nname = \"watcher\"\nper-player = 1\nstands-on = [\"road\"]\n",
        None,
    );
    std::fs::write(
        fan.tmp.path("watch").join("watch.rhai"),
        r#"fn setup() {
    declare_state("calls", "game", 0);
    declare_state("watchers", "game", 0);
    declare_state("cloisters", "game", 0);
    guard_figure("on_turn_end", "watcher");
}
fn on_turn_end() {
    set_state("calls", state("calls") + 1);
    set_state("watchers", figures_of_kind("watcher").len());
    set_state("cloisters", segments_of_kind("cloister").len());
}
"#,
    )
    .unwrap();
    let rules = fan.rules(&["watch"]).expect("the ruleset builds");
    let watcher = rules.figure_named("watcher").unwrap();
    let cloister = rules.kind_named("cloister").unwrap();
    let slot = |name: &str| {
        carcassonne_core::SlotId(rules.slots().iter().position(|d| d.name == name).unwrap() as u16)
    };
    let (calls, watchers, cloisters) = (slot("calls"), slot("watchers"), slot("cloisters"));
    let mut guarded_turns = 0;
    for seed in 0..20 {
        let mut g = Game::new(
            Arc::clone(&rules),
            &GameSetup::new(vec!["R".into(), "B".into()], seed),
        )
        .unwrap();
        let mut bot = RandomBot::new(seed);
        while !g.is_over() {
            let before = g.state().slot(calls, 0);
            let i = bot.choose(&g);
            g.apply_offered(i).unwrap();
            let st = g.state();
            let in_play = st
                .figures()
                .iter()
                .filter(|f| f.kind == watcher && matches!(f.loc, FigureLoc::On(_)))
                .count() as i64;
            if st.slot(calls, 0) > before {
                guarded_turns += 1;
                assert!(
                    in_play > 0,
                    "seed {seed}: the hook ran with no watcher in play"
                );
                assert_eq!(st.slot(watchers, 0), in_play, "figures_of_kind");
                let on_board = st
                    .board()
                    .tiles()
                    .iter()
                    .map(|t| {
                        rules
                            .tiles()
                            .get(t.kind)
                            .segments
                            .iter()
                            .filter(|s| s.kind == cloister)
                            .count() as i64
                    })
                    .sum::<i64>();
                assert_eq!(st.slot(cloisters, 0), on_board, "segments_of_kind");
            }
        }
    }
    assert!(guarded_turns > 0, "no game put a watcher in play");
}

#[test]
fn spacing_rules_and_scoring_guards_refuse_bad_arguments() {
    for (body, message) in [
        (
            r#"keep_apart("landing", "landing", 17, "too far");"#,
            "keep_apart: radius 17 is not in 0..=16",
        ),
        (
            r#"guard_scoring_near("on_turn_end", "ferryman");"#,
            "hook `on_turn_end` has no scoring to look at",
        ),
        (
            r#"guard_figure("apply_action", "ferryman");"#,
            "hook `apply_action` cannot be guarded",
        ),
    ] {
        let fan = Fan::new("bad-guards");
        fan.expansion("a", "", None);
        std::fs::write(
            fan.tmp.path("a").join("a.rhai"),
            format!("fn setup() {{\n    {body}\n}}\n"),
        )
        .unwrap();
        let e = err_text(fan.rules(&["a"]));
        assert!(e.contains(message), "{body}: {e}");
    }
}
