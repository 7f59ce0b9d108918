//! `carcassonne expansions list`: the base game and every expansion found.
//!
//! Uses [`crate::discovery`] and [`crate::base_ruleset`]; neither uses it (before the host
//! was split into crates, discovery and rule building called each other through this).

use crate::discovery::{discover, search_dirs};
use crate::RulesError;
use carcassonne_files::manifest::Kind;
use carcassonne_files::tiles::load_tile_set;
use std::path::PathBuf;

/// One line of `carcassonne expansions list`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ExpansionInfo {
    /// Id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Version.
    pub version: String,
    /// `builtin`, `native` or `script`.
    pub kind: String,
    /// Options with defaults (full keys).
    pub options: Vec<OptionInfo>,
    /// Tiles the expansion adds (copies).
    pub tiles: u32,
    /// The manifest (absent for the built-in base game).
    pub manifest: Option<String>,
}

/// An option in the listing.
#[derive(Clone, Debug, serde::Serialize)]
pub struct OptionInfo {
    /// Full key.
    pub key: String,
    /// Default value as text.
    pub default: String,
    /// Type and range (the web page's checkbox, dropdown or number box).
    #[serde(rename = "type")]
    pub ty: carcassonne_core::OptionType,
    /// Description.
    pub description: String,
}

/// The base game and every expansion found in the search folders.
pub fn list_expansions(extra: &[PathBuf]) -> Result<Vec<ExpansionInfo>, RulesError> {
    let base = crate::base_ruleset();
    let mut out = vec![ExpansionInfo {
        id: "base".into(),
        name: "Carcassonne (base game)".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        kind: "builtin".into(),
        options: base
            .option_defs()
            .iter()
            .map(|d| OptionInfo {
                key: d.key.clone(),
                default: d.default.to_string(),
                ty: d.ty.clone(),
                description: d.description.clone(),
            })
            .collect(),
        tiles: base.tiles().iter().map(|(_, k)| k.count as u32).sum(),
        manifest: None,
    }];
    for m in discover(&search_dirs(extra))? {
        let mut tiles = 0u32;
        for t in &m.tiles {
            tiles += load_tile_set(t)?
                .tiles
                .iter()
                .map(|t| t.count as u32)
                .sum::<u32>();
        }
        out.push(ExpansionInfo {
            id: m.id.clone(),
            name: m.name.clone(),
            version: m.version.to_string(),
            kind: match m.kind {
                Kind::Native => "native".into(),
                Kind::Script => "script".into(),
            },
            options: m
                .options
                .iter()
                .map(|o| OptionInfo {
                    key: format!("{}.{}", m.id, o.key),
                    default: o.default.to_string(),
                    ty: o.ty.clone(),
                    description: o.description.clone(),
                })
                .collect(),
            tiles,
            manifest: Some(m.path.display().to_string()),
        });
    }
    Ok(out)
}
