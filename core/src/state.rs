//! The game state: everything that changes during a game, and nothing else.

use crate::action::Action;
use crate::board::Board;
use crate::event::{ScoreEvent, ScoreSource};
use crate::figure::{Figure, FigureId, FigureKindId, FigureLoc};
use crate::graph::{
    FeatureGraph, FeatureTotals, PlacedIndex, SegmentId, SegmentNode, VIRTUAL_TILE,
};
use crate::hooks::ScoreDraft;
use crate::kind::FeatureKindId;
use crate::player::{Player, PlayerId};
use crate::pos::Pos;
use crate::prompt::Prompt;
use crate::ruleset::Ruleset;
use crate::side::{HalfSet, Rotation, SideSet};
use crate::slot::{SlotId, SlotRef, SlotScope};
use crate::supply::TileSupply;
use crate::tile::TileKindId;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::sync::Arc;

/// [`Arc::make_mut`] with its common case inline: with one holder and no weak reference
/// (two plain loads), `Arc::get_mut` takes the value without a call (one atomic
/// compare-exchange, as `make_mut`'s). Any other case goes out of line to `make_mut`
/// itself, which copies the value (or moves it away from weak references), after which
/// the `Arc` has one holder and no weak reference, so `get_mut` cannot fail. Used for the
/// board and the segments, taken for writing at every placement (`unshared_mut_is_make_mut`).
#[inline(always)]
pub(crate) fn unshared_mut<T: Clone>(a: &mut Arc<T>) -> &mut T {
    if Arc::strong_count(a) != 1 || Arc::weak_count(a) != 0 {
        make_unshared(a);
    }
    Arc::get_mut(a).expect("one holder and no weak reference")
}

/// [`unshared_mut`]'s shared case, out of line.
#[cold]
#[inline(never)]
fn make_unshared<T: Clone>(a: &mut Arc<T>) {
    Arc::make_mut(a);
}

/// The decision the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionKind {
    /// The table draws the next tile (only in [`DrawMode::Chosen`] games): the offered
    /// actions are one `Action::Draw` per tile kind that can come up. `player` is the
    /// player who will place it.
    ///
    /// [`DrawMode::Chosen`]: crate::DrawMode::Chosen
    Draw,
    /// Place the drawn tile.
    PlaceTile {
        /// The drawn tile.
        tile: TileKindId,
    },
    /// The active player's deployment step for the tile just placed.
    Deploy {
        /// The tile just placed.
        tile: PlacedIndex,
    },
    /// An expansion's prompt.
    Prompt(Prompt),
    /// The game is over; nothing to decide.
    GameOver,
}

/// How the next deployment step is offered or answered ([`GameState::next_offer`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum NextOffer {
    /// Listed and offered as usual.
    #[default]
    Listed,
    /// Passed unlisted ([`crate::Game::apply_passing_deploy`]).
    Pass,
    /// Answered from the tile's own deployments, this share of them
    /// ([`crate::Game::apply_tile_deploy`]).
    Pick(u64),
    /// The decision at [`GameState::known_at`] (a deployment step or a prompt) offers
    /// [`GameState::known_offer`] instead of its listing ([`crate::Game::apply_known`]).
    Known,
}

/// Which decision a [`crate::KnownOffer`] is the offer of: the same turn, and the
/// deployment step of the same tile placed at the same cell and rotation, or the same prompt
/// asked as often this turn. Along the same actions from the same position, each is reached
/// once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OfferAt {
    Deploy {
        turn: u32,
        tile: PlacedIndex,
        kind: TileKindId,
        pos: Pos,
        rotation: Rotation,
    },
    Prompt {
        turn: u32,
        asked: u32,
        prompt: Prompt,
    },
}

impl OfferAt {
    /// The deployment step of the tile `tile` in `st`.
    pub(crate) fn deploy(st: &GameState, tile: PlacedIndex) -> OfferAt {
        let t = st.board.tile(tile);
        OfferAt::Deploy {
            turn: st.turn,
            tile,
            kind: t.kind,
            pos: t.pos,
            rotation: t.rotation,
        }
    }
}

/// Whose decision it is and what kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Who decides.
    pub player: PlayerId,
    /// What is decided.
    pub kind: DecisionKind,
}

/// Why a drawn tile left the game unplayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiscardReason {
    /// It fit nowhere on the board.
    FitsNowhere,
    /// An expansion's `on_tile_drawn` discarded it.
    Expansion(crate::action::ExpansionIndex),
}

/// A drawn tile that left the game unplayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Discard {
    /// The tile.
    pub tile: TileKindId,
    /// The turn it was drawn in.
    pub turn: u32,
    /// Who drew it.
    pub player: PlayerId,
    /// Why.
    pub reason: DiscardReason,
}

/// A cell where the drawn tile fits, with the rotations that fit there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacementCell {
    /// The cell.
    pub pos: Pos,
    /// Bit `q` set = the tile fits turned by `q` quarter turns clockwise.
    pub rotations: u8,
}

impl PlacementCell {
    /// How many rotations fit: a table lookup, because `count_ones` on the baseline
    /// x86-64 target (no `popcnt`) is a dozen instructions, and placement enumeration
    /// counts every frontier cell of every draw.
    #[inline]
    pub fn rotation_count(&self) -> usize {
        const FITS: [u8; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];
        FITS[usize::from(self.rotations & 0xF)] as usize
    }

    /// Appends the cell's placements to `out` as actions, in rotation order.
    pub fn push_placements(&self, out: &mut Vec<Action>) {
        for q in 0..4u8 {
            if self.rotations & (1 << q) != 0 {
                out.push(Action::Place {
                    pos: self.pos,
                    rotation: crate::side::Rotation::quarter_turns(q),
                });
            }
        }
    }

    /// The `i`-th (from 0) of the cell's placements in rotation order (`i` below
    /// [`Self::rotation_count`]).
    #[inline]
    fn nth_placement(&self, i: usize) -> Action {
        let mut bits = self.rotations;
        for _ in 0..i {
            bits &= bits - 1;
        }
        let q = bits.trailing_zeros() as u8;
        Action::Place {
            pos: self.pos,
            rotation: crate::side::Rotation::quarter_turns(q),
        }
    }
}

/// Where the turn pipeline resumes once the pending decision (and prompts) are done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    TurnStart,
    /// The `BeforeDraw` window (a tile from outside the supply may be chosen there).
    BeforeDraw,
    Draw,
    /// A drawn tile waits in `revealed` while prompts queued when it was drawn are asked.
    Reveal,
    DeployStep,
    AfterDeploy,
    BeforeScoring,
    Score,
    AfterScoring,
    TurnEnd,
    /// The `AfterTurn` window is open; the next player's turn follows.
    NextTurn,
    BeforeFinal,
    FinalScoring,
    Over,
}

/// The figure kinds that do not occupy (share features, or neutral), whose figures the
/// features' occupant counts leave out: a set (bit k = kind k, for the 256 kinds a
/// [`FigureKindId`] can name), and whether any of them returns when its feature scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SharingKinds([u64; 4], bool);

impl SharingKinds {
    pub(crate) fn of(kinds: &[crate::figure::FigureKindDef]) -> SharingKinds {
        let mut s = SharingKinds::default();
        for (k, def) in kinds.iter().enumerate() {
            if !def.occupies() {
                s.0[k / 64] |= 1 << (k % 64);
                s.1 |= def.returns;
            }
        }
        s
    }

    /// Whether a figure of a kind in the set may return when its feature scores: if not,
    /// a feature without occupants has no figure to return.
    #[inline]
    pub(crate) fn any_returns(self) -> bool {
        self.1
    }

    #[inline]
    pub(crate) fn contains(self, k: FigureKindId) -> bool {
        let k = k.0 as usize;
        self.0[k / 64] & (1 << (k % 64)) != 0
    }
}

/// Mutable state of one game. (`Clone` is in `engine/snapshot.rs`: a `clone_from` that
/// reuses the copy's buffers.)
#[derive(Debug)]
pub struct GameState {
    pub(crate) players: Vec<Player>,
    pub(crate) active: PlayerId,
    pub(crate) turn: u32,
    /// Shared between copies until one places a tile (copy on write, like the feature
    /// graph's segments): most steps a bot tries on a copy place nothing (issue 33).
    pub(crate) board: Arc<Board>,
    pub(crate) graph: FeatureGraph,
    pub(crate) figures: Vec<Figure>,
    /// Figures in supply per `(player, figure kind)`: index `player * kinds + kind`.
    pub(crate) in_supply: Vec<u8>,
    pub(crate) figure_kinds: usize,
    /// Figures each player has (`figures` is laid out player by player, then the neutral
    /// figures); kept so that [`GameState::figures_of`], which hooks call on every step,
    /// needs no division.
    pub(crate) figures_per_player: usize,
    /// Figure kinds that share features (bit k = kind k; neutral kinds included): their
    /// figures never change a feature's occupant count. Kept here because the figure moves
    /// below have no ruleset at hand.
    pub(crate) sharing: SharingKinds,
    pub(crate) supply: TileSupply,
    pub(crate) rng: ChaCha8Rng,
    pub(crate) stage: Stage,
    pub(crate) decision: Decision,
    pub(crate) offered: Vec<Action>,
    /// Legal placements of the drawn tile, compactly (a tile step offers many and most
    /// bots never need them as a list of actions).
    pub(crate) placements: Vec<PlacementCell>,
    pub(crate) placement_count: usize,
    /// `placements` expanded into actions, built on first request.
    pub(crate) placement_actions: std::sync::OnceLock<Vec<Action>>,
    /// The memo's key ([`PlacementMemo`]) `placements` hold the answer to while a
    /// placements prompt offers them: while it is still the key now, they answer as the
    /// memo would ([`crate::engine::offered_placements`]).
    pub(crate) offered_key: Option<MemoKey>,
    pub(crate) prompts: VecDeque<Prompt>,
    /// Prompts asked in this turn so far ([`MAX_PROMPTS_PER_TURN`](crate::hooks::MAX_PROMPTS_PER_TURN)).
    pub(crate) turn_prompts: u32,
    /// A hook tried to queue more than [`MAX_QUEUED_PROMPTS`](crate::hooks::MAX_QUEUED_PROMPTS)
    /// prompts; the engine turns this into that hook's error when it returns.
    pub(crate) prompt_overflow: bool,
    /// A hook had mutable access to the supply; the engine checks it when the hook returns.
    pub(crate) supply_touched: bool,
    pub(crate) last_placed: Option<PlacedIndex>,
    /// The segment an overlay added in this turn's tile step ([`crate::overlay`]).
    pub(crate) last_overlay: Option<SegmentId>,
    /// Who placed `last_placed` (not always the active player: see [`GameState::last_placer`]).
    pub(crate) last_placer: Option<PlayerId>,
    /// The action that answered the deployment step of the tile placed last (`None` while
    /// the step asked nobody); see [`GameState::deploy_choice`].
    pub(crate) deploy_choice: Option<Action>,
    /// The window whose `open_window` hooks are running, if any.
    pub(crate) open_window: Option<crate::hooks::Window>,
    pub(crate) extra_part: bool,
    /// The drawn tile while prompts queued by `on_tile_drawn` are asked (before its
    /// placement is offered); `None` once it is offered or was sent back.
    pub(crate) revealed: Option<TileKindId>,
    /// A tile from outside the supply to be placed instead of drawing (chosen in the
    /// `BeforeDraw` window, [`Ctx::play_tile_instead`](crate::Ctx::play_tile_instead)).
    pub(crate) instead: Option<(TileKindId, crate::pos::Pos, crate::side::Rotation)>,
    /// An expansion asked for this placement's scoring even if it completes nothing
    /// ([`Ctx::request_scoring`](crate::Ctx::request_scoring)).
    pub(crate) score_anyway: bool,
    /// Turns go on after the supply ran out ([`Ctx::set_more_turns`](crate::Ctx::set_more_turns)).
    pub(crate) more_turns: bool,
    /// Whole turns go on after the supply ran out, their `TurnStart` window too
    /// ([`Ctx::set_more_whole_turns`](crate::Ctx::set_more_whole_turns)).
    pub(crate) whole_turns: bool,
    /// A lookahead copy stops before a draw in this turn or later
    /// ([`crate::Game::set_stop_before_draw`]).
    pub(crate) stop_before_draw: Option<u32>,
    /// A copy stops before the placement scoring of this turn or a later one
    /// ([`crate::Game::set_stop_before_scoring`]).
    pub(crate) stop_before_scoring: Option<u32>,
    /// The end of this game passes the prompts it may pass unlisted
    /// ([`crate::Game::end_now_passing`]).
    pub(crate) end_passing: bool,
    /// How a search's playout answers the next deployment step without listing its offer,
    /// where the ruleset keeps the pass ([`crate::Game::apply_passing_deploy`],
    /// [`crate::Game::apply_tile_deploy`]), or offers a decision it knows
    /// ([`crate::Game::apply_known`]); set only during those calls.
    pub(crate) next_offer: NextOffer,
    /// With [`NextOffer::Known`]: the decision that offers [`GameState::known_offer`].
    pub(crate) known_at: Option<OfferAt>,
    /// With [`NextOffer::Known`]: that decision's offer (empty but during the call).
    pub(crate) known_offer: Vec<Action>,
    pub(crate) events: Vec<ScoreEvent>,
    /// Where this turn part's events start in `events` (set when a turn or its second
    /// part begins): [`GameState::turn_part_events`].
    pub(crate) part_events: u32,
    pub(crate) discards: Vec<Discard>,
    pub(crate) slots: Vec<i64>,
    pub(crate) slot_offsets: Vec<u32>,
    pub(crate) draft: ScoreDraft,
    pub(crate) final_scoring: bool,
    /// Scratch for placement filters (kept to avoid an allocation per draw; always empty
    /// between calls, so cloning it costs nothing).
    pub(crate) candidates: Vec<u8>,
    /// Scratch: features completed by the last placement.
    pub(crate) completed: Vec<crate::graph::FeatureId>,
    /// Scratch of the final scoring: each drafted feature's or farm's strength per player
    /// and occupants still to count. Always empty between scorings, so a copy copies
    /// nothing; kept so that ending a game (a search's every playout) does not allocate.
    pub(crate) final_strengths: Vec<([i32; crate::engine::MAX_PLAYERS], u16)>,
    /// Scratch of the final scoring: the completed cities of one farm (empty between
    /// scorings, as [`GameState::final_strengths`]).
    pub(crate) final_cities: Vec<crate::graph::FeatureId>,
    /// The last placements [`View::placements_of`](crate::View::placements_of) computed
    /// for a tile kind without placement filters (a hook asks the same tile's placements
    /// several times in a turn: before offering it, for the offer, to check the answer).
    /// A lock only because views are shared; a copy starts without it.
    pub(crate) placement_memo: MemoCell,
    /// What this state's own board and segments were last copied from by a refill, so that
    /// the next refill from the same source undoes the placements since instead of copying.
    pub(crate) copy_base: CopyBase,
}

/// The source's board and segments at a state's last refill ([`GameState::refill_from`]),
/// held so that they cannot change: while the state's own board and segments are
/// copies of these with tiles placed since (a copy or a plain `clone_from` starts
/// without), a refill from a state that still holds them undoes those placements
/// ([`Board::rewind_to`], [`FeatureGraph::rewind_segments`]). The source's union-find
/// entries are not held but named by their generation: a refill from a source whose
/// entries still have it restores only those its copy wrote since. Not part of the game: its
/// `Debug` text names only the type.
#[derive(Default)]
pub(crate) struct CopyBase {
    pub(crate) board: Option<Arc<Board>>,
    pub(crate) segments: Option<crate::graph::SegmentsHandle>,
    /// The generation of the source's union-find entries
    /// ([`FeatureGraph::refill_from`](crate::graph::FeatureGraph::refill_from)).
    pub(crate) links: Option<crate::graph::LinksGen>,
}

/// A copy starts without: its board and segments are shared with the state copied.
impl Clone for CopyBase {
    fn clone(&self) -> CopyBase {
        CopyBase::default()
    }
}

impl std::fmt::Debug for CopyBase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CopyBase")
    }
}

/// The lock around [`PlacementMemo`]; cloned empty (a copy keeps its own buffer).
#[derive(Default)]
pub(crate) struct MemoCell(pub(crate) std::sync::Mutex<PlacementMemo>);

/// A cache, not part of the game: a state's `Debug` text (what tests compare to see that a
/// refused action changed nothing) is the same whether or not placements were remembered.
impl std::fmt::Debug for MemoCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemoCell")
    }
}

impl Clone for MemoCell {
    fn clone(&self) -> MemoCell {
        MemoCell::default()
    }

    fn clone_from(&mut self, _: &MemoCell) {
        match self.0.get_mut() {
            Ok(m) => m.key = None,
            Err(_) => *self = MemoCell::default(),
        }
    }
}

/// A tile kind, [`Board::edits`](crate::board::Board::edits), and whether an overlay amends
/// placements: what the placements of a kind without placement filters depend on.
pub(crate) type MemoKey = (TileKindId, u32, bool);

/// The legal placements of one tile kind for one board ([`GameState::placement_memo`]):
/// `key` is the kind, [`Board::edits`] and whether an overlay amended placements then.
#[derive(Debug, Default)]
pub(crate) struct PlacementMemo {
    pub(crate) key: Option<MemoKey>,
    pub(crate) cells: Vec<PlacementCell>,
    pub(crate) count: usize,
}

impl GameState {
    /// Players in seat order.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// The seat of the player with this display name (surrounding spaces ignored): how
    /// expansions read players named in scenario settings.
    pub fn player_named(&self, name: &str) -> Result<PlayerId, crate::hooks::HookFailure> {
        let name = name.trim();
        self.players
            .iter()
            .position(|p| p.name == name)
            .map(|i| PlayerId(i as u8))
            .ok_or_else(|| crate::hooks::HookFailure(format!("no player named `{name}`")))
    }

    /// The player whose turn it is.
    pub fn active_player(&self) -> PlayerId {
        self.active
    }

    /// Whether turns go on after the supply ran out ([`crate::Ctx::set_more_turns`], or
    /// [`crate::Ctx::set_more_whole_turns`]).
    #[inline]
    pub fn more_turns(&self) -> bool {
        self.more_turns || self.whole_turns
    }

    /// Whether the current turn is in its second part ([`crate::TurnEndVerdict::ExtraPart`]).
    pub fn extra_part(&self) -> bool {
        self.extra_part
    }

    /// The tile chosen in this turn's `BeforeDraw` window to be placed instead of the draw
    /// ([`crate::Ctx::play_tile_instead`]), until it is placed. One draw is replaced by one
    /// tile: a set that offers its own tile instead (an abbey) offers nothing while another
    /// set's is chosen (a tile bought at a bazaar).
    pub fn tile_chosen_instead(&self) -> Option<TileKindId> {
        self.instead.map(|(tile, _, _)| tile)
    }

    /// Turns played so far (a double turn counts once).
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The feature graph.
    pub fn graph(&self) -> &FeatureGraph {
        &self.graph
    }

    /// All figures, indexed by [`FigureId`].
    pub fn figures(&self) -> &[Figure] {
        &self.figures
    }

    /// The figures of `player`, and the index (`FigureId`) of the first of them. Every
    /// player's figures are contiguous (created once, player by player, kinds in
    /// declaration order), so a scan of one player's figures skips the others'.
    #[inline]
    pub fn figures_of(&self, player: PlayerId) -> (usize, &[Figure]) {
        let per = self.figures_per_player;
        let start = (player.index() * per).min(self.figures.len());
        let end = (start + per).min(self.figures.len());
        (start, &self.figures[start..end])
    }

    /// The neutral figures (no owner), and the index (`FigureId`) of the first of them:
    /// they follow every player's figures.
    #[inline]
    pub fn neutral_figures(&self) -> (usize, &[Figure]) {
        let start = (self.players.len() * self.figures_per_player).min(self.figures.len());
        (start, &self.figures[start..])
    }

    /// Whether figures of `kind` make their feature occupied (a player's figure that does
    /// not share features).
    #[inline]
    pub fn occupies(&self, kind: FigureKindId) -> bool {
        !self.sharing.contains(kind)
    }

    /// One figure.
    #[inline]
    pub fn figure(&self, f: FigureId) -> &Figure {
        &self.figures[f.0 as usize]
    }

    /// Figures of `kind` in `player`'s supply.
    #[inline]
    pub fn in_supply(&self, player: PlayerId, kind: FigureKindId) -> u8 {
        self.in_supply[player.index() * self.figure_kinds + kind.0 as usize]
    }

    /// The kinds among `kinds` (bit `k` = figure kind `k`, below 64) that `player` has in
    /// supply; 0 for a player beyond the seats.
    #[inline]
    pub(crate) fn supply_bits(&self, player: PlayerId, kinds: u64) -> u64 {
        let n = self.figure_kinds;
        let start = player.index() * n;
        let Some(row) = self.in_supply.get(start..start + n) else {
            return 0;
        };
        let (mut left, mut have) = (kinds, 0);
        while left != 0 {
            let k = left.trailing_zeros() as usize;
            have |= u64::from(row.get(k).is_some_and(|&c| c > 0)) << k;
            left &= left - 1;
        }
        have
    }

    /// The face-down tiles.
    pub fn supply(&self) -> &TileSupply {
        &self.supply
    }

    /// The pending decision.
    pub fn decision(&self) -> Decision {
        self.decision
    }

    /// Whether the pending decision's offers are `placements` (given by index), not the
    /// `offered` list: a tile step, or a placements prompt
    /// ([`Ctx::prompt_placements`](crate::Ctx::prompt_placements)) asked without a list
    /// (one listed for prompt filters or free actions has them in `offered`).
    #[inline]
    pub(crate) fn offers_cells(&self) -> bool {
        match self.decision.kind {
            DecisionKind::PlaceTile { .. } => true,
            DecisionKind::Prompt(p) => p.places.is_some() && self.offered.is_empty(),
            _ => false,
        }
    }

    /// The actions offered for the pending decision.
    pub fn offered(&self) -> &[Action] {
        if self.offers_cells() {
            self.placement_actions
                .get_or_init(|| self.placement_action_list())
        } else {
            &self.offered
        }
    }

    /// The offered actions in the order of [`GameState::offered`], without building the
    /// placement-action cache: for a reader that scans a state's offer once (a search
    /// walking a copy's tree, refilled before the next scan), where building the list is
    /// an allocation and a write per placement for one read of each.
    pub fn offered_iter(&self) -> impl Iterator<Item = Action> + '_ {
        let (cells, list): (&[PlacementCell], &[Action]) = if self.offers_cells() {
            (&self.placements, &[])
        } else {
            (&[], &self.offered)
        };
        cells
            .iter()
            .flat_map(|c| (0..c.rotation_count()).map(move |i| c.nth_placement(i)))
            .chain(list.iter().copied())
    }

    /// `placements` expanded into actions (what the placement-action cache holds).
    pub(crate) fn placement_action_list(&self) -> Vec<Action> {
        let mut v = Vec::with_capacity(self.placement_count);
        self.push_placement_actions(&mut v);
        v
    }

    /// Appends `placements` expanded into actions, in cell then rotation order.
    pub(crate) fn push_placement_actions(&self, out: &mut Vec<Action>) {
        for c in &self.placements {
            c.push_placements(out);
        }
    }

    /// Number of offered actions (cheap even for a tile step).
    pub fn offered_len(&self) -> usize {
        match self.offers_cells() {
            true => self.placement_count,
            false => self.offered.len(),
        }
    }

    /// The `i`-th offered action, in the order of [`GameState::offered`].
    pub fn offered_at(&self, mut i: usize) -> Option<Action> {
        match self.offers_cells() {
            true => {
                // `placement_count` is the sum of the cells' rotation counts, so an action
                // in the second half is found from the end: half the walk on average for a
                // uniform pick (a random bot's, a playout's).
                let total = self.placement_count;
                debug_assert_eq!(
                    total,
                    self.placements
                        .iter()
                        .map(PlacementCell::rotation_count)
                        .sum::<usize>()
                );
                if i >= total / 2 && i < total {
                    let mut k = total - 1 - i;
                    for c in self.placements.iter().rev() {
                        let n = c.rotation_count();
                        if k < n {
                            return Some(c.nth_placement(n - 1 - k));
                        }
                        k -= n;
                    }
                    return None;
                }
                for c in &self.placements {
                    let n = c.rotation_count();
                    if i < n {
                        return Some(c.nth_placement(i));
                    }
                    i -= n;
                }
                None
            }
            false => self.offered.get(i).copied(),
        }
    }

    /// Whether `a` is one of the offered actions.
    pub fn is_offered(&self, a: &Action) -> bool {
        if self.offers_cells() {
            return match a {
                Action::Place { pos, rotation } => self
                    .placements
                    .iter()
                    .any(|c| c.pos == *pos && c.rotations & (1 << rotation.quarters()) != 0),
                _ => false,
            };
        }
        match a {
            Action::Move { figure, segment } => {
                self.offered.contains(a) || self.offered_move_onto_feature(*figure, *segment)
            }
            _ => self.offered.contains(a),
        }
    }

    /// A move names a feature: any segment of the feature an offered move of `figure`
    /// targets is the same move (the figure then stands on the segment named). This is
    /// how a save or record may point at any tile of a city being scored.
    fn offered_move_onto_feature(&self, figure: FigureId, segment: SegmentId) -> bool {
        let g = &self.graph;
        if segment.index() >= g.len() {
            return false;
        }
        let target = g.feature_of(segment);
        self.offered.iter().any(|o| {
            matches!(o, Action::Move { figure: f, segment: s }
                if *f == figure && g.feature_of(*s) == target)
        })
    }

    /// The legal placements of the drawn tile by cell (empty outside a tile step).
    pub fn placement_cells(&self) -> &[PlacementCell] {
        match self.decision.kind {
            DecisionKind::PlaceTile { .. } => &self.placements,
            _ => &[],
        }
    }

    /// The drawn tile while prompts queued when it was drawn are being asked (it is placed
    /// once they are answered, unless an answer sent it back with
    /// [`Ctx::return_drawn_tile`](crate::Ctx::return_drawn_tile)).
    pub fn revealed_tile(&self) -> Option<TileKindId> {
        self.revealed
    }

    /// The segment an overlay added since the last tile was placed (a bridge; by the
    /// placement itself when the overlay made it legal), if any.
    pub fn last_overlay(&self) -> Option<SegmentId> {
        self.last_overlay
    }

    /// The tile placed last (the one the deployment step is about).
    pub fn last_placed(&self) -> Option<PlacedIndex> {
        self.last_placed
    }

    /// The action the active player chose in the deployment step of the tile placed last,
    /// its latest answer if the step was repeated; `None` before that step was a decision
    /// (or when it was none: only passing was possible). An expansion that adds a step
    /// after the deployment step (a second follower, say) reads whether the player passed.
    pub fn deploy_choice(&self) -> Option<Action> {
        self.deploy_choice
    }

    /// Who placed the last tile in this game (none yet in a set-up position). Once the
    /// turn has passed on, the active player is the next one; at the end of a game whose
    /// supply ran out mid double turn, it is still the placer.
    pub fn last_placer(&self) -> Option<PlayerId> {
        self.last_placer
    }

    /// Every score event so far, in order.
    pub fn events(&self) -> &[ScoreEvent] {
        &self.events
    }

    /// The score events of this turn part: since this turn began, or since its second
    /// part began (a builder's double turn, CO-8); at final scoring, since the last
    /// turn part began. JCZ's `getCurrentTurnPartEvents`.
    pub fn turn_part_events(&self) -> &[ScoreEvent] {
        self.events
            .get(self.part_events as usize..)
            .unwrap_or_default()
    }

    /// The tiles of [`GameState::discards`], in order.
    pub fn discarded(&self) -> Vec<TileKindId> {
        self.discards.iter().map(|d| d.tile).collect()
    }

    /// Drawn tiles removed from the game unplayed, in order, with the reason.
    pub fn discards(&self) -> &[Discard] {
        &self.discards
    }

    /// Whether final scoring is running or done.
    pub fn in_final_scoring(&self) -> bool {
        self.final_scoring
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.stage == Stage::Over
    }

    /// Prompts still queued behind the current decision.
    pub fn queued_prompts(&self) -> impl Iterator<Item = &Prompt> {
        self.prompts.iter()
    }

    /// The segment with local index `local` on the tile at `pos`.
    pub fn segment_at(&self, pos: Pos, local: u8) -> Option<SegmentId> {
        let t = self.board.at(pos)?;
        let seg = t.segment(usize::from(local));
        (local < t.segment_count
            && seg.index() < self.graph.len()
            && self.graph.segment(seg).tile == self.board.index_at(pos)?)
        .then_some(seg)
    }

    /// Figures standing on the feature of segment `s` (sharing and neutral ones included),
    /// in figure order.
    pub fn figures_on(&self, s: SegmentId) -> impl Iterator<Item = FigureId> + '_ {
        let f = self.graph.feature_of(s);
        self.figures
            .iter()
            .enumerate()
            .filter_map(move |(i, fig)| match fig.loc {
                FigureLoc::On(t) if self.graph.feature_of(t) == f => Some(FigureId(i as u16)),
                _ => None,
            })
    }

    /// Reads a state slot (`index` = player or figure index for those scopes).
    #[inline]
    pub fn slot(&self, slot: SlotId, index: usize) -> i64 {
        self.slots[self.slot_offsets[slot.0 as usize] as usize + index]
    }

    /// Every value of a state slot, by index: one for a game slot, one per player or per
    /// figure (`FigureId` order). A scan of a figure slot then reads one slice instead of a
    /// lookup per figure.
    #[inline]
    pub fn slot_values(&self, slot: SlotId) -> &[i64] {
        let i = slot.0 as usize;
        let start = self.slot_offsets[i] as usize;
        let end = self
            .slot_offsets
            .get(i + 1)
            .map_or(self.slots.len(), |e| *e as usize);
        &self.slots[start..end]
    }

    /// Reads one value of a state slot.
    #[inline]
    pub fn get(&self, at: SlotRef) -> i64 {
        self.slot(at.slot, at.index)
    }

    #[inline]
    pub(crate) fn set(&mut self, at: SlotRef, value: i64) {
        let o = self.slot_offsets[at.slot.0 as usize] as usize + at.index;
        self.slots[o] = value;
    }

    /// Room for a whole game of `tiles` tiles in the vectors a game grows, so that turns do
    /// not reallocate: at set-up, and again on a copy of a set-up ([`crate::GameTemplate`]),
    /// since a clone keeps only the lengths.
    pub(crate) fn reserve_for_game(&mut self, tiles: usize) {
        fn total<T>(v: &mut Vec<T>, n: usize) {
            v.reserve(n.saturating_sub(v.len()));
        }
        self.graph.reserve_total(tiles * 4 + 16);
        Arc::make_mut(&mut self.board).reserve_total(96, 256);
        total(&mut self.offered, 64);
        total(&mut self.placements, 256);
        total(&mut self.events, 64);
    }

    pub(crate) fn init_slots(&mut self, rules: &Ruleset) {
        self.slots.clear();
        self.slot_offsets.clear();
        // Sized once: an expansion may declare dozens of slots (the Tower: 71), and growing
        // the vectors slot by slot cost more than the rest of the set-up.
        let per_scope = |scope: SlotScope| match scope {
            SlotScope::Game => 1,
            SlotScope::Player => self.players.len(),
            SlotScope::Figure => self.figures.len(),
        };
        let values: usize = rules.slots().iter().map(|d| per_scope(d.scope)).sum();
        self.slot_offsets.reserve_exact(rules.slots().len());
        self.slots.reserve_exact(values);
        for def in rules.slots() {
            self.slot_offsets.push(self.slots.len() as u32);
            self.slots
                .extend(std::iter::repeat_n(def.default, per_scope(def.scope)));
        }
    }

    /// Offers the placements of the drawn `tile` (computed already). The offered-action
    /// buffer is not used in a tile step, so it is emptied: a state clone then copies none.
    pub(crate) fn offer_tile(&mut self, tile: TileKindId) {
        self.offered.clear();
        self.decision = Decision {
            player: self.active,
            kind: DecisionKind::PlaceTile { tile },
        };
    }

    pub(crate) fn discard(&mut self, tile: TileKindId, reason: DiscardReason) {
        self.discards.push(Discard {
            tile,
            turn: self.turn,
            player: self.active,
            reason,
        });
    }

    pub(crate) fn award(&mut self, player: PlayerId, points: i32, source: ScoreSource) {
        self.add_score(player, points, source, false, false);
    }

    /// [`GameState::award`] of points from a scoring on the board ([`ScoreEvent::scoring`]).
    pub(crate) fn award_scoring(&mut self, player: PlayerId, points: i32, source: ScoreSource) {
        self.add_score(player, points, source, false, true);
    }

    /// A feature's scoring (always [`ScoreEvent::scoring`]).
    pub(crate) fn award_feature(
        &mut self,
        player: PlayerId,
        points: i32,
        source: ScoreSource,
        complete: bool,
    ) {
        self.add_score(player, points, source, complete, true);
    }

    fn add_score(
        &mut self,
        player: PlayerId,
        points: i32,
        source: ScoreSource,
        complete: bool,
        scoring: bool,
    ) {
        self.players[player.index()].score += points;
        self.events.push(ScoreEvent {
            player,
            source,
            points,
            complete,
            final_scoring: self.final_scoring,
            turn: self.turn,
            scoring,
        });
    }

    /// Puts a figure from supply on a segment; `None` if the supply has none of that kind.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
    pub(crate) fn deploy(
        &mut self,
        _rules: &Ruleset,
        player: PlayerId,
        kind: FigureKindId,
        segment: SegmentId,
    ) -> Option<FigureId> {
        let k = player.index() * self.figure_kinds + kind.0 as usize;
        if self.in_supply[k] == 0 {
            return None;
        }
        let i = self
            .figures
            .iter()
            .position(|f| f.owner == player && f.kind == kind && f.loc == FigureLoc::Supply)?;
        self.in_supply[k] -= 1;
        self.figures[i].loc = FigureLoc::On(segment);
        self.occupy(self.figures[i], segment, 1);
        Some(FigureId(i as u16))
    }

    /// Changes the occupant count of `segment`'s feature for figure `f` (figures that
    /// share features are not counted).
    #[inline]
    fn occupy(&mut self, f: Figure, segment: SegmentId, delta: i32) {
        if !self.sharing.contains(f.kind) {
            self.graph.add_occupant(segment, delta);
        }
    }

    /// The supply counter of `f`'s owner and kind; `None` for a neutral figure, which is
    /// in nobody's supply.
    #[inline]
    fn supply_count(&mut self, f: Figure) -> Option<&mut u8> {
        let seat = f.seat()?;
        self.in_supply
            .get_mut(seat.index() * self.figure_kinds + f.kind.0 as usize)
    }

    pub(crate) fn move_figure(&mut self, figure: FigureId, segment: SegmentId) {
        let f = self.figures[figure.0 as usize];
        match f.loc {
            FigureLoc::On(old) => self.occupy(f, old, -1),
            FigureLoc::Supply => {
                if let Some(n) = self.supply_count(f) {
                    *n -= 1;
                }
            }
            FigureLoc::Removed => {}
        }
        self.figures[figure.0 as usize].loc = FigureLoc::On(segment);
        self.occupy(f, segment, 1);
    }

    /// Sends a figure back to supply (a neutral one off the board); returns whether it
    /// was on the board.
    pub(crate) fn unplace(&mut self, figure: FigureId) -> bool {
        let f = self.figures[figure.0 as usize];
        if let FigureLoc::On(seg) = f.loc {
            self.occupy(f, seg, -1);
            self.figures[figure.0 as usize].loc = FigureLoc::Supply;
            if let Some(n) = self.supply_count(f) {
                *n += 1;
            }
            true
        } else {
            false
        }
    }

    /// Takes a figure off the board into [`FigureLoc::Removed`] (not into its owner's
    /// supply); returns whether it was on the board.
    pub(crate) fn lift(&mut self, figure: FigureId) -> bool {
        let f = self.figures[figure.0 as usize];
        if let FigureLoc::On(seg) = f.loc {
            self.occupy(f, seg, -1);
            self.figures[figure.0 as usize].loc = FigureLoc::Removed;
            true
        } else {
            false
        }
    }

    /// Puts a [`FigureLoc::Removed`] figure back into its owner's supply (a neutral one
    /// off the board); returns whether it was removed.
    pub(crate) fn restore(&mut self, figure: FigureId) -> bool {
        let f = self.figures[figure.0 as usize];
        if f.loc == FigureLoc::Removed {
            self.figures[figure.0 as usize].loc = FigureLoc::Supply;
            if let Some(n) = self.supply_count(f) {
                *n += 1;
            }
            true
        } else {
            false
        }
    }

    pub(crate) fn add_virtual(
        &mut self,
        _rules: &Ruleset,
        kind: FeatureKindId,
        slot: u8,
        complete: bool,
        anchor: Option<Pos>,
    ) -> SegmentId {
        self.graph.add_segment(
            SegmentNode {
                kind,
                pos: anchor.unwrap_or(Pos::new(0, 0)),
                tile: VIRTUAL_TILE,
                local: slot,
                sides: SideSet::EMPTY,
                halves: HalfSet::EMPTY,
                pennants: 0,
                anchored: anchor.is_some(),
            },
            FeatureTotals {
                completable: complete,
                open: 0,
                ..FeatureTotals::default()
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::unshared_mut;
    use std::sync::Arc;

    /// `unshared_mut` is `Arc::make_mut`: an `Arc` with one holder is written in place, a
    /// shared one (or one with a weak reference) is copied first and the other holders
    /// keep the old value.
    #[test]
    fn unshared_mut_is_make_mut() {
        let mut a = Arc::new(vec![1, 2]);
        let at = Arc::as_ptr(&a);
        unshared_mut(&mut a).push(3);
        assert_eq!(Arc::as_ptr(&a), at, "one holder: in place");
        let b = Arc::clone(&a);
        unshared_mut(&mut a).push(4);
        assert_eq!(*a, vec![1, 2, 3, 4]);
        assert_eq!(
            *b,
            vec![1, 2, 3],
            "shared: copied, the other holder keeps its value"
        );
        let w = Arc::downgrade(&a);
        unshared_mut(&mut a).push(5);
        assert_eq!(*a, vec![1, 2, 3, 4, 5]);
        assert!(w.upgrade().is_none_or(|v| *v == vec![1, 2, 3, 4]));
        assert_eq!((Arc::strong_count(&a), Arc::weak_count(&a)), (1, 0));
    }
}
