//! Expansion manifests (`expansion.toml`), shared by native and script expansions, and the
//! deterministic resolution of a requested set of expansions into a load order.
//!
//! ```toml
//! [expansion]
//! id = "king-robber"          # ^[a-z][a-z0-9-]*$
//! name = "King & Robber Baron"
//! version = "1.0.0"           # semver
//! api = "1.0"                 # engine API: same major, minor <= the host's
//! kind = "native"             # or "script"
//! library = "carcassonne_king_robber"   # native: library name without prefix/suffix
//!
//! [dependencies]
//! requires = [{ id = "base", version = ">=1.0" }]
//! optional = []
//! conflicts = []
//!
//! [load]
//! after = []
//! before = []
//!
//! [assets]
//! tiles = ["tiles.toml"]
//!
//! [options.kingRobberAward] # key: ^[A-Za-z][A-Za-z0-9_-]*$
//! type = "choice"
//! values = ["per-feature", "10/20", "15/40", "continuously"]
//! default = "per-feature"
//! description = "KR-7 award mode"
//!
//! [jcz]                     # what the JCloisterZone importer needs (crate::jcz)
//! sets = ["king-and-robber:1"]
//! ```
//!
//! `[prompts]` (names of prompt tags) and `[jcz]` are checked in [`crate::jcz`].

use crate::jcz::JczDeclaration;
use crate::vocabulary::{self, DeclaredFigure, DeclaredKind};
use carcassonne_core::{OptionDef, OptionType, OptionValue};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The engine API version this host implements.
/// 1.1: manifests may declare `[[feature-kinds]]` and `[[figures]]`.
/// 1.2: figures may be `neutral` (nobody's) or `shares` features, and have a `colour`.
/// 1.3: scripts give verbs and prompts the words players read (`declare_verb(name, text
/// [, value])`, `declare_prompt`) and offer per junction (`offer_per_corner`).
/// 1.4: the hook `on_figure_placed` (a figure came onto a segment).
/// 1.5: `mark_tag(tag)` in `setup()` and `feature_has_tag(segment, tag)`.
pub const ENGINE_API: (u64, u64) = (1, 5);

/// What is wrong with a manifest or a set of manifests.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// Bad TOML or a field of the wrong type/unknown (message has line and column).
    #[error("{path}: {message}")]
    Syntax {
        /// The file.
        path: String,
        /// Parser message.
        message: String,
    },
    /// A field has a bad value.
    #[error("{path}:{line}: `{field}`: {message}")]
    Field {
        /// The file.
        path: String,
        /// Line (1-based) of the value.
        line: usize,
        /// Field path.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// Requested or required expansion not found.
    #[error("{}expansion `{id}` is not available{}", at.as_ref().map(|a| format!("{a}: ")).unwrap_or_default(), needed_by.as_ref().map(|n| format!(" (required by `{n}`)")).unwrap_or_default())]
    Missing {
        /// The missing id.
        id: String,
        /// Who requires it.
        needed_by: Option<String>,
        /// Where it is required (`file:line: \`field\``).
        at: Option<String>,
    },
    /// A dependency's version does not satisfy the requirement.
    #[error("{at}: `{by}` requires `{id}` {req}, but version {found} is available")]
    Version {
        /// Where it is required.
        at: String,
        /// The required expansion.
        id: String,
        /// The requirement.
        req: String,
        /// The version found.
        found: String,
        /// Who requires it.
        by: String,
    },
    /// Two loaded expansions conflict.
    #[error("{at}: `{a}` conflicts with `{b}`")]
    Conflict {
        /// Where the conflict is declared.
        at: String,
        /// One side.
        a: String,
        /// The other.
        b: String,
    },
    /// Ordering constraints form a cycle.
    #[error("load order cycle among: {} ({})", cycle.join(", "), edges.join("; "))]
    Cycle {
        /// The expansions that could not be ordered (the cycle and what waits on it).
        cycle: Vec<String>,
        /// The ordering declarations among them, `file:line: \`field\` → id`.
        edges: Vec<String>,
    },
    /// Two manifests with one id.
    #[error("expansion `{id}` is defined twice: {first} and {second}")]
    Duplicate {
        /// The id.
        id: String,
        /// First file.
        first: String,
        /// Second file.
        second: String,
    },
}

/// Native or script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A compiled plugin.
    Native,
    /// A Rhai script.
    Script,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    expansion: RawMeta,
    #[serde(default)]
    dependencies: RawDeps,
    #[serde(default)]
    load: RawLoad,
    #[serde(default)]
    assets: RawAssets,
    #[serde(default)]
    options: BTreeMap<String, toml::Spanned<RawOption>>,
    #[serde(default, rename = "feature-kinds")]
    feature_kinds: Vec<toml::Spanned<vocabulary::RawKind>>,
    #[serde(default)]
    figures: Vec<toml::Spanned<vocabulary::RawFigure>>,
    #[serde(default)]
    prompts: BTreeMap<String, toml::Spanned<u16>>,
    // Not `Spanned`: a section given only as `[[jcz.actions]]` is an implicit table.
    jcz: Option<crate::jcz::RawJcz>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMeta {
    id: toml::Spanned<String>,
    name: String,
    version: toml::Spanned<String>,
    api: toml::Spanned<String>,
    kind: Kind,
    library: Option<String>,
    entry: Option<toml::Spanned<String>>,
    #[serde(default)]
    authors: Vec<String>,
    #[serde(default)]
    description: String,
    license: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeps {
    #[serde(default)]
    requires: Vec<RawDep>,
    #[serde(default)]
    optional: Vec<RawDep>,
    #[serde(default)]
    conflicts: Vec<RawDep>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDep {
    id: toml::Spanned<String>,
    version: Option<toml::Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLoad {
    #[serde(default)]
    after: Vec<toml::Spanned<String>>,
    #[serde(default)]
    before: Vec<toml::Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAssets {
    #[serde(default)]
    tiles: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOption {
    #[serde(rename = "type")]
    ty: String,
    default: toml::Value,
    values: Option<Vec<String>>,
    range: Option<[i64; 2]>,
    #[serde(default)]
    description: String,
}

/// A dependency reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepRef {
    /// Expansion id.
    pub id: String,
    /// Version requirement (any version if absent).
    pub version: Option<semver::VersionReq>,
    /// Line of the entry in the manifest.
    pub line: usize,
}

/// A checked manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The file it came from.
    pub path: PathBuf,
    /// Id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Version.
    pub version: semver::Version,
    /// Engine API it targets.
    pub api: (u64, u64),
    /// Native or script.
    pub kind: Kind,
    /// Native: library name (without platform prefix/suffix).
    pub library: Option<String>,
    /// Script: entry file, relative to the manifest.
    pub entry: Option<PathBuf>,
    /// Line of `entry` in the manifest (0 if absent).
    pub entry_line: usize,
    /// Authors.
    pub authors: Vec<String>,
    /// Description.
    pub description: String,
    /// Licence.
    pub license: Option<String>,
    /// Required expansions.
    pub requires: Vec<DepRef>,
    /// Optional expansions (ordered after, if present).
    pub optional: Vec<DepRef>,
    /// Incompatible expansions.
    pub conflicts: Vec<DepRef>,
    /// Soft ordering: load after these if present.
    pub after: Vec<String>,
    /// Soft ordering: load before these if present.
    pub before: Vec<String>,
    /// Lines of the `after` and `before` entries, in the same order.
    pub order_lines: (Vec<usize>, Vec<usize>),
    /// Tile files, relative to the manifest.
    pub tiles: Vec<PathBuf>,
    /// Options, keys without the expansion prefix.
    pub options: Vec<OptionDef>,
    /// Feature kinds it declares (`[[feature-kinds]]`).
    pub feature_kinds: Vec<DeclaredKind>,
    /// Figure kinds it declares (`[[figures]]`).
    pub figures: Vec<DeclaredFigure>,
    /// Names of its prompt tags (`[prompts]`), in name order.
    pub prompts: Vec<(String, u16)>,
    /// What it tells the JCloisterZone importer (`[jcz]`; empty if absent).
    pub jcz: JczDeclaration,
}

impl Manifest {
    /// `file:line: \`field\``, for errors about one entry of this manifest.
    pub fn at(&self, line: usize, field: &str) -> String {
        format!("{}:{line}: `{field}`", self.path.display())
    }
}

fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// What an option key (`[options.<key>]`) may be, as a regular expression (for messages).
pub const OPTION_KEY_PATTERN: &str = "^[A-Za-z][A-Za-z0-9_-]*$";

/// Whether `key` may name an option in a manifest: an ASCII letter, then ASCII letters,
/// digits, `-` and `_` (camelCase or kebab-case; [`OPTION_KEY_PATTERN`]). Players write it
/// after the expansion id (`--option pilgrims.perPlayer=3`) and scripts read it with
/// `option("perPlayer")`, so it may hold neither dots, `=`, spaces nor other characters.
pub fn valid_option_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|b| *b == b'\n')
        .count()
        + 1
}

/// Parses and checks manifest text; `path` names the file in errors and anchors relative paths.
pub fn parse_manifest(text: &str, path: &Path) -> Result<Manifest, ManifestError> {
    let file = path.display().to_string();
    let raw: RawManifest = toml::from_str(text).map_err(|e| ManifestError::Syntax {
        path: file.clone(),
        message: e.to_string().trim_end().replace('\n', " "),
    })?;
    let field = |span: std::ops::Range<usize>, field: &str, message: String| ManifestError::Field {
        path: file.clone(),
        line: line_of(text, span.start),
        field: field.to_string(),
        message,
    };
    let m = &raw.expansion;
    if !valid_id(m.id.get_ref()) {
        return Err(field(
            m.id.span(),
            "expansion.id",
            format!("`{}` must match ^[a-z][a-z0-9-]*$", m.id.get_ref()),
        ));
    }
    let version = semver::Version::parse(m.version.get_ref()).map_err(|e| {
        field(
            m.version.span(),
            "expansion.version",
            format!("`{}` is not a semantic version: {e}", m.version.get_ref()),
        )
    })?;
    let api = m
        .api
        .get_ref()
        .split_once('.')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .ok_or_else(|| {
            field(
                m.api.span(),
                "expansion.api",
                format!("`{}` is not MAJOR.MINOR", m.api.get_ref()),
            )
        })?;
    if api.0 != ENGINE_API.0 || api.1 > ENGINE_API.1 {
        return Err(field(
            m.api.span(),
            "expansion.api",
            format!(
                "targets engine API {}.{}, this program implements {}.{}",
                api.0, api.1, ENGINE_API.0, ENGINE_API.1
            ),
        ));
    }
    let kind_field = |missing: &str| field(m.id.span(), "expansion", missing.to_string());
    match m.kind {
        Kind::Native if m.library.is_none() => {
            return Err(kind_field("a native expansion needs `library`"))
        }
        Kind::Script if m.entry.is_none() => {
            return Err(kind_field("a script expansion needs `entry`"))
        }
        _ => {}
    }
    let deps = |list: &[RawDep], what: &str| -> Result<Vec<DepRef>, ManifestError> {
        list.iter()
            .map(|d| {
                let version = d
                    .version
                    .as_ref()
                    .map(|v| {
                        semver::VersionReq::parse(v.get_ref()).map_err(|e| {
                            field(
                                v.span(),
                                &format!("dependencies.{what}"),
                                format!("`{}`: {e}", v.get_ref()),
                            )
                        })
                    })
                    .transpose()?;
                Ok(DepRef {
                    id: d.id.get_ref().clone(),
                    version,
                    line: line_of(text, d.id.span().start),
                })
            })
            .collect()
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    // Option keys first, in file order: the first bad one is reported.
    let mut keys: Vec<_> = raw.options.iter().collect();
    keys.sort_by_key(|(_, o)| o.span().start);
    if let Some((name, spanned)) = keys.into_iter().find(|(k, _)| !valid_option_key(k)) {
        return Err(field(
            spanned.span(),
            &format!("options.{name}"),
            format!(
                "`{name}` is not a valid option key: it must match {OPTION_KEY_PATTERN} \
                 (an ASCII letter, then ASCII letters, digits, `-` or `_`)"
            ),
        ));
    }
    let mut options = Vec::new();
    for (name, spanned) in &raw.options {
        let o = spanned.get_ref();
        let at = |message: String| field(spanned.span(), &format!("options.{name}"), message);
        let (ty, default) = match (o.ty.as_str(), &o.default) {
            ("bool", toml::Value::Boolean(b)) => (OptionType::Bool, OptionValue::Bool(*b)),
            ("int", toml::Value::Integer(i)) => {
                let [min, max] = o
                    .range
                    .ok_or_else(|| at("an int option needs `range = [min, max]`".into()))?;
                (OptionType::Int { min, max }, OptionValue::Int(*i))
            }
            ("choice", toml::Value::String(s)) => {
                let values = o
                    .values
                    .clone()
                    .ok_or_else(|| at("a choice option needs `values`".into()))?;
                (OptionType::Choice(values), OptionValue::Str(s.clone()))
            }
            ("bool" | "int" | "choice", v) => {
                return Err(at(format!("default `{v}` does not match type `{}`", o.ty)))
            }
            (t, _) => return Err(at(format!("type `{t}` is not one of bool, int, choice"))),
        };
        if !default.fits(&ty) {
            return Err(at(format!(
                "default `{default}` is outside the allowed values"
            )));
        }
        options.push(OptionDef {
            key: name.clone(),
            ty,
            default,
            description: o.description.clone(),
        });
    }
    if api < (1, 1) && (!raw.feature_kinds.is_empty() || !raw.figures.is_empty()) {
        return Err(field(
            m.api.span(),
            "expansion.api",
            format!(
                "`[[feature-kinds]]` and `[[figures]]` need engine API 1.1 or later (this manifest targets {}.{})",
                api.0, api.1
            ),
        ));
    }
    let mut feature_kinds: Vec<DeclaredKind> = Vec::new();
    for (i, k) in raw.feature_kinds.iter().enumerate() {
        let at = |(f, message): vocabulary::FieldError| {
            field(k.span(), &format!("feature-kinds[{i}].{f}"), message)
        };
        let def = vocabulary::kind(k.get_ref()).map_err(at)?;
        if feature_kinds.iter().any(|d| d.def.name == def.name) {
            return Err(at((
                "name".into(),
                format!("`{}` is declared twice", def.name),
            )));
        }
        feature_kinds.push(DeclaredKind {
            def,
            line: line_of(text, k.span().start),
        });
    }
    let mut figures: Vec<DeclaredFigure> = Vec::new();
    for (i, f) in raw.figures.iter().enumerate() {
        let line = line_of(text, f.span().start);
        let at = |(fl, message): vocabulary::FieldError| {
            field(f.span(), &format!("figures[{i}].{fl}"), message)
        };
        let fig = vocabulary::figure(f.get_ref(), line).map_err(at)?;
        if api < (1, 2) && (fig.neutral > 0 || fig.shares || !fig.colour.is_empty()) {
            return Err(at((
                if fig.neutral > 0 { "neutral" } else if fig.shares { "shares" } else { "colour" }.into(),
                format!(
                    "neutral figures, `shares` and `colour` need engine API 1.2 or later (this manifest targets {}.{})",
                    api.0, api.1
                ),
            )));
        }
        if figures.iter().any(|d| d.name == fig.name) {
            return Err(at((
                "name".into(),
                format!("`{}` is declared twice", fig.name),
            )));
        }
        figures.push(fig);
    }
    let jcz_field = |(f, span, message): crate::jcz::JczFieldError| field(span, &f, message);
    let prompts = crate::jcz::prompt_names(&raw.prompts).map_err(jcz_field)?;
    let jcz = match &raw.jcz {
        Some(j) => crate::jcz::declaration(
            j,
            text.lines()
                .position(|l| {
                    let l = l.trim_start();
                    l.starts_with("[jcz]")
                        || l.starts_with("[jcz.")
                        || l.starts_with("[[jcz.")
                        || l.strip_prefix("jcz")
                            .is_some_and(|r| r.trim_start().starts_with(['=', '.']))
                })
                .map_or(0, |i| i + 1),
            &options,
            &prompts,
            &|offset| line_of(text, offset),
        )
        .map_err(jcz_field)?,
        None => JczDeclaration::default(),
    };
    Ok(Manifest {
        path: path.to_path_buf(),
        id: m.id.get_ref().clone(),
        name: m.name.clone(),
        version,
        api,
        kind: m.kind,
        library: m.library.clone(),
        entry: m.entry.as_ref().map(|e| dir.join(e.get_ref())),
        entry_line: m
            .entry
            .as_ref()
            .map_or(0, |e| line_of(text, e.span().start)),
        authors: m.authors.clone(),
        description: m.description.clone(),
        license: m.license.clone(),
        requires: deps(&raw.dependencies.requires, "requires")?,
        optional: deps(&raw.dependencies.optional, "optional")?,
        conflicts: deps(&raw.dependencies.conflicts, "conflicts")?,
        after: raw.load.after.iter().map(|a| a.get_ref().clone()).collect(),
        before: raw
            .load
            .before
            .iter()
            .map(|a| a.get_ref().clone())
            .collect(),
        order_lines: (
            raw.load
                .after
                .iter()
                .map(|a| line_of(text, a.span().start))
                .collect(),
            raw.load
                .before
                .iter()
                .map(|a| line_of(text, a.span().start))
                .collect(),
        ),
        tiles: raw.assets.tiles.iter().map(|t| dir.join(t)).collect(),
        options,
        feature_kinds,
        figures,
        prompts,
        jcz,
    })
}

/// Resolves the requested expansion ids (plus everything they require) against the
/// available manifests into a load order: dependencies and `after`/`before` first, ties
/// broken by id, so the order never depends on discovery order. `base` is implicit.
pub fn resolve<'a>(
    requested: &[String],
    available: &'a [Manifest],
) -> Result<Vec<&'a Manifest>, ManifestError> {
    let mut by_id: BTreeMap<&str, &Manifest> = BTreeMap::new();
    for m in available {
        if let Some(prev) = by_id.insert(&m.id, m) {
            return Err(ManifestError::Duplicate {
                id: m.id.clone(),
                first: prev.path.display().to_string(),
                second: m.path.display().to_string(),
            });
        }
    }
    // Close the set over `requires`.
    let mut chosen: BTreeMap<&str, &Manifest> = BTreeMap::new();
    let mut todo: Vec<(String, Option<String>, Option<String>)> =
        requested.iter().map(|r| (r.clone(), None, None)).collect();
    while let Some((id, needed_by, at)) = todo.pop() {
        if id == "base" || chosen.contains_key(id.as_str()) {
            continue;
        }
        let m = *by_id.get(id.as_str()).ok_or(ManifestError::Missing {
            id: id.clone(),
            needed_by,
            at,
        })?;
        chosen.insert(&m.id, m);
        for d in &m.requires {
            todo.push((
                d.id.clone(),
                Some(m.id.clone()),
                Some(m.at(d.line, "dependencies.requires")),
            ));
        }
    }
    // Versions and conflicts.
    for m in chosen.values() {
        for d in m.requires.iter().chain(&m.optional) {
            if let (Some(req), Some(dep)) = (&d.version, chosen.get(d.id.as_str())) {
                if !req.matches(&dep.version) {
                    return Err(ManifestError::Version {
                        at: m.at(d.line, "dependencies"),
                        id: d.id.clone(),
                        req: req.to_string(),
                        found: dep.version.to_string(),
                        by: m.id.clone(),
                    });
                }
            }
        }
        for c in &m.conflicts {
            if let Some(other) = chosen.get(c.id.as_str()) {
                if c.version.as_ref().is_none_or(|r| r.matches(&other.version)) {
                    return Err(ManifestError::Conflict {
                        at: m.at(c.line, "dependencies.conflicts"),
                        a: m.id.clone(),
                        b: other.id.clone(),
                    });
                }
            }
        }
    }
    // Edges "x before y" among chosen expansions.
    let ids: Vec<&str> = chosen.keys().copied().collect();
    let mut preds: BTreeMap<&str, Vec<&str>> = ids.iter().map(|i| (*i, Vec::new())).collect();
    for m in chosen.values() {
        let afters = m
            .requires
            .iter()
            .chain(&m.optional)
            .map(|d| d.id.as_str())
            .chain(m.after.iter().map(String::as_str));
        for a in afters {
            if let Some((k, _)) = chosen.get_key_value(a) {
                preds.get_mut(m.id.as_str()).expect("chosen").push(k);
            }
        }
        for b in &m.before {
            if chosen.contains_key(b.as_str()) {
                preds.get_mut(b.as_str()).expect("chosen").push(&m.id);
            }
        }
    }
    // Kahn's algorithm, smallest id first among the ready ones.
    let mut order = Vec::with_capacity(ids.len());
    let mut placed: BTreeMap<&str, bool> = ids.iter().map(|i| (*i, false)).collect();
    while order.len() < ids.len() {
        let next = ids
            .iter()
            .find(|i| !placed[**i] && preds[**i].iter().all(|p| placed[*p]));
        match next {
            Some(i) => {
                placed.insert(i, true);
                order.push(chosen[i]);
            }
            None => {
                let mut cycle: Vec<String> = ids
                    .iter()
                    .filter(|i| !placed[**i])
                    .map(|i| i.to_string())
                    .collect();
                cycle.sort();
                let stuck = |id: &str| cycle.iter().any(|c| c == id);
                let mut edges = Vec::new();
                for id in &cycle {
                    let m = chosen[id.as_str()];
                    for (list, what) in [
                        (&m.requires, "dependencies.requires"),
                        (&m.optional, "dependencies.optional"),
                    ] {
                        for d in list.iter().filter(|d| stuck(&d.id)) {
                            edges.push(format!("{} → {}", m.at(d.line, what), d.id));
                        }
                    }
                    for (i, a) in m.after.iter().enumerate().filter(|(_, a)| stuck(a)) {
                        let line = m.order_lines.0.get(i).copied().unwrap_or(0);
                        edges.push(format!("{} → {a}", m.at(line, "load.after")));
                    }
                    for (i, b) in m.before.iter().enumerate().filter(|(_, b)| stuck(b)) {
                        let line = m.order_lines.1.get(i).copied().unwrap_or(0);
                        edges.push(format!("{} → {b}", m.at(line, "load.before")));
                    }
                }
                return Err(ManifestError::Cycle { cycle, edges });
            }
        }
    }
    Ok(order)
}
