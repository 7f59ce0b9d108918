//! Issue 30: neutral figures and figures that share features, for scripts as for plugins.
//! The guide's third worked example, `docs/examples/herald` (one neutral Herald the script
//! places, that players move onto features holding followers), goes through every path:
//! its checks and scenarios, random games with the figure conserved and never a player's,
//! records and replays, pictures; and the script API's refusals say why.

mod common;
use carcassonne_core::{Action, FigureLoc, Game, GameSetup, PlayerId, Ruleset};
use carcassonne_play::bots::{Bot, GreedyBot, RandomBot};
use carcassonne_rules::{build_ruleset, RulesSpec};
use common::ok_in_repo as ok;
use common::{repo, Scratch};
use std::path::PathBuf;
use std::sync::Arc;

fn herald_dir() -> PathBuf {
    repo().join("docs").join("examples").join("herald")
}

fn rules(expansions: &[&str]) -> Arc<Ruleset> {
    build_ruleset(&RulesSpec {
        expansions: expansions.iter().map(|s| s.to_string()).collect(),
        options: Vec::new(),
        plugin_dirs: vec![repo().join("docs").join("examples")],
    })
    .unwrap_or_else(|e| panic!("the ruleset builds: {e}"))
}

#[test]
fn the_guide_shows_the_herald_files_byte_for_byte() {
    let guide = std::fs::read_to_string(repo().join("docs").join("modding.md")).unwrap();
    for file in ["expansion.toml", "herald.rhai"] {
        let text = std::fs::read_to_string(herald_dir().join(file)).unwrap();
        assert!(
            guide.contains(&text),
            "docs/modding.md section 8c does not show docs/examples/herald/{file} as it is"
        );
    }
    // The test output the guide shows is the real one.
    let out = ok(&["expansions", "test", "docs/examples/herald"]);
    assert!(
        guide.contains(&format!(
            "$ carcassonne expansions test docs/examples/herald\n{out}```"
        )),
        "the guide does not show this output:\n{out}"
    );
}

#[test]
fn the_herald_passes_check_and_its_scenarios() {
    let dir = herald_dir().display().to_string();
    let out = ok(&["expansions", "check", &dir]);
    assert!(out.contains("ok: ruleset: herald"), "{out}");
    let out = ok(&["expansions", "test", &dir]);
    assert!(!out.contains("FAIL"), "{out}");
    assert_eq!(out.matches("PASS").count(), 2, "{out}");
}

/// HE-1, HE-4 in random games: the one Herald is nobody's, stands on the board from the
/// start, is never in a seat's supply and never an occupant; players' figures stay
/// conserved; bots move him (a greedy bot takes the move that pays).
#[test]
fn the_herald_is_conserved_and_nobodys_in_random_games() {
    let r = rules(&["herald"]);
    let herald = r.figure_named("herald").unwrap();
    let mut moved = 0;
    for seed in 0..12u64 {
        let players: Vec<String> = (0..2 + seed as usize % 3)
            .map(|i| format!("P{i}"))
            .collect();
        let mut g = Game::new(Arc::clone(&r), &GameSetup::new(players.clone(), seed)).unwrap();
        let mut bots: Vec<Box<dyn Bot>> = (0..players.len())
            .map(|i| -> Box<dyn Bot> {
                if i == 0 {
                    Box::new(GreedyBot::new(seed))
                } else {
                    Box::new(RandomBot::new(seed + i as u64))
                }
            })
            .collect();
        let mut steps = 0;
        while !g.is_over() {
            let who = g.decision().player;
            let a = g.actions()[bots[who.index()].choose(&g)];
            if let Action::Move { figure, .. } = a {
                if g.state().figure(figure).kind == herald {
                    moved += 1;
                }
            }
            g.apply(a).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            steps += 1;
            assert!(steps < 10_000, "seed {seed}: the game ends");
            let st = g.state();
            let (first, neutral) = st.neutral_figures();
            assert_eq!(neutral.len(), 1, "seed {seed}: one Herald");
            assert!(
                matches!(neutral[0].loc, FigureLoc::On(_)),
                "seed {seed}: HE-1"
            );
            assert!(neutral[0].is_neutral());
            assert_eq!(
                g.view()
                    .figure_name(carcassonne_core::FigureId(first as u16)),
                "herald.1"
            );
            for p in 0..players.len() {
                let p = PlayerId(p as u8);
                assert_eq!(st.in_supply(p, herald), 0, "seed {seed}: nobody's supply");
                let (_, mine) = st.figures_of(p);
                assert!(mine.iter().all(|f| f.owner == p && f.kind != herald));
                let on_board = mine
                    .iter()
                    .filter(|f| matches!(f.loc, FigureLoc::On(_)))
                    .count();
                let in_supply =
                    st.in_supply(p, carcassonne_core::FigureKindId::SMALL_FOLLOWER) as usize;
                assert_eq!(on_board + in_supply, 7, "seed {seed}: followers conserved");
            }
            // HE-4: the Herald is never an occupant.
            if let FigureLoc::On(seg) = neutral[0].loc {
                let g2 = st.graph();
                let f = g2.feature_of(seg);
                let players_there = st
                    .figures()
                    .iter()
                    .filter(|x| {
                        !x.is_neutral()
                            && matches!(x.loc, FigureLoc::On(s) if g2.feature_of(s) == f)
                    })
                    .count();
                assert_eq!(
                    g2.totals(f).occupants as usize,
                    players_there,
                    "seed {seed}"
                );
            }
        }
    }
    assert!(moved > 0, "the bots moved the Herald at least once");
}

/// Records name the Herald `herald.1`; replaying them gives the same game; the picture
/// draws him in his colour, in no seat's.
#[test]
fn herald_games_record_replay_and_draw() {
    let s = Scratch::new("neutral", "records");
    ok(&[
        "simulate",
        "--expansion-dir",
        "docs/examples",
        "--expansions",
        "herald",
        "--games",
        "6",
        "--seed",
        "3",
        "--bots",
        "greedy,random",
        "--record",
        &s.arg("out"),
    ]);
    let mut herald_moves = 0;
    for i in 0..6 {
        let path = s.path("out").join(format!("game-{i}.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        herald_moves += text.matches("\"herald.1\"").count();
        let replay = ok(&[
            "replay",
            &path.display().to_string(),
            "--expansion-dir",
            "docs/examples",
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&replay).unwrap();
        let rec: serde_json::Value = serde_json::from_str(&text).unwrap();
        let scores: Vec<i64> = v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["score"].as_i64().unwrap())
            .collect();
        let recorded: Vec<i64> = rec["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        assert_eq!(
            scores, recorded,
            "game {i}: the replay ends as the game did"
        );
        let svg_path = s.arg(&format!("g{i}.svg"));
        ok(&[
            "render",
            &path.display().to_string(),
            "--expansion-dir",
            "docs/examples",
            "-o",
            &svg_path,
        ]);
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        assert!(
            svg.contains("herald.1"),
            "game {i}: the Herald is drawn and named"
        );
        assert!(
            svg.to_lowercase().contains("#b58de0"),
            "game {i}: in his declared colour"
        );
    }
    assert!(herald_moves > 0, "some record moves the Herald");
}
