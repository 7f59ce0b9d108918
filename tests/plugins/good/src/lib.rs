//! A well-formed plugin: a final bonus of 7 points to seat 0.

use carcassonne_core::{Ctx, Expansion, HookResult, LabelId, PlayerId, Setup};

struct Good;

impl Expansion for Good {
    fn id(&self) -> &str {
        "fixture-good"
    }
    fn setup(&self, s: &mut Setup<'_>) -> HookResult {
        s.score_label("fixture-bonus");
        Ok(())
    }
    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let label = LabelId(
            ctx.rules()
                .labels()
                .iter()
                .position(|l| l == "fixture-bonus")
                .unwrap() as u16,
        );
        ctx.award(PlayerId(0), 7, label);
        Ok(())
    }
}

carcassonne_core::export_expansion!("fixture-good", Good);
