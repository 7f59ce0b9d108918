//! Building rulesets from expansion names and option strings.

use crate::tiles::base_tile_set;
use crate::HostError;
use carcassonne_core::{OptionValue, Ruleset};
use std::sync::Arc;

/// A ruleset description as given on the command line or in a record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RulesSpec {
    /// Expansion ids beyond the base game (none exist yet; see issue 3).
    pub expansions: Vec<String>,
    /// Options `key=value`, typed against the declared options.
    pub options: Vec<(String, String)>,
}

/// Builds the ruleset: base game, expansions, options.
pub fn build_ruleset(spec: &RulesSpec) -> Result<Arc<Ruleset>, HostError> {
    if let Some(e) = spec.expansions.iter().find(|e| e.as_str() != "base") {
        return Err(HostError::Usage(format!(
            "unknown expansion `{e}` (available: base)"
        )));
    }
    // Options are typed by their declaration, so build once to learn the declarations.
    let declared = Ruleset::builder().tiles(base_tile_set()).build()?;
    let mut b = Ruleset::builder().tiles(base_tile_set());
    for (k, v) in &spec.options {
        let def = declared
            .option_defs()
            .iter()
            .find(|d| &d.key == k)
            .ok_or_else(|| {
                HostError::Usage(format!(
                    "unknown option `{k}` (known: {})",
                    declared
                        .option_defs()
                        .iter()
                        .map(|d| d.key.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        let value = OptionValue::parse(&def.ty, v)
            .ok_or_else(|| HostError::Usage(format!("option `{k}`: `{v}` is not a valid value")))?;
        b = b.option(k, value);
    }
    Ok(Arc::new(b.build()?))
}

/// The base game with default options.
pub fn base_ruleset() -> Arc<Ruleset> {
    build_ruleset(&RulesSpec::default()).expect("the base game builds")
}

/// Parses `key=value`.
pub fn parse_option(text: &str) -> Result<(String, String), HostError> {
    text.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| HostError::Usage(format!("option `{text}`: expected key=value")))
}
