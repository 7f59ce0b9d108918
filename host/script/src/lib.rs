//! # carcassonne-script
//!
//! Fan expansions: Rhai scripts described by an `expansion.toml`, run in a sandbox. The
//! only crate of the workspace that depends on rhai: no other crate sees a Rhai type.
//!
//! It must not know where expansions are searched for, native plugins, or any game file
//! beyond the script entry its manifest names; it gets a parsed [`Manifest`] and returns a
//! [`CompiledScript`] (or a [`LoadError`]), from which each ruleset gets a
//! [`ScriptExpansion`].
//!
//! A script is compiled once when it is loaded ([`compile`]); every ruleset that uses it
//! gets a [`ScriptExpansion`], which implements core's [`Expansion`] trait by calling the
//! script function of the same role (`deploy_actions` for
//! [`Expansion::deploy_step_actions`], …; the table is [`HOOKS`]). Only functions the
//! script defines are called, and [`Expansion::hooks`] tells core which those are, so
//! an expansion pays nothing for the hooks it leaves out.
//!
//! **Reading and writing.** During a call the script reads the game through the
//! functions of [`api`] and changes it only through the commands there (`award`,
//! `deploy`, `set_state`, …), which check their arguments against the rules before they
//! touch anything: a script cannot put a game into an illegal state. Actions a script
//! offers are checked the same way (its own verbs only; deployments must be legal).
//! If a call fails, core rolls the action back ([`carcassonne_core::Game`] checkpoints),
//! so a broken script leaves the game as it was.
//!
//! **State.** A script keeps its state in named integer slots it declares in `setup()`
//! (per game, per player or per figure). They live in the game state, so snapshots,
//! records and replays carry them; a script has no other memory between calls.
//!
//! **Guards.** `guard(hook, state)` in `setup()` tells the host to call a hook only while
//! a state value is non-zero (for the hook's player or figure). Guards are checked
//! natively, which is how a script keeps per-turn costs near zero.
//!
//! **Memoized hooks.** A hook call is a deterministic function of its arguments and of
//! what the game functions it calls return, so the host remembers calls per thread
//! (`memo.rs`): a later call with the same arguments, whose game functions return the same
//! values again, gets the remembered answer without running the script (the game
//! functions are run natively to check, the state values it set are set, its awards
//! made). A per-turn hook that reads a few values costs about as much as the reads. What
//! a script sees and does is exactly what it would with the script run.

pub mod api;
pub mod limits;
mod memo;
pub mod reference;
mod sandbox;

pub use limits::{LoadLimits, LOAD_LIMITS};
pub use sandbox::{new_engine, Limits, LIMITS};

use carcassonne_core::{
    binder, Action, Award, Binder, Binding, BoundExpansion, Ctx, CustomAction, Declare,
    DrawVerdict, Expansion, FigureId, HookFailure, HookResult, HookSet, LabelId, PlacementCell,
    PlayerId, Pos, Prompt, PromptCode, PromptKind, RemovalReason, Ruleset, ScoreDraft, SlotId,
    SlotRef, SlotScope, TileKindId, TurnEndVerdict, VerbId, View, Window,
};
use carcassonne_files::manifest::Manifest;
use memo::{Cached, Found, Param};
use rhai::{Array, CallFnOptions, Dynamic, EvalAltResult, Map, Position, Scope, AST};
use std::path::PathBuf;
use std::sync::Arc;
use thread_local::ThreadLocal;

/// The script functions the host calls: role, name, parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Hook {
    /// `setup()`: declare state, verbs, labels and guards.
    Setup,
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
    hook!(WindowAfterDeploy, "window_after_deploy" => "open_window", [], "()", None, "After the deployment step, before scoring (the Tactician's window)."),
    hook!(WindowBeforeScoring, "window_before_scoring" => "open_window", [], "()", None, "Just before the placed tile's features are scored."),
    hook!(WindowAfterScoring, "window_after_scoring" => "open_window", [], "()", None, "After scoring."),
    hook!(WindowBeforeFinalScoring, "window_before_final_scoring" => "open_window", [], "()", None, "After the last turn, before final scoring."),
    hook!(PromptActions, "prompt_actions" => "prompt_actions", ["player", "code", "arg"], "array of actions", Player, "The choices of a prompt you queued, computed when it is asked (empty = skipped)."),
    hook!(ApplyPrompt, "apply_prompt" => "apply_prompt", ["player", "code", "arg", "action"], "()", Player, "The player answered your prompt."),
    hook!(Strength, "strength" => "strength_delta", ["figure"], "int", Figure, "Half-units added to a figure's strength in majorities (a follower is 2)."),
    hook!(BeforeScoring, "before_scoring" => "before_scoring", ["draft"], "() | array of awards", None, "A scoring is about to be applied; return new `awards` to change it."),
    hook!(AfterScoring, "after_scoring" => "after_scoring", ["draft"], "()", None, "A scoring was applied (figures already returned)."),
    hook!(OnFigureRemoved, "on_figure_removed" => "on_figure_removed", ["figure", "reason"], "()", Figure, "A figure left the board (`reason`: \"scored\" or \"expansion\")."),
    hook!(OnTurnEnd, "on_turn_end" => "on_turn_end", [], "\"next\" | \"extra\"", None, "End of the turn; `\"extra\"` gives the player another part (once per turn)."),
    hook!(FinalScoring, "final_scoring" => "final_scoring", [], "()", None, "After final scoring: end bonuses."),
];

const HOOK_COUNT: usize = Hook::FinalScoring as usize + 1;

/// A script failed: where and in which hook.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expansion `{expansion}`, {file}:{line}:{column}, {hook}: {message}")]
pub struct ScriptError {
    /// Expansion id.
    pub expansion: String,
    /// Script file.
    pub file: String,
    /// Line (1-based; 0 = unknown).
    pub line: usize,
    /// Column (1-based; 0 = unknown).
    pub column: usize,
    /// The hook (script function) or `compile`.
    pub hook: String,
    /// What went wrong.
    pub message: String,
}

/// Why a script expansion could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The manifest's `expansion.entry` is missing, or the file it names cannot be read or
    /// is over the size limit (the message names the manifest line and the file).
    #[error("{0}")]
    Entry(String),
    /// The script does not compile or breaks a load limit.
    #[error(transparent)]
    Script(#[from] ScriptError),
}

/// A compiled script, shared by every ruleset that loads it.
pub struct CompiledScript {
    /// Expansion id.
    pub id: String,
    /// Version.
    pub version: String,
    /// The entry file.
    pub file: PathBuf,
    engine: rhai::Engine,
    ast: AST,
    defined: [bool; HOOK_COUNT],
    /// Where each hook function is defined (line, column), for errors Rhai reports
    /// without a position (limits).
    defined_at: [(usize, usize); HOOK_COUNT],
    /// How each memoizable hook uses its parameters ([`memo::Shape`]).
    shapes: Vec<Option<memo::Shape>>,
}

impl std::fmt::Debug for CompiledScript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledScript")
            .field("id", &self.id)
            .field("file", &self.file)
            .finish()
    }
}

impl CompiledScript {
    /// Whether the script defines a hook.
    pub fn defines(&self, h: Hook) -> bool {
        self.defined[h as usize]
    }

    /// How a memoizable hook uses its parameters (`None`: the hook is not memoized).
    pub(crate) fn shape(&self, h: Hook) -> Option<&memo::Shape> {
        self.shapes[h as usize].as_ref()
    }

    fn error(&self, hook: &str, pos: Position, message: String) -> ScriptError {
        ScriptError {
            expansion: self.id.clone(),
            file: self.file.display().to_string(),
            line: pos.line().unwrap_or(0),
            column: pos.position().unwrap_or(0),
            hook: hook.to_string(),
            message,
        }
    }

    /// Turns a Rhai error into a [`ScriptError`], unwrapping calls to the innermost
    /// position (the line that actually failed).
    fn runtime_error(&self, hook: Hook, err: &EvalAltResult) -> ScriptError {
        let name = HOOKS[hook as usize].name;
        let mut e = err;
        let mut trail = Vec::new();
        while let EvalAltResult::ErrorInFunctionCall(name, _, inner, _) = e {
            trail.push(name.clone());
            e = inner;
        }
        let mut message = match e {
            EvalAltResult::ErrorTooManyOperations(_) => format!(
                "too many operations (limit {} per hook call; an endless loop?)",
                LIMITS.operations
            ),
            EvalAltResult::ErrorStackOverflow(_) => format!(
                "too many nested calls (limit {}; endless recursion?)",
                LIMITS.call_levels
            ),
            EvalAltResult::ErrorDataTooLarge(what, _) => format!(
                "{what} is too large (limits: {} characters, {} array elements, {} map entries)",
                LIMITS.string_size, LIMITS.array_size, LIMITS.map_size
            ),
            other => other.to_string(),
        };
        // Rhai appends " (line l, position c)" to some messages; the position is ours.
        if let Some(i) = message.rfind(" (line ") {
            message.truncate(i);
        }
        if !trail.is_empty() {
            message = format!("{message} (in {})", trail.join(" ← "));
        }
        let mut out = self.error(name, e.position(), message);
        if out.line == 0 {
            // Limits are reported without a position: point at the hook instead.
            (out.line, out.column) = self.defined_at[hook as usize];
        }
        out
    }
}

/// Compiles a script expansion's entry file (once per load) and checks its hooks.
pub fn compile(m: &Manifest) -> Result<Arc<CompiledScript>, LoadError> {
    let entry = m.entry.as_ref().ok_or_else(|| {
        LoadError::Entry(format!(
            "{}: script expansion `{}` has no `expansion.entry`",
            m.path.display(),
            m.id
        ))
    })?;
    // Only a regular file, and only up to the size limit, is read (issue 13: a script of
    // megabytes takes minutes to compile, `/dev/zero` would be read until memory ends).
    let text = carcassonne_files::fsio::read_text(entry, LOAD_LIMITS.script_bytes as u64).map_err(
        |e| {
            let reason = e.source.to_string();
            let prefix = format!("{}:{}: `expansion.entry`", m.path.display(), m.entry_line);
            let what = format!(
                "{prefix}: the script `{}` of expansion `{}`",
                entry.display(),
                m.id
            );
            let ours = matches!(
                e.source.kind(),
                std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput
            );
            LoadError::Entry(match reason.strip_suffix(" limit") {
                // fsio's own reasons: "is 1.5 MiB, more than the 256 KiB limit", "is not a
                // regular file (…)", "is not UTF-8 text (…)".
                Some(r) if ours => match std::fs::metadata(entry) {
                    Ok(meta) if meta.len() > LOAD_LIMITS.script_bytes as u64 => {
                        format!("{what} {}", limits::too_large(meta.len(), &LOAD_LIMITS))
                    }
                    _ => format!("{what} {r} a script may have"),
                },
                _ if ours => format!("{what} {reason}"),
                // The OS's: "No such file or directory (os error 2)".
                _ => format!(
                    "{}: cannot read the script `{}` of expansion `{}`: {reason}",
                    prefix,
                    entry.display(),
                    m.id
                ),
            })
        },
    )?;
    compile_source(&m.id, &m.version.to_string(), entry.clone(), &text).map_err(LoadError::Script)
}

/// Compiles script text (the file name is only used in messages). The text is first
/// checked against the load limits ([`LOAD_LIMITS`]: size, tokens per function and in all),
/// which bound the time Rhai's parser takes.
pub fn compile_source(
    id: &str,
    version: &str,
    file: PathBuf,
    text: &str,
) -> Result<Arc<CompiledScript>, ScriptError> {
    let (engine, traced) = sandbox::new_engine_traced();
    let mut script = CompiledScript {
        id: id.to_string(),
        version: version.to_string(),
        file,
        engine,
        ast: AST::empty(),
        defined: [false; HOOK_COUNT],
        defined_at: [(0, 0); HOOK_COUNT],
        shapes: vec![None; HOOK_COUNT],
    };
    if let Err(e) = limits::check(text, &LOAD_LIMITS) {
        let pos = Position::new(
            e.line.clamp(1, u16::MAX as usize) as u16,
            e.column.clamp(1, u16::MAX as usize) as u16,
        );
        return Err(script.error("compile", pos, e.message));
    }
    let ast = match script.engine.compile(text) {
        Ok(ast) => ast,
        Err(e) => {
            // A hook declared with too few parameters usually fails first as a strict-mode
            // compile error about the missing one (`Undefined variable: y`). Parse again
            // without strict variables so that the hook's own arity is what gets reported.
            let mut lenient = new_engine();
            lenient.set_strict_variables(false);
            if let Ok(loose) = lenient.compile(text) {
                check_hook_arity(&script, &loose, text)?;
            }
            let pos = e.position();
            let mut msg = e.to_string();
            if let Some(i) = msg.rfind(" (line ") {
                msg.truncate(i);
            }
            return Err(script.error("compile", pos, format!("syntax error: {msg}")));
        }
    };
    check_hook_arity(&script, &ast, text)?;
    for f in ast.iter_functions() {
        if let Some(spec) = HOOKS.iter().find(|s| s.name == f.name) {
            script.defined[spec.hook as usize] = true;
            script.defined_at[spec.hook as usize] = definition(text, spec.name);
        }
    }
    script.ast = ast.clone_functions_only();
    for &h in memo::MEMO_HOOKS {
        if script.defined[h as usize] {
            let spec = &HOOKS[h as usize];
            script.shapes[h as usize] = Some(memo::analyze(
                &script.ast,
                spec.name,
                spec.params.len(),
                &traced,
            ));
        }
    }
    Ok(Arc::new(script))
}

/// Every function named like a hook must take exactly the hook's parameters: the host
/// calls hooks by name and parameter count, so any other arity would never be called.
fn check_hook_arity(script: &CompiledScript, ast: &AST, text: &str) -> Result<(), ScriptError> {
    for f in ast.iter_functions() {
        if let Some(spec) = HOOKS.iter().find(|s| s.name == f.name) {
            if f.params.len() != spec.params.len() {
                let (line, column) = definition(text, spec.name);
                return Err(script.error(
                    "compile",
                    Position::new(line.max(1) as u16, column.max(1) as u16),
                    format!(
                        "hook `{}` must take {} parameter(s) ({}), not {}",
                        spec.name,
                        spec.params.len(),
                        spec.params.join(", "),
                        f.params.len()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The line and column of `fn name(` in a script (0, 0 if not found).
fn definition(text: &str, name: &str) -> (usize, usize) {
    for (i, line) in text.lines().enumerate() {
        if let Some(c) = line.find("fn ") {
            let rest = line[c + 3..].trim_start();
            if rest
                .strip_prefix(name)
                .is_some_and(|r| r.trim_start().starts_with('('))
            {
                return (i + 1, c + 1);
            }
        }
    }
    (0, 0)
}

/// What a script declared in `setup()`: its state values, verbs, labels and guards.
#[derive(Debug, Default)]
pub struct Decl {
    pub(crate) states: Vec<(String, SlotScope, SlotId)>,
    pub(crate) verbs: Vec<(String, VerbId)>,
    pub(crate) labels: Vec<(String, LabelId)>,
    pub(crate) guards: [Option<Guard>; HOOK_COUNT],
    pub(crate) offers: Vec<Offer>,
    pub(crate) reactions: Vec<Reaction>,
    /// A figure-scoped state added to every figure's strength (`strength_bonus`).
    pub(crate) strength_bonus: Option<usize>,
    /// Spacing rules (`keep_apart`), checked natively when a tile is placed.
    pub(crate) apart: Vec<Apart>,
}

/// `keep_apart(kind, near, radius, reason)`: a tile with a feature of kind `kind` may not be
/// placed within `radius` cells (a square) of a placed tile with a feature of kind `near`.
#[derive(Clone, Debug)]
pub struct Apart {
    pub(crate) kind: String,
    pub(crate) near: String,
    pub(crate) radius: i32,
    pub(crate) reason: String,
}

/// An [`Apart`] rule resolved against the ruleset (`None`: no loaded expansion has the
/// kind, so the rule never applies).
#[derive(Clone, Debug)]
struct ApartRule {
    kind: Option<carcassonne_core::FeatureKindId>,
    near: Option<carcassonne_core::FeatureKindId>,
    radius: i32,
    reason: String,
}

impl ApartRule {
    fn concerns(&self, rules: &Ruleset, tile: TileKindId) -> bool {
        self.kind
            .is_some_and(|k| rules.tiles().get(tile).segments.iter().any(|s| s.kind == k))
    }

    /// The cells of the placed tiles with a `near` feature, into `out` (cleared first).
    fn near_cells(&self, view: View<'_>, out: &mut Vec<Pos>) {
        out.clear();
        let Some(near) = self.near else { return };
        for t in view.state.board().tiles() {
            if view
                .rules
                .tiles()
                .get(t.kind)
                .segments
                .iter()
                .any(|s| s.kind == near)
            {
                out.push(t.pos);
            }
        }
    }

    /// The first of `near` cells within the radius of `pos`.
    fn conflict(&self, near: &[Pos], pos: Pos) -> Option<Pos> {
        let r = self.radius as i64;
        near.iter().copied().find(|n| {
            (n.x as i64 - pos.x as i64).abs() <= r && (n.y as i64 - pos.y as i64).abs() <= r
        })
    }
}

/// When a guarded hook runs (`guard`, `guard_figure`, `guard_scoring_near` in `setup()`).
#[derive(Clone, Debug)]
pub(crate) enum Guard {
    /// While this declared state (index into `Decl::states`) is non-zero.
    State(usize),
    /// While a figure of this kind (a name, resolved at bind) is in play.
    Figure(String),
    /// Scoring hooks: when a scored feature has a part on a tile where a figure of this
    /// kind stands.
    ScoringNear(String),
}

/// A guard resolved against the ruleset.
#[derive(Clone, Copy, Debug)]
enum GuardCheck {
    Open,
    Slot(SlotScope, SlotId),
    /// `None`: no loaded expansion declares the kind, so the hook never runs.
    Figure(Option<carcassonne_core::FigureKindId>),
    /// Checked against the draft ([`BoundScript::scoring_near`]); `None` as above.
    ScoringNear(Option<carcassonne_core::FigureKindId>),
}

/// A deployment-step action the host offers natively (declared with `offer` or
/// `offer_per_figure`): no script call until a player chooses it.
#[derive(Debug)]
pub struct Offer {
    pub(crate) verb: VerbId,
    /// Player-scoped state that must be non-zero for the active player.
    pub(crate) player_state: usize,
    /// Per figure: the figure-scoped state that must be 0, and the roles that qualify.
    pub(crate) per_figure: Option<(usize, Vec<String>)>,
    /// Player-scoped states of the chooser set when the action is chosen.
    pub(crate) effects: Vec<(usize, i64)>,
    /// `offer_protect`: (expansion id, game-scoped state) holding figure id + 1 of a figure
    /// this per-figure offer skips unless the chooser owns it.
    pub(crate) protect: Vec<(String, String)>,
}

/// An out-of-turn deployment the host runs natively (declared with `reaction_deploy`):
/// in `window`, every player other than the active one whose `player_state` is non-zero
/// is asked, in `order`, whether to deploy a follower on the tile just placed.
#[derive(Debug)]
pub struct Reaction {
    pub(crate) window: Window,
    pub(crate) player_state: usize,
    pub(crate) fewest_points_first: bool,
    pub(crate) code: u16,
    /// Player-scoped states of the deploying player set when he deploys.
    pub(crate) effects: Vec<(usize, i64)>,
}

/// A script expansion's prompts: the script's own `(code, arg)`, or one of the
/// reactions the host runs natively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScriptPrompt {
    /// `prompt(player, code, arg)` from the script (`code` 0..=[`MAX_SCRIPT_PROMPT_CODE`]).
    Script { code: u16, arg: i32 },
    /// The `index`-th declared `reaction_deploy`.
    Reaction(u16),
}

/// The largest prompt code a script may use.
pub(crate) const MAX_SCRIPT_PROMPT_CODE: u16 = 0x7FFF;

impl PromptKind for ScriptPrompt {
    fn encode(self) -> PromptCode {
        match self {
            ScriptPrompt::Script { code, arg } => PromptCode { tag: code, arg },
            ScriptPrompt::Reaction(i) => PromptCode {
                tag: 0x8000 | i,
                arg: 0,
            },
        }
    }

    fn decode(c: PromptCode) -> Option<ScriptPrompt> {
        Some(if c.tag & 0x8000 == 0 {
            ScriptPrompt::Script {
                code: c.tag,
                arg: c.arg,
            }
        } else {
            ScriptPrompt::Reaction(c.tag & 0x7FFF)
        })
    }
}

/// Which figures a per-figure offer accepts: followers by the feature kind they stand
/// on, other figures by their kind.
#[derive(Debug, Default)]
struct RoleMatch {
    feature_kinds: u64,
    figure_kinds: Vec<carcassonne_core::FigureKindId>,
}

impl Decl {
    pub(crate) fn state(&self, name: &str) -> Option<(SlotScope, SlotId)> {
        self.states
            .iter()
            .find(|(n, ..)| n == name)
            .map(|(_, s, id)| (*s, *id))
    }
    pub(crate) fn verb(&self, name: &str) -> Option<VerbId> {
        self.verbs.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
    pub(crate) fn label(&self, name: &str) -> Option<LabelId> {
        self.labels.iter().find(|(n, _)| n == name).map(|(_, l)| *l)
    }
}

/// A compiled script as an [`Expansion`]: its `setup()` declares, and binding makes a
/// [`BoundScript`]. One value serves every ruleset the script is added to.
pub struct ScriptExpansion {
    script: Arc<CompiledScript>,
    /// Whether its bound scripts remember hook calls ([`memo`]).
    memo: bool,
}

impl ScriptExpansion {
    /// The expansion of a compiled script (its hook calls are remembered, see
    /// [`ScriptExpansion::without_memo`]).
    pub fn new(script: Arc<CompiledScript>) -> ScriptExpansion {
        ScriptExpansion { script, memo: true }
    }

    /// The same expansion, whose bound scripts run the script for every hook call instead
    /// of answering repeated calls from their memo ([`memo`]). Games are the same either
    /// way (which is what the tests that use this check); only their speed differs.
    pub fn without_memo(self) -> ScriptExpansion {
        ScriptExpansion {
            memo: false,
            ..self
        }
    }

    /// Whether bound scripts of this expansion remember hook calls.
    pub fn memo(&self) -> bool {
        self.memo
    }

    /// The compiled script.
    pub fn script(&self) -> &Arc<CompiledScript> {
        &self.script
    }
}

/// A script bound to one ruleset: what its `setup()` declared, resolved against the
/// ruleset, immutable and shared by every game of the ruleset.
pub struct BoundScript {
    script: Arc<CompiledScript>,
    decl: Decl,
    /// This expansion's index in the ruleset.
    me: carcassonne_core::ExpansionIndex,
    /// Per offer: the roles resolved against the ruleset (names not in it never match).
    roles: Vec<RoleMatch>,
    /// Shared strings for action maps.
    names: Arc<api::Names>,
    /// The pipeline hooks the script needs.
    hook_set: HookSet,
    /// Each hook's guard, resolved.
    guards: [GuardCheck; HOOK_COUNT],
    /// The spacing rules, resolved.
    apart: Vec<ApartRule>,
    /// Its remembered hook calls, one memo per thread that plays its games ([`memo`]);
    /// `None` when made [`ScriptExpansion::without_memo`].
    memo: Option<ThreadLocal<memo::ScriptMemo>>,
}

impl BoundScript {
    /// The compiled script.
    pub fn script(&self) -> &Arc<CompiledScript> {
        &self.script
    }

    /// This thread's memo of the script's hook calls (`None`: the memo is off).
    fn memo(&self) -> Option<&memo::ScriptMemo> {
        self.memo.as_ref().map(|m| m.get_or_default())
    }

    /// The action-map strings of the ruleset.
    pub(crate) fn names(&self) -> &Arc<api::Names> {
        &self.names
    }

    pub(crate) fn decl(&self) -> &Decl {
        &self.decl
    }

    pub(crate) fn me(&self) -> carcassonne_core::ExpansionIndex {
        self.me
    }

    /// Whether a guarded hook may run: its guard state is non-zero for `index`.
    fn guard_open(&self, hook: Hook, state: &carcassonne_core::GameState, index: usize) -> bool {
        match self.guards[hook as usize] {
            GuardCheck::Open => true,
            GuardCheck::Slot(scope, slot) => {
                let at = if scope == SlotScope::Game { 0 } else { index };
                state.slot(slot, at) != 0
            }
            GuardCheck::Figure(None) | GuardCheck::ScoringNear(None) => false,
            // Needs the draft: the scoring hooks ask `scoring_near` as well.
            GuardCheck::ScoringNear(Some(_)) => true,
            GuardCheck::Figure(Some(k)) => state
                .figures()
                .iter()
                .any(|f| f.kind == k && matches!(f.loc, carcassonne_core::FigureLoc::On(_))),
        }
    }

    /// A scoring hook's `guard_scoring_near`: whether a feature of `draft` has a part on a
    /// tile where a figure of the guard's kind stands (always true for other guards).
    fn scoring_near(
        &self,
        hook: Hook,
        state: &carcassonne_core::GameState,
        draft: &ScoreDraft,
    ) -> bool {
        let GuardCheck::ScoringNear(Some(kind)) = self.guards[hook as usize] else {
            return true;
        };
        let graph = state.graph();
        // The cells of those figures; beyond a handful, run the hook rather than search.
        let mut cells = [carcassonne_core::Pos::new(0, 0); 8];
        let mut n = 0;
        for f in state.figures() {
            let carcassonne_core::FigureLoc::On(seg) = f.loc else {
                continue;
            };
            let node = graph.segment(seg);
            if f.kind != kind || node.is_virtual() {
                continue;
            }
            if n == cells.len() {
                return true;
            }
            cells[n] = node.pos;
            n += 1;
        }
        let cells = &cells[..n];
        !cells.is_empty()
            && draft.features.iter().any(|d| {
                graph.members(d.feature).any(|m| {
                    let node = graph.segment(m);
                    !node.is_virtual() && cells.contains(&node.pos)
                })
            })
    }

    fn spec(hook: Hook) -> &'static HookSpec {
        &HOOKS[hook as usize]
    }

    /// Calls a script function with the game reachable through `access`.
    fn call(
        &self,
        hook: Hook,
        access: api::Access<'_, '_>,
        args: impl rhai::FuncArgs,
    ) -> Result<Dynamic, HookFailure> {
        call_script(
            &mut api::Call::new(&self.script, Some(self), access, hook),
            args,
        )
    }

    /// Calls a memoizable hook ([`memo`]): answers from this thread's memo when the same
    /// call was seen before, else runs the script, converts its result with `keep`
    /// (whose errors are the hook's) and remembers the call.
    fn invoke<T>(
        &self,
        hook: Hook,
        mut access: api::Access<'_, '_>,
        params: &[Param<'_>],
        keep: impl FnOnce(Dynamic) -> HookResult<Cached>,
        answer: impl FnOnce(&Cached) -> HookResult<T>,
    ) -> HookResult<T> {
        let mut key_buf = None;
        // A hook whose memo is off on this thread (its calls rarely repeat) skips the key,
        // which can cost as much as the call's arguments.
        let memo_on = self
            .memo()
            .is_some_and(|m| m.hook(hook).try_borrow().is_ok_and(|hm| !hm.off()));
        let key = match (self.script.shape(hook), access.players()) {
            (Some(shape), Some(players)) if memo_on => {
                let rules = (access_rules(&access), &*self.names);
                shape.root(players, params, rules, &mut key_buf)
            }
            _ => None,
        };
        let memo = key.as_ref().and_then(|_| self.memo());
        if let (Some(key), Some(m), api::Access::Read(view)) = (&key, memo, &access) {
            // The common case, without a `Call`: a hook that only reads, answered by
            // functions the memo runs itself.
            if let Ok(hm) = m.hook(hook).try_borrow() {
                if !hm.off() {
                    if let Some(c) = hm.find_read(key, *view, params) {
                        return answer(c);
                    }
                }
            }
        }
        if let (Some(key), Some(m), api::Access::Write(ctx)) = (&key, memo, &mut access) {
            // The same for a hook that may change the game, when it only sets state values.
            if let Ok(hm) = m.hook(hook).try_borrow() {
                if !hm.off() {
                    let mut undo = api::Undo::default();
                    match hm.find_write(key, ctx, &mut undo, params) {
                        Some(c) => return answer(c),
                        None => undo.undo(ctx),
                    }
                }
            }
        }
        let memo = key.and_then(|k| Some((memo?, k)));
        let mut call = api::Call::new(&self.script, Some(self), access, hook);
        let mut record = None;
        let value = |c: &api::Call<'_, '_>, i: usize| params[i].value(c.rules_ref(), &self.names);
        if let Some((m, key)) = memo {
            let found = match m.hook(hook).try_borrow() {
                Ok(hm) if !hm.off() => {
                    if matches!(call.access, api::Access::Write(_)) {
                        call.undo = Some(api::Undo::default());
                        call.awards = Some(Vec::new());
                    }
                    Some(hm.find(&key, &mut call, params, &value))
                }
                _ => None,
            };
            match found {
                Some(Found::Hit(c)) => {
                    call.make_awards();
                    drop(call);
                    return answer(&c);
                }
                Some(Found::Miss) => {
                    call.undo_sets();
                    record = Some((m, key));
                }
                Some(Found::Never) => call.undo_sets(),
                None => {}
            }
        }
        if record.is_some() {
            call.trace = Some(memo::Trace::default());
        }
        let args: Vec<Dynamic> = (0..params.len()).map(|i| value(&call, i)).collect();
        let r = call_script(&mut call, args)?;
        let trace = call.trace.take();
        let kept = Arc::new(keep(r)?);
        if let (Some(trace), Some((m, key)), Some(rules)) = (trace, record, call.rules_ref()) {
            if let Ok(mut hm) = m.hook(hook).try_borrow_mut() {
                let prep =
                    |n: &'static api::Native, a: &[memo::Arg]| api::prepare(self, rules, n, a);
                let code = |f: &memo::Fast, v: &memo::Val| api::code(self, rules, f, v);
                hm.insert(key, trace, &kept, m.nodes(), &prep, &code);
            }
        }
        drop(call);
        answer(&kept)
    }

    /// A hook's answer that is one of `words` (or unit, the first), as its index.
    fn verdict(&self, hook: Hook, r: Dynamic, words: &[&str]) -> HookResult<Cached> {
        if r.is_unit() {
            return Ok(Cached::Int(0));
        }
        let word = r.clone().into_string().ok();
        match words.iter().position(|w| word.as_deref() == Some(*w)) {
            Some(i) => Ok(Cached::Int(i as i64)),
            None => Err(self.bad_return(hook, format!("`{r}`"))),
        }
    }

    fn bad_return(&self, hook: Hook, what: String) -> HookFailure {
        let (line, column) = self.script.defined_at[hook as usize];
        HookFailure(format!(
            "{}:{line}:{column}: in `{}`: returned {what} (expected {})",
            self.script.file.display(),
            Self::spec(hook).name,
            Self::spec(hook).returns
        ))
    }

    fn actions_from(
        &self,
        hook: Hook,
        view: View<'_>,
        player: PlayerId,
        value: Dynamic,
        allow: api::Allow,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let decl = &self.decl;
        let me = self.me;
        let array = value
            .try_cast::<Array>()
            .ok_or_else(|| self.bad_return(hook, "something else than an array".into()))?;
        for item in array {
            let a = api::action_from_dynamic(view, me, decl, item, player, allow)
                .map_err(|m| self.bad_return(hook, format!("an invalid action: {m}")))?;
            if !out.contains(&a) {
                out.push(a);
            }
        }
        Ok(())
    }
}

impl BoundScript {
    /// Runs `forbidden_cells` (when defined and not guarded off) and hands its squares to
    /// `then` (none when it does not run).
    fn forbidden<T>(
        &self,
        view: View<'_>,
        player: PlayerId,
        tile: TileKindId,
        then: impl FnOnce(&[memo::Square]) -> HookResult<T>,
    ) -> HookResult<T> {
        if !self.script.defines(Hook::ForbiddenCells)
            || !self.guard_open(Hook::ForbiddenCells, view.state, player.0 as usize)
        {
            return then(&[]);
        }
        let params = [Param::Int(player.0 as i64), Param::Tile(tile)];
        let keep = |r: Dynamic| {
            let list = r
                .try_cast::<Array>()
                .ok_or_else(|| self.bad_return(Hook::ForbiddenCells, "not an array".into()))?;
            let mut out = Vec::with_capacity(list.len());
            for item in list {
                // `radius` r forbids the (2r+1)² square around the cell; `reason` names
                // the rule when a refused placement is explained.
                let (radius, reason) = item
                    .read_lock::<Map>()
                    .map(|m| {
                        let r = m.get("radius").and_then(|v| v.as_int().ok());
                        let why = m.get("reason").and_then(|v| v.clone().into_string().ok());
                        (r, why)
                    })
                    .unwrap_or_default();
                let (x, y, _) = self.cell_of(Hook::ForbiddenCells, item, false)?;
                out.push(memo::Square {
                    x,
                    y,
                    radius: radius.unwrap_or(0).clamp(0, 64) as i32,
                    reason,
                });
            }
            Ok(Cached::Cells(out))
        };
        self.invoke(
            Hook::ForbiddenCells,
            api::Access::Read(view),
            &params,
            keep,
            |r| match r {
                Cached::Cells(list) => then(list),
                _ => then(&[]),
            },
        )
    }

    /// Keeps a hook's returned actions: checked once when they depend on the rules only
    /// (custom actions and `pass` that name no figure and no segment), else as returned,
    /// to be checked against the game every time ([`BoundScript::push_actions`]).
    fn keep_actions(
        &self,
        hook: Hook,
        view: View<'_>,
        player: PlayerId,
        value: Dynamic,
        allow: api::Allow,
    ) -> HookResult<Cached> {
        if !value.is_array()
            || !value
                .read_lock::<Array>()
                .is_some_and(|a| api::rules_only(&a))
        {
            return Ok(Cached::Value(value));
        }
        let mut out = Vec::new();
        self.actions_from(hook, view, player, value, allow, &mut out)?;
        Ok(Cached::Actions(out))
    }

    /// Adds kept actions to `out` (each once).
    fn push_actions(
        &self,
        hook: Hook,
        view: View<'_>,
        player: PlayerId,
        kept: &Cached,
        allow: api::Allow,
        out: &mut Vec<Action>,
    ) -> HookResult {
        match kept {
            Cached::Actions(list) => {
                for a in list {
                    if !out.contains(a) {
                        out.push(*a);
                    }
                }
                Ok(())
            }
            Cached::Value(v) => self.actions_from(hook, view, player, v.clone(), allow, out),
            _ => Ok(()),
        }
    }

    /// Reads a returned cell `#{x, y}` (and `rotations` when `with_rotations`).
    fn cell_of(
        &self,
        hook: Hook,
        item: Dynamic,
        with_rotations: bool,
    ) -> HookResult<(i32, i32, u8)> {
        let m = item
            .try_cast::<Map>()
            .ok_or_else(|| self.bad_return(hook, "a cell that is not a map".into()))?;
        let get = |f: &str| m.get(f).and_then(|v| v.as_int().ok());
        let rot = if with_rotations {
            get("rotations")
        } else {
            Some(0)
        };
        match (get("x"), get("y"), rot) {
            (Some(x), Some(y), Some(r))
                if i32::try_from(x).is_ok() && i32::try_from(y).is_ok() && (0..16).contains(&r) =>
            {
                Ok((x as i32, y as i32, r as u8))
            }
            _ => Err(self.bad_return(
                hook,
                if with_rotations {
                    "a cell without integer x, y and rotations (0..15)".into()
                } else {
                    "a cell without integer x and y".into()
                },
            )),
        }
    }

    /// The declared deployment-step offers of the active player, without a script call.
    fn native_offers(&self, view: View<'_>, player: PlayerId, out: &mut Vec<Action>) -> HookResult {
        let decl = &self.decl;
        if decl.offers.is_empty() {
            return Ok(());
        }
        let me = self.me;
        let roles = Some(&self.roles);
        for (i, o) in decl.offers.iter().enumerate() {
            let (_, _, slot) = decl.states[o.player_state];
            if view.state.slot(slot, player.0 as usize) == 0 {
                continue;
            }
            let custom = |figure| {
                Action::Custom(CustomAction {
                    expansion: me,
                    verb: o.verb,
                    figure,
                    segment: None,
                    value: 0,
                })
            };
            let Some((fstate, _)) = &o.per_figure else {
                out.push(custom(None));
                continue;
            };
            let (_, _, fslot) = decl.states[*fstate];
            let Some(m) = roles.and_then(|r| r.get(i)) else {
                continue;
            };
            // `offer_protect`: figures named by another expansion's game state (id + 1).
            let protected: Vec<usize> = o
                .protect
                .iter()
                .filter_map(|(exp, name)| {
                    let ix = view.rules.expansion_index(exp)?;
                    let s = view.rules.slots().iter().position(|d| {
                        d.expansion == ix && d.name == *name && d.scope == SlotScope::Game
                    })?;
                    let v = view.state.slot(carcassonne_core::SlotId(s as u16), 0);
                    usize::try_from(v - 1).ok()
                })
                .collect();
            for (fi, f) in view.state.figures().iter().enumerate() {
                let carcassonne_core::FigureLoc::On(seg) = f.loc else {
                    continue;
                };
                if f.owner != player && protected.contains(&fi) {
                    continue;
                }
                let node = view.state.graph().segment(seg);
                if node.is_virtual() || view.state.slot(fslot, fi) != 0 {
                    continue;
                }
                let fits = if view.rules.figure_kind(f.kind).follower {
                    m.feature_kinds & (1 << node.kind.0) != 0
                } else {
                    m.figure_kinds.contains(&f.kind)
                };
                if fits {
                    out.push(custom(Some(FigureId(fi as u16))));
                }
            }
        }
        Ok(())
    }

    /// Queues the declared out-of-turn deployment prompts of a window.
    fn native_reactions(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        let decl = &self.decl;
        for (i, r) in decl.reactions.iter().enumerate() {
            if r.window != window || ctx.state().in_final_scoring() {
                continue;
            }
            let (_, _, slot) = decl.states[r.player_state];
            let n = ctx.state().players().len();
            let active = ctx.state().active_player().0 as usize;
            // Clockwise from the active player's left neighbour, then (stable) by score.
            let mut order: Vec<PlayerId> = (1..n)
                .map(|k| PlayerId(((active + k) % n) as u8))
                .filter(|p| ctx.state().slot(slot, p.0 as usize) != 0)
                .collect();
            if r.fewest_points_first {
                order.sort_by_key(|p| ctx.state().players()[p.0 as usize].score);
            }
            for p in order {
                ctx.prompt(p, ScriptPrompt::Reaction(i as u16));
            }
        }
        Ok(())
    }

    /// A reaction prompt's choices: the player's legal follower deployments on the tile
    /// just placed, and passing; nothing (the prompt is skipped) when there is none.
    fn reaction_actions(
        &self,
        view: View<'_>,
        prompt: Prompt,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let ScriptPrompt::Reaction(i) = prompt.decode::<ScriptPrompt>()? else {
            return Ok(());
        };
        let Some(r) = self.decl.reactions.get(i as usize) else {
            return Ok(());
        };
        let (_, _, slot) = self.decl.states[r.player_state];
        let Some(last) = view.state.last_placed() else {
            return Ok(());
        };
        if view.state.slot(slot, prompt.player.0 as usize) == 0 {
            return Ok(());
        }
        let start = out.len();
        view.deployments_on_tile(prompt.player, view.state.board().tile(last).pos, out);
        let mut k = start;
        while k < out.len() {
            match out[k] {
                Action::Deploy { figure, .. } if view.rules.figure_kind(figure).follower => k += 1,
                _ => {
                    out.remove(k);
                }
            }
        }
        if out.len() > start {
            out.push(Action::Pass);
        }
        Ok(())
    }
}

/// Sets the declared player-scoped `effects` of `player` (no script call).
fn apply_effects(ctx: &mut Ctx<'_>, decl: &Decl, effects: &[(usize, i64)], player: PlayerId) {
    for (state, value) in effects {
        let (_, _, slot) = decl.states[*state];
        ctx.set(SlotRef::untyped(slot, player.0 as usize), *value);
    }
}

/// The rules a hook call can reach.
fn access_rules<'a>(access: &'a api::Access<'_, '_>) -> Option<&'a Ruleset> {
    match access {
        api::Access::Read(v) => Some(v.rules),
        api::Access::Write(c) => Some(c.rules()),
        api::Access::Rules(r) => Some(r),
        api::Access::Setup(..) => None,
    }
}

/// A hook answer that is not used.
fn unit(_: Dynamic) -> HookResult<Cached> {
    Ok(Cached::Unit)
}

/// Nothing to do with a hook's answer.
fn done(_: &Cached) -> HookResult {
    Ok(())
}

fn window_hook(w: Window) -> Hook {
    match w {
        Window::TurnStart => Hook::WindowTurnStart,
        Window::AfterDeploy => Hook::WindowAfterDeploy,
        Window::BeforeScoring => Hook::WindowBeforeScoring,
        Window::AfterScoring => Hook::WindowAfterScoring,
        Window::BeforeFinalScoring => Hook::WindowBeforeFinalScoring,
        // Scripts have no before-draw hook: it is never in a script's hook set (`WINDOWS`),
        // so this window is never opened for a script.
        Window::BeforeDraw => Hook::WindowTurnStart,
    }
}

const WINDOWS: [Window; 5] = [
    Window::TurnStart,
    Window::AfterDeploy,
    Window::BeforeScoring,
    Window::AfterScoring,
    Window::BeforeFinalScoring,
];

impl Expansion for ScriptExpansion {
    fn id(&self) -> &str {
        &self.script.id
    }

    fn version(&self) -> &str {
        &self.script.version
    }

    /// Runs the script's `setup()` (declarations only); binding resolves the roles of its
    /// offers and the hooks it needs.
    fn declare(&self, declare: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let decl = std::cell::RefCell::new(Decl::default());
        {
            let label = declare.score_label(&self.script.id);
            decl.borrow_mut()
                .labels
                .push((self.script.id.clone(), label));
        }
        if self.script.defines(Hook::Setup) {
            let access = api::Access::Setup(declare, &decl);
            call_script(
                &mut api::Call::new(&self.script, None, access, Hook::Setup),
                (),
            )
            .map(drop)?;
        }
        let decl = decl.into_inner();
        let script = self.script.clone();
        let memo = self.memo;
        Ok(binder(move |b: &Binding<'_>| {
            Ok(BoundScript::bind(script, decl, b, memo))
        }))
    }
}

impl BoundScript {
    fn bind(script: Arc<CompiledScript>, decl: Decl, b: &Binding<'_>, memo: bool) -> BoundScript {
        let rules = b.rules();
        let roles = decl
            .offers
            .iter()
            .map(|o| {
                let mut m = RoleMatch::default();
                for name in o.per_figure.iter().flat_map(|(_, r)| r) {
                    if let Some(k) = rules.kind_named(name) {
                        m.feature_kinds |= 1 << k.0;
                    }
                    if let Some(f) = rules.figure_named(name) {
                        if !rules.figure_kind(f).follower {
                            m.figure_kinds.push(f);
                        }
                    }
                }
                m
            })
            .collect();
        let hook_set = Self::needed_hooks(&script, &decl);
        let guards = std::array::from_fn(|h| match &decl.guards[h] {
            None => GuardCheck::Open,
            Some(Guard::State(i)) => {
                let (_, scope, slot) = decl.states[*i];
                GuardCheck::Slot(scope, slot)
            }
            Some(Guard::Figure(name)) => GuardCheck::Figure(rules.figure_named(name)),
            Some(Guard::ScoringNear(name)) => GuardCheck::ScoringNear(rules.figure_named(name)),
        });
        let apart = decl
            .apart
            .iter()
            .map(|a| ApartRule {
                kind: rules.kind_named(&a.kind),
                near: rules.kind_named(&a.near),
                radius: a.radius,
                reason: a.reason.clone(),
            })
            .collect();
        BoundScript {
            apart,
            names: Arc::new(api::Names::new(rules)),
            me: b.me(),
            script,
            decl,
            roles,
            hook_set,
            guards,
            memo: memo.then(ThreadLocal::new),
        }
    }

    /// The pipeline hooks a script needs: those it defines, and those its declarations
    /// (offers, reactions, strength bonus) run natively.
    fn needed_hooks(s: &CompiledScript, decl: &Decl) -> HookSet {
        let mut set = HookSet::NONE;
        if !decl.offers.is_empty() {
            set = set | HookSet::DEPLOY_STEP_ACTIONS;
        }
        for r in &decl.reactions {
            set = set | HookSet::window(r.window);
        }
        if decl.strength_bonus.is_some() {
            set = set | HookSet::STRENGTH_DELTA;
        }
        if !decl.apart.is_empty() {
            set = set | HookSet::FILTER_PLACEMENTS;
        }
        let map = [
            (Hook::StartGame, HookSet::GAME_START),
            (Hook::OnTileDrawn, HookSet::ON_TILE_DRAWN),
            (Hook::FilterPlacements, HookSet::FILTER_PLACEMENTS),
            (Hook::ForbiddenCells, HookSet::FILTER_PLACEMENTS),
            (Hook::OnTilePlaced, HookSet::ON_TILE_PLACED),
            (Hook::DeployActions, HookSet::DEPLOY_STEP_ACTIONS),
            (Hook::FilterDeployActions, HookSet::FILTER_DEPLOY_ACTIONS),
            (Hook::Strength, HookSet::STRENGTH_DELTA),
            (Hook::BeforeScoring, HookSet::BEFORE_SCORING),
            (Hook::AfterScoring, HookSet::AFTER_SCORING),
            (Hook::OnFigureRemoved, HookSet::ON_FIGURE_REMOVED),
            (Hook::OnTurnEnd, HookSet::ON_TURN_END),
            (Hook::FinalScoring, HookSet::FINAL_SCORING),
        ];
        for (h, bit) in map {
            if s.defines(h) {
                set = set | bit;
            }
        }
        for w in WINDOWS {
            if s.defines(window_hook(w)) {
                set = set | HookSet::window(w);
            }
        }
        set
    }
}

/// Calls the script function of a hook call, with the game lent to the natives for the
/// duration of the call ([`api::lend`]).
fn call_script(
    call: &mut api::Call<'_, '_>,
    args: impl rhai::FuncArgs,
) -> Result<Dynamic, HookFailure> {
    let script = call.script;
    let hook = call.role;
    let name = HOOKS[hook as usize].name;
    api::lend(call, |tag| {
        let options = CallFnOptions::new()
            .eval_ast(false)
            .rewind_scope(false)
            .with_tag(tag);
        let mut scope = Scope::new();
        script
            .engine
            .call_fn_with_options::<Dynamic>(options, &mut scope, &script.ast, name, args)
    })
    .map_err(|e| {
        let e = script.runtime_error(hook, &e);
        HookFailure(format!(
            "{}:{}:{}: in `{}`: {}",
            e.file, e.line, e.column, e.hook, e.message
        ))
    })
}

impl BoundExpansion for BoundScript {
    fn hook_set(&self) -> HookSet {
        self.hook_set
    }

    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        self.invoke(Hook::StartGame, api::Access::write(ctx), &[], unit, done)
    }

    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        if !self.script.defines(Hook::ApplySetting) {
            return Err(HookFailure(format!(
                "this expansion has no position setting `{key}` (its script defines no `apply_setting`)"
            )));
        }
        self.call(
            Hook::ApplySetting,
            api::Access::write(ctx),
            (key.to_string(), value.to_string()),
        )
        .map(drop)
    }

    fn on_tile_drawn(&self, ctx: &mut Ctx<'_>, tile: TileKindId) -> HookResult<DrawVerdict> {
        if !self.guard_open(Hook::OnTileDrawn, ctx.state(), 0) {
            return Ok(DrawVerdict::Keep);
        }
        let params = [Param::Tile(tile)];
        let keep = |r| self.verdict(Hook::OnTileDrawn, r, &["keep", "redraw", "discard"]);
        self.invoke(
            Hook::OnTileDrawn,
            api::Access::write(ctx),
            &params,
            keep,
            |r| {
                Ok(match r {
                    Cached::Int(1) => DrawVerdict::Redraw,
                    Cached::Int(2) => DrawVerdict::Discard,
                    _ => DrawVerdict::Keep,
                })
            },
        )
    }

    fn filters_tile(&self, rules: &Ruleset, tile: TileKindId) -> HookResult<bool> {
        if self.apart.iter().any(|a| a.concerns(rules, tile)) {
            return Ok(true);
        }
        let scripted = self.script.defines(Hook::ForbiddenCells)
            || self.script.defines(Hook::FilterPlacements);
        if !scripted {
            return Ok(false);
        }
        if !self.script.defines(Hook::FiltersTile) {
            return Ok(true);
        }
        let name = rules.tiles().get(tile).id.clone();
        let r = self.call(Hook::FiltersTile, api::Access::Rules(rules), (name,))?;
        r.as_bool()
            .map_err(|t| self.bad_return(Hook::FiltersTile, format!("a value of type {t}")))
    }

    fn filter_placements(
        &self,
        view: View<'_>,
        player: PlayerId,
        tile: TileKindId,
        cells: &mut [PlacementCell],
    ) -> HookResult {
        let p = player.0 as rhai::INT;
        let mut near = Vec::new();
        for a in self.apart.iter().filter(|a| a.concerns(view.rules, tile)) {
            a.near_cells(view, &mut near);
            for c in cells.iter_mut() {
                if c.rotations != 0 && a.conflict(&near, c.pos).is_some() {
                    c.rotations = 0;
                }
            }
        }
        self.forbidden(view, player, tile, |list| {
            if !list.is_empty() {
                for c in cells.iter_mut() {
                    if list.iter().any(|s| s.holds(c.pos.x, c.pos.y)) {
                        c.rotations = 0;
                    }
                }
            }
            Ok(())
        })?;
        if !self.script.defines(Hook::FilterPlacements)
            || !self.guard_open(Hook::FilterPlacements, view.state, player.0 as usize)
        {
            return Ok(());
        }
        let name = self.names.tile_id(tile);
        let list: Array = cells
            .iter()
            .filter(|c| c.rotations != 0)
            .map(|c| {
                let mut m = Map::new();
                m.insert("x".into(), (c.pos.x as rhai::INT).into());
                m.insert("y".into(), (c.pos.y as rhai::INT).into());
                m.insert("rotations".into(), (c.rotations as rhai::INT).into());
                m.into()
            })
            .collect();
        let r = self.call(
            Hook::FilterPlacements,
            api::Access::Read(view),
            (p, name, list),
        )?;
        let kept = r
            .try_cast::<Array>()
            .ok_or_else(|| self.bad_return(Hook::FilterPlacements, "not an array".into()))?;
        let mut allowed: Vec<(i32, i32, u8)> = Vec::with_capacity(kept.len());
        for k in kept {
            allowed.push(self.cell_of(Hook::FilterPlacements, k, true)?);
        }
        for c in cells.iter_mut() {
            let keep = allowed
                .iter()
                .filter(|(x, y, _)| *x == c.pos.x && *y == c.pos.y)
                .fold(0u8, |m, (_, _, r)| m | r);
            // A filter only removes: bits it adds are ignored.
            c.rotations &= keep;
        }
        Ok(())
    }

    /// A placement into a cell the script's `forbidden_cells` forbids names the item's
    /// `reason` (or the cell, when the item gives none). Asked only for a refused action.
    fn explain_refusal(
        &self,
        view: View<'_>,
        player: PlayerId,
        action: Action,
    ) -> HookResult<Option<String>> {
        let Action::Place { pos, .. } = action else {
            return Ok(None);
        };
        let carcassonne_core::DecisionKind::PlaceTile { tile } = view.state.decision().kind else {
            return Ok(None);
        };
        let mine = 1u64 << (self.me.0 as u32).min(63);
        if view.rules.placement_filters(tile) & mine == 0 {
            return Ok(None);
        }
        let mut near = Vec::new();
        for a in self.apart.iter().filter(|a| a.concerns(view.rules, tile)) {
            a.near_cells(view, &mut near);
            if let Some(at) = a.conflict(&near, pos) {
                return Ok(Some(format!("{} ({},{})", a.reason, at.x, at.y)));
            }
        }
        self.forbidden(view, player, tile, |list| {
            let Some(square) = list.iter().find(|s| s.holds(pos.x, pos.y)) else {
                return Ok(None);
            };
            let reason = square.reason.clone().unwrap_or_else(|| {
                format!("({},{}) is a cell `forbidden_cells` forbids", pos.x, pos.y)
            });
            // A reason is one line of at most 200 characters.
            Ok(Some(
                reason
                    .chars()
                    .map(|c| if c.is_control() { ' ' } else { c })
                    .take(200)
                    .collect(),
            ))
        })
    }

    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: Pos) -> HookResult {
        if !self.guard_open(Hook::OnTilePlaced, ctx.state(), 0) {
            return Ok(());
        }
        let params = [Param::Int(pos.x as i64), Param::Int(pos.y as i64)];
        self.invoke(
            Hook::OnTilePlaced,
            api::Access::write(ctx),
            &params,
            unit,
            done,
        )
    }

    fn deploy_step_actions(
        &self,
        view: View<'_>,
        player: PlayerId,
        out: &mut Vec<Action>,
    ) -> HookResult {
        self.native_offers(view, player, out)?;
        if !self.script.defines(Hook::DeployActions)
            || !self.guard_open(Hook::DeployActions, view.state, player.0 as usize)
        {
            return Ok(());
        }
        let (x, y) = api::last_cell(view).unwrap_or((0, 0));
        let params = [Param::Int(player.0 as i64), Param::Int(x), Param::Int(y)];
        let allow = api::Allow::OwnCustom;
        let h = Hook::DeployActions;
        self.invoke(
            h,
            api::Access::Read(view),
            &params,
            |r| self.keep_actions(h, view, player, r, allow),
            |r| self.push_actions(h, view, player, r, allow, out),
        )
    }

    fn filter_deploy_actions(
        &self,
        view: View<'_>,
        player: PlayerId,
        actions: &mut Vec<Action>,
    ) -> HookResult {
        if !self.guard_open(Hook::FilterDeployActions, view.state, player.0 as usize) {
            return Ok(());
        }
        let list: Array = actions
            .iter()
            .map(|a| api::action_to_dynamic(view, &self.names, a))
            .collect();
        let r = self.call(
            Hook::FilterDeployActions,
            api::Access::Read(view),
            (player.0 as rhai::INT, list),
        )?;
        let mut kept = Vec::new();
        self.actions_from(
            Hook::FilterDeployActions,
            view,
            player,
            r,
            api::Allow::Any,
            &mut kept,
        )?;
        actions.retain(|a| kept.contains(a));
        Ok(())
    }

    fn apply_action(
        &self,
        ctx: &mut Ctx<'_>,
        player: PlayerId,
        action: CustomAction,
    ) -> HookResult {
        if let Some(o) = self.decl.offers.iter().find(|o| o.verb == action.verb) {
            apply_effects(ctx, &self.decl, &o.effects, player);
        }
        if !self.script.defines(Hook::ApplyAction) {
            return Ok(());
        }
        let a = Action::Custom(action);
        let params = [Param::Int(player.0 as i64), Param::Action(&a)];
        self.invoke(
            Hook::ApplyAction,
            api::Access::write(ctx),
            &params,
            unit,
            done,
        )
    }

    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        self.native_reactions(ctx, window)?;
        let hook = window_hook(window);
        if !self.script.defines(hook) || !self.guard_open(hook, ctx.state(), 0) {
            return Ok(());
        }
        self.invoke(hook, api::Access::write(ctx), &[], unit, done)
    }

    fn prompt_actions(&self, view: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        let ScriptPrompt::Script { code, arg } = prompt.decode::<ScriptPrompt>()? else {
            return self.reaction_actions(view, prompt, out);
        };
        if !self.script.defines(Hook::PromptActions) {
            return Ok(());
        }
        let params = [
            Param::Int(prompt.player.0 as i64),
            Param::Int(code as i64),
            Param::Int(arg as i64),
        ];
        let allow = api::Allow::Prompt;
        let (h, who) = (Hook::PromptActions, prompt.player);
        self.invoke(
            h,
            api::Access::Read(view),
            &params,
            |r| self.keep_actions(h, view, who, r, allow),
            |r| self.push_actions(h, view, who, r, allow, out),
        )
    }

    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        let (code, arg) = match prompt.decode::<ScriptPrompt>()? {
            ScriptPrompt::Script { code, arg } => (code, arg),
            ScriptPrompt::Reaction(i) => {
                let r = self
                    .decl
                    .reactions
                    .get(i as usize)
                    .ok_or_else(|| HookFailure(format!("unknown reaction prompt {i}")))?;
                if let Action::Deploy { figure, segment } = action {
                    ctx.deploy(prompt.player, figure, segment)?;
                    apply_effects(ctx, &self.decl, &r.effects, prompt.player);
                }
                (r.code, 0)
            }
        };
        if !self.script.defines(Hook::ApplyPrompt) {
            return Ok(());
        }
        let params = [
            Param::Int(prompt.player.0 as i64),
            Param::Int(code as i64),
            Param::Int(arg as i64),
            Param::Action(&action),
        ];
        self.invoke(
            Hook::ApplyPrompt,
            api::Access::write(ctx),
            &params,
            unit,
            done,
        )
    }

    fn strength_delta(&self, view: View<'_>, figure: FigureId) -> HookResult<i32> {
        let mut bonus = 0;
        if let Some(i) = self.decl.strength_bonus.map(|b| self.decl.states[b].2) {
            bonus = view.state.slot(i, figure.0 as usize).clamp(-1000, 1000) as i32;
        }
        if !self.script.defines(Hook::Strength)
            || !self.guard_open(Hook::Strength, view.state, figure.0 as usize)
        {
            return Ok(bonus);
        }
        let params = [Param::Int(figure.0 as i64)];
        let keep = |r: Dynamic| {
            r.as_int()
                .map(Cached::Int)
                .map_err(|t| self.bad_return(Hook::Strength, format!("a value of type {t}")))
        };
        let v = self.invoke(
            Hook::Strength,
            api::Access::Read(view),
            &params,
            keep,
            |r| {
                Ok(match *r {
                    Cached::Int(v) => v,
                    _ => 0,
                })
            },
        )?;
        Ok(bonus + v.clamp(-1000, 1000) as i32)
    }

    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        if !self.guard_open(Hook::BeforeScoring, ctx.state(), 0)
            || !self.scoring_near(Hook::BeforeScoring, ctx.state(), draft)
        {
            return Ok(());
        }
        let players = ctx.state().players().len() as i64;
        let params = [Param::Draft(draft)];
        let keep = |r: Dynamic| Ok(Cached::Value(r));
        let r = self.invoke(
            Hook::BeforeScoring,
            api::Access::write(ctx),
            &params,
            keep,
            |r| {
                Ok(match r {
                    Cached::Value(v) if !v.is_unit() => Some(v.clone()),
                    _ => None,
                })
            },
        )?;
        let Some(r) = r else {
            return Ok(());
        };
        let awards = r
            .try_cast::<Array>()
            .ok_or_else(|| self.bad_return(Hook::BeforeScoring, "not an array".into()))?;
        let mut out = Vec::with_capacity(awards.len());
        for a in awards {
            let m = a
                .try_cast::<Map>()
                .ok_or_else(|| self.bad_return(Hook::BeforeScoring, "a non-map award".into()))?;
            let get = |f: &str| m.get(f).and_then(|v| v.as_int().ok());
            match (get("item"), get("player"), get("points")) {
                (Some(i), Some(p), Some(pts))
                    if (0..draft.features.len() as i64).contains(&i)
                        && (0..players).contains(&p)
                        && (-10_000..=10_000).contains(&pts) =>
                {
                    out.push(Award {
                        item: i as u16,
                        player: PlayerId(p as u8),
                        points: pts as i32,
                    })
                }
                _ => {
                    return Err(self.bad_return(
                        Hook::BeforeScoring,
                        "an award without a valid item, player and points (|points| ≤ 10000)"
                            .into(),
                    ))
                }
            }
        }
        draft.awards = out;
        Ok(())
    }

    fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        if !self.script.defines(Hook::AfterScoring)
            || !self.guard_open(Hook::AfterScoring, ctx.state(), 0)
            || !self.scoring_near(Hook::AfterScoring, ctx.state(), draft)
        {
            return Ok(());
        }
        let params = [Param::Draft(draft)];
        self.invoke(
            Hook::AfterScoring,
            api::Access::write(ctx),
            &params,
            unit,
            done,
        )
    }

    fn on_figure_removed(
        &self,
        ctx: &mut Ctx<'_>,
        figure: FigureId,
        reason: RemovalReason,
    ) -> HookResult {
        if !self.guard_open(Hook::OnFigureRemoved, ctx.state(), figure.0 as usize) {
            return Ok(());
        }
        let params = [Param::Int(figure.0 as i64), Param::Reason(reason)];
        self.invoke(
            Hook::OnFigureRemoved,
            api::Access::write(ctx),
            &params,
            unit,
            done,
        )
    }

    fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        if !self.guard_open(Hook::OnTurnEnd, ctx.state(), 0) {
            return Ok(TurnEndVerdict::Next);
        }
        let keep = |r| self.verdict(Hook::OnTurnEnd, r, &["next", "extra"]);
        self.invoke(Hook::OnTurnEnd, api::Access::write(ctx), &[], keep, |r| {
            Ok(match r {
                Cached::Int(1) => TurnEndVerdict::ExtraPart,
                _ => TurnEndVerdict::Next,
            })
        })
    }

    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        if !self.guard_open(Hook::FinalScoring, ctx.state(), 0) {
            return Ok(());
        }
        self.invoke(Hook::FinalScoring, api::Access::write(ctx), &[], unit, done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_table_is_indexed_by_the_enum() {
        for (i, h) in HOOKS.iter().enumerate() {
            assert_eq!(h.hook as usize, i, "{}", h.name);
        }
        assert_eq!(HOOKS.len(), HOOK_COUNT);
    }

    /// The script table rides on core's hook table: every script hook names a core hook,
    /// and every core hook is reachable from a script but `prepare_game` (scripts do not
    /// lay start tiles; they set up state in `start_game`) and `describe` (a script's
    /// state is shown as its declared state slots).
    #[test]
    fn every_core_hook_is_reachable_from_scripts() {
        let core: Vec<&str> = carcassonne_core::HOOKS.iter().map(|h| h.name).collect();
        for h in HOOKS {
            assert!(
                core.contains(&h.core),
                "{} rides on unknown `{}`",
                h.name,
                h.core
            );
        }
        for c in core {
            let reached = HOOKS.iter().any(|h| h.core == c);
            // Scripts give refusal reasons through `forbidden_cells` items (`reason`), which
            // the host answers `explain_refusal` with natively.
            // Scripts do not filter other expansions' prompts (`filter_prompt_actions`).
            let exempt = c == "prepare_game"
                || c == "describe"
                || c == "explain_refusal"
                || c == "filter_prompt_actions";
            assert_eq!(reached, !exempt, "core hook `{c}`");
        }
    }

    #[test]
    fn definitions_are_found_for_error_positions() {
        let text = "// x\nfn helper() {}\n  fn on_tile_placed (x, y) {\n}\n";
        assert_eq!(definition(text, "on_tile_placed"), (3, 3));
        assert_eq!(definition(text, "on_tile"), (0, 0));
    }

    #[test]
    fn compile_reports_syntax_errors_and_hook_arity() {
        let e = compile_source("x", "1.0.0", "x.rhai".into(), "fn setup() {\n  let = 1;\n}")
            .unwrap_err();
        assert_eq!((e.line, e.hook.as_str()), (2, "compile"));
        assert!(e.message.starts_with("syntax error"), "{e}");
        let e = compile_source("x", "1.0.0", "x.rhai".into(), "fn strength() { 0 }").unwrap_err();
        assert!(
            e.message.contains("`strength` must take 1 parameter"),
            "{e}"
        );
        let ok = compile_source("x", "1.0.0", "x.rhai".into(), "fn strength(f) { 0 }").unwrap();
        assert!(ok.defines(Hook::Strength) && !ok.defines(Hook::Setup));
    }
}
