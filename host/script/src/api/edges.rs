//! `edge_meets(kind, other)` (`setup()` only): lets edges of two different kinds face each
//! other without joining, each ending there (The City Gates: a gate faces a road, a field or
//! another gate). The engine then matches placements side by side
//! (`Ruleset::edges_fit`) and closes both edges when such a pair meets.

use super::*;

pub(crate) fn register_edges(engine: &mut Engine) {
    engine.register_fn(
        "edge_meets",
        |nc: NativeCallContext, kind: &str, other: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (setup, _) = c.declarations()?;
            let named = |name: &str| {
                setup
                    .kind_named(name)
                    .ok_or_else(|| format!("edge_meets: no feature kind `{name}`"))
            };
            let (a, b) = (named(kind)?, named(other)?);
            setup
                .edge_meets(a, b)
                .map_err(|e| format!("edge_meets: {e}").into())
        },
    );
}
