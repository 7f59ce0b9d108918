//! The sandboxed Rhai engine every fan expansion runs in.
//!
//! What a script can reach is exactly what this module registers: Rhai's standard
//! package (arithmetic, strings, arrays, maps — no clock: the crate is built with
//! `no_time`, no float, no modules) and the game API of [`super::api`]. There is no file,
//! network or module access (`import` does not exist in this build), `eval` is disabled,
//! `print`/`debug` go nowhere, and every call runs under the [`Limits`] below, so a
//! script that loops forever or builds a huge value is stopped with an error.
//!
//! One gap is Rhai's: a map grown by index assignment (`m[k] = v`) is checked against the
//! map limit only when it is next used as a whole (passed to a function, returned,
//! `len()`, `+=`). Within one call it is still bounded by the operation limit, so the
//! memory a call can hold stays below `operations × string_size` and is freed when the
//! call ends (scripts keep nothing between calls but integer state).

use rhai::packages::{Package, StandardPackage};
use rhai::{Engine, OptimizationLevel};

/// The resource limits of one hook call (Rhai counts them per call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Operations (statements, expressions, calls) per hook call.
    pub operations: u64,
    /// Nested function calls.
    pub call_levels: usize,
    /// Expression nesting at the top level and inside functions.
    pub expr_depth: (usize, usize),
    /// Characters in one string.
    pub string_size: usize,
    /// Elements in one array.
    pub array_size: usize,
    /// Entries in one object map.
    pub map_size: usize,
    /// Variables alive in one scope.
    pub variables: usize,
    /// Functions a script may define.
    pub functions: usize,
}

/// The limits every script runs under.
pub const LIMITS: Limits = Limits {
    operations: 200_000,
    call_levels: 48,
    expr_depth: (64, 48),
    string_size: 4 * 1024,
    array_size: 10_000,
    map_size: 1_000,
    variables: 512,
    functions: 512,
};

/// A fresh engine with the sandbox settings and the game API registered.
pub fn new_engine() -> Engine {
    new_engine_traced().0
}

/// [`new_engine`], and the names of the traced game functions it registered.
pub(crate) fn new_engine_traced() -> (Engine, Vec<&'static str>) {
    let mut engine = Engine::new_raw();
    engine.register_global_module(StandardPackage::new().as_shared_module());
    engine.disable_symbol("eval");
    engine.on_print(|_| {});
    engine.on_debug(|_, _, _| {});
    engine.set_strict_variables(true);
    engine.set_fail_on_invalid_map_property(true);
    engine.set_optimization_level(OptimizationLevel::Simple);
    let l = LIMITS;
    engine.set_max_operations(l.operations);
    engine.set_max_call_levels(l.call_levels);
    engine.set_max_expr_depths(l.expr_depth.0, l.expr_depth.1);
    engine.set_max_string_size(l.string_size);
    engine.set_max_array_size(l.array_size);
    engine.set_max_map_size(l.map_size);
    engine.set_max_variables(l.variables);
    engine.set_max_functions(l.functions);
    let traced = super::api::register(&mut engine);
    (engine, traced)
}
