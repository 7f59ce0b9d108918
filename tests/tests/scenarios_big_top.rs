//! Scenario tests T-big-top-n of `docs/rules/big-top.md`: the big top, the acrobats and the
//! ringmaster,
//! loaded from `expansions/big-top` as the program loads it (manifest, tile file, plugin
//! library). The data is in `tests/scenarios/big-top/T-big-top-<n>.toml`; T-big-top-1 (the
//! supply) is code. Token reveals come from the scenario's seed: the titles say what it
//! reveals.

use carcassonne_core::{
    Action, DecisionKind, FigureKindId, Game, GameSetup, PlayerId, Pos, Position, PositionFigure,
    Rotation, ScoreSource, StartTile,
};
use carcassonne_tests::{official_rules, run_scenario};
use std::collections::BTreeMap;

/// Copies of each Under the Big Top tile id in a fresh game's supply.
fn supply_counts(options: &[(&str, &str)]) -> BTreeMap<String, usize> {
    carcassonne_tests::supply_counts(&official_rules(&["big-top"], options), "BT/")
}

/// T-big-top-1 — BT-1: the 20 tiles (12 circus, 8 acrobats); the second edition's twins.
#[test]
fn t_big_top_1_bt1_tiles() {
    let first = supply_counts(&[]);
    assert_eq!(first.values().sum::<usize>(), 20, "{first:?}");
    let circus: usize = first
        .iter()
        .filter(|(k, _)| k.ends_with(".bt"))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(circus, 12);
    assert_eq!(first.get("BT/ffrr.ac"), Some(&3));
    assert_eq!(first.get("BT/cfrf.bt"), Some(&2));
    assert_eq!(first.get("BT/ffff.g.ac"), None);
    let second = supply_counts(&[("big-top.edition", "2")]);
    assert_eq!(second.values().sum::<usize>(), 20);
    assert_eq!(second.get("BT/ffff.ac"), None);
    assert_eq!(second.get("BT/frrf.bt"), None);
    assert_eq!(second.get("BT/ffff.g.ac"), Some(&1));
    assert_eq!(second.get("BT/frrf.g.bt"), Some(&1));
}

/// T-big-top-14 — BT-1, BT-15: `edition = c1` deals FanCloisterZone's 20 `ubtc1/` tiles (12
/// circus, 8 acrobats) instead of the `BT/` ones; the other editions hold none of them.
#[test]
fn t_big_top_14_bt15_fcz_tiles() {
    let options = [("big-top.edition", "c1")];
    let rules = official_rules(&["big-top"], &options);
    let c1 = carcassonne_tests::supply_counts(&rules, "ubtc1/");
    assert_eq!(c1.values().sum::<usize>(), 20, "{c1:?}");
    assert!(c1.values().all(|&n| n == 1), "{c1:?}");
    let tagged = |tag: &str| {
        c1.keys()
            .filter(|id| {
                rules
                    .tiles()
                    .find(id)
                    .is_some_and(|k| rules.tiles().get(k).has_tag(tag))
            })
            .count()
    };
    assert_eq!((tagged("circus"), tagged("acrobats")), (12, 8));
    assert_eq!(c1.get("ubtc1/crfc.top"), Some(&1));
    assert_eq!(c1.get("ubtc1/frrf.ac"), Some(&1));
    assert!(supply_counts(&options).is_empty(), "no BT/ tile under c1");
    for edition in ["1", "2"] {
        let rules = official_rules(&["big-top"], &[("big-top.edition", edition)]);
        assert!(carcassonne_tests::supply_counts(&rules, "ubtc1/").is_empty());
    }
}

/// T-big-top-15 — BT-15, BT-4, BT-5, BT-8: FCZ's circus and acrobat tiles play as the others.
#[test]
fn t_big_top_15_bt15_fcz_tiles_play() {
    run_scenario("big-top/T-big-top-15");
}

/// T-big-top-16 — BT-16, BT-13: without the big top circus tiles score nobody, but count for
/// the ringmaster.
#[test]
fn t_big_top_16_bt16_no_big_top() {
    run_scenario("big-top/T-big-top-16");
}

/// T-big-top-17 — BT-16: without acrobats no follower goes onto a space, none scores there.
#[test]
fn t_big_top_17_bt16_no_acrobats() {
    run_scenario("big-top/T-big-top-17");
}

/// T-big-top-18 — BT-17: under `tokenDraws=chosen` each reveal is the turn player's
/// `draw-token` decision, in bag order; the final one too.
#[test]
fn t_big_top_18_bt17_chosen_reveals() {
    run_scenario("big-top/T-big-top-18");
}

/// T-big-top-2 — BT-4: the first circus tile takes the big top; nothing scores.
#[test]
fn t_big_top_2_bt4_first_circus() {
    run_scenario("big-top/T-big-top-2");
}

/// T-big-top-3 — BT-2, BT-4, BT-5: a second circus tile scores the first, the big top moves.
#[test]
fn t_big_top_3_bt5_circus_scores() {
    run_scenario("big-top/T-big-top-3");
}

/// T-big-top-5 — BT-5, BT-9: around the big top, followers count wherever they stand (a
/// knight, a farmer, an acrobat); a builder and a pig do not.
#[test]
fn t_big_top_5_bt5_who_counts() {
    run_scenario("big-top/T-big-top-5");
}

/// T-big-top-7 — BT-8: a small follower onto an acrobat space within the 3×3 of the tile
/// just placed; not a ringmaster, not a big follower, not two tiles away.
#[test]
fn t_big_top_7_bt8_acrobat_deploy() {
    run_scenario("big-top/T-big-top-7");
}

/// T-big-top-19 — BT-8, PD-22: from a magic portal an acrobat goes onto any space with room.
#[test]
fn t_big_top_19_bt8_portal_acrobats() {
    run_scenario("big-top/T-big-top-19");
}

/// T-big-top-8 — BT-8, BT-10: a full pyramid takes no more; its scoring is the active
/// player's choice, 5 per meeple, meeples home; from anywhere (variant).
#[test]
fn t_big_top_8_bt10_full_pyramid() {
    run_scenario("big-top/T-big-top-8");
}

/// T-big-top-9 — BT-11: at the end every occupied acrobat space scores, full or not.
#[test]
fn t_big_top_9_bt11_final_acrobats() {
    run_scenario("big-top/T-big-top-9");
}

/// T-big-top-13 — BT-14: a ringmaster in a scored pyramid earns his bonus.
#[test]
fn t_big_top_13_bt14_ringmaster_in_pyramid() {
    run_scenario("big-top/T-big-top-13");
}

/// T-big-top-10 — BT-12, BT-13: the ringmaster's bonus.
#[test]
fn t_big_top_10_bt13_ringmaster() {
    run_scenario("big-top/T-big-top-10");
}

/// T-big-top-11 — BT-13: a ringmaster outnumbered in his feature earns no bonus.
#[test]
fn t_big_top_11_bt13_outnumbered_ringmaster() {
    run_scenario("big-top/T-big-top-11");
}

/// T-big-top-12 — BT-6: the big top's circus scores at the end.
#[test]
fn t_big_top_12_bt6_final() {
    run_scenario("big-top/T-big-top-12");
}

/// T-big-top-4 — BT-4, BT-5: features completed by the circus tile score first.
#[test]
fn t_big_top_4_bt4_features_first() {
    run_scenario("big-top/T-big-top-4");
}

/// T-big-top-6 — BT-2: the animal tokens come from the game's seeded generator: the same
/// seed and the same actions give the same tokens, so the same big-top scores, event for
/// event.
#[test]
fn t_big_top_6_bt2_tokens_replay_exactly() {
    let rules = official_rules(&["big-top"], &[]);
    let bigtop = rules
        .labels()
        .iter()
        .position(|l| l == "bigtop")
        .expect("the big top's score label");
    let play = |seed: u64| {
        let setup = GameSetup::new(vec!["R".into(), "B".into(), "Y".into()], seed);
        let mut g = Game::new(rules.clone(), &setup).expect("game");
        let mut step = 0usize;
        while !g.is_over() {
            // A fixed spread of choices, the same in both games.
            let i = (step * 7919 + 13) % g.action_count();
            g.apply_offered(i).expect("an offered action");
            step += 1;
        }
        g.state().events().to_vec()
    };
    for seed in [1, 2, 3] {
        let (a, b) = (play(seed), play(seed));
        assert_eq!(a, b, "seed {seed}");
        assert!(
            a.iter()
                .any(|e| matches!(e.source, ScoreSource::Label(l) if l.0 as usize == bigtop)),
            "seed {seed}: the big top scored"
        );
    }
}

/// T-big-top-20 — BT-5, BCB-9: a follower on a castle (Bridges, Castles & Bazaars) counts
/// for the circus at the cell of the city half it stood on.
#[test]
fn t_big_top_20_bt5_castle_follower() {
    run_scenario("big-top/T-big-top-20");
}

/// T-big-top-21 — BT-5, BCB-9: a castle's other half inside the 3×3 does not bring its
/// follower in: only the cell it stood on counts.
#[test]
fn t_big_top_21_bt5_castle_follower_cell() {
    run_scenario("big-top/T-big-top-21");
}

/// T-big-top-22 — BT-13, BT-18: a ringmaster's owner who has the majority on a farm worth
/// 0 points still earns the bonus.
#[test]
fn t_big_top_22_bt18_ringmaster_on_zero_point_farm() {
    run_scenario("big-top/T-big-top-22");
}

/// T-big-top-23 — BT-19: under `ringmasterBonus=every` (FanCloisterZone) an outnumbered
/// ringmaster earns the bonus too.
#[test]
fn t_big_top_23_bt19_every_ringmaster() {
    run_scenario("big-top/T-big-top-23");
}

/// T-big-top-24 — BT-20: under `bridgeAcrobats=barred` (FanCloisterZone) an acrobat space
/// on a tile with a bridge takes no follower; by default it does.
#[test]
fn t_big_top_24_bt20_bridge_closes_acrobats() {
    run_scenario("big-top/T-big-top-24");
}

/// T-big-top-25 — BT-13, BCB-12: a castle raises the farm's score, not the ringmaster's
/// bonus on that farm.
#[test]
fn t_big_top_25_bt13_ringmaster_beside_castle_farm() {
    run_scenario("big-top/T-big-top-25");
}

/// T-big-top-26 — BT-20, BCB-4: under `bridgeAcrobats=barred` the bridge question offers no
/// bridge across a tile whose acrobat space holds a meeple; by default it does.
#[test]
fn t_big_top_26_bt20_no_bridge_offer_over_acrobats() {
    run_scenario("big-top/T-big-top-26");
}

/// T-big-top-27 — BT-20, BCB-7: under `bridgeAcrobats=barred` no placement is offered that
/// needs a bridge laid at once across a neighbour whose acrobat space holds a meeple (core's
/// amendment asks Big Top through `allows_overlay`); without the acrobat, or by default, it
/// is.
#[test]
fn t_big_top_27_bt20_no_amended_bridge_over_acrobats() {
    run_scenario("big-top/T-big-top-27");
}

/// T-big-top-28 — BT-20, BT-10, BT-11: a full pyramid (R, R, B) on `BT/ffff.ac` with a bridge
/// N–S (set by the position: under `barred` no play builds one, T-big-top-24 and 26). R
/// places a cloister and passes the bridge question: under `bridgeAcrobats=barred` no
/// `score-pyramid` is offered and one is refused; B places the last tile and the pyramid
/// scores at the end, R 10 and B 5 (`acrobats`). By default (`allowed`) R scores it at once:
/// R 10, B 5, the meeples home.
#[test]
fn t_big_top_28_bt20_bridged_pyramid_not_offered() {
    for (option, offered) in [("barred", false), ("allowed", true)] {
        let rules = official_rules(
            &["big-top", "bridges-castles-bazaars"],
            &[("big-top.bridgeAcrobats", option)],
        );
        let tiles = rules.tiles();
        let plain = tiles.find("BT/ffff.ac").expect("BT/ffff.ac");
        // The variant with the bridge N–S (its road on N and S at rotation 0).
        let bridged = tiles
            .get(plain)
            .variants
            .iter()
            .copied()
            .find(|&v| {
                let k = tiles.get(v);
                k.segment_on_side(Rotation::R0, carcassonne_core::Side::N)
                    .is_some_and(|l| rules.kind(k.segments[usize::from(l)].kind).name == "road")
            })
            .expect("a bridged BT/ffff.ac");
        let space = tiles
            .get(bridged)
            .segments
            .iter()
            .position(|s| rules.kind(s.kind).name == "acrobats")
            .expect("its acrobat space") as u8;
        let cloister = tiles.find("B").expect("B");
        let at = |x, y, kind| StartTile {
            kind,
            pos: Pos::new(x, y),
            rotation: Rotation::R0,
        };
        let acrobat = |p: u8| PositionFigure {
            player: PlayerId(p),
            kind: FigureKindId::SMALL_FOLLOWER,
            pos: Pos::new(1, 0),
            segment: space,
        };
        let p = Position {
            players: vec!["R".into(), "B".into()],
            tiles: vec![at(0, 0, cloister), at(1, 0, bridged)],
            figures: vec![acrobat(0), acrobat(0), acrobat(1)],
            draws: vec![cloister, cloister],
            ..Position::default()
        };
        let mut g = Game::from_position(rules.clone(), &p).expect("the position");
        let pyramid = |g: &Game| {
            g.actions().iter().copied().find(|a| {
                matches!(a, Action::Custom(c)
                    if rules.verbs()[c.verb.0 as usize].1 == "score-pyramid")
            })
        };
        g.apply(Action::Place {
            pos: Pos::new(0, 1),
            rotation: Rotation::R0,
        })
        .expect("R's cloister at (0,1)");
        // The bridge question (a bridge W–E across R's own tile): R passes.
        while matches!(g.decision().kind, DecisionKind::Prompt(_)) {
            g.apply(Action::Pass).expect("pass the bridge");
        }
        assert!(
            matches!(g.decision().kind, DecisionKind::Deploy { .. }),
            "{option}: R's deployment step, not {:?}",
            g.decision()
        );
        let tile = rules
            .tiles()
            .get(g.state().board().at(Pos::new(1, 0)).unwrap().kind);
        assert!(
            tile.segments.len() > 2,
            "{option}: the tile keeps its bridge"
        );
        if offered {
            let a = pyramid(&g).expect("allowed: score-pyramid is offered");
            g.apply(a).expect("score the pyramid");
            assert_eq!(
                carcassonne_tests::mixed::scores(&g),
                [10, 5],
                "allowed: BT-10 at once"
            );
            assert_eq!(
                g.state()
                    .in_supply(PlayerId(0), FigureKindId::SMALL_FOLLOWER),
                7
            );
            continue;
        }
        assert_eq!(
            pyramid(&g),
            None,
            "barred: no score-pyramid on a bridged tile"
        );
        // The action itself, as the offer would make it, is refused.
        let space_seg = g
            .state()
            .board()
            .at(Pos::new(1, 0))
            .map(|t| t.segment(usize::from(space)))
            .unwrap();
        let verb = rules
            .verbs()
            .iter()
            .position(|(_, n)| n == "score-pyramid")
            .expect("the verb");
        let refused = Action::Custom(carcassonne_core::CustomAction {
            expansion: rules.verbs()[verb].0,
            verb: carcassonne_core::VerbId(verb as _),
            figure: None,
            segment: Some(space_seg),
            value: 0,
        });
        assert!(
            g.apply(refused).is_err(),
            "barred: score-pyramid is refused"
        );
        g.apply(Action::Pass).expect("R deploys nothing");
        // B places the last cloister and passes; the pyramid scores at the end (BT-11).
        while !g.is_over() {
            let a = g
                .actions()
                .iter()
                .copied()
                .find(|a| matches!(a, Action::Pass | Action::Place { .. }))
                .expect("a pass or a placement");
            g.apply(a).expect("offered");
        }
        assert_eq!(
            carcassonne_tests::mixed::scores(&g),
            [10, 5],
            "barred: BT-11 at the end"
        );
    }
}

/// BT-5: the circus score's branch-free count of the followers around the big top agrees
/// with a figure by figure count (its debug build asserts so at every score: a difference
/// fails the hook, so the game), alone and beside Bridges, Castles & Bazaars (castles are
/// virtual features that count where they stand) and Princess & Dragon (neutral figures).
#[test]
fn circus_count_agrees_with_the_figure_by_figure_count() {
    use carcassonne_core::GameSetup;
    use carcassonne_tests::mixed::play_random_checked;
    for sets in [
        &["big-top"][..],
        &["big-top", "bridges-castles-bazaars", "princess-dragon"][..],
    ] {
        let rules = official_rules(sets, &[]);
        for seed in 0..12u64 {
            let players = 2 + (seed % 3) as usize;
            let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
            let ctx = format!("{sets:?}, seed {seed}, {players} players");
            play_random_checked(&rules, &setup, seed.rotate_left(5), 4000, &ctx);
        }
    }
}

/// T-big-top-29 — BT-13 with IC-6: an inn doubles the road a ringmaster scores, not his
/// bonus (the bonus award equals the road's old value, 2, by chance).
#[test]
fn t_big_top_29_an_inn_does_not_double_the_ringmaster_bonus() {
    run_scenario("big-top/T-big-top-29");
}

/// T-big-top-30 — BT-21 with PD-15: the fairy beside a follower on an acrobat space pays the
/// turn player for each of his figures there, whoever's follower it was put beside.
#[test]
fn t_big_top_30_the_fairy_on_an_acrobat_space() {
    run_scenario("big-top/T-big-top-30");
}

/// T-big-top-31 — BT-13 with AM-22: a barn placed on a ringmaster's farm is a feature
/// scoring, so he gets his bonus, whatever the load order of the two sets.
#[test]
fn t_big_top_31_a_placed_barn_pays_the_ringmaster_bonus() {
    run_scenario("big-top/T-big-top-31");
}

/// T-big-top-32 — BT-13 with TB-20: the pig raises the farm's scoring, not the ringmaster's
/// bonus on it.
#[test]
fn t_big_top_32_the_pig_does_not_raise_the_ringmaster_bonus() {
    run_scenario("big-top/T-big-top-32");
}

/// T-big-top-33 — BT-13 with HL-6: the vineyards raise the cloister's scoring, not the
/// ringmaster's bonus on it (JCZ 5 replay, seed 801, game 5).
#[test]
fn t_big_top_33_vineyards_do_not_raise_the_ringmaster_bonus() {
    run_scenario("big-top/T-big-top-33");
}

/// T-big-top-34 — BT-13 with HL-4: the hills decide who scores a tie; the ringmaster's bonus
/// follows that under the printed reading and stands beside it under JCZ's.
#[test]
fn t_big_top_34_hills_break_the_tie_before_the_ringmaster_is_paid() {
    run_scenario("big-top/T-big-top-34");
}

/// T-big-top-35 — BT-13 with CO-4: the ringmaster's bonus is no scoring for the Count.
#[test]
fn t_big_top_35_the_ringmaster_bonus_does_not_keep_the_count_away() {
    run_scenario("big-top/T-big-top-35");
}

/// T-big-top-36 — BT-13 with HS-6: a shrine lost to a challenge is given up, not scored, so
/// the ringmaster on it earns no bonus.
#[test]
fn t_big_top_36_a_ringmaster_on_a_lost_shrine_earns_no_bonus() {
    run_scenario("big-top/T-big-top-36");
}
