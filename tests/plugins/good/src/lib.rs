//! A well-formed plugin: a final bonus of 7 points to seat 0.

use carcassonne_core::{
    binder, Binder, BoundExpansion, Ctx, Declare, Expansion, HookResult, LabelId, PlayerId,
};

struct Good;

impl Expansion for Good {
    fn id(&self) -> &str {
        "fixture-good"
    }
    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let label = d.score_label("fixture-bonus");
        Ok(binder(move |_| Ok(GoodRules { label })))
    }
}

/// `fixture-good` bound to a ruleset.
struct GoodRules {
    label: LabelId,
}

impl BoundExpansion for GoodRules {
    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        ctx.award(PlayerId(0), 7, self.label);
        Ok(())
    }
}

carcassonne_core::export_expansion!("fixture-good", Good);
