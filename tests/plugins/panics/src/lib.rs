//! A plugin whose turn-end hook panics.

use carcassonne_core::{
    binder, Binder, BoundExpansion, Ctx, Declare, Expansion, HookResult, TurnEndVerdict,
};

struct Panics;

impl Expansion for Panics {
    fn id(&self) -> &str {
        "fixture-panics"
    }
    fn declare(&self, _: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        Ok(binder(|_| Ok(PanicsRules)))
    }
}

/// `fixture-panics` bound to a ruleset.
struct PanicsRules;

impl BoundExpansion for PanicsRules {
    fn on_turn_end(&self, _: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        panic!("fixture panic in on_turn_end")
    }
}

carcassonne_core::export_expansion!("fixture-panics", Panics);
