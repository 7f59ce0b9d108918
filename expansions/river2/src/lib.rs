//! # River II (rules RV-1 … RV-10)
//!
//! The fork and the volcano of *Count, King & Robber*'s river. The rules themselves are
//! `carcassonne-river-common`'s ([`RiverRules`], shared with River I); this crate declares
//! River II's options and binds them:
//!
//! - `riverEnds` (RV-3): `both-last` holds the river-into-city end back with the volcano;
//! - `riverLookahead` (RV-7, JCZ), `volcanoExtraTile` (RV-9);
//! - FanCloisterZone's `riverLakes=per-branch` and `riverPlacement=fcz` (`jcz-saves.md`
//!   §4, §13; the JCZ importer turns both on).
//!
//! With River I loaded too, River I drops its own lake and spring and this crate's rules
//! run the combined river (`docs/rules/river.md`, R1-9).

use carcassonne_core::{binder, Binder, Binding, Declare, Expansion, HookResult};
use carcassonne_river_common::{declare_river, Opts, RiverRules};

/// RV-3 option key.
pub const RIVER_ENDS: &str = "river2.riverEnds";
/// RV-7 option key.
pub const LOOKAHEAD: &str = "river2.riverLookahead";
/// RV-9 option key.
pub const VOLCANO_EXTRA: &str = "river2.volcanoExtraTile";
/// FanCloisterZone's lake count (`printed` / `per-branch`).
pub const LAKES: &str = "river2.riverLakes";
/// FanCloisterZone's placement rule (`printed` / `fcz`).
pub const PLACEMENT: &str = "river2.riverPlacement";

/// The River II expansion: declares the river kind and binds to a ruleset as a
/// [`RiverRules`]. It keeps nothing about any ruleset.
#[derive(Debug, Default, Clone, Copy)]
pub struct River2;

impl River2 {
    /// The expansion (it serves any number of rulesets).
    pub fn new() -> Self {
        Self
    }
}

/// The options by their short names ([`LOOKAHEAD`], [`VOLCANO_EXTRA`], [`PLACEMENT`],
/// [`LAKES`] without the `river2.` prefix).
fn read_opts(b: &Binding<'_>) -> HookResult<Opts> {
    Ok(Opts {
        lookahead: b.option_flag("riverLookahead")?,
        volcano_extra: b.option_flag("volcanoExtraTile")?,
        fcz_placement: b.option_str("riverPlacement")? == "fcz",
        lakes_per_branch: b.option_str("riverLakes")? == "per-branch",
        mixed: b.option_str("riverSetup")? == "mixed",
    })
}

impl Expansion for River2 {
    fn id(&self) -> &str {
        "river2"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let river = declare_river(d)?;
        Ok(binder(move |b: &Binding<'_>| {
            let both_last = b.option_str("riverEnds")? == "both-last";
            Ok(RiverRules::bind(b.rules(), river, read_opts(b)?, both_last))
        }))
    }
}

carcassonne_core::export_expansion!("river2", River2::new());
