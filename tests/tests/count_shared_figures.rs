//! The Count's quarters take followers only (CO-4, CO-9): a figure that shares features and
//! decides no majority (`shares`, Děčínský Sněžník's observation tower, which its script offers
//! in the deployment step as a follower would be) is never offered into a quarter, so it never
//! stands anywhere but on a tile. Found by a soak of every official set with the fan set: the
//! Count put the tower into the market, and the script's DS-4 check met a tower with no cell.

use carcassonne_core::{Action, FigureLoc, Game, GameSetup};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::{expansions_dir, fan_expansions_dir};
use std::sync::Arc;

#[test]
fn a_shared_figure_never_enters_a_quarter() {
    let rules = build_ruleset(&RulesSpec {
        expansions: ["count", "decinsky-sneznik"].map(String::from).to_vec(),
        options: Vec::new(),
        plugin_dirs: vec![expansions_dir(), fan_expansions_dir()],
    })
    .expect("the ruleset builds (build the workspace first)");
    let tower = rules.figure_named("observation-tower").expect("the tower");
    assert!(rules.figure_kind(tower).shares);
    let (mut offered_elsewhere, mut placed) = (0, 0);
    for seed in 0..150u64 {
        let mut game = Game::new(
            Arc::clone(&rules),
            &GameSetup::new(vec!["Ann".into(), "Ben".into(), "Cid".into()], seed),
        )
        .unwrap();
        let mut bot = RandomBot::new(seed);
        while !game.is_over() {
            for a in game.actions() {
                if let Action::Deploy { figure, segment } = a {
                    if *figure == tower {
                        // CO-4: never into a quarter (a virtual feature).
                        assert!(
                            !game.state().graph().segment(*segment).is_virtual(),
                            "seed {seed}: the tower is offered into a quarter"
                        );
                        offered_elsewhere += 1;
                    }
                }
            }
            let i = bot.choose(&game);
            game.apply_offered(i).unwrap();
            for f in game.state().figures().iter().filter(|f| f.kind == tower) {
                if let FigureLoc::On(s) = f.loc {
                    assert!(!game.state().graph().segment(s).is_virtual(), "seed {seed}");
                    placed += 1;
                }
            }
        }
    }
    assert!(
        offered_elsewhere > 0 && placed > 0,
        "the tower was never offered or placed"
    );
}
