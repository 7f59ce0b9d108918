//! The bots (issue 19): the tree-search bot plays every decision of every expansion mix
//! through the engine's own legal actions, and beats the random bot.

use carcassonne_core::{DecisionKind, Game, GameSetup};
use carcassonne_play::bots::{make_bot, Bot};
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::{expansions_dir, fan_expansions_dir};
use std::collections::BTreeMap;
use std::sync::Arc;

const ALL: [&str; 11] = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "inns-cathedrals",
    "traders-builders",
    "princess-dragon",
    "tower",
    "abbey-mayor",
    "tactician",
    "promotions",
];

fn rules(expansions: &[&str]) -> Arc<carcassonne_core::Ruleset> {
    build_ruleset(&RulesSpec {
        expansions: expansions.iter().map(|e| e.to_string()).collect(),
        options: Vec::new(),
        plugin_dirs: vec![expansions_dir(), fan_expansions_dir()],
    })
    .unwrap_or_else(|e| panic!("the expansions load: {e}"))
}

/// Plays one game; returns it and, per decision kind, how many decisions with more than
/// one legal action seat 0 (the MCTS bot) took.
fn play(
    rules: &Arc<carcassonne_core::Ruleset>,
    bots: &[&str],
    seed: u64,
) -> (Game, BTreeMap<&'static str, u32>) {
    let names = (0..bots.len()).map(|i| format!("P{}", i + 1)).collect();
    let mut g = Game::new(Arc::clone(rules), &GameSetup::new(names, seed)).expect("game");
    let mut players: Vec<Box<dyn Bot>> = bots
        .iter()
        .enumerate()
        .map(|(i, b)| make_bot(b, seed ^ (i as u64 + 1)).expect("bot spec"))
        .collect();
    let mut seen = BTreeMap::new();
    while !g.is_over() {
        let d = g.decision();
        let who = d.player.index();
        if who == 0 && g.action_count() > 1 {
            let kind = match d.kind {
                DecisionKind::PlaceTile { .. } => "place",
                DecisionKind::Deploy { .. } => "deploy",
                DecisionKind::Prompt(_) => "prompt",
                DecisionKind::Draw => "draw",
                DecisionKind::GameOver => "over",
            };
            *seen.entry(kind).or_insert(0) += 1;
        }
        let i = players[who].choose(&g);
        assert!(i < g.action_count(), "the bot picks an offered action");
        g.apply_offered(i).expect("offered actions apply");
    }
    (g, seen)
}

/// Every score equals the sum of its player's score events.
fn scores_match_events(g: &Game) {
    let st = g.state();
    for (i, p) in st.players().iter().enumerate() {
        let sum: i32 = st
            .events()
            .iter()
            .filter(|e| e.player.index() == i)
            .map(|e| e.points)
            .sum();
        assert_eq!(p.score, sum, "player {i}: score equals its events");
    }
}

/// Every official expansion and both fan scripts: the search bot meets tile steps,
/// deployment steps and expansions' prompts (the Count's rounds, Tactician tokens,
/// the dragon's steps, captures, …) and answers each with an offered action.
#[test]
fn mcts_plays_every_decision_of_the_full_mix() {
    let rules = rules(&ALL);
    let (g, seen) = play(&rules, &["mcts:8", "greedy", "random"], 21);
    assert!(g.is_over());
    scores_match_events(&g);
    for kind in ["place", "deploy", "prompt"] {
        assert!(
            seen.get(kind).copied().unwrap_or(0) > 0,
            "mcts decided no {kind}: {seen:?}"
        );
    }
}

/// The search beats the random bot in the base game (seeded, so not flaky), both seats.
#[test]
fn mcts_beats_random() {
    let rules = rules(&[]);
    for (seed, seats) in [(1u64, ["mcts:60", "random"]), (2, ["random", "mcts:60"])] {
        let (g, _) = play(&rules, &seats, seed);
        let scores: Vec<i32> = g.state().players().iter().map(|p| p.score).collect();
        let me = seats
            .iter()
            .position(|s| s.starts_with("mcts"))
            .expect("mcts seat");
        assert!(
            scores[me] > scores[1 - me],
            "seed {seed}: {seats:?} scored {scores:?}"
        );
    }
}

/// A constructed position (the layout of T-08): R's knight holds a city with three open
/// parts, and R's drawn `CCFC` closes it into a 4-tile city (+8) only at (0,0). With a
/// few tiles left, the search finds that placement (A-9, A-11) at once.
#[test]
fn mcts_finds_the_placement_that_completes_its_city() {
    let game = forced_position();
    assert!(matches!(
        game.decision().kind,
        DecisionKind::PlaceTile { .. }
    ));
    assert!(game.action_count() > 4, "several placements to choose from");
    for seed in [1, 2, 3] {
        let mut bot = make_bot("mcts:200", seed).expect("bot");
        let chosen = game.actions()[bot.choose(&game)];
        match chosen {
            carcassonne_core::Action::Place { pos, .. } => {
                assert_eq!((pos.x, pos.y), (0, 0), "seed {seed}: {chosen:?}")
            }
            other => panic!("seed {seed}: not a placement: {other:?}"),
        }
    }
}

/// The position of T-08 before R places `CCFC`: R's knight holds a city with three
/// open parts, no one has scored yet.
fn forced_position() -> Game {
    let text = r#"
id = "forced"
title = "the only completing placement"
draws = ["CCFC", "RFRF", "RFRF", "CFFF"]

[[tile]]
at = [0, -1]
edges = "FFCF"

[[tile]]
at = [1, 0]
edges = "FFFC"

[[tile]]
at = [-1, 0]
edges = "FCFF"

[[figure]]
player = "R"
at = [0, -1]
feature = "S"
"#;
    let case = carcassonne_scenario::parse_cases(text, "forced.toml", None)
        .expect("the position parses")
        .remove(0)
        .scenario;
    let rules = carcassonne_tests::build_rules(&case).expect("rules");
    let pos = carcassonne_scenario::build_position(&rules, &case).expect("position");
    Game::from_position(Arc::clone(&rules), &pos).expect("game")
}

/// What a truncated playout is valued by is the real end-of-game scoring (A-12): ending
/// the game now scores R's unfinished 1-tile city (1 point) and nothing for the others; once R has
/// placed `CCFC` at (0,0), the city is closed (4 tiles × 2 = 8, A-9, A-11) and ending the
/// game scores those 8 points, not the 4 it would be worth unfinished.
#[test]
fn the_search_values_a_position_by_its_end_of_game_scores() {
    let game = forced_position();
    let before = carcassonne_play::mcts::scores_if_ended_now(&game);
    assert_eq!(game.state().players()[0].score, 0);
    assert_eq!(
        before,
        vec![1, 0, 0, 0],
        "unfinished city: 1 point per tile"
    );
    // `end_now` itself ends the game with exactly those scores.
    let mut ended = game.clone();
    ended.end_now().expect("no hook fails");
    assert!(ended.is_over());
    let scores: Vec<i32> = ended.state().players().iter().map(|p| p.score).collect();
    assert_eq!(scores, before);
    scores_match_events(&ended);
    // Close the city at (0,0): still in R's deployment step, before the turn's scoring.
    let close = game
        .actions()
        .iter()
        .position(|a| matches!(a, carcassonne_core::Action::Place { pos, .. } if (pos.x, pos.y) == (0, 0)))
        .expect("(0,0) is offered");
    let mut g = game.clone();
    g.apply_offered(close).expect("placement");
    let after = carcassonne_play::mcts::scores_if_ended_now(&g);
    assert_eq!(after, vec![8, 0, 0, 0], "the closed city is worth 8");
}

/// `mcts[:BUDGET][:THREADSt][:dDEPTH][:pPASS][:oOFFER][:eEND]`: the playout depth is part
/// of the spec, one turn past the tree by default, `dend` to the end of the game; so is the
/// share of playout deployment steps passed unlisted, half by default, whether the others
/// choose among the tile's own deployments (`otile`, the default) or the whole offer
/// (`oall`), and whether the end's questions are passed unlisted (`epass`, the default) or
/// played from their offers (`eplay`); bad depths, shares, offers and ends are refused.
#[test]
fn mcts_spec_takes_a_playout_depth() {
    use carcassonne_play::bots::{parse_bot, BotSpec};
    use carcassonne_play::mcts::{Budget, MctsConfig};
    let Ok(BotSpec::Mcts(cfg)) = parse_bot("mcts") else {
        panic!("mcts parses")
    };
    assert_eq!(cfg.depth, MctsConfig::DEFAULT_DEPTH);
    assert_eq!(cfg.budget, Budget::Iterations(1000));
    let Ok(BotSpec::Mcts(cfg)) = parse_bot("mcts:300:2t:d3") else {
        panic!("mcts:300:2t:d3 parses")
    };
    assert_eq!(
        (cfg.budget, cfg.threads, cfg.depth),
        (Budget::Iterations(300), 2, 3)
    );
    let Ok(BotSpec::Mcts(cfg)) = parse_bot("mcts:dend") else {
        panic!("mcts:dend parses")
    };
    assert_eq!(cfg.depth, u32::MAX);
    assert_eq!(cfg.pass_share, MctsConfig::DEFAULT_PASS_SHARE);
    let Ok(BotSpec::Mcts(cfg)) = parse_bot("mcts:300:2t:d3:p0") else {
        panic!("mcts:300:2t:d3:p0 parses")
    };
    assert_eq!((cfg.depth, cfg.pass_share), (3, 0));
    assert!(cfg.tile_deploys, "the tile's own deployments by default");
    let Ok(BotSpec::Mcts(cfg)) = parse_bot("mcts:300:2t:d3:p0:oall") else {
        panic!("mcts:300:2t:d3:p0:oall parses")
    };
    assert_eq!((cfg.pass_share, cfg.tile_deploys), (0, false));
    assert!(cfg.end_passing, "the end's questions passed by default");
    let Ok(BotSpec::Mcts(cfg)) = parse_bot("mcts:300:2t:d3:p0:oall:eplay") else {
        panic!("mcts:300:2t:d3:p0:oall:eplay parses")
    };
    assert_eq!((cfg.tile_deploys, cfg.end_passing), (false, false));
    let Ok(BotSpec::Mcts(cfg)) = parse_bot("mcts:eplay:epass") else {
        panic!("mcts:eplay:epass parses")
    };
    assert!(cfg.end_passing, "the last part counts");
    for bad in [
        "mcts:dx",
        "mcts:d-1",
        "mcts:d20000",
        "mcts:1:1t:d1:d2:p5:otile:epass",
        "mcts:o",
        "mcts:ox",
        "mcts:otiles",
        "mcts:e",
        "mcts:eall",
        "mcts:p101",
        "mcts:p-1",
        "mcts:px",
    ] {
        assert!(parse_bot(bad).is_err(), "{bad} is refused");
    }
}

/// Same seed, same game: a playout budget is reproducible, with two search threads too,
/// across the nine official expansions (the truncated playouts and `end_now` included).
#[test]
fn mcts_is_reproducible_for_a_seed() {
    let rules = rules(&ALL[..9]);
    let run = || {
        let names = vec!["P1".to_string(), "P2".to_string()];
        let mut g = Game::new(Arc::clone(&rules), &GameSetup::new(names, 5)).expect("game");
        let mut bots = [
            make_bot("mcts:24:2t", 11).expect("bot"),
            make_bot("greedy", 12).expect("bot"),
        ];
        let mut chosen = Vec::new();
        while !g.is_over() && chosen.len() < 120 {
            let i = bots[g.decision().player.index()].choose(&g);
            chosen.push(i);
            g.apply_offered(i).expect("offered actions apply");
        }
        let scores: Vec<i32> = g.state().players().iter().map(|p| p.score).collect();
        (chosen, scores)
    };
    assert_eq!(run(), run());
}

/// A search whose root may take only some of the offered actions (`balance`'s seat that
/// abstains from an expansion's actions) picks one of them; allowing every action is the
/// unrestricted search, move for move (the same seeds give the same choice).
#[test]
fn mcts_restricted_to_some_root_actions_keeps_to_them() {
    let rules = rules(&ALL[..9]);
    let names = vec!["P1".to_string(), "P2".to_string()];
    let mut g = Game::new(Arc::clone(&rules), &GameSetup::new(names, 9)).expect("game");
    let mut walk = make_bot("random", 3).expect("bot");
    let mut checked = 0;
    while !g.is_over() && checked < 12 {
        let n = g.action_count();
        if n > 2 {
            let odd: Vec<usize> = (1..n).step_by(2).collect();
            let every: Vec<usize> = (0..n).collect();
            let seed = checked as u64;
            let pick = make_bot("mcts:40", seed)
                .expect("bot")
                .choose_from(&g, &odd);
            assert!(
                odd.contains(&pick),
                "{pick} is not among the allowed {odd:?}"
            );
            assert_eq!(
                make_bot("mcts:40", seed)
                    .expect("bot")
                    .choose_from(&g, &every),
                make_bot("mcts:40", seed).expect("bot").choose(&g),
                "allowing every action is the unrestricted search"
            );
            checked += 1;
        }
        let i = walk.choose(&g);
        g.apply_offered(i).expect("offered actions apply");
    }
    assert_eq!(checked, 12, "the game offered fewer than 12 real choices");
}

/// A lookahead copy (`Game::set_stop_before_draw`, what the greedy bot values its candidates
/// on) ends with the same scores as the same action played on to the next decision, at every
/// decision of random games with all nine official expansions and both fan sets: no score
/// changes between the end of a look and the draw it stops before.
#[test]
fn lookahead_copies_score_as_full_steps() {
    let rules = rules(&ALL);
    for seed in 0..3u64 {
        let names = vec!["A".to_string(), "B".to_string(), "C".to_string()];
        let mut g = Game::new(Arc::clone(&rules), &GameSetup::new(names, seed)).expect("game");
        let mut bot = make_bot("random", seed).expect("bot");
        let (mut looks, mut stops) = (0, 0);
        while !g.is_over() {
            for i in 0..g.action_count() {
                let mut full = g.clone();
                let mut look = g.clone();
                look.set_stop_before_draw(Some(g.state().turn()));
                let played = full.apply_offered(i).is_ok();
                assert_eq!(
                    look.apply_offered(i).is_ok(),
                    played,
                    "seed {seed}: same verdict"
                );
                if !played {
                    continue;
                }
                looks += 1;
                let scores = |x: &Game| {
                    x.state()
                        .players()
                        .iter()
                        .map(|p| p.score)
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    scores(&look),
                    scores(&full),
                    "seed {seed}, action {i}: same scores"
                );
                if look.stopped_before_draw() {
                    // Stopped before a draw: nothing is offered; the full step went on
                    // to that draw (a tile to place, or a question it raised) or ended.
                    stops += 1;
                    assert_eq!(look.action_count(), 0);
                    assert!(
                        full.is_over()
                            || !matches!(full.decision().kind, DecisionKind::Deploy { .. }),
                        "seed {seed}: a look never stops inside a deployment step"
                    );
                } else {
                    assert_eq!(
                        look.decision(),
                        full.decision(),
                        "seed {seed}: same next decision within the turn"
                    );
                }
            }
            let i = bot.choose(&g);
            g.apply_offered(i).expect("offered actions apply");
        }
        assert!(
            looks > 100 && stops > 20,
            "seed {seed}: {looks} looks, {stops} stops"
        );
    }
}

/// The greedy bot's look-ahead after a placement tries only passing and deploying onto a
/// feature the placement completed (onto any feature with the last tile): in the base game
/// every other follow-up scores as passing does, so at every placement decision of these
/// games the bot picks a placement whose value with *every* follow-up tried is the best.
#[test]
fn greedy_look_ahead_keeps_the_best_base_game_placement() {
    let rules = rules(&[]);
    let margin = |g: &Game, me: usize| {
        let s: Vec<i32> = g.state().players().iter().map(|p| p.score).collect();
        s[me]
            - s.iter()
                .enumerate()
                .filter(|(i, _)| *i != me)
                .map(|(_, v)| *v)
                .max()
                .unwrap_or(0)
    };
    let mut checked = 0;
    for seed in 0..3u64 {
        let names = vec!["A".to_string(), "B".to_string()];
        let mut g = Game::new(Arc::clone(&rules), &GameSetup::new(names, seed)).expect("game");
        let mut greedy = make_bot("greedy", seed).expect("bot");
        let mut random = make_bot("random", seed).expect("bot");
        while !g.is_over() {
            let me = g.decision().player.index();
            let placing = matches!(g.actions()[0], carcassonne_core::Action::Place { .. });
            let i = if me == 0 {
                greedy.choose(&g)
            } else {
                random.choose(&g)
            };
            if me == 0 && placing {
                let mut values = Vec::new();
                for k in 0..g.action_count() {
                    let mut p = g.clone();
                    p.set_stop_before_draw(Some(g.state().turn()));
                    p.apply_offered(k).expect("offered placement");
                    let mut value = margin(&p, me);
                    if !p.is_over() && p.decision().player.index() == me {
                        for j in 0..p.action_count() {
                            let mut f = p.clone();
                            f.apply_offered(j).expect("offered follow-up");
                            value = value.max(margin(&f, me));
                        }
                    }
                    values.push(value);
                }
                let best = *values.iter().max().expect("a placement");
                assert_eq!(
                    values[i],
                    best,
                    "seed {seed}, turn {}: greedy's pick",
                    g.state().turn()
                );
                checked += 1;
            }
            g.apply_offered(i).expect("offered actions apply");
        }
    }
    assert!(checked > 90, "placement decisions checked: {checked}");
}
