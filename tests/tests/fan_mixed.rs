//! 2,000 seeded random games with all six expansions loaded: the four official plugins
//! (count, king-robber, river2, heretics-shrines) and the two Rhai-script fan expansions
//! (tactician, promotions), over several option sets and 2–5 players. The counterpart of
//! `expansions_mixed.rs`, whose checks (figures conserved, occupancy, the Count's tally,
//! scores never fall and equal the events, A-11, HS-3, the river tree, the King's and the
//! Robber's records) are reused from `carcassonne_tests::mixed`. On top of those:
//!
//! - *The Tactician*, after every action: every player's token is either held or in the
//!   reserve (`token + reserve == 1`); a token is taken only by the `take-token` action of
//!   the active player in his deployment step, which is offered exactly when his token is
//!   in the reserve (TA-2, AT-2), and it goes back only when its holder deploys in a
//!   reaction prompt (TA-3). A reaction prompt is never offered to the active player
//!   (TA-4) nor in final scoring, only to a holder, offers only follower deployments (AT-5)
//!   on unclaimed features of the tile just placed (TA-5, AT-6) plus passing, and the
//!   holders are asked fewest points first, ties clockwise from the active player's left
//!   (TA-6, AT-4).
//! - *Promotions*, after every action: every player's disc is in his supply or under
//!   exactly one figure (`disc_free + (disc_on > 0) == 1`); `disc_on` and the figures'
//!   `disc` slots agree both ways, and a figure with a disc is on a tile on the board (the
//!   disc returns when the figure leaves, PR-7, AP-4); `bonus` and `disc_site` are in
//!   {-1, 0, 1}, non-zero only under a disc, and have the sign and the row the rules give
//!   (PR-3 … PR-6, AP-2: +1 under an own figure, -1 under another player's; knight, thief
//!   and farmer change strength, monk and heretic restrict placement); `site_discs` counts
//!   the monk/heretic discs; `promote` is offered in the deployment step exactly for the
//!   eligible figures while the disc is in supply (PR-2, PR-3, AP-12); a cloister or shrine
//!   tile is never offered next to a restricting monk or heretic (PR-5, PR-6, AP-8).
//! - every game's record (JSON) replays to the identical game: scores, events, figures,
//!   board, discarded tiles, and every expansion state slot.
//!
//! The run also counts how often the fan rules were exercised and fails if any count is 0.
//! The games are split into four tests so that the test harness runs them in parallel.

use carcassonne_core::{
    Action, DecisionKind, ExpansionIndex, FeatureKindId, FigureLoc, Game, GameSetup, PlayerId, Pos,
    Ruleset, SlotId, VerbId,
};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_play::record::Record;
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::expansions_dir;
use carcassonne_tests::mixed::{
    all_slots, apply_monotone, check_completed_scored, check_end, check_figures_and_scores,
    check_same_game, fan_expansions_dir, slot, total_tiles,
};
use std::sync::Arc;

const ALL_SIX: [&str; 6] = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "tactician",
    "promotions",
];

/// Option sets the games cycle through (defaults first).
const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[],
    &[
        ("count.countMove", "clockwise"),
        ("king-robber.kingRobberAward", "continuously"),
        ("heretics-shrines.challengeStakes", "true"),
    ],
    &[
        ("farmScoring", "1st"),
        ("count.cocTrigger", "completion"),
        ("heretics-shrines.shrineCrowding", "true"),
        ("river2.riverEnds", "both-last"),
    ],
];

/// Games per test; four tests make 2,000 games.
const GAMES_PER_TEST: u64 = 500;

fn rules(set: usize) -> Arc<Ruleset> {
    build_ruleset(&RulesSpec {
        expansions: ALL_SIX.map(String::from).to_vec(),
        options: OPTION_SETS[set]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        plugin_dirs: vec![expansions_dir(), fan_expansions_dir()],
    })
    .unwrap_or_else(|e| panic!("all six expansions load: {e}"))
}

/// The fan expansions' handles in one ruleset.
struct Fan {
    tactician: ExpansionIndex,
    promotions: ExpansionIndex,
    take_token: VerbId,
    promote: VerbId,
    token: SlotId,
    reserve: SlotId,
    disc_free: SlotId,
    disc_on: SlotId,
    disc: SlotId,
    disc_site: SlotId,
    site_discs: SlotId,
    bonus: SlotId,
    mayor: SlotId,
    /// Feature kinds a promoted follower may stand on (PR-3), and the strength rows.
    strength_rows: Vec<FeatureKindId>,
    site_rows: Vec<FeatureKindId>,
}

impl Fan {
    fn new(rules: &Ruleset) -> Fan {
        let tactician = rules
            .expansion_index("tactician")
            .expect("tactician loaded");
        let promotions = rules
            .expansion_index("promotions")
            .expect("promotions loaded");
        let kinds = |names: &[&str]| -> Vec<FeatureKindId> {
            names.iter().filter_map(|n| rules.kind_named(n)).collect()
        };
        Fan {
            tactician,
            promotions,
            take_token: rules
                .verb_named(tactician, "take-token")
                .expect("take-token"),
            promote: rules.verb_named(promotions, "promote").expect("promote"),
            token: slot(rules, "tactician", "token"),
            reserve: slot(rules, "tactician", "reserve"),
            disc_free: slot(rules, "promotions", "disc_free"),
            disc_on: slot(rules, "promotions", "disc_on"),
            disc: slot(rules, "promotions", "disc"),
            disc_site: slot(rules, "promotions", "disc_site"),
            site_discs: slot(rules, "promotions", "site_discs"),
            bonus: slot(rules, "promotions", "bonus"),
            mayor: slot(rules, "promotions", "mayor"),
            strength_rows: kinds(&["city", "road", "field"]),
            site_rows: kinds(&["cloister", "abbey", "shrine"]),
        }
    }

    fn is_verb(&self, a: &Action, owner: ExpansionIndex, verb: VerbId) -> bool {
        matches!(a, Action::Custom(c) if c.expansion == owner && c.verb == verb)
    }
}

/// How often the fan rules were exercised.
#[derive(Default, Debug)]
struct Counts {
    games: u64,
    actions: u64,
    tokens_taken: u64,
    reaction_prompts: u64,
    reaction_deploys: u64,
    reaction_passes: u64,
    /// Tactician prompts seen waiting in the queue.
    queued_reactions_seen: u64,
    /// Two holders asked about the same tile (their order checked).
    reaction_order_pairs: u64,
    discs_upgrade: u64,
    discs_downgrade: u64,
    discs_under_monks: u64,
    discs_returned: u64,
    discs_returned_at_once: u64,
    restricted_placement_steps: u64,
}

/// Per-player fan slots before an action.
#[derive(Clone, PartialEq, Eq, Debug)]
struct FanSnapshot {
    token: Vec<i64>,
    disc_free: Vec<i64>,
    disc_on: Vec<i64>,
}

fn snapshot(g: &Game, fan: &Fan) -> FanSnapshot {
    let st = g.state();
    let n = st.players().len();
    FanSnapshot {
        token: (0..n).map(|p| st.slot(fan.token, p)).collect(),
        disc_free: (0..n).map(|p| st.slot(fan.disc_free, p)).collect(),
        disc_on: (0..n).map(|p| st.slot(fan.disc_on, p)).collect(),
    }
}

/// The fan expansions' state invariants.
fn check_fan_state(g: &Game, fan: &Fan, ctx: &str) {
    let st = g.state();
    let graph = st.graph();
    let n = st.players().len();
    for p in 0..n {
        // Tactician: the token is held or in the reserve.
        let (token, reserve) = (st.slot(fan.token, p), st.slot(fan.reserve, p));
        assert!(
            (token == 0 || token == 1) && token + reserve == 1,
            "{ctx}: player {p}: tactician token {token} + reserve {reserve} != 1"
        );
        // Promotions: the disc is in supply or under one figure.
        let (free, on) = (st.slot(fan.disc_free, p), st.slot(fan.disc_on, p));
        assert!(
            (free == 0 || free == 1) && free + (on > 0) as i64 == 1 && on >= 0,
            "{ctx}: player {p}: disc_free {free}, disc_on {on}"
        );
        if on > 0 {
            let f = (on - 1) as usize;
            assert!(f < st.figures().len(), "{ctx}: player {p}: disc_on {on}");
            let fig = st.figures()[f];
            assert!(
                matches!(fig.loc, FigureLoc::On(s) if !graph.segment(s).is_virtual()),
                "{ctx}: player {p}'s disc is under figure {f}, which is not on a tile: {fig:?}"
            );
            assert_eq!(
                st.slot(fan.disc, f),
                p as i64 + 1,
                "{ctx}: player {p}'s disc is under figure {f}, whose disc slot disagrees"
            );
        }
    }
    let mut sites = 0;
    // A figure slot read as one slice (`slot_values`) gives each figure's value.
    let discs = st.slot_values(fan.disc);
    assert_eq!(
        discs.len(),
        st.figures().len(),
        "{ctx}: one disc value a figure"
    );
    for (f, fig) in st.figures().iter().enumerate() {
        let disc = st.slot(fan.disc, f);
        assert_eq!(
            discs[f], disc,
            "{ctx}: figure {f}: the disc slice disagrees"
        );
        let bonus = st.slot(fan.bonus, f);
        let site = st.slot(fan.disc_site, f);
        let mayor = st.slot(fan.mayor, f);
        assert!(
            (-1..=1).contains(&bonus) && (-1..=1).contains(&site) && mayor == 0,
            "{ctx}: figure {f}: bonus {bonus}, disc_site {site}, mayor {mayor}"
        );
        sites += (site != 0) as i64;
        if disc == 0 {
            assert!(
                bonus == 0 && site == 0,
                "{ctx}: figure {f} has no disc but bonus {bonus}, disc_site {site}"
            );
            continue;
        }
        assert!(
            (1..=n as i64).contains(&disc),
            "{ctx}: figure {f}: disc {disc}"
        );
        let FigureLoc::On(seg) = fig.loc else {
            panic!("{ctx}: figure {f} carries player {}'s disc but is not on the board: {fig:?} (PR-7, AP-4)", disc - 1);
        };
        let node = graph.segment(seg);
        assert!(
            !node.is_virtual(),
            "{ctx}: figure {f} has a disc off the grid"
        );
        let owner = (disc - 1) as usize;
        assert_eq!(
            st.slot(fan.disc_on, owner),
            f as i64 + 1,
            "{ctx}: figure {f} carries player {owner}'s disc, but his disc_on disagrees"
        );
        // PR-4, AP-2: own figure upgraded, another player's downgraded.
        let sign = if fig.owner.index() == owner { 1 } else { -1 };
        let kind = graph.kind(graph.feature_of(seg));
        if fan.strength_rows.contains(&kind) {
            assert!(
                bonus == sign && site == 0,
                "{ctx}: figure {f} (knight/thief/farmer) under player {owner}'s disc: bonus {bonus}, disc_site {site}, want {sign}"
            );
        } else if fan.site_rows.contains(&kind) {
            assert!(
                site == sign && bonus == 0,
                "{ctx}: figure {f} (monk/heretic) under player {owner}'s disc: bonus {bonus}, disc_site {site}, want {sign}"
            );
        } else {
            panic!(
                "{ctx}: figure {f} has a disc but stands on a {}",
                g.rules().kind(kind).name
            );
        }
    }
    assert_eq!(
        st.slot(fan.site_discs, 0),
        sites,
        "{ctx}: site_discs counts the monk/heretic discs"
    );
}

/// Checks on what is offered before an action is chosen.
fn check_offer(
    g: &Game,
    fan: &Fan,
    counts: &mut Counts,
    last_reaction: &mut Option<(u32, usize, (i32, usize))>,
    ctx: &str,
) {
    let st = g.state();
    let rules = g.rules();
    let graph = st.graph();
    let d = g.decision();
    let n = st.players().len();
    let active = st.active_player();
    // TA-4: not even a queued (possibly skipped) reaction is for the active player.
    for q in st.queued_prompts() {
        if q.owner == fan.tactician {
            counts.queued_reactions_seen += 1;
            assert_ne!(
                q.player, active,
                "{ctx}: a tactician reaction is queued for the active player (TA-4)"
            );
        }
    }
    match d.kind {
        DecisionKind::Prompt(p) if p.owner == fan.tactician => {
            counts.reaction_prompts += 1;
            assert_ne!(
                p.player, active,
                "{ctx}: a tactician reaction is offered to the active player (TA-4)"
            );
            assert_eq!(d.player, p.player, "{ctx}: reaction decider");
            assert!(
                !st.in_final_scoring(),
                "{ctx}: a tactician reaction in final scoring"
            );
            assert_eq!(
                st.slot(fan.token, p.player.index()),
                1,
                "{ctx}: a reaction is offered to {} who holds no token",
                p.player
            );
            let last = st.last_placed().expect("a tile was placed");
            let mut deploys = 0;
            let mut pass = false;
            for a in g.actions() {
                match *a {
                    Action::Deploy { figure, segment } => {
                        deploys += 1;
                        assert!(
                            rules.figure_kind(figure).follower,
                            "{ctx}: reaction offers a non-follower {a} (AT-5)"
                        );
                        let node = graph.segment(segment);
                        assert!(
                            !node.is_virtual() && node.tile == last,
                            "{ctx}: reaction offers {a}, not on the tile just placed (TA-5, AT-6)"
                        );
                        assert_eq!(
                            graph.totals(graph.feature_of(segment)).occupants,
                            0,
                            "{ctx}: reaction offers {a} onto a claimed feature"
                        );
                    }
                    Action::Pass => pass = true,
                    _ => panic!("{ctx}: reaction offers {a}"),
                }
            }
            assert!(
                deploys > 0 && pass,
                "{ctx}: reaction offers {:?}",
                g.actions()
            );
            // TA-6, AT-4: fewest points first, ties clockwise from the active's left.
            let pl = p.player.index();
            let key = (st.players()[pl].score, (pl + n - active.index() - 1) % n);
            let turn = st.turn();
            if let Some((t, l, k)) = *last_reaction {
                if t == turn && l == last as usize {
                    counts.reaction_order_pairs += 1;
                    assert!(
                        k < key,
                        "{ctx}: reaction order: {key:?} asked after {k:?} (TA-6, AT-4)"
                    );
                }
            }
            *last_reaction = Some((turn, last as usize, key));
        }
        DecisionKind::Deploy { .. } => {
            assert_eq!(d.player, active, "{ctx}: deployment step decider");
            let me = active.index();
            let takes = g
                .actions()
                .iter()
                .filter(|a| fan.is_verb(a, fan.tactician, fan.take_token))
                .count();
            let want = (st.slot(fan.reserve, me) == 1) as usize;
            assert_eq!(
                takes,
                want,
                "{ctx}: take-token offered {takes} times with reserve {} (TA-2, AT-2)",
                st.slot(fan.reserve, me)
            );
            let mut offered: Vec<u16> = g
                .actions()
                .iter()
                .filter_map(|a| match a {
                    Action::Custom(c) if c.expansion == fan.promotions && c.verb == fan.promote => {
                        Some(c.figure.expect("promote names a figure").0)
                    }
                    _ => None,
                })
                .collect();
            offered.sort_unstable();
            let mut eligible: Vec<u16> = Vec::new();
            if st.slot(fan.disc_free, me) == 1 {
                for (f, fig) in st.figures().iter().enumerate() {
                    let FigureLoc::On(seg) = fig.loc else {
                        continue;
                    };
                    let node = graph.segment(seg);
                    let kind = node.kind;
                    if !node.is_virtual()
                        && st.slot(fan.disc, f) == 0
                        && rules.figure_kind(fig.kind).follower
                        && (fan.strength_rows.contains(&kind) || fan.site_rows.contains(&kind))
                    {
                        eligible.push(f as u16);
                    }
                }
            }
            assert_eq!(
                offered, eligible,
                "{ctx}: promote offered for figures {offered:?}, eligible {eligible:?} (PR-2, PR-3)"
            );
        }
        DecisionKind::PlaceTile { tile } => {
            // PR-5, PR-6, AP-8: no cloister/shrine tile next to a restricting monk.
            let tk = rules.tiles().get(tile);
            if !tk.segments.iter().any(|s| fan.site_rows.contains(&s.kind)) {
                return;
            }
            let mut centres: Vec<Pos> = Vec::new();
            for p in 0..n {
                let on = st.slot(fan.disc_on, p);
                if on == 0 {
                    continue;
                }
                let f = (on - 1) as usize;
                let site = st.slot(fan.disc_site, f);
                let fig = st.figures()[f];
                if site != 0 && (site == 1) == (d.player != fig.owner) {
                    if let FigureLoc::On(seg) = fig.loc {
                        centres.push(graph.segment(seg).pos);
                    }
                }
            }
            if centres.is_empty() {
                return;
            }
            counts.restricted_placement_steps += 1;
            for a in g.actions() {
                if let Action::Place { pos, .. } = *a {
                    for c in &centres {
                        assert!(
                            (pos.x - c.x).abs() > 1 || (pos.y - c.y).abs() > 1,
                            "{ctx}: {a} offered for a site tile next to the restricting monk/heretic at {c} (PR-5, PR-6, AP-8)"
                        );
                    }
                }
            }
        }
        _ => {}
    }
}

/// Checks how an action changed the fan state, and counts it.
#[allow(clippy::too_many_arguments)]
fn check_transition(
    g: &Game,
    fan: &Fan,
    before: &FanSnapshot,
    before_figures: &[carcassonne_core::Figure],
    decider: PlayerId,
    was_reaction: bool,
    a: Action,
    counts: &mut Counts,
    ctx: &str,
) {
    let st = g.state();
    let after = snapshot(g, fan);
    let take = fan.is_verb(&a, fan.tactician, fan.take_token);
    let promote = fan.is_verb(&a, fan.promotions, fan.promote);
    let reaction_deploy = was_reaction && matches!(a, Action::Deploy { .. });
    if was_reaction {
        if reaction_deploy {
            counts.reaction_deploys += 1;
        } else {
            counts.reaction_passes += 1;
        }
    }
    for p in 0..after.token.len() {
        let me = p == decider.index();
        let (t0, t1) = (before.token[p], after.token[p]);
        if take && me {
            assert!(t0 == 0 && t1 == 1, "{ctx}: {a}: token {t0} -> {t1} (TA-2)");
            counts.tokens_taken += 1;
        } else if reaction_deploy && me {
            assert!(t0 == 1 && t1 == 0, "{ctx}: {a}: token {t0} -> {t1} (TA-3)");
        } else {
            assert_eq!(t0, t1, "{ctx}: player {p}'s token changed after {a}");
        }
        let (f0, f1) = (before.disc_free[p], after.disc_free[p]);
        if promote && me {
            assert_eq!(f0, 1, "{ctx}: {a}: promoting without the disc (PR-2)");
            let Action::Custom(c) = a else { unreachable!() };
            let f = c.figure.expect("promote names a figure").0 as usize;
            if f1 == 0 {
                assert_eq!(after.disc_on[p], f as i64 + 1, "{ctx}: {a}: disc_on");
            } else {
                // AP-11: the figure stood in a feature this placement completes; it was
                // scored right after the promotion and the disc came back (PR-7).
                assert!(
                    st.figures()[f].loc != before_figures[f].loc,
                    "{ctx}: {a}: the disc is back in supply but figure {f} is still there"
                );
                counts.discs_returned += 1;
                counts.discs_returned_at_once += 1;
            }
            if st.figures()[f].owner == decider {
                counts.discs_upgrade += 1;
            } else {
                counts.discs_downgrade += 1;
            }
            if let FigureLoc::On(seg) = before_figures[f].loc {
                let kind = st.graph().segment(seg).kind;
                counts.discs_under_monks += fan.site_rows.contains(&kind) as u64;
            }
        } else if f0 == 0 && f1 == 1 {
            // PR-7, AP-4: only because the figure left the board.
            let f = (before.disc_on[p] - 1) as usize;
            assert!(
                st.figures()[f].loc != before_figures[f].loc,
                "{ctx}: player {p}'s disc came back from figure {f}, which is still there"
            );
            counts.discs_returned += 1;
        } else {
            assert_eq!(
                (f0, before.disc_on[p]),
                (f1, after.disc_on[p]),
                "{ctx}: player {p}'s disc changed after {a}"
            );
        }
    }
}

/// Every expansion state slot, in declaration order.
fn play_and_check(set: usize, rules: &Arc<Ruleset>, fan: &Fan, seed: u64, counts: &mut Counts) {
    let players = 2 + (seed % 4) as usize;
    let ctx = format!("option set {set}, seed {seed}, {players} players");
    let mut g = Game::new(
        Arc::clone(rules),
        &GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed),
    )
    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let in_city = slot(rules, "count", "in-city");
    let total_tiles = total_tiles(&g);
    let mut bots: Vec<RandomBot> = (0..players)
        .map(|p| RandomBot::new(seed.rotate_left(7) ^ p as u64))
        .collect();
    let mut actions: Vec<Action> = Vec::new();
    let mut last_reaction = None;
    check_fan_state(&g, fan, &ctx);
    while !g.is_over() {
        assert!(actions.len() < 3000, "{ctx}: the game does not end");
        let actx = format!("{ctx}, action {}", actions.len());
        let decision = g.decision();
        if matches!(decision.kind, DecisionKind::PlaceTile { .. }) {
            check_completed_scored(&g, &actx);
        }
        check_offer(&g, fan, counts, &mut last_reaction, &actx);
        let was_reaction =
            matches!(decision.kind, DecisionKind::Prompt(p) if p.owner == fan.tactician);
        let before_fan = snapshot(&g, fan);
        let before_figures = g.state().figures().to_vec();
        let i = bots[decision.player.index()].choose(&g);
        let a = g.actions()[i];
        apply_monotone(&mut g, a, &actx);
        actions.push(a);
        check_figures_and_scores(&g, in_city, &actx);
        check_fan_state(&g, fan, &actx);
        check_transition(
            &g,
            fan,
            &before_fan,
            &before_figures,
            decision.player,
            was_reaction,
            a,
            counts,
            &actx,
        );
    }
    counts.games += 1;
    counts.actions += actions.len() as u64;
    check_end(&g, total_tiles, &ctx);
    // The record replays to the identical game.
    let record = Record::new(&g, seed, &actions);
    let json = serde_json::to_string(&record).expect("record serialises");
    let parsed = Record::parse(&json, &ctx).expect("record parses");
    let replayed = parsed
        .replay_with(rules, &ctx, None)
        .unwrap_or_else(|e| panic!("{ctx}: replay: {e}"));
    check_same_game(&replayed, &g, &ctx);
    assert_eq!(
        replayed.state().discarded(),
        g.state().discarded(),
        "{ctx}: discarded tiles"
    );
    assert_eq!(
        all_slots(&replayed),
        all_slots(&g),
        "{ctx}: expansion state"
    );
}

/// Games `from..to` (seed = index), option sets in turn; the fan rules must have been
/// exercised.
fn run(from: u64, to: u64) {
    let rulesets: Vec<Arc<Ruleset>> = (0..OPTION_SETS.len()).map(rules).collect();
    let fans: Vec<Fan> = rulesets.iter().map(|r| Fan::new(r)).collect();
    let mut counts = Counts::default();
    for seed in from..to {
        let set = (seed % OPTION_SETS.len() as u64) as usize;
        play_and_check(set, &rulesets[set], &fans[set], seed, &mut counts);
    }
    eprintln!("fan_mixed games {from}..{to}: {counts:?}");
    for (what, n) in [
        ("tokens taken", counts.tokens_taken),
        ("reaction prompts", counts.reaction_prompts),
        (
            "tokens spent on reaction deployments",
            counts.reaction_deploys,
        ),
        ("reactions declined", counts.reaction_passes),
        (
            "holders asked in turn about one tile",
            counts.reaction_order_pairs,
        ),
        ("discs placed under own figures", counts.discs_upgrade),
        (
            "discs placed under other players' figures",
            counts.discs_downgrade,
        ),
        (
            "discs placed under monks/heretics",
            counts.discs_under_monks,
        ),
        ("discs returned", counts.discs_returned),
        (
            "placement steps restricted by a monk disc",
            counts.restricted_placement_steps,
        ),
    ] {
        assert!(
            n > 0,
            "games {from}..{to}: no {what}: the fan rules were not exercised"
        );
    }
}

#[test]
fn fan_games_0_to_500_keep_every_invariant() {
    run(0, GAMES_PER_TEST);
}

#[test]
fn fan_games_500_to_1000_keep_every_invariant() {
    run(GAMES_PER_TEST, 2 * GAMES_PER_TEST);
}

#[test]
fn fan_games_1000_to_1500_keep_every_invariant() {
    run(2 * GAMES_PER_TEST, 3 * GAMES_PER_TEST);
}

#[test]
fn fan_games_1500_to_2000_keep_every_invariant() {
    run(3 * GAMES_PER_TEST, 4 * GAMES_PER_TEST);
}
