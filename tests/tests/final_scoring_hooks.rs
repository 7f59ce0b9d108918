//! Traders & Builders' scoring hooks against general scans, at every decision of seeded random
//! games (issue 33 item 1, fs21). The pig bonus (TB-20) reads the award's player's pigs only
//! (`View::figures_of_kind`) instead of all his figures: here, for every player and every
//! feature with a figure on it, that read is compared with a scan of all the player's
//! figures. The trade goods majorities (TB-6) are read on the stack: at every tenth decision a
//! copy of the game is ended (`Game::end_now`, what a search does at the end of each playout;
//! the end's questions answered at random) and its `trade-goods` events are checked against
//! the players' goods slots. The herd test (TB-23) reads the herd tiles the plugin keeps in
//! its slots (`herd-tiles`, `herd-tile-1`, `herd-tile-2`, written when a tile is placed):
//! here, at every decision, those slots are compared with the board's tiles that have a
//! `pig-herd` segment, and for every farm whether it holds a herd segment, read from the
//! listed tiles as the plugin reads it, with a scan of every segment of the farm (mcts22).

use carcassonne_core::{
    FeatureId, FigureLoc, Game, GameSetup, PlayerId, Ruleset, Scoring, TileKindId, View,
};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_tests::mixed::{apply_monotone, check_final_goods, ended_copy, slot};
use carcassonne_tests::{official_and_fan_rules, NINE_OFFICIAL};
use std::sync::Arc;

/// Expansions and options of one set of games.
type Set = (
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

/// Sets of expansions and options the games cycle through: the nine, Traders & Builders
/// alone (no herd tile), with River II and the barn under each farm edition, without the herd.
const SETS: &[Set] = &[
    (&NINE_OFFICIAL, &[]),
    (&["traders-builders"], &[]),
    (
        &["traders-builders", "river2", "abbey-mayor"],
        &[("farmScoring", "2nd")],
    ),
    (
        &["traders-builders", "river2", "abbey-mayor"],
        &[("farmScoring", "1st")],
    ),
    (
        &["traders-builders", "river2"],
        &[("traders-builders.pigHerd", "false")],
    ),
];

/// For every player and every feature holding a figure: whether the player's pig stands on
/// it, read among his pigs (`View::figures_of_kind`, as the plugin reads it) and by a scan
/// of all his figures. Returns how many of those pairs had the pig on the feature.
fn check_pigs(g: &Game, ctx: &str) -> usize {
    let rules = g.rules();
    let st = g.state();
    let view = View { rules, state: st };
    let pig = rules.figure_named("pig").expect("pig");
    let graph = st.graph();
    let mut features: Vec<FeatureId> = Vec::new();
    for f in st.figures() {
        if let FigureLoc::On(s) = f.loc {
            let feature = graph.feature_of(s);
            if !features.contains(&feature) {
                features.push(feature);
            }
        }
    }
    let mut found = 0;
    for p in 0..st.players().len() {
        let player = PlayerId(p as u8);
        for &f in &features {
            let on = |fig: &carcassonne_core::Figure| matches!(fig.loc, FigureLoc::On(s) if graph.feature_of(s) == f);
            let read = view.figures_of_kind(player, pig).iter().any(on);
            let scan = st
                .figures_of(player)
                .1
                .iter()
                .any(|fig| fig.kind == pig && on(fig));
            assert_eq!(read, scan, "{ctx}: player {p}'s pig on {f:?}");
            found += usize::from(scan);
        }
    }
    found
}

/// TB-23's herd slots against the board. With the herd rule on and a tile kind with a
/// `pig-herd` segment loaded, `herd-tiles` counts the placed tiles with such a segment and
/// `herd-tile-1`, `herd-tile-2` are the first two of them (board indices, placement order);
/// otherwise the count stays 0. For every farm on the board, whether one of its segments is
/// a herd segment, read from the listed tiles' herd segments (as the plugin reads it, while
/// they hold every herd tile), equals a scan of every segment of the farm. Returns how many
/// farms held a herd.
fn check_herd(g: &Game, herd_on: bool, ctx: &str) -> usize {
    let rules = g.rules();
    let st = g.state();
    let graph = st.graph();
    let tiles = st.board().tiles();
    let is_herd = |kind: TileKindId, local: usize| {
        rules
            .tiles()
            .get(kind)
            .segments
            .get(local)
            .is_some_and(|seg| seg.tags.iter().any(|t| t == "pig-herd"))
    };
    let count = st.slot(slot(rules, "traders-builders", "herd-tiles"), 0);
    let listed: Vec<i64> = ["herd-tile-1", "herd-tile-2"]
        .iter()
        .map(|n| st.slot(slot(rules, "traders-builders", n), 0))
        .collect();
    let any_kind = rules.tiles().iter().any(|(_, tk)| {
        (0..tk.segments.len()).any(|l| tk.segments[l].tags.iter().any(|t| t == "pig-herd"))
    });
    if !(herd_on && any_kind) {
        assert_eq!(count, 0, "{ctx}: herd slots without the herd rule");
        return 0;
    }
    let herd_tiles: Vec<usize> = tiles
        .iter()
        .enumerate()
        .filter(|(_, t)| (0..usize::from(t.segment_count)).any(|l| is_herd(t.kind, l)))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(count as usize, herd_tiles.len(), "{ctx}: herd tile count");
    for (k, i) in herd_tiles.iter().enumerate().take(listed.len()) {
        assert_eq!(listed[k] as usize, *i, "{ctx}: herd tile {k}");
    }
    let mut farms: Vec<FeatureId> = Vec::new();
    for t in tiles {
        for l in 0..usize::from(t.segment_count) {
            let f = graph.feature_of(t.segment(l));
            if rules.kind(graph.kind(f)).scoring == Scoring::Farm && !farms.contains(&f) {
                farms.push(f);
            }
        }
    }
    let mut found = 0;
    for &farm in &farms {
        let scan = graph.members(farm).any(|s| {
            let node = graph.segment(s);
            !node.is_virtual() && is_herd(tiles[node.tile as usize].kind, node.local as usize)
        });
        if herd_tiles.len() <= listed.len() {
            let read = listed[..herd_tiles.len()].iter().any(|&i| {
                let t = &tiles[i as usize];
                (0..usize::from(t.segment_count))
                    .any(|l| is_herd(t.kind, l) && graph.feature_of(t.segment(l)) == farm)
            });
            assert_eq!(read, scan, "{ctx}: herd in farm {farm:?}");
        }
        found += usize::from(scan);
    }
    found
}

/// Plays one game; returns how many (player, feature) pairs had the player's pig on it, and
/// how many farms (summed over the decisions) held a herd.
fn play(set: usize, seed: u64) -> (usize, usize) {
    let (expansions, options) = SETS[set];
    let rules: Arc<Ruleset> = official_and_fan_rules(expansions, options);
    let herd_on = !options.contains(&("traders-builders.pigHerd", "false"));
    let mut herds = 0;
    let players = 2 + (seed % 2) as usize;
    let ctx = format!("set {set}, seed {seed}, {players} players");
    let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
    let mut g = Game::new(Arc::clone(&rules), &setup).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let mut bots: Vec<RandomBot> = (0..players)
        .map(|p| RandomBot::new(seed.rotate_left(11) ^ p as u64))
        .collect();
    let mut pigs = 0;
    let mut steps = 0;
    while !g.is_over() {
        steps += 1;
        assert!(steps < 5000, "{ctx}: the game does not end");
        let at = format!("{ctx}, decision {steps}");
        pigs += check_pigs(&g, &at);
        herds += check_herd(&g, herd_on, &at);
        if steps % 10 == 0 {
            let end = ended_copy(&g, |e| bots[e.decision().player.index()].choose(e), &at);
            check_final_goods(&end, &format!("{at}, ended"));
        }
        let i = bots[g.decision().player.index()].choose(&g);
        let a = g.actions()[i];
        apply_monotone(&mut g, a, &at);
    }
    check_final_goods(&g, &ctx);
    (pigs, herds)
}

#[test]
fn traders_builders_scoring_matches_general_scans() {
    let (mut pigs, mut herds) = (0, 0);
    for set in 0..SETS.len() {
        for seed in 0..8u64 {
            let (p, h) = play(set, 2100 + seed * 13 + set as u64);
            pigs += p;
            herds += h;
        }
    }
    // Random players put pigs out often enough that the read is seen finding one; River II's
    // herd tile is placed in every game that has it.
    assert!(pigs > 100, "only {pigs} pigs found on features");
    assert!(herds > 100, "only {herds} farms with a herd");
}
