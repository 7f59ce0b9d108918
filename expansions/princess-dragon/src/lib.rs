//! # Princess & Dragon (rules PD-1 … PD-34)
//!
//! Two neutral figures, the dragon and the fairy, owned by no player. Core has no neutral
//! figure: both live in this expansion's game slots (the dragon's cell; the fairy's cell and
//! the follower it stands beside) and are shown through `describe` as
//! [`Visible::NeutralFigure`]s, so renderers and other tools see them.
//!
//! - **Dragon tiles before the dragon (PD-3).** `start_game` takes every tile tagged `dragon`
//!   out of the supply into the `aside-*` slots (a count per dragon tile kind) while the
//!   dragon is not in play, so draws are made among the other tiles and a stack holding only
//!   dragon tiles counts as empty. The first volcano placed puts them back as an
//!   active supply group `dragon`, as JCloisterZone activates its `dragon` group (so its
//!   importer draws the same tiles).
//! - **Volcano (PD-4, PD-29).** Placing a tile tagged `volcano` (ours, or River II's lake)
//!   puts the dragon on it at once (`on_tile_placed`, before the deployment step); nothing
//!   is eaten.
//! - **The dragon's tile (PD-5).** `filter_deploy_actions` removes every deployment and move
//!   onto a segment of the dragon's tile (`dragonTileDeploy=volcano-only`: only the volcano
//!   in the turn part it is placed).
//! - **The flight (PD-6 … PD-12).** A dragon tile placed while the dragon is in play marks a
//!   flight; it starts when the `BeforeScoring` window opens (after the deployment step and
//!   the Tactician's `AfterDeploy` window; `dragonTiming=after-scoring`: the `AfterScoring`
//!   window, after scoring and the CoC deployment). Each step is a prompt to the player
//!   seated k−1 places after the active player, queued at the front (so it comes before the
//!   Count's redeployment prompts); its actions are the legal neighbouring tiles (custom verb
//!   `move-dragon`, value = the side: 0 N, 1 E, 2 S, 3 W); no pass. A prompt without a legal
//!   step is skipped by the engine, which ends the flight (PD-9). Entering a tile returns
//!   every figure on it but barns (and tower-top followers under `dragonVsTowerTop=immune`),
//!   then builders and pigs left without their owner's follower in the same feature (PD-12).
//! - **The fairy (PD-13 … PD-18).** Custom verb `move-fairy` in the deployment step (a
//!   follower of the mover on the board, or with `fairyPlacement=on-tile` a tile holding
//!   one); +1 at the start of its owner's turn (`TurnStart` window); +3 when the feature of
//!   its follower is scored (`before_scoring` notes it, `after_scoring` awards it under the
//!   label `fairy`, so the Count does not count it, CO-6); it stays on its tile when the
//!   follower leaves (`on_figure_removed`).
//! - **The princess (PD-19 … PD-21).** Custom verb `princess` about a follower in the city of
//!   the placed tile's `princess` segment; `princessAction=must` removes every other choice.
//! - **The magic portal (PD-22, PD-23).** On a tile tagged `portal`, the step also offers a
//!   follower (any figure kind marked `follower`) on every unoccupied, incomplete feature
//!   segment of every other tile (never a virtual feature such as a CoC quarter, never a
//!   tower top, never the dragon's tile).
//!
//! Figures of other expansions are found by name at bind time (`barn`, `builder`, `pig`, the
//! feature kinds `tower` and `quarter`), each optional.

use std::collections::BTreeSet;

use carcassonne_core::{
    binder, Action, Binder, Binding, BoundExpansion, Ctx, CustomAction, Declare, DrawMode,
    Expansion, ExpansionIndex, FeatureId, FeatureKindId, FigureId, FigureKindId, FigureLoc,
    GameSlot, HookFailure, HookResult, HookSet, KindMask, LabelId, PlacedTile, PlayerId, Pos,
    Prompt, PromptCode, PromptKind, RemovalReason, Ruleset, ScoreDraft, SegmentId, Shape, Side,
    SlotId, SlotRef, SlotScope, Stands, SupplyGroup, TileKindId, TurnEndVerdict, VerbId, View,
    Visible, Window,
};
use smallvec::SmallVec;

/// The most steps of one flight (PD-7).
pub const MAX_STEPS: usize = 6;

/// Dragon tile kinds the `aside-*` slots can hold (4 slots × 16 counts of 4 bits).
const MAX_ASIDE_KINDS: usize = 64;

/// What this expansion asks a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PdPrompt {
    /// PD-7: step `k` (1…6) of the dragon's flight.
    DragonStep(u8),
}

impl PromptKind for PdPrompt {
    fn encode(self) -> PromptCode {
        match self {
            PdPrompt::DragonStep(k) => PromptCode {
                tag: 1,
                arg: i32::from(k),
            },
        }
    }

    fn decode(code: PromptCode) -> Option<Self> {
        match code.tag {
            1 if (1..=MAX_STEPS as i32).contains(&code.arg) => {
                Some(PdPrompt::DragonStep(code.arg as u8))
            }
            _ => None,
        }
    }
}

/// Declared ids.
#[derive(Clone, Copy, Debug)]
struct Ids {
    move_dragon: VerbId,
    move_fairy: VerbId,
    princess: VerbId,
    fairy_points: LabelId,
    /// 1 once the dragon is in play (PD-2), and its cell.
    dragon: GameSlot,
    dragon_x: GameSlot,
    dragon_y: GameSlot,
    /// 1 once the fairy is on the board, its cell, and the follower it stands beside
    /// (figure id + 1; 0 = attached to nobody, PD-17).
    fairy: GameSlot,
    fairy_x: GameSlot,
    fairy_y: GameSlot,
    fairy_figure: GameSlot,
    /// A dragon tile was placed in this turn part and its flight has not started.
    pending: GameSlot,
    /// Steps made by the current (or last) flight.
    steps: GameSlot,
    /// Cells the current flight has stood on, the start included (packed, + 1).
    visited: [GameSlot; MAX_STEPS + 1],
    /// PD-16: fairy bonuses (+3 each) noted before a scoring, awarded after it: 8 bits per
    /// player (a game slot, so it is not shown as player state).
    bonus: GameSlot,
    /// PD-3: dragon tiles set aside, 4 bits per dragon tile kind.
    aside: [GameSlot; 4],
    /// PD-3 in a position's stack: where each set-aside tile was (16 bits each), and the
    /// tiles left then (+ 1).
    aside_at: [GameSlot; 4],
    aside_left: GameSlot,
    /// The tile of this turn part was a volcano (`volcanoExtraTile`).
    volcano_part: GameSlot,
}

/// The Princess & Dragon expansion (stateless; one value serves any number of rulesets).
#[derive(Debug, Default)]
pub struct PrincessDragon;

impl PrincessDragon {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// Princess & Dragon bound to one ruleset: ids, options and what it reads from the tiles.
struct PdRules {
    ids: Ids,
    me: ExpansionIndex,
    /// PD-6 `dragonTiming=after-scoring`.
    after_scoring: bool,
    /// PD-10 `dragonVsTowerTop=immune`.
    tower_top_immune: bool,
    /// PD-5 `dragonTileDeploy=volcano-only`.
    volcano_only: bool,
    /// PD-19 `princessAction=must`.
    princess_must: bool,
    /// PD-18 `fairyPlacement=on-tile`.
    on_tile: bool,
    /// PD-18 `fairyOnTilePoints=per-figure`.
    per_figure: bool,
    /// `cocQuarterFigures=jcz`: quarter followers stand on the tile CO/7 (0,0) for the fairy.
    coc_jcz: bool,
    /// PD-29 `volcanoExtraTile`.
    volcano_extra: bool,
    /// Per tile kind.
    volcano: Vec<bool>,
    dragon_tile: Vec<bool>,
    portal: Vec<bool>,
    /// Per tile kind: bit mask of the local segments tagged `princess`.
    princess_segs: Vec<u8>,
    /// Per tile kind: the dragon never enters it (PD-8 c, `dragonOnCoC`).
    no_dragon: Vec<bool>,
    /// Per tile kind: figures may be deployed on it (`deploy`).
    deployable: Vec<bool>,
    /// Per figure kind: a follower.
    follower: Vec<bool>,
    /// PD-22: feature kinds a portal may deploy on (occupiable, not a tower top), with
    /// fields (`farmers` on) and without.
    portal_kinds: KindMask,
    portal_kinds_no_fields: KindMask,
    /// Per tile kind: index into the `aside-*` counts (dragon tiles only).
    aside_index: Vec<Option<usize>>,
    /// Dragon tile kinds in catalog order.
    aside_kinds: Vec<TileKindId>,
    /// Figures of other expansions, if loaded.
    barn: Option<FigureKindId>,
    builder: Option<FigureKindId>,
    pig: Option<FigureKindId>,
    tower_kind: Option<FeatureKindId>,
    quarter_kind: Option<FeatureKindId>,
    /// Promotions' figure slot `disc` (seat + 1 of the disc owner under a figure), if that
    /// script is loaded: same owner = upgraded, another = downgraded (PR-4).
    promotions_disc: Option<SlotId>,
    /// PD-8 d `dragonVsUpgraded=enter-but-immune`.
    upgraded_immune: bool,
    /// No other expansion is loaded: every prompt is this expansion's own.
    alone: bool,
}

fn pack(p: Pos) -> i64 {
    ((i64::from(p.x) + 4096) << 16 | (i64::from(p.y) + 4096)) + 1
}

fn unpack(v: i64) -> Option<Pos> {
    if v <= 0 {
        return None;
    }
    let v = v - 1;
    Some(Pos::new(
        ((v >> 16) - 4096) as i32,
        ((v & 0xffff) - 4096) as i32,
    ))
}

/// The value of an on-tile fairy move: the target cell.
fn cell_value(p: Pos) -> i32 {
    (p.x + 1024) * 2048 + (p.y + 1024)
}

fn value_cell(v: i32) -> Pos {
    Pos::new(v.div_euclid(2048) - 1024, v.rem_euclid(2048) - 1024)
}

fn err(e: impl std::fmt::Display) -> HookFailure {
    HookFailure(e.to_string())
}

impl PdRules {
    fn tile_kind_at(&self, v: &View<'_>, p: Pos) -> Option<TileKindId> {
        v.state.board().at(p).map(|t| t.kind)
    }

    /// The dragon's cell, once it is in play.
    #[inline]
    fn dragon_cell(&self, v: &View<'_>) -> Option<Pos> {
        (v.get(self.ids.dragon) != 0).then(|| {
            Pos::new(
                v.get(self.ids.dragon_x) as i32,
                v.get(self.ids.dragon_y) as i32,
            )
        })
    }

    /// The follower the fairy stands beside, if any (still on the board).
    #[inline]
    fn fairy_follower(&self, v: &View<'_>) -> Option<(FigureId, SegmentId)> {
        let f = v.get(self.ids.fairy_figure);
        if f <= 0 {
            return None;
        }
        let id = FigureId((f - 1) as u16);
        match v.state.figures().get(id.0 as usize)?.loc {
            FigureLoc::On(seg) => Some((id, seg)),
            _ => None,
        }
    }

    /// The cell of a segment (a quarter counts as the CO/7 tile (0,0) under
    /// `cocQuarterFigures=jcz`; other virtual segments have none).
    #[inline]
    fn seg_cell(&self, v: &View<'_>, seg: SegmentId) -> Option<Pos> {
        let n = v.state.graph().segment(seg);
        if !n.is_virtual() {
            Some(n.pos)
        } else if self.coc_jcz && Some(n.kind) == self.quarter_kind {
            Some(Pos::new(0, 0))
        } else {
            None
        }
    }

    /// The fairy's tile (PD-14): its follower's tile, else where it was left.
    #[inline]
    fn fairy_cell(&self, v: &View<'_>) -> Option<Pos> {
        if v.get(self.ids.fairy) == 0 {
            return None;
        }
        if let Some((_, seg)) = self.fairy_follower(v) {
            if let Some(p) = self.seg_cell(v, seg) {
                return Some(p);
            }
        }
        Some(Pos::new(
            v.get(self.ids.fairy_x) as i32,
            v.get(self.ids.fairy_y) as i32,
        ))
    }

    /// The first segment of the tile at `p`, which names the cell in actions.
    fn cell_segment(v: &View<'_>, p: Pos) -> Option<SegmentId> {
        v.state.segment_at(p, 0)
    }

    /// Whether `c` is one of the `visited` cells (packed slot values, see [`pack`]).
    #[inline]
    fn stood_on(visited: &[i64], c: Pos) -> bool {
        let p = pack(c);
        // `pack` is exact (`unpack(pack(c)) == Some(c)`) for these cells: compare packed.
        if p > 0 && (-4096..61440).contains(&c.y) {
            visited.contains(&p)
        } else {
            Self::stood_on_far(visited, c)
        }
    }

    /// [`Self::stood_on`] for cells far out, where packed values may alias.
    #[cold]
    #[inline(never)]
    fn stood_on_far(visited: &[i64], c: Pos) -> bool {
        visited.iter().any(|&x| unpack(x) == Some(c))
    }

    /// PD-8: the legal steps of the dragon at step `k` of its flight (the cells it stood
    /// on are `visited[0..k]`: the start and the `k - 1` steps made; the later entries are
    /// zero).
    fn dragon_steps(&self, v: &View<'_>, k: usize, out: &mut Vec<Action>) {
        let Some(d) = self.dragon_cell(v) else {
            return;
        };
        let fairy = self.fairy_cell(v);
        // The cells stood on, packed as in their slots (no allocation: asked at every step).
        let mut packed = [0i64; MAX_STEPS + 1];
        let k = k.min(MAX_STEPS + 1);
        for (slot, to) in self.ids.visited[..k].iter().zip(&mut packed) {
            *to = v.get(*slot);
        }
        let visited = &packed[..k];
        let board = v.state.board();
        for s in Side::ALL {
            let c = d.step(s);
            let Some(t) = board.at(c) else {
                continue;
            };
            let kind = t.kind.0 as usize;
            if self.no_dragon[kind] || Some(c) == fairy || Self::stood_on(visited, c) {
                continue;
            }
            // PD-8 d, AP-9: a tile with an upgraded figure of any player.
            if self.promotions_disc.is_some()
                && !self.upgraded_immune
                && self.promoted_on(v, c, true)
            {
                continue;
            }
            // The tile's first segment names the cell (`segment_at(c, 0)`).
            let segment = t.segments().next();
            out.push(Action::Custom(CustomAction {
                expansion: self.me,
                verb: self.ids.move_dragon,
                figure: None,
                segment,
                value: i32::from(s.index()),
            }));
        }
    }

    /// Promotions (PR-4): `Some(true)` for an upgraded figure, `Some(false)` for a
    /// downgraded one, `None` without a disc (or without Promotions).
    fn promoted(&self, v: &View<'_>, f: FigureId) -> Option<bool> {
        let slot = self.promotions_disc?;
        let disc = v.get(SlotRef::untyped(slot, f.0 as usize));
        (disc > 0).then(|| disc - 1 == i64::from(v.state.figure(f).owner.0))
    }

    /// Whether a figure of the wanted promotion stands on the tile at `cell`.
    #[inline]
    fn promoted_on(&self, v: &View<'_>, cell: Pos, upgraded: bool) -> bool {
        self.promotions_disc.is_some()
            && v.state.figures().iter().enumerate().any(|(i, f)| {
                matches!(f.loc, FigureLoc::On(s) if self.seg_cell(v, s) == Some(cell))
                    && self.promoted(v, FigureId(i as u16)) == Some(upgraded)
            })
    }

    /// The cell no figure may be deployed on now (PD-5), if any.
    fn banned_cell(&self, v: &View<'_>) -> Option<Pos> {
        let d = self.dragon_cell(v)?;
        if !self.volcano_only {
            return Some(d);
        }
        let t = v.state.board().tile(v.state.last_placed()?);
        (t.pos == d && self.volcano[t.kind.0 as usize]).then_some(d)
    }

    /// PD-5: whether `a` puts a figure onto the tile `cell` (one tile per cell, and
    /// virtual segments lie on no tile): a deployment onto a segment there, or a move onto
    /// a feature all of whose segments lie there (a move names a feature, CO-10: one with
    /// segments on other tiles is entered through those). A segment of `cell` exists, so
    /// the feature lookup is safe.
    #[inline]
    fn onto_banned(v: &View<'_>, a: &Action, cell: &PlacedTile) -> bool {
        match *a {
            Action::Deploy { segment, .. } => cell.has_segment(segment),
            Action::Move { segment, .. } => {
                let g = v.state.graph();
                cell.has_segment(segment)
                    && g.members(g.feature_of(segment))
                        .all(|s| cell.has_segment(s))
            }
            _ => false,
        }
    }

    /// Whether an expansion other than this one adds actions to the deployment step.
    #[inline]
    fn others_offer(&self, v: &View<'_>) -> bool {
        let members = v.rules.hook_members(HookSet::DEPLOY_STEP_ACTIONS);
        // Bit 63 stands for every expansion from 63 on: then others may offer.
        self.me.0 >= 63 || members & !(1u64 << self.me.0) != 0
    }

    /// PD-5 in the deployment step: removes whatever puts a figure onto the dragon's tile.
    /// Core offers deployments on the placed tile only, and this expansion's own offers
    /// never name the dragon's tile (the portal skips it); so without another expansion's
    /// offers, only a step on the dragon's tile itself can hold one.
    fn remove_banned_deploys(&self, v: &View<'_>, actions: &mut Vec<Action>) {
        let Some(d) = self.banned_cell(v) else {
            return;
        };
        if !self.others_offer(v) {
            if let Some(i) = v.state.last_placed() {
                if v.state.board().tile(i).pos != d {
                    return;
                }
            }
        }
        self.remove_onto(v, d, actions);
    }

    /// PD-5: removes from `actions` whatever puts a figure onto the dragon's tile.
    fn remove_banned(&self, v: &View<'_>, actions: &mut Vec<Action>) {
        if let Some(d) = self.banned_cell(v) {
            self.remove_onto(v, d, actions);
        }
    }

    /// Removes from `actions` whatever puts a figure onto the tile at `d`. Most offers put
    /// nothing there: one pass finds the first that does, if any.
    fn remove_onto(&self, v: &View<'_>, d: Pos, actions: &mut Vec<Action>) {
        let Some(&cell) = v.state.board().at(d) else {
            return;
        };
        if cell.segment_count == 0 || !actions.iter().any(|a| Self::onto_banned(v, a, &cell)) {
            return;
        }
        actions.retain(|a| !Self::onto_banned(v, a, &cell));
    }

    fn set_dragon(&self, ctx: &mut Ctx<'_>, p: Pos) {
        ctx.set(self.ids.dragon, 1);
        ctx.set(self.ids.dragon_x, i64::from(p.x));
        ctx.set(self.ids.dragon_y, i64::from(p.y));
    }

    /// PD-3: takes every dragon tile out of the supply while the dragon is not in play.
    /// A position's stack (`InOrder`, scenarios) also keeps where each tile was, so a
    /// position that puts the dragon in play gets its stack back unchanged.
    fn set_aside(&self, ctx: &mut Ctx<'_>) {
        if self.aside_kinds.is_empty() || ctx.get(self.ids.dragon) != 0 {
            return;
        }
        let mut counts = [0u32; MAX_ASIDE_KINDS];
        let mut places: Vec<i64> = Vec::new();
        let index = &self.aside_index;
        let supply = ctx.supply_mut();
        let in_order = supply.mode == DrawMode::InOrder && supply.groups.len() == 1;
        for g in supply.groups.iter_mut() {
            let mut at = 0i64;
            g.tiles.retain(|t| {
                let keep = match index.get(t.0 as usize).copied().flatten() {
                    Some(i) => {
                        counts[i] += 1;
                        if in_order && at < 1000 {
                            places.push((at << 6 | i as i64) + 1);
                        }
                        false
                    }
                    None => true,
                };
                at += 1;
                keep
            });
        }
        let remaining = ctx.state().supply().remaining() as i64;
        let mut slots = [0i64; 4];
        // Only the dragon tile kinds have counts.
        for (i, n) in counts.iter().take(self.aside_kinds.len()).enumerate() {
            slots[i / 16] |= i64::from((*n).min(15)) << (4 * (i % 16));
        }
        for (s, v) in self.ids.aside.iter().zip(slots) {
            ctx.set(*s, v);
        }
        if in_order && places.len() <= 16 {
            let mut slots = [0i64; 4];
            for (k, e) in places.iter().enumerate() {
                slots[k / 4] |= e << (16 * (k % 4));
            }
            for (s, v) in self.ids.aside_at.iter().zip(slots) {
                ctx.set(*s, v);
            }
            ctx.set(self.ids.aside_left, remaining + 1);
        }
    }

    /// PD-3: the set-aside dragon tiles go back into the stack.
    fn restore_aside(&self, ctx: &mut Ctx<'_>) {
        let mut tiles = Vec::new();
        for (i, kind) in self.aside_kinds.iter().enumerate() {
            let n = (ctx.get(self.ids.aside[i / 16]) >> (4 * (i % 16))) & 15;
            tiles.extend(std::iter::repeat_n(*kind, n as usize));
        }
        let mut places = Vec::new();
        for k in 0..16 {
            let e = (ctx.get(self.ids.aside_at[k / 4]) >> (16 * (k % 4))) & 0xffff;
            if e > 0 {
                let kind = self.aside_kinds.get(((e - 1) & 63) as usize).copied();
                places.push(((e - 1) >> 6, kind));
            }
        }
        // Nothing drawn since the tiles went aside: each goes back where it was.
        let untouched = ctx.get(self.ids.aside_left) == ctx.state().supply().remaining() as i64 + 1
            && places.len() == tiles.len();
        for s in self.ids.aside.into_iter().chain(self.ids.aside_at) {
            ctx.set(s, 0);
        }
        ctx.set(self.ids.aside_left, 0);
        if tiles.is_empty() {
            return;
        }
        let supply = ctx.supply_mut();
        let in_order = supply.mode == DrawMode::InOrder;
        match supply.groups.iter_mut().find(|g| g.name == "default") {
            Some(g) if in_order && untouched => {
                for (at, kind) in places {
                    if let Some(kind) = kind {
                        let at = (at as usize).min(g.tiles.len());
                        g.tiles.insert(at, kind);
                    }
                }
            }
            // A position's stack after draws (scenarios): they come back on top, in
            // catalog order.
            Some(g) if in_order => {
                g.tiles.splice(0..0, tiles);
            }
            Some(_) | None if in_order => supply.groups.push(SupplyGroup {
                name: "default".into(),
                tiles,
                active: true,
            }),
            // As JCloisterZone activates its `dragon` group: drawable at once, beside
            // whatever group is active (the same draws for its importer).
            _ => match supply.groups.iter_mut().find(|g| g.name == "dragon") {
                Some(g) => {
                    g.tiles.extend(tiles);
                    g.active = true;
                }
                None => supply.groups.push(SupplyGroup {
                    name: "dragon".into(),
                    tiles,
                    active: true,
                }),
            },
        }
        self.sync_groups(ctx);
    }

    /// Keeps the `dragon` group from holding back the rest of the stack: while it is the
    /// only active group with tiles (a river phase just ended), the next group with tiles
    /// is activated beside it, as the engine would have activated it alone.
    fn sync_groups(&self, ctx: &mut Ctx<'_>) {
        let sup = ctx.state().supply();
        if sup.mode == DrawMode::InOrder
            || sup
                .groups
                .iter()
                .any(|g| g.active && !g.tiles.is_empty() && g.name != "dragon")
            || !sup.groups.iter().any(|g| g.active && g.name == "dragon")
        {
            return;
        }
        let Some(i) = sup
            .groups
            .iter()
            .position(|g| g.name != "dragon" && !g.tiles.is_empty())
        else {
            return;
        };
        ctx.supply_mut().groups[i].active = true;
    }

    /// PD-10, PD-11: the dragon enters `cell`.
    fn eat(&self, ctx: &mut Ctx<'_>, cell: Pos) -> HookResult {
        let v = ctx.view();
        // The figures on the tile are those on its segments' nodes (no graph lookup).
        let Some(&on_tile) = v.state.board().at(cell) else {
            return Ok(());
        };
        // Most steps find nobody: one tight pass before any bookkeeping.
        if !v
            .state
            .figures()
            .iter()
            .any(|f| matches!(f.loc, FigureLoc::On(s) if on_tile.has_segment(s)))
        {
            return Ok(());
        }
        let g = v.state.graph();
        let orphans = self.builder.is_some() || self.pig.is_some();
        let mut victims = SmallVec::<[FigureId; 16]>::new();
        let mut features = SmallVec::<[FeatureId; 16]>::new();
        for (i, f) in v.state.figures().iter().enumerate() {
            let FigureLoc::On(seg) = f.loc else {
                continue;
            };
            if !on_tile.has_segment(seg) || Some(f.kind) == self.barn {
                continue;
            }
            if self.tower_top_immune && Some(g.segment(seg).kind) == self.tower_kind {
                continue;
            }
            // AP-9 `enter-but-immune`: an upgraded figure is not eaten.
            if self.promoted(&v, FigureId(i as u16)) == Some(true) {
                continue;
            }
            victims.push(FigureId(i as u16));
            if orphans && self.follower[f.kind.0 as usize] {
                features.push(g.feature_of(seg));
            }
        }
        for &f in victims.as_slice() {
            ctx.return_figure(f, RemovalReason::Expansion)
                .map_err(err)?;
        }
        self.return_orphans(ctx, features.as_slice())
    }

    /// PD-12: builders and pigs on `features` whose owner has no follower left there.
    fn return_orphans(&self, ctx: &mut Ctx<'_>, features: &[FeatureId]) -> HookResult {
        if features.is_empty() || (self.builder.is_none() && self.pig.is_none()) {
            return Ok(());
        }
        let v = ctx.view();
        let g = v.state.graph();
        let figs = v.state.figures();
        let mut orphans = Vec::new();
        for (i, f) in figs.iter().enumerate() {
            let FigureLoc::On(seg) = f.loc else {
                continue;
            };
            if Some(f.kind) != self.builder && Some(f.kind) != self.pig {
                continue;
            }
            let feat = g.feature_of(seg);
            if !features.contains(&feat) {
                continue;
            }
            let kept = figs.iter().any(|o| {
                o.owner == f.owner
                    && v.rules.figure_kind(o.kind).follower
                    && matches!(o.loc, FigureLoc::On(s) if g.feature_of(s) == feat)
            });
            if !kept {
                orphans.push(FigureId(i as u16));
            }
        }
        for f in orphans {
            ctx.return_figure(f, RemovalReason::Expansion)
                .map_err(err)?;
        }
        Ok(())
    }

    /// PD-6: a flight marked by a dragon tile starts.
    fn start_flight(&self, ctx: &mut Ctx<'_>) {
        if ctx.get(self.ids.pending) == 0 {
            return;
        }
        ctx.set(self.ids.pending, 0);
        let Some(d) = self.dragon_cell(&ctx.view()) else {
            return;
        };
        for s in self.ids.visited {
            ctx.set(s, 0);
        }
        ctx.set(self.ids.visited[0], pack(d));
        ctx.set(self.ids.steps, 0);
        let active = ctx.state().active_player();
        ctx.prompt_next(active, PdPrompt::DragonStep(1));
    }

    /// The fairy's move (PD-13): beside a follower (its figure and segment) or, when it moves
    /// by tile (PD-18), onto a cell (`value`).
    fn fairy_move(
        &self,
        figure: Option<FigureId>,
        segment: Option<SegmentId>,
        value: i32,
    ) -> Action {
        Action::Custom(CustomAction {
            expansion: self.me,
            verb: self.ids.move_fairy,
            figure,
            segment,
            value,
        })
    }

    /// Fairy moves of `player` (PD-13, PD-18).
    fn fairy_moves(&self, v: &View<'_>, player: PlayerId, out: &mut Vec<Action>) {
        let current = v.get(self.ids.fairy_figure) - 1;
        if !self.on_tile && self.promotions_disc.is_none() {
            // The common case, asked at every deployment step: beside any own follower on
            // a tile (or a quarter under `cocQuarterFigures=jcz`) but the current one, in
            // figure order; the same offers as the general loop below, in one pass.
            let g = v.state.graph();
            let (first, mine) = v.state.figures_of(player);
            for (j, f) in mine.iter().enumerate() {
                let i = first + j;
                let FigureLoc::On(seg) = f.loc else {
                    continue;
                };
                if i as i64 == current || !self.follower[f.kind.0 as usize] {
                    continue;
                }
                let n = g.segment(seg);
                if n.is_virtual() && !(self.coc_jcz && Some(n.kind) == self.quarter_kind) {
                    continue;
                }
                out.push(self.fairy_move(Some(FigureId(i as u16)), Some(seg), 0));
            }
            return;
        }
        // The fairy's tile matters only when it moves by tile (PD-18).
        let here = if self.on_tile {
            self.fairy_cell(v)
        } else {
            None
        };
        let mut cells = BTreeSet::new();
        for (i, f) in v.state.figures().iter().enumerate() {
            let FigureLoc::On(seg) = f.loc else {
                continue;
            };
            if f.owner != player || !v.rules.figure_kind(f.kind).follower {
                continue;
            }
            let Some(cell) = self.seg_cell(v, seg) else {
                continue;
            };
            // PR-8: never onto a tile with a downgraded follower of any player.
            if self.promoted_on(v, cell, false) {
                continue;
            }
            if self.on_tile {
                if Some(cell) != here {
                    cells.insert(cell);
                }
            } else if i as i64 != current {
                out.push(self.fairy_move(Some(FigureId(i as u16)), Some(seg), 0));
            }
        }
        for cell in cells {
            out.push(self.fairy_move(None, Self::cell_segment(v, cell), cell_value(cell)));
        }
    }

    /// PD-19: followers the princess on the tile just placed may remove.
    fn princess_targets(&self, v: &View<'_>, t: &PlacedTile, out: &mut Vec<Action>) {
        let mask = self.princess_segs[t.kind.0 as usize];
        if mask == 0 {
            return;
        }
        let g = v.state.graph();
        let mut seen = SmallVec::<[FeatureId; 8]>::new();
        for local in 0..8u32 {
            if mask & (1 << local) == 0 {
                continue;
            }
            let feat = g.feature_of(t.segment(local as usize));
            if seen.as_slice().contains(&feat) {
                continue;
            }
            seen.push(feat);
            for (i, f) in v.state.figures().iter().enumerate() {
                let FigureLoc::On(seg) = f.loc else {
                    continue;
                };
                if g.feature_of(seg) == feat && v.rules.figure_kind(f.kind).follower {
                    out.push(Action::Custom(CustomAction {
                        expansion: self.me,
                        verb: self.ids.princess,
                        figure: Some(FigureId(i as u16)),
                        segment: Some(seg),
                        value: 0,
                    }));
                }
            }
        }
    }

    /// PD-22: portal deployments on the other tiles.
    fn portal_targets(
        &self,
        v: &View<'_>,
        here: &PlacedTile,
        player: PlayerId,
        out: &mut Vec<Action>,
    ) {
        if !self.portal[here.kind.0 as usize] {
            return;
        }
        // The follower kinds in supply, with where each may go, in kind order.
        let mut kinds = SmallVec::<[(FigureKindId, KindMask); 16]>::new();
        let mut any = 0u64;
        for (k, d) in v.rules.figure_kinds().iter().enumerate() {
            let k = FigureKindId(k as u8);
            if d.follower && v.state.in_supply(player, k) > 0 {
                kinds.push((k, d.deploy_on));
                any |= d.deploy_on.0;
            }
        }
        let kinds = kinds.as_slice();
        // Occupiable kinds (fields only with farmers), never a tower top, where some
        // follower in supply may go.
        let open = if v.rules.base().farmers {
            self.portal_kinds
        } else {
            self.portal_kinds_no_fields
        };
        let wanted = open.0 & any;
        if wanted == 0 {
            return;
        }
        // PD-5: never onto the dragon's tile (the deployment filter would remove them).
        let banned = self.banned_cell(v);
        let g = v.state.graph();
        for t in v.state.board().tiles() {
            let tk = t.kind.0 as usize;
            if t.pos == here.pos || !self.deployable[tk] || Some(t.pos) == banned {
                continue;
            }
            for seg in t.segments() {
                let kind = g.segment(seg).kind;
                if wanted.checked_shr(u32::from(kind.0)).unwrap_or(0) & 1 == 0 {
                    continue;
                }
                let tot = g.totals(g.feature_of(seg));
                if tot.occupants > 0 || tot.scored || tot.complete() {
                    continue;
                }
                for (k, on) in kinds {
                    if on.contains(kind) {
                        out.push(Action::Deploy {
                            figure: *k,
                            segment: seg,
                        });
                    }
                }
            }
        }
    }

    fn is_verb(&self, a: &Action, verb: VerbId) -> bool {
        matches!(a, Action::Custom(c) if c.expansion == self.me && c.verb == verb)
    }
}

impl Expansion for PrincessDragon {
    fn id(&self) -> &str {
        "princess-dragon"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let ids = Ids {
            move_dragon: d.verb("move-dragon"),
            move_fairy: d.verb("move-fairy"),
            princess: d.verb("princess"),
            fairy_points: d.score_label("fairy"),
            dragon: d.game_slot("dragon", 0),
            dragon_x: d.game_slot("dragon-x", 0),
            dragon_y: d.game_slot("dragon-y", 0),
            fairy: d.game_slot("fairy", 0),
            fairy_x: d.game_slot("fairy-x", 0),
            fairy_y: d.game_slot("fairy-y", 0),
            fairy_figure: d.game_slot("fairy-figure", 0),
            pending: d.game_slot("flight-pending", 0),
            steps: d.game_slot("flight-steps", 0),
            visited: [
                d.game_slot("visited-0", 0),
                d.game_slot("visited-1", 0),
                d.game_slot("visited-2", 0),
                d.game_slot("visited-3", 0),
                d.game_slot("visited-4", 0),
                d.game_slot("visited-5", 0),
                d.game_slot("visited-6", 0),
            ],
            bonus: d.game_slot("fairy-bonus", 0),
            aside: [
                d.game_slot("aside-0", 0),
                d.game_slot("aside-1", 0),
                d.game_slot("aside-2", 0),
                d.game_slot("aside-3", 0),
            ],
            aside_at: [
                d.game_slot("aside-at-0", 0),
                d.game_slot("aside-at-1", 0),
                d.game_slot("aside-at-2", 0),
                d.game_slot("aside-at-3", 0),
            ],
            aside_left: d.game_slot("aside-left", 0),
            volcano_part: d.game_slot("volcano-part", 0),
        };
        Ok(binder(move |b: &Binding<'_>| bind(b, ids)))
    }
}

fn bind(b: &Binding<'_>, ids: Ids) -> HookResult<PdRules> {
    let rules: &Ruleset = b.rules();
    let coc_never = b.option_str("dragonOnCoC")? == "never";
    let central: Vec<TileKindId> = ["CO/6", "CO/7"]
        .iter()
        .filter_map(|id| rules.tiles().find(id))
        .collect();
    let mut r = PdRules {
        ids,
        me: b.me(),
        after_scoring: b.option_str("dragonTiming")? == "after-scoring",
        tower_top_immune: b.option_str("dragonVsTowerTop")? == "immune",
        volcano_only: b.option_str("dragonTileDeploy")? == "volcano-only",
        princess_must: b.option_str("princessAction")? == "must",
        on_tile: b.option_str("fairyPlacement")? == "on-tile",
        per_figure: b.option_str("fairyOnTilePoints")? == "per-figure",
        coc_jcz: b.option_str("cocQuarterFigures")? == "jcz",
        volcano_extra: b.option_flag("volcanoExtraTile")?,
        volcano: Vec::new(),
        dragon_tile: Vec::new(),
        portal: Vec::new(),
        princess_segs: Vec::new(),
        no_dragon: Vec::new(),
        deployable: Vec::new(),
        follower: rules.figure_kinds().iter().map(|k| k.follower).collect(),
        portal_kinds: KindMask(0),
        portal_kinds_no_fields: KindMask(0),
        aside_index: Vec::new(),
        aside_kinds: Vec::new(),
        barn: rules.figure_named("barn"),
        builder: rules.figure_named("builder"),
        pig: rules.figure_named("pig"),
        tower_kind: rules.kind_named("tower"),
        quarter_kind: rules.kind_named("quarter"),
        promotions_disc: rules.expansion_index("promotions").and_then(|ix| {
            rules
                .slots()
                .iter()
                .position(|d| d.expansion == ix && d.name == "disc" && d.scope == SlotScope::Figure)
                .map(|i| SlotId(i as u16))
        }),
        // The Promotions script declares the same flag (`promotions.dragonVsUpgraded`,
        // `no-entry` / `enter-but-immune`): either one set to `enter-but-immune` counts.
        alone: rules.expansions().len() == 1,
        upgraded_immune: b.option_str("dragonVsUpgraded")? == "enter-but-immune"
            || rules
                .options()
                .get("promotions.dragonVsUpgraded")
                .map(|v| v.to_string())
                == Some("enter-but-immune".into()),
    };
    for (i, def) in rules.kinds().iter().enumerate().take(64) {
        let kind = FeatureKindId(i as u8);
        if def.occupiable && Some(kind) != r.tower_kind {
            r.portal_kinds = r.portal_kinds.with(kind);
            if def.shape != Shape::Field {
                r.portal_kinds_no_fields = r.portal_kinds_no_fields.with(kind);
            }
        }
    }
    for (id, k) in rules.tiles().iter() {
        r.deployable.push(k.deploy);
        r.volcano.push(k.has_tag("volcano"));
        let dragon = k.has_tag("dragon");
        r.dragon_tile.push(dragon);
        r.portal.push(k.has_tag("portal"));
        let mut mask = 0u8;
        for (i, s) in k.segments.iter().enumerate() {
            if s.tags.iter().any(|t| t == "princess") && i < 8 {
                mask |= 1 << i;
            }
        }
        r.princess_segs.push(mask);
        r.no_dragon.push(if coc_never {
            k.has_tag("city-of-carcassonne")
        } else {
            central.contains(&id)
        });
        if dragon {
            r.aside_index.push(Some(r.aside_kinds.len()));
            r.aside_kinds.push(id);
        } else {
            r.aside_index.push(None);
        }
    }
    if r.aside_kinds.len() > MAX_ASIDE_KINDS {
        return Err(HookFailure(format!(
            "at most {MAX_ASIDE_KINDS} dragon tile kinds are supported, the ruleset has {}",
            r.aside_kinds.len()
        )));
    }
    Ok(r)
}

impl BoundExpansion for PdRules {
    fn hook_set(&self) -> HookSet {
        let flight = if self.after_scoring {
            Window::AfterScoring
        } else {
            Window::BeforeScoring
        };
        let mut h = HookSet::GAME_START
            | HookSet::ON_TILE_PLACED
            | HookSet::DEPLOY_STEP_ACTIONS
            | HookSet::FILTER_DEPLOY_ACTIONS
            | HookSet::BEFORE_SCORING
            | HookSet::AFTER_SCORING
            | HookSet::ON_FIGURE_REMOVED
            | HookSet::window(Window::TurnStart)
            | HookSet::window(flight);
        if self.volcano_extra {
            h = h | HookSet::ON_TURN_END;
        }
        // PD-5 for other expansions' prompts; alone, every prompt is a dragon step, which
        // the filter leaves alone (so the engine need not copy and check its offer).
        if !self.alone {
            h = h | HookSet::FILTER_PROMPT_ACTIONS;
        }
        h
    }

    /// PD-2, PD-3: the dragon is beside the board; dragon tiles are set aside.
    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        self.set_aside(ctx);
        Ok(())
    }

    /// `dragon` = `x,y` (the dragon stands there, in play); `fairy` = `x,y` (on that tile,
    /// attached to nobody) or `x,y,PLAYER` (beside that player's first follower there).
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        match key {
            "dragon" => {
                let p = Pos::parse(value)?;
                if !ctx.state().board().is_occupied(p) {
                    return Err(HookFailure(format!("no tile at {p} for the dragon")));
                }
                self.set_dragon(ctx, p);
                self.restore_aside(ctx);
            }
            "fairy" => {
                // `x,y` then, after a second comma, the player.
                let (cell, player) = match value.match_indices(',').nth(1) {
                    Some((i, _)) => (&value[..i], Some(value[i + 1..].trim())),
                    None => (value, None),
                };
                let p = Pos::parse(cell)?;
                if !ctx.state().board().is_occupied(p) {
                    return Err(HookFailure(format!("no tile at {p} for the fairy")));
                }
                ctx.set(self.ids.fairy, 1);
                ctx.set(self.ids.fairy_x, i64::from(p.x));
                ctx.set(self.ids.fairy_y, i64::from(p.y));
                ctx.set(self.ids.fairy_figure, 0);
                if let Some(name) = player {
                    let v = ctx.view();
                    let player = usize::from(v.state.player_named(name)?.0);
                    let fig = v
                        .state
                        .figures()
                        .iter()
                        .enumerate()
                        .find(|(_, f)| {
                            f.owner.index() == player
                                && v.rules.figure_kind(f.kind).follower
                                && matches!(f.loc, FigureLoc::On(s) if self.seg_cell(&v, s) == Some(p))
                        })
                        .map(|(i, _)| i)
                        .ok_or_else(|| {
                            HookFailure(format!("{name} has no follower on {p} for the fairy"))
                        })?;
                    ctx.set(self.ids.fairy_figure, fig as i64 + 1);
                }
            }
            _ => {
                return Err(HookFailure(format!(
                    "unknown setting `{key}` (known: dragon, fairy)"
                )))
            }
        }
        Ok(())
    }

    /// PD-4: a volcano brings the dragon; PD-6: a dragon tile marks a flight.
    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: Pos) -> HookResult {
        let Some(kind) = self.tile_kind_at(&ctx.view(), pos) else {
            return Ok(());
        };
        let k = kind.0 as usize;
        if self.volcano[k] {
            // The dragon tiles come back with the first volcano: once the dragon is in
            // play, none is set aside (`set_aside` keeps none then, and every `set_dragon`
            // that brings it is followed by `restore_aside`).
            let first = ctx.get(self.ids.dragon) == 0;
            self.set_dragon(ctx, pos);
            if first {
                self.restore_aside(ctx);
            }
        } else if self.dragon_tile[k] && ctx.get(self.ids.dragon) != 0 {
            ctx.set(self.ids.pending, 1);
        }
        ctx.set(self.ids.volcano_part, i64::from(self.volcano[k]));
        Ok(())
    }

    /// PD-13 fairy moves, PD-19 princess, PD-22 portal.
    fn deploy_step_actions(
        &self,
        view: View<'_>,
        player: PlayerId,
        out: &mut Vec<Action>,
    ) -> HookResult {
        self.fairy_moves(&view, player, out);
        if let Some(idx) = view.state.last_placed() {
            let here = view.state.board().tile(idx);
            let k = here.kind.0 as usize;
            if self.princess_segs[k] != 0 {
                self.princess_targets(&view, here, out);
            }
            if self.portal[k] {
                self.portal_targets(&view, here, player, out);
            }
        }
        Ok(())
    }

    /// PD-5: nothing onto the dragon's tile; PD-19 `must`.
    fn filter_deploy_actions(
        &self,
        view: View<'_>,
        _player: PlayerId,
        actions: &mut Vec<Action>,
    ) -> HookResult {
        self.remove_banned_deploys(&view, actions);
        if self.princess_must && actions.iter().any(|a| self.is_verb(a, self.ids.princess)) {
            actions.retain(|a| self.is_verb(a, self.ids.princess));
        }
        Ok(())
    }

    /// PD-5, PD-27, PD-31: other expansions' prompts (the Count's redeployments, a
    /// Tactician token) put nothing onto the dragon's tile either.
    fn filter_prompt_actions(
        &self,
        view: View<'_>,
        prompt: Prompt,
        actions: &mut Vec<Action>,
    ) -> HookResult {
        if prompt.owner == self.me
            || !actions
                .iter()
                .any(|a| matches!(a, Action::Deploy { .. } | Action::Move { .. }))
        {
            return Ok(());
        }
        self.remove_banned(&view, actions);
        Ok(())
    }

    fn apply_action(&self, ctx: &mut Ctx<'_>, player: PlayerId, c: CustomAction) -> HookResult {
        if c.verb == self.ids.move_fairy {
            if self.on_tile {
                let p = value_cell(c.value);
                ctx.set(self.ids.fairy, 1);
                ctx.set(self.ids.fairy_x, i64::from(p.x));
                ctx.set(self.ids.fairy_y, i64::from(p.y));
                ctx.set(self.ids.fairy_figure, 0);
                return Ok(());
            }
            let f = c.figure.ok_or("a fairy move names a follower")?;
            let v = ctx.view();
            let fig = v
                .state
                .figures()
                .get(f.0 as usize)
                .ok_or("no such figure")?;
            let FigureLoc::On(seg) = fig.loc else {
                return Err("the fairy goes beside a follower on the board".into());
            };
            if fig.owner != player {
                return Err("the fairy goes beside one of the mover's followers".into());
            }
            let p = self
                .seg_cell(&v, seg)
                .ok_or("that follower is on no tile")?;
            ctx.set(self.ids.fairy, 1);
            ctx.set(self.ids.fairy_x, i64::from(p.x));
            ctx.set(self.ids.fairy_y, i64::from(p.y));
            ctx.set(self.ids.fairy_figure, i64::from(f.0) + 1);
            Ok(())
        } else if c.verb == self.ids.princess {
            let f = c.figure.ok_or("the princess names a follower")?;
            let v = ctx.view();
            let FigureLoc::On(seg) = v.state.figure(f).loc else {
                return Err("that follower is not on the board".into());
            };
            let feat = v.state.graph().feature_of(seg);
            ctx.return_figure(f, RemovalReason::Expansion)
                .map_err(err)?;
            self.return_orphans(ctx, &[feat])
        } else {
            Err(HookFailure(format!(
                "verb {} is not an action of the deployment step",
                c.verb.0
            )))
        }
    }

    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        match window {
            // PD-15, PD-18: the fairy's turn point.
            Window::TurnStart => {
                self.sync_groups(ctx);
                if ctx.get(self.ids.fairy) == 0 {
                    return Ok(());
                }
                let v = ctx.view();
                let p = v.state.active_player();
                let points = if self.on_tile {
                    let Some(cell) = self.fairy_cell(&v) else {
                        return Ok(());
                    };
                    let mut figures = 0;
                    let mut followers = 0;
                    for f in v.state.figures() {
                        if f.owner != p {
                            continue;
                        }
                        if let FigureLoc::On(seg) = f.loc {
                            if self.seg_cell(&v, seg) == Some(cell) {
                                figures += 1;
                                followers += i32::from(v.rules.figure_kind(f.kind).follower);
                            }
                        }
                    }
                    if self.per_figure {
                        figures
                    } else {
                        i32::from(followers > 0)
                    }
                } else {
                    match self.fairy_follower(&v) {
                        Some((f, _)) if v.state.figure(f).owner == p => 1,
                        _ => 0,
                    }
                };
                if points > 0 {
                    ctx.award(p, points, self.ids.fairy_points);
                }
            }
            // PD-6: a flight is marked in a few turns only.
            Window::BeforeScoring if !self.after_scoring && ctx.get(self.ids.pending) != 0 => {
                self.start_flight(ctx)
            }
            Window::AfterScoring if self.after_scoring && ctx.get(self.ids.pending) != 0 => {
                self.start_flight(ctx)
            }
            _ => {}
        }
        Ok(())
    }

    fn prompt_actions(&self, v: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        match prompt.decode::<PdPrompt>()? {
            PdPrompt::DragonStep(k) => self.dragon_steps(&v, usize::from(k), out),
        }
        Ok(())
    }

    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        let PdPrompt::DragonStep(k) = prompt.decode::<PdPrompt>()?;
        let Action::Custom(c) = action else {
            return Err(HookFailure(format!("a dragon step cannot be `{action}`")));
        };
        let d = self
            .dragon_cell(&ctx.view())
            .ok_or("the dragon is not in play")?;
        if !(0..4).contains(&c.value) {
            return Err(HookFailure(format!("{} is not a side", c.value)));
        }
        let to = d.step(Side::from_index(c.value as u8));
        // The dragon is in play (`dragon` is 1): only its cell changes.
        ctx.set(self.ids.dragon_x, i64::from(to.x));
        ctx.set(self.ids.dragon_y, i64::from(to.y));
        let k = usize::from(k).min(MAX_STEPS);
        ctx.set(self.ids.visited[k], pack(to));
        ctx.set(self.ids.steps, k as i64);
        self.eat(ctx, to)?;
        if k < MAX_STEPS {
            let n = ctx.state().players().len();
            let next = PlayerId(((ctx.state().active_player().index() + k) % n) as u8);
            ctx.prompt_next(next, PdPrompt::DragonStep(k as u8 + 1));
        }
        Ok(())
    }

    /// PD-16, PD-18: notes the fairy's bonus for every feature of this scoring.
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        if ctx.get(self.ids.fairy) == 0 {
            return Ok(());
        }
        let v = ctx.view();
        let g = v.state.graph();
        let n = v.state.players().len().min(8);
        // At most 8 players (the packed slot holds 8): no allocation per scoring.
        let mut bonus = [0i64; 8];
        let bonus = &mut bonus[..n];
        if self.on_tile {
            let Some(cell) = self.fairy_cell(&v) else {
                return Ok(());
            };
            for item in draft.features.iter().filter(|i| i.closes) {
                let mut owners = 0u32;
                for f in v.state.figures() {
                    if let FigureLoc::On(seg) = f.loc {
                        if v.rules.figure_kind(f.kind).follower
                            && g.feature_of(seg) == item.feature
                            && self.seg_cell(&v, seg) == Some(cell)
                        {
                            owners |= 1 << f.owner.0;
                        }
                    }
                }
                for (p, b) in bonus.iter_mut().enumerate() {
                    *b += i64::from(owners >> p & 1);
                }
            }
        } else if let Some((f, seg)) = self.fairy_follower(&v) {
            let feat = g.feature_of(seg);
            let owner = v.state.figure(f).owner.index();
            for item in draft.features.iter().filter(|i| i.closes) {
                if item.feature == feat {
                    bonus[owner] += 1;
                }
            }
        }
        let mut packed = ctx.get(self.ids.bonus);
        for (p, b) in bonus.iter().copied().enumerate() {
            let old = (packed >> (8 * p)) & 0xff;
            let new = (old + b).min(0xff);
            packed = (packed & !(0xff << (8 * p))) | (new << (8 * p));
        }
        ctx.set(self.ids.bonus, packed);
        Ok(())
    }

    /// PD-16: the bonuses noted before the scoring, as `fairy` events after it.
    fn after_scoring(&self, ctx: &mut Ctx<'_>, _draft: &ScoreDraft) -> HookResult {
        let packed = ctx.get(self.ids.bonus);
        if packed == 0 {
            return Ok(());
        }
        ctx.set(self.ids.bonus, 0);
        for p in 0..ctx.state().players().len().min(8) {
            let b = (packed >> (8 * p)) & 0xff;
            if b > 0 {
                ctx.award(PlayerId(p as u8), 3 * b as i32, self.ids.fairy_points);
            }
        }
        Ok(())
    }

    /// PD-17: the fairy stays on its tile, attached to nobody.
    fn on_figure_removed(
        &self,
        ctx: &mut Ctx<'_>,
        figure: FigureId,
        _reason: RemovalReason,
    ) -> HookResult {
        if ctx.get(self.ids.fairy_figure) == i64::from(figure.0) + 1 {
            ctx.set(self.ids.fairy_figure, 0);
        }
        Ok(())
    }

    /// PD-29 `volcanoExtraTile`.
    fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        if ctx.get(self.ids.volcano_part) != 0 {
            ctx.set(self.ids.volcano_part, 0);
            return Ok(TurnEndVerdict::ExtraPart);
        }
        Ok(TurnEndVerdict::Next)
    }

    fn explain_refusal(
        &self,
        view: View<'_>,
        _player: PlayerId,
        action: Action,
    ) -> HookResult<Option<String>> {
        Ok(self
            .banned_cell(&view)
            .filter(|d| {
                view.state
                    .board()
                    .at(*d)
                    .is_some_and(|cell| Self::onto_banned(&view, &action, cell))
            })
            .map(|d| format!("PD-5 the dragon stands on {d}")))
    }

    /// The dragon and the fairy, for renderers and other tools.
    fn describe(&self, v: View<'_>, out: &mut Vec<Visible>) -> HookResult {
        if let Some(seg) = self.dragon_cell(&v).and_then(|d| Self::cell_segment(&v, d)) {
            out.push(Visible::NeutralFigure {
                name: "dragon".into(),
                icon: "dragon".into(),
                segment: seg,
                stands: Stands::OnTile,
            });
        }
        let fairy = match self.fairy_follower(&v) {
            Some((_, seg)) if !self.on_tile => Some(seg),
            _ => self.fairy_cell(&v).and_then(|c| Self::cell_segment(&v, c)),
        };
        if let Some(seg) = fairy {
            out.push(Visible::NeutralFigure {
                name: "fairy".into(),
                icon: "fairy".into(),
                segment: seg,
                stands: Stands::OnSegment,
            });
        }
        Ok(())
    }
}

carcassonne_core::export_expansion!("princess-dragon", PrincessDragon::new());
