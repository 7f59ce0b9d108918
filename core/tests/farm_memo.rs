//! The feature graph after issue 33's end-of-game pass: its only edges are `Borders`
//! (a feature's joins are the union-find's); `complete_features` lists exactly the complete
//! features, `complete_count` counts them per kind and `represents` marks exactly the
//! representatives; and the completed cities of each farm, found once by the final
//! scoring's farm draft, are what every hook of that scoring reads (`View::farm_cities`,
//! `completed_city_count`), the same as a walk of the farm's segments and borders,
//! and no longer once a hook changes the graph (a border or a complete virtual city added).
//! A search's copy that keeps its source's farm borders across refills
//! (`Game::keep_farm_borders`) ends with the scores a plain copy ends with.

use carcassonne_core::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// What the watching expansion saw: farms checked, reads that differed from a walk.
#[derive(Default)]
struct Seen {
    checked: AtomicU32,
    wrong: AtomicU32,
    added: AtomicU32,
}

/// An expansion that checks every farm's cities in the final scoring's hooks; with `add`
/// its `final_scoring` then gives the first farm one more complete (virtual) city.
struct Watch {
    add: bool,
    seen: Arc<Seen>,
}

struct WatchRules {
    add: bool,
    seen: Arc<Seen>,
}

impl Expansion for Watch {
    fn id(&self) -> &str {
        "watch"
    }

    fn declare(&self, _: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let (add, seen) = (self.add, Arc::clone(&self.seen));
        Ok(binder(move |_: &Binding<'_>| {
            Ok(WatchRules {
                add,
                seen: Arc::clone(&seen),
            })
        }))
    }
}

/// The completed cities bordering `farm`, by walking its segments' borders (first contact).
fn walk(v: &View<'_>, farm: FeatureId) -> Vec<FeatureId> {
    let g = v.state.graph();
    let mut out = Vec::new();
    for s in g.members(farm) {
        for c in g.borders(s) {
            let f = g.feature_of(c);
            if g.totals(f).complete()
                && v.rules.kind(g.kind(f)).scoring == Scoring::City
                && !out.contains(&f)
            {
                out.push(f);
            }
        }
    }
    out
}

/// The farms with a figure on them, in figure order.
fn occupied_farms(v: &View<'_>) -> Vec<FeatureId> {
    let g = v.state.graph();
    let mut farms = Vec::new();
    for fig in v.state.figures() {
        if let FigureLoc::On(s) = fig.loc {
            let f = g.feature_of(s);
            if v.rules.kind(g.kind(f)).scoring == Scoring::Farm && !farms.contains(&f) {
                farms.push(f);
            }
        }
    }
    farms
}

impl WatchRules {
    fn check(&self, v: &View<'_>) {
        for farm in occupied_farms(v) {
            let mut read = Vec::new();
            v.farm_cities(farm, &mut read);
            let ok = read == walk(v, farm)
                && v.completed_city_count(farm) == read.len()
                && v.completed_cities(farm) == read;
            self.seen.checked.fetch_add(1, Ordering::Relaxed);
            self.seen.wrong.fetch_add(u32::from(!ok), Ordering::Relaxed);
        }
    }
}

impl BoundExpansion for WatchRules {
    fn hook_set(&self) -> HookSet {
        HookSet::BEFORE_SCORING | HookSet::AFTER_SCORING | HookSet::FINAL_SCORING
    }

    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        if draft.final_scoring {
            self.check(&ctx.view());
        }
        Ok(())
    }

    fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        if draft.final_scoring {
            self.check(&ctx.view());
        }
        Ok(())
    }

    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        self.check(&ctx.view());
        if !self.add {
            return Ok(());
        }
        let Some(&farm) = occupied_farms(&ctx.view()).first() else {
            return Ok(());
        };
        let before = ctx.view().completed_city_count(farm);
        let city = ctx.add_virtual_feature(FeatureKindId::CITY, 0, true);
        ctx.add_border(farm.segment(), city);
        let v = ctx.view();
        let after = v.completed_city_count(farm);
        let ok = after == before + 1 && walk(&v, farm).len() == after;
        self.seen.added.fetch_add(1, Ordering::Relaxed);
        self.seen.wrong.fetch_add(u32::from(!ok), Ordering::Relaxed);
        Ok(())
    }
}

fn rules(add: bool, seen: &Arc<Seen>) -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .expansion(Arc::new(Watch {
                add,
                seen: Arc::clone(seen),
            }))
            .build()
            .unwrap(),
    )
}

/// The complete features by a walk over every segment: each counted at its representative.
fn complete_by_walk(g: &FeatureGraph) -> Vec<FeatureId> {
    (0..g.len())
        .map(|i| g.feature_of(SegmentId::new(i)))
        .filter(|f| g.totals(*f).complete())
        .fold(Vec::new(), |mut out, f| {
            if !out.contains(&f) {
                out.push(f);
            }
            out
        })
}

/// Plays a random game to its end, checking the graph after every action.
fn play(r: &Arc<Ruleset>, seed: u64) -> Game {
    let setup = GameSetup::new(vec!["A".into(), "B".into(), "C".into()], seed);
    let mut g = Game::new(Arc::clone(r), &setup).expect("the game starts");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while !g.is_over() {
        let n = g.action_count();
        assert!(n > 0, "a pending decision offers something");
        g.apply_offered(rng.random_range(0..n))
            .expect("an offered action applies");
        let graph = g.state().graph();
        let mut listed: Vec<FeatureId> = graph.complete_features().collect();
        let mut walked = complete_by_walk(graph);
        listed.sort();
        walked.sort();
        assert_eq!(listed, walked, "seed {seed}: complete features");
        for k in 0..r.kinds().len() {
            let kind = FeatureKindId(k as u8);
            let n = listed.iter().filter(|f| graph.kind(**f) == kind).count() as u32;
            assert_eq!(
                graph.complete_count(kind),
                n,
                "seed {seed}: complete of kind {k}"
            );
        }
        for i in 0..graph.len() {
            let s = SegmentId::new(i);
            assert_eq!(
                graph.represents(s),
                graph.feature_of(s).segment() == s,
                "seed {seed}: segment {i} represents its feature"
            );
        }
        assert!(
            graph
                .to_petgraph()
                .edge_weights()
                .all(|w| *w == Link::Borders),
            "seed {seed}: only Borders edges"
        );
    }
    g
}

/// hooks of the final scoring read each farm's cities as a walk finds them.
#[test]
fn final_scoring_hooks_read_each_farms_cities_as_a_walk_finds_them() {
    let seen = Arc::new(Seen::default());
    let r = rules(false, &seen);
    for seed in 0..12 {
        play(&r, seed);
    }
    assert!(
        seen.checked.load(Ordering::Relaxed) > 20,
        "farms were checked"
    );
    assert_eq!(seen.wrong.load(Ordering::Relaxed), 0);
}

/// A border and a complete city a final-scoring hook adds count at once for that farm.
#[test]
fn a_border_added_in_the_final_scoring_counts_at_once() {
    let seen = Arc::new(Seen::default());
    let r = rules(true, &seen);
    for seed in 0..8 {
        play(&r, seed);
    }
    assert!(seen.added.load(Ordering::Relaxed) > 3, "cities were added");
    assert_eq!(seen.wrong.load(Ordering::Relaxed), 0);
}

/// Ends `g` where it stands, answering the end's questions with their first offer (as the
/// search's valuation does), and returns the scores and the score events.
fn end_here(g: &mut Game) -> (Vec<i32>, String) {
    g.end_now().expect("the game ends");
    let mut guard = 0;
    while !g.is_over() && g.action_count() > 0 && guard < 64 {
        guard += 1;
        g.apply_offered(0).expect("an end question is answered");
    }
    let scores = g.state().players().iter().map(|p| p.score).collect();
    (scores, format!("{:?}", g.state().events()))
}

/// A-13 through a search's copy: refilled again and again from one position with the
/// position's farm borders kept (`Game::keep_farm_borders`), a copy that plays a few
/// random actions on and ends the game there scores every farm as a plain copy of the
/// same position playing the same actions does (a debug build also checks each kept
/// farm's cities against a walk); with and without a final-scoring hook that adds a
/// border to a farm, and after the source moves on (the borders are noted again).
#[test]
fn farms_kept_across_refills_score_as_plain_copies() {
    for add in [false, true] {
        let seen = Arc::new(Seen::default());
        let r = rules(add, &seen);
        let mut ended = 0;
        for seed in 0..6u64 {
            let setup = GameSetup::new(vec!["A".into(), "B".into(), "C".into()], seed);
            let mut source = Game::new(Arc::clone(&r), &setup).expect("the game starts");
            let mut rng = ChaCha8Rng::seed_from_u64(seed + 100);
            let mut copy = source.clone();
            copy.keep_farm_borders(true);
            let mut step = 0;
            while !source.is_over() {
                step += 1;
                if step % 9 == 0 {
                    for _ in 0..4 {
                        copy.refill_from(&source);
                        let mut plain = source.clone();
                        let tries = rng.random_range(0..12);
                        for _ in 0..tries {
                            if copy.is_over() || copy.action_count() == 0 {
                                break;
                            }
                            let k = rng.random_range(0..copy.action_count());
                            copy.apply_offered(k).expect("an offered action applies");
                            plain.apply_offered(k).expect("the same action applies");
                        }
                        assert_eq!(
                            end_here(&mut copy),
                            end_here(&mut plain),
                            "seed {seed}, step {step}: the kept farms score as walked"
                        );
                        ended += 1;
                    }
                }
                let n = source.action_count();
                source
                    .apply_offered(rng.random_range(0..n))
                    .expect("an offered action applies");
            }
        }
        assert!(ended > 100, "copies were ended");
        assert_eq!(
            seen.wrong.load(Ordering::Relaxed),
            0,
            "hooks read the walk's cities"
        );
    }
}
