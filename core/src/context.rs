//! How hooks reach a game: [`View`] reads it, [`Ctx`] changes it through operations that
//! keep the game's invariants.

use crate::action::{Action, ExpansionIndex};
use crate::figure::{Figure, FigureId, FigureKindId, FigureLoc, RemovalReason};
use crate::graph::{FeatureId, SegmentId};
use crate::hooks::{HookError, HookFailure, HookResult, HookSet, Visible, MAX_QUEUED_PROMPTS};
use crate::kind::FeatureKindId;
use crate::player::PlayerId;
use crate::pos::Pos;
use crate::prompt::{Prompt, PromptKind};
use crate::ruleset::{LabelId, Ruleset};
use crate::slot::SlotRef;
use crate::state::GameState;

/// Read access to a game for hooks.
#[derive(Clone, Copy)]
pub struct View<'a> {
    /// The rules.
    pub rules: &'a Ruleset,
    /// The state.
    pub state: &'a GameState,
}

impl<'a> View<'a> {
    /// Strength of a figure in half-units: its kind's base plus every expansion's delta,
    /// or the error of the first expansion whose `strength_delta` failed.
    pub fn strength(&self, f: FigureId) -> Result<i32, HookError> {
        let fig = self.state.figure(f);
        let mut s = self.rules.figure_kind(fig.kind).strength;
        let (bit, hook) = (HookSet::STRENGTH_DELTA, "strength_delta");
        crate::engine::each_read(self.rules, self.state, bit, hook, |e, v| {
            s += e.strength_delta(v, f)?;
            Ok(())
        })?;
        Ok(s.max(0))
    }

    /// Reads one value of a state slot.
    #[inline]
    pub fn get(&self, at: impl Into<SlotRef>) -> i64 {
        self.state.get(at.into())
    }

    /// The stable name of a figure, `<seat>.<kind>.<ordinal>` (`0.small-follower.3`): how
    /// records and pictures name it.
    ///
    /// A neutral figure has no seat: `<kind>.<ordinal>` (`courier.1`, as JCloisterZone
    /// names its neutral figures).
    pub fn figure_name(&self, f: FigureId) -> String {
        let fig = self.state.figure(f);
        let kind = &self.rules.figure_kind(fig.kind).name;
        match fig.seat() {
            Some(p) => format!("{}.{kind}.{}", p.0, fig.ordinal),
            None => format!("{kind}.{}", fig.ordinal),
        }
    }

    /// What every expansion shows of its state ([`Expansion::describe`]), in load order.
    pub fn describe(&self, out: &mut Vec<Visible>) -> Result<(), HookError> {
        crate::engine::read_all(self.rules, self.state, "describe", |e, v| {
            e.describe(v, out)
        })
    }

    /// The complete, not yet scored features the last placed tile closes (its own
    /// segments' features and the sites around it): what the next scoring will score.
    pub fn completed_by_last_placement(&self, out: &mut Vec<FeatureId>) {
        (self.rules.routines.completed_by_last_placement)(self.rules, self.state, out)
    }

    /// The figures of one kind that `player` has (on the board, in supply or held), without
    /// scanning the player's others: a hook that looks for its own figure (a builder, a
    /// dragon) on every tile reads it here.
    #[inline]
    pub fn figures_of_kind(&self, player: PlayerId, kind: FigureKindId) -> &'a [Figure] {
        let Some(def) = self.rules.figure_kinds().get(kind.0 as usize) else {
            return &[];
        };
        let (_, mine) = self.state.figures_of(player);
        let at = self.rules.figure_offset(kind).min(mine.len());
        &mine[at..(at + usize::from(def.per_player)).min(mine.len())]
    }

    /// The completed city-scored features bordering the farm `farm` (a virtual city such as
    /// the City of Carcassonne's included), in the graph's order, written into `out`: what
    /// farm scoring counts, and what the pig, the barn and the wagon's farms count too.
    pub fn farm_cities(&self, farm: FeatureId, out: &mut Vec<FeatureId>) {
        (self.rules.routines.farm_cities)(self.rules, &self.state.graph, farm, out)
    }

    // Helpers every expansion needed and once wrote for itself.

    /// [`Self::farm_cities`] as a new list: the completed cities a farm borders, for
    /// hooks that count them (`.len()`) or look one up once.
    pub fn completed_cities(&self, farm: FeatureId) -> Vec<FeatureId> {
        let mut out = Vec::new();
        self.farm_cities(farm, &mut out);
        out
    }

    /// How many completed cities the farm `farm` borders ([`Self::farm_cities`]`.len()`):
    /// during the final scoring read from what its farm draft found, without a list.
    pub fn completed_city_count(&self, farm: FeatureId) -> usize {
        match self.state.graph.farm_memo(farm) {
            Some((cities, _)) => cities.len(),
            None => self.completed_cities(farm).len(),
        }
    }

    /// A player's figure as position settings name it: `NAME` (one of the player's small
    /// followers) or `NAME:kind` (a figure kind of the ruleset, `R:big-follower`); spaces
    /// around either part are ignored. Unknown players and kinds are errors.
    pub fn player_figure(&self, text: &str) -> HookResult<(PlayerId, FigureKindId)> {
        let (name, kind) = match text.split_once(':') {
            Some((name, kind)) => (name, Some(kind.trim())),
            None => (text, None),
        };
        let player = self.state.player_named(name)?;
        let kind = match kind {
            None => FigureKindId::SMALL_FOLLOWER,
            Some(k) => self
                .rules
                .figure_named(k)
                .ok_or_else(|| HookFailure(format!("no figure kind `{k}`")))?,
        };
        Ok((player, kind))
    }

    /// Legal deployments of `player` on the segments of the tile at `pos` under the base
    /// rules (unoccupied features, figure kind allowed, supply not empty).
    pub fn deployments_on_tile(&self, player: PlayerId, pos: Pos, out: &mut Vec<Action>) {
        crate::engine::deployments_on_tile(self.rules, self.state, player, pos, out)
    }

    /// Whether the tile at `at` may become `variant` ([`Ctx::add_overlay`]): it is one of
    /// its kind's variants and its edges match every neighbour.
    pub fn overlay_fits(&self, at: Pos, variant: crate::tile::TileKindId) -> bool {
        crate::engine::overlay_fits(self.rules, self.state, at, variant)
    }

    /// Whether every expansion that vets overlays ([`crate::BoundExpansion::allows_overlay`])
    /// lets the tile at `at` become `variant`: ask it before offering or laying an overlay
    /// (on top of [`View::overlay_fits`]). True at no cost when no expansion vets them; an
    /// implementer's failure is passed on.
    pub fn overlay_allowed(&self, at: Pos, variant: crate::tile::TileKindId) -> HookResult<bool> {
        crate::engine::overlay_allowed(self.rules, self.state, at, variant)
            .map_err(|e| HookFailure(e.to_string()))
    }

    /// Where the active player could place a tile of kind `tile` now (edge matching, or
    /// holes for a barrier tile, then every expansion's placement filter), one entry per
    /// cell with its rotation mask; returns the number of (cell, rotation) pairs. Any kind
    /// of the ruleset may be asked, in or out of the supply. The answer for a kind that no
    /// placement filter concerns is remembered until the board changes, so asking again
    /// in the same turn is cheap.
    pub fn placements_of(
        &self,
        tile: crate::tile::TileKindId,
        out: &mut Vec<crate::state::PlacementCell>,
    ) -> Result<usize, HookError> {
        (self.rules.routines.placements)(self.rules, self.state, tile, out)
    }

    /// [`View::placements_of`] without a copy: `read` gets the placements of `tile` now
    /// and their number of (cell, rotation) pairs where they are kept (for a kind that no
    /// placement filter concerns, the remembered answer). For a caller that only looks
    /// at them (whether any, which one), asking several times a turn.
    pub fn read_placements_of(
        &self,
        tile: crate::tile::TileKindId,
        read: &mut dyn FnMut(&[crate::state::PlacementCell], usize),
    ) -> Result<(), HookError> {
        (self.rules.routines.read_placements)(self.rules, self.state, tile, read)
    }
}

/// Mutable access for hooks, through operations that keep the game's invariants.
pub struct Ctx<'a> {
    pub(crate) rules: &'a Ruleset,
    pub(crate) state: &'a mut GameState,
    pub(crate) me: ExpansionIndex,
}

impl<'a> Ctx<'a> {
    /// Read access.
    pub fn view(&self) -> View<'_> {
        View {
            rules: self.rules,
            state: self.state,
        }
    }

    /// The state (read-only).
    pub fn state(&self) -> &GameState {
        self.state
    }

    /// The rules.
    pub fn rules(&self) -> &Ruleset {
        self.rules
    }

    /// The calling expansion.
    pub fn me(&self) -> ExpansionIndex {
        self.me
    }

    /// Gives points outside feature scoring, recorded as an event with `label`.
    pub fn award(&mut self, player: PlayerId, points: i32, label: LabelId) {
        self.state
            .award(player, points, crate::event::ScoreSource::Label(label));
    }

    /// Gives points of a scoring on the board that core's feature scoring does not make
    /// (a castle scoring the feature completed beside it), recorded under `label` and
    /// marked [`ScoreEvent::scoring`](crate::ScoreEvent::scoring): rules that react to a
    /// scoring the placement caused (the Count's deployment, CO-4) count them as they
    /// count a feature's.
    pub fn award_scoring(&mut self, player: PlayerId, points: i32, label: LabelId) {
        self.state
            .award_scoring(player, points, crate::event::ScoreSource::Label(label));
    }

    /// Puts a figure of `kind` from `player`'s supply onto a segment and tells every
    /// expansion (`on_figure_placed`). Errs if none is left.
    pub fn deploy(
        &mut self,
        player: PlayerId,
        kind: FigureKindId,
        segment: SegmentId,
    ) -> HookResult<FigureId> {
        let id = self
            .state
            .deploy(self.rules, player, kind, segment)
            .ok_or_else(|| {
                HookFailure(format!(
                    "player {} has no figure of kind {} in supply",
                    player.0, kind.0
                ))
            })?;
        self.placed(id, segment)?;
        Ok(id)
    }

    /// Tells every expansion that `figure` came onto `segment`.
    fn placed(&mut self, figure: FigureId, segment: SegmentId) -> HookResult {
        (self.rules.routines.figure_placed)(self.rules, self.state, figure, segment)
            .map_err(|e| HookFailure(e.to_string()))
    }

    /// Puts a neutral figure of `kind` that is off the board onto a segment (any segment,
    /// occupied or not: the expansion states where its figure may go), then tells every
    /// expansion (`on_figure_placed`). Errs, changing nothing, if `kind` is not neutral,
    /// every copy is on the board, or the segment does not exist.
    pub fn place_neutral(
        &mut self,
        kind: FigureKindId,
        segment: SegmentId,
    ) -> HookResult<FigureId> {
        let Some(def) = self.rules.figure_kinds().get(kind.0 as usize) else {
            return Err(HookFailure(format!("no figure kind {}", kind.0)));
        };
        if !def.is_neutral() {
            return Err(HookFailure(format!(
                "figure kind `{}` is not neutral (it belongs to players)",
                def.name
            )));
        }
        if segment.index() >= self.state.graph().len() {
            return Err(HookFailure(format!("no segment {}", segment.index())));
        }
        let (first, neutral) = self.state.neutral_figures();
        let Some(i) = neutral
            .iter()
            .position(|f| f.kind == kind && f.loc == FigureLoc::Supply)
        else {
            return Err(HookFailure(format!(
                "every `{}` is already on the board",
                def.name
            )));
        };
        let id = FigureId((first + i) as u16);
        self.state.move_figure(id, segment);
        self.placed(id, segment)?;
        Ok(id)
    }

    /// Moves a figure in play onto a segment and tells every expansion
    /// (`on_figure_placed`). A figure that does not exist or is not on
    /// the board, or a segment that does not exist, is an error and changes nothing, so
    /// figures stay conserved and occupancy counts exact.
    pub fn move_figure(&mut self, figure: FigureId, segment: SegmentId) -> HookResult {
        let Some(f) = self.state.figures().get(figure.0 as usize) else {
            return Err(HookFailure(format!("no figure {}", figure.0)));
        };
        if !matches!(f.loc, FigureLoc::On(_)) {
            return Err(HookFailure(format!(
                "figure {} is not on the board",
                figure.0
            )));
        }
        if segment.index() >= self.state.graph().len() {
            return Err(HookFailure(format!("no segment {}", segment.index())));
        }
        self.state.move_figure(figure, segment);
        self.placed(figure, segment)
    }

    /// Closes a complete, unscored feature that another has replaced (a castle built on a
    /// completed city): it is never scored, no longer counts among the complete features
    /// of its kind ([`FeatureGraph::complete_count`](crate::FeatureGraph::complete_count),
    /// which the King's award reads), and placement-scoring rules no longer list it
    /// ([`View::completed_by_last_placement`]). Figures still on it that go home after a
    /// scoring go home now, as a scoring would send them. It stays complete on the board,
    /// so a farm bordering it still counts it. Anything but a complete, unscored feature is
    /// an error and changes nothing.
    pub fn take_over_feature(&mut self, f: FeatureId) -> HookResult {
        let g = self.state.graph();
        if f.0 as usize >= g.len() || g.feature_of(f.segment()) != f {
            return Err(HookFailure(format!("no feature {}", f.0)));
        }
        let t = g.totals(f);
        if !t.complete() || t.scored {
            return Err(HookFailure(format!(
                "feature {} is not complete and unscored: nothing to take over",
                f.0
            )));
        }
        self.state.graph.take_over(f);
        let back: Vec<FigureId> = (0..self.state.figures().len())
            .filter(|&i| crate::engine::returns_from(self.rules, self.state, i, f))
            .map(|i| FigureId(i as u16))
            .collect();
        for id in back {
            self.return_figure(id, RemovalReason::Scored)
                .map_err(|e| HookFailure(e.to_string()))?;
        }
        Ok(())
    }

    /// Returns a figure to its owner's supply and tells every expansion.
    pub fn return_figure(
        &mut self,
        figure: FigureId,
        reason: RemovalReason,
    ) -> Result<(), HookError> {
        (self.rules.routines.return_figure)(self.rules, self.state, figure, reason)
    }

    /// Takes a figure off the board **without** returning it to supply: it becomes
    /// [`FigureLoc::Removed`] (a prisoner, say; the expansion records who holds it in its
    /// own slots) and every expansion's `on_figure_removed` is told. A figure that does not
    /// exist or is not on the board is an error and changes nothing. Figures stay
    /// conserved: supply + board + removed = each kind's `per_player`.
    pub fn hold_figure(&mut self, figure: FigureId, reason: RemovalReason) -> HookResult {
        if figure.0 as usize >= self.state.figures().len() {
            return Err(HookFailure(format!("no figure {}", figure.0)));
        }
        match (self.rules.routines.hold_figure)(self.rules, self.state, figure, reason) {
            Ok(true) => Ok(()),
            Ok(false) => Err(HookFailure(format!(
                "figure {} is not on the board",
                figure.0
            ))),
            Err(e) => Err(HookFailure(e.to_string())),
        }
    }

    /// Puts a figure taken off with [`Ctx::hold_figure`] back into its owner's supply
    /// (a prisoner exchanged or ransomed). Any other figure is an error and changes nothing.
    pub fn release_figure(&mut self, figure: FigureId) -> HookResult {
        if figure.0 as usize >= self.state.figures().len() {
            return Err(HookFailure(format!("no figure {}", figure.0)));
        }
        if self.state.restore(figure) {
            Ok(())
        } else {
            Err(HookFailure(format!("figure {} is not held", figure.0)))
        }
    }

    /// From [`BoundExpansion::apply_action`](crate::BoundExpansion::apply_action) in the
    /// deployment step: the action did not spend the step (The Tower's ransom, TW-13), so
    /// the whole step — core's deployments, every expansion's alternatives and filters — is
    /// offered again once the hook returns (after any prompt it queued). Also from
    /// [`BoundExpansion::apply_prompt`](crate::BoundExpansion::apply_prompt) answering a
    /// prompt of the [`Window::AfterDeploy`](crate::Window::AfterDeploy) window (a ransom
    /// after the action reopens the step, as JCZ's fork does). Also from
    /// [`BoundExpansion::open_window`](crate::BoundExpansion::open_window) for that
    /// window: a step after the step (The Phantom's second follower), which the expansion
    /// narrows with `filter_deploy_actions`; the window's later hooks then wait until it
    /// opens again after that step. Anywhere else an error that changes nothing.
    pub fn repeat_deploy_step(&mut self) -> HookResult {
        use crate::state::{DecisionKind, Stage};
        let in_window = self.state.open_window == Some(crate::hooks::Window::AfterDeploy)
            && self.state.stage == Stage::BeforeScoring;
        let in_step = in_window
            || match self.state.decision.kind {
                DecisionKind::Deploy { .. } => self.state.stage == Stage::AfterDeploy,
                // The window moved the stage on before its prompts were asked.
                DecisionKind::Prompt(_) => self.state.stage == Stage::BeforeScoring,
                _ => false,
            };
        if !in_step {
            return Err(HookFailure(
                "the deployment step can only be repeated from an action taken in it".into(),
            ));
        }
        self.state.stage = crate::state::Stage::DeployStep;
        Ok(())
    }

    /// Queues a prompt at the back of the queue: `what` is a value of the expansion's own
    /// [`PromptKind`]. Past [`MAX_QUEUED_PROMPTS`] waiting prompts nothing is queued and
    /// the calling hook fails when it returns.
    pub fn prompt(&mut self, player: PlayerId, what: impl PromptKind) {
        if let Some(p) = self.new_prompt(player, what) {
            self.state.prompts.push_back(p);
        }
    }

    /// Queues a prompt at the front (asked next), with the same bound as [`Ctx::prompt`].
    pub fn prompt_next(&mut self, player: PlayerId, what: impl PromptKind) {
        if let Some(p) = self.new_prompt(player, what) {
            self.state.prompts.push_front(p);
        }
    }

    /// Queues at the back a prompt whose offers are the placements of tile kind `tile` for
    /// the active player, as [`View::placements_of`] gives them when the prompt is asked,
    /// in cell then rotation order. Core offers them by index from where it keeps them (as
    /// the drawn tile's), so the expansion's
    /// [`prompt_actions`](crate::BoundExpansion::prompt_actions) is not asked for this
    /// prompt; its `apply_prompt` gets the `Place` chosen. With no placement left when it
    /// is asked, it asks nothing. An error for a kind the ruleset does not have.
    pub fn prompt_placements(
        &mut self,
        player: PlayerId,
        what: impl PromptKind,
        tile: crate::tile::TileKindId,
    ) -> HookResult {
        self.queue_placements(player, what, tile, false)
    }

    /// [`Ctx::prompt_placements`] at the front of the queue (asked next).
    pub fn prompt_placements_next(
        &mut self,
        player: PlayerId,
        what: impl PromptKind,
        tile: crate::tile::TileKindId,
    ) -> HookResult {
        self.queue_placements(player, what, tile, true)
    }

    fn queue_placements(
        &mut self,
        player: PlayerId,
        what: impl PromptKind,
        tile: crate::tile::TileKindId,
        front: bool,
    ) -> HookResult {
        let places = (usize::from(tile.0) < self.rules.tiles().len())
            .then(|| std::num::NonZeroU16::new(tile.0.wrapping_add(1)))
            .flatten()
            .ok_or_else(|| HookFailure(format!("no tile kind {}", tile.0)))?;
        if let Some(mut p) = self.new_prompt(player, what) {
            p.places = Some(places);
            match front {
                true => self.state.prompts.push_front(p),
                false => self.state.prompts.push_back(p),
            }
        }
        Ok(())
    }

    fn new_prompt(&mut self, player: PlayerId, what: impl PromptKind) -> Option<Prompt> {
        if self.state.prompts.len() >= MAX_QUEUED_PROMPTS {
            self.state.prompt_overflow = true;
            return None;
        }
        Some(Prompt {
            player,
            owner: self.me,
            code: what.encode(),
            places: None,
        })
    }

    /// Reads one value of a state slot (`ctx.get(self.king)`,
    /// `ctx.get(self.tokens.of(player))`).
    #[inline]
    pub fn get(&self, at: impl Into<SlotRef>) -> i64 {
        self.state.get(at.into())
    }

    /// Writes one value of a state slot.
    #[inline]
    pub fn set(&mut self, at: impl Into<SlotRef>, value: i64) {
        self.state.set(at.into(), value);
    }

    /// A uniform random number in `0..n` from the game's RNG (n ≥ 1).
    pub fn random_below(&mut self, n: u32) -> u32 {
        use rand::Rng;
        self.state.rng.random_range(0..n.max(1))
    }

    /// The tile supply, to add groups or set tiles aside. When the hook returns, the
    /// engine checks that every tile in it is a kind of the ruleset (else the hook fails).
    pub fn supply_mut(&mut self) -> &mut crate::supply::TileSupply {
        self.state.supply_touched = true;
        &mut self.state.supply
    }

    /// Sends the drawn tile back into the supply while prompts queued by `on_tile_drawn`
    /// are asked ([`GameState::revealed_tile`]): it is not placed, and the active player
    /// draws again (a redraw the player chose). `false` when no tile is waiting.
    pub fn return_drawn_tile(&mut self) -> bool {
        match self.state.revealed.take() {
            Some(tile) => {
                self.state.supply.put_back(tile);
                true
            }
            None => false,
        }
    }

    /// Plays a tile that is not in the supply instead of drawing: asked in the
    /// [`Window::BeforeDraw`](crate::Window::BeforeDraw) window (from a prompt's answer),
    /// the active player places `tile` at `pos` turned by `rotation` as the tile of this
    /// turn (or part), and the turn goes on with its deployment step. The placement must be
    /// one [`View::placements_of`] offers; anything else is an error and changes nothing,
    /// as is a second tile once one is chosen this turn
    /// ([`GameState::tile_chosen_instead`]).
    pub fn play_tile_instead(
        &mut self,
        tile: crate::tile::TileKindId,
        pos: Pos,
        rotation: crate::side::Rotation,
    ) -> HookResult {
        if tile.0 as usize >= self.rules.tiles().len() {
            return Err(HookFailure(format!("no tile kind {}", tile.0)));
        }
        if self.state.stage != crate::state::Stage::Draw {
            return Err(HookFailure(
                "a tile can be played instead of drawing only before the draw".into(),
            ));
        }
        if let Some((chosen, ..)) = self.state.instead {
            return Err(HookFailure(format!(
                "tile {} is already chosen instead of this turn's draw",
                self.rules.tiles().get(chosen).id
            )));
        }
        let bit = 1u8 << rotation.quarters();
        let fits = |cells: &[crate::state::PlacementCell]| {
            cells.iter().any(|c| c.pos == pos && c.rotations & bit != 0)
        };
        let mut legal = false;
        match crate::engine::offered_placements(self.rules, self.state, tile) {
            // Answering a placements prompt of this kind, under the memo key it was made
            // with: its offer is the memo's answer (which it took out of the memo).
            Some(cells) => {
                legal = fits(cells);
                #[cfg(debug_assertions)]
                {
                    let mut fresh = Vec::new();
                    self.view().placements_of(tile, &mut fresh).ok();
                    debug_assert_eq!(legal, fits(&fresh), "the prompt's offer as the check");
                }
            }
            // Read where the placements are kept, not copied into a list of its own.
            None => self
                .view()
                .read_placements_of(tile, &mut |cells, _| legal = fits(cells))
                .map_err(|e| HookFailure(e.to_string()))?,
        }
        if !legal {
            return Err(HookFailure(format!(
                "tile {} cannot be placed at {pos} rotation {rotation}",
                self.rules.tiles().get(tile).id
            )));
        }
        self.state.instead = Some((tile, pos, rotation));
        Ok(())
    }

    /// Asks for this placement's scoring (step 7) even if the placement completes nothing,
    /// so that `before_scoring` hooks may add their own items to its draft (a barn's farm).
    pub fn request_scoring(&mut self) {
        self.state.score_anyway = true;
    }

    /// Keeps turns going after the supply ran out (`true`), or lets the game end at the
    /// next turn start with an empty supply (`false`, the default, A-12). Such turns open
    /// only the [`Window::BeforeDraw`](crate::Window::BeforeDraw) window before their tile
    /// step; a turn without a tile played there ends at once.
    pub fn set_more_turns(&mut self, on: bool) {
        self.state.more_turns = on;
    }

    /// Like [`Ctx::set_more_turns`], but such turns are whole turns: each opens its
    /// [`Window::TurnStart`](crate::Window::TurnStart) window as any turn does (start-of-turn
    /// effects, a fairy's point), then `BeforeDraw`. For a round the rules play as ordinary
    /// turns without drawing (Bridges, Castles & Bazaars' bazaar round, BCB-15), where
    /// `set_more_turns` is for turns that are only a last chance to play one tile (Abbey &
    /// Mayor's final abbey round, AM-9). Either keeps the game going while it is on.
    pub fn set_more_whole_turns(&mut self, on: bool) {
        self.state.whole_turns = on;
    }

    /// Adds a virtual feature (not on the grid). `complete` features count as completed
    /// (e.g. a city that borders every farm touching it).
    pub fn add_virtual_feature(
        &mut self,
        kind: FeatureKindId,
        slot: u8,
        complete: bool,
    ) -> SegmentId {
        self.state
            .add_virtual(self.rules, kind, slot, complete, None)
    }

    /// Adds a virtual feature that stands for a place on the board at `cell` (a castle
    /// built on two city halves): like [`Ctx::add_virtual_feature`], but rules that look
    /// at the cells around a place find it and its figures there
    /// ([`SegmentNode::cell`](crate::SegmentNode::cell); the big top's neighbourhood).
    pub fn add_virtual_feature_at(
        &mut self,
        kind: FeatureKindId,
        slot: u8,
        complete: bool,
        cell: Pos,
    ) -> SegmentId {
        self.state
            .add_virtual(self.rules, kind, slot, complete, Some(cell))
    }

    /// Records that a field segment borders a city-like segment (virtual or not).
    pub fn add_border(&mut self, field: SegmentId, city: SegmentId) {
        self.state.graph.add_border(field, city);
    }

    /// Adds an overlay to the tile at `at` ([`crate::overlay`]): the tile becomes
    /// `variant`, one of its kind's variants, whose added segment joins the features its
    /// ends meet (and scores with this turn's placement if that completes it). Errs,
    /// changing nothing, unless [`View::overlay_fits`]. Returns the added segment.
    pub fn add_overlay(
        &mut self,
        at: Pos,
        variant: crate::tile::TileKindId,
    ) -> HookResult<SegmentId> {
        (self.rules.routines.add_overlay)(self.rules, self.state, at, variant).map_err(HookFailure)
    }
}
