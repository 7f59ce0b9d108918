//! Copying a game's state. Bots copy a state thousands of times per decision (greedy tries
//! every offer on a copy, MCTS starts every playout from one), so besides `clone` there is
//! a `clone_from` that copies into an existing state's buffers without allocating (issue
//! 33). The large, rarely written parts (the board, the feature graph's segments) are
//! shared between copies until one places a tile (copy on write, see `GameState::board`).

use super::*;
use crate::copy::copy_in_pieces;
use crate::state::CopyBase;

/// `Clone` for [`GameState`], field by field. Both methods destructure the state without
/// `..`, so a new field fails to compile until it is listed here. Fields after `;` are
/// copied by the named function in `clone_from`: their types' own `clone_from` would
/// allocate (a derived `Clone` has no buffer-reusing `clone_from`), or the lists a search
/// copies at every playout are copied in pieces ([`copy_in_pieces`]). The feature graph is
/// copied first, by the function [`GameState::copy_with_graph`] is given (a refill undoes
/// what its copy wrote to the union-find instead of copying it).
macro_rules! clone_fields {
    ($($f:ident),* $(,)?; $($g:ident => $copy:path),* $(,)?) => {
        impl Clone for GameState {
            fn clone(&self) -> GameState {
                let GameState { graph, $($f,)* $($g),* } = self;
                GameState { graph: graph.clone(), $($f: $f.clone(),)* $($g: $g.clone()),* }
            }

            fn clone_from(&mut self, source: &GameState) {
                self.copy_with_graph(source, FeatureGraph::clone_from);
            }
        }

        impl GameState {
            /// `clone_from`, the feature graph copied by `copy_graph`.
            #[inline]
            fn copy_with_graph(
                &mut self,
                source: &GameState,
                copy_graph: impl FnOnce(&mut FeatureGraph, &FeatureGraph),
            ) {
                let GameState { graph, $($f,)* $($g),* } = source;
                copy_graph(&mut self.graph, graph);
                $(self.$f.clone_from($f);)*
                $($copy(&mut self.$g, $g);)*
            }
        }
    };
}

clone_fields!(
    active,
    turn,
    board,
    in_supply,
    figure_kinds,
    figures_per_player,
    sharing,
    rng,
    stage,
    decision,
    placement_count,
    offered_key,
    prompts,
    turn_prompts,
    prompt_overflow,
    supply_touched,
    last_placed,
    last_overlay,
    last_placer,
    deploy_choice,
    open_window,
    extra_part,
    revealed,
    instead,
    score_anyway,
    more_turns,
    whole_turns,
    stop_before_draw,
    stop_before_scoring,
    end_passing,
    next_offer,
    part_events,
    discards,
    final_scoring,
    candidates,
    completed,
    final_strengths,
    final_cities,
    placement_memo;
    players => copy_players,
    figures => copy_in_pieces,
    offered => copy_in_pieces,
    known_at => no_known_decision,
    known_offer => no_known_offer,
    placements => copy_in_pieces,
    events => copy_in_pieces,
    slots => copy_in_pieces,
    slot_offsets => copy_in_pieces,
    copy_base => forget_copy_base,
    supply => copy_supply,
    draft => copy_draft,
    placement_actions => reset_placement_actions,
);

impl GameState {
    /// `clone_from`, but the board and the feature graph's segments are copied into this
    /// state's own buffers (when nothing else shares them) instead of being shared with
    /// `source`: a simulation's next game from the set-up state
    /// ([`GameTemplate::game_into`]), which places tiles at once and would otherwise copy
    /// them out of the shared ones into new buffers.
    ///
    /// A refill from the source this state was last refilled from, while that source
    /// still holds the same board and segments (a search bot's position: greedy's before
    /// every placement it tries, MCTS's root before every playout), undoes the tiles
    /// placed since ([`crate::board::Board::rewind_to`], [`FeatureGraph::rewind_segments`]) instead of
    /// copying the whole grid and every segment ([`CopyBase`]). If `journal` (a search's
    /// try, not a simulation's next game), the union-find entries the copy writes are
    /// noted, so that the next such refill restores only those
    /// ([`FeatureGraph::refill_from`]).
    pub(crate) fn refill_from(&mut self, source: &GameState, journal: bool) {
        let mut board = Arc::clone(&self.board);
        let segments = self.graph.segments_handle();
        let base = std::mem::take(&mut self.copy_base);
        let mut links = None;
        self.copy_with_graph(source, |g, s| {
            links = Some(g.refill_from(s, base.links, journal));
        });
        if journal {
            self.copy_base.links = links;
        }
        if !Arc::ptr_eq(&board, &self.board) {
            if let Some(b) = Arc::get_mut(&mut board) {
                let same = base.board.filter(|base| Arc::ptr_eq(base, &source.board));
                if !same.as_ref().is_some_and(|base| b.rewind_to(base)) {
                    b.clone_from(&source.board);
                }
                self.board = board;
                self.copy_base.board = Some(same.unwrap_or_else(|| Arc::clone(&source.board)));
            }
        }
        if self.graph.rewind_segments(segments, base.segments.as_ref()) {
            self.copy_base.segments = Some(source.graph.segments_handle());
        }
        debug_assert!(
            self.board == source.board && self.graph.graph() == source.graph.graph(),
            "a refill equals its source"
        );
    }
}

/// A plain copy's board and segments are the source's (shared), not its own copies of a
/// refill's source.
fn forget_copy_base(to: &mut CopyBase, _: &CopyBase) {
    *to = CopyBase::default();
}

/// The offer given back to a decision ([`crate::Game::apply_known`]) is set only while
/// that call runs, which empties it again: a copy starts without one rather than copying
/// it (a checkpoint taken during the call is restored before the call ends).
fn no_known_decision(to: &mut Option<crate::state::OfferAt>, _: &Option<crate::state::OfferAt>) {
    *to = None;
}

/// See [`no_known_decision`].
fn no_known_offer(to: &mut Vec<Action>, _: &Vec<Action>) {
    to.clear();
}

/// Players, reusing the names' buffers.
fn copy_players(to: &mut Vec<Player>, from: &[Player]) {
    to.truncate(from.len());
    for (t, f) in to.iter_mut().zip(from) {
        t.name.clone_from(&f.name);
        t.score = f.score;
    }
    let n = to.len();
    to.extend_from_slice(&from[n..]);
}

/// The supply, reusing each group's name and tile list.
fn copy_supply(to: &mut TileSupply, from: &TileSupply) {
    let TileSupply {
        groups,
        mode,
        draws_left,
        hidden,
    } = from;
    to.groups.truncate(groups.len());
    for (t, f) in to.groups.iter_mut().zip(groups) {
        let crate::supply::SupplyGroup {
            name,
            tiles,
            active,
        } = f;
        t.name.clone_from(name);
        t.tiles.clone_from(tiles);
        t.active = *active;
    }
    let n = to.groups.len();
    to.groups.extend_from_slice(&groups[n..]);
    to.mode = *mode;
    to.draws_left = *draws_left;
    to.hidden = *hidden;
}

/// The scoring draft, reusing its lists.
fn copy_draft(to: &mut ScoreDraft, from: &ScoreDraft) {
    let ScoreDraft {
        final_scoring,
        placer,
        features,
        awards,
    } = from;
    to.final_scoring = *final_scoring;
    to.placer = *placer;
    to.features.clone_from(features);
    to.awards.clone_from(awards);
}

/// The placements as actions are a cache of `placements`, built on first request: a copy
/// starts without it rather than copying a list it will most likely never read (a bot
/// applies an offer by index).
fn reset_placement_actions(
    to: &mut std::sync::OnceLock<Vec<Action>>,
    _: &std::sync::OnceLock<Vec<Action>>,
) {
    to.take();
}

impl Clone for Game {
    fn clone(&self) -> Game {
        Game {
            rules: Arc::clone(&self.rules),
            state: self.state.clone(),
            checkpoints: self.checkpoints,
            broken: self.broken.clone(),
            spare: None,
        }
    }

    /// Copies `source` into this game, reusing its buffers: what a bot does to try one
    /// more action from the same position.
    fn clone_from(&mut self, source: &Game) {
        self.copy_with(source, GameState::clone_from);
    }
}

impl Game {
    /// [`Clone::clone_from`], except that the board and the feature graph's segments are
    /// copied into this game's own buffers (when nothing else holds them) instead of being
    /// shared with `source`. The state is the same; only who owns the buffers differs.
    ///
    /// For a copy that goes on to place a tile (a search playout, a bot trying a
    /// placement): a shared board is copied into new buffers at the first placement (copy
    /// on write) and those are freed again at the next `clone_from`, one allocation and
    /// one free of each per copy. A copy that places nothing is cheaper with `clone_from`,
    /// which copies neither.
    pub fn refill_from(&mut self, source: &Game) {
        self.copy_with(source, |to, from| to.refill_from(from, false));
        self.note_farm_borders();
    }

    /// Makes this game keep, across its refills from one position ([`Game::refill_from`],
    /// [`Game::refill_for_try`]), every farm's bordering features as that position has
    /// them, noted at the first refill from it: the final scoring of a copy then reads the
    /// completed cities of every farm the copy has not joined to a new segment from those
    /// instead of walking the farm's segments (the farm walk was the largest part of an
    /// MCTS playout's valuation with many expansions, issue 33). Scores are the same
    /// either way. For a search copy refilled from one position many times and ended each
    /// time ([`Game::end_now`]); off by default, and a clone starts without it.
    pub fn keep_farm_borders(&mut self, on: bool) {
        self.state.graph.keep_farm_borders(on);
    }

    /// After a refill: notes the source's farm borders if kept borders were asked for and
    /// the source is not the one they describe ([`Game::keep_farm_borders`]).
    #[inline]
    fn note_farm_borders(&mut self) {
        if self.state.graph.farm_borders_due() {
            let rules = &self.rules;
            self.state
                .graph
                .note_farm_borders(|k| rules.kind(k).scoring == Scoring::Farm);
        }
    }

    /// [`Game::refill_from`] for a short try from one position, refilled again and again
    /// (greedy's candidates, MCTS's playouts): the union-find entries the copy writes are
    /// noted, up to 64, so that the next such refill from the same, unchanged source
    /// restores only those instead of copying every entry (worth it also for a try that
    /// places nothing, where `clone_from` would copy every entry). A playout ended in the
    /// final scoring stays within the 64 too: that scoring writes the roots of occupied
    /// features only (a nine-expansion MCTS decision: 9% fewer instructions than with a
    /// full copy of the entries at every playout).
    pub fn refill_for_try(&mut self, source: &Game) {
        self.copy_with(source, |to, from| to.refill_from(from, true));
        self.note_farm_borders();
    }

    /// Copies `source` into this game, its state with `copy_state`: the one place that
    /// lists a game's fields for a copy, so that a new field fails to compile here.
    #[inline]
    fn copy_with(&mut self, source: &Game, copy_state: impl FnOnce(&mut GameState, &GameState)) {
        let Game {
            rules,
            state,
            checkpoints,
            broken,
            spare: _,
        } = source;
        if !Arc::ptr_eq(&self.rules, rules) {
            self.rules = Arc::clone(rules);
        }
        copy_state(&mut self.state, state);
        self.checkpoints = *checkpoints;
        self.broken.clone_from(broken);
    }
}
