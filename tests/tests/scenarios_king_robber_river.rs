//! Scenario tests T-31 … T-42 of `shared/rules/spec.md` part E: King & Robber Baron
//! (B.2, KR-1 … KR-7) and River II (B.3, RV-1 … RV-10), loaded from `expansions/king-robber`,
//! `expansions/river2` (and `expansions/count` where the City of Carcassonne is involved)
//! as the program loads them. One test per T-id; the data is in
//! `tests/scenarios/king-robber/T-3x.toml` and `tests/scenarios/river2/T-xx.toml`.
//!
//! Scenarios start from [`carcassonne_core::Game::from_position`], which lays exactly the
//! listed tiles and draws exactly the listed tiles, so the set-up River II does in a real
//! new game (the spring as start tile, the fork / river / lake draw groups, the spring
//! attached to the City of Carcassonne) cannot be seen there. The tests after the scenario
//! tests play real games from [`carcassonne_core::Game::new`] on a few seeds for those
//! facts (RV-1 … RV-3, RV-8, RV-10 and the set-up half of T-42).

use carcassonne_core::{
    Action, DecisionKind, Game, GameSetup, Pos, Rotation, Ruleset, Side, TileKindId,
};
use carcassonne_tests::{official_rules as rules, run_scenario};
use std::sync::Arc;

// ---------------------------------------------------------------------------------------
// King & Robber Baron
// ---------------------------------------------------------------------------------------

/// T-31 — KR-2, KR-6: R completes the first city of the game (2 tiles, empty) → R gets the
/// King (record 2) and scores +1 at the end; the variant has B complete a city holding only
/// R's knight → the King goes to B, the placer (knights are irrelevant).
#[test]
fn t31_kr2_first_completed_city_gives_the_king_to_the_placer() {
    run_scenario("king-robber/T-31");
}

/// T-32 — KR-3: record 3 held by R; B's 3-tile city only equals it (no change), G's 4-tile
/// city beats it → King to G, record 4.
#[test]
fn t32_kr3_king_moves_only_on_a_strictly_bigger_city() {
    run_scenario("king-robber/T-32");
}

/// T-33 — KR-3, KR-4: size is distinct tiles, not points. Record 4: B's 3-tile pennant city
/// (8 points) → no change; B's later 5-tile city → King to B. Variants: 8 points against a
/// record of 3 tiles (no change); a city of 6 distinct tiles but 7 segments (KR/CCcc, KR-1)
/// counts 6.
#[test]
fn t33_kr4_size_is_tiles_not_points() {
    run_scenario("king-robber/T-33");
}

/// T-34 — KR-3: R holds the King (record 3), completes 6 tiles → keeps it, record 6; B's
/// 5-tile city then changes nothing.
#[test]
fn t34_kr3_holder_raises_the_record() {
    run_scenario("king-robber/T-34");
}

/// T-35 — KR-4: one B tile completes a 3-tile and a 5-tile city against record 4 → King to
/// B, record 5 (against record 5: no change).
#[test]
fn t35_kr4_largest_city_of_one_placement_against_the_old_record() {
    run_scenario("king-robber/T-35");
}

/// T-36 — KR-5: Robber record 4: B's 4-tile road → no change; B closes a 6-tile loop (only
/// R's thief on it) → Robber Baron to B, +1 per completed road at the end.
#[test]
fn t36_kr5_robber_baron_for_a_longer_road() {
    run_scenario("king-robber/T-36");
}

/// T-37 — KR-6: at the end, 7 completed cities (one occupied, the rest empty), 3 incomplete,
/// with the Count's City of Carcassonne → King +8 (without the Count: +7); 5 completed roads
/// and an incomplete one → Robber +5.
#[test]
fn t37_kr6_final_bonus_counts_completed_features_and_the_coc() {
    run_scenario("king-robber/T-37");
}

// The award modes of KR-7 (JCloisterZone's `king-and-robber-scoring`, read as its engine
// scores them). One position for all three: B's last tile completes a 3-tile city and two
// roads (3 and 2 tiles) while R holds both titles. The JCZ saves
// `tests/jcz/king-and-robber-*.jcz`, `king-continuous-scoring.jcz` and
// `robber-continuous-scoring.jcz` check the same readings through a replay.

/// KR-7 `10/20`: 10 points per title at the end (B's King, R's Robber: 10 each); a player
/// holding both gets 10 + 10 = 20 in two events.
#[test]
fn kr7_award_10_20_is_ten_per_title() {
    run_scenario("king-robber/KR-7-10-20");
}

/// KR-7 `15/40`: 15 for a player holding one title; a player holding both gets 40 in one
/// `king+robber` event (not 15 + 40), whether or not he placed the last tile.
#[test]
fn kr7_award_15_40_is_fifteen_or_forty_for_both() {
    run_scenario("king-robber/KR-7-15-40");
}

/// KR-7 `continuously`: the holder from BEFORE the placement scores +1 per completed city
/// (road), then the title changes hands (R +1, +2, both titles to B); without a handover
/// the holder scores all the same; the first city and roads of the game score nobody; no
/// end bonus.
#[test]
fn kr7_award_continuously_pays_the_holder_before_the_change() {
    run_scenario("king-robber/KR-7-continuously");
}

// ---------------------------------------------------------------------------------------
// River II
// ---------------------------------------------------------------------------------------

/// T-38 — RV-5 (with RV-4): after a right turn at (1,-3), FFWW at (2,-3) (a second right
/// turn) is illegal and WFFW (left) legal; the exact placements of the drawn curve.
#[test]
fn t38_rv5_no_immediate_u_turn() {
    run_scenario("river2/T-38");
}

/// T-39 — RV-2, RV-6, RV-8: R's fork goes on the spring; the branches are bent until both
/// face (0,-3); the straight that would join them there is not offered, so it and every
/// other remaining river tile are removed.
#[test]
fn t39_rv6_branches_never_join() {
    run_scenario("river2/T-39");
}

/// T-40 — RV-8: a river curve with no legal spot is removed and R draws the next
/// river tile.
#[test]
fn t40_rv8_unplaceable_river_tile_is_removed() {
    run_scenario("river2/T-40");
}

/// T-41 — RV-9: on the straight FWFW(M) and on the road tile followers may go on fields,
/// the cloister or the road, never on the water (and the spring joins the fields of both
/// banks).
#[test]
fn t41_rv9_no_follower_on_the_water() {
    run_scenario("river2/T-41");
}

/// T-42 — RV-10, RV-8: with the City of Carcassonne laid by hand and a river whose ends are
/// dead, the remaining river tiles are removed and play goes on with normal tiles. The
/// spring's placement in a real game: [`t42_rv10_spring_beside_the_city_of_carcassonne`].
#[test]
fn t42_rv10_river_with_the_coc_removes_dead_river_tiles() {
    run_scenario("river2/T-42");
}

// ---------------------------------------------------------------------------------------
// Real games (Game::new)
// ---------------------------------------------------------------------------------------

fn new_game(rules: &Arc<Ruleset>, seed: u64) -> Game {
    let setup = GameSetup::new(
        ["R", "B", "G", "Y"].iter().map(|s| s.to_string()).collect(),
        seed,
    );
    Game::new(Arc::clone(rules), &setup).expect("the game starts")
}

fn kind(rules: &Ruleset, id: &str) -> TileKindId {
    rules
        .tiles()
        .find(id)
        .unwrap_or_else(|| panic!("tile {id} is loaded"))
}

fn is_river(rules: &Ruleset, k: TileKindId) -> bool {
    rules.tiles().get(k).set == "river2"
}

/// One tile as it left the supply: placed (where) or removed from the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Drawn {
    Placed(TileKindId, Pos, Rotation),
    Discarded(TileKindId),
}

impl Drawn {
    fn kind(self) -> TileKindId {
        match self {
            Drawn::Placed(k, ..) | Drawn::Discarded(k) => k,
        }
    }
}

/// Plays `game` to its end with deterministic pseudo-random choices among the offered
/// actions; returns every drawn tile in draw order. Whenever a river tile is drawn, the
/// offered placements must be exactly those of [`river_oracle`], and a removed river tile
/// must have none.
fn play_out(game: &mut Game, seed: u64) -> Vec<Drawn> {
    let rules = Arc::clone(game.rules());
    let mut out = Vec::new();
    let mut seen_discards = 0;
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for _ in 0..20_000 {
        for k in &game.state().discarded()[seen_discards..] {
            if is_river(&rules, *k) {
                assert_eq!(
                    river_oracle(&rules, game, *k),
                    Vec::new(),
                    "seed {seed}: river tile {} removed though it fits",
                    rules.tiles().get(*k).id
                );
            }
            out.push(Drawn::Discarded(*k));
        }
        seen_discards = game.state().discards().len();
        if game.is_over() {
            return out;
        }
        if let DecisionKind::PlaceTile { tile } = game.decision().kind {
            if is_river(&rules, tile) {
                let mut offered: Vec<(Pos, Rotation)> = game
                    .actions()
                    .iter()
                    .filter_map(|a| match a {
                        Action::Place { pos, rotation } => Some((*pos, *rotation)),
                        _ => None,
                    })
                    .collect();
                offered.sort_by_key(|(p, r)| (p.x, p.y, r.quarters()));
                assert_eq!(
                    offered,
                    river_oracle(&rules, game, tile),
                    "seed {seed}: placements of {}",
                    rules.tiles().get(tile).id
                );
            }
        }
        let acts = game.actions().to_vec();
        assert!(!acts.is_empty(), "no action offered: {:?}", game.decision());
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let a = acts[(x % acts.len() as u64) as usize];
        if let (DecisionKind::PlaceTile { tile }, Action::Place { pos, rotation }) =
            (game.decision().kind, a)
        {
            out.push(Drawn::Placed(tile, pos, rotation));
        }
        game.apply(a).expect("an offered action applies");
    }
    panic!("the game did not end");
}

/// The side a clockwise quarter turn of `s` gives.
fn clockwise(s: Side) -> Side {
    Side::from_index(s.index() + 1)
}

/// +1 right turn, -1 left turn, 0 straight, for water entering through `entry` and leaving
/// through `exit`.
fn turn(entry: Side, exit: Side) -> i8 {
    let heading = entry.opposite();
    if exit == heading {
        0
    } else if exit == clockwise(heading) {
        1
    } else {
        -1
    }
}

/// An independent reading of A-3 and RV-4 … RV-7 (DEFAULT, no look-ahead): every (cell,
/// rotation) where the river tile `tile` may go on the current board, sorted.
fn river_oracle(rules: &Ruleset, game: &Game, tile: TileKindId) -> Vec<(Pos, Rotation)> {
    let code = rules.kind_named("river").expect("river kind").0 + 1;
    let board = game.state().board();
    let tk = rules.tiles().get(tile);
    let water = |k: &carcassonne_core::TileKind, r: Rotation| -> Vec<Side> {
        Side::ALL
            .into_iter()
            .filter(|s| k.edge_at(r, *s) == code)
            .collect()
    };
    let mut cells: Vec<Pos> = board
        .tiles()
        .iter()
        .flat_map(|t| Side::ALL.map(|s| t.pos.step(s)))
        .filter(|p| !board.is_occupied(*p))
        .collect();
    cells.sort_by_key(|p| (p.x, p.y));
    cells.dedup();
    let mut out = Vec::new();
    for p in cells {
        for r in Rotation::ALL {
            // every touching edge matches.
            let fits = Side::ALL.into_iter().all(|s| match board.at(p.step(s)) {
                Some(n) => {
                    rules.tiles().get(n.kind).edge_at(n.rotation, s.opposite()) == tk.edge_at(r, s)
                }
                None => true,
            });
            if !fits {
                continue;
            }
            // RV-4, RV-6 (and RV-7's safeguard): exactly one water edge meets the river.
            let ws = water(tk, r);
            let joined: Vec<Side> = ws
                .iter()
                .copied()
                .filter(|s| board.is_occupied(p.step(*s)))
                .collect();
            if joined.len() != 1 {
                continue;
            }
            let entry = joined[0];
            // RV-5: a curve does not turn the way the curve it continues turned.
            if ws.len() == 2 {
                let exit = if ws[0] == entry { ws[1] } else { ws[0] };
                let t = turn(entry, exit);
                let prev = board.at(p.step(entry)).expect("the river tile continued");
                let pw = water(rules.tiles().get(prev.kind), prev.rotation);
                if t != 0 && pw.len() == 2 {
                    let prev_exit = entry.opposite();
                    let prev_entry = if pw[0] == prev_exit { pw[1] } else { pw[0] };
                    if turn(prev_entry, prev_exit) == t {
                        continue;
                    }
                }
            }
            out.push((p, r));
        }
    }
    out.sort_by_key(|(p, r)| (p.x, p.y, r.quarters()));
    out
}

/// Total tiles of the ruleset (every copy).
fn all_tiles(rules: &Ruleset) -> usize {
    rules.tiles().iter().map(|(_, k)| k.count as usize).sum()
}

/// RV-1, RV-2, RV-3 (DEFAULT `volcano-last`): the spring is the start tile at (0,0) and the
/// normal start tile stays in the pack; the fork is the first tile drawn and goes on the
/// spring; then the 9 tiles of the shuffled river stack (the river-into-city end among
/// them), then the volcano, then the normal tiles. Every tile ends on the board or removed,
/// and the game ends.
#[test]
fn rv1_rv3_river_first_with_the_volcano_last() {
    let r = rules(&["river2"], &[]);
    let spring = kind(&r, "RI/s");
    let fork = kind(&r, "RI.2/III");
    let volcano = kind(&r, "RI.2/I.v");
    let city_end = kind(&r, "RI.2/IFC");
    let d = kind(&r, "D");
    let mut city_end_places = Vec::new();
    for seed in 0..12 {
        let mut g = new_game(&r, seed);
        let board = g.state().board();
        assert_eq!(board.tiles().len(), 1, "seed {seed}: one start tile");
        let start = board.at(Pos::new(0, 0)).expect("a start tile at (0,0)");
        assert_eq!(
            (start.kind, start.rotation),
            (spring, Rotation::R0),
            "seed {seed}"
        );
        assert_eq!(
            g.decision().kind,
            DecisionKind::PlaceTile { tile: fork },
            "seed {seed}: R's first tile is the fork"
        );
        assert_eq!(g.decision().player.0, 0, "seed {seed}: the first player");
        // RV-2: the fork only goes on the spring's water (RI/s at rotation 0 shows FWFF:
        // water to the east).
        assert!(
            g.actions()
                .iter()
                .all(|a| matches!(a, Action::Place { pos, .. } if *pos == Pos::new(1, 0))),
            "seed {seed}: fork placements {:?}",
            g.actions()
        );
        let drawn = play_out(&mut g, seed);
        assert!(g.is_over(), "seed {seed}");
        assert_eq!(
            drawn.len() + 1,
            all_tiles(&r),
            "seed {seed}: every tile drawn once"
        );
        assert!(
            matches!(drawn[0], Drawn::Placed(k, p, _) if k == fork && p == Pos::new(1, 0)),
            "seed {seed}: the fork goes on the spring's water: {:?}",
            drawn[0]
        );
        let stack: Vec<TileKindId> = drawn[1..10].iter().map(|t| t.kind()).collect();
        assert!(
            stack.iter().all(|k| is_river(&r, *k)),
            "seed {seed}: {stack:?}"
        );
        assert!(!stack.contains(&volcano) && !stack.contains(&fork) && !stack.contains(&spring));
        assert!(
            stack.contains(&city_end),
            "seed {seed}: the city end is in the river stack"
        );
        city_end_places.push(stack.iter().position(|k| *k == city_end).unwrap());
        assert_eq!(
            drawn[10].kind(),
            volcano,
            "seed {seed}: the volcano comes last"
        );
        assert!(
            drawn[11..].iter().all(|t| !is_river(&r, t.kind())),
            "seed {seed}: normal tiles after the river"
        );
        // DEFAULT: the normal start tile D is in the main stack (all 4 copies).
        assert_eq!(
            drawn.iter().filter(|t| t.kind() == d).count(),
            4,
            "seed {seed}"
        );
    }
    // Shuffled in: the river-into-city end does not always come last in the river stack.
    assert!(
        city_end_places.iter().any(|p| *p < 8),
        "the city end was always drawn late: {city_end_places:?}"
    );
}

/// RV-1, RV-3 OPTION `riverEnds=both-last`: the river-into-city end is held back with the
/// volcano; both come after the 8 other river tiles, in random order.
#[test]
fn rv3_both_ends_last() {
    let r = rules(&["river2"], &[("river2.riverEnds", "both-last")]);
    let fork = kind(&r, "RI.2/III");
    let volcano = kind(&r, "RI.2/I.v");
    let city_end = kind(&r, "RI.2/IFC");
    let mut orders = Vec::new();
    for seed in 0..16 {
        let mut g = new_game(&r, seed);
        assert_eq!(g.decision().kind, DecisionKind::PlaceTile { tile: fork });
        let drawn = play_out(&mut g, seed);
        assert!(g.is_over());
        let stack: Vec<TileKindId> = drawn[1..9].iter().map(|t| t.kind()).collect();
        assert!(stack.iter().all(|k| is_river(&r, *k)), "seed {seed}");
        assert!(
            !stack.contains(&volcano) && !stack.contains(&city_end),
            "seed {seed}"
        );
        let ends = [drawn[9].kind(), drawn[10].kind()];
        assert!(
            ends == [city_end, volcano] || ends == [volcano, city_end],
            "seed {seed}: {ends:?}"
        );
        orders.push(ends[0] == volcano);
        assert!(drawn[11..].iter().all(|t| !is_river(&r, t.kind())));
    }
    assert!(
        orders.contains(&true) && orders.contains(&false),
        "both end orders occur: {orders:?}"
    );
}

/// T-42 / RV-10 in a real new game with the Count: the City of Carcassonne is laid in the
/// JCZ layout, the spring at (2,-1), rotation 0, against the City's north-east tile CO/4
/// (field edge to field edge), its water edge facing the empty cell (3,-1); the first tile
/// drawn is the fork, which can only go there. Played out, every river tile ends on the
/// board or removed and the game reaches its end.
#[test]
fn t42_rv10_spring_beside_the_city_of_carcassonne() {
    let r = rules(&["count", "river2"], &[]);
    let spring = kind(&r, "RI/s");
    let fork = kind(&r, "RI.2/III");
    let river = r.kind_named("river").expect("the river feature kind");
    let code = river.0 + 1;
    for seed in 0..6 {
        let mut g = new_game(&r, seed);
        let board = g.state().board();
        assert_eq!(
            board.tiles().len(),
            13,
            "seed {seed}: 12 City tiles + the spring"
        );
        for (i, (x, y)) in (-1..=1)
            .flat_map(|y| (-2..=1).map(move |x| (x, y)))
            .enumerate()
        {
            let t = board.at(Pos::new(x, y)).expect("a City tile");
            assert_eq!(r.tiles().get(t.kind).id, format!("CO/{}", i + 1));
        }
        let s = board.at(Pos::new(2, -1)).expect("the spring at (2,-1)");
        assert_eq!((s.kind, s.rotation), (spring, Rotation::R0), "seed {seed}");
        let tk = r.tiles().get(spring);
        let water: Vec<Side> = Side::ALL
            .into_iter()
            .filter(|sd| tk.edge_at(Rotation::R0, *sd) == code)
            .collect();
        assert_eq!(water, vec![Side::E], "the spring's water faces east");
        assert!(
            !board.is_occupied(Pos::new(3, -1)),
            "its water faces an empty cell"
        );
        let ne = board.at(Pos::new(1, -1)).unwrap();
        assert_eq!(r.tiles().get(ne.kind).id, "CO/4");
        assert_eq!(tk.edge_at(Rotation::R0, Side::W), 0, "spring side: field");
        assert_eq!(
            r.tiles().get(ne.kind).edge_at(ne.rotation, Side::E),
            0,
            "City side: field"
        );
        assert_eq!(g.decision().kind, DecisionKind::PlaceTile { tile: fork });
        assert!(g
            .actions()
            .iter()
            .all(|a| matches!(a, Action::Place { pos, .. } if *pos == Pos::new(3, -1))));
        let drawn = play_out(&mut g, seed);
        assert!(g.is_over(), "seed {seed}");
        assert_eq!(drawn.len() + 13, all_tiles(&r), "seed {seed}");
        let rivers = drawn.iter().filter(|t| is_river(&r, t.kind())).count();
        assert_eq!(
            rivers, 11,
            "seed {seed}: all river tiles but the spring drawn"
        );
    }
}

/// T-42 / RV-8, RV-10: with the City of Carcassonne the river often runs dead (a branch
/// bends back towards the City or the other branch); the river tiles that fit nowhere are
/// removed, the rest of the river stack is still drawn first, and play continues with the
/// normal tiles to the end of the game.
#[test]
fn t42_rv8_dead_river_tiles_are_removed_and_play_continues() {
    let r = rules(&["count", "river2"], &[]);
    let mut games_with_removals = 0;
    for seed in 0..40 {
        let mut g = new_game(&r, seed);
        let drawn = play_out(&mut g, seed);
        assert!(g.is_over(), "seed {seed}");
        let last_river = drawn.iter().rposition(|t| is_river(&r, t.kind())).unwrap();
        assert_eq!(
            last_river, 10,
            "seed {seed}: the 11 river tiles are drawn first"
        );
        let removed: Vec<TileKindId> = drawn[..11]
            .iter()
            .filter_map(|t| match t {
                Drawn::Discarded(k) => Some(*k),
                Drawn::Placed(..) => None,
            })
            .collect();
        for (i, t) in drawn[..11].iter().enumerate() {
            match t {
                Drawn::Placed(k, p, _) => {
                    let on = g.state().board().at(*p).expect("placed tile on the board");
                    assert_eq!(on.kind, *k, "seed {seed}: river tile {i}");
                }
                Drawn::Discarded(k) => {
                    assert!(g.state().discarded().contains(k), "seed {seed}");
                }
            }
        }
        if !removed.is_empty() {
            games_with_removals += 1;
            // Play continued: normal tiles were placed after the river ran dead.
            assert!(
                drawn[11..].iter().any(|t| matches!(t, Drawn::Placed(..))),
                "seed {seed}: no normal tile placed after the river"
            );
        }
    }
    eprintln!("games with removed river tiles: {games_with_removals} of 40");
    assert!(
        games_with_removals > 0,
        "no seed removed a river tile; T-42's scenario file covers the case"
    );
}
