//! # Hills & Sheep (rules HL-1 … HL-14, `docs/rules/hills-sheep.md`)
//!
//! JCZ sets `hills-and-sheep:1` / `:2`: 18 tiles (`tiles.toml`; tile tags `hill` and
//! `vineyard`), and one shepherd per player.
//!
//! **Hills (HL-2 … HL-5).** A hill tile lies on a face-down tile from the supply: when one
//! is placed while tiles are left, one more tile of the supply is hidden
//! (`TileSupply::hidden`), so the game is one tile shorter, whichever tile it is (as JCZ counts
//! its `hiddenUnderHills`; nobody ever sees the hidden tile). In every scoring, the players
//! who share a feature's points keep them only if their hill presence — followers on hill
//! tiles of the feature, at least one or how many (`hillTiebreaker`) — is the highest.
//!
//! **Vineyards (HL-6, HL-7).** A completed cloister (or shrine) scores +3 per vineyard tile
//! among the 8 around it.
//!
//! **The shepherd (HL-8 … HL-14).** Figure kind `shepherd`, one per player, deployed by core
//! on a field like a follower but sharing it (never an occupant, never in a majority); a
//! field holds one shepherd at most. After the deployment step (`AfterDeploy`, where JCZ's
//! shepherd phase runs) a shepherd deployed this turn draws a token; each of the placer's
//! shepherds (one unless `figures.shepherd` gives more) whose field the placed tile extended
//! asks him `flock-grow` (draw) or `flock-score` (drive home), one question per field; then
//! every flock on a field that can no longer grow is driven home. See `flock.rs`. Under
//! `tokenDraws=chosen` (JCZ saves) each draw is a `draw-token` prompt instead, and what
//! follows the draw runs when it is answered. `hills`, `vineyards`: part switches;
//! `vineyardsForGarden`: gardens take vineyards too.
//!
//! **Cost per turn.** One tag lookup per placement; the deployment filter looks at field
//! deployments of shepherds only; the `AfterDeploy` window reads the shepherds on the board.

mod flock;
mod scoring;

pub use flock::{Token, BAG};
pub use scoring::Tiebreaker;

use carcassonne_core::graph::PlacedIndex;
use carcassonne_core::{
    binder, Action, Binder, Binding, BoundExpansion, Ctx, CustomAction, Declare, Expansion,
    FeatureId, FeatureKindId, FigureId, FigureKindDef, FigureLoc, HookFailure, HookResult, HookSet,
    KindMask, PlayerId, Prompt, PromptCode, PromptKind, RemovalReason, ScoreDraft, StartTile,
    TileKindId, VerbId, View, Visible, Window,
};
use flock::Flock;
use scoring::TileMarks;

/// HL-4: the tie-break option.
pub const HILL_TIEBREAKER: &str = "hills-sheep.hillTiebreaker";
/// HL-1: the edition option.
pub const EDITION: &str = "hills-sheep.edition";
/// HL-1: the second edition's garden twin: (first-edition tile, its twin).
pub const GARDEN_TWIN: (&str, &str) = ("HS/RR.h", "HS/RR.hG");

/// A shepherd's outline: a figure with a crook (a box from -1 to 1, y down).
const SHEPHERD_LOOK: &str = "path:M -0.25 -0.55 A 0.25 0.25 0 1 1 0.25 -0.55 L 0.55 0.95 \
     L -0.55 0.95 Z M 0.6 0.95 L 0.6 -0.7 A 0.2 0.2 0 0 0 0.25 -0.8 L 0.33 -0.7 \
     A 0.1 0.1 0 0 1 0.5 -0.7 L 0.5 0.95 Z";

/// What this expansion asks: the owner of the shepherd (a figure id) decides its flock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FlockPrompt(FigureId);

impl PromptKind for FlockPrompt {
    fn encode(self) -> PromptCode {
        PromptCode {
            tag: 1,
            arg: i32::from(self.0 .0),
        }
    }

    fn decode(code: PromptCode) -> Option<Self> {
        (code.tag == 1 && (0..=i32::from(u16::MAX)).contains(&code.arg))
            .then_some(FlockPrompt(FigureId(code.arg as u16)))
    }
}

/// HL-9 under `tokenDraws=chosen`: the draw for this shepherd is a decision (one action per
/// token in the bag); `turn`: the draw of a shepherd deployed this turn, after which the
/// turn's flock questions and closed fields follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DrawPrompt {
    shepherd: FigureId,
    turn: bool,
}

impl PromptKind for DrawPrompt {
    fn encode(self) -> PromptCode {
        PromptCode {
            tag: 2,
            arg: i32::from(self.shepherd.0) | (i32::from(self.turn) << 16),
        }
    }

    fn decode(code: PromptCode) -> Option<Self> {
        (code.tag == 2 && (0..1 << 17).contains(&code.arg)).then_some(DrawPrompt {
            shepherd: FigureId((code.arg & 0xffff) as u16),
            turn: code.arg >> 16 == 1,
        })
    }
}

/// The expansion (stateless; one value serves every ruleset).
#[derive(Debug, Default)]
pub struct HillsSheep;

impl HillsSheep {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// Hills & Sheep bound to one ruleset.
struct HsRules {
    flock: Flock,
    grow: VerbId,
    score: VerbId,
    /// HL-9 `tokenDraws=chosen`: the verb of a draw decision (value: index in the bag).
    draw_token: VerbId,
    chosen_draws: bool,
    marks: TileMarks,
    /// HL-6: kinds that take vineyards (cloister; shrine when loaded).
    monastic: Vec<FeatureKindId>,
    tiebreaker: Tiebreaker,
    /// HL-1: (twin, garden twin) under `edition = 2`.
    swap: Option<(TileKindId, TileKindId)>,
}

impl Expansion for HillsSheep {
    fn id(&self) -> &str {
        "hills-sheep"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let shepherd = d
            .figure_kind(FigureKindDef {
                name: "shepherd".into(),
                per_player: 1,
                strength: 0,
                deploy_on: KindMask(0).with(FeatureKindId::FIELD),
                // Not a follower: core never deploys it itself, and no rule about
                // followers (majorities, quarters, captures of followers) reaches it.
                follower: false,
                returns: false,
                look: SHEPHERD_LOOK.into(),
                neutral: 0,
                shares: true,
                colour: String::new(),
            })
            .map_err(|e| e.to_string())?;
        let held = [1, 2, 3, 4].map(|n| d.figure_slot(&format!("flock-{n}"), 0));
        let label = d.score_label("flock");
        let grow = d.verb_in_words("flock-grow", "let the flock grow");
        let score = d.verb_in_words("flock-score", "score the flock");
        let draw_token = d.verb_in_words("draw-token", "draw this token from the bag");
        // HL-9: a draw is the bag's, not the player's choice (one action per token).
        d.verb_by_chance(draw_token);
        d.prompt_in_words(
            FlockPrompt(FigureId(0)),
            "let the flock grow (draw a token) or score it now",
        );
        d.prompt_in_words(
            DrawPrompt {
                shepherd: FigureId(0),
                turn: false,
            },
            "the token drawn from the bag",
        );
        Ok(binder(move |b: &Binding<'_>| {
            let rules = b.rules();
            let tiles = rules.tiles();
            // HL-1: a part switched off leaves its tiles plain.
            let (hills, vineyards) = (b.option_flag("hills")?, b.option_flag("vineyards")?);
            let marks = (0..tiles.len())
                .map(|i| {
                    let t = tiles.get(TileKindId(i as u16));
                    (
                        hills && t.has_tag("hill"),
                        vineyards && t.has_tag("vineyard"),
                    )
                })
                .collect();
            let mut monastic = vec![FeatureKindId::CLOISTER];
            monastic.extend(rules.kind_named("shrine"));
            if b.option_flag("vineyardsForGarden")? {
                monastic.extend(rules.kind_named("garden"));
            }
            let tiebreaker = match b.option_str("hillTiebreaker")? {
                "count" => Tiebreaker::Count,
                _ => Tiebreaker::AtLeastOne,
            };
            let swap = match b.option_str("edition")? {
                "2" => match (tiles.find(GARDEN_TWIN.0), tiles.find(GARDEN_TWIN.1)) {
                    (Some(a), Some(g)) => Some((a, g)),
                    _ => {
                        return Err(HookFailure(format!(
                            "edition 2 needs the tiles `{}` and `{}`",
                            GARDEN_TWIN.0, GARDEN_TWIN.1
                        )))
                    }
                },
                _ => None,
            };
            Ok(HsRules {
                flock: Flock {
                    shepherd,
                    held,
                    label,
                    halves: flock::KindHalves::table(tiles),
                },
                grow,
                score,
                draw_token,
                chosen_draws: b.option_str("tokenDraws")? == "chosen",
                marks: TileMarks(marks),
                monastic,
                tiebreaker,
                swap,
            })
        }))
    }
}

impl HsRules {
    /// The flock decision's two answers about `shepherd` on `seg`.
    fn flock_actions(
        &self,
        me: carcassonne_core::ExpansionIndex,
        f: FigureId,
        seg: carcassonne_core::SegmentId,
        out: &mut Vec<Action>,
    ) {
        for verb in [self.grow, self.score] {
            out.push(Action::Custom(CustomAction {
                expansion: me,
                verb,
                figure: Some(f),
                segment: Some(seg),
                value: 0,
            }));
        }
    }

    /// HL-10 … HL-13: each flock of `p` whose field the placed tile extended asks him (one
    /// per field); every other flock whose field closed is driven home.
    fn turn_flocks(&self, ctx: &mut Ctx<'_>, p: PlayerId) -> HookResult {
        let view = ctx.view();
        let Some(last) = view.state.last_placed() else {
            return Ok(());
        };
        let placed = view.state.board().tile(last);
        let g = view.state.graph();
        // The features of the tile's segments, found only if a question needs them.
        let mut joined: Option<flock::TileFeatures> = None;
        // The flocks to ask about, one per field (a player has one shepherd unless
        // `figures.shepherd` gives more: inline up to 4).
        let mut pending = [(FigureId(0), carcassonne_core::SegmentId::new(0)); 4];
        let mut n = 0usize;
        let mut more: Vec<(FigureId, carcassonne_core::SegmentId)> = Vec::new();
        // Whether some shepherd's field is closed: without one (most turns), HL-13 drives
        // no flock home, and its check (which finds each field again) is skipped.
        let mut closed = false;
        for q in 0..view.state.players().len() {
            if q != usize::from(p.0) {
                self.flock
                    .each_of_player(&view, PlayerId(q as u8), |_, seg| {
                        closed |= flock::field_closed(&view, g.feature_of(seg));
                    });
            }
        }
        for (f, seg) in self.flock.of_player(&view, p) {
            let field = g.feature_of(seg);
            closed |= flock::field_closed(&view, field);
            if placed.has_segment(seg) {
                continue;
            }
            if flock::TileFeatures::in_slot(&mut joined, &view, &self.flock.halves, last)
                .contains(&view, last, field)
                && !pending[..n]
                    .iter()
                    .chain(&more)
                    .any(|(_, s)| g.feature_of(*s) == field)
            {
                if n < pending.len() {
                    pending[n] = (f, seg);
                    n += 1;
                } else {
                    more.push((f, seg));
                }
            }
        }
        if closed {
            // The fields of the flocks asked about stay out of HL-13's check.
            let mut except = [carcassonne_core::SegmentId::new(0); 4];
            for (e, (_, s)) in except.iter_mut().zip(&pending[..n]) {
                *e = *s;
            }
            if more.is_empty() {
                self.flock
                    .score_closed_joined(ctx, &except[..n], last, &mut joined)?;
            } else {
                let all: Vec<_> = pending[..n].iter().chain(&more).map(|(_, s)| *s).collect();
                self.flock
                    .score_closed_joined(ctx, &all, last, &mut joined)?;
            }
        }
        for (f, _) in pending[..n].iter().chain(&more) {
            ctx.prompt(p, FlockPrompt(*f));
        }
        Ok(())
    }

    /// [`BoundExpansion::open_window`]'s `AfterDeploy` in a turn where something may happen
    /// (the few turns [`Flock::quiet_turn`] cannot rule out): out of line, so that the
    /// window's every-turn path stays short.
    #[cold]
    #[inline(never)]
    fn busy_turn(&self, ctx: &mut Ctx<'_>, last: PlacedIndex, p: PlayerId) -> HookResult {
        let view = ctx.view();
        let placed = view.state.board().tile(last);
        // HL-9: a shepherd deployed this turn draws its first token at once.
        let fresh = self
            .flock
            .of_player(&view, p)
            .find(|(_, s)| placed.has_segment(*s));
        if let Some((f, seg)) = fresh {
            if self.chosen_draws {
                ctx.prompt(
                    p,
                    DrawPrompt {
                        shepherd: f,
                        turn: true,
                    },
                );
                return Ok(());
            }
            self.flock.grow(ctx, f, seg)?;
        }
        self.turn_flocks(ctx, p)
    }

    /// HL-8's offers for a player with his shepherd in supply: out of line, so that the
    /// hook's every-turn path (the shepherd on the board) is one test.
    #[inline(never)]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn shepherd_offers(&self, v: &View<'_>, out: &mut Vec<Action>) {
        let Some(last) = v.state.last_placed() else {
            return;
        };
        let placed = v.state.board().tile(last);
        if !v.rules.tiles().get(placed.kind).deploy {
            return;
        }
        // The tile's field segments from its kind's mask (no look at each segment's node).
        let mask = flock::field_segs(&self.flock.halves, v, placed);
        if mask == Some(0) {
            return;
        }
        let g = v.state.graph();
        // The fields with a shepherd, found once (not once per field segment of the tile).
        let mut herded = [FeatureId(0); 8];
        let mut n = 0usize;
        let mut spill = false;
        self.flock.each_on_board(v, |_, s| match herded.get_mut(n) {
            Some(h) => {
                *h = g.feature_of(s);
                n += 1;
            }
            None => spill = true,
        });
        let herded = match spill {
            false => Some(&herded[..n]),
            true => None,
        };
        match mask {
            Some(mut m) => {
                while m != 0 {
                    let i = m.trailing_zeros() as usize;
                    m &= m - 1;
                    self.offer(v, herded, placed.segment(i), out);
                }
            }
            None => self.offer_every_field(v, herded, placed, out),
        }
    }

    /// [`HsRules::shepherd_offers`] for a tile past the field mask's 16 segments (the tile
    /// parser allows none).
    #[cold]
    #[inline(never)]
    fn offer_every_field(
        &self,
        v: &View<'_>,
        herded: Option<&[FeatureId]>,
        placed: &carcassonne_core::board::PlacedTile,
        out: &mut Vec<Action>,
    ) {
        let g = v.state.graph();
        for seg in placed.segments() {
            if g.segment(seg).kind == FeatureKindId::FIELD {
                self.offer(v, herded, seg, out);
            }
        }
    }

    /// The shepherd's deployment on the field segment `seg` unless a shepherd holds its
    /// field already (`herded`: the fields with one, `None` when there were too many to list).
    #[inline(always)]
    fn offer(
        &self,
        v: &View<'_>,
        herded: Option<&[FeatureId]>,
        seg: carcassonne_core::SegmentId,
        out: &mut Vec<Action>,
    ) {
        let g = v.state.graph();
        let field = g.feature_of(seg);
        let taken = match herded {
            Some(h) => h.contains(&field),
            None => self
                .flock
                .on_board(v)
                .any(|(_, s)| g.feature_of(s) == field),
        };
        if !taken {
            out.push(Action::Deploy {
                figure: self.flock.shepherd,
                segment: seg,
            });
        }
    }

    /// Where the shepherd `f` stands, if on the board.
    fn standing(v: &View<'_>, f: FigureId) -> Option<carcassonne_core::SegmentId> {
        match v.state.figures().get(f.0 as usize)?.loc {
            FigureLoc::On(seg) => Some(seg),
            _ => None,
        }
    }
}

impl BoundExpansion for HsRules {
    fn hook_set(&self) -> HookSet {
        let hooks = HookSet::ON_TILE_PLACED
            | HookSet::DEPLOY_STEP_ACTIONS
            | HookSet::BEFORE_SCORING
            | HookSet::ON_FIGURE_REMOVED
            | HookSet::window(Window::AfterDeploy);
        match self.swap {
            Some(_) => hooks | HookSet::GAME_START,
            None => hooks,
        }
    }

    /// HL-1: the second edition's garden twin takes the place of its twin.
    fn prepare_game(&self, ctx: &mut Ctx<'_>, _start: &mut Vec<StartTile>) -> HookResult {
        if let Some((twin, garden)) = self.swap {
            for g in &mut ctx.supply_mut().groups {
                for t in &mut g.tiles {
                    if *t == twin {
                        *t = garden;
                    }
                }
            }
        }
        Ok(())
    }

    /// Only a hill tile changes the supply (HL-3).
    fn on_tile_placed_for(&self, _rules: &carcassonne_core::Ruleset, tile: TileKindId) -> bool {
        self.marks.0.get(tile.0 as usize).is_some_and(|m| m.0)
    }

    /// HL-2, HL-3: a hill hides a tile of the supply under it, face down, while a tile is
    /// left to hide: one tile of the stack is never drawn ([`TileSupply::hidden`], JCZ's
    /// `hiddenUnderHills`). It follows the stack, so tiles set aside and put back later
    /// (Princess & Dragon's dragon tiles, PD-3) stay drawable; a save's `endTurn` cap, which
    /// counts the hidden tiles already, is left as it is.
    ///
    /// [`TileSupply::hidden`]: carcassonne_core::TileSupply::hidden
    #[inline(always)]
    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: carcassonne_core::Pos) -> HookResult {
        let view = ctx.view();
        let Some(idx) = view.state.board().index_at(pos) else {
            return Ok(());
        };
        if !self.marks.hill(&view, idx) {
            return Ok(());
        }
        let supply = ctx.supply_mut();
        if supply.tiles() > supply.hidden as usize {
            supply.hidden += 1;
        }
        Ok(())
    }

    /// HL-8: the shepherd on a field of the tile just placed that holds no shepherd yet
    /// (core deploys followers only; the shepherd shares its field and is none).
    #[inline(always)]
    fn deploy_step_actions(&self, v: View<'_>, p: PlayerId, out: &mut Vec<Action>) -> HookResult {
        // Most turns: the player's shepherd stands on the board, nothing to offer.
        if v.state.in_supply(p, self.flock.shepherd) == 0 {
            return Ok(());
        }
        self.shepherd_offers(&v, out);
        Ok(())
    }
    /// HL-9 … HL-13, after the deployment step.
    #[inline(always)]
    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        if window != Window::AfterDeploy {
            return Ok(());
        }
        let view = ctx.view();
        let (Some(last), Some(p)) = (view.state.last_placed(), view.state.last_placer()) else {
            return Ok(());
        };
        if self.flock.quiet_turn(&view, last, p) {
            return Ok(());
        }
        self.busy_turn(ctx, last, p)
    }

    /// HL-10: grow the flock or drive it home; under `tokenDraws=chosen`, the token drawn.
    #[inline(always)]
    fn prompt_actions(&self, v: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        if let Some(d) = DrawPrompt::decode(prompt.code()) {
            if let Some(seg) = Self::standing(&v, d.shepherd) {
                for k in 0..self.flock.bag_size(&v) {
                    out.push(Action::Custom(CustomAction {
                        expansion: prompt.owner,
                        verb: self.draw_token,
                        figure: Some(d.shepherd),
                        segment: Some(seg),
                        value: k as i32,
                    }));
                }
            }
            return Ok(());
        }
        let FlockPrompt(f) = prompt.decode::<FlockPrompt>()?;
        if let Some(seg) = Self::standing(&v, f) {
            self.flock_actions(prompt.owner, f, seg, out);
        }
        Ok(())
    }

    #[inline(always)]
    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        if let Some(d) = DrawPrompt::decode(prompt.code()) {
            let Some(seg) = Self::standing(&ctx.view(), d.shepherd) else {
                return Err(HookFailure("draw: the shepherd is not on the board".into()));
            };
            let k = match action {
                Action::Custom(c) if c.verb == self.draw_token && c.value >= 0 => c.value as u32,
                a => return Err(HookFailure(format!("the draw prompt cannot take `{a}`"))),
            };
            let token = self.flock.token_at(&ctx.view(), k)?;
            self.flock.add(ctx, d.shepherd, seg, token)?;
            return if d.turn {
                self.turn_flocks(ctx, prompt.player)
            } else {
                self.flock.score_closed(ctx, &[])
            };
        }
        let FlockPrompt(f) = prompt.decode::<FlockPrompt>()?;
        let Some(seg) = Self::standing(&ctx.view(), f) else {
            return Err(HookFailure(
                "flock: the shepherd is not on the board".into(),
            ));
        };
        match action {
            Action::Custom(c) if c.verb == self.grow && self.chosen_draws => {
                // HL-9: the draw is asked first; closed fields follow it.
                ctx.prompt_next(
                    prompt.player,
                    DrawPrompt {
                        shepherd: f,
                        turn: false,
                    },
                );
                return Ok(());
            }
            Action::Custom(c) if c.verb == self.grow => self.flock.grow(ctx, f, seg)?,
            Action::Custom(c) if c.verb == self.score => self.flock.drive_home(ctx, seg)?,
            a => return Err(HookFailure(format!("the flock prompt cannot take `{a}`"))),
        }
        // HL-13: a flock whose field is now closed goes home.
        self.flock.score_closed(ctx, &[])
    }

    /// HL-4 … HL-7.
    #[inline(always)]
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        let view = ctx.view();
        self.marks.vineyards(&view, &self.monastic, draft);
        self.marks.break_ties(&view, self.tiebreaker, draft);
        Ok(())
    }

    /// HL-14: a shepherd taken off by any rule takes its flock's tokens back to the bag.
    #[inline(always)]
    fn on_figure_removed(
        &self,
        ctx: &mut Ctx<'_>,
        figure: FigureId,
        _r: RemovalReason,
    ) -> HookResult {
        if ctx.state().figure(figure).kind == self.flock.shepherd {
            self.flock.clear(ctx, figure);
        }
        Ok(())
    }

    /// HL-9: each shepherd's flock, as the number of sheep a badge beside him shows.
    fn describe(&self, v: View<'_>, out: &mut Vec<Visible>) -> HookResult {
        for (f, segment) in self.flock.on_board(&v) {
            out.push(Visible::Place {
                group: "Flocks (sheep)".into(),
                name: self.flock.sheep(&v, f).to_string(),
                segment,
            });
        }
        Ok(())
    }
}

carcassonne_core::export_expansion!("hills-sheep", HillsSheep::new());
