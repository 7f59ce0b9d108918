//! Bridges, Castles & Bazaars in play: seeded games with random choices (anything but a pass
//! preferred, so that castles and auctions come up) check after every action what
//! `describe` shows — each castle on a virtual feature holding its follower while it waits
//! (BCB-9, BCB-11), the bazaar's tiles while they wait (BCB-13 … BCB-15) — and that the
//! bought tiles are all placed: every game places as many tiles as it drew; and that every
//! bridge is accounted for (BCB-1, BCB-4, BCB-7): bridges on the board plus bridges left are
//! the players' bridges, one a tile at most.

use carcassonne_core::{Action, Game, GameSetup, Visible};
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::expansions_dir;
use std::sync::Arc;

#[test]
fn castles_and_bazaars_are_described_in_play() {
    let rules = build_ruleset(&RulesSpec {
        expansions: vec!["bridges-castles-bazaars".into()],
        options: Vec::new(),
        plugin_dirs: vec![expansions_dir()],
    })
    .expect("ruleset");
    let (mut waiting, mut scored, mut bazaar, mut bridges) = (0, 0, 0, 0);
    let left = rules
        .slots()
        .iter()
        .position(|s| s.name == "bridges")
        .map(|i| carcassonne_core::SlotId(i as u16))
        .expect("the bridges slot");
    for seed in 1..=16u64 {
        // 2–4 players, then 5–8 (the engine's most: a bazaar shows one tile per player).
        let players = if seed <= 12 {
            2 + (seed % 3) as usize
        } else {
            5 + (seed % 4) as usize
        };
        let names = (0..players).map(|i| format!("P{i}")).collect();
        let mut game = Game::new(Arc::clone(&rules), &GameSetup::new(names, seed)).expect("game");
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        while !game.is_over() {
            let mut shown = Vec::new();
            game.view().describe(&mut shown).expect("describe");
            let g = game.state().graph();
            let mut lots = 0;
            for v in &shown {
                match v {
                    Visible::Place {
                        group,
                        name,
                        segment,
                    } if group == "Castles" => {
                        // BCB-9: the castle is its own feature, holding the follower while
                        // it waits; BCB-11: empty once it scored.
                        assert!(g.segment(*segment).is_virtual(), "{name}");
                        let on = game.state().figures_on(*segment).count();
                        if name.ends_with("(waiting)") {
                            assert_eq!(on, 1, "{name}");
                            waiting += 1;
                        } else {
                            assert_eq!(on, 0, "{name}");
                            scored += 1;
                        }
                    }
                    Visible::Title { group, .. } if group == "Bazaar" => lots += 1,
                    _ => {}
                }
            }
            // BCB-13: one tile per player at most.
            assert!(lots <= players, "{lots} bazaar tiles for {players} players");
            bazaar += lots;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let actions = game.actions();
            let others: Vec<usize> = (0..actions.len())
                .filter(|&i| actions[i] != Action::Pass)
                .collect();
            let i = match others.len() {
                0 => 0,
                n if x % 4 != 0 => others[(x / 4 % n as u64) as usize],
                _ => (x % actions.len() as u64) as usize,
            };
            game.apply_offered(i).expect("an offered action");
        }
        // BCB-15: every tile shown at a bazaar was placed (or fit nowhere): the supply is
        // empty and nothing waits.
        assert_eq!(game.state().supply().remaining(), 0);
        // BCB-1, BCB-5: a bridge is a tile turned into its variant, one a tile.
        let st = game.state();
        let laid = st
            .board()
            .tiles()
            .iter()
            .filter(|t| rules.tiles().get(t.kind).variant_of.is_some())
            .count();
        let kept: i64 = (0..players).map(|p| st.slot(left, p)).sum();
        let each = if players < 5 { 3 } else { 2 };
        assert_eq!(laid as i64 + kept, each * players as i64, "seed {seed}");
        assert!(kept >= 0);
        bridges += laid;
        if laid > 0 {
            // Drawn: each bridge's road on its deck (docs/rendering.md).
            let svg = carcassonne_render::render_svg(&game, &Default::default());
            assert_eq!(
                svg.matches("class=\"overlay-deck\"").count(),
                laid,
                "seed {seed}"
            );
        }
    }
    assert!(bridges > 0, "no bridge was laid in 16 games");
    assert!(waiting > 0, "no castle was made in 12 games");
    assert!(scored > 0, "no castle scored in 12 games");
    assert!(bazaar > 0, "no bazaar was held in 12 games");
}
