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
//!
//! Modules, one rule area each: `setup` (declare and bind), `aside` (PD-3), `dragon`
//! (PD-5 … PD-12), `fairy` (PD-13 … PD-18), `princess` (PD-19 … PD-21), `portal` (PD-22,
//! PD-23); here the shared state and the hooks, which dispatch to them.

mod aside;
mod dragon;
mod fairy;
mod portal;
mod princess;
mod setup;
#[cfg(test)]
mod tests;

use carcassonne_core::{
    Action, BoundExpansion, Ctx, CustomAction, ExpansionIndex, FeatureKindId, FigureId,
    FigureKindId, FigureLoc, GameSlot, HookFailure, HookGate, HookResult, HookSet, KindMask,
    LabelId, Offered, PlayerId, Pos, Prompt, PromptCode, PromptKind, RemovalReason, Ruleset,
    ScoreDraft, SegmentId, Side, SlotId, Stands, TileKindId, TurnEndVerdict, VerbId, View, Visible,
    Window,
};

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
    /// Under the Big Top's feature kind `acrobats` (found by name at bind): the fairy
    /// beside a follower on an acrobat space pays the turn player for each of his figures
    /// there (JCZ's `FairyPhase`, FCZ; BT-21).
    acrobats: Option<carcassonne_core::FeatureKindId>,
    /// `cocQuarterFigures=jcz`: quarter followers stand on the tile CO/7 (0,0) for the fairy.
    coc_jcz: bool,
    /// PD-29 `volcanoExtraTile`.
    volcano_extra: bool,
    /// The fairy is in the game (`fairy`; JCZ's element).
    fairy: bool,
    /// Per tile kind (all `false` for a part switched off: `dragon`, `portal`).
    volcano: Vec<bool>,
    dragon_tile: Vec<bool>,
    portal: Vec<bool>,
    /// Per tile kind: bit mask of the local segments tagged `princess`.
    princess_segs: Vec<u8>,
    /// Per tile kind: the dragon never enters it (PD-8 c, `dragonOnCoC`).
    no_dragon: Vec<bool>,
    /// Per tile kind: figures may be deployed on it (`deploy`).
    deployable: Vec<bool>,
    /// PD-22, per tile kind: the kind of each local segment (its `segments`),
    /// and the local segments of a kind in `portal_kinds` (`[0]`) and in
    /// `portal_kinds_no_fields` (`[1]`) as bit masks, both 0 where figures may not be
    /// deployed: the portal reads no segment node for its kind.
    portal_seg_kinds: Vec<[FeatureKindId; 16]>,
    portal_locals: Vec<[u16; 2]>,
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

/// Why a dragon step `action` is refused, in the order of the step's checks.
#[cold]
#[inline(never)]
fn step_refusal(action: Action, in_play: bool) -> HookFailure {
    match action {
        Action::Custom(c) if in_play => HookFailure(format!("{} is not a side", c.value)),
        Action::Custom(_) => "the dragon is not in play".into(),
        _ => HookFailure(format!("a dragon step cannot be `{action}`")),
    }
}

fn err(e: impl std::fmt::Display) -> HookFailure {
    HookFailure(e.to_string())
}

impl PdRules {
    /// The custom actions but the fairy's move beside a follower: the fairy by tile (PD-18)
    /// and the princess (PD-19).
    #[cold]
    #[inline(never)]
    fn apply_other_action(&self, ctx: &mut Ctx<'_>, c: CustomAction) -> HookResult {
        if c.verb == self.ids.move_fairy {
            // By tile (PD-18): the hook sends the move beside a follower the inline way.
            let p = value_cell(c.value);
            ctx.set(self.ids.fairy, 1);
            ctx.set(self.ids.fairy_x, i64::from(p.x));
            ctx.set(self.ids.fairy_y, i64::from(p.y));
            ctx.set(self.ids.fairy_figure, 0);
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

    /// PD-13: the follower `figure` the fairy may go beside and its cell, if it is one of
    /// `player`'s figures on a tile.
    #[inline(always)]
    fn fairy_beside(
        &self,
        v: &View<'_>,
        player: PlayerId,
        figure: Option<FigureId>,
    ) -> Option<(FigureId, Pos)> {
        let f = figure?;
        let fig = v.state.figures().get(f.0 as usize)?;
        let FigureLoc::On(seg) = fig.loc else {
            return None;
        };
        if fig.owner != player {
            return None;
        }
        Some((f, self.seg_cell(v, seg)?))
    }

    /// Why [`Self::fairy_beside`] found no follower.
    #[cold]
    #[inline(never)]
    fn fairy_refusal(
        &self,
        v: &View<'_>,
        player: PlayerId,
        figure: Option<FigureId>,
    ) -> HookFailure {
        let Some(f) = figure else {
            return "a fairy move names a follower".into();
        };
        let Some(fig) = v.state.figures().get(f.0 as usize) else {
            return "no such figure".into();
        };
        let FigureLoc::On(_) = fig.loc else {
            return "the fairy goes beside a follower on the board".into();
        };
        if fig.owner != player {
            return "the fairy goes beside one of the mover's followers".into();
        }
        "that follower is on no tile".into()
    }

    /// PD-15 when the fairy stands on a tile (PD-18): the points of `p`'s figures there.
    #[cold]
    #[inline(never)]
    /// BT-21: whether segment `seg` is an acrobat space (Under the Big Top loaded).
    fn on_acrobats(&self, v: &View<'_>, seg: SegmentId) -> bool {
        self.acrobats
            .is_some_and(|k| v.state.graph().segment(seg).kind == k)
    }

    fn fairy_tile_points(&self, v: &View<'_>, p: PlayerId) -> i32 {
        let Some(cell) = self.fairy_cell(v) else {
            return 0;
        };
        let mut figures = 0;
        let mut followers = 0;
        for f in v.state.figures() {
            if f.owner != p {
                continue;
            }
            if let FigureLoc::On(seg) = f.loc {
                if self.seg_cell(v, seg) == Some(cell) {
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
    }

    fn tile_kind_at(&self, v: &View<'_>, p: Pos) -> Option<TileKindId> {
        v.state.board().at(p).map(|t| t.kind)
    }

    /// The cell of a segment (a quarter counts as the CO/7 tile (0,0) under
    /// `cocQuarterFigures=jcz`; other virtual segments have none).
    #[inline]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
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

    /// The first segment of the tile at `p`, which names the cell in actions.
    fn cell_segment(v: &View<'_>, p: Pos) -> Option<SegmentId> {
        v.state.segment_at(p, 0)
    }

    fn is_verb(&self, a: &Action, verb: VerbId) -> bool {
        matches!(a, Action::Custom(c) if c.expansion == self.me && c.verb == verb)
    }

    /// PD-16, PD-18: the `bonus` slot after this scoring's bonuses are noted, by the
    /// general loop (every player, either fairy placement); `None` when nothing is noted
    /// because the fairy stands nowhere it could score from.
    // Run only under `fairyPlacement=on-tile` (and as the fast path's check): out of line.
    #[inline(never)]
    fn noted_bonuses(&self, v: &View<'_>, draft: &ScoreDraft) -> Option<i64> {
        let g = v.state.graph();
        let n = v.state.players().len().min(8);
        // At most 8 players (the packed slot holds 8): no allocation per scoring.
        let mut bonus = [0i64; 8];
        let bonus = &mut bonus[..n];
        if self.on_tile {
            let cell = self.fairy_cell(v)?;
            for item in draft.features.iter().filter(|i| scores_followers(v, i)) {
                let mut owners = 0u32;
                for f in v.state.figures() {
                    if let FigureLoc::On(seg) = f.loc {
                        if v.rules.figure_kind(f.kind).follower
                            && g.feature_of(seg) == item.feature
                            && self.seg_cell(v, seg) == Some(cell)
                        {
                            owners |= 1 << f.owner.0;
                        }
                    }
                }
                for (p, b) in bonus.iter_mut().enumerate() {
                    *b += i64::from(owners >> p & 1);
                }
            }
        } else if let Some((f, seg)) = self.fairy_follower(v) {
            let feat = g.feature_of(seg);
            let owner = v.state.figure(f).owner.index();
            for item in draft.features.iter().filter(|i| scores_followers(v, i)) {
                if item.feature == feat {
                    bonus[owner] += 1;
                }
            }
        }
        let mut packed = v.get(self.ids.bonus);
        for (p, b) in bonus.iter().copied().enumerate() {
            let old = (packed >> (8 * p)) & 0xff;
            let new = (old + b).min(0xff);
            packed = (packed & !(0xff << (8 * p))) | (new << (8 * p));
        }
        Some(packed)
    }

    /// PD-16 when the fairy stands beside a follower (not `fairyPlacement=on-tile`): +1 to
    /// its owner's noted bonuses per item of this scoring that scores that follower's
    /// feature. Most scorings hold no such item: the feature is compared before the item's
    /// kind is read, and the slot is written only when a bonus is noted (the same packed
    /// value as [`Self::noted_bonuses`], which adds 0 for the other players).
    #[inline]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn note_follower_bonus(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        let v = ctx.view();
        let Some((f, seg)) = self.fairy_follower(&v) else {
            return Ok(());
        };
        let feat = v.state.graph().feature_of(seg);
        let hits = draft
            .features
            .iter()
            .filter(|i| i.feature == feat && scores_followers(&v, i))
            .count() as i64;
        let owner = v.state.figure(f).owner.index();
        let packed = ctx.get(self.ids.bonus);
        let noted = if hits == 0 || owner >= v.state.players().len().min(8) {
            packed
        } else {
            let shift = 8 * owner;
            let new = (((packed >> shift) & 0xff) + hits).min(0xff);
            (packed & !(0xff << shift)) | (new << shift)
        };
        // The general loop must note the same (checked in debug and test builds).
        if cfg!(any(test, debug_assertions)) {
            assert_eq!(
                Some(noted),
                self.noted_bonuses(&ctx.view(), draft),
                "PD-16: the fairy's bonus, fast path against the general loop"
            );
        }
        if noted != packed {
            ctx.set(self.ids.bonus, noted);
        }
        Ok(())
    }
}

impl BoundExpansion for PdRules {
    fn hook_set(&self) -> HookSet {
        let flight = self.flight_window();
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

    /// Hooks that do nothing while a slot is 0: the flight's window until a dragon tile
    /// marks a flight (PD-6), the fairy's scoring note while the fairy is not in play
    /// (PD-16), its payout while no bonus is noted, and the removal check while the fairy
    /// stands beside nobody (PD-17).
    fn hook_gates(&self) -> Vec<HookGate> {
        vec![
            HookGate {
                hooks: HookSet::window(self.flight_window()),
                slot: self.ids.pending,
            },
            HookGate {
                hooks: HookSet::BEFORE_SCORING,
                slot: self.ids.fairy,
            },
            HookGate {
                hooks: HookSet::AFTER_SCORING,
                slot: self.ids.bonus,
            },
            HookGate {
                hooks: HookSet::ON_FIGURE_REMOVED,
                slot: self.ids.fairy_figure,
            },
        ]
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

    /// Only volcanoes and dragon tiles do anything here, unless `volcanoExtraTile` notes
    /// every placement's kind (`volcano-part`, which only `on_turn_end` reads): the engine
    /// skips the call after any other tile.
    fn on_tile_placed_for(&self, _rules: &Ruleset, tile: TileKindId) -> bool {
        let k = tile.0 as usize;
        self.volcano_extra
            || self.volcano.get(k).copied().unwrap_or(true)
            || self.dragon_tile.get(k).copied().unwrap_or(true)
    }

    /// PD-4: a volcano brings the dragon; PD-6: a dragon tile marks a flight.
    #[inline(always)]
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
        // PD-29: only `on_turn_end` reads it, which only `volcanoExtraTile` sets up.
        if self.volcano_extra {
            ctx.set(self.ids.volcano_part, i64::from(self.volcano[k]));
        }
        Ok(())
    }

    /// PD-13 fairy moves, PD-19 princess, PD-22 portal.
    #[inline(always)]
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

    /// PD-5 drops deployments onto the dragon's tile only; PD-19 under `must` keeps only
    /// the princess's removals when she has one, the pass too.
    fn keeps_deploy_pass(&self) -> bool {
        !self.princess_must
    }

    /// The prompt filter drops PD-5's deployments and moves only (PD-19 is no prompt's).
    fn keeps_prompt_pass(&self) -> bool {
        true
    }

    /// PD-5: nothing onto the dragon's tile; PD-19 `must`.
    #[inline(always)]
    fn filter_deploy_actions(
        &self,
        view: View<'_>,
        _player: PlayerId,
        actions: &mut Offered<'_>,
    ) -> HookResult {
        self.remove_banned_deploys(&view, actions);
        if self.princess_must && actions.iter().any(|a| self.is_verb(a, self.ids.princess)) {
            actions.retain(|a| self.is_verb(a, self.ids.princess));
        }
        Ok(())
    }

    /// PD-5, PD-27, PD-31: other expansions' prompts (the Count's redeployments, a
    /// Tactician token) put nothing onto the dragon's tile either.
    #[inline(always)]
    fn filter_prompt_actions(
        &self,
        view: View<'_>,
        prompt: Prompt,
        actions: &mut Offered<'_>,
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

    #[inline(always)]
    fn apply_action(&self, ctx: &mut Ctx<'_>, player: PlayerId, c: CustomAction) -> HookResult {
        // The fairy beside a follower is most custom actions of a game: the other verbs, the
        // move by tile and the refusals are out of line, so the guard stays a few lines.
        if c.verb != self.ids.move_fairy || self.on_tile {
            return self.apply_other_action(ctx, c);
        }
        let Some((f, p)) = self.fairy_beside(&ctx.view(), player, c.figure) else {
            return Err(self.fairy_refusal(&ctx.view(), player, c.figure));
        };
        ctx.set(self.ids.fairy, 1);
        ctx.set(self.ids.fairy_x, i64::from(p.x));
        ctx.set(self.ids.fairy_y, i64::from(p.y));
        ctx.set(self.ids.fairy_figure, i64::from(f.0) + 1);
        Ok(())
    }

    #[inline(always)]
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
                    self.fairy_tile_points(&v, p)
                } else {
                    match self.fairy_follower(&v) {
                        Some((_, seg)) if self.on_acrobats(&v, seg) => {
                            v.state
                                .figures_on(seg)
                                .filter(|f| v.state.figure(*f).owner == p)
                                .count() as i32
                        }
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

    #[inline(always)]
    fn prompt_actions(&self, v: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        match prompt.decode::<PdPrompt>()? {
            PdPrompt::DragonStep(k) => self.dragon_steps(&v, usize::from(k), out),
        }
        Ok(())
    }

    #[inline(always)]
    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        let PdPrompt::DragonStep(k) = prompt.decode::<PdPrompt>()?;
        // Each refusal's message is built out of line: the step runs at every flight step.
        let Action::Custom(c) = action else {
            return Err(step_refusal(action, false));
        };
        let Some(d) = self.dragon_cell(&ctx.view()) else {
            return Err(step_refusal(action, false));
        };
        if !(0..4).contains(&c.value) {
            return Err(step_refusal(action, true));
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

    /// PD-16, PD-18: notes the fairy's bonus for every feature of this scoring (see
    /// [`scores_followers`]).
    #[inline(always)]
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        if ctx.get(self.ids.fairy) == 0 {
            return Ok(());
        }
        if !self.on_tile {
            return self.note_follower_bonus(ctx, draft);
        }
        if let Some(packed) = self.noted_bonuses(&ctx.view(), draft) {
            ctx.set(self.ids.bonus, packed);
        }
        Ok(())
    }

    /// PD-16: the bonuses noted before the scoring, as `fairy` events after it.
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
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

/// PD-16: whether a draft item is a scoring of its followers, which brings the fairy's
/// bonus: every item that closes its feature, and a farm scored while it stays open (a
/// barn's placement or a farm joining a barn's, AM-20, AM-24: JCloisterZone scores those
/// farmers as it scores any feature, `FairyCapability.appendFiguresBonusPoints`). Another
/// item that does not close (the loser of a challenge, HS-10) only sends figures home.
/// Items an expansion loaded after this one adds are not seen here; Abbey & Mayor's are
/// (the load order breaks ties by id: `abbey-mayor` first).
fn scores_followers(v: &View<'_>, item: &carcassonne_core::DraftFeature) -> bool {
    item.closes || v.rules.kind(item.kind).shape == carcassonne_core::Shape::Field
}

carcassonne_core::export_expansion!("princess-dragon", PrincessDragon::new());
