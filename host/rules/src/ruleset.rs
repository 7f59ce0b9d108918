//! Building rulesets from expansion names and option strings.
//!
//! Depends on [`crate::discovery`]; nothing here is used by it.

use crate::discovery::{discover, library_path, search_dirs};
use crate::RulesError;
use carcassonne_core::{Expansion, OptionDef, Ruleset, RulesetBuilder};
use carcassonne_files::manifest::{resolve, Kind, Manifest};
use carcassonne_files::tiles::{base_tile_set, load_tile_set};
use carcassonne_plugins::{load_plugin, LoadedPlugin};
use carcassonne_script::{compile, CompiledScript, ScriptExpansion};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A ruleset description as given on the command line or in a record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RulesSpec {
    /// Expansion ids beyond the base game.
    pub expansions: Vec<String>,
    /// Options `key=value`, typed against the declared options.
    pub options: Vec<(String, String)>,
    /// Extra folders to search for expansion manifests (`--plugin-dir`).
    pub plugin_dirs: Vec<PathBuf>,
}

/// Builds the ruleset: base game, expansions (resolved and loaded), options.
pub fn build_ruleset(spec: &RulesSpec) -> Result<Arc<Ruleset>, RulesError> {
    build_ruleset_with(spec, &[])
}

/// Like [`build_ruleset`], then adds in-process expansions after the loaded ones: test
/// doubles, embedders' own rules.
pub fn build_ruleset_with(
    spec: &RulesSpec,
    extra: &[Arc<dyn Expansion>],
) -> Result<Arc<Ruleset>, RulesError> {
    let requested: Vec<String> = spec
        .expansions
        .iter()
        .filter(|e| e.as_str() != "base")
        .cloned()
        .collect();
    // Load every expansion (libraries opened, scripts compiled).
    let loaded: Vec<Loaded> = if requested.is_empty() {
        Vec::new()
    } else {
        let available = discover(&search_dirs(&spec.plugin_dirs))?;
        let order = resolve(&requested, &available).map_err(|e| {
            let known: Vec<&str> = available.iter().map(|m| m.id.as_str()).collect();
            RulesError::Invalid(format!(
                "{e} (available: base{}{})",
                if known.is_empty() { "" } else { ", " },
                known.join(", ")
            ))
        })?;
        order
            .into_iter()
            .map(load_expansion)
            .collect::<Result<_, _>>()?
    };
    // Options are typed by their declarations (manifest or code) when the ruleset is
    // built, so one build suffices.
    let mut b = Ruleset::builder().tiles(base_tile_set());
    for l in &loaded {
        b = l.add_to(b);
    }
    for e in extra {
        b = b.expansion(e.clone());
    }
    for (k, v) in &spec.options {
        b = b.option_text(k, v);
    }
    Ok(Arc::new(b.build()?))
}

/// An expansion ready to be added to rulesets: its code, tiles and option declarations.
struct Loaded {
    id: String,
    /// The manifest's own vocabulary, declared before the expansion's code declares.
    vocabulary: Arc<crate::vocabulary::ManifestVocabulary>,
    code: LoadedCode,
    tiles: Vec<carcassonne_core::TileSetData>,
    options: Vec<OptionDef>,
}

enum LoadedCode {
    /// A native plugin.
    Native(LoadedPlugin),
    /// A compiled script.
    Script(Arc<CompiledScript>),
    /// Code linked into the program itself ([`linked_ruleset`]).
    Linked(Arc<dyn Expansion>),
}

impl Loaded {
    fn add_to(&self, mut b: RulesetBuilder) -> RulesetBuilder {
        let code: Arc<dyn Expansion> = match &self.code {
            LoadedCode::Native(p) => p.expansion.clone(),
            LoadedCode::Script(s) => Arc::new(ScriptExpansion::new(s.clone())),
            LoadedCode::Linked(e) => e.clone(),
        };
        b = b.expansion(self.vocabulary.wrap(code));
        for t in &self.tiles {
            b = b.tiles(t.clone());
        }
        for o in &self.options {
            b = b.declare_option(OptionDef {
                key: format!("{}.{}", self.id, o.key),
                ..o.clone()
            });
        }
        b
    }
}

/// The base game with one expansion whose code is linked into the caller (a plugin crate's
/// own tests, an embedder): the manifest at `manifest` is read, and its tiles, vocabulary and
/// options are added as for a loaded plugin, with `code` in place of its library. Then each
/// of `options` (a key without the expansion's prefix, and a value) is set.
pub fn linked_ruleset(
    manifest: &Path,
    code: Arc<dyn Expansion>,
    options: &[(&str, &str)],
) -> Result<Arc<Ruleset>, RulesError> {
    let m = crate::discovery::read_manifest(manifest)?;
    let loaded = with_manifest(&m, LoadedCode::Linked(code))?;
    let mut b = loaded.add_to(Ruleset::builder().tiles(base_tile_set()));
    for (k, v) in options {
        b = b.option_text(&format!("{}.{k}", m.id), v);
    }
    Ok(Arc::new(b.build()?))
}

/// Loads one resolved expansion: opens its library or compiles its script, reads its tiles.
fn load_expansion(m: &Manifest) -> Result<Loaded, RulesError> {
    let at = m.path.display();
    let code = match m.kind {
        Kind::Script => LoadedCode::Script(compile(m)?),
        Kind::Native => {
            let lib = library_path(m).ok_or_else(|| {
                RulesError::Invalid(format!(
                    "{at}: library `{}` of expansion `{}` not found beside the manifest or the program (build it with `cargo build --release --workspace`)",
                    m.library.as_deref().unwrap_or("?"),
                    m.id
                ))
            })?;
            let plugin = load_plugin(&lib)?;
            if plugin.id != m.id || plugin.version != m.version.to_string() {
                return Err(RulesError::Invalid(format!(
                    "{}: the library is `{}` {}, but the manifest {at} says `{}` {}",
                    lib.display(),
                    plugin.id,
                    plugin.version,
                    m.id,
                    m.version
                )));
            }
            LoadedCode::Native(plugin)
        }
    };
    with_manifest(m, code)
}

/// An expansion's code with what its manifest adds: tiles, vocabulary, options.
fn with_manifest(m: &Manifest, code: LoadedCode) -> Result<Loaded, RulesError> {
    Ok(Loaded {
        id: m.id.clone(),
        vocabulary: Arc::new(crate::vocabulary::ManifestVocabulary::of(m)),
        code,
        tiles: m
            .tiles
            .iter()
            .map(|t| load_tile_set(t))
            .collect::<Result<_, _>>()?,
        options: m.options.clone(),
    })
}

/// The base game with default options.
pub fn base_ruleset() -> Arc<Ruleset> {
    build_ruleset(&RulesSpec::default()).expect("the base game builds")
}

/// Parses `key=value`.
pub fn parse_option(text: &str) -> Result<(String, String), RulesError> {
    text.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| RulesError::Invalid(format!("option `{text}`: expected key=value")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use carcassonne_core::{binder, Binder, BoundExpansion, Declare, HookResult};

    /// No rules at all: the code a test links in place of a library.
    struct Nothing;
    struct NoHooks;
    impl BoundExpansion for NoHooks {}
    impl Expansion for Nothing {
        fn id(&self) -> &str {
            "abbot-garden"
        }
        fn declare(&self, _: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
            Ok(binder(|_| Ok(NoHooks)))
        }
    }

    #[test]
    fn a_linked_expansion_gets_its_manifests_options() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("expansion.toml");
        std::fs::write(
            &manifest,
            "[expansion]\nid = \"abbot-garden\"\nname = \"t\"\nversion = \"1.0.0\"\n\
             api = \"1.0\"\nkind = \"native\"\nlibrary = \"t\"\n\
             [options.gardens]\ntype = \"bool\"\ndefault = true\n",
        )
        .unwrap();
        let r = linked_ruleset(&manifest, Arc::new(Nothing), &[("gardens", "false")]).unwrap();
        assert!(r.expansion_index("abbot-garden").is_some());
        assert!(!r.options().flag("abbot-garden.gardens"));
        let e = linked_ruleset(&manifest, Arc::new(Nothing), &[("nope", "1")]).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
    }

    #[test]
    fn a_missing_manifest_is_refused_with_its_path() {
        let e = linked_ruleset(Path::new("/nowhere/expansion.toml"), Arc::new(Nothing), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nowhere/expansion.toml"), "{e}");
    }
}
