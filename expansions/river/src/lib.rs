//! # River I (rules R1-1 … R1-10, `docs/rules/river.md`)
//!
//! The original river (Hans im Glück, 2001): the spring is the start tile, the ten river
//! tiles are played first, each continuing the river, never as an immediate U-turn, and the
//! lake comes last. The rules are River II's without the fork, so this crate binds the
//! shared [`RiverRules`] of `carcassonne-river-common` with River I's options
//! (`riverLookahead`, R1-6; `riverPlacement`, R1-10).
//!
//! **With River II** (R1-9) the two sets make one river, as JCloisterZone combines them
//! and as the publisher's answer says (one spring and one lake fewer): the spring `RI/s`
//! is one tile kind (both tile files define it alike), and River I only takes its own lake
//! out of the pack, in `prepare_game` before River II's, which then runs the whole river:
//! the fork first, River I's ten tiles mixed with River II's nine, the volcano last, under
//! River II's options.

use carcassonne_core::{
    Binder, Binding, BoundExpansion, Ctx, Declare, Expansion, HookResult, HookSet, StartTile,
    TileKindId,
};
use carcassonne_river_common::{declare_river, Opts, RiverRules};

/// R1-6 option key.
pub const LOOKAHEAD: &str = "river.riverLookahead";
/// R1-10 option key (`printed` / `fcz`).
pub const PLACEMENT: &str = "river.riverPlacement";

/// The tile set name of River I's tile file (its lake is the one left out with River II).
const SET: &str = "river";

/// The River I expansion. It keeps nothing about any ruleset.
#[derive(Debug, Default, Clone, Copy)]
pub struct River1;

impl River1 {
    /// The expansion (it serves any number of rulesets).
    pub fn new() -> Self {
        Self
    }
}

impl Expansion for River1 {
    fn id(&self) -> &str {
        "river"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let river = declare_river(d)?;
        Ok(Box::new(
            move |b: &Binding<'_>| -> HookResult<Box<dyn BoundExpansion>> {
                let rules = b.rules();
                if rules.expansion_index("river2").is_some() {
                    // R1-9: River II runs the combined river.
                    let lakes = rules
                        .tiles()
                        .iter()
                        .filter(|(_, k)| k.set == SET && k.has_tag("river-lake"))
                        .map(|(id, _)| id)
                        .collect();
                    return Ok(Box::new(WithRiver2 { lakes }));
                }
                let opts = Opts {
                    lookahead: b.option_flag("riverLookahead")?,
                    fcz_placement: b.option_str("riverPlacement")? == "fcz",
                    mixed: b.option_str("riverSetup")? == "mixed",
                    ..Opts::default()
                };
                Ok(Box::new(RiverRules::bind(rules, river, opts, false)))
            },
        ))
    }
}

/// River I beside River II (R1-9): its lake leaves the pack; River II does the rest.
#[derive(Debug)]
struct WithRiver2 {
    /// River I's lake kinds.
    lakes: Vec<TileKindId>,
}

impl BoundExpansion for WithRiver2 {
    fn hook_set(&self) -> HookSet {
        HookSet::GAME_START
    }

    /// R1-9: one lake fewer (River I's, as JCZ's set `river/2` removes it).
    fn prepare_game(&self, ctx: &mut Ctx<'_>, _start: &mut Vec<StartTile>) -> HookResult {
        for g in ctx.supply_mut().groups.iter_mut() {
            g.tiles.retain(|t| !self.lakes.contains(t));
        }
        Ok(())
    }
}

carcassonne_core::export_expansion!("river", River1::new());
