//! Property tests over thousands of seeded random games (base game, all option values).
//!
//! Checked at every decision or after every action:
//! 1. followers are conserved and the feature graph's occupant counts match the figures;
//! 2. scores never decrease (and equal the sum of the score events);
//! 3. every tile is placed or discarded (board + discarded = 72), and a discarded tile fits nowhere;
//! 4. a game's record replays to the identical final state and events; same seed + actions = same game;
//! 5. an action that is not offered is refused with `NotOffered` and changes nothing;
//! 6. every option value plays to the end with 1-3 intact; `farmers=false` keeps fields empty;
//! 7. the offered placements are exactly the edge-matching (cell, rotation) pairs (brute force).
//!
//! Proptest runs with a fixed RNG seed so CI is reproducible; set `PROPTEST_RNG_SEED` to explore
//! other games and `PROPTEST_CASES` to change the number of games per property.

use carcassonne_core::{
    Action, ActionError, DecisionKind, FeatureKindId, Figure, FigureId, FigureKindId, FigureLoc,
    Game, GameSetup, PlacedTile, PlayerId, Pos, Rotation, Ruleset, ScoreEvent, ScoreSource,
    SegmentId, Shape, Side,
};
use carcassonne_play::bots::{Bot, GreedyBot, RandomBot};
use carcassonne_play::record::Record;
use carcassonne_play::simulate::play_game;
use carcassonne_rules::{build_ruleset, RulesSpec};
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestCaseError};
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

/// Tiles in the base game, start tile included.
const BASE_TILES: usize = 72;
/// Small followers per player.
const FOLLOWERS: usize = 7;

type TestResult = Result<(), TestCaseError>;

/// `cases` games per property unless `PROPTEST_CASES` says otherwise; a fixed RNG seed
/// unless `PROPTEST_RNG_SEED` is set.
fn config(cases: u32) -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = cases;
    }
    if matches!(c.rng_seed, RngSeed::Random) {
        c.rng_seed = RngSeed::Fixed(0x00C4_2C45_5014);
    }
    c.failure_persistence = None;
    c
}

/// The option sets every property may run with (item 6).
const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[],
    &[("farmScoring", "2nd")],
    &[("farmScoring", "1st")],
    &[("smallCity", "1st/2nd")],
    &[("farmers", "false")],
    &[
        ("farmScoring", "1st"),
        ("smallCity", "1st/2nd"),
        ("farmers", "true"),
    ],
];

fn spec(options: &[(&str, &str)]) -> RulesSpec {
    RulesSpec {
        plugin_dirs: vec![],
        expansions: vec![],
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

/// The rulesets of [`OPTION_SETS`], built once.
fn rulesets() -> &'static [Arc<Ruleset>] {
    static R: OnceLock<Vec<Arc<Ruleset>>> = OnceLock::new();
    R.get_or_init(|| {
        OPTION_SETS
            .iter()
            .map(|o| build_ruleset(&spec(o)).expect("option set builds"))
            .collect()
    })
}

fn new_game(rules: &Arc<Ruleset>, players: usize, seed: u64) -> Game {
    Game::new(
        Arc::clone(rules),
        &GameSetup::new((0..players).map(|i| format!("P{}", i + 1)).collect(), seed),
    )
    .expect("a base game starts")
}

/// A tiny deterministic RNG for the test's own choices (SplitMix64).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn scores(game: &Game) -> Vec<i32> {
    game.state().players().iter().map(|p| p.score).collect()
}

fn is_field(rules: &Ruleset, game: &Game, seg: SegmentId) -> bool {
    rules.kind(game.state().graph().segment(seg).kind).shape == Shape::Field
}

// ------------------------------------------------------------------------------------------
// Invariant checks
// ------------------------------------------------------------------------------------------

/// Item 1: figures in supply + on board + removed = 7 per player, `in_supply` agrees with the
/// figures, and each feature's occupant count equals the figures standing on it. Also: figures
/// stand on real, occupiable segments of placed tiles; with `farmers=false` never on a field.
fn check_figures(game: &Game) -> TestResult {
    let rules = game.rules();
    let st = game.state();
    let g = st.graph();
    let players = st.players().len();
    prop_assert_eq!(st.figures().len(), players * FOLLOWERS);
    prop_assert_eq!(
        rules.figure_kinds().len(),
        1,
        "base game: small followers only"
    );
    for p in 0..players {
        let player = PlayerId(p as u8);
        for (k, def) in rules.figure_kinds().iter().enumerate() {
            let kind = FigureKindId(k as u8);
            let mine: Vec<&Figure> = st
                .figures()
                .iter()
                .filter(|f| f.owner == player && f.kind == kind)
                .collect();
            let supply = mine.iter().filter(|f| f.loc == FigureLoc::Supply).count();
            let board = mine
                .iter()
                .filter(|f| matches!(f.loc, FigureLoc::On(_)))
                .count();
            let removed = mine.iter().filter(|f| f.loc == FigureLoc::Removed).count();
            prop_assert_eq!(def.per_player as usize, FOLLOWERS);
            prop_assert_eq!(
                supply + board + removed,
                FOLLOWERS,
                "player {} kind {}: supply {} + board {} + removed {}",
                p,
                k,
                supply,
                board,
                removed
            );
            prop_assert_eq!(removed, 0, "the base game removes no figure");
            prop_assert_eq!(
                st.in_supply(player, kind) as usize,
                supply,
                "player {}: in_supply disagrees with the figures in supply",
                p
            );
        }
    }
    let mut on_feature: Vec<u16> = vec![0; g.len()];
    for (i, f) in st.figures().iter().enumerate() {
        if let FigureLoc::On(seg) = f.loc {
            prop_assert!(seg.index() < g.len(), "figure {} on a missing segment", i);
            let node = g.segment(seg);
            prop_assert!(!node.is_virtual(), "figure {} on a virtual segment", i);
            prop_assert!((node.tile as usize) < st.board().tiles().len());
            prop_assert_eq!(st.board().tile(node.tile).pos, node.pos);
            prop_assert!(rules.kind(node.kind).occupiable);
            if !rules.base().farmers {
                prop_assert!(
                    rules.kind(node.kind).shape != Shape::Field,
                    "farmers=false but figure {} stands on a field at {}",
                    i,
                    node.pos
                );
            }
            on_feature[g.feature_of(seg).0 as usize] += 1;
        }
    }
    for seg in g.graph().node_indices() {
        let f = g.feature_of(seg);
        let want = on_feature[f.0 as usize];
        prop_assert_eq!(
            g.totals(f).occupants,
            want,
            "feature of segment {} at {}: graph says {} occupants, {} figures stand on it",
            seg.index(),
            g.segment(seg).pos,
            g.totals(f).occupants,
            want
        );
    }
    Ok(())
}

/// A-11 at the start of a turn: every completed feature has been scored and holds no figure.
fn check_completed_features_scored(game: &Game) -> TestResult {
    let st = game.state();
    let g = st.graph();
    for seg in g.graph().node_indices() {
        let f = g.feature_of(seg);
        let t = g.totals(f);
        if t.complete() {
            prop_assert!(
                t.scored,
                "completed feature at {} was not scored",
                g.segment(seg).pos
            );
            prop_assert_eq!(
                t.occupants,
                0,
                "completed feature at {} still holds figures",
                g.segment(seg).pos
            );
        }
    }
    Ok(())
}

/// Item 2 (and the event log): the score of each player equals the sum of their events.
fn check_events_sum(game: &Game) -> TestResult {
    let st = game.state();
    let mut sum = vec![0i32; st.players().len()];
    for e in st.events() {
        prop_assert!(e.points >= 0, "negative score event {:?}", e);
        sum[e.player.index()] += e.points;
        if !st.in_final_scoring() {
            prop_assert!(!e.final_scoring);
        }
    }
    prop_assert_eq!(
        sum,
        scores(game),
        "scores differ from the sum of score events"
    );
    Ok(())
}

/// The placed tiles by cell, built from the tile list alone (a dense grid: hashing in a
/// debug build would cost more than the games themselves).
struct Grid {
    min: Pos,
    width: i32,
    height: i32,
    cells: Vec<Option<PlacedTile>>,
    tiles: Vec<PlacedTile>,
}

impl Grid {
    fn get(&self, p: &Pos) -> Option<&PlacedTile> {
        let (dx, dy) = (p.x - self.min.x, p.y - self.min.y);
        if dx < 0 || dy < 0 || dx >= self.width || dy >= self.height {
            return None;
        }
        self.cells[(dy * self.width + dx) as usize].as_ref()
    }

    fn contains_key(&self, p: &Pos) -> bool {
        self.get(p).is_some()
    }

    fn values(&self) -> impl Iterator<Item = &PlacedTile> {
        self.tiles.iter()
    }
}

fn tiles_by_cell(game: &Game) -> Result<Grid, TestCaseError> {
    let tiles = game.state().board().tiles();
    let (mut lo, mut hi) = (Pos::new(0, 0), Pos::new(0, 0));
    for t in tiles {
        lo = Pos::new(lo.x.min(t.pos.x), lo.y.min(t.pos.y));
        hi = Pos::new(hi.x.max(t.pos.x), hi.y.max(t.pos.y));
    }
    let min = Pos::new(lo.x - 1, lo.y - 1);
    let (width, height) = (hi.x - lo.x + 3, hi.y - lo.y + 3);
    let mut grid = Grid {
        min,
        width,
        height,
        cells: vec![None; (width * height) as usize],
        tiles: tiles.to_vec(),
    };
    for t in tiles {
        let i = ((t.pos.y - min.y) * width + (t.pos.x - min.x)) as usize;
        prop_assert!(grid.cells[i].is_none(), "two tiles at {}", t.pos);
        grid.cells[i] = Some(*t);
    }
    Ok(grid)
}

/// Whether `kind` turned by `r` fits at `cell` next to `tiles`, computed from
/// `TileKind::edge_at` only.
fn fits(
    rules: &Ruleset,
    tiles: &Grid,
    kind: carcassonne_core::TileKindId,
    cell: Pos,
    r: Rotation,
) -> bool {
    let k = rules.tiles().get(kind);
    let mut touches = false;
    for s in Side::ALL {
        if let Some(n) = tiles.get(&cell.step(s)) {
            touches = true;
            let theirs = rules.tiles().get(n.kind).edge_at(n.rotation, s.opposite());
            if k.edge_at(r, s) != theirs {
                return false;
            }
        }
    }
    touches && !tiles.contains_key(&cell)
}

/// Empty cells sharing an edge with a placed tile.
fn open_cells(tiles: &Grid) -> Vec<Pos> {
    let mut v: Vec<Pos> = tiles
        .values()
        .flat_map(|t| Side::ALL.map(|s| t.pos.step(s)))
        .filter(|q| !tiles.contains_key(q))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Every legal (cell, rotation) for `kind` by brute force.
fn brute_force_placements(
    rules: &Ruleset,
    tiles: &Grid,
    cells: &[Pos],
    kind: carcassonne_core::TileKindId,
) -> BTreeSet<(Pos, u8)> {
    let mut out = BTreeSet::new();
    for &cell in cells {
        for r in Rotation::ALL {
            if fits(rules, tiles, kind, cell, r) {
                out.insert((cell, r.quarters()));
            }
        }
    }
    out
}

/// Item 7: the offered placements are exactly the brute-force ones; the frontier is exactly
/// the set of open cells; the cheap accessors agree with `actions()`.
fn check_placements(game: &Game) -> TestResult {
    let DecisionKind::PlaceTile { tile } = game.decision().kind else {
        return Ok(());
    };
    let rules = game.rules();
    let tiles = tiles_by_cell(game)?;
    let cells = open_cells(&tiles);
    let want = brute_force_placements(rules, &tiles, &cells, tile);
    let mut got = BTreeSet::new();
    for a in game.actions() {
        match *a {
            Action::Place { pos, rotation } => {
                prop_assert!(
                    got.insert((pos, rotation.quarters())),
                    "placement offered twice: {}",
                    a
                );
            }
            other => prop_assert!(false, "{} offered in a tile step", other),
        }
    }
    prop_assert!(
        !want.is_empty(),
        "A-4: a tile with no legal placement was offered"
    );
    if got != want {
        let missing: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        prop_assert!(
            false,
            "tile {}: offered placements differ from edge matching; missing {:?}, illegal {:?}",
            rules.tiles().get(tile).id,
            missing,
            extra
        );
    }
    prop_assert_eq!(game.action_count(), game.actions().len());
    // `offered_at` walks the cells, so check a sample of indices and the last one.
    let n = game.actions().len();
    for i in (0..n).step_by(5).chain([n - 1]) {
        let a = game.actions()[i];
        prop_assert_eq!(game.state().offered_at(i), Some(a));
        prop_assert!(game.state().is_offered(&a));
    }
    prop_assert_eq!(game.state().offered_at(game.actions().len()), None);
    let mut frontier: Vec<Pos> = game
        .state()
        .board()
        .frontier()
        .iter()
        .map(|f| f.pos)
        .collect();
    frontier.sort_unstable();
    prop_assert_eq!(
        frontier,
        cells,
        "frontier != empty cells next to tiles (or a cell listed twice)"
    );
    // `placements_for` gives the same list for the drawn tile.
    let mut v = Vec::new();
    game.placements_for(tile, &mut v)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&v[..], game.actions());
    Ok(())
}

/// the deployment step offers exactly one deploy per free occupiable segment of the tile
/// just placed (fields only with farmers), plus Pass.
fn check_deployments(game: &Game) -> TestResult {
    let DecisionKind::Deploy { tile } = game.decision().kind else {
        return Ok(());
    };
    let rules = game.rules();
    let st = game.state();
    let g = st.graph();
    prop_assert_eq!(st.last_placed(), Some(tile));
    prop_assert_eq!(game.decision().player, st.active_player());
    let placed = *st.board().tile(tile);
    let kind = rules.tiles().get(placed.kind);
    let player = game.decision().player;
    let mut want: BTreeSet<(u8, usize)> = BTreeSet::new();
    if st.in_supply(player, FigureKindId::SMALL_FOLLOWER) > 0 {
        for local in 0..kind.segments.len() as u8 {
            let seg = st
                .segment_at(placed.pos, local)
                .ok_or_else(|| TestCaseError::fail(format!("no segment {local}")))?;
            let def = rules.kind(g.segment(seg).kind);
            let free = g.totals(g.feature_of(seg)).occupants == 0;
            if def.occupiable && free && (rules.base().farmers || def.shape != Shape::Field) {
                want.insert((0, seg.index()));
            }
        }
    }
    let mut got = BTreeSet::new();
    let mut pass = false;
    for a in game.actions() {
        match *a {
            Action::Deploy { figure, segment } => {
                prop_assert!(got.insert((figure.0, segment.index())), "{} twice", a);
                if !rules.base().farmers {
                    prop_assert!(!is_field(rules, game, segment), "farmer offered: {}", a);
                }
            }
            Action::Pass => pass = true,
            other => prop_assert!(false, "{} offered in the deployment step", other),
        }
    }
    prop_assert!(pass, "Pass is always offered in the deployment step");
    prop_assert!(!want.is_empty(), "a deployment step with nothing but Pass");
    prop_assert_eq!(got, want, "deployments differ from A-5");
    Ok(())
}

/// All checks that hold at any decision.
fn check_decision(game: &Game) -> TestResult {
    check_figures(game)?;
    check_events_sum(game)?;
    check_placements(game)?;
    check_deployments(game)?;
    if matches!(game.decision().kind, DecisionKind::PlaceTile { .. }) {
        check_completed_features_scored(game)?;
    }
    let st = game.state();
    let drawn = matches!(game.decision().kind, DecisionKind::PlaceTile { .. }) as usize;
    prop_assert_eq!(
        st.board().tiles().len() + st.discards().len() + st.supply().remaining() + drawn,
        BASE_TILES,
        "board + discarded + supply + drawn tile"
    );
    Ok(())
}

/// Item 3 and the end state: 72 tiles placed or discarded, nothing left, every adjacent pair
/// of tiles matches, nothing offered, refusals once over.
fn check_end(game: &Game) -> TestResult {
    let st = game.state();
    prop_assert!(game.is_over());
    prop_assert_eq!(game.decision().kind, DecisionKind::GameOver);
    prop_assert!(game.actions().is_empty());
    prop_assert_eq!(game.action_count(), 0);
    prop_assert_eq!(st.supply().remaining(), 0);
    prop_assert_eq!(
        st.board().tiles().len() + st.discards().len(),
        BASE_TILES,
        "board {} + discarded {}",
        st.board().tiles().len(),
        st.discards().len()
    );
    check_figures(game)?;
    check_events_sum(game)?;
    let rules = game.rules();
    let tiles = tiles_by_cell(game)?;
    for t in tiles.values() {
        for s in Side::ALL {
            if let Some(n) = tiles.get(&t.pos.step(s)) {
                prop_assert_eq!(
                    rules.tiles().get(t.kind).edge_at(t.rotation, s),
                    rules.tiles().get(n.kind).edge_at(n.rotation, s.opposite()),
                    "edges of {} and {} do not match",
                    t.pos,
                    n.pos
                );
            }
        }
    }
    let before = snapshot(game);
    let mut g = game.clone();
    prop_assert_eq!(g.apply(Action::Pass), Err(ActionError::GameOver));
    let bad_index = matches!(
        g.apply_offered(0),
        Err(ActionError::BadIndex { index: 0, len: 0 })
    );
    prop_assert!(bad_index, "apply_offered(0) after the end is a bad index");
    prop_assert_eq!(snapshot(&g), before);
    Ok(())
}

/// Plays a game with random bots (one per seat), checking every decision and action.
/// Returns the finished game and the actions taken.
fn play_checked(
    rules: &Arc<Ruleset>,
    players: usize,
    seed: u64,
    bot_seed: u64,
) -> Result<(Game, Vec<Action>), TestCaseError> {
    let mut game = new_game(rules, players, seed);
    let mut bots: Vec<RandomBot> = (0..players)
        .map(|p| RandomBot::new(bot_seed.wrapping_add(p as u64)))
        .collect();
    let mut actions = Vec::new();
    let mut discarded = game.state().discards().len();
    let mut guard = 0;
    while !game.is_over() {
        guard += 1;
        prop_assert!(guard < 1000, "the game does not end");
        check_decision(&game)?;
        // tiles discarded since the last decision fit nowhere on this board (the board
        // has not changed since they were drawn).
        if game.state().discards().len() > discarded {
            let tiles = tiles_by_cell(&game)?;
            for &t in &game.state().discarded()[discarded..] {
                prop_assert!(
                    brute_force_placements(rules, &tiles, &open_cells(&tiles), t).is_empty(),
                    "tile {} was discarded but fits",
                    rules.tiles().get(t).id
                );
            }
        }
        discarded = game.state().discards().len();
        let before = scores(&game);
        let events_before: Vec<ScoreEvent> = game.state().events().to_vec();
        let who = game.decision().player.index();
        let i = bots[who].choose(&game);
        let a = game.actions()[i];
        actions.push(a);
        game.apply(a)
            .map_err(|e| TestCaseError::fail(format!("offered action {a} refused: {e}")))?;
        let after = scores(&game);
        for (p, (b, n)) in before.iter().zip(&after).enumerate() {
            prop_assert!(
                n >= b,
                "player {}'s score fell from {} to {} after {}",
                p,
                b,
                n,
                a
            );
        }
        prop_assert_eq!(
            &game.state().events()[..events_before.len()],
            &events_before[..],
            "score events were rewritten"
        );
    }
    let tiles = tiles_by_cell(&game)?;
    for &t in &game.state().discarded()[discarded..] {
        prop_assert!(
            brute_force_placements(rules, &tiles, &open_cells(&tiles), t).is_empty(),
            "tile {} was discarded at the end but fits",
            rules.tiles().get(t).id
        );
    }
    check_end(&game)?;
    let places = actions
        .iter()
        .filter(|a| matches!(a, Action::Place { .. }))
        .count();
    prop_assert_eq!(places + 1, game.state().board().tiles().len());
    Ok((game, actions))
}

// ------------------------------------------------------------------------------------------
// Snapshots for "nothing changed" and "identical game"
// ------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    scores: Vec<i32>,
    events: Vec<ScoreEvent>,
    tiles: Vec<(carcassonne_core::TileKindId, Pos, Rotation)>,
    figures: Vec<Figure>,
    offered: Vec<Action>,
    decision: carcassonne_core::Decision,
    discarded: Vec<carcassonne_core::TileKindId>,
    remaining: usize,
    turn: u32,
    over: bool,
    segments: usize,
}

fn snapshot(game: &Game) -> Snapshot {
    let st = game.state();
    Snapshot {
        scores: scores(game),
        events: st.events().to_vec(),
        tiles: st
            .board()
            .tiles()
            .iter()
            .map(|t| (t.kind, t.pos, t.rotation))
            .collect(),
        figures: st.figures().to_vec(),
        offered: game.actions().to_vec(),
        decision: game.decision(),
        discarded: st.discarded().to_vec(),
        remaining: st.supply().remaining(),
        turn: st.turn(),
        over: game.is_over(),
        segments: st.graph().len(),
    }
}

// ------------------------------------------------------------------------------------------
// Item 5: refused actions
// ------------------------------------------------------------------------------------------

/// Actions that are not offered now, of several sorts.
fn bad_actions(game: &Game, rng: &mut Mix) -> Vec<Action> {
    let st = game.state();
    let rules = game.rules();
    let tiles = st.board().tiles();
    let mut out = Vec::new();
    let any_rot = |rng: &mut Mix| Rotation::quarter_turns(rng.below(4) as u8);
    let some_segment = |rng: &mut Mix| SegmentId::new(rng.below(st.graph().len()));
    // A placement at a far cell.
    out.push(Action::Place {
        pos: Pos::new(
            1000 + rng.below(1000) as i32,
            -(1000 + rng.below(1000) as i32),
        ),
        rotation: any_rot(rng),
    });
    // A placement on an occupied cell.
    let t = tiles[rng.below(tiles.len())];
    out.push(Action::Place {
        pos: t.pos,
        rotation: any_rot(rng),
    });
    // A placement two cells beyond the bounding box (touches nothing).
    if let Some((_, hi)) = st.board().bounds() {
        out.push(Action::Place {
            pos: Pos::new(hi.x + 2, hi.y),
            rotation: any_rot(rng),
        });
    }
    // A wrong rotation on an open cell (or any rotation on a cell where nothing fits).
    let frontier = st.board().frontier();
    if !frontier.is_empty() {
        let cell = frontier[rng.below(frontier.len())].pos;
        for r in Rotation::ALL {
            let a = Action::Place {
                pos: cell,
                rotation: r,
            };
            if !game.actions().contains(&a) {
                out.push(a);
                break;
            }
        }
    }
    // A deploy on a segment of another tile than the one just placed.
    let other: Vec<&PlacedTile> = tiles
        .iter()
        .enumerate()
        .filter(|(i, _)| st.last_placed() != Some(*i as u16))
        .map(|(_, t)| t)
        .collect();
    if !other.is_empty() {
        let t = other[rng.below(other.len())];
        let n = rules.tiles().get(t.kind).segments.len();
        if let Some(seg) = st.segment_at(t.pos, rng.below(n) as u8) {
            out.push(Action::Deploy {
                figure: FigureKindId::SMALL_FOLLOWER,
                segment: seg,
            });
        }
    }
    // A deploy on a random segment, one with an unknown figure kind, one on a missing segment.
    out.push(Action::Deploy {
        figure: FigureKindId::SMALL_FOLLOWER,
        segment: some_segment(rng),
    });
    let offered_deploy = game.actions().iter().find_map(|a| match a {
        Action::Deploy { segment, .. } => Some(*segment),
        _ => None,
    });
    out.push(Action::Deploy {
        figure: FigureKindId(1 + rng.below(3) as u8),
        segment: offered_deploy.unwrap_or_else(|| some_segment(rng)),
    });
    out.push(Action::Deploy {
        figure: FigureKindId::SMALL_FOLLOWER,
        segment: SegmentId::new(st.graph().len() + 5 + rng.below(100)),
    });
    // A deploy on the just-placed tile's segment whose feature is already occupied.
    if let Some(last) = st.last_placed() {
        let t = st.board().tile(last);
        for local in 0..rules.tiles().get(t.kind).segments.len() as u8 {
            if let Some(seg) = st.segment_at(t.pos, local) {
                let g = st.graph();
                if g.totals(g.feature_of(seg)).occupants > 0 {
                    out.push(Action::Deploy {
                        figure: FigureKindId::SMALL_FOLLOWER,
                        segment: seg,
                    });
                }
            }
        }
    }
    // Pass (not offered in a tile step) and moves (never offered in the base game).
    out.push(Action::Pass);
    out.push(Action::Move {
        figure: FigureId(rng.below(st.figures().len()) as u16),
        segment: some_segment(rng),
    });
    out.push(Action::Move {
        figure: FigureId(9999),
        segment: offered_deploy.unwrap_or_else(|| some_segment(rng)),
    });
    out.retain(|a| !game.actions().contains(a));
    out
}

fn check_refusals(game: &mut Game, rng: &mut Mix) -> TestResult {
    let before = snapshot(game);
    let bad = bad_actions(game, rng);
    prop_assert!(!bad.is_empty());
    for a in bad {
        match game.apply(a) {
            Err(ActionError::NotOffered { action, decision }) => {
                prop_assert_eq!(action, a);
                prop_assert!(!decision.is_empty());
            }
            other => prop_assert!(false, "{} was not refused as not offered: {:?}", a, other),
        }
        prop_assert_eq!(&snapshot(game), &before, "refused {} changed the state", a);
    }
    let len = game.action_count();
    prop_assert_eq!(
        game.apply_offered(len + rng.below(5))
            .map_err(|e| matches!(e, ActionError::BadIndex { .. })),
        Err(true)
    );
    prop_assert_eq!(&snapshot(game), &before, "a bad index changed the state");
    check_figures(game)?;
    Ok(())
}

// ------------------------------------------------------------------------------------------
// Item 4: identical replays
// ------------------------------------------------------------------------------------------

fn check_same_game(a: &Game, b: &Game, what: &str) -> TestResult {
    let (sa, sb) = (a.state(), b.state());
    prop_assert_eq!(scores(a), scores(b), "{}: scores", what);
    prop_assert_eq!(sa.events(), sb.events(), "{}: events", what);
    let tiles = |g: &Game| -> Vec<(carcassonne_core::TileKindId, Pos, Rotation)> {
        g.state()
            .board()
            .tiles()
            .iter()
            .map(|t| (t.kind, t.pos, t.rotation))
            .collect()
    };
    prop_assert_eq!(tiles(a), tiles(b), "{}: board tiles", what);
    prop_assert_eq!(
        sa.board().tiles(),
        sb.board().tiles(),
        "{}: placed tiles",
        what
    );
    prop_assert_eq!(sa.figures(), sb.figures(), "{}: figures", what);
    prop_assert_eq!(sa.discarded(), sb.discarded(), "{}: discarded", what);
    prop_assert_eq!(a.is_over(), b.is_over(), "{}: over", what);
    prop_assert_eq!(a.decision(), b.decision(), "{}: decision", what);
    prop_assert_eq!(a.actions(), b.actions(), "{}: offered", what);
    prop_assert_eq!(sa.turn(), sb.turn(), "{}: turn", what);
    let names =
        |g: &Game| -> Vec<String> { g.state().players().iter().map(|p| p.name.clone()).collect() };
    prop_assert_eq!(names(a), names(b), "{}: players", what);
    Ok(())
}

fn replay_actions(rules: &Arc<Ruleset>, players: usize, seed: u64, actions: &[Action]) -> Game {
    let mut g = new_game(rules, players, seed);
    for a in actions {
        g.apply(*a).expect("recorded actions replay");
    }
    g
}

// ------------------------------------------------------------------------------------------
// The properties
// ------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(2000))]

    /// Items 1, 2, 3, 7 on the default rules, 2-6 players.
    #[test]
    fn invariants_hold_in_random_games(
        seed in any::<u64>(),
        bot_seed in any::<u64>(),
        players in 2usize..=6,
    ) {
        play_checked(&rulesets()[0], players, seed, bot_seed)?;
    }
}

proptest! {
    #![proptest_config(config(1000))]

    /// Item 6: every option set plays to the end with items 1-3 (and 7) intact; farmers=false
    /// never puts a figure on a field and scores no farm.
    #[test]
    fn option_games_keep_the_invariants(
        which in 1usize..OPTION_SETS.len(),
        seed in any::<u64>(),
        bot_seed in any::<u64>(),
        players in 2usize..=5,
    ) {
        let rules = &rulesets()[which];
        let (game, _) = play_checked(rules, players, seed, bot_seed)?;
        let fields: Vec<&ScoreEvent> = game
            .state()
            .events()
            .iter()
            .filter(|e| e.source == ScoreSource::Feature(FeatureKindId::FIELD))
            .collect();
        if !rules.base().farmers {
            prop_assert!(fields.is_empty(), "farmers=false but farms scored: {:?}", fields);
        }
        for e in fields {
            prop_assert!(e.final_scoring, "a farm scored before the end: {:?}", e);
            match OPTION_SETS[which].iter().find(|(k, _)| *k == "farmScoring").map(|(_, v)| *v) {
                Some("1st") => prop_assert_eq!(e.points, 4, "1st edition pays 4 per city"),
                _ => prop_assert_eq!(e.points % 3, 0, "farms pay 3 per city"),
            }
        }
    }
}

proptest! {
    #![proptest_config(config(500))]

    /// Item 4: record → JSON → parse → replay gives the identical game; determinism; and a
    /// replay cut after k actions equals the game after its first k actions.
    #[test]
    fn records_replay_identically(
        which in 0usize..OPTION_SETS.len(),
        seed in any::<u64>(),
        players in 2usize..=4,
        greedy_seat in prop::option::weighted(0.05, 0usize..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let rules = &rulesets()[which];
        let mut bots: Vec<Box<dyn Bot>> = (0..players)
            .map(|p| -> Box<dyn Bot> {
                let s = seed.rotate_left(17) ^ p as u64;
                if greedy_seat == Some(p) {
                    Box::new(GreedyBot::new(s))
                } else {
                    Box::new(RandomBot::new(s))
                }
            })
            .collect();
        let (game, actions) = play_game(rules, players, seed, &mut bots)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_end(&game)?;
        let record = Record::new(&game, seed, &actions);
        prop_assert_eq!(record.actions.len(), actions.len());
        prop_assert_eq!(record.result.clone(), Some(scores(&game)));
        prop_assert_eq!(record.setup.seed, seed);
        let json = serde_json::to_string(&record).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let parsed = Record::parse(&json, "test").map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&parsed, &record, "JSON round trip changed the record");
        let pretty = serde_json::to_string_pretty(&record).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&Record::parse(&pretty, "test").map_err(|e| TestCaseError::fail(e.to_string()))?, &record);
        let replayed = parsed.replay("test", None).map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_same_game(&game, &replayed, "record replay")?;
        prop_assert_eq!(replayed.rules().options(), rules.options(), "options survive the record");

        // Same seed + same actions, twice.
        let again = replay_actions(rules, players, seed, &actions);
        check_same_game(&game, &again, "first direct replay")?;
        let again2 = replay_actions(rules, players, seed, &actions);
        check_same_game(&again, &again2, "second direct replay")?;

        // A replay stopped after k actions is the game after its first k actions.
        let k = cut.index(actions.len() + 1);
        let partial = parsed.replay("test", Some(k)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let direct = replay_actions(rules, players, seed, &actions[..k]);
        check_same_game(&partial, &direct, "partial replay")?;
        prop_assert_eq!(partial.is_over(), k == actions.len());
    }
}

proptest! {
    #![proptest_config(config(800))]

    /// Item 5: at random decisions, actions that are not offered are refused with NotOffered
    /// and change nothing; the game then goes on normally.
    #[test]
    fn refused_actions_change_nothing(
        seed in any::<u64>(),
        bot_seed in any::<u64>(),
        players in 2usize..=5,
        rate in 2usize..6,
    ) {
        let rules = &rulesets()[0];
        let mut game = new_game(rules, players, seed);
        let mut bot = RandomBot::new(bot_seed);
        let mut rng = Mix(bot_seed ^ seed);
        let mut tried = 0;
        let mut actions = Vec::new();
        while !game.is_over() {
            if rng.below(rate) == 0 {
                check_refusals(&mut game, &mut rng)?;
                tried += 1;
            }
            let i = bot.choose(&game);
            actions.push(game.actions()[i]);
            game.apply_offered(i).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        prop_assert!(tried > 0);
        check_end(&game)?;
        // The refusals left no trace: the same actions on a fresh game give the same game.
        let clean = replay_actions(rules, players, seed, &actions);
        check_same_game(&game, &clean, "game with refusals vs clean replay")?;
    }
}

/// A handful of fixed seeds with 1 and 8 players (the engine's limits), fully checked.
#[test]
fn extreme_player_counts() {
    for seed in 0..4u64 {
        for players in [1usize, 8] {
            if let Err(e) = play_checked(&rulesets()[0], players, seed, seed + 99) {
                panic!("{players} players, seed {seed}: {e}");
            }
        }
    }
}
