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
//! [`BoundExpansion::deploy_step_actions`], …; the table is [`HOOKS`], generated from
//! core's hook table, and every hook goes through one generic binding, `bound/pass.rs`).
//! Only functions the script defines are called, and [`BoundExpansion::hook_set`] tells
//! core which those are, so an expansion pays nothing for the hooks it leaves out.
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
//! (`memo/`): a later call with the same arguments, whose game functions return the same
//! values again, gets the remembered answer without running the script (the game
//! functions are run natively to check, the state values it set are set, its awards
//! made). A per-turn hook that reads a few values costs about as much as the reads. What
//! a script sees and does is exactly what it would with the script run.

pub mod api;
mod bound;
mod compile;
mod decl;
mod hooks;
pub mod limits;
mod memo;
pub mod reference;
mod sandbox;

pub use limits::{LoadLimits, LOAD_LIMITS};
pub use sandbox::{new_engine, Limits, LIMITS};

use carcassonne_core::{
    binder, Action, Award, Binder, Binding, BoundExpansion, Ctx, CustomAction, Declare,
    DrawVerdict, Expansion, FigureId, HookFailure, HookGate, HookResult, HookSet, LabelId, Offered,
    PlacementCell, PlayerId, Pos, Prompt, PromptCode, PromptKind, RemovalReason, Ruleset,
    ScoreDraft, SegmentId, SlotId, SlotRef, SlotScope, StartTile, TileKindId, TurnEndVerdict,
    VerbId, View, Visible, Window,
};
use carcassonne_files::manifest::Manifest;
use memo::{Cached, Found, Param};
use rhai::{Array, CallFnOptions, Dynamic, EvalAltResult, Map, Position, Scope, AST};
use std::path::PathBuf;
use std::sync::Arc;
use thread_local::ThreadLocal;

pub use bound::*;
pub use compile::*;
pub use decl::*;
pub use hooks::*;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_table_is_indexed_by_the_role() {
        for (i, h) in HOOKS.iter().enumerate() {
            assert_eq!(h.hook.index(), i, "{}", h.name);
            assert_eq!(Hook::named(h.name), h.hook, "{}", h.name);
        }
        assert_eq!(HOOKS.len(), HOOK_COUNT);
    }

    /// The script API is enumerated against core's one hook table: every core hook, in
    /// core's order, is reached by at least one script hook (so a hook added to core's
    /// table is a script hook with no other edit), every script hook rides on a core hook,
    /// every window of core has its own script hook, and a script hook's parameters are
    /// the ones its core arguments give unless its form says otherwise.
    #[test]
    fn the_script_api_is_core_hook_table() {
        use carcassonne_core::hooks::Window;
        let core: Vec<&str> = carcassonne_core::HOOKS.iter().map(|h| h.name).collect();
        let mut reached: Vec<&str> = HOOKS.iter().map(|h| h.core).collect();
        reached.dedup();
        assert_eq!(
            reached, core,
            "script hooks follow core's table, one run per hook"
        );
        let mut windows: Vec<Hook> = Window::ALL.iter().map(|w| bound::window_hook(*w)).collect();
        windows.sort();
        windows.dedup();
        assert_eq!(
            windows.len(),
            Window::ALL.len(),
            "one script hook per window"
        );
        let open = HOOKS.iter().filter(|h| h.core == "open_window").count();
        assert_eq!(open, Window::ALL.len(), "every window of core");
        // Parameters derived from core's argument names (a cell is `x, y`; the context,
        // the view and pure outputs give none).
        let spec = |n: &str| HOOKS.iter().find(|h| h.name == n).unwrap();
        assert_eq!(spec("on_tile_placed").params, ["x", "y"]);
        assert_eq!(
            spec("apply_prompt").params,
            ["player", "code", "arg", "action"]
        );
        assert_eq!(spec("describe").params, [] as [&str; 0]);
        assert_eq!(spec("explain_refusal").params, ["player", "action"]);
        assert_eq!(spec("explain_refusal").guard_arg, GuardArg::Player);
        assert_eq!(spec("strength").guard_arg, GuardArg::Figure);
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
