//! # The Count of Carcassonne (rules CO-1 … CO-21)
//!
//! **The city.** `prepare_game` replaces the start tile with the 12-tile City of
//! Carcassonne (CO-1, JCZ layout: x −2..1, y −1..1, rotation 0). `start_game` adds its
//! off-grid parts as *virtual features* in the feature graph: the four quarters (kind
//! `quarter`, slots 0 castle, 1 market, 2 blacksmith, 3 cathedral) and the city itself
//! (kind `city`, complete), which every field of a City-of-Carcassonne tile borders, so
//! farms count it as one completed city (CO-3) and the King counts it (KR-6) with no
//! special case anywhere. Followers in a quarter stand on its virtual feature: figures
//! stay conserved, the quarters are never scored (CO-14), and nothing on the grid reaches
//! them.
//!
//! **A placement**:
//! 1. Window `BeforeScoring` (CO-10 … CO-12): if the tile completes features, one round from the
//!    placer's left neighbour round to the placer; each player may move any number of his
//!    followers from the matching quarters (castle → city, blacksmith → road, cathedral →
//!    cloister-scored buildings such as shrines) onto them, never out of the Count's
//!    quarter. The market moves mid-game only onto the farm of a barn placed now (CO-13,
//!    AM-28: Abbey & Mayor's game slot `barn-placed`, found by name at bind).
//! 2. `after_scoring` (CO-4 … CO-9, CO-17) adds up what each player scored from this
//!    placement (CO-5 `cocTrigger`: every award, or only completed roads/cities/cloisters;
//!    CO-6: only feature scoring counts). If the placer scored 0 and someone else more, it
//!    asks the placer to deploy one follower from supply into a quarter, then the Count
//!    moves (CO-16 `countMove`). Each placement is one scoring, so each part of a double
//!    turn is judged alone (CO-8). Hooking the scoring rather than a window costs turns
//!    that complete nothing no call at all.
//!
//! **The end** (CO-18, CO-19): starting left of whoever placed the last tile (recorded at
//! each placement, so also right when the supply runs out between the parts of a double
//! turn; the active player if no tile was placed in this game), players in turn order
//! move one follower per step from a quarter other than the Count's onto a matching
//! feature that will be scored (incomplete city, road or cloister-scored building; any
//! farm from the market), or pass, until all have passed in succession
//! (`finalRound=pass-is-final`, JCloisterZone's way: a player who passes is not asked
//! again). `cocFinal=market-only` allows the market only.
//!
//! A move names a feature, so a target may be any segment of it (core's `is_offered`).
//! Without farmers the market is closed: no deployment there, no Count move there.

use smallvec::SmallVec;

use carcassonne_core::{
    binder, Action, Binder, Binding, BoundExpansion, Ctx, CustomAction, Declare, Expansion,
    FeatureGraph, FeatureId, FeatureKindDef, FeatureKindId, FigureId, FigureKindId, FigureLoc,
    GameSlot, HookFailure, HookGate, HookResult, HookSet, PlayerId, Pos, Prompt, PromptCode,
    PromptKind, Rotation, Ruleset, ScoreDraft, ScoreEvent, ScoreSource, Scoring, SegmentId, Shape,
    Stands, StartTile, TileKindId, VerbId, VerbValue, View, Visible, Window, MAX_PLAYERS,
};

/// Option keys (the full keys; the binder reads them by their short names).
pub const COUNT_MOVE: &str = "count.countMove";
/// CO-5.
pub const COC_TRIGGER: &str = "count.cocTrigger";
/// CO-17.
pub const DEPLOY_INTO_COUNT_QUARTER: &str = "count.deployIntoCountQuarter";
/// CO-19.
pub const COC_FINAL: &str = "count.cocFinal";
/// CO-18: how the final round ends.
pub const FINAL_ROUND: &str = "count.finalRound";

/// The quarters in Count order (CO-1, CO-16 clockwise).
pub const QUARTERS: [&str; 4] = ["castle", "market", "blacksmith", "cathedral"];

/// JCloisterZone's names of the quarters, in [`QUARTERS`] order.
const JCZ_QUARTERS: [&str; 4] = [
    "QUARTER_CASTLE",
    "QUARTER_MARKET",
    "QUARTER_BLACKSMITH",
    "QUARTER_CATHEDRAL",
];

/// The features each quarter's followers may move onto (CO-10, CO-18).
const QUARTER_SCORING: [Scoring; 4] = [
    Scoring::City,
    Scoring::Farm,
    Scoring::Road,
    Scoring::Cloister,
];

/// The JCZ layout of the city (CO-1): tile id and cell, rotation 0.
const LAYOUT: [(&str, i32, i32); 12] = [
    ("CO/1", -2, -1),
    ("CO/2", -1, -1),
    ("CO/3", 0, -1),
    ("CO/4", 1, -1),
    ("CO/5", -2, 0),
    ("CO/6", -1, 0),
    ("CO/7", 0, 0),
    ("CO/8", 1, 0),
    ("CO/9", -2, 1),
    ("CO/10", -1, 1),
    ("CO/11", 0, 1),
    ("CO/12", 1, 1),
];

/// What the Count asks of a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CountPrompt {
    /// CO-10: move followers from the quarters onto the features the placement completed.
    Redeploy,
    /// CO-4: deploy one follower from supply into a quarter.
    Deploy,
    /// CO-16 `countMove=free`: move the Count to another quarter.
    MoveCount,
    /// CO-18: one step of the final redeployment.
    Final,
}

impl PromptKind for CountPrompt {
    fn encode(self) -> PromptCode {
        let tag = match self {
            CountPrompt::Redeploy => 1,
            CountPrompt::Deploy => 2,
            CountPrompt::MoveCount => 3,
            CountPrompt::Final => 4,
        };
        PromptCode { tag, arg: 0 }
    }

    fn decode(code: PromptCode) -> Option<Self> {
        match code.tag {
            1 => Some(CountPrompt::Redeploy),
            2 => Some(CountPrompt::Deploy),
            3 => Some(CountPrompt::MoveCount),
            4 => Some(CountPrompt::Final),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Ids {
    quarter_kind: FeatureKindId,
    move_count: VerbId,
    /// Quarter the Count stands in (0..4).
    count: GameSlot,
    /// Segment index of each quarter's virtual feature.
    quarter: [GameSlot; 4],
    /// Segment index of the virtual city.
    city: GameSlot,
    /// Followers in the four quarters together.
    in_city: GameSlot,
    /// Final round (CO-18): the bit set of players who passed (since the last move under
    /// `until-all-pass`; for good under `pass-is-final`), and whose step is next.
    final_passes: GameSlot,
    final_next: GameSlot,
}

/// The city's tile kinds in [`LAYOUT`] order, and the base start tile they replace.
type CityTiles = (Vec<TileKindId>, Option<TileKindId>);

/// The Count of Carcassonne expansion (stateless: it declares the Count's kind, verb and
/// slots, and binds them with the options into the hooks of each ruleset it joins).
#[derive(Debug, Default)]
pub struct Count;

impl Count {
    /// The expansion (one value serves any number of rulesets).
    pub fn new() -> Self {
        Self
    }
}

/// `countMove` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CountMove {
    Free,
    Clockwise,
    Follow,
}

/// The Count bound to one ruleset: ids, parsed options and the city's tiles.
struct CountRules {
    ids: Ids,
    /// CO-16 `countMove`.
    count_move: CountMove,
    /// CO-5 `cocTrigger=completion`.
    trigger_completion: bool,
    /// CO-17 `deployIntoCountQuarter=forbidden`.
    forbid_count_quarter: bool,
    /// CO-19 `cocFinal=market-only`.
    market_only: bool,
    /// CO-18 `finalRound=pass-is-final`.
    pass_is_final: bool,
    /// The city's tile kinds in `LAYOUT` order and the base start tile, or why a tile is
    /// missing (reported by `prepare_game`, when a game starts).
    layout: Result<CityTiles, String>,
    /// Abbey & Mayor's game slot `barn-placed` (segment + 1 of the barn placed in this
    /// placement), found by name at bind if that expansion is loaded: its farm is scored
    /// now, so the market may redeploy onto it (CO-13, AM-28).
    barn_placed: Option<carcassonne_core::SlotId>,
    /// Abbey & Mayor's figure kind `barn`, found by name at bind (CO-10 with AM-24).
    barn: Option<FigureKindId>,
    /// Per feature kind (by id): bit `q` if quarter `q`'s followers may move onto that
    /// kind's features (its scoring is `QUARTER_SCORING[q]`), computed at bind.
    kind_bits: [u8; 256],
    /// Per figure kind (by id): bit `q` if [`figure_may_go`] into quarter `q`.
    may_go: Vec<u8>,
    /// Per tile kind (by id): per set of quarter bits `want`, the bit mask of its local
    /// segments whose kind's quarter bit is in `want`, and each local segment's quarter bit
    /// ([`Self::kind_bit`] of `TileKind::segments[i]`), for the final round's scan of the
    /// placed tiles (CO-18, [`Self::each_final_target`]).
    final_locals: Vec<([u16; 16], [u8; 16])>,
    /// Per tile kind (by id): the local indices of its field segments if it is a City of
    /// Carcassonne tile (tag `city-of-carcassonne`), else empty (CO-3, `start_game`).
    city_fields: Vec<Vec<u8>>,
}

/// One follower of each kind in a quarter ([`CountRules::quarter_followers`]).
type QuarterFollowers = SmallVec<[(FigureId, FigureKindId); 8]>;

/// The final round's targets (CO-18, [`CountRules::final_targets`]).
type Targets = SmallVec<[FeatureId; 64]>;

/// Quarter bit of the market (CO-13, CO-19).
const MARKET: u8 = 1 << 1;

/// The city's tile kinds in [`LAYOUT`] order and the ruleset's base start tile.
fn city_tiles(rules: &Ruleset) -> Result<CityTiles, String> {
    let kinds = LAYOUT
        .iter()
        .map(|(id, _, _)| {
            rules
                .tiles()
                .find(id)
                .ok_or_else(|| format!("tile `{id}` of the City of Carcassonne is not loaded"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let base_start = rules
        .tiles()
        .iter()
        .find(|(_, k)| k.start)
        .map(|(id, _)| id);
    Ok((kinds, base_start))
}

impl CountRules {
    /// CO-10 targets: the features the placement completed, and (CO-13, AM-28) the farm of
    /// a barn placed now, which the market may reach before its placement scoring, and
    /// (AM-24) a farm of the tile just placed that holds a barn and a follower: the
    /// placement joined farmers to a barn, and they score now (JCZ's `CocScoringPhase`
    /// offers both).
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn redeploy_targets(&self, v: &View<'_>) -> Vec<FeatureId> {
        let mut out = completed_targets(v);
        if let Some(slot) = self.barn_placed {
            let seg = v.state.slot(slot, 0);
            if seg > 0 && (seg as usize - 1) < v.state.graph().len() {
                let farm = v.state.graph().feature_of(SegmentId::new(seg as usize - 1));
                if !out.contains(&farm) {
                    out.push(farm);
                }
            }
        }
        if let Some(barn) = self.barn {
            self.joined_barn_farms(v, barn, &mut out);
        }
        out
    }

    /// The farms of the tile placed last that hold a barn and a follower, added to `out` in
    /// the order of the tile's segments.
    ///
    /// Starts from the players' barns (read by kind, without a pass over every figure), not
    /// from the tile's fields: a field's figures are found by a pass over every figure,
    /// which made this the Count's costliest step with Abbey & Mayor (about 1,100
    /// instructions a call).
    fn joined_barn_farms(&self, v: &View<'_>, barn: FigureKindId, out: &mut Vec<FeatureId>) {
        let st = v.state;
        let Some(i) = st.last_placed() else {
            return;
        };
        let g = st.graph();
        // A farm is a target only for followers in its quarter (the market): with that
        // quarter empty no move reaches it, so it is not looked for (the other targets and
        // their order are unchanged).
        let occupied = |q: usize| {
            self.quarter_seg(v, q)
                .map_or(true, |s| g.totals(g.feature_of(s)).occupants > 0)
        };
        let quarters = (0..4).fold(0u8, |m, q| m | u8::from(occupied(q)) << q);
        let tile = st.board().tile(i);
        // (position of the farm's first segment on the tile, farm)
        let mut found: SmallVec<[(usize, FeatureId); MAX_PLAYERS]> = SmallVec::new();
        let barns =
            (0..st.players().len()).flat_map(|p| v.figures_of_kind(PlayerId(p as u8), barn));
        for fig in barns {
            let FigureLoc::On(at) = fig.loc else {
                continue;
            };
            let farm = g.feature_of(at);
            if self.kind_bit(g.kind(farm)) & quarters == 0 {
                continue;
            }
            let Some(pos) = tile.segments().position(|s| g.feature_of(s) == farm) else {
                continue;
            };
            if out.contains(&farm) || found.iter().any(|&(_, f)| f == farm) {
                continue;
            }
            let follower = st.figures().iter().any(|f| {
                matches!(f.loc, FigureLoc::On(t) if g.feature_of(t) == farm)
                    && v.rules.figure_kind(f.kind).follower
            });
            if follower {
                found.push((pos, farm));
            }
        }
        found.sort_unstable_by_key(|&(pos, _)| pos);
        out.extend(found.iter().map(|&(_, farm)| farm));
    }

    #[inline]
    fn quarter_seg(&self, v: &View<'_>, q: usize) -> HookResult<SegmentId> {
        let s = v.get(self.ids.quarter[q]);
        if s < 0 {
            return Err(not_set_up());
        }
        Ok(SegmentId::new(s as usize))
    }

    /// Whether any follower stands in the city (most turns: no).
    fn city_occupied(&self, v: &View<'_>) -> bool {
        v.get(self.ids.in_city) > 0
    }

    /// Keeps the count of followers in the city (this expansion moves them in and out;
    /// another expansion's removal is recounted in `on_figure_removed`).
    fn add_in_city(&self, ctx: &mut Ctx<'_>, delta: i64) {
        let n = ctx.get(self.ids.in_city);
        ctx.set(self.ids.in_city, n + delta);
    }

    fn count_at(&self, v: &View<'_>) -> usize {
        v.get(self.ids.count) as usize % 4
    }

    /// The quarter bit of features of kind `k` (0: no quarter's followers go there).
    #[inline]
    fn kind_bit(&self, k: FeatureKindId) -> u8 {
        self.kind_bits[k.0 as usize]
    }

    /// Per player, the quarters (bit `q`) from which he has a follower that may move out
    /// now: never the Count's quarter, only the market under `only_market`, and only a
    /// figure kind that may stand on the quarter's features (CO-9). [`Self::moves`] offers a
    /// player something exactly when one of these quarters has a target of its scoring, so
    /// one pass over the figures answers for every player without listing the moves.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn movable(&self, v: &View<'_>, only_market: bool) -> HookResult<[u8; MAX_PLAYERS]> {
        let mut segs = [0usize; 4];
        for (q, s) in segs.iter_mut().enumerate() {
            *s = self.quarter_seg(v, q)?.index();
        }
        // `start_game` adds the four quarters one after the other: one subtraction then
        // tells whether a figure stands in a quarter, and which.
        let first = segs[0];
        let consecutive = (0..4).all(|q| segs[q] == first + q);
        let mut allowed = 0xF & !(1u8 << self.count_at(v));
        if only_market {
            allowed &= MARKET;
        }
        let mut out = [0u8; MAX_PLAYERS];
        for f in v.state.figures() {
            let FigureLoc::On(s) = f.loc else {
                continue;
            };
            let q = if consecutive {
                let q = s.index().wrapping_sub(first);
                if q >= 4 {
                    continue;
                }
                q
            } else {
                let Some(q) = segs.iter().position(|x| *x == s.index()) else {
                    continue;
                };
                q
            };
            let may = self.may_go.get(f.kind.0 as usize).copied().unwrap_or(0);
            if let Some(m) = out.get_mut(f.owner.index()) {
                *m |= (1u8 << q) & allowed & may;
            }
        }
        Ok(out)
    }

    /// The quarter bits of `targets`' kinds: the quarters that have somewhere to go.
    fn target_bits(&self, v: &View<'_>, targets: &[FeatureId]) -> u8 {
        let g = v.state.graph();
        targets.iter().fold(0, |a, t| a | self.kind_bit(g.kind(*t)))
    }

    /// CO-10: one redeployment round, left of the placer round to the placer; a player is
    /// asked if he has a move (the same test as a non-empty [`Self::moves`]).
    #[inline(never)]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn redeploy_round(&self, ctx: &mut Ctx<'_>) -> HookResult {
        // Most placements complete nothing: that is the cheaper test, so it comes first.
        let targets = self.redeploy_targets(&ctx.view());
        let open = self.target_bits(&ctx.view(), &targets);
        if open == 0 {
            return Ok(());
        }
        let n = ctx.state().players().len();
        let movable = self.movable(&ctx.view(), false)?;
        let reach = movable.iter().take(n).fold(0, |a, m| a | m) & open;
        if reach == 0 {
            return Ok(());
        }
        let placer = ctx.state().active_player().index();
        for i in 1..=n {
            let p = PlayerId(((placer + i) % n) as u8);
            if movable[p.index()] & reach != 0 {
                ctx.prompt(p, CountPrompt::Redeploy);
            }
        }
        Ok(())
    }

    /// CO-18: the final redeployment, starting left of the last placer. That is usually
    /// the player whose turn it would be, but not when the supply runs out between the
    /// two parts of a double turn (CO-8): the placer is still active then. Without a
    /// placement in this game (a set-up position), the active player is taken to be the
    /// one left of the last placer.
    #[inline(never)]
    fn final_round(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let ids = self.ids;
        ctx.set(ids.final_passes, 0);
        let n = ctx.state().players().len() as i64;
        let first = match ctx.state().last_placer() {
            Some(last) => (i64::from(last.0) + 1) % n,
            None => ctx.state().active_player().0 as i64,
        };
        ctx.set(ids.final_next, first);
        self.continue_final(ctx)
    }

    /// Per quarter, one follower of each kind `player` has there that may move out now
    /// (moving any of the same kind is the same move), in figure order: never out of the
    /// Count's quarter, only out of the market under `only_market`, and only a figure kind
    /// that may stand on the quarter's features (CO-9). One pass over the figures for all
    /// four quarters.
    fn quarter_followers(
        &self,
        v: &View<'_>,
        player: PlayerId,
        only_market: bool,
    ) -> HookResult<[QuarterFollowers; 4]> {
        let mut segs = [0usize; 4];
        for (q, s) in segs.iter_mut().enumerate() {
            *s = self.quarter_seg(v, q)?.index();
        }
        let mut allowed = 0xF & !(1u8 << self.count_at(v));
        if only_market {
            allowed &= MARKET;
        }
        // On the stack: asked at every redeployment and final prompt.
        let mut out: [QuarterFollowers; 4] = Default::default();
        for (i, f) in v.state.figures().iter().enumerate() {
            let FigureLoc::On(s) = f.loc else {
                continue;
            };
            if f.owner != player {
                continue;
            }
            let may = self.may_go.get(f.kind.0 as usize).copied().unwrap_or(0) & allowed;
            for (q, list) in out.iter_mut().enumerate() {
                if segs[q] == s.index()
                    && may & (1 << q) != 0
                    && !list.iter().any(|(_, k)| *k == f.kind)
                {
                    list.push((FigureId(i as u16), f.kind));
                }
            }
        }
        Ok(out)
    }

    /// Moves of the followers `figs` (per quarter, [`Self::quarter_followers`]) onto
    /// `targets`, whose quarter bits are `bits`: quarter by quarter, target by target, in
    /// the followers' order.
    fn moves(
        figs: &[QuarterFollowers; 4],
        targets: &[FeatureId],
        bits: &[u8],
        out: &mut Vec<Action>,
    ) {
        for (q, figs) in figs.iter().enumerate() {
            if figs.is_empty() {
                continue;
            }
            for (&t, _) in targets.iter().zip(bits).filter(|(_, b)| **b == 1 << q) {
                for &(figure, _) in figs {
                    out.push(Action::Move {
                        figure,
                        segment: t.segment(),
                    });
                }
            }
        }
    }

    /// CO-4 deployments into the city for the placer.
    fn deployments(&self, v: &View<'_>, player: PlayerId, out: &mut Vec<Action>) -> HookResult {
        self.each_deployment(v, player, |a| {
            out.push(a);
            true
        })
    }

    /// Whether the placer has a CO-4 deployment (the test of [`Self::deployments`] without
    /// the list).
    fn can_deploy(&self, v: &View<'_>, player: PlayerId) -> HookResult<bool> {
        let mut any = false;
        self.each_deployment(v, player, |_| {
            any = true;
            false
        })?;
        Ok(any)
    }

    /// The CO-4 deployments in quarter, then figure-kind order, handed to `f` until it
    /// returns false.
    fn each_deployment(
        &self,
        v: &View<'_>,
        player: PlayerId,
        mut f: impl FnMut(Action) -> bool,
    ) -> HookResult {
        let count = self.count_at(v);
        let forbid = self.forbid_count_quarter;
        for q in 0..4 {
            if (forbid && q == count) || !quarter_open(v.rules, q) {
                continue;
            }
            let seg = self.quarter_seg(v, q)?;
            for (k, def) in v.rules.figure_kinds().iter().enumerate() {
                let kind = FigureKindId(k as u8);
                // A figure that shares features (decides no majority: an observation tower)
                // is no follower for a quarter either.
                if def.follower
                    && !def.shares
                    && figure_may_go(v.rules, kind, q)
                    && v.state.in_supply(player, kind) > 0
                    && !f(Action::Deploy {
                        figure: kind,
                        segment: seg,
                    })
                {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// CO-18: the final targets among the placed tiles' segments of the quarters `want`
    /// (bits), each handed to `f` with its quarter bit, tile by tile in placement order and
    /// in local order within a tile (graph order but for an overlay's added segments), until `f` returns false. Virtual segments are never
    /// targets, so the tiles hold every candidate; each tile kind's bind-time masks say
    /// which local segments have a wanted quarter bit, so no segment node is read and no
    /// segment of another kind is visited. A segment counts at its feature's
    /// representative only ([`Self::final_target`]).
    #[inline(always)]
    fn each_final_target(&self, v: &View<'_>, want: u8, mut f: impl FnMut(FeatureId, u8) -> bool) {
        let g = v.state.graph();
        // Without farmers the market has no target.
        let want = usize::from(if v.rules.base().farmers {
            want & 0xF
        } else {
            want & 0xF & !MARKET
        });
        if want == 0 {
            return;
        }
        for t in v.state.board().tiles() {
            let Some((masks, bits)) = self.final_locals.get(t.kind.0 as usize) else {
                continue;
            };
            let mut locals = masks[want & 0xF];
            // In local order, as `t.segments()`.
            while locals != 0 {
                let i = locals.trailing_zeros() as usize;
                locals &= locals - 1;
                // The masks come from the tile's kind, which has `segment_count` segments.
                if i >= usize::from(t.segment_count) {
                    break;
                }
                let seg = t.segment(i);
                if !g.represents(seg) {
                    continue;
                }
                let bit = bits[i];
                let fid = FeatureId(seg.index() as u32);
                if bit != MARKET {
                    let tot = g.totals(fid);
                    if tot.scored || tot.complete() {
                        continue;
                    }
                }
                if !f(fid, bit) {
                    return;
                }
            }
        }
    }

    /// CO-18: the features, in graph order, a follower from one of the quarters `want`
    /// (bits) may still move onto at the end. Features no quarter serves (`Points`
    /// kinds) are left out: no move goes there.
    fn final_targets(&self, v: &View<'_>, want: u8) -> (Targets, SmallVec<[u8; 64]>) {
        // On the stack: listed at every final prompt of every search playout.
        let mut out = Targets::new();
        let mut bits = SmallVec::<[u8; 64]>::new();
        let mut sorted = true;
        self.each_final_target(v, want, |f, bit| {
            sorted &= out.last().is_none_or(|l| *l < f);
            out.push(f);
            bits.push(bit);
            true
        });
        // Tiles come in placement order and their segments in local order, which is graph
        // order unless an overlay added segments to a tile after later tiles' nodes.
        if !sorted {
            let mut both: SmallVec<[(FeatureId, u8); 64]> =
                out.iter().copied().zip(bits.iter().copied()).collect();
            both.sort_unstable();
            out = both.iter().map(|(f, _)| *f).collect();
            bits = both.iter().map(|(_, b)| *b).collect();
        }
        #[cfg(debug_assertions)]
        {
            let g = v.state.graph();
            debug_assert_eq!(
                out.as_slice(),
                final_targets_by_nodes(self, v, want).as_slice(),
                "CO-18: the final targets equal a scan of every segment's node"
            );
            debug_assert!(
                out.iter()
                    .zip(&bits)
                    .all(|(f, b)| *b == self.kind_bit(g.kind(*f))),
                "CO-18: the final targets' quarter bits are their kinds'"
            );
        }
        (out, bits)
    }

    /// CO-18: which of the quarters `want` (bits) have a target at the end; the scan
    /// stops once all have one.
    fn final_reach(&self, v: &View<'_>, want: u8) -> u8 {
        let mut found = 0u8;
        let all = if v.rules.base().farmers {
            want & 0xF
        } else {
            want & 0xF & !MARKET
        };
        self.each_final_target(v, want, |_, bit| {
            found |= bit;
            found != all
        });
        #[cfg(debug_assertions)]
        debug_assert_eq!(
            found,
            final_targets_by_nodes(self, v, want)
                .iter()
                .fold(0, |a, t| a | self.kind_bit(v.state.graph().kind(*t))),
            "CO-18: the final reach equals a scan of every segment's node"
        );
        found
    }

    /// CO-18: asks the next player who can move, counting players who cannot as passing.
    fn continue_final(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let ids = self.ids;
        if !self.city_occupied(&ctx.view()) {
            return Ok(());
        }
        let n = ctx.state().players().len() as i64;
        // Figures do not move in this loop: who can leave which quarter, and which
        // quarters have a target, are known before it.
        let movable = self.movable(&ctx.view(), self.market_only)?;
        let any = movable.iter().take(n as usize).fold(0, |a, m| a | m);
        let reach = self.final_reach(&ctx.view(), any);
        loop {
            let passed = ctx.get(ids.final_passes);
            if passed.count_ones() as i64 >= n {
                return Ok(());
            }
            let p = PlayerId(ctx.get(ids.final_next) as u8);
            ctx.set(ids.final_next, (p.0 as i64 + 1) % n);
            // Skipping a player who passed changes nothing under `until-all-pass`: when the
            // turn comes back to him without a move in between, everyone has passed.
            if passed & (1 << p.0) != 0 {
                continue;
            }
            if movable.get(p.index()).is_some_and(|m| m & reach != 0) {
                ctx.set(ids.final_next, i64::from(p.0));
                ctx.prompt(p, CountPrompt::Final);
                return Ok(());
            }
            self.final_pass(ctx, p);
        }
    }

    /// Records a pass in the final round.
    fn final_pass(&self, ctx: &mut Ctx<'_>, p: PlayerId) {
        let passed = ctx.get(self.ids.final_passes);
        ctx.set(self.ids.final_passes, passed | (1 << p.0));
    }
}

/// Without farmers the market has no feature to send followers to, so (as in
/// JCloisterZone) nobody is deployed there and the Count is not moved there by choice.
fn quarter_open(rules: &Ruleset, q: usize) -> bool {
    q != 1 || rules.base().farmers
}

/// The base kind each quarter stands for (castle, market, blacksmith, cathedral).
const QUARTER_BASE_KINDS: [FeatureKindId; 4] = [
    FeatureKindId::CITY,
    FeatureKindId::FIELD,
    FeatureKindId::ROAD,
    FeatureKindId::CLOISTER,
];

/// CO-9: a follower enters a quarter when it may stand on the quarter's base kind, read
/// from its figure kind's `deploy_on`, so no other expansion's figure is named here: a
/// figure that only stands in cities (the mayor) only enters the castle, one that never
/// farms (the wagon) never enters the market, and the small and big followers go anywhere.
/// (Builders, pigs and barns are not followers.)
fn figure_may_go(rules: &Ruleset, kind: FigureKindId, q: usize) -> bool {
    let def = rules.figure_kind(kind);
    def.follower && def.deploy_on.contains(QUARTER_BASE_KINDS[q])
}

/// The general form of [`CountRules::final_targets`], for the debug-build check: every
/// segment's node read in graph order: a representative on the grid whose kind has a
/// quarter bit in `want`, a farm (with farmers) or an incomplete, unscored feature.
#[cfg(debug_assertions)]
fn final_targets_by_nodes(r: &CountRules, v: &View<'_>, want: u8) -> Vec<FeatureId> {
    let g = v.state.graph();
    let farmers = v.rules.base().farmers;
    (0..g.len())
        .map(SegmentId::new)
        .filter(|s| {
            let node = g.segment(*s);
            let bit = r.kind_bit(node.kind) & want;
            let f = g.feature_of(*s);
            let t = g.totals(f);
            bit != 0
                && !node.is_virtual()
                && f.segment() == *s
                && (if bit == MARKET {
                    farmers
                } else {
                    !t.scored && !t.complete()
                })
        })
        .map(|s| FeatureId(s.index() as u32))
        .collect()
}

/// Score events of scorings on the board that core's feature scoring did not make (an
/// expansion's [`Ctx::award_scoring`]: a castle's).
fn other_scorings(events: &[ScoreEvent]) -> impl Iterator<Item = &ScoreEvent> {
    events
        .iter()
        .filter(|e| e.scoring && matches!(e.source, ScoreSource::Label(_)) && !e.final_scoring)
}

fn completed_targets(v: &View<'_>) -> Vec<FeatureId> {
    let mut out = Vec::new();
    v.completed_by_last_placement(&mut out);
    let g: &FeatureGraph = v.state.graph();
    out.retain(|f| {
        matches!(
            v.rules.kind(g.kind(*f)).scoring,
            Scoring::City | Scoring::Road | Scoring::Cloister
        )
    });
    out
}

#[cold]
#[inline(never)]
fn not_set_up() -> HookFailure {
    HookFailure("the City of Carcassonne was not set up".into())
}

fn quarter_named(name: &str) -> HookResult<usize> {
    QUARTERS.iter().position(|q| *q == name).ok_or_else(|| {
        HookFailure(format!(
            "`{name}` is not a quarter (castle, market, blacksmith, cathedral)"
        ))
    })
}

impl Expansion for Count {
    fn id(&self) -> &str {
        "count"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    /// The `quarter` kind, the `move-count` verb and the game slots; the binder parses
    /// the options (declared in the manifest) and finds the city's tiles.
    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let quarter_kind = d
            .feature_kind(FeatureKindDef {
                // Renderers draw it as a quarter of the City of Carcassonne.
                look: "quarter".into(),
                ..FeatureKindDef::new("quarter", Shape::Virtual, Scoring::Unscored, true)
            })
            .map_err(|e| e.to_string())?;
        let ids = Ids {
            quarter_kind,
            move_count: d.verb_in_words("move-count", "move the Count"),
            count: d.game_slot("count", 0),
            quarter: [
                d.game_slot("castle", -1),
                d.game_slot("market", -1),
                d.game_slot("blacksmith", -1),
                d.game_slot("cathedral", -1),
            ],
            city: d.game_slot("city", -1),
            in_city: d.game_slot("in-city", 0),
            final_passes: d.game_slot("final-passes", 0),
            final_next: d.game_slot("final-next", 0),
        };
        // The value is an internal detail (a side, a corner, a quarter's index).
        d.verb_value(ids.move_count, VerbValue::Hidden);
        d.prompt_in_words(
            CountPrompt::Redeploy,
            "move followers from the quarters onto what was just completed",
        );
        d.prompt_in_words(
            CountPrompt::Deploy,
            "put a follower into a quarter of Carcassonne",
        );
        d.prompt_in_words(CountPrompt::MoveCount, "move the Count to another quarter");
        d.prompt_in_words(
            CountPrompt::Final,
            "move followers from the quarters onto features before the final scoring",
        );
        Ok(binder(move |b: &Binding<'_>| {
            let count_move = match b.option_str("countMove")? {
                "clockwise" => CountMove::Clockwise,
                "follow" => CountMove::Follow,
                _ => CountMove::Free,
            };
            Ok(CountRules {
                ids,
                count_move,
                trigger_completion: b.option_str("cocTrigger")? == "completion",
                forbid_count_quarter: b.option_str("deployIntoCountQuarter")? == "forbidden",
                market_only: b.option_str("cocFinal")? == "market-only",
                pass_is_final: b.option_str("finalRound")? == "pass-is-final",
                layout: city_tiles(b.rules()),
                kind_bits: {
                    let mut bits = [0u8; 256];
                    for (b, k) in bits.iter_mut().zip(b.rules().kinds()) {
                        *b = QUARTER_SCORING
                            .iter()
                            .position(|s| *s == k.scoring)
                            .map_or(0, |q| 1u8 << q);
                    }
                    bits
                },
                may_go: (0..b.rules().figure_kinds().len())
                    .map(|k| {
                        (0..4)
                            .filter(|q| figure_may_go(b.rules(), FigureKindId(k as u8), *q))
                            .fold(0u8, |a, q| a | 1 << q)
                    })
                    .collect(),
                final_locals: b
                    .rules()
                    .tiles()
                    .iter()
                    .map(|(_, tk)| {
                        let mut masks = [0u16; 16];
                        let mut bits = [0u8; 16];
                        // At most 16 segments a tile (the core checks each kind). A placed
                        // tile of this kind has at `PlacedTile::segment(i)` a node of
                        // `segments[i]`'s kind for the whole game (nodes never change kind;
                        // an overlay's kind keeps its base's first segments).
                        for (i, seg) in tk.segments.iter().enumerate().take(16) {
                            let k = b.rules().kind(seg.kind).scoring;
                            if let Some(q) = QUARTER_SCORING.iter().position(|s| *s == k) {
                                bits[i] = 1 << q;
                                for (want, m) in masks.iter_mut().enumerate() {
                                    if want & (1 << q) != 0 {
                                        *m |= 1 << i;
                                    }
                                }
                            }
                        }
                        (masks, bits)
                    })
                    .collect(),
                city_fields: b
                    .rules()
                    .tiles()
                    .iter()
                    .map(|(_, tk)| {
                        if !tk.has_tag("city-of-carcassonne") {
                            return Vec::new();
                        }
                        tk.segments
                            .iter()
                            .enumerate()
                            .filter(|(_, seg)| b.rules().kind(seg.kind).shape == Shape::Field)
                            .map(|(i, _)| i as u8)
                            .collect()
                    })
                    .collect(),
                barn: b
                    .rules()
                    .expansion_index("abbey-mayor")
                    .and_then(|_| {
                        b.rules()
                            .figure_kinds()
                            .iter()
                            .position(|k| k.name == "barn")
                    })
                    .map(|k| FigureKindId(k as u8)),
                barn_placed: b.rules().expansion_index("abbey-mayor").and_then(|ix| {
                    b.rules()
                        .slots()
                        .iter()
                        .position(|d| {
                            d.expansion == ix
                                && d.name == "barn-placed"
                                && d.scope == carcassonne_core::SlotScope::Game
                        })
                        .map(|i| carcassonne_core::SlotId(i as u16))
                }),
            })
        }))
    }
}

impl BoundExpansion for CountRules {
    fn hook_set(&self) -> HookSet {
        HookSet::GAME_START
            | HookSet::AFTER_SCORING
            | HookSet::window(Window::BeforeScoring)
            | HookSet::window(Window::BeforeFinalScoring)
            | HookSet::ON_FIGURE_REMOVED
    }

    /// The end asks only the final round's prompts (CO-18), each of a player with a move,
    /// and every Count prompt with a move offers the pass beside it.
    fn offers_pass_at_end(&self) -> bool {
        true
    }

    /// The redeployment round (CO-10) and the recount after a removal have nothing to do
    /// while nobody stands in the City: the engine skips both calls then.
    fn hook_gates(&self) -> Vec<HookGate> {
        vec![HookGate {
            hooks: HookSet::window(Window::BeforeScoring) | HookSet::ON_FIGURE_REMOVED,
            slot: self.ids.in_city,
        }]
    }

    /// Another expansion may take a follower out of a quarter (The Tower's capture under
    /// `tower.cocQuarterFigures=jcz`): the city's tally is recounted. Scored figures never
    /// stand in a quarter, and nothing is recounted while the city is empty.
    #[inline(always)]
    fn on_figure_removed(
        &self,
        ctx: &mut Ctx<'_>,
        _figure: FigureId,
        reason: carcassonne_core::RemovalReason,
    ) -> HookResult {
        if reason == carcassonne_core::RemovalReason::Scored || ctx.get(self.ids.in_city) == 0 {
            return Ok(());
        }
        let mut segs = [SegmentId::new(0); 4];
        for (q, s) in segs.iter_mut().enumerate() {
            *s = self.quarter_seg(&ctx.view(), q)?;
        }
        let n = ctx
            .state()
            .figures()
            .iter()
            .filter(|f| matches!(f.loc, FigureLoc::On(s) if segs.contains(&s)))
            .count();
        ctx.set(self.ids.in_city, n as i64);
        Ok(())
    }

    /// CO-1: the City of Carcassonne replaces the start tile.
    fn prepare_game(&self, _ctx: &mut Ctx<'_>, start: &mut Vec<StartTile>) -> HookResult {
        let (kinds, base_start) = self.layout.as_ref().map_err(|e| HookFailure(e.clone()))?;
        start.retain(|t| !(t.pos == Pos::new(0, 0) && Some(t.kind) == *base_start));
        // The layout fills the rectangle x −2..=1, y −1..=1: one pass finds a tile in it.
        if start
            .iter()
            .any(|t| (-2..=1).contains(&t.pos.x) && (-1..=1).contains(&t.pos.y))
        {
            let pos = LAYOUT
                .iter()
                .map(|&(_, x, y)| Pos::new(x, y))
                .find(|p| start.iter().any(|t| t.pos == *p))
                .unwrap_or(Pos::new(0, 0));
            return Err(HookFailure(format!(
                "another expansion's start tile is on {pos}, where the City of Carcassonne goes"
            )));
        }
        start.reserve(LAYOUT.len());
        for (&(_, x, y), &kind) in LAYOUT.iter().zip(kinds) {
            let pos = Pos::new(x, y);
            start.push(StartTile {
                kind,
                pos,
                rotation: Rotation::R0,
            });
        }
        Ok(())
    }

    /// The quarters and the city as virtual features.
    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let ids = self.ids;
        for (q, slot) in ids.quarter.iter().enumerate() {
            let seg = ctx.add_virtual_feature(ids.quarter_kind, q as u8, false);
            ctx.set(*slot, seg.index() as i64);
        }
        let city = ctx.add_virtual_feature(FeatureKindId::CITY, 0, true);
        ctx.set(ids.city, city.index() as i64);
        // CO-3: every field of a city tile borders the city (board order, then segment
        // order; the fields of each tile kind are listed at bind).
        for i in 0..ctx.state().board().tiles().len() {
            let t = ctx.state().board().tiles()[i];
            let Some(fields) = self.city_fields.get(t.kind.0 as usize) else {
                continue;
            };
            for &local in fields {
                ctx.add_border(t.segment(usize::from(local)), city);
            }
        }
        Ok(())
    }

    /// `count` = quarter name; `castle` / `market` / `blacksmith` / `cathedral` = a
    /// comma-separated list of player names, one small follower each from supply.
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        if key == "count" {
            let q = quarter_named(value)?;
            ctx.set(self.ids.count, q as i64);
            return Ok(());
        }
        let q = quarter_named(key).map_err(|_| {
            HookFailure(format!(
                "unknown setting `{key}` (known: count, castle, market, blacksmith, cathedral)"
            ))
        })?;
        let seg = self.quarter_seg(&ctx.view(), q)?;
        // `R` = one of R's small followers; `R:big-follower` = one of R's figures of
        // that kind (any follower kind the ruleset has).
        for entry in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let (p, figure) = ctx.view().player_figure(entry)?;
            if !ctx.rules().figure_kind(figure).follower {
                let name = &ctx.rules().figure_kind(figure).name;
                return Err(HookFailure(format!("`{name}` is no follower kind")));
            }
            ctx.deploy(p, figure, seg)?;
            self.add_in_city(ctx, 1);
        }
        Ok(())
    }

    /// The hot path (every placement's `BeforeScoring`) is one slot read while nobody is
    /// in the city; the rounds are out of line.
    #[inline(always)]
    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        match window {
            Window::BeforeScoring if ctx.get(self.ids.in_city) != 0 => self.redeploy_round(ctx),
            // CO-18 (and CO-4 for the redeployment that comes first).
            Window::BeforeFinalScoring => self.final_round(ctx),
            _ => Ok(()),
        }
    }

    #[inline(always)]
    fn prompt_actions(&self, v: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        match prompt.decode::<CountPrompt>()? {
            CountPrompt::Redeploy => {
                let figs = self.quarter_followers(&v, prompt.player, false)?;
                let targets = self.redeploy_targets(&v);
                let g = v.state.graph();
                // Each target's quarter bit (its scoring's quarter), read once.
                let bits: SmallVec<[u8; 64]> =
                    targets.iter().map(|t| self.kind_bit(g.kind(*t))).collect();
                Self::moves(&figs, &targets, &bits, out)
            }
            CountPrompt::Deploy => self.deployments(&v, prompt.player, out)?,
            CountPrompt::MoveCount => {
                let count = self.count_at(&v);
                for q in (0..4).filter(|q| *q != count && quarter_open(v.rules, *q)) {
                    out.push(Action::Custom(CustomAction {
                        expansion: prompt.owner,
                        verb: self.ids.move_count,
                        figure: None,
                        segment: Some(self.quarter_seg(&v, q)?),
                        value: q as i32,
                    }));
                }
            }
            CountPrompt::Final => {
                // Only targets of the quarters this player can leave give moves.
                let figs = self.quarter_followers(&v, prompt.player, self.market_only)?;
                let want = (0..4)
                    .filter(|q| !figs[*q].is_empty())
                    .fold(0u8, |a, q| a | 1 << q);
                let (targets, bits) = self.final_targets(&v, want);
                Self::moves(&figs, &targets, &bits, out)
            }
        }
        if !out.is_empty() {
            out.push(Action::Pass);
        }
        Ok(())
    }

    #[inline(always)]
    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        let ids = self.ids;
        let player = prompt.player;
        match (prompt.decode::<CountPrompt>()?, action) {
            (CountPrompt::Redeploy, Action::Move { figure, segment }) => {
                ctx.move_figure(figure, segment)?;
                self.add_in_city(ctx, -1);
                // Any number of followers: ask again (CO-10).
                ctx.prompt_next(player, CountPrompt::Redeploy);
            }
            (CountPrompt::Deploy, Action::Deploy { figure, segment }) => {
                ctx.deploy(player, figure, segment)?;
                self.add_in_city(ctx, 1);
                let q = ctx.state().graph().segment(segment).local as i64 % 4;
                match self.count_move {
                    CountMove::Clockwise => {
                        let c = ctx.get(ids.count);
                        ctx.set(ids.count, (c + 1) % 4);
                    }
                    CountMove::Follow => ctx.set(ids.count, q),
                    CountMove::Free => ctx.prompt_next(player, CountPrompt::MoveCount),
                }
            }
            (CountPrompt::MoveCount, Action::Custom(c)) => {
                ctx.set(ids.count, i64::from(c.value.rem_euclid(4)));
            }
            (CountPrompt::Final, a) => {
                let n = ctx.state().players().len() as i64;
                if let Action::Move { figure, segment } = a {
                    ctx.move_figure(figure, segment)?;
                    self.add_in_city(ctx, -1);
                    // A move asks everyone again, unless a pass is for good.
                    if !self.pass_is_final {
                        ctx.set(ids.final_passes, 0);
                    }
                } else {
                    self.final_pass(ctx, player);
                }
                ctx.set(ids.final_next, (player.0 as i64 + 1) % n);
                self.continue_final(ctx)?;
            }
            (_, Action::Pass) => {}
            (kind, a) => {
                return Err(HookFailure(format!(
                    "prompt {} cannot take action `{a}`",
                    kind.encode().tag
                )))
            }
        }
        Ok(())
    }

    /// The Count in his quarter, for renderers, and JCloisterZone's names of the quarters
    /// (`QUARTER_*` on the tile `CO/7`), for its importer.
    fn describe(&self, v: View<'_>, out: &mut Vec<Visible>) -> HookResult {
        let q = self.count_at(&v);
        out.push(Visible::NeutralFigure {
            name: "count".into(),
            icon: "count".into(),
            segment: self.quarter_seg(&v, q)?,
            stands: Stands::OnSegment,
        });
        for (q, name) in QUARTERS.iter().enumerate() {
            out.push(Visible::Place {
                group: "City of Carcassonne".into(),
                name: (*name).into(),
                segment: self.quarter_seg(&v, q)?,
            });
        }
        for (q, name) in JCZ_QUARTERS.iter().enumerate() {
            out.push(Visible::ForeignName {
                scheme: "jcz".into(),
                segment: self.quarter_seg(&v, q)?,
                tile: "CO/7".into(),
                feature: "Quarter".into(),
                location: (*name).into(),
            });
        }
        Ok(())
    }

    /// CO-5, CO-6: what the placement's scoring gave each player.
    /// Most scorings reach here with no award: that test is inline, the rest out of line.
    #[inline(always)]
    fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        if draft.final_scoring
            || (draft.awards.is_empty()
                && other_scorings(ctx.state().turn_part_events())
                    .next()
                    .is_none())
        {
            return Ok(());
        }
        self.placement_scored(ctx, draft)
    }
}

impl CountRules {
    /// CO-4 … CO-8 for a placement's scoring with awards.
    #[inline(never)]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn placement_scored(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        let completion_only = self.trigger_completion;
        let mut points = [0i64; MAX_PLAYERS];
        // A bonus beside a scoring (the ringmaster's, BT-13) is no scoring of the board: JCZ's
        // `CocFollowerPhase` counts landscape score events only.
        for a in draft.awards.iter().filter(|a| !a.bonus) {
            let Some(item) = draft.features.get(a.item as usize) else {
                continue;
            };
            if completion_only
                && !(item.complete
                    && matches!(
                        ctx.rules().kind(item.kind).scoring,
                        Scoring::City | Scoring::Road | Scoring::Cloister
                    ))
            {
                continue;
            }
            points[a.player.index()] += i64::from(a.points);
        }
        // CO-5: other scorings on the board this placement caused, an expansion's (a
        // castle's, BCB-11) [JCZ: every landscape `ScoreEvent` of the turn part]; not under
        // `cocTrigger=completion`, which counts completed roads, cities and cloisters only.
        if !completion_only {
            for e in other_scorings(ctx.state().turn_part_events()) {
                if let Some(p) = points.get_mut(e.player.index()) {
                    *p += i64::from(e.points);
                }
            }
        }
        // CO-4: the placer scored 0 while someone else scored. (One scoring per placement,
        // so each part of a double turn is judged alone, CO-8.)
        let Some(placer) = draft.placer else {
            return Ok(());
        };
        let others = points
            .iter()
            .enumerate()
            .any(|(p, v)| p != placer.index() && *v > 0);
        if points[placer.index()] == 0 && others && self.can_deploy(&ctx.view(), placer)? {
            ctx.prompt(placer, CountPrompt::Deploy);
        }
        Ok(())
    }
}

/// Quarter index of a figure, for tools that show the city (`None` if not in a quarter).
pub fn figure_quarter(rules: &Ruleset, view: &View<'_>, f: FigureId) -> Option<usize> {
    let FigureLoc::On(seg) = view.state.figure(f).loc else {
        return None;
    };
    let node = view.state.graph().segment(seg);
    (node.is_virtual() && rules.kind(node.kind).name == "quarter").then_some(node.local as usize)
}

carcassonne_core::export_expansion!("count", Count::new());
