//! [`FUNCTIONS`]: every function of the game API, for the documentation.

/// A registered function, for the documentation.
#[derive(Clone, Copy, Debug)]
pub struct FunctionDoc {
    /// Group: `read`, `rules`, `command`, `setup`, `action`.
    pub group: &'static str,
    /// Signature as a script writes it.
    pub signature: &'static str,
    /// What it does.
    pub doc: &'static str,
}

macro_rules! doc {
    ($g:literal, $s:literal, $d:literal) => {
        FunctionDoc {
            group: $g,
            signature: $s,
            doc: $d,
        }
    };
}

/// Every game function a script can call (the `docs/modding.md` tables come from this).
pub const FUNCTIONS: &[FunctionDoc] = &[
    doc!("rules", "option(key) -> bool | int | string", "An option's value: `key` without a dot is one of your own options or else a base-game option (`farmScoring`), with a dot any option (`count.countMove`)."),
    doc!("rules", "has_expansion(id) -> bool", "Whether an expansion is loaded in this game."),
    doc!("rules", "has_figure_kind(name) -> bool", "Whether a figure kind exists (`builder`, `mayor`, …)."),
    doc!("rules", "tile_features(tile) -> array", "Feature kind names of a tile's segments (`[\"city\", \"road\", \"field\"]`)."),
    doc!("rules", "tile_has_feature(tile, kind) -> bool", "Whether a tile has a segment of that feature kind."),
    doc!("rules", "tile_has_tag(tile, tag) -> bool", "Whether a tile carries a tag of its tile file."),
    doc!("read", "players() -> int", "Number of players; players are seats 0..players()."),
    doc!("read", "active_player() -> int", "The seat whose turn it is."),
    doc!("read", "turn() -> int", "The turn counter (0-based)."),
    doc!("read", "score(player) -> int", "A player's current score."),
    doc!("read", "in_final_scoring() -> bool", "Whether final scoring has begun."),
    doc!("read", "tiles_left() -> int", "Tiles still to draw."),
    doc!("read", "revealed_tile() -> string | ()", "The drawn tile while the prompts you queued in `on_tile_drawn` are asked, before it is placed; `()` otherwise."),
    doc!("read", "last_placed() -> map | ()", "The last placed tile: `#{x, y, tile, rotation, player}`."),
    doc!("read", "tile_at(x, y) -> string | ()", "The tile id on a cell."),
    doc!("read", "segments_at(x, y) -> array", "The segment ids of the tile on a cell (empty if none)."),
    doc!("read", "segment_kind(segment) -> string", "The feature kind of a segment."),
    doc!("read", "segment_cell(segment) -> map | ()", "`#{x, y}` of a segment's tile, `()` for a virtual feature."),
    doc!("read", "feature_of(segment) -> int", "The feature a segment belongs to now, as its representative segment: two segments are in one feature when their `feature_of` agree (features merge as tiles are placed, so compare within one hook call; draft items carry the same id as `segment`)."),
    doc!("read", "feature_complete(segment) -> bool", "Whether the feature of a segment is complete."),
    doc!("read", "feature_scored(segment) -> bool", "Whether it has been scored."),
    doc!("read", "feature_tiles(segment) -> int", "Distinct tiles of the feature."),
    doc!("read", "feature_pennants(segment) -> int", "Pennants in the feature."),
    doc!("read", "feature_figures(segment) -> array", "Figures standing on the feature."),
    doc!("read", "figures() -> array", "Every figure in play (on a feature), in figure order."),
    doc!("read", "figures_of_kind(kind) -> array", "Every figure of the figure kind `kind` in play, in figure order (empty if the kind is not in the rules)."),
    doc!("read", "segments_of_kind(kind) -> array", "Every segment of the feature kind `kind` on the board's tiles, in placement order (it looks at the whole board: use it in hooks that run rarely)."),
    doc!("read", "figure_owner(figure) -> int", "Its owner's seat, or -1 for a neutral figure."),
    doc!("read", "is_neutral(figure) -> bool", "Whether it belongs to nobody (a figure declared with `neutral = n`)."),
    doc!("read", "neutral_figures(kind) -> array", "Every copy of the neutral figure kind `kind`, on the board or not, in figure order."),
    doc!("read", "figure_kind(figure) -> string", "Its kind (`small-follower`, `count`, …)."),
    doc!("read", "is_follower(figure) -> bool", "Whether its kind is a follower."),
    doc!("read", "in_play(figure) -> bool", "Whether it stands on a feature."),
    doc!("read", "figure_segment(figure) -> int", "The segment it stands on, or -1."),
    doc!("read", "figure_role(figure) -> string", "The feature kind it stands on (`city` = knight, `road` = thief, `field` = farmer, `cloister` = monk, `shrine` = heretic), or \"\"."),
    doc!("read", "figure_cell(figure) -> map | ()", "`#{x, y}` of its tile, `()` if virtual or not in play."),
    doc!("read", "strength(figure) -> int", "Its strength in half-units, every expansion's changes included."),
    doc!("read", "supply_count(player, kind) -> int", "Figures of a kind in a player's supply."),
    doc!("read", "deployments(player, x, y) -> array", "The legal `deploy` actions of a player on the tile at (x, y) under the base rules."),
    doc!("read", "state(name) -> int", "A game-scoped state value you declared."),
    doc!("read", "expansion_state(expansion, name) -> int", "A game-scoped state value of another loaded expansion (e.g. `expansion_state(\"princess-dragon\", \"fairy-figure\")`); 0 when that expansion is not loaded or has no such state."),
    doc!("read", "player_state(name, player) -> int", "A player-scoped state value."),
    doc!("read", "figure_state(name, figure) -> int", "A figure-scoped state value."),
    doc!("command", "set_state(name, value)", "Sets a game-scoped state value."),
    doc!("command", "set_player_state(name, player, value)", "Sets a player-scoped state value."),
    doc!("command", "set_figure_state(name, figure, value)", "Sets a figure-scoped state value."),
    doc!("command", "award(player, points)", "Points outside feature scoring, labelled with your expansion id."),
    doc!("command", "award(player, points, label)", "The same with a label declared in setup()."),
    doc!("command", "deploy(player, action)", "Carries out a `deploy` action for a player (out of turn too); it must be legal: a follower where the base rules allow it, a `deploy = \"script\"` figure on a kind of its `stands-on`, unscored, unoccupied unless it `shares`. A refusal says why."),
    doc!("command", "place_neutral(kind, segment) -> int", "Puts a copy of the neutral figure kind `kind` that is off the board onto a segment of a kind of its `stands-on` whose feature is not scored (occupied or not); returns the figure."),
    doc!("command", "move_figure(figure, segment)", "Moves a figure in play onto an unscored feature, unoccupied unless the figure `shares` (neutral figures always do)."),
    doc!("command", "return_figure(figure)", "Returns a figure in play to its owner's supply (a neutral figure goes off the board)."),
    doc!("command", "prompt(player, code, arg)", "Queues a decision for a player; `prompt_actions` lists its choices."),
    doc!("command", "prompt_next(player, code, arg)", "The same, asked before anything already queued."),
    doc!("command", "return_drawn_tile() -> bool", "While the prompts queued in `on_tile_drawn` are asked: puts the drawn tile back into the supply (shuffled in) and the player draws again; `false` if no tile is waiting."),
    doc!("command", "random(n) -> int", "A number in 0..n from the game's seeded random generator."),
    doc!("setup", "declare_state(name, scope, default)", "Declares an integer state value; `scope` is \"game\", \"player\" or \"figure\"."),
    doc!("setup", "declare_verb(name)", "Declares an action verb of yours."),
    doc!("setup", "declare_label(name)", "Declares a score label for `award`."),
    doc!("setup", "offer(verb, player_state)", "Offers your verb natively in every deployment step of a player whose `player_state` is non-zero (no script call until chosen; then `apply_action`)."),
    doc!("setup", "offer(verb, player_state, effects)", "The same; when chosen, the chooser's player-scoped states in `effects` (`#{token: 1}`) are set natively, and `apply_action` runs only if you define it."),
    doc!("setup", "offer_per_figure(verb, player_state, figure_state, roles)", "The same, once per figure in play on a tile whose `figure_state` is 0 and whose role is in `roles` (followers: the feature kind they stand on; other figures: their kind)."),
    doc!("setup", "offer_per_figure(verb, player_state, figure_state, roles, effects)", "The same with `effects` on the chooser's player-scoped states."),
    doc!("setup", "offer_protect(verb, expansion, state)", "The per-figure offer `verb` skips the figure whose id + 1 is in game-scoped state `state` of another `expansion` (when it is loaded), unless the chooser owns that figure (Promotions: no downgrading disc beside the fairy)."),
    doc!("setup", "reaction_deploy(window, player_state, order, code)", "Out of turn: in `window` (\"after-deploy\", …) every other player whose `player_state` is non-zero, in `order` (\"fewest-points\" or \"clockwise\" from the active player's left), may deploy a follower on the tile just placed; then `apply_prompt(player, code, 0, action)` runs."),
    doc!("setup", "reaction_deploy(window, player_state, order, code, effects)", "The same; when a player deploys, his player-scoped states in `effects` are set natively first."),
    doc!("setup", "strength_bonus(figure_state)", "Adds a figure-scoped state (half-units) to every figure's strength natively, with no call to `strength`."),
    doc!("setup", "keep_apart(kind, near, radius, reason)", "Placement rule checked natively: a tile with a feature of kind `kind` may not be placed within `radius` cells (the square around it) of a placed tile with a feature of kind `near`; a refused placement says `reason (x,y)`, naming that tile's cell."),
    doc!("setup", "guard(hook, state)", "Calls `hook` only while `state` is non-zero (for the hook's player or figure)."),
    doc!("setup", "guard_figure(hook, kind)", "Calls `hook` only while at least one figure of the figure kind `kind` is in play (never if no loaded expansion declares it)."),
    doc!("setup", "guard_scoring_near(hook, kind)", "`before_scoring` / `after_scoring` only: calls `hook` only when a feature being scored has a part on a tile where a figure of the figure kind `kind` stands."),
    doc!("action", "custom_action(verb) -> map", "An action of yours: `#{type: \"custom\", verb, figure: -1, segment: -1, value: 0}`."),
    doc!("action", "custom_action(verb, value) -> map", "The same with a value."),
    doc!("action", "figure_action(verb, figure) -> map", "An action of yours about a figure."),
    doc!("action", "move_action(figure, segment) -> map", "Moving a figure in play onto a segment: `#{type: \"move\", figure, segment}` (a prompt's choice; `apply_prompt` then calls `move_figure`)."),
    doc!("action", "pass_action() -> map", "Declining a prompt."),
];
