//! The scripting reference, generated from what the host actually registers ([`HOOKS`],
//! [`FUNCTIONS`], [`LIMITS`]): `carcassonne expansions api` prints it and
//! `docs/modding.md` embeds it (a test keeps the two in sync).

use super::api::FUNCTIONS;
use super::{HOOKS, LIMITS};
use std::fmt::Write;

/// The Markdown reference: hooks, functions by group, limits.
pub fn markdown() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### Hooks\n");
    let _ = writeln!(out, "| function | returns | called |");
    let _ = writeln!(out, "|---|---|---|");
    for h in HOOKS {
        let _ = writeln!(
            out,
            "| `{}({})` | {} | {} |",
            h.name,
            h.params.join(", "),
            h.returns.replace('|', "\\|"),
            h.doc.replace('|', "\\|")
        );
    }
    for (group, title) in [
        ("setup", "Declarations (only in `setup()`)"),
        ("rules", "The rules (every hook, `filters_tile` included)"),
        ("read", "Reading the game (every hook but `setup` and `filters_tile`)"),
        (
            "command",
            "Commands (hooks that return nothing: `start_game`, `on_*`, `window_*`, `apply_*`, `after_scoring`, `before_scoring`, `final_scoring`, `on_turn_end`)",
        ),
        ("action", "Building actions (anywhere)"),
    ] {
        let _ = writeln!(out, "\n### {title}\n");
        let _ = writeln!(out, "| function | what it does |");
        let _ = writeln!(out, "|---|---|");
        for f in FUNCTIONS.iter().filter(|f| f.group == group) {
            let _ = writeln!(
                out,
                "| `{}` | {} |",
                f.signature.replace('|', "\\|"),
                f.doc.replace('|', "\\|")
            );
        }
    }
    let l = LIMITS;
    let _ = writeln!(out, "\n### Limits (per hook call)\n");
    let _ = writeln!(out, "| limit | value |");
    let _ = writeln!(out, "|---|---|");
    for (name, value) in [
        ("operations", l.operations.to_string()),
        ("nested calls", l.call_levels.to_string()),
        (
            "expression depth (top level / in functions)",
            format!("{} / {}", l.expr_depth.0, l.expr_depth.1),
        ),
        ("string length (characters)", l.string_size.to_string()),
        ("array or BLOB elements", l.array_size.to_string()),
        ("object map entries", l.map_size.to_string()),
        ("variables in scope", l.variables.to_string()),
        ("functions per script", l.functions.to_string()),
    ] {
        let _ = writeln!(out, "| {name} | {value} |");
    }
    out
}
