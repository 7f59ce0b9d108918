//! Invariant checks shared by the randomized mixed-expansion games
//! (`tests/tests/expansions_mixed.rs`: the four official expansions;
//! `tests/tests/fan_mixed.rs`: the same plus the fan expansions; `classic_mixed.rs`,
//! `princess_dragon_mixed.rs`, `tower_mixed.rs`; `soak_mixed.rs`: random subsets of every
//! expansion). Each check that is about one expansion (the Count's tally, HS-3, the river,
//! the King's and Robber's records, the goods, builders and pigs, the dragon) runs only when
//! that expansion is loaded.

use carcassonne_core::{
    Action, FeatureKindId, FigureKindId, FigureLoc, Game, GameSetup, PlayerId, Ruleset,
    ScoreSource, Scoring, SegmentId, Side, SlotId, SlotScope,
};
use std::sync::Arc;

/// The slot `expansion.name` (panics if the expansion or slot is missing).
pub fn slot(rules: &Ruleset, expansion: &str, name: &str) -> SlotId {
    let ix = rules.expansion_index(expansion).expect("loaded");
    SlotId(
        rules
            .slots()
            .iter()
            .position(|d| d.expansion == ix && d.name == name)
            .unwrap_or_else(|| panic!("slot {expansion}.{name}")) as u16,
    )
}

/// Princess & Dragon's dragon tiles still held back (PD-3), from its `aside-*` slots; 0
/// without that expansion.
pub fn held_aside(g: &Game) -> usize {
    let rules = g.rules();
    if rules.expansion_index("princess-dragon").is_none() {
        return 0;
    }
    (0..4)
        .map(|i| {
            let v = g
                .state()
                .slot(slot(rules, "princess-dragon", &format!("aside-{i}")), 0);
            (0..16)
                .map(|k| ((v >> (4 * k)) & 15) as usize)
                .sum::<usize>()
        })
        .sum()
}

/// Whether a score event is a payment between players, the only kind that may be negative:
/// the Tower's ransom (TW-13) or a bazaar's price (BCB-14).
fn is_payment(rules: &carcassonne_core::Ruleset, e: &carcassonne_core::ScoreEvent) -> bool {
    matches!(e.source, ScoreSource::Label(l)
        if rules.labels().get(l.0 as usize).is_some_and(|n| n == "ransom" || n == "bazaar"))
}

/// Every player's score, in seat order.
pub fn scores(g: &Game) -> Vec<i32> {
    g.state().players().iter().map(|p| p.score).collect()
}

/// Applies an offered action and checks that no score fell and no past score event was
/// rewritten by it.
pub fn apply_monotone(g: &mut Game, a: Action, ctx: &str) {
    let before = scores(g);
    let events = g.state().events().len();
    g.apply(a)
        .unwrap_or_else(|e| panic!("{ctx}: offered {a} refused: {e}"));
    // TW-13: a ransom is the one move that lowers a score: 3 points from the payer to the
    // jailer, so the ransom's two events sum to 0. Paying it in the deployment step offers
    // the step again (`Ctx::repeat_deploy_step`); when nothing but a pass is left there the
    // engine skips it, so the same action may run on into the placement's scoring and the
    // next turn: those events are the usual ones, never negative (checked below), and every
    // score moves by exactly its new events.
    // BCB-14: the bazaar's payments (label `bazaar`) lower scores too: the buyer pays the
    // seller, or the bank when he bought from himself.
    let ransom = matches!(a, Action::Custom(c)
        if g.rules().verbs().get(c.verb.0 as usize).is_some_and(|(_, n)| n == "pay-ransom"));
    let after = scores(g);
    let rules = g.rules();
    let new = &g.state().events()[events.min(g.state().events().len())..];
    let is_ransom = |e: &&carcassonne_core::ScoreEvent| is_payment(rules, e);
    if ransom || new.iter().any(|e| is_ransom(&e)) {
        let paid: Vec<i32> = new.iter().filter(is_ransom).map(|e| e.points).collect();
        assert!(
            !ransom || (paid.len() == 2 && paid.iter().sum::<i32>() == 0),
            "{ctx}: a ransom moves points ({paid:?})"
        );
        for (p, (b, n)) in before.iter().zip(&after).enumerate() {
            let moved: i32 = new
                .iter()
                .filter(|e| e.player.index() == p)
                .map(|e| e.points)
                .sum();
            assert_eq!(
                n - b,
                moved,
                "{ctx}: player {p}'s score moved by other than its events after {a}"
            );
            assert!(
                new.iter()
                    .filter(|e| e.player.index() == p && !is_ransom(e))
                    .all(|e| e.points >= 0),
                "{ctx}: player {p} lost points after {a} other than by the ransom"
            );
        }
    } else {
        for (p, (b, n)) in before.iter().zip(after).enumerate() {
            assert!(n >= *b, "{ctx}: player {p}'s score fell after {a}");
        }
    }
    assert!(
        g.state().events().len() >= events,
        "{ctx}: events rewritten"
    );
}

/// Tiles in play at the start of a game: on the board, in the supply, discarded, and the
/// one drawn now.
pub fn total_tiles(g: &Game) -> usize {
    let drawn = matches!(
        g.decision().kind,
        carcassonne_core::DecisionKind::PlaceTile { .. }
    ) as usize;
    g.state().board().tiles().len()
        + g.state().supply().remaining()
        + g.state().discards().len()
        + drawn
}

/// Figures conserved, occupancy exact, the Count's city tally (`in_city`) right, scores =
/// events.
pub fn check_figures_and_scores(g: &Game, in_city: SlotId, ctx: &str) {
    check_figures_and_scores_in(g, Some(in_city), ctx);
}

/// The Count's tally of followers in the City of Carcassonne (`count.in-city`), if the
/// Count is loaded.
pub fn count_tally(rules: &Ruleset) -> Option<SlotId> {
    rules
        .expansion_index("count")
        .map(|_| slot(rules, "count", "in-city"))
}

/// [`check_figures_and_scores`] with the Count's tally checked only if given.
pub fn check_figures_and_scores_in(g: &Game, in_city: Option<SlotId>, ctx: &str) {
    let rules = g.rules();
    let st = g.state();
    let graph = st.graph();
    // The Tower's prisoners (TW-11) are the only figures off the board and out of every
    // supply: core location `Removed` with the figure slot `tower.jailer` set.
    let jailer = rules
        .expansion_index("tower")
        .map(|_| slot(rules, "tower", "jailer"));
    // `figures_of` (what plugins scan instead of every figure) is exactly each player's own.
    let mut seen = 0;
    for p in 0..st.players().len() {
        let player = PlayerId(p as u8);
        let (first, mine) = st.figures_of(player);
        assert_eq!(
            first, seen,
            "{ctx}: player {p}'s figures follow the previous player's"
        );
        assert!(
            mine.iter().all(|f| f.owner == player),
            "{ctx}: figures_of({p})"
        );
        // `View::figures_of_kind`: exactly the player's figures of each kind.
        let view = g.view();
        for (k, def) in rules.figure_kinds().iter().enumerate() {
            let kind = FigureKindId(k as u8);
            let of_kind = view.figures_of_kind(player, kind);
            assert!(
                of_kind.len() == usize::from(def.per_player)
                    && of_kind.iter().all(|f| f.owner == player && f.kind == kind),
                "{ctx}: figures_of_kind({p}, {})",
                def.name
            );
        }
        seen += mine.len();
    }
    // Then the neutral figures, owned by nobody, one block per neutral kind.
    let (first, neutral) = st.neutral_figures();
    assert_eq!(first, seen, "{ctx}: neutral figures follow the players'");
    for (k, def) in rules.figure_kinds().iter().enumerate() {
        let copies = neutral
            .iter()
            .filter(|f| f.kind == FigureKindId(k as u8))
            .count();
        assert_eq!(
            copies,
            usize::from(def.neutral),
            "{ctx}: neutral {}",
            def.name
        );
    }
    assert!(
        neutral
            .iter()
            .all(|f| f.is_neutral() && f.loc != FigureLoc::Removed),
        "{ctx}: neutral figures are nobody's and never prisoners"
    );
    assert_eq!(
        seen + neutral.len(),
        st.figures().len(),
        "{ctx}: figures_of and the neutral figures cover every figure"
    );
    for p in 0..st.players().len() {
        let player = PlayerId(p as u8);
        for (k, def) in rules.figure_kinds().iter().enumerate() {
            let kind = FigureKindId(k as u8);
            let (mut supply, mut board, mut held) = (0, 0, 0);
            for (i, f) in st.figures().iter().enumerate() {
                if f.owner != player || f.kind != kind {
                    continue;
                }
                match f.loc {
                    FigureLoc::Supply => supply += 1,
                    FigureLoc::On(_) => board += 1,
                    FigureLoc::Removed => {
                        let jailed = jailer.is_some_and(|j| st.slot(j, i) > 0);
                        assert!(jailed, "{ctx}: figure {i} removed but nobody's prisoner");
                        held += 1;
                    }
                }
            }
            assert_eq!(
                supply + board + held,
                def.per_player as usize,
                "{ctx}: player {p} kind {k}"
            );
            assert_eq!(
                st.in_supply(player, kind) as usize,
                supply,
                "{ctx}: in_supply"
            );
        }
    }
    let mut on_feature = vec![0u16; graph.len()];
    let mut in_quarters = 0;
    for f in st.figures() {
        if let FigureLoc::On(seg) = f.loc {
            let node = graph.segment(seg);
            // A tower top (TW-6) is the Tower's non-occupiable `tower` segment: a cap is the
            // expansion's own action, not a deployment.
            assert!(
                rules.kind(node.kind).occupiable || rules.kind(node.kind).name == "tower",
                "{ctx}: figure on {node:?}"
            );
            if node.is_virtual() {
                // Off the board: the City of Carcassonne's quarters, or a castle (BCB-9).
                let name = rules.kind(node.kind).name.as_str();
                assert!(
                    name == "quarter" || name == "castle",
                    "{ctx}: figure on {name}"
                );
                in_quarters += usize::from(name == "quarter") as i64;
            }
            // Figures that share features are not occupants.
            if st.occupies(f.kind) {
                on_feature[graph.feature_of(seg).0 as usize] += 1;
            }
        }
    }
    if let Some(in_city) = in_city {
        assert_eq!(st.slot(in_city, 0), in_quarters, "{ctx}: the Count's tally");
    } else {
        assert_eq!(
            in_quarters, 0,
            "{ctx}: figures in quarters without the Count"
        );
    }
    for i in 0..graph.len() {
        let f = graph.feature_of(SegmentId::new(i));
        assert_eq!(
            graph.totals(f).occupants,
            on_feature[f.0 as usize],
            "{ctx}: occupants of the feature of segment {i}"
        );
    }
    let mut sum = vec![0; st.players().len()];
    for e in st.events() {
        // TW-13, BCB-14: the ransom's −3 and the bazaar's payments are the negative events.
        assert!(
            e.points >= 0 || is_payment(rules, e),
            "{ctx}: negative event {e:?}"
        );
        sum[e.player.index()] += e.points;
    }
    assert_eq!(sum, scores(g), "{ctx}: scores are the sum of the events");
}

/// A-11 at a tile step: completed grid features are scored and empty.
pub fn check_completed_scored(g: &Game, ctx: &str) {
    let graph = g.state().graph();
    for i in 0..graph.len() {
        let seg = SegmentId::new(i);
        let f = graph.feature_of(seg);
        let t = graph.totals(f);
        if f.segment() == seg && t.complete() && !graph.segment(seg).is_virtual() {
            let scored = g.rules().kind(graph.kind(f)).scoring != Scoring::Unscored;
            assert!(
                t.scored || !scored,
                "{ctx}: completed feature {i} not scored"
            );
            assert_eq!(t.occupants, 0, "{ctx}: completed feature {i} holds figures");
        }
    }
    // The graph's running count of complete features per kind is the scan's.
    for k in 0..g.rules().kinds().len() {
        let kind = FeatureKindId(k as u8);
        let scanned = graph
            .complete_features()
            .filter(|f| graph.kind(*f) == kind)
            .count() as u32;
        assert_eq!(
            graph.complete_count(kind),
            scanned,
            "{ctx}: complete features of kind {k}"
        );
    }
}

/// At the end: every tile placed, discarded or hidden under a hill, edges match, HS-3 (with Heretics &
/// Shrines), the river is a tree from the spring (RV-4, RV-6, R1-4; with River II or
/// River I, unless `riverSetup=mixed`), the King's
/// and Robber's records (KR-3 … KR-5; with King & Robber).
pub fn check_end(g: &Game, total_tiles: usize, ctx: &str) {
    let rules = g.rules();
    let st = g.state();
    assert!(g.is_over());
    // Barrier tiles (Abbey & Mayor's abbeys) come from outside the supply.
    let from_supply = st
        .board()
        .tiles()
        .iter()
        .filter(|t| !rules.tiles().get(t.kind).barrier)
        .count();
    // Hidden tiles (Hills & Sheep's, under hills, HL-2) and a draw cap leave tiles face
    // down for good; otherwise the supply must be empty.
    let supply = st.supply();
    let face_down = supply.tiles();
    if supply.draws_left != Some(0) {
        assert_eq!(
            face_down, supply.hidden as usize,
            "{ctx}: tiles left undrawn beyond the hidden ones without a draw cap"
        );
    }
    assert_eq!(
        from_supply + st.discards().len() + face_down,
        total_tiles,
        "{ctx}: every tile placed, discarded or hidden"
    );
    let shrine = rules
        .expansion_index("heretics-shrines")
        .and_then(|_| rules.kind_named("shrine"));
    // The plugin that runs the river (River II when both are loaded, R1-9); under
    // `riverSetup=mixed` there is no river phase (R1-11): river tiles go wherever their edges
    // fit, so the river need not be one tree.
    let river = ["river2", "river"]
        .into_iter()
        .find(|id| rules.expansion_index(id).is_some())
        .filter(|id| rules.options().str(&format!("{id}.riverSetup")) != "mixed")
        .and_then(|_| rules.kind_named("river"));
    // `shrines=plain-cloisters`: no HS-3 (the shrine tiles are plain cloisters).
    let crowding = rules.options().flag("heretics-shrines.shrineCrowding")
        || rules.options().str("heretics-shrines.shrines") == "plain-cloisters";
    let mut river_tiles = 0;
    let mut river_contacts = 0;
    for t in st.board().tiles() {
        let tk = rules.tiles().get(t.kind);
        // Edge codes are kind + 1; without a river expansion nothing counts as water.
        let water = river.map_or(0, |r| r.0 + 1);
        let is_river = river.is_some()
            && Side::ALL
                .iter()
                .any(|s| tk.edge_at(t.rotation, *s) == water);
        river_tiles += is_river as usize;
        for s in Side::ALL {
            if let Some(n) = st.board().at(t.pos.step(s)) {
                let nk = rules.tiles().get(n.kind);
                // A barrier edge (the abbey) matches every edge.
                if tk.barrier || nk.barrier {
                    continue;
                }
                let (a, b) = (
                    tk.edge_at(t.rotation, s),
                    nk.edge_at(n.rotation, s.opposite()),
                );
                // Equal edges, or two an expansion declares to meet (`edge_meets`: The City
                // Gates' gate faces a road or a field).
                assert!(
                    a == b || rules.edges_meet(a, b),
                    "{ctx}: edges of {} and {} differ ({a} against {b})",
                    t.pos,
                    n.pos
                );
                river_contacts += (river.is_some() && a == water) as usize;
            }
        }
        // HS-3: buildings around a shrine / a cloister (a garden is none, AG-11).
        let Some(shrine) = shrine else { continue };
        let has = |pos: carcassonne_core::Pos, want_shrine: bool| {
            st.board().at(pos).is_some_and(|n| {
                rules.tiles().get(n.kind).segments.iter().any(|s| {
                    let k = rules.kind(s.kind);
                    k.scoring == Scoring::Cloister
                        && k.name != "garden"
                        && (s.kind == shrine) == want_shrine
                })
            })
        };
        for want_shrine in [true, false] {
            if has(t.pos, want_shrine) && !crowding {
                let rivals = t
                    .pos
                    .surrounding()
                    .iter()
                    .filter(|q| has(**q, !want_shrine))
                    .count();
                assert!(rivals < 2, "{ctx}: HS-3 broken at {}", t.pos);
            }
        }
    }
    // Each contact is seen from both sides; a tree of n river tiles has n - 1 contacts.
    if river.is_some() {
        assert_eq!(
            river_contacts / 2 + 1,
            river_tiles,
            "{ctx}: the river is not a tree from the spring"
        );
    }
    // KR-3 … KR-5: records = largest completed city / road. A city made a castle (BCB-9,
    // taken over) is not `counted` as a completed city, and not by the King.
    if rules.expansion_index("king-robber").is_none() {
        return;
    }
    let graph = st.graph();
    for (title, scoring) in [("king", Scoring::City), ("robber", Scoring::Road)] {
        let mut largest = 0;
        for i in 0..graph.len() {
            let seg = SegmentId::new(i);
            let f = graph.feature_of(seg);
            if f.segment() == seg
                && !graph.segment(seg).is_virtual()
                && graph.totals(f).counted()
                && rules.kind(graph.kind(f)).scoring == scoring
            {
                largest = largest.max(graph.tile_count(f) as i64);
            }
        }
        let record = st.slot(slot(rules, "king-robber", &format!("{title}-record")), 0);
        let holder = st.slot(slot(rules, "king-robber", title), 0);
        assert_eq!(record, largest, "{ctx}: {title} record");
        assert_eq!(holder >= 0, largest > 0, "{ctx}: {title} holder {holder}");
    }
}

/// A replayed game equals the original: scores, events, figures and board.
pub fn check_same_game(replayed: &Game, g: &Game, ctx: &str) {
    assert_eq!(scores(replayed), scores(g), "{ctx}: replayed scores");
    assert_eq!(
        replayed.state().events(),
        g.state().events(),
        "{ctx}: events"
    );
    assert_eq!(
        replayed.state().figures(),
        g.state().figures(),
        "{ctx}: figures"
    );
    let cells = |g: &Game| -> Vec<_> {
        g.state()
            .board()
            .tiles()
            .iter()
            .map(|t| (t.kind, t.pos, t.rotation))
            .collect()
    };
    assert_eq!(cells(replayed), cells(g), "{ctx}: board");
}

/// The repository's `fan-expansions/` folder (Rhai-script fan expansions).
pub fn fan_expansions_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("fan-expansions")
}

/// Every expansion state slot of a game, in declaration order (to compare two games).
pub fn all_slots(g: &Game) -> Vec<i64> {
    let st = g.state();
    let mut out = Vec::new();
    for (i, def) in g.rules().slots().iter().enumerate() {
        let len = match def.scope {
            SlotScope::Game => 1,
            SlotScope::Player => st.players().len(),
            SlotScope::Figure => st.figures().len(),
        };
        out.extend((0..len).map(|k| st.slot(SlotId(i as u16), k)));
    }
    out
}

/// The game's record, through its JSON text, replays to the identical game: scores, events,
/// figures, board and every expansion state slot. Returns the replayed game.
pub fn check_record_replays(
    g: &Game,
    setup: &carcassonne_core::GameSetup,
    actions: &[Action],
    ctx: &str,
) -> Game {
    use carcassonne_play::record::Record;
    let record =
        Record::with_setup(g, setup, actions).unwrap_or_else(|e| panic!("{ctx}: record: {e}"));
    let json = serde_json::to_string(&record).expect("record serialises");
    let parsed = Record::parse(&json, ctx).expect("record parses");
    let replayed = parsed
        .replay_with(g.rules(), ctx, None)
        .unwrap_or_else(|e| panic!("{ctx}: replay: {e}"));
    check_same_game(&replayed, g, ctx);
    assert_eq!(all_slots(&replayed), all_slots(g), "{ctx}: expansion state");
    replayed
}

/// One game of random bots (bot `p` seeded `bot_seed ^ p`) under the checks every mixed test
/// shares: A-11 at each tile step, monotone scores, figures and scores after every action,
/// the end checks, and the record replaying to the same game. At most `max_actions` actions.
pub fn play_random_checked(
    rules: &std::sync::Arc<Ruleset>,
    setup: &carcassonne_core::GameSetup,
    bot_seed: u64,
    max_actions: usize,
    ctx: &str,
) {
    use carcassonne_play::bots::{Bot, RandomBot};
    let bots: Vec<Box<dyn Bot>> = (0..setup.players.len())
        .map(|p| Box::new(RandomBot::new(bot_seed ^ p as u64)) as Box<dyn Bot>)
        .collect();
    play_checked(rules, setup, bots, max_actions, ctx);
}

/// What [`play_checked`] saw in one game.
#[derive(Debug, Default, Clone, Copy)]
pub struct Played {
    /// Actions applied.
    pub actions: usize,
    /// Turns with a second placement (a builder's double turn, …).
    pub double_turns: usize,
    /// Custom actions (expansions' own choices: tokens, discs, tower pieces, the dragon …).
    pub custom: usize,
}

/// One game with the given bots (one per seat) under every shared check that applies to
/// the loaded expansions: A-11 at each tile step; after every action monotone scores,
/// figures conserved and occupancy exact ([`check_figures_and_scores_in`], the Count's tally
/// if loaded), goods, builders and pigs ([`check_traders`]), the dragon ([`check_dragon`]),
/// at most two placements per turn (TB-13, core's one extra part); at the end
/// [`check_end`] (tiles still held back by Princess & Dragon excepted) and
/// [`check_final_goods`]; and the record replaying to the identical game.
pub fn play_checked(
    rules: &std::sync::Arc<Ruleset>,
    setup: &carcassonne_core::GameSetup,
    mut bots: Vec<Box<dyn carcassonne_play::bots::Bot>>,
    max_actions: usize,
    ctx: &str,
) -> Played {
    let mut g =
        Game::new(std::sync::Arc::clone(rules), setup).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    assert_eq!(bots.len(), setup.players.len(), "{ctx}: one bot per seat");
    let in_city = count_tally(rules);
    // With Princess & Dragon, its dragon tiles wait aside until a volcano (PD-3).
    let total_tiles = total_tiles(&g) + held_aside(&g);
    let mut actions: Vec<Action> = Vec::new();
    let mut played = Played::default();
    let (mut turn, mut parts) = (u32::MAX, 0);
    while !g.is_over() {
        assert!(actions.len() < max_actions, "{ctx}: the game does not end");
        if matches!(
            g.decision().kind,
            carcassonne_core::DecisionKind::PlaceTile { .. }
        ) {
            check_completed_scored(&g, ctx);
        }
        let i = bots[g.decision().player.index()].choose(&g);
        let a = g.actions()[i];
        match a {
            Action::Place { .. } => {
                if g.state().turn() == turn {
                    parts += 1;
                    played.double_turns += 1;
                    assert!(parts <= 2, "{ctx}: a third placement in one turn (TB-13)");
                } else {
                    turn = g.state().turn();
                    parts = 1;
                }
            }
            Action::Custom(_) => played.custom += 1,
            _ => {}
        }
        apply_monotone(&mut g, a, ctx);
        actions.push(a);
        check_figures_and_scores_in(&g, in_city, ctx);
        check_traders(&g, ctx);
        check_dragon(&g, ctx);
        check_gardens(&g, ctx);
    }
    check_end(&g, total_tiles - held_aside(&g), ctx);
    check_final_goods(&g, ctx);
    check_record_replays(&g, setup, &actions, ctx);
    played.actions = actions.len();
    played
}

/// Traders & Builders' goods and how many of each are printed on its tiles (TB-8).
pub const GOODS: [(&str, i64); 3] = [("wine", 9), ("grain", 6), ("cloth", 5)];

/// With Traders & Builders, after every action: goods conserved (TB-8: held + supply = the
/// printed symbols); every builder stands on a road or city and every pig on a farm where
/// its owner has a follower (TB-10, TB-17, TB-19, TB-21). Nothing without it.
pub fn check_traders(g: &Game, ctx: &str) {
    let rules = g.rules();
    if rules.expansion_index("traders-builders").is_none() {
        return;
    }
    let st = g.state();
    let n = st.players().len();
    for (good, total) in GOODS {
        let held: i64 = (0..n)
            .map(|p| st.slot(slot(rules, "traders-builders", good), p))
            .sum();
        let left = st.slot(
            slot(rules, "traders-builders", &format!("{good}-supply")),
            0,
        );
        assert_eq!(held + left, total, "{ctx}: {good} conserved");
        assert!(left >= 0, "{ctx}: {good} supply");
    }
    let builder = rules.figure_named("builder").expect("builder");
    let pig = rules.figure_named("pig").expect("pig");
    let graph = st.graph();
    for f in st.figures() {
        if f.kind != builder && f.kind != pig {
            continue;
        }
        let FigureLoc::On(s) = f.loc else { continue };
        let feature = graph.feature_of(s);
        let scoring = rules.kind(graph.kind(feature)).scoring;
        if f.kind == builder {
            assert!(
                matches!(scoring, Scoring::City | Scoring::Road),
                "{ctx}: builder on {scoring:?}"
            );
        } else {
            assert_eq!(scoring, Scoring::Farm, "{ctx}: pig");
        }
        let backed = st.figures().iter().any(|o| {
            o.owner == f.owner
                && rules.figure_kind(o.kind).follower
                && matches!(o.loc, FigureLoc::On(t) if graph.feature_of(t) == feature)
        });
        assert!(
            backed,
            "{ctx}: a builder or pig without its owner's follower"
        );
    }
}

/// With Traders & Builders, at the end (TB-6): exactly the trade-goods events the held
/// tokens call for. Nothing without it.
pub fn check_final_goods(g: &Game, ctx: &str) {
    let rules = g.rules();
    if rules.expansion_index("traders-builders").is_none() {
        return;
    }
    let st = g.state();
    let n = st.players().len();
    let label = rules
        .labels()
        .iter()
        .position(|l| l == "trade-goods")
        .expect("label");
    let mut want = vec![0; n];
    for (good, _) in GOODS {
        let held: Vec<i64> = (0..n)
            .map(|p| st.slot(slot(rules, "traders-builders", good), p))
            .collect();
        let max = held.iter().copied().max().unwrap_or(0);
        for p in 0..n {
            if max >= 1 && held[p] == max {
                want[p] += 10;
            }
        }
    }
    let mut got = vec![0; n];
    for e in st.events() {
        if e.source == ScoreSource::Label(carcassonne_core::LabelId(label as u16)) {
            assert!(e.final_scoring, "{ctx}: trade-goods outside final scoring");
            got[e.player.index()] += e.points;
        }
    }
    assert_eq!(got, want, "{ctx}: final goods");
}

/// With Princess & Dragon, after every action: the dragon, once in play, stands on a tile
/// it may enter (never the City of Carcassonne's central tiles `CO/6`, `CO/7`; none of its
/// tiles under `dragonOnCoC=never`), and a flight has at most 6 steps. Nothing without it.
pub fn check_dragon(g: &Game, ctx: &str) {
    let rules = g.rules();
    if rules.expansion_index("princess-dragon").is_none() {
        return;
    }
    let st = g.state();
    let get = |n: &str| st.slot(slot(rules, "princess-dragon", n), 0);
    if get("dragon") != 0 {
        let p = carcassonne_core::Pos::new(get("dragon-x") as i32, get("dragon-y") as i32);
        let t = st
            .board()
            .at(p)
            .unwrap_or_else(|| panic!("{ctx}: the dragon stands on no tile at {p}"));
        let id = &rules.tiles().get(t.kind).id;
        assert!(
            id != "CO/6" && id != "CO/7",
            "{ctx}: the dragon stands on {id}"
        );
        if rules.options().str("princess-dragon.dragonOnCoC") == "never" {
            assert!(
                !rules.tiles().get(t.kind).has_tag("city-of-carcassonne"),
                "{ctx}: the dragon entered the City of Carcassonne"
            );
        }
    }
    assert!(get("flight-steps") <= 6, "{ctx}: more than 6 steps");
}

/// The abbot and gardens (when loaded): only an abbot stands on a garden (AG-3), and an
/// abbot stands only on a feature scored like a cloister: a cloister, a garden, a shrine
/// (AG-5), or the cathedral quarter of the City of Carcassonne, and in no quarter under
/// `abbot-garden.countQuarters=none` (JCZ's `CocFollowerPhase` offers it none).
pub fn check_gardens(g: &Game, ctx: &str) {
    let rules = g.rules();
    let (Some(garden), Some(abbot)) = (rules.kind_named("garden"), rules.figure_named("abbot"))
    else {
        return;
    };
    let no_quarters = rules.options().str("abbot-garden.countQuarters") == "none";
    let graph = g.state().graph();
    for f in g.state().figures() {
        let FigureLoc::On(seg) = f.loc else { continue };
        let kind = graph.segment(seg).kind;
        if kind == garden {
            assert_eq!(
                f.kind, abbot,
                "{ctx}: a figure other than an abbot on a garden (AG-3)"
            );
        }
        if f.kind == abbot && graph.segment(seg).is_virtual() {
            assert!(
                !no_quarters,
                "{ctx}: an abbot in the Count's quarters (AG-5)"
            );
        } else if f.kind == abbot {
            let scoring = rules.kind(graph.kind(graph.feature_of(seg))).scoring;
            assert_eq!(
                scoring,
                Scoring::Cloister,
                "{ctx}: an abbot off a cloister or garden (AG-5)"
            );
        }
    }
}

/// Plays one seeded random 2-player game of `rules` to its end, calling `each` at every
/// decision (the last one, game over, included). The moves come from a linear congruential
/// sequence started at `seed + salt`, so a test picks the same games on every run.
pub fn play_seeded_random(rules: &Arc<Ruleset>, seed: u64, salt: u64, mut each: impl FnMut(&Game)) {
    let setup = GameSetup::new(vec!["A".into(), "B".into()], seed);
    let mut game = Game::new(rules.clone(), &setup).unwrap();
    let mut pick = seed.wrapping_add(salt);
    loop {
        each(&game);
        if game.is_over() {
            break;
        }
        pick = pick
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let i = (pick >> 33) as usize % game.actions().len();
        game.play_offered(i).unwrap();
    }
}

/// A copy of `g` ended at this decision (`Game::end_now`, as a search values the end of a
/// playout), the end's questions (the Count's and the abbey's final rounds) answered by
/// `choose` until the game is over. Panics, naming `ctx`, if a hook fails, an offered
/// action is refused or the copy does not end.
pub fn ended_copy(g: &Game, mut choose: impl FnMut(&Game) -> usize, ctx: &str) -> Game {
    let mut end = g.clone();
    end.end_now()
        .unwrap_or_else(|e| panic!("{ctx}: end_now: {e}"));
    let mut asked = 0;
    while !end.is_over() {
        asked += 1;
        assert!(asked < 500, "{ctx}: the ended copy does not end");
        let a = end.actions()[choose(&end)];
        end.apply(a)
            .unwrap_or_else(|e| panic!("{ctx}: offered {a} refused: {e}"));
    }
    end
}
