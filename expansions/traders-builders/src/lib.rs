//! # Traders & Builders (rules TB-1 … TB-31)
//!
//! **Goods (TB-3 … TB-8).** A goods symbol is a segment tag (`wine`, `grain`, `cloth`) on
//! the city segment it is printed in. In `after_scoring` of a placement, every complete
//! city item of the draft (one placement may complete several, and each part of a double
//! turn is its own scoring) gives the active player one token per symbol on its segments,
//! whoever stood in it (TB-4, TB-5). Tokens are per-player slots (`wine`, `grain`,
//! `cloth`: the renderer's score panel and the replay output's `state` show them); the
//! general supply is three game slots, filled in `start_game` with one token per printed
//! symbol of the loaded tile kinds (TB-8). Final drafts give nothing (TB-5). After final
//! scoring, for each type, every player holding the most (at least 1) scores 10
//! (`trade-goods`, JCZ's name; TB-6).
//!
//! **Builder (TB-9 … TB-17).** Figure kind `builder`, 1 per player, not a follower,
//! strength 0 (so never in a majority). `deploy_step_actions` offers it on a city or road
//! segment of the tile just placed whose feature holds a follower of the player (any figure
//! kind with the follower flag: TBQ-2) and is not completed by this placement (TBQ-3).
//! `on_tile_placed` of the first tile of a turn notes whether one of its segments joined a
//! feature holding the active player's own builder (TB-11); `on_turn_end` then asks core
//! for an extra part (core grants one per turn, so a second part never earns a third,
//! TB-13). The extra part happens even if the builder went home in part 1 (TB-14). With
//! `builderDoubleTurn=optional` the player is asked in the `AfterScoring` window of part 1
//! (verb `double-turn` or pass) before anything is drawn (TB-16).
//!
//! **Pig (TB-19 … TB-23).** Figure kind `pig`, offered on a field segment of the tile just
//! placed whose farm holds a follower of the player. In `before_scoring` of every farm
//! scoring, each winner with a pig in the farm gets +1 per counted city, and with `pigHerd`
//! on every winner of a farm containing a `pig-herd` field gets +1 per city more (TB-23);
//! the extra points go into the winner's `field` award.
//!
//! **Returns (TB-17, TB-21).** Builders and pigs return with everything else when their
//! feature is scored (core: they are figures that return). After any figure leaves the
//! board, every builder (pig) whose owner has no follower left in its feature goes home.

use carcassonne_core::{
    binder, Action, Binder, Binding, BoundExpansion, Ctx, CustomAction, Declare, DraftFeature,
    Expansion, FarmScoring, FeatureId, FeatureKindDef, FigureId, FigureKindDef, FigureKindId,
    FigureLoc, GameSlot, HookFailure, HookGate, HookResult, HookSet, KindMask, LabelId, PlayerId,
    PlayerSlot, Prompt, PromptCode, PromptKind, RemovalReason, Ruleset, ScoreDraft, Scoring,
    Segment, SegmentId, Shape, StartTile, TurnEndVerdict, VerbId, VerbValue, View, Window,
    MAX_PLAYERS,
};

/// The three goods, in the order they are scored and shown.
pub const GOODS: [&str; 3] = ["wine", "grain", "cloth"];

/// The segment tag of River II's pig herd (TB-23).
pub const PIG_HERD: &str = "pig-herd";

/// How many herd tiles on the board [`Ids::herd_at`] lists (River II has one); with more,
/// the herd test walks the farm.
const HERD_KEPT: usize = 2;

/// Points for the most tokens of one type (TB-6).
const MAJORITY_BONUS: i32 = 10;

/// Option keys (full keys; the binder reads them by their short names).
pub const DOUBLE_TURN_OPTION: &str = "traders-builders.builderDoubleTurn";
/// TB-23.
pub const PIG_HERD_OPTION: &str = "traders-builders.pigHerd";
/// TB-1: which edition's tiles.
pub const EDITION_OPTION: &str = "traders-builders.edition";

/// Garden twins of the second edition: (first-edition tile, its twin).
const GARDEN_TWINS: [(&str, &str); 2] = [("TB/CcRR.w", "TB/CcRR.wG"), ("TB/CcR.c", "TB/CcR.cG")];

/// What this expansion asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TbPrompt {
    /// TB-16 `optional`: take the builder's extra tile or not.
    DoubleTurn,
}

impl PromptKind for TbPrompt {
    fn encode(self) -> PromptCode {
        PromptCode { tag: 1, arg: 0 }
    }

    fn decode(code: PromptCode) -> Option<Self> {
        (code.tag == 1).then_some(TbPrompt::DoubleTurn)
    }
}

#[derive(Clone, Copy, Debug)]
struct Ids {
    builder: FigureKindId,
    pig: FigureKindId,
    /// Tokens per player, in [`GOODS`] order.
    goods: [PlayerSlot; 3],
    /// Tokens left in the general supply, in [`GOODS`] order.
    supply: [GameSlot; 3],
    /// 1 when the first tile of this turn extended the active player's builder's feature
    /// (cleared when the extra part is granted or declined).
    triggered: GameSlot,
    /// Turn number + 1 of the last placement's turn (so a second placement in the same
    /// turn is known to be a later part).
    placed_turn: GameSlot,
    /// TB-23: how many tiles that have (or, turned into a variant, may have) a herd
    /// segment lie on the board, and the board indices of the first [`HERD_KEPT`] of them
    /// in placement order: the herd test reads those tiles' herd segments instead of
    /// walking every segment of the farm.
    herd_count: GameSlot,
    herd_at: [GameSlot; HERD_KEPT],
    verb: VerbId,
    label: LabelId,
}

/// The Traders & Builders expansion (stateless; one value serves every ruleset).
#[derive(Debug, Default)]
pub struct TradersBuilders;

impl TradersBuilders {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// Traders & Builders bound to one ruleset.
struct TbRules {
    ids: Ids,
    /// TB-16 `optional`.
    optional: bool,
    /// TB-23.
    herd: bool,
    /// TB-1: second-edition tiles.
    edition2: bool,
    /// TB-8: the general supply's tokens per type, counted from the tiles at bind (the
    /// same for every game of the ruleset).
    supply_tokens: [i64; 3],
    /// Per tile kind, the local segments a builder (`[0]`) or a pig (`[1]`) may stand on
    /// (TB-10, TB-19), as bit masks: what the deployment step would otherwise work out
    /// from the segments' kinds on every placement.
    deploy_masks: Vec<[u16; 2]>,
    /// Per tile kind, its local city and road segments (any, occupiable or not): the
    /// segments by which a placed tile can extend a builder's feature (TB-11), so that the
    /// check after a placement walks only those to their features.
    extend_masks: Vec<u16>,
    /// Per feature kind, whether it is a city or road kind (the segments of
    /// `extend_masks`): a builder on any other (moved there by another expansion) has its
    /// tile checked segment by segment.
    extend_kinds: Vec<bool>,
    /// Per tile kind, whether one of its segments has the `pig-herd` tag (TB-23): the
    /// walk over a farm's segments looks at the tags of those tiles only.
    herd_tiles: Vec<bool>,
    /// TB-23 is on and a tile kind of the ruleset (variants included) has a herd: with
    /// Traders & Builders alone no farm is walked for one.
    any_herd: bool,
    /// Per tile kind, its local segments with the `pig-herd` tag, as a bit mask; and
    /// `herd_locals`, the union of them all: [`in_herd`]'s walk reads a segment's tile only
    /// when its local index is one of those (core refuses a tile of more than 16 segments,
    /// so every local index fits).
    herd_masks: Vec<u16>,
    herd_locals: u16,
    /// Per tile kind, whether a placed tile of it has a herd segment, or may get one by
    /// turning into one of its variants (an overlay): the tiles [`Ids::herd_at`] lists.
    herd_capable: Vec<bool>,
    /// Farmers are in play (the pig has nowhere to go otherwise).
    farmers: bool,
    /// Per figure kind: whether it is a follower (TBQ-2).
    follower: Vec<bool>,
}

impl Expansion for TradersBuilders {
    fn id(&self) -> &str {
        "traders-builders"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        // `look` tells renderers the outline: the builder a pawn, the pig a pig.
        let kind = |name: &str, look: &str, on: KindMask| FigureKindDef {
            name: name.into(),
            per_player: 1,
            strength: 0,
            deploy_on: on,
            follower: false,
            returns: true,
            look: look.into(),
            neutral: 0,
            shares: false,
            colour: String::new(),
        };
        let city_road = KindMask(0)
            .with(carcassonne_core::FeatureKindId::CITY)
            .with(carcassonne_core::FeatureKindId::ROAD);
        let field = KindMask(0).with(carcassonne_core::FeatureKindId::FIELD);
        let builder = d
            .figure_kind(kind("builder", "pawn", city_road))
            .map_err(|e| e.to_string())?;
        let pig = d
            .figure_kind(kind("pig", "pig", field))
            .map_err(|e| e.to_string())?;
        let ids = Ids {
            builder,
            pig,
            goods: GOODS.map(|g| d.player_slot(g, 0)),
            supply: GOODS.map(|g| d.game_slot(&format!("{g}-supply"), 0)),
            triggered: d.game_slot("builder-triggered", 0),
            placed_turn: d.game_slot("placed-turn", 0),
            herd_count: d.game_slot("herd-tiles", 0),
            herd_at: [d.game_slot("herd-tile-1", 0), d.game_slot("herd-tile-2", 0)],
            verb: d.verb_in_words("double-turn", "take the builder's second tile"),
            label: d.score_label("trade-goods"),
        };
        // The value is an internal detail (a side, a corner, a quarter's index).
        d.verb_value(ids.verb, VerbValue::Hidden);
        d.prompt_in_words(TbPrompt::DoubleTurn, "take the builder's second tile");
        Ok(binder(move |b: &Binding<'_>| {
            let edition2 = b.option_str("edition")? == "2";
            let herd = b.option_flag("pigHerd")?;
            let herd_masks = herd_masks(b.rules());
            // Per tile kind, whether a segment of it has the `pig-herd` tag.
            let herd_tiles: Vec<bool> = herd_masks.iter().map(|m| *m != 0).collect();
            let herd_capable = herd_capable(b.rules(), &herd_masks);
            Ok(TbRules {
                herd_capable,
                herd_locals: herd_masks.iter().fold(0, |a, m| a | m),
                herd_masks,
                any_herd: herd && herd_tiles.iter().any(|h| *h),
                supply_tokens: supply_tokens(b.rules(), edition2),
                deploy_masks: deploy_masks(b.rules()),
                extend_masks: extend_masks(b.rules()),
                extend_kinds: b.rules().kinds().iter().map(city_or_road).collect(),
                herd_tiles,
                farmers: b.rules().base().farmers,
                follower: b
                    .rules()
                    .figure_kinds()
                    .iter()
                    .map(|k| k.follower)
                    .collect(),
                ids,
                optional: match b.option_str("builderDoubleTurn")? {
                    "mandatory" => false,
                    "optional" => true,
                    other => {
                        return Err(HookFailure(format!(
                            "option builderDoubleTurn: unknown value `{other}`"
                        )))
                    }
                },
                herd,
                edition2,
            })
        }))
    }
}

/// Index in [`GOODS`] of a segment tag.
fn good_of(tag: &str) -> Option<usize> {
    GOODS.iter().position(|g| *g == tag)
}

/// TB-8: one token per printed symbol of the ruleset's tiles, per type (the second edition
/// swaps one copy of each garden twin in).
fn supply_tokens(rules: &Ruleset, edition2: bool) -> [i64; 3] {
    let mut n = [0i64; 3];
    for (_, tk) in rules.tiles().iter() {
        let copies = if edition2 {
            match GARDEN_TWINS
                .iter()
                .find(|(o, t)| *o == tk.id || *t == tk.id)
            {
                Some((o, _)) if *o == tk.id => i64::from(tk.count) - 1,
                Some(_) => 1,
                None => i64::from(tk.count),
            }
        } else {
            i64::from(tk.count)
        };
        for seg in &tk.segments {
            for t in &seg.tags {
                if let Some(i) = good_of(t) {
                    n[i] += copies.max(0);
                }
            }
        }
    }
    n
}

/// Per tile kind, the local segments a builder or a pig may stand on: occupiable city or road
/// segments, occupiable farm segments; none on a tile that takes no figures.
fn deploy_masks(rules: &Ruleset) -> Vec<[u16; 2]> {
    rules
        .tiles()
        .iter()
        .map(|(_, tk)| {
            let mut m = [0u16; 2];
            if !tk.deploy {
                return m;
            }
            for (i, seg) in tk.segments.iter().enumerate() {
                let def = rules.kind(seg.kind);
                if !def.occupiable {
                    continue;
                }
                match (def.shape, def.scoring) {
                    (Shape::Edge { .. }, Scoring::City | Scoring::Road) => m[0] |= 1 << i,
                    (Shape::Field, Scoring::Farm) => m[1] |= 1 << i,
                    _ => {}
                }
            }
            m
        })
        .collect()
}

/// Whether a feature kind is a city or a road: a builder's (TB-10).
fn city_or_road(def: &FeatureKindDef) -> bool {
    matches!(
        (def.shape, def.scoring),
        (Shape::Edge { .. }, Scoring::City | Scoring::Road)
    )
}

/// Per tile kind, its local city and road segments, as a bit mask (`TbRules::extend_masks`).
fn extend_masks(rules: &Ruleset) -> Vec<u16> {
    let kinds = segment_masks(rules, |seg| city_or_road(rules.kind(seg.kind)));
    rules
        .tiles()
        .iter()
        .zip(kinds)
        // Segments added to a placed tile (past its kind's) are walked too.
        .map(|((_, tk), m)| m | u16::MAX.checked_shl(tk.segments.len() as u32).unwrap_or(0))
        .collect()
}

/// Per tile kind, the local segments with the `pig-herd` tag.
fn herd_masks(rules: &Ruleset) -> Vec<u16> {
    segment_masks(rules, |seg| seg.tags.iter().any(|t| t == PIG_HERD))
}

/// Per tile kind, the local segments for which `keep` holds, as a bit mask (a tile has at
/// most 16 segments, core's `check_tile`).
fn segment_masks(rules: &Ruleset, keep: impl Fn(&Segment) -> bool) -> Vec<u16> {
    rules
        .tiles()
        .iter()
        .map(|(_, tk)| {
            tk.segments
                .iter()
                .enumerate()
                .filter(|(i, seg)| *i < 16 && keep(seg))
                .fold(0u16, |m, (i, _)| m | 1 << i)
        })
        .collect()
}

/// Per tile kind, whether it or a variant it may turn into (its variants, theirs, …) has a
/// herd segment (`masks`, from [`herd_masks`]).
fn herd_capable(rules: &Ruleset, masks: &[u16]) -> Vec<bool> {
    let tiles = rules.tiles();
    (0..masks.len())
        .map(|k| {
            // Depth-first over the variants, each kind looked at once.
            let mut seen = vec![false; masks.len()];
            let mut stack = vec![k];
            while let Some(k) = stack.pop() {
                if std::mem::replace(&mut seen[k], true) {
                    continue;
                }
                if masks[k] != 0 {
                    return true;
                }
                let kind = tiles.get(carcassonne_core::TileKindId(k as u16));
                stack.extend(
                    kind.variants
                        .iter()
                        .map(|v| v.0 as usize)
                        .filter(|v| *v < masks.len()),
                );
            }
            false
        })
        .collect()
}

/// Whether a scoring item is a city this placement closed (its goods go to the placer).
#[inline]
fn closed_city(rules: &Ruleset, item: &DraftFeature) -> bool {
    item.complete && item.closes && rules.kind(item.kind).scoring == Scoring::City
}

/// Goods symbols on the (non-virtual) segments of a feature, per type.
fn goods_in(rules: &Ruleset, view: &View<'_>, f: FeatureId) -> [i64; 3] {
    let g = view.state.graph();
    let mut n = [0i64; 3];
    for s in g.members(f) {
        if let Some(tag_list) = segment_tags(rules, view, s) {
            for t in tag_list {
                if let Some(i) = good_of(t) {
                    n[i] += 1;
                }
            }
        }
    }
    n
}

/// The tags of a segment on a placed tile (`None` for virtual segments).
fn segment_tags<'r>(rules: &'r Ruleset, view: &View<'_>, s: SegmentId) -> Option<&'r [String]> {
    let node = view.state.graph().segment(s);
    if node.is_virtual() {
        return None;
    }
    let placed = view.state.board().tiles().get(node.tile as usize)?;
    let tk = rules.tiles().get(placed.kind);
    tk.segments
        .get(node.local as usize)
        .map(|seg| seg.tags.as_slice())
}

/// Whether `player` has a follower (any kind with the follower flag, `follower` by kind) on
/// feature `f`. The figure's place is read first (it is in the figure itself; the kind's flag
/// is not), and only a figure on the board has its feature looked up.
fn has_follower(view: &View<'_>, follower: &[bool], player: PlayerId, f: FeatureId) -> bool {
    let g = view.state.graph();
    view.state
        .figures_of(player)
        .1
        .iter()
        .any(|fig| match fig.loc {
            FigureLoc::On(s) => {
                follower.get(fig.kind.0 as usize).copied().unwrap_or(false) && g.feature_of(s) == f
            }
            _ => false,
        })
}

/// Whether `player` has a figure of `kind` on feature `f`.
fn has_figure(view: &View<'_>, player: PlayerId, kind: FigureKindId, f: FeatureId) -> bool {
    let g = view.state.graph();
    view.state
        .figures_of(player)
        .1
        .iter()
        .any(|fig| fig.kind == kind && matches!(fig.loc, FigureLoc::On(s) if g.feature_of(s) == f))
}

/// Whether a farm contains a pig-herd field. Only the segments of tiles with a herd
/// (`herd_tiles`, by tile kind) have their tags compared: a farm has hundreds of segments
/// at the end of a big game, and almost none lies on such a tile.
fn has_herd(rules: &Ruleset, view: &View<'_>, herd_tiles: &[bool], farm: FeatureId) -> bool {
    let g = view.state.graph();
    let tiles = view.state.board().tiles();
    g.members(farm).any(|s| {
        let node = g.segment(s);
        !node.is_virtual()
            && tiles
                .get(node.tile as usize)
                .is_some_and(|t| herd_tiles.get(t.kind.0 as usize).copied().unwrap_or(true))
            && segment_tags(rules, view, s).is_some_and(|tags| tags.iter().any(|t| t == PIG_HERD))
    })
}

/// Whether `player`'s pig stands in feature `f`: [`has_figure`] for the pig kind, read
/// among the player's pigs only ([`View::figures_of_kind`]) instead of all his figures.
fn pig_in(view: &View<'_>, player: PlayerId, pig: FigureKindId, f: FeatureId) -> bool {
    let g = view.state.graph();
    view.figures_of_kind(player, pig)
        .iter()
        .any(|fig| matches!(fig.loc, FigureLoc::On(s) if g.feature_of(s) == f))
}

/// [`has_herd`] for the scoring hook: a segment's tile is read only when its local index is
/// one a herd has on some tile kind (`locals`), and its tags are not compared but looked up
/// in `masks` (per tile kind, the local segments with the tag).
fn in_herd(view: &View<'_>, masks: &[u16], locals: u16, farm: FeatureId) -> bool {
    let g = view.state.graph();
    let tiles = view.state.board().tiles();
    g.members(farm).any(|s| {
        let node = g.segment(s);
        let bit = 1u32 << (node.local & 31);
        !node.is_virtual()
            && u32::from(locals) & bit != 0
            && tiles
                .get(node.tile as usize)
                .and_then(|t| masks.get(t.kind.0 as usize))
                .is_some_and(|m| u32::from(*m) & bit != 0)
    })
}

impl TbRules {
    /// TB-4, TB-5: the goods of the cities `draft` closed, to the active player.
    #[inline(never)]
    fn take_goods(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) {
        let me = ctx.state().active_player();
        let mut got = [0i64; 3];
        {
            let view = ctx.view();
            for item in &draft.features {
                if !closed_city(view.rules, item) {
                    continue;
                }
                let n = goods_in(view.rules, &view, item.feature);
                for i in 0..3 {
                    got[i] += n[i];
                }
            }
        }
        for (i, n) in got.iter().enumerate() {
            if *n == 0 {
                continue;
            }
            let slot = self.ids.goods[i].of(me);
            let held = ctx.get(slot);
            ctx.set(slot, held + n);
            let left = ctx.get(self.ids.supply[i]);
            ctx.set(self.ids.supply[i], (left - n).max(0));
        }
    }

    /// TB-23: whether a tile of kind `kind` goes into the herd slots ([`Ids::herd_at`]).
    #[inline]
    fn herd_capable(&self, kind: carcassonne_core::TileKindId) -> bool {
        self.herd_capable
            .get(kind.0 as usize)
            .copied()
            .unwrap_or(true)
    }

    /// TB-23: notes a tile on the board (just placed, or lying there at the start) that
    /// has, or may get, a herd segment ([`Self::herd_capable`]) in the herd slots.
    #[cold]
    #[inline(never)]
    fn note_herd_tile(&self, ctx: &mut Ctx<'_>, idx: u16) {
        let n = ctx.get(self.ids.herd_count);
        if let Some(slot) = usize::try_from(n)
            .ok()
            .and_then(|n| self.ids.herd_at.get(n))
        {
            ctx.set(*slot, i64::from(idx));
        }
        ctx.set(self.ids.herd_count, n + 1);
    }

    /// Whether a farm contains a pig-herd field: [`in_herd`] without the walk, from the
    /// herd tiles the slots list (each listed tile's herd segments, as its kind now has
    /// them); with more herd tiles than the slots hold, the walk.
    fn herd_in(&self, view: &View<'_>, farm: FeatureId) -> bool {
        let n = view.get(self.ids.herd_count);
        if n as u64 > HERD_KEPT as u64 {
            return in_herd(view, &self.herd_masks, self.herd_locals, farm);
        }
        let g = view.state.graph();
        let tiles = view.state.board().tiles();
        self.ids.herd_at[..n as usize].iter().any(|slot| {
            let Some(t) = tiles.get(view.get(*slot) as usize) else {
                return false;
            };
            let m = self.herd_masks.get(t.kind.0 as usize).copied().unwrap_or(0);
            t.segments_in(u32::from(m)).any(|s| g.feature_of(s) == farm)
        })
    }

    /// The first part of a turn places the turn's first tile; a later placement in the same
    /// turn (same turn number) is a later part.
    fn first_part(&self, ctx: &mut Ctx<'_>) -> bool {
        let now = i64::from(ctx.state().turn()) + 1;
        if ctx.get(self.ids.placed_turn) == now {
            return false;
        }
        ctx.set(self.ids.placed_turn, now);
        true
    }

    /// TB-17, TB-21: builders (pigs) whose owner has no follower left in their feature go home.
    fn orphans(&self, view: &View<'_>) -> Vec<FigureId> {
        let g = view.state.graph();
        let mut out = Vec::new();
        for p in 0..view.state.players().len() {
            let player = PlayerId(p as u8);
            let (first, mine) = view.state.figures_of(player);
            for (i, fig) in mine.iter().enumerate() {
                if fig.kind != self.ids.builder && fig.kind != self.ids.pig {
                    continue;
                }
                let FigureLoc::On(s) = fig.loc else { continue };
                if !has_follower(view, &self.follower, player, g.feature_of(s)) {
                    out.push(FigureId((first + i) as u16));
                }
            }
        }
        out
    }

    /// Extra points per counted city for `player` winning farm `farm` (TB-20, TB-23). The
    /// pig is read among the player's pigs only ([`pig_in`]); the herd is looked for only
    /// when a tile kind of the ruleset has one.
    fn per_city_bonus(&self, view: &View<'_>, player: PlayerId, farm: FeatureId) -> i32 {
        let pig = pig_in(view, player, self.ids.pig, farm);
        let herd = self.any_herd && self.herd_in(view, farm);
        debug_assert_eq!(
            (pig, herd),
            (
                has_figure(view, player, self.ids.pig, farm),
                self.herd && has_herd(view.rules, view, &self.herd_tiles, farm)
            ),
            "the pig and herd tests against the scans"
        );
        i32::from(pig) + i32::from(herd)
    }
}

impl BoundExpansion for TbRules {
    fn hook_set(&self) -> HookSet {
        let mut h = HookSet::GAME_START
            | HookSet::ON_TILE_PLACED
            | HookSet::DEPLOY_STEP_ACTIONS
            | HookSet::BEFORE_SCORING
            | HookSet::AFTER_SCORING
            | HookSet::ON_FIGURE_REMOVED
            | HookSet::ON_TURN_END
            | HookSet::FINAL_SCORING;
        if self.optional {
            h = h | HookSet::window(Window::AfterScoring);
        }
        h
    }

    /// The extra part (TB-11) and its question (TB-16) only ever follow a triggering tile:
    /// the engine skips both calls while `builder-triggered` is 0.
    fn hook_gates(&self) -> Vec<HookGate> {
        let mut hooks = HookSet::ON_TURN_END;
        if self.optional {
            hooks = hooks | HookSet::window(Window::AfterScoring);
        }
        vec![HookGate {
            hooks,
            slot: self.ids.triggered,
        }]
    }

    /// TB-1: the second edition swaps one copy of each garden twin in.
    fn prepare_game(&self, ctx: &mut Ctx<'_>, _start: &mut Vec<StartTile>) -> HookResult {
        if !self.edition2 {
            return Ok(());
        }
        let mut swaps = Vec::new();
        for (old, new) in GARDEN_TWINS {
            let (Some(o), Some(n)) = (ctx.rules().tiles().find(old), ctx.rules().tiles().find(new))
            else {
                return Err(HookFailure(format!(
                    "edition 2 needs the tiles `{old}` and `{new}`"
                )));
            };
            swaps.push((o, n));
        }
        let supply = ctx.supply_mut();
        for (o, n) in swaps {
            'found: for g in &mut supply.groups {
                for t in &mut g.tiles {
                    if *t == o {
                        *t = n;
                        break 'found;
                    }
                }
            }
        }
        Ok(())
    }

    /// TB-8: one token per printed symbol of the loaded tiles.
    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        for (i, slot) in self.ids.supply.iter().enumerate() {
            ctx.set(*slot, self.supply_tokens[i]);
        }
        // TB-23: the herd tiles among the start tiles (and a position's tiles).
        if self.any_herd {
            let n = ctx.state().board().tiles().len();
            for idx in 0..n as u16 {
                if self.herd_capable(ctx.state().board().tile(idx).kind) {
                    self.note_herd_tile(ctx, idx);
                }
            }
        }
        Ok(())
    }

    /// `wine` / `grain` / `cloth` = `R=3,B=1` (tokens held, taken from the supply);
    /// `builder-triggered` = `1` (the first part of this turn extended the active player's
    /// builder's feature).
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        if let Some(i) = good_of(key) {
            for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let (name, n) = item
                    .split_once('=')
                    .ok_or_else(|| HookFailure(format!("{key}: `{item}` is not NAME=N")))?;
                let p = ctx.state().player_named(name.trim())?;
                let n: i64 = n
                    .trim()
                    .parse()
                    .map_err(|_| HookFailure(format!("{key}: `{n}` is not a number")))?;
                let slot = self.ids.goods[i].of(p);
                let held = ctx.get(slot);
                ctx.set(slot, held + n);
                let left = ctx.get(self.ids.supply[i]);
                ctx.set(self.ids.supply[i], (left - n).max(0));
            }
            return Ok(());
        }
        match key {
            "builder-triggered" => {
                let v = value
                    .parse::<i64>()
                    .map_err(|_| HookFailure(format!("{key}: `{value}` is not a number")))?;
                ctx.set(self.ids.triggered, v);
                let now = i64::from(ctx.state().turn()) + 1;
                ctx.set(self.ids.placed_turn, now);
                Ok(())
            }
            _ => Err(HookFailure(format!(
                "unknown setting `{key}` (known: wine, grain, cloth, builder-triggered)"
            ))),
        }
    }

    /// TB-11: the first tile of a turn extends a road or city holding the active player's
    /// own builder.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: carcassonne_core::Pos) -> HookResult {
        // TB-23: a herd tile goes into the herd slots (core has just set `last_placed`).
        if self.any_herd {
            let board = ctx.state().board();
            let idx = ctx
                .state()
                .last_placed()
                .filter(|&i| board.tile(i).pos == pos)
                .or_else(|| board.index_at(pos));
            if let Some(idx) = idx {
                if self.herd_capable(board.tile(idx).kind) {
                    self.note_herd_tile(ctx, idx);
                }
            }
        }
        if !self.first_part(ctx) {
            return Ok(());
        }
        ctx.set(self.ids.triggered, 0);
        let view = ctx.view();
        let st = view.state;
        let me = st.active_player();
        let g = st.graph();
        // The player's builders on the board (1 a player): their features are what the
        // tile must extend.
        let hit = view
            .figures_of_kind(me, self.ids.builder)
            .iter()
            .any(|fig| {
                let FigureLoc::On(s) = fig.loc else {
                    return false;
                };
                let Some(t) = st.board().at(pos) else {
                    return false;
                };
                let f = g.feature_of(s);
                // A builder stands on a city or a road (TB-10), so only the tile's city
                // and road segments can be in its feature (and any added to the tile).
                let kind_mask = self.extend_masks.get(usize::from(t.kind.0));
                let on_city_or_road = self.extend_kinds.get(usize::from(g.kind(f).0));
                let (Some(&kind_mask), Some(true), 0..=16) =
                    (kind_mask, on_city_or_road, t.segment_count)
                else {
                    return t.segments().any(|seg| g.feature_of(seg) == f);
                };
                t.segments_in(u32::from(kind_mask))
                    .any(|seg| g.feature_of(seg) == f)
            });
        if hit {
            ctx.set(self.ids.triggered, 1);
        }
        Ok(())
    }

    /// TB-10, TB-19: builder on a road/city segment, pig on a field segment of the tile just
    /// placed, whose feature holds one of the player's followers; never on a feature this
    /// placement completes.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn deploy_step_actions(
        &self,
        view: View<'_>,
        player: PlayerId,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let ids = &self.ids;
        let st = view.state;
        let builder = st.in_supply(player, ids.builder) > 0;
        let pig = self.farmers && st.in_supply(player, ids.pig) > 0;
        if !builder && !pig {
            return Ok(());
        }
        let Some(idx) = st.last_placed() else {
            return Ok(());
        };
        let t = st.board().tile(idx);
        let [on_builder, on_pig] = self
            .deploy_masks
            .get(t.kind.0 as usize)
            .copied()
            .unwrap_or_default();
        let on_builder = if builder { on_builder } else { 0 };
        let mut m = on_builder | if pig { on_pig } else { 0 };
        let g = st.graph();
        // The segments whose feature holds a figure and is still open, as a mask built
        // without a branch a segment: whether a new tile's feature is occupied follows no
        // pattern, and most are not (then the player's figures are never scanned).
        let mut held = 0u16;
        while m != 0 {
            let i = m.trailing_zeros();
            m &= m - 1;
            let tot = g.totals(g.feature_of(t.segment(i as usize)));
            let open = (tot.occupants != 0) & !tot.scored & !tot.complete();
            held |= u16::from(open) << i;
        }
        while held != 0 {
            let i = held.trailing_zeros() as usize;
            held &= held - 1;
            let s = t.segment(i);
            let f = g.feature_of(s);
            if has_follower(&view, &self.follower, player, f) {
                let figure = if on_builder & (1 << i) != 0 {
                    ids.builder
                } else {
                    ids.pig
                };
                out.push(Action::Deploy { figure, segment: s });
            }
        }
        Ok(())
    }

    /// TB-16 `optional`: ask before the extra part is drawn.
    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        if window == Window::AfterScoring
            && self.optional
            && ctx.get(self.ids.triggered) == 1
            && ctx.state().supply().remaining() > 0
        {
            let p = ctx.state().active_player();
            ctx.prompt(p, TbPrompt::DoubleTurn);
        }
        Ok(())
    }

    fn prompt_actions(&self, v: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        match prompt.decode::<TbPrompt>()? {
            TbPrompt::DoubleTurn => {
                if v.get(self.ids.triggered) == 1 {
                    out.push(Action::Custom(CustomAction {
                        expansion: prompt.owner,
                        verb: self.ids.verb,
                        figure: None,
                        segment: None,
                        value: 1,
                    }));
                    out.push(Action::Pass);
                }
            }
        }
        Ok(())
    }

    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        match (prompt.decode::<TbPrompt>()?, action) {
            (TbPrompt::DoubleTurn, Action::Custom(_)) => {}
            (TbPrompt::DoubleTurn, Action::Pass) => ctx.set(self.ids.triggered, 0),
            (_, a) => {
                return Err(HookFailure(format!(
                    "the double-turn prompt cannot take `{a}`"
                )))
            }
        }
        Ok(())
    }

    /// TB-20, TB-22, TB-23: pig and herd bonuses on farm scorings.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        let view = ctx.view();
        let rules = view.rules;
        let g = view.state.graph();
        let edition = rules.base().farm_scoring;
        for a in 0..draft.awards.len() {
            let award = draft.awards[a];
            let Some(item) = draft.features.get(award.item as usize) else {
                continue;
            };
            // TB-20: the pig raises the farmer's scoring of the farm, not another set's bonus
            // paid on it (the ringmaster's, BT-13).
            if rules.kind(item.kind).scoring != Scoring::Farm || award.points <= 0 || award.bonus {
                continue;
            }
            // AM-27: an item that scores a farm without closing it is a barn scoring (Abbey &
            // Mayor's placement and join items, AM-22, AM-24, AM-25): always per farm in the
            // 3rd-edition style, whatever `farmScoring` says, so +1 per counted city (TB-20).
            let barn = item.tiles > 0 && !item.closes;
            let extra = match edition {
                _ if barn => {
                    let farm = item.feature;
                    let bonus = self.per_city_bonus(&view, award.player, farm);
                    if bonus == 0 {
                        continue;
                    }
                    bonus * view.completed_city_count(farm) as i32
                }
                FarmScoring::Third | FarmScoring::Second if item.tiles > 0 => {
                    let farm = item.feature;
                    let bonus = self.per_city_bonus(&view, award.player, farm);
                    if bonus == 0 {
                        continue;
                    }
                    let cities = if edition == FarmScoring::Third {
                        view.completed_city_count(farm) as i32
                    } else {
                        award.points / 3
                    };
                    bonus * cities
                }
                // 1st edition: the item is one city (feature = the city, tiles 0); +1 if a
                // farm bordering it holds the winner's pig, +1 more for a herd farm there
                // holding one of his followers.
                FarmScoring::First | FarmScoring::Third | FarmScoring::Second => {
                    let city = item.feature;
                    let mut pig = false;
                    let mut herd = false;
                    for fig in view.state.figures() {
                        let FigureLoc::On(s) = fig.loc else { continue };
                        if fig.owner != award.player {
                            continue;
                        }
                        let farm = g.feature_of(s);
                        if rules.kind(g.kind(farm)).scoring != Scoring::Farm {
                            continue;
                        }
                        if !view.completed_cities(farm).contains(&city) {
                            continue;
                        }
                        if fig.kind == self.ids.pig {
                            pig = true;
                        }
                        if self.herd
                            && rules.figure_kind(fig.kind).follower
                            && has_herd(rules, &view, &self.herd_tiles, farm)
                        {
                            herd = true;
                        }
                    }
                    i32::from(pig) + i32::from(herd)
                }
            };
            draft.awards[a].points += extra;
        }
        Ok(())
    }

    /// TB-4, TB-5: goods of every city this placement completed, to the active player.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        if draft.final_scoring || draft.placer.is_none() {
            return Ok(());
        }
        // Most scorings close no city: the goods' count is out of line.
        let rules = ctx.view().rules;
        if draft.features.iter().any(|item| closed_city(rules, item)) {
            self.take_goods(ctx, draft);
        }
        Ok(())
    }

    /// TB-17, TB-21: a builder or pig whose owner has no follower left in its feature.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn on_figure_removed(
        &self,
        ctx: &mut Ctx<'_>,
        _figure: FigureId,
        reason: RemovalReason,
    ) -> HookResult {
        for f in self.orphans(&ctx.view()) {
            // Already sent home by a nested call?
            if matches!(ctx.state().figure(f).loc, FigureLoc::On(_)) {
                ctx.return_figure(f, reason)
                    .map_err(|e| HookFailure(e.to_string()))?;
            }
        }
        Ok(())
    }

    /// TB-11 … TB-14: the builder's extra part, once per turn.
    fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        if ctx.get(self.ids.triggered) == 1 {
            ctx.set(self.ids.triggered, 0);
            return Ok(TurnEndVerdict::ExtraPart);
        }
        Ok(TurnEndVerdict::Next)
    }

    /// TB-6: 10 points per type to every player holding the most (at least 1). The
    /// holdings are read into an array on the stack (this runs at the end of every search
    /// playout): the most first, then the awards in seat order.
    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let n = ctx.state().players().len().min(MAX_PLAYERS);
        for slot in self.ids.goods {
            let mut held = [0i64; MAX_PLAYERS];
            let mut max = 0;
            for (p, h) in held.iter_mut().enumerate().take(n) {
                *h = ctx.get(slot.of(PlayerId(p as u8)));
                max = max.max(*h);
            }
            if max < 1 {
                continue;
            }
            for (p, h) in held.iter().enumerate().take(n) {
                if *h == max {
                    ctx.award(PlayerId(p as u8), MAJORITY_BONUS, self.ids.label);
                }
            }
        }
        Ok(())
    }
}

carcassonne_core::export_expansion!("traders-builders", TradersBuilders::new());
