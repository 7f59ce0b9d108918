//! # Abbey & Mayor (rules AM-1 … AM-35)
//!
//! **Abbey (AM-3 … AM-9).** Tile `AM/A` has barrier edges (`XXXX` in the tile file): core
//! lets it fit any hole (an empty cell with four neighbours), closes the roads and cities
//! facing it and scores what it completes. It is not in the supply (count 0): every player
//! holds one (player slot `abbey`). In the `BeforeDraw` window (the start of a turn, of a
//! builder's second part, and of every final-round turn) a player holding it is asked
//! (prompt `abbey`): one `place` action per hole (rotation 0; the rotation does not matter),
//! or pass to draw; nothing while another set's tile already replaces the draw
//! (`GameState::tile_chosen_instead`: a tile bought at a bazaar, BCB-15). The chosen hole
//! goes to core with `Ctx::play_tile_instead`. Holes come from core's placement enumeration,
//! so Heretics & Shrines' placement filter (HS-3, HS-4) applies to the abbey as to any
//! cloister tile. The final abbey round (AM-9,
//! `abbeyFinalRound=on`): when a turn ends with the supply empty and someone still holds his
//! abbey, `Ctx::set_more_turns` keeps the game going for one more round of turns, from the
//! left neighbour of the last placer to him; each such turn is the abbey prompt only.
//!
//! **Mayor (AM-10 … AM-13).** Figure kind `mayor`, a follower on cities only, base strength
//! 0; `strength_delta` adds 2 half-units per pennant of its city at the moment of
//! scoring. Core gives nothing to a highest strength of 0, so a mayor-only city
//! without pennants scores for nobody; its figures still return (AM-12).
//!
//! **Wagon (AM-14 … AM-18).** Figure kind `wagon`, a follower of strength 2 on roads,
//! cities, cloisters (abbeys too) and shrines. In `before_scoring` of a placement's scoring
//! every wagon on a closing item (and, with `challengeLoserWagon=may-move`, on a lost
//! challenge) is noted with the segment it stood on; core returns it; in `after_scoring`
//! every noted wagon's owner is asked (prompt `wagon`, put in front of every queued prompt,
//! so before the CoC deployment whatever the load order: active player first, then
//! clockwise) to deploy it onto a target or pass. Targets (AM-16): incomplete, unscored, unoccupied road, city,
//! cloister or shrine features on the board, and `C1`: directly connected to the scored
//! feature (road junctions where a road ends, the `link-*` tags of the tile file, a road
//! ending on a tile with a cloister runs into it, abbey edges both ways); `C2`: any with a
//! segment on the wagon's tile or the 8 around it.
//!
//! **Barn (AM-19 … AM-27).** Figure kind `barn`, not a follower, never returns. Offered in
//! the deployment step (verb `barn`, the field segment of the placed tile at the corner,
//! `value` = corner 0 NW, 1 NE, 2 SE, 3 SW, kept + 1 in the corner slot `barn-corner`, which
//! tells renderers where the barn stands) on a corner
//! where four tiles meet with one field at that corner on each. The barn occupies its farm
//! (core offers no farmer on an occupied farm: AM-23). Placement scoring (AM-22) and join
//! scoring (AM-24) are items this expansion adds to the placement's draft
//! (`Ctx::request_scoring` makes core score a placement that completes nothing): the farm,
//! value 3 (1) per completed city, majority of the followers in it, figures returned, the
//! farm not closed. Final scoring (AM-25): 4 per completed city to every barn owner of a
//! farm, once per player (score label `barn`).
//!
//! **Cost per turn.** Five hooks run on every turn (`on_tile_placed`, the deployment step,
//! the `BeforeDraw` window, `on_tile_drawn`, `on_turn_end`) and two on every scoring, so each
//! returns as early as it can: the three that only the abbey needs are gated on the game slot
//! `abbey-live` (1 while a player holds his abbey or the final abbey round is on), so the
//! engine stops calling them once every abbey is down, and the window also waits for a hole
//! on the board (`hooks_while_holes`: most turns have none); the barn corners and the field
//! segments of every tile kind are tables built at bind (no segment walk per placement); the
//! barns and wagons are read where core lays the figures out (seat by seat, the kinds in
//! declaration order; checked at every use, else every figure is looked at) instead of
//! scanning all figures; `on_tile_placed` is gated on the game slot `barn-gate` (0 from
//! the first placement that finds every barn in supply until a barn is deployed); an AM-24
//! join is looked for only once some barn has left its owner's supply and when a field of
//! the placed tile lies in a farm holding two figures or more (a barn and a follower); the
//! AM-23 filters are not hooked when no other expansion is loaded (core and the wagon
//! prompt only offer unoccupied features then). None of this changes an offer or its
//! order.
//!
//! Modules: `setup` (declare and bind: the per-kind tables), `barn` (AM-19 … AM-27),
//! `wagon` (AM-14 … AM-18), `feature_set` (a small inline set of farms); here the shared
//! state, the abbey and mayor rules and the hooks, which dispatch to them.

mod barn;
mod feature_set;
mod setup;
mod wagon;

#[cfg(test)]
mod tests;

use carcassonne_core::{
    Action, BoundExpansion, Ctx, CustomAction, DraftFeature, DrawVerdict, FeatureId, Figure,
    FigureId, FigureKindId, FigureLoc, FigureSlot, GameSlot, HookFailure, HookGate, HookResult,
    HookSet, KindMask, LabelId, Offered, PlacementCell, PlayerId, PlayerSlot, Pos, Prompt,
    PromptCode, PromptKind, Rotation, ScoreDraft, SegmentId, StartTile, TileKindId, TurnEndVerdict,
    VerbId, View, Window, MAX_PLAYERS,
};
use feature_set::FeatureSet;

/// The abbey's tile id (JCZ's).
pub const ABBEY_TILE: &str = "AM/A";

/// Option keys (full keys; the binder reads them by their short names).
pub const WAGON_MOVE: &str = "abbey-mayor.wagonMove";
/// AM-21.
pub const BARN_PLACEMENT: &str = "abbey-mayor.barnPlacement";
/// AM-9.
pub const ABBEY_FINAL_ROUND: &str = "abbey-mayor.abbeyFinalRound";
/// AM-17.
pub const CHALLENGE_LOSER_WAGON: &str = "abbey-mayor.challengeLoserWagon";
/// AM-1: which edition's tiles.
pub const EDITION: &str = "abbey-mayor.edition";

/// Garden twin of the second edition: (first-edition tile, its twin).
const GARDEN_TWIN: (&str, &str) = ("AM/R", "AM/RG");

/// Barn points per completed city: placement, join and final scoring (AM-22, AM-24, AM-25).
const BARN_PLACED: i32 = 3;
const BARN_JOINED: i32 = 1;
const BARN_FINAL: i32 = 4;

/// What this expansion asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AmPrompt {
    /// AM-3: place the abbey instead of drawing (or pass).
    Abbey,
    /// AM-15: move the wagon that stood on segment `from` (or pass); `up`: it was upgraded
    /// by its owner's Promotions disc (PR-5, AP-6: adjacent features too).
    Wagon { from: u32, up: bool },
}

impl PromptKind for AmPrompt {
    fn encode(self) -> PromptCode {
        match self {
            AmPrompt::Abbey => PromptCode { tag: 1, arg: 0 },
            AmPrompt::Wagon { from, up } => PromptCode {
                tag: if up { 3 } else { 2 },
                arg: from as i32,
            },
        }
    }

    fn decode(code: PromptCode) -> Option<Self> {
        match code.tag {
            1 => Some(AmPrompt::Abbey),
            2 | 3 if code.arg >= 0 => Some(AmPrompt::Wagon {
                from: code.arg as u32,
                up: code.tag == 3,
            }),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Ids {
    mayor: FigureKindId,
    wagon: FigureKindId,
    barn: FigureKindId,
    /// 1 while the player still holds his abbey.
    abbey: PlayerSlot,
    /// Corner + 1 of a barn (0 off the board).
    barn_corner: FigureSlot,
    /// Segment + 1 a wagon stood on when its feature was scored, until it is asked.
    wagon_from: FigureSlot,
    /// 1 when that wagon was upgraded by its owner's Promotions disc (PR-5).
    wagon_up: FigureSlot,
    /// Segment + 1 of the barn placed in this placement (its farm scores, AM-22).
    barn_placed: GameSlot,
    /// Turn number + 1 of the last turn of the final abbey round (0: not started).
    final_end: GameSlot,
    /// 1 while a player holds his abbey or the final abbey round is on (0 once every
    /// abbey is placed before it): the gate of the hooks that only the abbey needs (the
    /// `BeforeDraw` window, `on_tile_drawn`, `on_turn_end`), so that the engine skips those
    /// three calls a turn once both abbeys are down.
    abbey_live: GameSlot,
    /// 1 from the `before_scoring` that noted a wagon to ask (`wagon-from`) to the
    /// `after_scoring` that asks: the gate of `after_scoring`, which does nothing else.
    wagons_noted: GameSlot,
    /// 0 once `on_tile_placed` found every barn in its owner's supply, 1 again when a barn
    /// is deployed: the gate of `on_tile_placed`, which acts only once a barn is out (a
    /// slot read in the dispatch, cheaper than a figure gate's count of every seat's
    /// barns). 1 at the start, so that the first placement looks, also at the barns a
    /// position (a scenario) puts on the board after `start_game`.
    barn_gate: GameSlot,
    barn_verb: VerbId,
    barn_label: LabelId,
}

/// The Abbey & Mayor expansion (stateless; one value serves every ruleset).
#[derive(Debug, Default)]
pub struct AbbeyMayor;

impl AbbeyMayor {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// Abbey & Mayor bound to one ruleset.
struct AmRules {
    ids: Ids,
    /// This expansion's place in the load order (for its custom actions).
    me: carcassonne_core::ExpansionIndex,
    abbey_tile: Option<TileKindId>,
    /// `mayorEmptyCity=zero-points`.
    empty_city_event: bool,
    /// AM-16 `C2`.
    c2: bool,
    /// AM-16 `C1` under `wagonCityLinks=linked`: two cities sharing a link connect.
    city_links: bool,
    /// AM-16 (iv) `C1` under `wagonAbbeyLinks=both`: a wagon scored on an abbey may go to a
    /// road or city its edges close (AMQ-3); `into-abbey` (JCZ) only the other way.
    abbey_out: bool,
    /// AM-16 `C1` under `wagonJunctions=tagged` (JCZ): only link tags connect; on a tile
    /// without them no road meets another at a junction nor runs into a site.
    tags_only: bool,
    /// AM-21 `occupied`.
    barn_on_barn: bool,
    /// AM-9 `on`.
    final_round: bool,
    /// AM-17 `may-move`.
    loser_moves: bool,
    /// AM-1 second edition.
    edition2: bool,
    /// Kinds a wagon may stand on.
    wagon_on: KindMask,
    /// Per tile kind, per local segment: its `link-*` bits (AM-16 C1).
    links: Vec<Vec<u8>>,
    /// Per tile kind: whether any segment has a link tag.
    has_links: Vec<bool>,
    /// Promotions' figure state `disc` (seat + 1 of the disc's owner), if that fan
    /// expansion is loaded (found by name at bind, as The Tower does).
    promo_disc: Option<carcassonne_core::SlotId>,
    /// Per tile kind, per rotation × corner (`4 * quarter turns + corner`): the local field
    /// segment covering both half-edges of that corner, or [`NO_FIELD`] (AM-20).
    corner_fields: Vec<[u8; 16]>,
    /// Per tile kind and rotation (`4 * kind + quarter turns`): bit `c` set when one field
    /// covers corner `c` ([`AmRules::corner_fields`] not [`NO_FIELD`]); 0 for a barrier tile
    /// (the abbey), which takes no barn (AM-20).
    corner_bits: Vec<u8>,
    /// Per tile kind: a barrier tile (debug builds' check of `corner_bits`).
    #[cfg(debug_assertions)]
    barrier: Vec<bool>,
    /// Per tile kind: its field segments, bit `i` for local segment `i` (only a tile with a
    /// field joins farms, AM-24; one small flat table instead of a list per kind).
    field_mask: Vec<u16>,
    /// Where core puts the barns and wagons in the figure list: per seat `stride` figures,
    /// the kinds in declaration order, `per_player` of each (checked at every use).
    layout: FigureLayout,
    /// Bit `k % 64` of word `k / 64`: figure kind `k` claims its feature (it does not
    /// share), so AM-23 bars it from a barn's farm ([`AmRules::drop_barn_farm_deploys`]);
    /// under `barnFarmFigures=non-followers` only followers are barred.
    claiming: [u64; 4],
    /// No other expansion is loaded: core alone never offers a deployment onto an
    /// occupied feature, so the AM-23 filters have nothing to drop and are not hooked.
    alone: bool,
}

/// Wagons on the board a scoring lists inline ([`AmRules::wagons_to_note`]).
const WAGONS: usize = 8;

/// No field at a corner ([`AmRules::corner_fields`]).
const NO_FIELD: u8 = u8::MAX;

/// Where the figures of a kind stand in the state's figure list (core lays the figures out
/// seat by seat, the kinds in declaration order, `per_player` of each).
#[derive(Clone, Copy, Debug)]
struct FigureLayout {
    /// Figures per seat.
    stride: usize,
    /// Offset of the barns, number per seat.
    barn: (usize, usize),
    /// Offset of the wagons, number per seat.
    wagon: (usize, usize),
}

/// [`AmRules::each_figure_of`] when the figures are not laid out as expected: every figure
/// of `kind` in figure order. Out of line, so that the usual reads stay short.
#[cold]
#[inline(never)]
fn each_figure_scan(figs: &[Figure], kind: FigureKindId, f: &mut dyn FnMut(FigureId, &Figure)) {
    for (i, x) in figs.iter().enumerate() {
        if x.kind == kind {
            f(FigureId(i as u16), x);
        }
    }
}

impl AmRules {
    fn is_abbey(&self, view: &View<'_>, tile_index: usize) -> bool {
        view.state
            .board()
            .tiles()
            .get(tile_index)
            .is_some_and(|t| view.rules.tiles().get(t.kind).barrier)
    }

    /// Calls `f` with every figure of kind `kind`, in figure order. Core lays the figures
    /// out seat by seat, the kinds in declaration order (`at` = this kind's offset in a
    /// seat and its number per seat), then any neutral figures: the figures are read where
    /// they are, after a check that they are there (else every figure is looked at).
    #[inline]
    fn each_figure_of(
        &self,
        view: &View<'_>,
        kind: FigureKindId,
        (off, per): (usize, usize),
        mut f: impl FnMut(FigureId, &Figure),
    ) {
        let figs = view.state.figures();
        let n = view.state.players().len();
        let stride = self.layout.stride;
        // The neutral figures (another expansion's dragon, fairy, Count) follow the seats'
        // figures; none is of a kind that has no neutral figure.
        let seats_only = figs.len() == n * stride
            || (figs.len() > n * stride && view.rules.figure_kind(kind).neutral == 0);
        if seats_only {
            let here = |i: usize, p: usize| {
                let x = &figs[i];
                x.kind == kind && x.owner.index() == p
            };
            if per == 1 {
                // One per seat (as this expansion declares them): one read per seat.
                if (0..n).all(|p| here(p * stride + off, p)) {
                    for p in 0..n {
                        let i = p * stride + off;
                        f(FigureId(i as u16), &figs[i]);
                    }
                    return;
                }
            } else if (0..n).all(|p| (0..per).all(|j| here(p * stride + off + j, p))) {
                for p in 0..n {
                    for j in 0..per {
                        let i = p * stride + off + j;
                        f(FigureId(i as u16), &figs[i]);
                    }
                }
                return;
            }
        }
        each_figure_scan(figs, kind, &mut f);
    }

    /// AM-12 with `mayorEmptyCity=zero-points` (JCloisterZone): a scored city that pays
    /// nobody because its only followers are mayors without pennants still gives each
    /// mayor's owner a city event of 0 points (in figure order), as JCZ reports it. Out of
    /// line: off by default, and kept off the path of every scoring.
    #[cold]
    #[inline(never)]
    fn zero_for_pennantless_mayors(&self, view: &View<'_>, draft: &mut ScoreDraft) {
        let g = view.state.graph();
        for (i, item) in draft.features.iter().enumerate() {
            if draft.awards.iter().any(|a| usize::from(a.item) == i) {
                continue;
            }
            let mut owners: Vec<PlayerId> = Vec::new();
            for f in view.state.figures() {
                if let (true, FigureLoc::On(s)) = (f.kind == self.ids.mayor, f.loc) {
                    if g.feature_of(s) == item.feature && !owners.contains(&f.owner) {
                        owners.push(f.owner);
                    }
                }
            }
            for player in owners {
                draft.awards.push(carcassonne_core::Award {
                    item: i as u16,
                    player,
                    points: 0,
                    bonus: false,
                });
            }
        }
    }

    /// Whether the abbey's places are the holes alone: a barrier tile goes only into a
    /// hole, rotation 0 (core's placement rule for it), and no expansion filters its
    /// placements. Then [`AmRules::abbey_holes`] reads them off the frontier.
    #[inline]
    fn abbey_in_holes(&self, view: &View<'_>, abbey: TileKindId) -> bool {
        view.rules.tiles().get(abbey).barrier && view.rules.placement_filters(abbey) == 0
    }

    /// AM-3: a `place` action on each hole (a frontier cell with a tile on all four
    /// sides), in frontier order, rotation 0: what core's placements of a barrier tile
    /// give without placement filters, without a copy of the frontier into a list.
    fn abbey_holes(&self, view: &View<'_>, out: &mut Vec<Action>) {
        for f in view.state.board().frontier() {
            if f.is_hole() {
                out.push(Action::Place {
                    pos: f.pos,
                    rotation: Rotation::quarter_turns(0),
                });
            }
        }
    }

    /// AM-3 the general way: a `place` action per placement core finds for the abbey
    /// (each expansion's placement filter applied), in its order.
    fn abbey_places(
        &self,
        view: &View<'_>,
        abbey: TileKindId,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let mut cells: Vec<PlacementCell> = Vec::new();
        view.placements_of(abbey, &mut cells)
            .map_err(|e| HookFailure(e.to_string()))?;
        for c in &cells {
            c.push_placements(out);
        }
        Ok(())
    }

    fn holds_abbey(&self, view: &View<'_>, p: PlayerId) -> bool {
        self.abbey_tile.is_some() && view.get(self.ids.abbey.of(p)) > 0
    }

    /// Whether any player still holds his abbey.
    fn anyone_holds_abbey(&self, view: &View<'_>) -> bool {
        let n = view.state.players().len();
        (0..n as u8).any(|p| self.holds_abbey(view, PlayerId(p)))
    }

    /// Sets the gate `abbey-live` after a player's abbey changed hands: closed once nobody
    /// holds one unless the final abbey round is on (its turn ends must still run).
    fn update_abbey_live(&self, ctx: &mut Ctx<'_>) {
        let live = self.anyone_holds_abbey(&ctx.view()) || ctx.get(self.ids.final_end) != 0;
        ctx.set(self.ids.abbey_live, i64::from(live));
    }

    /// AM-25 in the final scoring: followers the final CoC redeployment (CO-18) brought
    /// onto a barn's farm are scored first as in AM-24 (1 per completed city, the pig bonus
    /// added by Traders & Builders) and leave, before core's farm scoring and the barns'.
    /// Core's first final draft (unfinished features) takes these items, so the figures are
    /// gone when the farm draft counts strengths; a later draft finds none left. Every
    /// final draft (twice per playout of a search): the barns' farms are listed inline (one
    /// barn a seat), and only a farm holding more figures than barns can hold a follower, so
    /// the figures are looked at only then ([`AmRules::final_barn_farm_items`]). Out of
    /// line, so that the scorings of every turn stay short.
    #[inline(never)]
    fn final_barn_farms(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        let view = ctx.view();
        let g = view.state.graph();
        // `has_follower`'s first test: a farm holding no more figures than its barns holds
        // no follower.
        let crowded = match self.barn_farms_inline(&view) {
            None => true,
            Some((farms, n)) => {
                let farms = &farms[..n];
                farms.iter().any(|&f| {
                    usize::from(g.totals(f).occupants) > farms.iter().filter(|&&x| x == f).count()
                })
            }
        };
        #[cfg(debug_assertions)]
        if !crowded {
            let barn_farms = self.barn_farms(&view);
            assert!(
                barn_farms
                    .to_vec()
                    .iter()
                    .all(|&f| !Self::has_follower(&view, f, &barn_farms)),
                "a barn's farm with a follower is crowded"
            );
        }
        if !crowded {
            return Ok(());
        }
        self.final_barn_farm_items(ctx, draft)
    }

    /// [`AmRules::final_barn_farms`] once some barn's farm holds more figures than barns (or
    /// more barns are out than its inline list holds): the barns' farms in farm order, an
    /// item for each holding a follower. Out of line: rare.
    #[cold]
    #[inline(never)]
    fn final_barn_farm_items(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        let view = ctx.view();
        let barn_farms = self.barn_farms(&view);
        let mut farms = barn_farms.to_vec();
        farms.sort();
        farms.dedup();
        for f in farms {
            if Self::has_follower(&view, f, &barn_farms) {
                self.farm_item(&view, draft, f, BARN_JOINED)?;
            }
        }
        Ok(())
    }

    /// AM-15, AM-17: the wagons standing on the features this scoring closes (with
    /// `challengeLoserWagon=may-move`, also on a lost challenge), each with the segment it
    /// stood on and whether its owner's Promotions disc upgrades it, in item order, then
    /// figure order; empty (no allocation) in most scorings. The wagons on the board and
    /// their features are found once for every item.
    #[inline(always)]
    fn wagons_to_note(
        &self,
        view: &View<'_>,
        draft: &ScoreDraft,
    ) -> Vec<(FigureId, SegmentId, bool)> {
        // Only an item that returns its figures and holds a figure can hold a wagon: most
        // scorings have none, and skip the wagons' walks to their roots (out of line).
        match draft
            .features
            .iter()
            .position(|item| self.may_hold_wagon(view, item))
        {
            None => {
                debug_assert!(self.wagons_to_note_scan(view, draft).is_empty());
                Vec::new()
            }
            Some(first) => self.wagons_on_items(view, draft, first),
        }
    }

    /// Whether a drafted feature may hold a wagon to note (AM-15, AM-17): it returns its
    /// figures, closes (or its loser's wagon moves) and holds a figure.
    #[inline(always)]
    fn may_hold_wagon(&self, view: &View<'_>, item: &DraftFeature) -> bool {
        item.return_figures
            && (item.closes || self.loser_moves)
            && view.state.graph().totals(item.feature).occupants > 0
    }

    /// [`AmRules::wagons_to_note`] from item `first`, the first that may hold a wagon.
    #[inline(never)]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn wagons_on_items(
        &self,
        view: &View<'_>,
        draft: &ScoreDraft,
        first: usize,
    ) -> Vec<(FigureId, SegmentId, bool)> {
        let mut noted = Vec::new();
        let g = view.state.graph();
        let mut wagons = [None; WAGONS];
        let mut n = 0usize;
        self.each_figure_of(view, self.ids.wagon, self.layout.wagon, |id, fig| {
            if let FigureLoc::On(s) = fig.loc {
                if n < WAGONS {
                    wagons[n] = Some((id, fig.owner, s, g.feature_of(s)));
                }
                n += 1;
            }
        });
        if n == 0 {
            return noted;
        }
        if n > WAGONS {
            return self.wagons_to_note_scan(view, draft);
        }
        for item in &draft.features[first..] {
            if !self.may_hold_wagon(view, item) {
                continue;
            }
            for &(id, owner, s, f) in wagons[..n].iter().flatten() {
                if f == item.feature {
                    self.note_wagon(view, &mut noted, id, owner, s);
                }
            }
        }
        debug_assert_eq!(noted, self.wagons_to_note_scan(view, draft), "noted wagons");
        noted
    }

    /// [`AmRules::wagons_to_note`] with more wagons on the board than its inline list
    /// holds: each item looks for them.
    #[cold]
    #[inline(never)]
    fn wagons_to_note_scan(
        &self,
        view: &View<'_>,
        draft: &ScoreDraft,
    ) -> Vec<(FigureId, SegmentId, bool)> {
        let mut noted = Vec::new();
        let g = view.state.graph();
        for item in &draft.features {
            if !item.return_figures || !(item.closes || self.loser_moves) {
                continue;
            }
            self.each_figure_of(view, self.ids.wagon, self.layout.wagon, |id, fig| {
                if let FigureLoc::On(s) = fig.loc {
                    if g.feature_of(s) == item.feature {
                        self.note_wagon(view, &mut noted, id, fig.owner, s);
                    }
                }
            });
        }
        noted
    }

    /// A wagon `id` of `owner` on segment `s` of a scored feature: noted, unless another
    /// player's Promotions disc downgrades it (PR-6, AP-5: it does not move); its owner's
    /// upgrades it (it reaches further).
    #[inline]
    fn note_wagon(
        &self,
        view: &View<'_>,
        noted: &mut Vec<(FigureId, SegmentId, bool)>,
        id: FigureId,
        owner: PlayerId,
        s: SegmentId,
    ) {
        let disc = self
            .promo_disc
            .map_or(0, |d| view.state.slot(d, id.0 as usize));
        let owner = i64::from(owner.0) + 1;
        if disc == 0 || disc == owner {
            noted.push((id, s, disc == owner));
        }
    }

    /// The noted wagons' slots (`wagon-from`, `wagon-up`) and the gate of `after_scoring`,
    /// which asks their owners. Out of line: a few scorings a game.
    #[inline(never)]
    fn note_wagons(&self, ctx: &mut Ctx<'_>, noted: Vec<(FigureId, SegmentId, bool)>) {
        ctx.set(self.ids.wagons_noted, 1);
        for (id, s, up) in noted {
            ctx.set(self.ids.wagon_from.of(id), s.index() as i64 + 1);
            ctx.set(self.ids.wagon_up.of(id), i64::from(up));
        }
    }

    /// AM-22: the farm of the barn placed now (`placed`: its segment + 1, or 0); AM-24:
    /// farms the placed tile joined to a barn's farm. Out of line: only once a barn is down.
    #[inline(never)]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn barn_items(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft, placed: i64) -> HookResult {
        if placed != 0 {
            ctx.set(self.ids.barn_placed, 0);
        }
        let view = ctx.view();
        let g = view.state.graph();
        let mut placed_farm = None;
        if placed > 0 {
            let farm = g.feature_of(SegmentId::new(placed as usize - 1));
            placed_farm = Some(farm);
            self.farm_item(&view, draft, farm, BARN_PLACED)?;
        }
        let Some(idx) = view.state.last_placed() else {
            return Ok(());
        };
        let t = view.state.board().tile(idx);
        let mut joined = FeatureSet::default();
        if self.barn_out(&view)
            && self.field_joins_barn_farm(&view, t, &mut |f| {
                if Some(f) != placed_farm {
                    joined.push(f);
                }
            })
        {
            for f in joined.to_vec() {
                self.farm_item(&view, draft, f, BARN_JOINED)?;
            }
        }
        Ok(())
    }
}

impl BoundExpansion for AmRules {
    fn hook_set(&self) -> HookSet {
        let hooks = HookSet::window(Window::BeforeDraw)
            | HookSet::ON_TILE_PLACED
            | HookSet::DEPLOY_STEP_ACTIONS
            | HookSet::STRENGTH_DELTA
            | HookSet::BEFORE_SCORING
            | HookSet::AFTER_SCORING
            | HookSet::FINAL_SCORING;
        // AM-9's final round is all that `on_tile_drawn` and `on_turn_end` do.
        let hooks = if self.final_round {
            hooks | HookSet::ON_TILE_DRAWN | HookSet::ON_TURN_END
        } else {
            hooks
        };
        // `abbey=false`: nobody ever holds an abbey, so there is no prompt and no final
        // abbey round.
        let hooks = if self.abbey_tile.is_none() {
            HookSet(
                hooks.0
                    & !(HookSet::window(Window::BeforeDraw).0
                        | HookSet::ON_TILE_DRAWN.0
                        | HookSet::ON_TURN_END.0),
            )
        } else {
            hooks
        };
        // AM-23 concerns deployments other expansions offer; alone, there are none to drop
        // (core and the wagon prompt only offer unoccupied features, a barn's farm is not).
        if self.alone {
            hooks
        } else {
            hooks | HookSet::FILTER_DEPLOY_ACTIONS | HookSet::FILTER_PROMPT_ACTIONS
        }
    }

    /// The abbey's hooks run only while someone holds his abbey or the final abbey round
    /// is on (`abbey-live`, kept by `apply_prompt` and `apply_setting`); `after_scoring`
    /// only after a `before_scoring` noted a wagon to ask (`wagons-noted`);
    /// `on_tile_placed` only while a barn may be out (`barn-gate`).
    fn hook_gates(&self) -> Vec<HookGate> {
        let mut gates = vec![
            HookGate {
                hooks: HookSet::AFTER_SCORING,
                slot: self.ids.wagons_noted,
            },
            // `on_tile_placed` acts only once a barn is down (AM-24's join check, and the
            // reset of `barn-placed`, which only a barn's deployment sets): barns never
            // return, and only `apply_action` deploys one.
            HookGate {
                hooks: HookSet::ON_TILE_PLACED,
                slot: self.ids.barn_gate,
            },
        ];
        let abbey =
            HookSet::window(Window::BeforeDraw) | HookSet::ON_TILE_DRAWN | HookSet::ON_TURN_END;
        let hooks = HookSet(abbey.0 & self.hook_set().0);
        if hooks != HookSet::NONE {
            gates.push(HookGate {
                hooks,
                slot: self.ids.abbey_live,
            });
        }
        gates
    }

    /// `on_tile_drawn` and `on_turn_end` act only once no tile is left to draw (AM-9's
    /// final round; `TileSupply::is_exhausted`).
    fn hooks_once_supply_empty(&self) -> HookSet {
        HookSet((HookSet::ON_TILE_DRAWN.0 | HookSet::ON_TURN_END.0) & self.hook_set().0)
    }

    /// The abbey prompt of the `BeforeDraw` window needs a hole to place the abbey in: most
    /// turns have none, and the engine then skips the window (AM-3).
    fn hooks_while_holes(&self) -> HookSet {
        HookSet(HookSet::window(Window::BeforeDraw).0 & self.hook_set().0)
    }

    /// AM-1: the second edition swaps the garden twin in.
    fn prepare_game(&self, ctx: &mut Ctx<'_>, _start: &mut Vec<StartTile>) -> HookResult {
        if !self.edition2 {
            return Ok(());
        }
        let (old, new) = GARDEN_TWIN;
        let (Some(o), Some(n)) = (ctx.rules().tiles().find(old), ctx.rules().tiles().find(new))
        else {
            return Err(HookFailure(format!(
                "edition 2 needs the tiles `{old}` and `{new}`"
            )));
        };
        'found: for g in &mut ctx.supply_mut().groups {
            for t in &mut g.tiles {
                if *t == o {
                    *t = n;
                    break 'found;
                }
            }
        }
        Ok(())
    }

    /// `abbey` = `R=0,B=1` (whether each named player still holds his abbey).
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        match key {
            "abbey" => {
                for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let (name, n) = item
                        .split_once('=')
                        .ok_or_else(|| HookFailure(format!("abbey: `{item}` is not NAME=0|1")))?;
                    let p = ctx.state().player_named(name.trim())?;
                    let n: i64 = match n.trim() {
                        "0" => 0,
                        "1" => 1,
                        other => {
                            return Err(HookFailure(format!("abbey: `{other}` is not 0 or 1")))
                        }
                    };
                    ctx.set(self.ids.abbey.of(p), n);
                }
                self.update_abbey_live(ctx);
                Ok(())
            }
            _ => Err(HookFailure(format!(
                "abbey-mayor has no position setting `{key}` (known: abbey)"
            ))),
        }
    }

    #[inline(always)]
    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        match window {
            // AM-3, AM-9, TB-15: the abbey instead of a draw.
            Window::BeforeDraw => {
                let p = ctx.state().active_player();
                if !self.holds_abbey(&ctx.view(), p) {
                    return Ok(());
                }
                if ctx.state().supply().is_exhausted() && !ctx.state().more_turns() {
                    return Ok(());
                }
                // No hole, no prompt (its placement search): the engine skips the window
                // then (`hooks_while_holes`), unless the gate could not be read.
                if ctx.state().board().holes() > 0 {
                    ctx.prompt(p, AmPrompt::Abbey);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    #[inline(always)]
    fn prompt_actions(&self, view: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        match prompt.decode::<AmPrompt>()? {
            AmPrompt::Abbey => {
                let Some(abbey) = self.abbey_tile else {
                    return Ok(());
                };
                // BCB-15 with AM-3: another set's tile already replaces this draw (a tile
                // bought at a bazaar, asked first), so there is no draw to replace.
                if !self.holds_abbey(&view, prompt.player)
                    || view.state.tile_chosen_instead().is_some()
                {
                    return Ok(());
                }
                if self.abbey_in_holes(&view, abbey) {
                    #[cfg(debug_assertions)]
                    let start = out.len();
                    self.abbey_holes(&view, out);
                    #[cfg(debug_assertions)]
                    {
                        let mut general = Vec::new();
                        self.abbey_places(&view, abbey, &mut general)?;
                        assert_eq!(out[start..], general[..], "the abbey's holes");
                    }
                } else {
                    self.abbey_places(&view, abbey, out)?;
                }
                if !out.is_empty() {
                    out.push(Action::Pass);
                }
                Ok(())
            }
            AmPrompt::Wagon { from, up } => {
                if view.state.in_supply(prompt.player, self.ids.wagon) == 0 {
                    return Ok(());
                }
                let mut targets = Vec::new();
                self.wagon_targets(&view, SegmentId::new(from as usize), up, &mut targets);
                for s in &targets {
                    out.push(Action::Deploy {
                        figure: self.ids.wagon,
                        segment: *s,
                    });
                }
                if !out.is_empty() {
                    out.push(Action::Pass);
                }
                Ok(())
            }
        }
    }

    #[inline(always)]
    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        match (prompt.decode::<AmPrompt>()?, action) {
            (_, Action::Pass) => Ok(()),
            (AmPrompt::Abbey, Action::Place { pos, rotation }) => {
                let abbey = self
                    .abbey_tile
                    .ok_or_else(|| HookFailure("no abbey tile in this ruleset".into()))?;
                ctx.play_tile_instead(abbey, pos, rotation)?;
                ctx.set(self.ids.abbey.of(prompt.player), 0);
                self.update_abbey_live(ctx);
                Ok(())
            }
            (AmPrompt::Wagon { .. }, Action::Deploy { figure, segment }) => {
                ctx.deploy(prompt.player, figure, segment)?;
                Ok(())
            }
            (p, a) => Err(HookFailure(format!("prompt {p:?} cannot take {a}"))),
        }
    }

    /// AM-24: a placement that joins a farm holding followers to a barn's farm scores it.
    #[inline(always)]
    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: Pos) -> HookResult {
        if ctx.get(self.ids.barn_placed) != 0 {
            ctx.set(self.ids.barn_placed, 0);
        }
        let view = ctx.view();
        if !self.barn_out(&view) {
            // Every barn is in supply: shut the gate until `apply_action` deploys one.
            ctx.set(self.ids.barn_gate, 0);
            return Ok(());
        }
        // The tile just placed, read by its index (core's last placement) rather than looked
        // up by its cell.
        let board = view.state.board();
        let Some(t) = view
            .state
            .last_placed()
            .map(|i| board.tile(i))
            .filter(|t| t.pos == pos)
            .or_else(|| board.at(pos))
        else {
            return Ok(());
        };
        // Only a field of the placed tile can join a farm to a barn's (AM-24); a barn is
        // out (above).
        if self.field_joins_barn_farm(&view, t, &mut |_| {}) {
            ctx.request_scoring();
        }
        Ok(())
    }

    /// AM-19, AM-20, AM-21: the barn on a corner of the placed land tile.
    #[inline(always)]
    fn deploy_step_actions(
        &self,
        view: View<'_>,
        player: PlayerId,
        out: &mut Vec<Action>,
    ) -> HookResult {
        if view.state.in_supply(player, self.ids.barn) == 0 {
            return Ok(());
        }
        let Some(idx) = view.state.last_placed() else {
            return Ok(());
        };
        let board = view.state.board();
        let t = board.tile(idx);
        let corners = self.barn_corner_mask(board, t);
        #[cfg(debug_assertions)]
        assert_eq!(corners, self.barn_corners_walk(board, t), "barn corners");
        if corners != 0 {
            self.offer_barns(&view, t, corners, out);
        }
        Ok(())
    }

    /// AM-23 drops deployments onto a barn's farm only.
    fn keeps_deploy_pass(&self) -> bool {
        true
    }

    /// The prompt filter drops the same deployments only.
    fn keeps_prompt_pass(&self) -> bool {
        true
    }

    /// AM-23: nothing is deployed onto a farm holding a barn (a pig next to a farmer that
    /// only a market redeployment brought there, say); under
    /// `barnFarmFigures=non-followers`, no follower.
    #[inline(always)]
    fn filter_deploy_actions(
        &self,
        view: View<'_>,
        _player: PlayerId,
        actions: &mut Offered<'_>,
    ) -> HookResult {
        self.drop_barn_farm_deploys(&view, actions);
        Ok(())
    }

    /// AM-23 for deployments other expansions' prompts offer (magic portal, Tactician).
    #[inline(always)]
    fn filter_prompt_actions(
        &self,
        view: View<'_>,
        _prompt: Prompt,
        actions: &mut Offered<'_>,
    ) -> HookResult {
        self.drop_barn_farm_deploys(&view, actions);
        Ok(())
    }

    #[inline(always)]
    fn apply_action(
        &self,
        ctx: &mut Ctx<'_>,
        player: PlayerId,
        action: CustomAction,
    ) -> HookResult {
        if action.verb != self.ids.barn_verb {
            return Err(HookFailure("unknown verb".into()));
        }
        let seg = action
            .segment
            .ok_or_else(|| HookFailure("a barn needs a segment".into()))?;
        let fig = ctx.deploy(player, self.ids.barn, seg)?;
        ctx.set(self.ids.barn_corner.of(fig), i64::from(action.value) + 1);
        ctx.set(self.ids.barn_placed, seg.index() as i64 + 1);
        ctx.set(self.ids.barn_gate, 1);
        ctx.request_scoring();
        Ok(())
    }

    /// AM-11: a mayor is worth 2 half-units per pennant of its city.
    #[inline(always)]
    fn strength_delta(&self, view: View<'_>, figure: FigureId) -> HookResult<i32> {
        let fig = view.state.figure(figure);
        if fig.kind != self.ids.mayor {
            return Ok(0);
        }
        let FigureLoc::On(s) = fig.loc else {
            return Ok(0);
        };
        let g = view.state.graph();
        Ok(2 * i32::from(g.totals(g.feature_of(s)).pennants))
    }

    #[inline(always)]
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        if self.empty_city_event {
            self.zero_for_pennantless_mayors(&ctx.view(), draft);
        }
        if draft.final_scoring {
            return self.final_barn_farms(ctx, draft);
        }
        // AM-15, AM-17: note the wagons of the features this scoring closes.
        let noted = self.wagons_to_note(&ctx.view(), draft);
        if !noted.is_empty() {
            self.note_wagons(ctx, noted);
        }
        // AM-22: the farm of the barn placed now; AM-24: farms joined to a barn's farm.
        // Neither while every barn is in supply (a placed barn is out): most scorings.
        let placed = ctx.get(self.ids.barn_placed);
        if placed == 0 && !self.barn_out(&ctx.view()) {
            return Ok(());
        }
        self.barn_items(ctx, draft, placed)
    }

    /// AM-15: the wagons of the features this scoring closed may move: their owners are
    /// asked first of all (step 8 comes before the CoC deployment, whatever the load
    /// order), active player first, then clockwise.
    #[inline(always)]
    fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        if draft.final_scoring {
            return Ok(());
        }
        ctx.set(self.ids.wagons_noted, 0);
        let view = ctx.view();
        let n = view.state.players().len();
        let active = view.state.active_player().index();
        let mut asks: Vec<(usize, usize, FigureId, u32, bool)> = Vec::new();
        self.each_figure_of(&view, self.ids.wagon, self.layout.wagon, |id, fig| {
            let from = view.get(self.ids.wagon_from.of(id));
            if from > 0 {
                let order = (fig.owner.index() + n - active) % n;
                let up = view.get(self.ids.wagon_up.of(id)) != 0;
                asks.push((order, id.0 as usize, id, (from - 1) as u32, up));
            }
        });
        if asks.is_empty() {
            return Ok(());
        }
        asks.sort();
        for &(_, _, id, _, _) in &asks {
            ctx.set(self.ids.wagon_from.of(id), 0);
            ctx.set(self.ids.wagon_up.of(id), 0);
        }
        // `prompt_next` puts each in front: queue them last to first.
        for &(_, _, id, from, up) in asks.iter().rev() {
            if ctx.state().figure(id).loc == FigureLoc::Supply {
                let owner = ctx.state().figure(id).owner;
                ctx.prompt_next(owner, AmPrompt::Wagon { from, up });
            }
        }
        Ok(())
    }

    /// AM-9: the supply's last tile is drawn. Should it fit nowhere, the turn would
    /// end the game at once, with no turn end: keeping turns going now lets `on_turn_end`
    /// start the final abbey round from this player's left, as JCZ does when its tile step
    /// finds the pack empty (`AbbeyEndGamePhase`). A placed tile changes nothing: its turn
    /// end would have kept them going anyway.
    #[inline(always)]
    fn on_tile_drawn(&self, ctx: &mut Ctx<'_>, _tile: TileKindId) -> HookResult<DrawVerdict> {
        if ctx.state().supply().is_exhausted() && ctx.get(self.ids.final_end) == 0 {
            let view = ctx.view();
            let n = view.state.players().len();
            if (0..n as u8).any(|p| self.holds_abbey(&view, PlayerId(p))) {
                ctx.set_more_turns(true);
            }
        }
        Ok(DrawVerdict::Keep)
    }

    /// AM-9: the final abbey round.
    #[inline(always)]
    fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        if !self.final_round || !ctx.state().supply().is_exhausted() {
            return Ok(TurnEndVerdict::Next);
        }
        let view = ctx.view();
        let n = view.state.players().len() as i64;
        let anyone = (0..n as u8).any(|p| self.holds_abbey(&view, PlayerId(p)));
        let turn = i64::from(view.state.turn());
        let end = ctx.get(self.ids.final_end);
        if end == 0 {
            if anyone {
                ctx.set(self.ids.final_end, turn + n + 1);
                ctx.set_more_turns(true);
            }
        } else if turn + 1 >= end || !anyone {
            ctx.set_more_turns(false);
        }
        Ok(TurnEndVerdict::Next)
    }

    /// AM-25: every barn owner scores 4 per completed city of its farm, once per farm. At
    /// the end of every game and of every playout of a search: the barns (one per seat)
    /// are listed inline, each farm's owners as a bit per seat, with no allocation; more
    /// barns than seats take the general path ([`AmRules::barn_finals_general`]), which
    /// debug builds also compare.
    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let view = ctx.view();
        let Some((barns, n)) =
            self.barns_inline(&view, (FeatureId(0), 0u8), |farm, fig| (farm, fig.owner.0))
        else {
            let awards = self.barn_finals_general(&view);
            for (p, pts) in awards {
                ctx.award(p, pts, self.ids.barn_label);
            }
            return Ok(());
        };
        if n == 0 {
            return Ok(());
        }
        // Per farm, in the order of its first barn: its owners, once each, in seat order.
        let mut awards = [(PlayerId(0), 0i32); MAX_PLAYERS];
        let mut k = 0usize;
        for i in 0..n {
            let f = barns[i].0;
            if barns[..i].iter().any(|b| b.0 == f) {
                continue;
            }
            let pts = BARN_FINAL * view.completed_city_count(f) as i32;
            let mut owners = barns[i..n]
                .iter()
                .filter(|b| b.0 == f)
                .fold(0u32, |m, b| m | 1 << b.1);
            while owners != 0 {
                awards[k] = (PlayerId(owners.trailing_zeros() as u8), pts);
                k += 1;
                owners &= owners - 1;
            }
        }
        #[cfg(debug_assertions)]
        assert_eq!(
            awards[..k],
            self.barn_finals_general(&view)[..],
            "AM-25's barn awards"
        );
        for &(p, pts) in &awards[..k] {
            ctx.award(p, pts, self.ids.barn_label);
        }
        Ok(())
    }
}

impl AmRules {
    /// AM-25's awards read the general way: the barns on the board in figure order, their
    /// farms in the order of their first barn, each farm's owners sorted and deduplicated.
    /// [`BoundExpansion::final_scoring`] when its inline lists do not fit; debug builds'
    /// check of them. Out of line.
    #[cold]
    #[inline(never)]
    fn barn_finals_general(&self, view: &View<'_>) -> Vec<(PlayerId, i32)> {
        let g = view.state.graph();
        let mut barns: Vec<(FeatureId, PlayerId)> = Vec::new();
        self.each_figure_of(view, self.ids.barn, self.layout.barn, |_, fig| {
            if let FigureLoc::On(s) = fig.loc {
                barns.push((g.feature_of(s), fig.owner));
            }
        });
        let mut farms: Vec<FeatureId> = Vec::new();
        for (f, _) in &barns {
            if !farms.contains(f) {
                farms.push(*f);
            }
        }
        let mut awards: Vec<(PlayerId, i32)> = Vec::new();
        for f in farms {
            let cities = view.completed_city_count(f) as i32;
            let mut owners: Vec<PlayerId> = barns
                .iter()
                .filter(|(b, _)| *b == f)
                .map(|(_, p)| *p)
                .collect();
            owners.sort();
            owners.dedup();
            for p in owners {
                awards.push((p, BARN_FINAL * cities));
            }
        }
        awards
    }
}

carcassonne_core::export_expansion!("abbey-mayor", AbbeyMayor::new());
