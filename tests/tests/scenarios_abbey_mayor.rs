//! Scenario tests T-106 … T-129 of `shared/rules/spec-inns-traders-abbey.md` part E:
//! Abbey & Mayor, loaded from `expansions/abbey-mayor` as the program loads it (manifest,
//! tile file, plugin library). One test per T-id; the data is in
//! `tests/scenarios/abbey-mayor/T-xx.toml`.

use carcassonne_tests::run_scenario;

/// T-106 — AM-3, AM-4: the abbey instead of a draw, only into a hole, any rotation; no hole, no choice.
#[test]
fn t106_am3_am4_abbey_only_into_a_hole() {
    run_scenario("abbey-mayor/T-106");
}

/// T-107 — AM-5 … AM-7: the abbey closes B's city (+4), completes R's cloister (+9) and itself (+9).
#[test]
fn t107_am7_abbey_scores_what_it_completes() {
    run_scenario("abbey-mayor/T-107");
}

/// T-108 — AM-9: the final abbey round after the last land tile, and abbeyFinalRound=off.
#[test]
fn t108_am9_final_abbey_round() {
    run_scenario("abbey-mayor/T-108");
}

/// T-111 — AM-11, AM-13: a mayor in a 3-pennant city beats two knights, complete and at the end.
#[test]
fn t111_am11_mayor_strength_is_pennants() {
    run_scenario("abbey-mayor/T-111");
}

/// T-112 — AM-12: a mayor-only city without pennants scores for nobody (and allows no CoC
/// deployment).
#[test]
fn t112_am12_mayor_without_pennants_scores_nothing() {
    run_scenario("abbey-mayor/T-112");
}

/// T-114 — AM-10, AM-14: the mayor only on cities; the wagon on a cloister.
#[test]
fn t114_am10_mayor_only_on_cities() {
    run_scenario("abbey-mayor/T-114");
}

/// T-115 — AM-15, AM-16: wagon targets under C1 and C2.
#[test]
fn t115_am16_wagon_targets_c1_c2() {
    run_scenario("abbey-mayor/T-115");
}

/// T-116 — AM-15, AM-16: two wagons, active player first.
#[test]
fn t116_am15_two_wagons_in_order() {
    run_scenario("abbey-mayor/T-116");
}

/// T-118 — AM-16 (iv), AMQ-3: a road closed by an abbey connects to it.
#[test]
fn t118_am16_wagon_onto_the_abbey() {
    run_scenario("abbey-mayor/T-118");
}

/// T-119 — AM-20, AM-21: barn corners.
#[test]
fn t119_am20_barn_corners() {
    run_scenario("abbey-mayor/T-119");
}

/// T-121 — AM-22, AM-25: barn placement and final scoring.
#[test]
fn t121_am22_am25_barn_scoring() {
    run_scenario("abbey-mayor/T-121");
}

/// T-129 — AM-7, AMQ-9: an abbey at the end; a 1-tile city closed by an abbey.
#[test]
fn t129_am7_abbey_final_and_one_tile_city() {
    run_scenario("abbey-mayor/T-129");
}

/// T-109 — AM-4, AM-31, HS-3, HS-4: the abbey is a cloister for the shrine limits.
#[test]
fn t109_am4_shrine_limits_on_the_abbey() {
    run_scenario("abbey-mayor/T-109");
}

/// T-110 — TB-15, AM-3, AM-9: the abbey as the builder's second part, also after the last tile.
#[test]
fn t110_tb15_abbey_in_the_builder_part() {
    run_scenario("abbey-mayor/T-110");
}

/// T-117 — AM-17, AMQ-4: a wagon on a building that loses a challenge.
#[test]
fn t117_am17_wagon_losing_a_challenge() {
    run_scenario("abbey-mayor/T-117");
}

/// T-128 — AM-8: the abbey's placer takes the goods and the King.
#[test]
fn t128_am8_abbey_placer_completes() {
    run_scenario("abbey-mayor/T-128");
}

/// T-113 — AM-11, AM-13, IC-24: a mayor's pennants against a big follower in a cathedral city.
#[test]
fn t113_am11_mayor_in_a_cathedral_city() {
    run_scenario("abbey-mayor/T-113");
}

/// T-122 — AM-24, TB-20, TBQ-5: join scoring of a farm joined to a barn's farm, with a pig.
#[test]
fn t122_am24_barn_join_scoring() {
    run_scenario("abbey-mayor/T-122");
}

/// T-123 — AM-25, AMQ-5: two barn owners in one farm at the end.
#[test]
fn t123_am25_two_barns_at_the_end() {
    run_scenario("abbey-mayor/T-123");
}

/// T-120 — AM-22, AM-28, CO-4: barn placement scoring with a pig; the CoC deployment it allows.
#[test]
fn t120_am28_barn_scoring_and_the_coc() {
    run_scenario("abbey-mayor/T-120");
}

/// T-125 — AM-28, CO-9, CO-10: mayor and wagon redeployed from the CoC; the wagon then moves.
#[test]
fn t125_am28_mayor_and_wagon_redeployed() {
    run_scenario("abbey-mayor/T-125");
}

/// T-127 — AM-32, AT-5, AT-8: a Tactician wagon on a completed road scores and may then move.
#[test]
fn t127_am32_tactician_wagon_then_moves() {
    run_scenario("abbey-mayor/T-127");
}

/// T-124 (join) — AM-24 with CO-10: a farm the placement joined to a barn's farm is a target
/// of the Count's round, before its join scoring (JCZ's `CocScoringPhase`).
#[test]
fn t124_join_the_count_reaches_a_farm_joined_to_a_barn() {
    run_scenario("abbey-mayor/T-124-join");
}

/// T-124 (pig) — AM-23 with TB-20 and AM-24: the printed rule keeps a pig off a farm the
/// placement joined to a barn's farm; JCZ's reading (`barnFarmFigures=non-followers`) lets it
/// join its owner's farmer there, scored with him at once.
#[test]
fn t124_pig_a_pig_on_a_farm_joined_to_a_barn() {
    run_scenario("abbey-mayor/T-124-pig");
}

/// T-124 — AM-28, CO-13: the market redeploys onto a barn's farm before its placement scoring; CO-4 after it.
#[test]
fn t124_am28_market_onto_a_barn_farm() {
    run_scenario("abbey-mayor/T-124");
}

/// T-126 — AM-33, PR-5, PR-6, AP-5: Promotions discs under a wagon and a farmer at a barn scoring.
#[test]
fn t126_am33_promotions_wagon_and_barn_farmers() {
    run_scenario("abbey-mayor/T-126");
}

/// AM-9 with A-4: the supply's last tile fits nowhere; the final abbey round still runs
/// from the drawer's left (JCZ's `AbbeyEndGamePhase` after an empty tile step).
#[test]
fn am9_final_round_after_a_discarded_last_tile() {
    run_scenario("abbey-mayor/AM-9-discard");
}

/// A seeded random game of `rules` (2 players for an even seed, 3 for an odd one), `check`
/// called with the state at every decision; the finished game and its player count.
fn random_game(
    rules: &std::sync::Arc<carcassonne_core::Ruleset>,
    seed: u64,
    mut check: impl FnMut(&carcassonne_core::GameState),
) -> (carcassonne_core::Game, usize) {
    use carcassonne_core::{Game, GameSetup};
    use carcassonne_play::bots::make_bot;
    let players = 2 + (seed % 2) as usize;
    let names = (0..players).map(|i| format!("P{i}")).collect();
    let mut g =
        Game::new(std::sync::Arc::clone(rules), &GameSetup::new(names, seed)).expect("game");
    let mut bot = make_bot("random", seed).expect("bot");
    let mut steps = 0;
    while !g.is_over() {
        check(g.state());
        let a = g.actions()[bot.choose(&g)];
        g.apply(a).expect("an offered action applies");
        steps += 1;
        assert!(steps < 2000, "seed {seed}: the game does not end");
    }
    (g, players)
}

/// AM-3, AM-9: the abbey's turn hooks (the `BeforeDraw` window, `on_tile_drawn`,
/// `on_turn_end`) run only while the game slot `abbey-live` is not 0 (`HookGate`). At every
/// decision of seeded random 2- and 3-player games the slot is 1 exactly while a player
/// still holds his abbey or the final abbey round is on; the abbeys go down and the games
/// end with every tile placed (none is left in the supply).
#[test]
fn abbey_hooks_are_gated_while_an_abbey_is_held() {
    use carcassonne_core::PlayerId;
    use carcassonne_tests::mixed::slot;
    use carcassonne_tests::official_rules;
    let rules = official_rules(&["abbey-mayor"], &[]);
    let live = slot(&rules, "abbey-mayor", "abbey-live");
    let held = slot(&rules, "abbey-mayor", "abbey");
    let final_end = slot(&rules, "abbey-mayor", "final-round-end");
    let (mut closed, mut placed) = (0, 0);
    for seed in 0..40u64 {
        let (g, players) = random_game(&rules, seed, |st| {
            let players = st.players().len();
            let anyone = (0..players).any(|p| st.slot(held, PlayerId(p as u8).index()) > 0);
            let expect = anyone || st.slot(final_end, 0) != 0;
            assert_eq!(
                st.slot(live, 0) != 0,
                expect,
                "seed {seed}, turn {}: abbey-live against the abbeys held",
                st.turn()
            );
            closed += usize::from(!expect);
        });
        let st = g.state();
        placed += (0..players)
            .filter(|&p| st.slot(held, PlayerId(p as u8).index()) == 0)
            .count();
        assert_eq!(st.supply().remaining(), 0, "seed {seed}: tiles left");
    }
    // The gate was closed for part of the games: both (all three) abbeys went down early.
    assert!(closed > 0 && placed > 0, "closed {closed}, placed {placed}");
}

/// AM-24: `on_tile_placed` runs only while the game slot `barn-gate` is not 0
/// (`HookGate`): from the first placement on, at every decision of seeded random 2- and
/// 3-player games (alone and beside Traders & Builders) the gate is open exactly while a
/// barn is out of its owner's supply, so the hook is never skipped when it could act; the
/// gate was shut in some turns and barns went out in some games.
#[test]
fn barn_gate_is_open_exactly_while_a_barn_is_out() {
    use carcassonne_core::FigureLoc;
    use carcassonne_tests::mixed::slot;
    use carcassonne_tests::official_rules;
    let (mut shut, mut out) = (0, 0);
    for sets in [&["abbey-mayor"][..], &["abbey-mayor", "traders-builders"]] {
        let rules = official_rules(sets, &[]);
        let gate = slot(&rules, "abbey-mayor", "barn-gate");
        let barn = rules
            .figure_kinds()
            .iter()
            .position(|k| k.name == "barn")
            .expect("the barn");
        for seed in 0..30u64 {
            random_game(&rules, seed, |st| {
                let barn_out = st
                    .figures()
                    .iter()
                    .any(|f| f.kind.0 as usize == barn && f.loc != FigureLoc::Supply);
                if st.board().tiles().len() > 1 {
                    assert_eq!(
                        st.slot(gate, 0) != 0,
                        barn_out,
                        "{sets:?}, seed {seed}, turn {}: barn-gate against the barns out",
                        st.turn()
                    );
                }
                shut += usize::from(st.slot(gate, 0) == 0);
                out += usize::from(barn_out);
            });
        }
    }
    assert!(shut > 0 && out > 0, "shut {shut}, out {out}");
}

/// AM-16 (`C2`), PD-5: a road target that runs through the dragon's tile is offered through
/// its segment on another tile of the 3 × 3 (JCZ's `WagonPhase` offers every segment and
/// bars only those on the dragon's tile; issue 31).
#[test]
fn am16_wagon_target_beside_the_dragon() {
    run_scenario("abbey-mayor/AM-16-dragon");
}

/// AM-20, AM-21: the barn offers of every deployment step of seeded random 2- and 3-player
/// games (alone and beside Traders & Builders) are the corners of the placed tile where four
/// tiles meet, each with one field covering both half-edges at that corner, in corner order,
/// on farms without a barn: read here tile by tile from the tile kinds, not from the
/// plugin's per-kind tables (`corner_bits`, `barn_corner_mask`). After each placement by a
/// player holding his barn, the deployment step offers exactly these (a step without any is
/// no decision); some were offered and some placements had none.
#[test]
fn barn_offers_are_the_corners_where_four_fields_meet() {
    use carcassonne_core::{
        Action, DecisionKind, FigureLoc, GameState, HalfEdge, PlacedTile, Pos, Ruleset,
    };
    use carcassonne_tests::official_rules;
    // The two half-edges at corner c (0 NW, 1 NE, 2 SE, 3 SW), and the four tiles there:
    // offset from the placed tile and their corner.
    const HALVES: [(u8, u8); 4] = [(7, 0), (1, 2), (3, 4), (5, 6)];
    const TILES: [[(i32, i32, usize); 4]; 4] = [
        [(0, 0, 0), (-1, 0, 1), (-1, -1, 2), (0, -1, 3)],
        [(0, 0, 1), (1, 0, 0), (1, -1, 3), (0, -1, 2)],
        [(0, 0, 2), (1, 0, 3), (1, 1, 0), (0, 1, 1)],
        [(0, 0, 3), (-1, 0, 2), (-1, 1, 1), (0, 1, 0)],
    ];
    fn field_at(rules: &Ruleset, t: &PlacedTile, c: usize) -> Option<u8> {
        let k = rules.tiles().get(t.kind);
        let (a, b) = HALVES[c];
        let sa = k.segment_on_half(t.rotation, HalfEdge::from_index(a))?;
        let sb = k.segment_on_half(t.rotation, HalfEdge::from_index(b))?;
        (sa == sb && !k.barrier).then_some(sa)
    }
    fn expected(rules: &Ruleset, st: &GameState, barn: usize) -> Vec<(usize, u32)> {
        let board = st.board();
        let Some(t) = st.last_placed().map(|i| *board.tile(i)) else {
            return Vec::new();
        };
        let g = st.graph();
        let barn_farms: Vec<_> = st
            .figures()
            .iter()
            .filter_map(|f| match f.loc {
                FigureLoc::On(s) if f.kind.0 as usize == barn => Some(g.feature_of(s)),
                _ => None,
            })
            .collect();
        (0..4)
            .filter_map(|c| {
                let all = TILES[c].iter().all(|&(dx, dy, cc)| {
                    board
                        .at(Pos::new(t.pos.x + dx, t.pos.y + dy))
                        .is_some_and(|n| field_at(rules, n, cc).is_some())
                });
                let seg = t.segment(usize::from(field_at(rules, &t, c)?));
                (all && !barn_farms.contains(&g.feature_of(seg))).then_some((c, seg.index() as u32))
            })
            .collect()
    }
    let (mut offered, mut without) = (0, 0);
    for sets in [&["abbey-mayor"][..], &["abbey-mayor", "traders-builders"]] {
        let rules = official_rules(sets, &[]);
        let me = rules.expansion_index("abbey-mayor").expect("loaded");
        let verb = rules.verb_named(me, "barn").expect("the barn verb");
        let barn = rules
            .figure_kinds()
            .iter()
            .position(|k| k.name == "barn")
            .expect("the barn");
        for seed in 0..30u64 {
            use carcassonne_core::{Game, GameSetup};
            use carcassonne_play::bots::make_bot;
            let players = 2 + (seed % 2) as usize;
            let names = (0..players).map(|i| format!("P{i}")).collect();
            let mut g = Game::new(std::sync::Arc::clone(&rules), &GameSetup::new(names, seed))
                .expect("game");
            let mut bot = make_bot("random", seed).expect("bot");
            while !g.is_over() {
                let d = g.state().decision();
                let a = g.actions()[bot.choose(&g)];
                let holds = g
                    .state()
                    .in_supply(d.player, carcassonne_core::FigureKindId(barn as u8))
                    > 0;
                g.apply(a).expect("an offered action applies");
                if !(matches!(d.kind, DecisionKind::PlaceTile { .. })
                    && matches!(a, Action::Place { .. })
                    && holds)
                {
                    continue;
                }
                let st = g.state();
                let want = expected(&rules, st, barn);
                let got: Vec<(usize, u32)> = match st.decision().kind {
                    DecisionKind::Deploy { .. } if st.decision().player == d.player => g
                        .actions()
                        .iter()
                        .filter_map(|a| match a {
                            Action::Custom(c) if c.expansion == me && c.verb == verb => Some((
                                c.value as usize,
                                c.segment.expect("a segment").index() as u32,
                            )),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                assert_eq!(got, want, "{sets:?}, seed {seed}, turn {}", st.turn());
                if want.is_empty() {
                    without += 1;
                } else {
                    offered += 1;
                }
            }
        }
    }
    assert!(
        offered > 0 && without > 0,
        "offered {offered}, without {without}"
    );
}

/// AM-16 C1 on a tile whose two cities share a link (IC/CRCR): never connected by default,
/// connected under `wagonCityLinks=linked` (JCZ's `wagon-move` groups).
#[test]
fn am_16_two_linked_cities() {
    run_scenario("abbey-mayor/AM-16-city-links");
}

/// AM-16 C1 with King & Robber's tile links: KR/RC's road runs into its city.
#[test]
fn am_16_king_robber_tile_links() {
    run_scenario("abbey-mayor/AM-16-kr-link");
}

/// AM-16 (iv), AMQ-3: a wagon scored on an abbey may go to a road its edge closes, unless
/// `wagonAbbeyLinks=into-abbey` (JCZ).
#[test]
fn am_16_out_of_an_abbey() {
    run_scenario("abbey-mayor/AM-16-abbey-out");
}

/// AM-16 (i) on a tile without link tags: a junction by the printed definition, nothing
/// under `wagonJunctions=tagged` (JCZ).
#[test]
fn am_16_a_junction_on_an_untagged_tile() {
    run_scenario("abbey-mayor/AM-16-untagged");
}
