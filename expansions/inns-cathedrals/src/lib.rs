//! # Inns & Cathedrals (rules IC-1 … IC-25)
//!
//! - **Big follower** (IC-13 … IC-15): figure kind `big-follower`, one per player, a
//!   follower of strength 2 (4 half-units; a small follower is 2). Core compares strengths
//!   wherever it finds a majority (roads, cities, cloisters, farms, and whatever another
//!   expansion scores through core), and deploys it wherever a small follower may stand,
//!   so it needs no hook: CO-9 (any quarter of the City of Carcassonne), AT-5 (the
//!   Tactician's token) and AP-1 (Promotions' ±½) follow from the kind alone.
//! - **Inns** (IC-5 … IC-8): a road segment tagged `inn` makes its whole road an inn
//!   road: 2 per tile when complete, 0 when still open at the end. Tags are read on every
//!   loaded tile, so River II's `RI.2/RIrI` inn counts exactly when this expansion is
//!   loaded (IC-8, IC-20).
//! - **Cathedrals** (IC-9 … IC-12): a city segment tagged `cathedral` makes its city a
//!   cathedral city: 3 per tile and pennant when complete (the completed-city base plus 1,
//!   so `smallCity=1st/2nd` gives 2 for a 2-tile one, IC-10), 0 when open at the end. Farms
//!   are unaffected (IC-12).
//!
//! All of it happens in `before_scoring`: every draft item whose feature is a city (road)
//! containing a tagged segment (core carries both tags into the features' totals,
//! `Declare::segment_mark`, so that is one read however large the feature) gets its value
//! raised (or set to 0 for an unfinished one in final scoring), and every award on the
//! item that paid the old value pays the new one. So majorities, returns, 0-point events
//! for an unfinished inn road (IC-7: "scored with 0") and everything other expansions read
//! from the draft (the Count's CO-4 test, the King & Robber's sizes) stay core's and see
//! the real points. Option
//! `inns-cathedrals.innCathedralIncomplete=normal` leaves unfinished ones alone (IC-17).
//! The options `inns` and `cathedrals` (JCZ's elements) switch either symbol off.

use carcassonne_core::{
    binder, Binder, Binding, BoundExpansion, Ctx, Declare, Expansion, FeatureId, FigureKindDef,
    GameState, HookResult, HookSet, KindMask, Ruleset, ScoreDraft, Scoring, SegmentMark,
    TileKindId,
};

/// The figure kind this expansion declares.
pub const BIG_FOLLOWER: &str = "big-follower";
/// Segment tag of a road segment beside an inn.
pub const INN_TAG: &str = "inn";
/// Segment tag of a city segment holding a cathedral.
pub const CATHEDRAL_TAG: &str = "cathedral";

/// The Inns & Cathedrals expansion (stateless; one value serves every ruleset).
#[derive(Debug, Default)]
pub struct InnsCathedrals;

impl InnsCathedrals {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// Inns & Cathedrals bound to one ruleset: the marks of the inn and cathedral tags
/// ([`SegmentMark::NONE`] when the symbol is switched off), per tile kind which local
/// segments carry them (bit masks, for debug builds' check of the marks), and the options.
#[derive(Debug)]
struct InnsCathedralsRules {
    inn: SegmentMark,
    cathedral: SegmentMark,
    inns: Vec<u8>,
    cathedrals: Vec<u8>,
    /// IC-17 `normal`: unfinished inn roads and cathedral cities score as ordinary ones.
    incomplete_normal: bool,
}

/// Bit masks of the local segments of each tile kind that carry `tag`.
fn tagged(rules: &Ruleset, tag: &str) -> Vec<u8> {
    rules
        .tiles()
        .iter()
        .map(|(_, kind)| {
            kind.segments
                .iter()
                .enumerate()
                .filter(|(i, s)| *i < 8 && s.tags.iter().any(|t| t == tag))
                .fold(0u8, |m, (i, _)| m | (1 << i))
        })
        .collect()
}

impl Expansion for InnsCathedrals {
    fn id(&self) -> &str {
        "inns-cathedrals"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        // IC-1, IC-13, IC-14: one per player, strength 2, wherever a follower may stand.
        d.figure_kind(FigureKindDef {
            name: BIG_FOLLOWER.into(),
            per_player: 1,
            strength: 4,
            deploy_on: KindMask::ALL,
            follower: true,
            returns: true,
            look: "big-meeple".into(),
            neutral: 0,
            shares: false,
            colour: String::new(),
        })
        .map_err(|e| e.to_string())?;
        let inn = d.segment_mark(INN_TAG).map_err(|e| e.to_string())?;
        let cathedral = d.segment_mark(CATHEDRAL_TAG).map_err(|e| e.to_string())?;
        Ok(binder(move |b: &Binding<'_>| {
            let on = |name: &str| b.option_flag(name).unwrap_or(true);
            let rules = b.rules();
            let n = rules.tiles().len();
            let mark = |name: &str, m: SegmentMark| if on(name) { m } else { SegmentMark::NONE };
            Ok(InnsCathedralsRules {
                inn: mark("inns", inn),
                cathedral: mark("cathedrals", cathedral),
                inns: if on("inns") {
                    tagged(rules, INN_TAG)
                } else {
                    vec![0; n]
                },
                cathedrals: if on("cathedrals") {
                    tagged(rules, CATHEDRAL_TAG)
                } else {
                    vec![0; n]
                },
                incomplete_normal: b
                    .option_str("innCathedralIncomplete")
                    .is_ok_and(|v| v == "normal"),
            })
        }))
    }
}

impl InnsCathedralsRules {
    /// Whether a segment of feature `f` is marked in `masks` (the feature's tile segments;
    /// virtual ones carry nothing), segment by segment: what the feature's marks answer,
    /// for debug builds' check.
    fn has(&self, masks: &[u8], st: &GameState, f: FeatureId) -> bool {
        let g = st.graph();
        g.members(f).any(|s| {
            let node = g.segment(s);
            if node.is_virtual() || node.local >= 8 {
                return false;
            }
            let Some(tile) = st.board().tiles().get(usize::from(node.tile)) else {
                return false;
            };
            let kind: TileKindId = tile.kind;
            masks
                .get(usize::from(kind.0))
                .is_some_and(|m| m & (1 << node.local) != 0)
        })
    }
}

impl BoundExpansion for InnsCathedralsRules {
    fn hook_set(&self) -> HookSet {
        HookSet::BEFORE_SCORING
    }

    /// IC-6, IC-7, IC-10, IC-11, IC-16, IC-17: revalue inn roads and cathedral cities.
    #[inline(always)]
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        let rules = ctx.rules();
        let st = ctx.state();
        let small_city_halved = rules.base().small_city_halved;
        for (i, item) in draft.features.iter_mut().enumerate() {
            let scoring = rules.kind(item.kind).scoring;
            let (mark, masks) = match scoring {
                Scoring::City => (self.cathedral, &self.cathedrals),
                Scoring::Road => (self.inn, &self.inns),
                _ => continue,
            };
            // Farm items under farmScoring=1st carry a city's id with kind `field`: skipped
            // above, so cathedrals never touch farms (IC-12).
            let has = mark.on(st.graph().totals(item.feature));
            debug_assert_eq!(
                has,
                self.has(masks, st, item.feature),
                "the marks of feature {:?} differ from its segments' tags",
                item.feature
            );
            if !has {
                continue;
            }
            let tiles = item.tiles as i32;
            let value = if item.complete {
                match scoring {
                    // The completed-city base (2, or 1 for a 2-tile city under
                    // smallCity=1st/2nd) plus 1 per tile and pennant.
                    Scoring::City => {
                        let pennants = i32::from(st.graph().totals(item.feature).pennants);
                        let base = if small_city_halved && tiles == 2 {
                            1
                        } else {
                            2
                        };
                        (base + 1) * (tiles + pennants)
                    }
                    _ => 2 * tiles,
                }
            } else if draft.final_scoring && !self.incomplete_normal {
                0
            } else {
                continue;
            };
            let old = item.value;
            if old == value {
                continue;
            }
            item.value = value;
            // The awards of the old value are the feature's scoring; another set's bonus on
            // the same item (Under the Big Top's ringmaster, BT-13) keeps its points even when
            // it equals the old value.
            for a in draft.awards.iter_mut() {
                if usize::from(a.item) == i && a.points == old && !a.bonus {
                    a.points = value;
                }
            }
        }
        Ok(())
    }
}

carcassonne_core::export_expansion!("inns-cathedrals", InnsCathedrals::new());
