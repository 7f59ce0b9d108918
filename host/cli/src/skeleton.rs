//! `carcassonne expansions new ID [--dir PARENT]`: a new fan expansion folder that works as
//! it is: a manifest, a script with every hook present as a commented-out stub (from
//! `carcassonne_script::HOOKS`, so the list never goes stale), a tile file with one tile
//! kind, and one scenario that passes (`scenarios/S-01.toml`). `expansions check` and
//! `expansions test` pass on it untouched (`host/cli/tests/fan_tests.rs`).

use crate::error::CliError;
use carcassonne_files::manifest::ENGINE_API;
use carcassonne_script::HookSpec;
use std::path::{Path, PathBuf};

/// What an expansion id may be (the manifest's rule).
pub const ID_RULE: &str =
    "lowercase ASCII letters, digits and `-`, starting with a letter (like `my-expansion`)";

/// Whether `id` may be an expansion id: `^[a-z][a-z0-9-]*$`, at most 64 characters, not
/// `base`.
pub fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    id.len() <= 64
        && id != "base"
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// `my-expansion` → `My Expansion`.
fn display_name(id: &str) -> String {
    id.split('-')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The id of the skeleton's tile kind.
fn tile_id(id: &str) -> String {
    format!("{id}/road-cloister")
}

/// The files of the skeleton: (path relative to the new folder, text).
pub fn files(id: &str) -> Vec<(PathBuf, String)> {
    vec![
        (PathBuf::from("expansion.toml"), manifest(id)),
        (PathBuf::from(format!("{id}.rhai")), script(id)),
        (PathBuf::from("tiles.toml"), tiles(id)),
        (Path::new("scenarios").join("S-01.toml"), scenario(id)),
    ]
}

/// Creates `parent/id/` (`id/` for `.`) with the skeleton and returns the files written. Refuses an
/// invalid id and a folder (or anything else) that already exists.
pub fn create(id: &str, parent: &Path) -> Result<Vec<PathBuf>, CliError> {
    if !valid_id(id) {
        return Err(CliError::Usage(format!(
            "`{id}` is not a valid expansion id: use {ID_RULE}{}",
            if id == "base" {
                "; `base` is the base game"
            } else {
                ""
            }
        )));
    }
    let dir = if parent == Path::new(".") {
        PathBuf::from(id)
    } else {
        parent.join(id)
    };
    if std::fs::symlink_metadata(&dir).is_ok() {
        return Err(CliError::Usage(format!(
            "{}: already exists; choose another id or another --dir",
            dir.display()
        )));
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CliError::Io { path, source }
    };
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    // `create_dir` (not `_all`) fails if someone made the folder in the meantime.
    std::fs::create_dir(&dir).map_err(io(&dir))?;
    let written = (|| {
        let mut written = Vec::new();
        for (rel, text) in files(id) {
            let path = dir.join(rel);
            if let Some(p) = path.parent() {
                std::fs::create_dir_all(p).map_err(io(p))?;
            }
            std::fs::write(&path, text).map_err(io(&path))?;
            written.push(path);
        }
        Ok(written)
    })();
    if written.is_err() {
        // Nothing half-made is left behind: the folder is ours, just created.
        let _ = std::fs::remove_dir_all(&dir);
    }
    written
}

fn manifest(id: &str) -> String {
    let (major, minor) = ENGINE_API;
    format!(
        r#"# {name}: a fan expansion for the Carcassonne engine (the guide: docs/modding.md).
#   carcassonne expansions check {id}    manifest, script, random games
#   carcassonne expansions test {id}     the scenarios (every other .toml file here but tiles.toml)
[expansion]
id = "{id}"
name = "{name}"
version = "0.1.0"          # raise it whenever the rules change: records name the version
api = "{major}.{minor}"                # the engine API this script is written for
kind = "script"
entry = "{id}.rhai"
authors = []
description = "{name}: describe your rules here."

[dependencies]
requires = [{{ id = "base", version = ">=0.1" }}]

[assets]
tiles = ["tiles.toml"]

# An option players set with `--option {id}.<key>=<value>`, read with option("<key>"):
# [options.myOption]
# type = "choice"             # or "bool", "int" (with range = [min, max])
# values = ["a", "b"]
# default = "a"
# description = "what it changes"
"#,
        name = display_name(id),
    )
}

/// A stub's body: what the hook returns when it changes nothing (commented out with it).
fn default_return(h: &HookSpec) -> Option<&'static str> {
    let r = h.returns;
    if r == "()" || r.starts_with("()") {
        return None;
    }
    if r == "bool" {
        return Some("true");
    }
    if r == "int" {
        return Some("0");
    }
    if r.starts_with('"') {
        // `"keep" | "redraw" | "discard"`: the first is "no change".
        return r.split('|').next().map(str::trim);
    }
    if r.starts_with("array") {
        // A filter returns what it was given; an offer offers nothing.
        for p in ["cells", "actions"] {
            if h.params.contains(&p) {
                return Some(p);
            }
        }
        return Some("[]");
    }
    None
}

fn script(id: &str) -> String {
    let mut s = format!(
        "// {name}: the rules of the expansion `{id}`, in Rhai (docs/modding.md, section 4).\n\
         //\n\
         // Every hook the engine can call is below, commented out, with what it is for.\n\
         // Uncomment the ones your rules need and delete the rest: a hook that is not\n\
         // defined costs nothing. `carcassonne expansions api` prints the reference of\n\
         // every hook and of the functions a hook may call.\n",
        name = display_name(id)
    );
    for h in carcassonne_script::HOOKS {
        let params = h.params.join(", ");
        s.push('\n');
        s.push_str(&format!(
            "// {}({params}) -> {}: {}\n",
            h.name, h.returns, h.doc
        ));
        s.push_str(&format!("// fn {}({params}) {{\n", h.name));
        if let Some(ret) = default_return(h) {
            s.push_str(&format!("//     {ret}\n"));
        }
        s.push_str("// }\n");
    }
    s
}

fn tiles(id: &str) -> String {
    format!(
        r#"# The tiles of {name} (schema: docs/tile-format.md). Tile ids must be unique over every
# loaded set: start them with the expansion's id.
schema = 1
set = "{id}"

# A cloister on a straight road: the road runs west-east past it.
[[tile]]
id = "{tile}"
count = 2
edges = "FRFR"
features = [
  {{ kind = "cloister" }},
  {{ kind = "road", sides = "EW" }},
  {{ kind = "field", halves = ["NL", "NR", "EL", "WR"] }},
  {{ kind = "field", halves = ["ER", "SL", "SR", "WL"] }},
]
"#,
        name = display_name(id),
        tile = tile_id(id),
    )
}

fn scenario(id: &str) -> String {
    format!(
        r#"# A scenario test of {name} (docs/modding.md, section 7.5): a position, steps played
# on it, and what must hold afterwards. Run every scenario of the expansion with
#     carcassonne expansions test {id}
# The file's name (without .toml) is its id.
id = "S-01"
title = "R's follower on the road across the new tile scores 3 points at the end."
expansions = ["{id}"]
players = ["R", "B"]
# The tiles still to draw, in this order (tile id, base-game letter or edge string).
draws = ["{tile}", "BA/RRR"]

# The start tile: a city in the north, a road from west to east.
[[tile]]
at = [0, 0]
tile = "BA/RCr"

# R places the new tile east of the start tile; its road continues the start tile's.
# Edge strings give the edges as placed, N E S W (M: a cloister).
[[step]]
do = "place"
at = [1, 0]
tile = "{tile}"
edges = "FRFRM"
player = "R"

# A monk may go on the cloister ...
[[step]]
do = "deploy-legal"
feature = "cloister"

# ... but R puts a follower on the road.
[[step]]
do = "deploy"
feature = "road"

[[step]]
do = "expect"
player = "B"
supply = {{ R = 6, B = 7 }}

# B closes the west end of the road with a junction and deploys nothing.
[[step]]
do = "place"
at = [-1, 0]
edges = "FRRR"
player = "B"

[[step]]
do = "pass"

# No tile is left: final scoring. The road (3 tiles, open in the east) gives R 3 points.
[expect]
over = true
gained = {{ R = 3 }}
events = [{{ player = "R", points = 3, kind = "road", final = true }}]
"#,
        name = display_name(id),
        tile = tile_id(id),
    )
}
