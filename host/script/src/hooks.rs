//! The hooks a script may define: [`Hook`] and the [`HOOKS`] table.

/// The script functions the host calls: role, name, parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Hook {
    /// `setup()`: declare state, verbs, labels and guards.
    Setup,
    /// `prepare_game(start)` → `()` or the start tiles.
    PrepareGame,
    /// `start_game()`.
    StartGame,
    /// `apply_setting(key, value)`.
    ApplySetting,
    /// `on_tile_drawn(tile)` → `"keep"` | `"redraw"` | `"discard"`.
    OnTileDrawn,
    /// `filters_tile(tile)` → bool.
    FiltersTile,
    /// `filter_placements(player, tile, cells)` → the allowed cells.
    FilterPlacements,
    /// `forbidden_cells(player, tile)` → cells where the tile may not go.
    ForbiddenCells,
    /// `on_tile_placed(x, y)`.
    OnTilePlaced,
    /// `deploy_actions(player, x, y)` → actions.
    DeployActions,
    /// `filter_deploy_actions(player, actions)` → the actions kept.
    FilterDeployActions,
    /// `apply_action(player, action)`.
    ApplyAction,
    /// `window_turn_start()`.
    WindowTurnStart,
    /// `window_before_draw()`.
    WindowBeforeDraw,
    /// `window_after_deploy()`.
    WindowAfterDeploy,
    /// `window_before_scoring()`.
    WindowBeforeScoring,
    /// `window_after_scoring()`.
    WindowAfterScoring,
    /// `window_before_final_scoring()`.
    WindowBeforeFinalScoring,
    /// `prompt_actions(player, code, arg)` → actions.
    PromptActions,
    /// `filter_prompt_actions(player, owner, actions)` → the actions kept.
    FilterPromptActions,
    /// `apply_prompt(player, code, arg, action)`.
    ApplyPrompt,
    /// `strength(figure)` → half-units to add.
    Strength,
    /// `before_scoring(draft)` → `()` or new awards.
    BeforeScoring,
    /// `after_scoring(draft)`.
    AfterScoring,
    /// `on_figure_removed(figure, reason)`.
    OnFigureRemoved,
    /// `on_turn_end()` → `"extra"` for a double turn.
    OnTurnEnd,
    /// `final_scoring()`.
    FinalScoring,
    /// `describe()` → what a viewer shows of the script's state.
    Describe,
}

/// One entry of [`HOOKS`].
#[derive(Clone, Copy, Debug)]
pub struct HookSpec {
    /// The role.
    pub hook: Hook,
    /// Script function name.
    pub name: &'static str,
    /// The core hook ([`carcassonne_core::HOOKS`]) through which the engine reaches it.
    pub core: &'static str,
    /// Parameter names, in order.
    pub params: &'static [&'static str],
    /// What it returns.
    pub returns: &'static str,
    /// What it is for.
    pub doc: &'static str,
    /// The argument a guard may look at.
    pub guard_arg: GuardArg,
}

/// What a guard of a hook is indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardArg {
    /// Game-scoped guards only.
    None,
    /// Player- or game-scoped guards.
    Player,
    /// Figure- or game-scoped guards.
    Figure,
}

macro_rules! hook {
    ($h:ident, $name:literal => $core:literal, [$($p:literal),*], $ret:literal, $g:ident, $doc:literal) => {
        HookSpec { hook: Hook::$h, name: $name, core: $core, params: &[$($p),*], returns: $ret, doc: $doc, guard_arg: GuardArg::$g }
    };
}

/// Every hook a script may define (the `docs/modding.md` table is generated from this).
pub const HOOKS: &[HookSpec] = &[
    hook!(Setup, "setup" => "declare", [], "()", None, "Once per ruleset: declare state, verbs, labels and guards."),
    hook!(PrepareGame, "prepare_game" => "prepare_game", ["start"], "() | array of start tiles", None, "Before the start tiles are placed: `start` lists them, one `#{tile, x, y, rotation}` each (`rotation` in quarter turns clockwise); return an array of the same form to lay others. State values may be set here."),
    hook!(StartGame, "start_game" => "start_game", [], "()", None, "A new game, start tiles placed, no figure yet."),
    hook!(ApplySetting, "apply_setting" => "apply_setting", ["key", "value"], "()", None, "A test position sets part of your state (`key`, `value` are strings)."),
    hook!(OnTileDrawn, "on_tile_drawn" => "on_tile_drawn", ["tile"], "\"keep\" | \"redraw\" | \"discard\"", None, "A tile was drawn for the active player."),
    hook!(FiltersTile, "filters_tile" => "filters_tile", ["tile"], "bool", None, "Asked once per tile kind: does `filter_placements` need to see this tile? (default: yes)"),
    hook!(FilterPlacements, "filter_placements" => "filter_placements", ["player", "tile", "cells"], "array of cells", Player, "`cells` are the edge-legal placements, one `#{x, y, rotations}` per cell (`rotations`: bit q set = legal turned by q quarter turns); return the cells that stay legal, with the bits of illegal rotations cleared."),
    hook!(ForbiddenCells, "forbidden_cells" => "filter_placements", ["player", "tile"], "array of #{x, y}", Player, "The cheaper form when a rule only depends on the cell: where the drawn tile may not go; an item `#{x, y, radius: r}` forbids the whole square of cells within r of (x, y), and `reason: \"FE-2 …\"` is what a refused placement there says."),
    hook!(OnTilePlaced, "on_tile_placed" => "on_tile_placed", ["x", "y"], "()", None, "The drawn tile was placed (before deployment and scoring)."),
    hook!(DeployActions, "deploy_actions" => "deploy_step_actions", ["player", "x", "y"], "array of actions", Player, "Extra choices for the active player's deployment step (your own verbs)."),
    hook!(FilterDeployActions, "filter_deploy_actions" => "filter_deploy_actions", ["player", "actions"], "array of actions", Player, "Return the deployment-step actions that stay allowed."),
    hook!(ApplyAction, "apply_action" => "apply_action", ["player", "action"], "()", Player, "The player chose one of your deployment-step actions."),
    hook!(WindowTurnStart, "window_turn_start" => "open_window", [], "()", None, "Start of a turn, before the draw; queue prompts here."),
    hook!(WindowBeforeDraw, "window_before_draw" => "open_window", [], "()", None, "Just before the active player draws: after the turn start, at the start of a second part of a turn and in every turn played after the supply ran out."),
    hook!(WindowAfterDeploy, "window_after_deploy" => "open_window", [], "()", None, "After the deployment step, before scoring (the Tactician's window)."),
    hook!(WindowBeforeScoring, "window_before_scoring" => "open_window", [], "()", None, "Just before the placed tile's features are scored."),
    hook!(WindowAfterScoring, "window_after_scoring" => "open_window", [], "()", None, "After scoring."),
    hook!(WindowBeforeFinalScoring, "window_before_final_scoring" => "open_window", [], "()", None, "After the last turn, before final scoring."),
    hook!(PromptActions, "prompt_actions" => "prompt_actions", ["player", "code", "arg"], "array of actions", Player, "The choices of a prompt you queued, computed when it is asked (empty = skipped)."),
    hook!(FilterPromptActions, "filter_prompt_actions" => "filter_prompt_actions", ["player", "owner", "actions"], "array of actions", Player, "A prompt of any expansion (`owner`: its id) is about to be asked of `player`; return the actions that stay allowed (a prompt filtered down to passing is answered with the pass)."),
    hook!(ApplyPrompt, "apply_prompt" => "apply_prompt", ["player", "code", "arg", "action"], "()", Player, "The player answered your prompt."),
    hook!(Strength, "strength" => "strength_delta", ["figure"], "int", Figure, "Half-units added to a figure's strength in majorities (a follower is 2)."),
    hook!(BeforeScoring, "before_scoring" => "before_scoring", ["draft"], "() | array of awards", None, "A scoring is about to be applied; return new `awards` to change it."),
    hook!(AfterScoring, "after_scoring" => "after_scoring", ["draft"], "()", None, "A scoring was applied (figures already returned)."),
    hook!(OnFigureRemoved, "on_figure_removed" => "on_figure_removed", ["figure", "reason"], "()", Figure, "A figure left the board (`reason`: \"scored\" or \"expansion\")."),
    hook!(OnTurnEnd, "on_turn_end" => "on_turn_end", [], "\"next\" | \"extra\"", None, "End of the turn; `\"extra\"` gives the player another part (once per turn)."),
    hook!(FinalScoring, "final_scoring" => "final_scoring", [], "()", None, "After final scoring: end bonuses."),
    hook!(Describe, "describe" => "describe", [], "array of visibles", None, "What a viewer shows of your state, asked whenever one draws the game: `#{type: \"title\", group, name, icon, holder, detail}` (`holder`: a player or -1), `#{type: \"figure\", name, icon, segment, stands}` (a neutral figure shown by name; `stands`: \"segment\" (default) or \"tile\"), `#{type: \"place\", group, name, segment}`, `#{type: \"foreign\", scheme, segment, tile, feature, location}` (how another program, `jcz`, names an off-board feature). Strings are cut to 200 characters."),
];

pub(crate) const HOOK_COUNT: usize = Hook::Describe as usize + 1;

/// Core hooks a script reaches through data instead of a function of its own:
/// `explain_refusal` is answered natively from the `reason` of the `forbidden_cells` item
/// or `keep_apart` rule that refused a placement.
pub const NATIVE_ONLY: &[&str] = &["explain_refusal"];

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether some script hook of [`HOOKS`] rides on core hook `core`, or the host answers it
/// natively ([`NATIVE_ONLY`]).
const fn bound(core: &str) -> bool {
    let mut i = 0;
    while i < HOOKS.len() {
        if same(HOOKS[i].core, core) {
            return true;
        }
        i += 1;
    }
    let mut i = 0;
    while i < NATIVE_ONLY.len() {
        if same(NATIVE_ONLY[i], core) {
            return true;
        }
        i += 1;
    }
    false
}

/// Checks, when this crate compiles, that every hook of core's one table
/// ([`carcassonne_core::for_each_hook!`]) has a script hook: a hook added there without a
/// row in [`HOOKS`] (and its binding) does not build.
macro_rules! every_core_hook_has_a_script_hook {
    ($(
        $(#[$doc:meta])*
        [$($kind:ident $bit:ident $(= $n:expr)?)?]
        fn $name:ident(&self $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty $default:block
    )*) => {
        const _: () = {
            $(assert!(
                bound(stringify!($name)),
                concat!("core hook `", stringify!($name), "` has no script hook in HOOKS")
            );)*
        };
    };
}

carcassonne_core::for_each_hook!(every_core_hook_has_a_script_hook);
