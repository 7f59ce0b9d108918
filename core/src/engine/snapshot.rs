//! Copying a game's state. Bots copy a state thousands of times per decision (greedy tries
//! every offer on a copy, MCTS starts every playout from one), so besides `clone` there is
//! a `clone_from` that copies into an existing state's buffers without allocating (issue
//! 33). The large, rarely written parts (the board, the feature graph's segments) are
//! shared between copies until one places a tile (copy on write, see `GameState::board`).

use super::*;

/// `Clone` for [`GameState`], field by field. Both methods destructure the state without
/// `..`, so a new field fails to compile until it is listed here.
macro_rules! clone_fields {
    ($($f:ident),* $(,)?) => {
        impl Clone for GameState {
            fn clone(&self) -> GameState {
                let GameState { $($f),* } = self;
                GameState { $($f: $f.clone()),* }
            }

            fn clone_from(&mut self, source: &GameState) {
                let GameState { $($f),* } = source;
                $(self.$f.clone_from($f);)*
            }
        }
    };
}

clone_fields!(
    players,
    active,
    turn,
    board,
    graph,
    figures,
    in_supply,
    figure_kinds,
    figures_per_player,
    sharing,
    supply,
    rng,
    stage,
    decision,
    offered,
    placements,
    placement_count,
    placement_actions,
    prompts,
    turn_prompts,
    prompt_overflow,
    supply_touched,
    last_placed,
    last_placer,
    extra_part,
    revealed,
    instead,
    score_anyway,
    more_turns,
    events,
    discards,
    slots,
    slot_offsets,
    draft,
    final_scoring,
    candidates,
    completed,
    scratch_actions
);

impl Clone for Game {
    fn clone(&self) -> Game {
        Game {
            rules: Arc::clone(&self.rules),
            state: self.state.clone(),
            checkpoints: self.checkpoints,
            broken: self.broken.clone(),
        }
    }

    /// Copies `source` into this game, reusing its buffers: what a bot does to try one
    /// more action from the same position.
    fn clone_from(&mut self, source: &Game) {
        let Game {
            rules,
            state,
            checkpoints,
            broken,
        } = source;
        if !Arc::ptr_eq(&self.rules, rules) {
            self.rules = Arc::clone(rules);
        }
        self.state.clone_from(state);
        self.checkpoints = *checkpoints;
        self.broken.clone_from(broken);
    }
}
