//! A plugin whose turn-end hook panics.

use carcassonne_core::{Ctx, Expansion, HookResult, TurnEndVerdict};

struct Panics;

impl Expansion for Panics {
    fn id(&self) -> &str {
        "fixture-panics"
    }
    fn on_turn_end(&self, _: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        panic!("fixture panic in on_turn_end")
    }
}

carcassonne_core::export_expansion!("fixture-panics", Panics);
