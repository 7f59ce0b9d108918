//! # Bridges, Castles & Bazaars (rules BCB-1 … BCB-16, `docs/rules/bridges-castles-bazaars.md`)
//!
//! JCZ sets `bridges-castles-and-bazaars:1` / `:2`: 12 land tiles (`tiles.toml`; tile tag
//! `bazaar`, city tag `no-castle`, road tag `inn`).
//!
//! **What plays today (BCB-1, BCB-2).** The tiles, shuffled into the supply and placed by the
//! base rules; the inns on `BB/R.bi` and `BB/RFR.bi` score as inns when Inns & Cathedrals is
//! loaded (its IC-5 reads the `inn` tag), and JCZ's wagon links are tagged for Abbey & Mayor.
//!
//! **Not played yet.** Bridges (BCB-4 … BCB-8) need a placement rule core does not offer: a
//! bridge makes legal a placement whose edges do not match, and adds a road to a placed tile.
//! Castles (BCB-9 … BCB-12) and the bazaar auction (BCB-13 … BCB-16) are written as rules;
//! their hooks are the next step. Until then the plugin hooks nothing (`HookSet::NONE`), so it
//! costs no time per decision.

use carcassonne_core::{
    binder, Binder, Binding, BoundExpansion, Declare, Expansion, HookResult, HookSet,
};

/// The tile tag of a tile showing a bazaar (BCB-3).
pub const BAZAAR_TAG: &str = "bazaar";
/// The city tag of a one-sided city that can never hold a castle (BCB-9, JCZ `castle-base`).
pub const NO_CASTLE_TAG: &str = "no-castle";

/// The expansion (stateless; one value serves every ruleset).
#[derive(Debug, Default)]
pub struct BridgesCastlesBazaars;

impl BridgesCastlesBazaars {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// The expansion bound to one ruleset: nothing to remember yet.
struct BcbRules;

impl Expansion for BridgesCastlesBazaars {
    fn id(&self) -> &str {
        "bridges-castles-bazaars"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, _d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        Ok(binder(|_b: &Binding<'_>| Ok(BcbRules)))
    }
}

impl BoundExpansion for BcbRules {
    /// BCB-1, BCB-2: the tiles play by the base rules; no hook is needed for them.
    fn hook_set(&self) -> HookSet {
        HookSet::NONE
    }
}

carcassonne_core::export_expansion!("bridges-castles-bazaars", BridgesCastlesBazaars::new());
