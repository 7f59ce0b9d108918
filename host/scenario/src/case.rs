//! Reading scenario files: the TOML text → its cases (the file, then one per
//! `[[variant]]`), each with the line of every part, so that a failure or a bad key can
//! be shown as `file:line`.

use crate::format::Scenario;
use crate::run::Part;
use crate::ScenarioError;
use carcassonne_files::fsio::{read_text, DATA_LIMIT};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::path::{Path, PathBuf};

/// One case of a scenario file, with where its parts are in the file.
#[derive(Clone, Debug)]
pub struct Case {
    /// The case.
    pub scenario: Scenario,
    /// Line of the case: of `id` for the file itself, of its `[[variant]]` for a variant.
    pub start: usize,
    /// The case's top-level table with positions (a variant's keys replace the file's).
    node: Node,
}

impl Case {
    /// The line (1-based) a failure is about: the step, the `expect` key or the setup key
    /// (and array entry) that failed, else the case's first line.
    pub fn line(&self, part: &Part) -> usize {
        let n = &self.node;
        let found = match part {
            Part::Setup {
                key: Some(k),
                index,
            } => n.get(k).map(|v| index.and_then(|i| v.at(i)).unwrap_or(v)),
            Part::Setup { key: None, .. } => None,
            Part::Step { index, field, .. } => n
                .get("step")
                .and_then(|s| s.at(*index))
                .map(|s| field.and_then(|f| s.get(f)).unwrap_or(s)),
            Part::Expect { field } => n
                .get("expect")
                .map(|e| field.and_then(|f| e.get(f)).unwrap_or(e)),
        };
        found.map_or(self.start, |n| n.line)
    }
}

/// A TOML value reduced to its shape and the line it starts on.
#[derive(Clone, Debug)]
struct Node {
    line: usize,
    kind: NodeKind,
}

#[derive(Clone, Debug)]
enum NodeKind {
    Leaf,
    Array(Vec<Node>),
    Table(Vec<(String, Node)>),
}

impl Node {
    fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            NodeKind::Table(t) => t.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn at(&self, i: usize) -> Option<&Node> {
        match &self.kind {
            NodeKind::Array(a) => a.get(i),
            _ => None,
        }
    }
}

/// What the TOML parser gives with byte spans; turned into [`Node`]s.
enum Spanned {
    Leaf,
    Array(Vec<toml::Spanned<Spanned>>),
    Table(Vec<(String, toml::Spanned<Spanned>)>),
}

/// The key under which the TOML deserializer hands out a date-time.
const DATETIME_KEY: &str = "$__toml_private_datetime";

impl<'de> Deserialize<'de> for Spanned {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Spanned, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Spanned;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a TOML value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Spanned, E> {
                Ok(Spanned::Leaf)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Spanned, E> {
                Ok(Spanned::Leaf)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Spanned, E> {
                Ok(Spanned::Leaf)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Spanned, E> {
                Ok(Spanned::Leaf)
            }
            fn visit_str<E>(self, _: &str) -> Result<Spanned, E> {
                Ok(Spanned::Leaf)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Spanned, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Spanned::Array(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Spanned, A::Error> {
                let mut t = Vec::new();
                while let Some(k) = a.next_key::<String>()? {
                    if k == DATETIME_KEY {
                        a.next_value::<IgnoredAny>()?;
                        return Ok(Spanned::Leaf);
                    }
                    let v = a.next_value()?;
                    t.push((k, v));
                }
                Ok(Spanned::Table(t))
            }
        }
        d.deserialize_any(V)
    }
}

/// Byte offset → 1-based line.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Lines {
        Lines(
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    fn line(&self, offset: usize) -> usize {
        self.0.partition_point(|start| *start <= offset).max(1)
    }

    fn node(&self, v: toml::Spanned<Spanned>) -> Node {
        let line = self.line(v.span().start);
        let kind = match v.into_inner() {
            Spanned::Leaf => NodeKind::Leaf,
            Spanned::Array(a) => NodeKind::Array(a.into_iter().map(|x| self.node(x)).collect()),
            Spanned::Table(t) => {
                NodeKind::Table(t.into_iter().map(|(k, x)| (k, self.node(x))).collect())
            }
        };
        Node { line, kind }
    }
}

/// Reads a scenario file into its cases ([`parse_cases`]); its `id` must be the file's
/// name without `.toml`. The file must be a regular UTF-8 file of at most 16 MiB.
pub fn load_cases(path: &Path) -> Result<Vec<Case>, ScenarioError> {
    let text = read_text(path, DATA_LIMIT)?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    parse_cases(&text, &path.display().to_string(), Some(stem))
}

/// Parses scenario text into its cases: the file itself, then one case per `[[variant]]`
/// (each top-level key a variant gives replaces the file's key of that name, so a variant
/// restates its whole `expect`). `origin` names the text in errors; `id`, if given, is
/// the id the text must declare. Errors name the line: bad TOML, an unknown key, a value
/// of the wrong type, a variant without a name, a wrong id.
pub fn parse_cases(text: &str, origin: &str, id: Option<&str>) -> Result<Vec<Case>, ScenarioError> {
    let lines = Lines::new(text);
    let invalid = |line: usize, message: String| ScenarioError::Invalid {
        origin: origin.to_string(),
        line,
        message,
    };
    let spanned: toml::Spanned<Spanned> = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(1, |s| lines.line(s.start));
        invalid(line, e.message().trim().replace('\n', " "))
    })?;
    let root_node = lines.node(spanned);
    let mut root: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| invalid(1, e.message().trim().replace('\n', " ")))?;
    let NodeKind::Table(mut root_keys) = root_node.kind else {
        return Err(invalid(1, "a scenario is a TOML table".into()));
    };
    let variant_node = root_keys
        .iter()
        .position(|(k, _)| k == "variant")
        .map(|i| root_keys.remove(i).1);
    let id_line = root_keys
        .iter()
        .find(|(k, _)| k == "id")
        .map_or(1, |(_, n)| n.line);
    let variants = match root.remove("variant") {
        None => Vec::new(),
        Some(toml::Value::Array(a)) => a,
        Some(_) => {
            let line = variant_node.map_or(1, |n| n.line);
            return Err(invalid(line, "`variant` must be [[variant]]".into()));
        }
    };
    let base = Node {
        line: 1,
        kind: NodeKind::Table(root_keys.clone()),
    };
    let mut cases = vec![(root.clone(), base, id_line)];
    for (i, v) in variants.into_iter().enumerate() {
        let vnode = variant_node.as_ref().and_then(|n| n.at(i)).cloned();
        let vline = vnode.as_ref().map_or(1, |n| n.line);
        let toml::Value::Table(v) = v else {
            return Err(invalid(vline, format!("variant {} is not a table", i + 1)));
        };
        if !v.contains_key("name") {
            return Err(invalid(vline, format!("variant {} has no name", i + 1)));
        }
        let mut keys = root_keys.clone();
        if let Some(Node {
            kind: NodeKind::Table(vkeys),
            ..
        }) = vnode
        {
            for (k, n) in vkeys {
                match keys.iter_mut().find(|(key, _)| *key == k) {
                    Some(slot) => slot.1 = n,
                    None => keys.push((k, n)),
                }
            }
        }
        let mut case = root.clone();
        case.extend(v);
        cases.push((
            case,
            Node {
                line: vline,
                kind: NodeKind::Table(keys),
            },
            vline,
        ));
    }
    cases
        .into_iter()
        .map(|(table, node, start)| {
            let scenario: Scenario = serde_path_to_error::deserialize(toml::Value::Table(table))
                .map_err(|e| {
                    let (line, mut where_) = locate(&node, e.path(), start);
                    let message = e.inner().message().trim().replace('\n', " ");
                    // `expect.ganed: unknown field `ganed`` says the key twice.
                    if let Some(key) = message
                        .strip_prefix("unknown field `")
                        .and_then(|r| r.split('`').next())
                    {
                        if where_ == key {
                            where_.clear();
                        } else if let Some(w) = where_.strip_suffix(&format!(".{key}")) {
                            where_ = w.to_string();
                        }
                    }
                    let line = refine(&node, e.path(), &message).unwrap_or(line);
                    invalid(
                        line,
                        if where_.is_empty() {
                            message
                        } else {
                            format!("{where_}: {message}")
                        },
                    )
                })?;
            if let Some(want) = id.filter(|w| *w != scenario.id) {
                return Err(invalid(
                    id_line,
                    format!(
                        "id `{}` does not match the file name (`{want}`)",
                        scenario.id
                    ),
                ));
            }
            Ok(Case {
                scenario,
                start,
                node,
            })
        })
        .collect()
}

/// The node a deserialization path leads to, as far as it can be followed: its line and
/// the path as text (`step[2].at`, 1-based entries as people count).
fn locate(node: &Node, path: &serde_path_to_error::Path, start: usize) -> (usize, String) {
    let mut at = Some(node);
    let mut line = start;
    let mut text = String::new();
    for seg in path.iter() {
        match seg {
            serde_path_to_error::Segment::Map { key } => {
                at = at.and_then(|n| n.get(key));
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            serde_path_to_error::Segment::Seq { index } => {
                at = at.and_then(|n| n.at(*index));
                text.push_str(&format!("[{}]", index + 1));
            }
            _ => continue,
        }
        if let Some(n) = at {
            line = n.line;
        }
    }
    (line, text)
}

/// A better line for messages that name a key of the node the path leads to: an unknown
/// or misspelt key, an unknown `do`.
fn refine(node: &Node, path: &serde_path_to_error::Path, message: &str) -> Option<usize> {
    let mut at = node;
    for seg in path.iter() {
        at = match seg {
            serde_path_to_error::Segment::Map { key } => at.get(key)?,
            serde_path_to_error::Segment::Seq { index } => at.at(*index)?,
            _ => continue,
        };
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let key = rest.split('`').next()?;
        return at.get(key).map(|n| n.line);
    }
    if message.starts_with("unknown variant `") {
        return at.get("do").map(|n| n.line);
    }
    None
}

/// The scenario files under `dir`: every `.toml` file in it and its sub-folders, in path
/// order, except `expansion.toml` files, sub-folders holding an `expansion.toml` of their
/// own (another expansion), hidden entries (names starting with `.`), symbolic links to
/// folders, and the files in `exclude` (compared as canonical paths: an expansion's tile
/// files).
pub fn find_scenario_files(dir: &Path, exclude: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let exclude: Vec<PathBuf> = exclude
        .iter()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .collect();
    let mut out = Vec::new();
    walk(dir, &exclude, &mut out, 0)?;
    out.sort();
    Ok(out)
}

fn walk(
    dir: &Path,
    exclude: &[PathBuf],
    out: &mut Vec<PathBuf>,
    depth: usize,
) -> std::io::Result<()> {
    if depth > 16 {
        return Ok(());
    }
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = e.path();
        let ty = e.file_type()?;
        if ty.is_dir() {
            if !path.join("expansion.toml").exists() {
                walk(&path, exclude, out, depth + 1)?;
            }
        } else if name.ends_with(".toml") && name != "expansion.toml" {
            let canon = path.canonicalize().unwrap_or_else(|_| path.clone());
            if !exclude.contains(&canon) {
                out.push(path);
            }
        }
    }
    Ok(())
}
