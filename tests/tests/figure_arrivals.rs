//! `on_figure_placed`, core's hook for a figure coming onto a segment: every arrival is told,
//! whichever way it comes (core's deployment step, another expansion's prompt, a plugin's or
//! a script's `Ctx` command, a position's set-up). A watching script keeps, per figure, the
//! segment it last arrived on (`on_figure_placed`) and clears it when the figure leaves
//! (`on_figure_removed`); after every action of seeded games, alone and in the widest mix,
//! that record must say where each figure stands.

use carcassonne_core::{
    FigureLoc, Game, GameSetup, PlayerId, Pos, Position, PositionFigure, PositionSetting, Rotation,
    Ruleset, SlotId, StartTile,
};
use carcassonne_tests::{expansions_dir, fan_expansions_dir, mixed, NINE_OFFICIAL};
use std::path::PathBuf;
use std::sync::Arc;

const WATCH: &str = r#"
fn setup() {
    declare_state("at", "figure", 0);
    declare_state("arrivals", "game", 0);
}
fn on_figure_placed(figure, segment) {
    set_figure_state("at", figure, segment + 1);
    set_state("arrivals", state("arrivals") + 1);
}
fn on_figure_removed(figure, reason) { set_figure_state("at", figure, 0); }
fn apply_setting(key, value) {
    if key == "deploy" {
        deploy(1, #{type: "deploy", figure_kind: "small-follower", segment: segments_at(0, 0)[2]});
    }
}
"#;

/// The `watch` script in a folder of its own (removed when dropped).
struct Watch(PathBuf);

impl Watch {
    fn new(name: &str) -> Watch {
        let dir = std::env::temp_dir().join(format!(
            "carcassonne-arrivals-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let watch = dir.join("watch");
        std::fs::create_dir_all(&watch).unwrap();
        std::fs::write(
            watch.join("expansion.toml"),
            "[expansion]\nid = \"watch\"\nname = \"Watch\"\nversion = \"1.0.0\"\napi = \"1.4\"\n\
             kind = \"script\"\nentry = \"watch.rhai\"\n",
        )
        .unwrap();
        std::fs::write(watch.join("watch.rhai"), WATCH).unwrap();
        Watch(dir)
    }

    /// The ruleset of `watch` and `expansions` (official plugins and fan scripts).
    fn rules(&self, expansions: &[&str]) -> Arc<Ruleset> {
        carcassonne_rules::build_ruleset(&carcassonne_rules::RulesSpec {
            expansions: std::iter::once("watch")
                .chain(expansions.iter().copied())
                .map(String::from)
                .collect(),
            options: Vec::new(),
            plugin_dirs: vec![self.0.clone(), expansions_dir(), fan_expansions_dir()],
        })
        .unwrap_or_else(|e| panic!("{expansions:?}: {e}"))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The watching script's slot `name`.
fn slot(g: &Game, name: &str) -> SlotId {
    mixed::slot(g.rules(), "watch", name)
}

/// Every figure's recorded arrival agrees with where it stands; the arrivals so far.
fn check(g: &Game, what: &str) -> i64 {
    let at = slot(g, "at");
    for (i, f) in g.state().figures().iter().enumerate() {
        let want = match f.loc {
            FigureLoc::On(seg) => seg.index() as i64 + 1,
            _ => 0,
        };
        assert_eq!(
            g.state().slot(at, i),
            want,
            "{what}: figure {i} ({:?}) stands at {:?}, the hook recorded otherwise",
            g.rules().figure_kinds()[f.kind.0 as usize].name,
            f.loc
        );
    }
    g.state().slot(slot(g, "arrivals"), 0)
}

/// Plays `games` seeded games with a fixed spread of choices, checking after every action;
/// returns the arrivals told.
fn play(rules: &Arc<Ruleset>, games: u64, what: &str) -> i64 {
    let mut arrivals = 0;
    for seed in 0..games {
        let players = 2 + (seed % 3) as usize;
        let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
        let mut g = Game::new(Arc::clone(rules), &setup).expect("game");
        check(&g, &format!("{what} seed {seed}, start"));
        let mut step = 0usize;
        while !g.is_over() && step < 5000 {
            let i = (step * 7919 + 13 + seed as usize) % g.action_count();
            g.apply_offered(i).expect("an offered action");
            step += 1;
            arrivals = check(&g, &format!("{what} seed {seed}, step {step}"));
        }
        assert!(g.is_over(), "{what} seed {seed}: the game ends");
    }
    arrivals
}

#[test]
fn every_deployment_of_the_base_game_is_told() {
    let w = Watch::new("base");
    let told = play(&w.rules(&[]), 3, "base");
    assert!(told > 10, "only {told} arrivals told");
}

/// Moves and redeployments (wagons, the Count's quarters, the Tower's captives, the dragon,
/// the fairy, the magic portal, the Tactician's prompt, acrobats, shepherds) in the widest
/// mix of plugins and scripts.
#[test]
fn every_arrival_is_told_in_the_widest_mix() {
    let w = Watch::new("mix");
    let mut sets = NINE_OFFICIAL.to_vec();
    sets.extend([
        "big-top",
        "bridges-castles-bazaars",
        "hills-sheep",
        "tactician",
    ]);
    let rules = w.rules(&sets);
    let told = play(&rules, 8, "mix");
    assert!(told > 10, "only {told} arrivals told");
}

/// A position's figures arrive after `start_game`, and are told as they do; so is a
/// script's own deployment, to the script itself (a hook called from inside its command).
#[test]
fn a_positions_figures_are_told() {
    let w = Watch::new("position");
    let rules = w.rules(&[]);
    let d = rules.tiles().find("D").unwrap();
    let p = Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![StartTile {
            kind: d,
            pos: Pos::new(0, 0),
            rotation: Rotation::R0,
        }],
        draws: vec![d],
        figures: vec![
            PositionFigure {
                player: PlayerId(0),
                kind: carcassonne_core::FigureKindId::SMALL_FOLLOWER,
                pos: Pos::new(0, 0),
                segment: 1,
            },
            PositionFigure {
                player: PlayerId(1),
                kind: carcassonne_core::FigureKindId::SMALL_FOLLOWER,
                pos: Pos::new(0, 0),
                segment: 0,
            },
        ],
        ..Position::default()
    };
    let g = Game::from_position(Arc::clone(&rules), &p).unwrap();
    assert_eq!(check(&g, "position"), 2);
    let p = Position {
        settings: vec![PositionSetting {
            expansion: "watch".into(),
            key: "deploy".into(),
            value: String::new(),
        }],
        ..p
    };
    let g = Game::from_position(rules, &p).unwrap();
    assert_eq!(check(&g, "a script's deployment"), 3);
}
