//! River I (`docs/rules/river.md`, R1-1 … R1-10): the scenarios T-river-1 … T-river-7 of
//! `tests/scenarios/river/`, loaded from `expansions/river` as the program loads it; then
//! real games from [`Game::new`] for the set-up rules a hand-written position cannot show
//! (T-river-8: R1-2, R1-3; T-river-9: R1-9, River I with River II).

use carcassonne_core::{DecisionKind, Game, GameSetup, Pos, Rotation, Ruleset, TileKindId};
use carcassonne_tests::{official_rules as rules, run_scenario};
use std::sync::Arc;

/// T-river-1 — R1-4: the straight goes only where the spring's water is, water to water.
#[test]
fn t_river_1_a_river_tile_continues_the_open_end() {
    run_scenario("river/T-river-1");
}

/// T-river-2 — R1-5: no second left turn right after a left turn; a straight between the
/// curves allows it.
#[test]
fn t_river_2_no_immediate_u_turn() {
    run_scenario("river/T-river-2");
}

/// T-river-3 — R1-6: `riverLookahead` refuses a curve whose 2×3 area ahead holds a tile.
#[test]
fn t_river_3_lookahead_wants_the_area_ahead_empty() {
    run_scenario("river/T-river-3");
}

/// T-river-4 — R1-7: a curve with no legal spot is removed; the straight is drawn.
#[test]
fn t_river_4_unplaceable_river_tile_is_removed() {
    run_scenario("river/T-river-4");
}

/// T-river-5 — R1-8, R1-1: road and four fields on the bridge, never the water.
#[test]
fn t_river_5_no_follower_on_the_water() {
    run_scenario("river/T-river-5");
}

/// T-river-6 — R1-1: the lake closes the river; one field wraps round it.
#[test]
fn t_river_6_the_lake_closes_the_river() {
    run_scenario("river/T-river-6");
}

/// T-river-7 — R1-10: FanCloisterZone's strip to the bounding box.
#[test]
fn t_river_7_fcz_placement() {
    run_scenario("river/T-river-7");
}

fn kind(rules: &Ruleset, id: &str) -> TileKindId {
    rules
        .tiles()
        .find(id)
        .unwrap_or_else(|| panic!("tile {id} is loaded"))
}

/// Plays a game to its end with pseudo-random offered actions; returns the kinds of the
/// drawn tiles in draw order (placed or removed).
fn draws_of_a_game(rules: &Arc<Ruleset>, seed: u64) -> (Game, Vec<TileKindId>) {
    let setup = GameSetup::new(vec!["R".into(), "B".into(), "G".into()], seed);
    let mut g = Game::new(Arc::clone(rules), &setup).expect("the game starts");
    let mut drawn = Vec::new();
    let mut seen_discards = 0;
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    while !g.is_over() {
        drawn.extend_from_slice(&g.state().discarded()[seen_discards..]);
        seen_discards = g.state().discarded().len();
        if let DecisionKind::PlaceTile { tile } = g.decision().kind {
            drawn.push(tile);
        }
        let acts = g.actions().to_vec();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        g.apply(acts[(x % acts.len() as u64) as usize])
            .expect("an offered action applies");
    }
    drawn.extend_from_slice(&g.state().discarded()[seen_discards..]);
    (g, drawn)
}

/// T-river-8 — R1-2, R1-3: the spring starts the game at (0,0), water east; the ten river
/// tiles are drawn first, the lake eleventh, then the main stack, which holds all four
/// copies of the base start tile; the river ends as one chain from the spring to the lake.
#[test]
fn t_river_8_spring_first_river_stack_then_lake() {
    let r = rules(&["river"], &[]);
    let spring = kind(&r, "RI/s");
    let lake = kind(&r, "RI.1/I.e");
    let base_start = kind(&r, "BA/RCr");
    let river_set = |k: TileKindId| r.tiles().get(k).set == "river";
    for seed in 0..40 {
        let setup = GameSetup::new(vec!["R".into(), "B".into()], seed);
        let g = Game::new(Arc::clone(&r), &setup).expect("the game starts");
        let start = g.state().board().at(Pos::new(0, 0)).expect("a start tile");
        assert_eq!((start.kind, start.rotation), (spring, Rotation::R0), "R1-2");
        let in_pack = |k: TileKindId| {
            g.state()
                .supply()
                .groups
                .iter()
                .flat_map(|grp| grp.tiles.iter())
                .filter(|t| **t == k)
                .count()
        };
        assert_eq!(
            in_pack(base_start),
            4,
            "R1-2: the base start tile is in the pack"
        );
        assert_eq!(in_pack(spring), 0);
        let (g, drawn) = draws_of_a_game(&r, seed);
        assert!(
            drawn[..10].iter().all(|k| river_set(*k) && *k != lake),
            "R1-3: {seed}"
        );
        assert_eq!(
            drawn[10], lake,
            "R1-3: the lake is the eleventh draw ({seed})"
        );
        assert!(drawn[11..].iter().all(|k| !river_set(*k)), "R1-3: {seed}");
        // Every drawn river tile was placed (in a lone river nothing blocks it).
        let placed_river = g
            .state()
            .board()
            .tiles()
            .iter()
            .filter(|t| river_set(t.kind))
            .count();
        let removed_river = g
            .state()
            .discarded()
            .iter()
            .filter(|k| river_set(**k))
            .count();
        assert_eq!(
            placed_river + removed_river,
            12,
            "seed {seed}: the spring and 11 drawn"
        );
    }
}

/// T-river-9 — R1-9: with River II, one spring, River I's lake left out, the fork first,
/// the 19 other river tiles (River I's ten, River II's nine) next in one group, the volcano
/// last; under FanCloisterZone's `riverLakes=per-branch` the pack holds two volcanoes.
#[test]
fn t_river_9_with_river_ii_one_river() {
    for (opts, volcanoes) in [
        (&[][..], 1),
        (&[("river2.riverLakes", "per-branch")][..], 2),
    ] {
        let r = rules(&["river", "river2"], opts);
        assert_eq!(
            r.tiles()
                .iter()
                .filter(|(_, k)| k.has_tag("river-spring"))
                .count(),
            1,
            "one spring kind"
        );
        let setup = GameSetup::new(vec!["R".into(), "B".into()], 7);
        let g = Game::new(Arc::clone(&r), &setup).expect("the game starts");
        assert_eq!(
            g.state().board().at(Pos::new(0, 0)).map(|t| t.kind),
            Some(kind(&r, "RI/s"))
        );
        let groups: Vec<(&str, Vec<&str>)> = g
            .state()
            .supply()
            .groups
            .iter()
            .map(|grp| {
                (
                    grp.name.as_str(),
                    grp.tiles
                        .iter()
                        .map(|t| r.tiles().get(*t).id.as_str())
                        .collect(),
                )
            })
            .collect();
        let names: Vec<&str> = groups.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["river-fork", "river", "river-lake", "default"]);
        // The fork is drawn at once (RV-2): the first decision places it.
        assert!(groups[0].1.is_empty());
        assert_eq!(
            g.decision().kind,
            DecisionKind::PlaceTile {
                tile: kind(&r, "RI.2/III")
            }
        );
        let river = &groups[1].1;
        assert_eq!(river.len(), 19);
        assert_eq!(
            river.iter().filter(|id| id.starts_with("RI.1/")).count(),
            10
        );
        assert!(river.contains(&"RI.2/IFC"));
        assert_eq!(groups[2].1, vec!["RI.2/I.v"; volcanoes]);
        assert!(groups.iter().all(|(_, t)| !t.contains(&"RI.1/I.e")), "R1-9");
        // Then the mixed river, then the volcano(es), then the main stack.
        let (_, drawn) = draws_of_a_game(&r, 7);
        let id = |k: &TileKindId| r.tiles().get(*k).id.as_str();
        assert_eq!(id(&drawn[0]), "RI.2/III");
        assert!(drawn[1..20].iter().all(|k| id(k).starts_with("RI.")));
        assert!(drawn[20..20 + volcanoes]
            .iter()
            .all(|k| id(k) == "RI.2/I.v"));
        assert!(drawn[20 + volcanoes..]
            .iter()
            .all(|k| !id(k).starts_with("RI")));
    }
}

/// River I's placements never offer a tile that breaks R1-4 … R1-6 in a real game: every
/// placed river tile touches exactly one earlier river tile (one chain from the spring).
#[test]
fn river_i_games_keep_one_chain() {
    let r = rules(&["river"], &[("river.riverLookahead", "true")]);
    for seed in 0..20 {
        let (g, _) = draws_of_a_game(&r, seed);
        let board = g.state().board();
        let code = r.kind_named("river").expect("river kind").0 + 1;
        let mut contacts = 0;
        let mut tiles = 0;
        for t in board.tiles() {
            let tk = r.tiles().get(t.kind);
            let water: Vec<_> = carcassonne_core::Side::ALL
                .into_iter()
                .filter(|s| tk.edge_at(t.rotation, *s) == code)
                .collect();
            if water.is_empty() {
                continue;
            }
            tiles += 1;
            contacts += water
                .iter()
                .filter(|s| board.is_occupied(t.pos.step(**s)))
                .count();
        }
        assert_eq!(contacts / 2 + 1, tiles, "seed {seed}: one chain");
    }
}
