//! `open_kind` (`setup()` only): a rule that lets followers stand on a kind another
//! expansion declared closed and unscored (fans' fishermen on River I's river).

use super::*;
use carcassonne_core::Scoring;

pub(crate) fn register_kinds(engine: &mut Engine) {
    // open_kind(kind, complete_tile, end_tile): followers may stand on `kind`, and its
    // features go to the majority like a road's, worth `complete_tile` per tile when
    // complete and `end_tile` per tile at the end of the game. `false` when no loaded
    // expansion declares `kind` (nothing to open: Fishermen without a river).
    engine.register_fn(
        "open_kind",
        |nc: NativeCallContext, kind: &str, complete_tile: INT, end_tile: INT| -> R<bool> {
            let mut c = call(&nc)?;
            let (setup, _) = c.declarations()?;
            let Some(k) = setup.kind_named(kind) else {
                return Ok(false);
            };
            let per_tile = |v: INT, what: &str| -> R<i32> {
                if (-100..=100).contains(&v) {
                    Ok(v as i32)
                } else {
                    err(format!("open_kind: `{what}` {v} is outside -100…100"))
                }
            };
            let scoring = Scoring::Points {
                complete_tile: per_tile(complete_tile, "complete_tile")?,
                complete_marker: 0,
                end_tile: per_tile(end_tile, "end_tile")?,
                end_marker: 0,
            };
            setup
                .open_kind(k, scoring)
                .map(|()| true)
                .map_err(|e| format!("open_kind: {e}").into())
        },
    );
}
