//! Compiling a script: [`CompiledScript`], [`compile`], [`compile_source`] and the checks made at load time.

use super::*;

/// A compiled script, shared by every ruleset that loads it.
pub struct CompiledScript {
    /// Expansion id.
    pub id: String,
    /// Version.
    pub version: String,
    /// The entry file.
    pub file: PathBuf,
    pub(crate) engine: rhai::Engine,
    pub(crate) ast: AST,
    defined: [bool; HOOK_COUNT],
    /// Per core hook (at its first script hook): whether any of its script hooks is defined.
    core_defined: [bool; HOOK_COUNT],
    /// Where each hook function is defined (line, column), for errors Rhai reports
    /// without a position (limits).
    pub(crate) defined_at: [(usize, usize); HOOK_COUNT],
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
        self.defined[h.index()]
    }

    /// Whether the script defines any script hook of `h`'s core hook (`h` its first).
    pub(crate) fn defines_core(&self, h: Hook) -> bool {
        self.core_defined[h.index()]
    }

    /// How a memoizable hook uses its parameters (`None`: the hook is not memoized).
    pub(crate) fn shape(&self, h: Hook) -> Option<&memo::Shape> {
        self.shapes[h.index()].as_ref()
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
    pub(crate) fn runtime_error(&self, hook: Hook, err: &EvalAltResult) -> ScriptError {
        let name = HOOKS[hook.index()].name;
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
            (out.line, out.column) = self.defined_at[hook.index()];
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
        core_defined: [false; HOOK_COUNT],
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
            script.defined[spec.hook.index()] = true;
            script.core_defined[Hook::of_core(spec.core).index()] = true;
            script.defined_at[spec.hook.index()] = definition(text, spec.name);
        }
    }
    script.ast = ast.clone_functions_only();
    for &h in memo::MEMO_HOOKS {
        if script.defined[h.index()] {
            let spec = &HOOKS[h.index()];
            script.shapes[h.index()] = Some(memo::analyze(
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
pub(crate) fn definition(text: &str, name: &str) -> (usize, usize) {
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
