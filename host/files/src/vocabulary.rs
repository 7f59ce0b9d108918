//! Feature kinds and figure kinds a manifest declares (`[[feature-kinds]]`, `[[figures]]`),
//! so that a fan expansion brings new vocabulary without Rust. Parsed and checked here
//! against everything one file can know (names, shapes, values, the built-in vocabulary);
//! names of kinds declared by other expansions are resolved when the ruleset is built.

use carcassonne_core::{FeatureKindDef, Scoring, Shape};
use serde::Deserialize;

/// Names of the base game's vocabulary, which no expansion may declare again.
pub const BUILT_IN_KINDS: [&str; 4] = ["city", "road", "field", "cloister"];
/// The base game's figure.
pub const BUILT_IN_FIGURES: [&str; 1] = ["small-follower"];
/// Edge letters of the base game (`F` is the field letter of edge strings).
const BUILT_IN_LETTERS: [char; 3] = ['C', 'R', 'F'];

/// Figure shapes renderers know (`shape = "…"`); `path:<SVG path>` draws any other.
pub const FIGURE_SHAPES: [&str; 9] = [
    "meeple",
    "big-meeple",
    "pawn",
    "pig",
    "hood",
    "diamond",
    "hexagon",
    "star",
    "triangle",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawKind {
    name: String,
    shape: String,
    letter: Option<String>,
    along: Option<String>,
    completes: Option<String>,
    #[serde(default = "yes")]
    occupiable: bool,
    #[serde(default)]
    scoring: Option<String>,
    points: Option<RawPoints>,
    colour: Option<String>,
    #[serde(default)]
    takes: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawPoints {
    #[serde(default)]
    complete_tile: i32,
    #[serde(default)]
    complete_marker: i32,
    #[serde(default)]
    end_tile: i32,
    #[serde(default)]
    end_marker: i32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawFigure {
    name: String,
    per_player: Option<i64>,
    neutral: Option<i64>,
    #[serde(default)]
    shares: bool,
    #[serde(default)]
    strength: i64,
    stands_on: Vec<String>,
    #[serde(default = "yes")]
    returns: bool,
    deploy: Option<String>,
    shape: Option<String>,
    colour: Option<String>,
}

fn yes() -> bool {
    true
}

/// A feature kind declared in a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredKind {
    /// The kind, as core takes it.
    pub def: FeatureKindDef,
    /// Line of its `[[feature-kinds]]` entry.
    pub line: usize,
}

/// A figure kind declared in a manifest (its kinds still by name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredFigure {
    /// Name.
    pub name: String,
    /// Copies per player (0 for a neutral figure).
    pub per_player: u8,
    /// Copies that belong to nobody (`neutral = n`): a neutral figure, which only the
    /// script places and moves (0 for a player's figure).
    pub neutral: u8,
    /// Whether it may stand on features that hold other figures, without occupying them
    /// or counting for majorities (`shares = true`; neutral figures always do).
    pub shares: bool,
    /// Its colour for renderers (`#rrggbb`), or empty.
    pub colour: String,
    /// Strength in half-units (0: never counts for a majority).
    pub strength: i32,
    /// Feature kinds it may stand on, by name.
    pub stands_on: Vec<String>,
    /// Whether it goes back to supply when its feature is scored.
    pub returns: bool,
    /// Whether players deploy it in the action step (`deploy = "action-step"`, the
    /// default) or only the script does (`deploy = "script"`).
    pub action_step: bool,
    /// Drawing: a shape of [`FIGURE_SHAPES`], `path:<SVG path>`, or empty.
    pub look: String,
    /// Line of its `[[figures]]` entry.
    pub line: usize,
}

/// Reports a bad value: the field under the entry, and the message.
pub(crate) type FieldError = (String, String);

pub(crate) fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && name.len() <= 32
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn check_name(name: &str, built_in: &[&str], what: &str) -> Result<(), FieldError> {
    if !valid_name(name) {
        return Err((
            "name".into(),
            format!("`{name}` must match ^[a-z][a-z0-9-]*$ (at most 32 characters)"),
        ));
    }
    if built_in.contains(&name) {
        return Err((
            "name".into(),
            format!("`{name}` is the base game's {what}; choose another name"),
        ));
    }
    Ok(())
}

fn colour_ok(c: &str) -> bool {
    c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|h| h.is_ascii_hexdigit())
}

/// Checks one `[[feature-kinds]]` entry.
pub(crate) fn kind(raw: &RawKind) -> Result<FeatureKindDef, FieldError> {
    check_name(&raw.name, &BUILT_IN_KINDS, "feature kind")?;
    let shape = match raw.shape.as_str() {
        "edge" => {
            let letter = raw.letter.as_deref().unwrap_or("");
            let mut chars = letter.chars();
            let l = match (chars.next(), chars.next()) {
                (Some(l), None) if l.is_ascii_uppercase() => l,
                _ => {
                    return Err((
                        "letter".into(),
                        format!(
                            "an edge kind needs `letter`, one capital letter for tile edge strings (got `{letter}`)"
                        ),
                    ))
                }
            };
            if BUILT_IN_LETTERS.contains(&l) {
                return Err((
                    "letter".into(),
                    format!("`{l}` is a base game edge letter (C city, R road, F field)"),
                ));
            }
            let fields_alongside = match raw.along.as_deref().unwrap_or("fields") {
                "fields" => true,
                "none" => false,
                other => {
                    return Err((
                        "along".into(),
                        format!("`{other}` is not `fields` (fields on both sides, like a road) or `none` (fills the edge, like a city)"),
                    ))
                }
            };
            Shape::Edge {
                letter: l,
                fields_alongside,
            }
        }
        "site" => {
            for (field, set) in [("letter", raw.letter.is_some()), ("along", raw.along.is_some())] {
                if set {
                    return Err((field.into(), "only edge kinds take this".into()));
                }
            }
            Shape::Site
        }
        other => {
            return Err((
                "shape".into(),
                format!("`{other}` is not `edge` (joins across tile edges, like a road) or `site` (inside one tile, like a cloister)"),
            ))
        }
    };
    let completes = match (raw.completes.as_deref(), shape) {
        (None, _) | (Some("closed"), Shape::Edge { .. }) | (Some("surrounded"), Shape::Site) => {
            true
        }
        (Some("never"), _) => false,
        (Some(other), _) => {
            return Err((
                "completes".into(),
                format!(
                    "`{other}`: an {} kind completes `{}` or `never`",
                    raw.shape,
                    if matches!(shape, Shape::Site) {
                        "surrounded"
                    } else {
                        "closed"
                    }
                ),
            ))
        }
    };
    let scoring = match raw.scoring.as_deref().unwrap_or("none") {
        "city" => Scoring::City,
        "road" => Scoring::Road,
        "cloister" => Scoring::Cloister,
        "none" => Scoring::Unscored,
        "points" => {
            let p = raw.points.as_ref().ok_or_else(|| {
                (
                    "points".to_string(),
                    "`scoring = \"points\"` needs `points = { complete-tile = …, end-tile = … }`"
                        .to_string(),
                )
            })?;
            Scoring::Points {
                complete_tile: p.complete_tile,
                complete_marker: p.complete_marker,
                end_tile: p.end_tile,
                end_marker: p.end_marker,
            }
        }
        other => {
            return Err((
                "scoring".into(),
                format!("`{other}` is not one of city, road, cloister, points, none"),
            ))
        }
    };
    if raw.points.is_some() && !matches!(scoring, Scoring::Points { .. }) {
        return Err((
            "points".into(),
            "only `scoring = \"points\"` takes `points`".into(),
        ));
    }
    if let Some(p) = &raw.points {
        for v in [p.complete_tile, p.complete_marker, p.end_tile, p.end_marker] {
            if !(-100..=100).contains(&v) {
                return Err(("points".into(), format!("{v} is outside -100..=100")));
            }
        }
    }
    let look = raw.colour.clone().unwrap_or_default();
    if !look.is_empty() && !colour_ok(&look) {
        return Err((
            "colour".into(),
            format!("`{look}` is not a colour `#rrggbb`"),
        ));
    }
    if let Some(bad) = raw.takes.iter().find(|n| !valid_name(n)) {
        return Err(("takes".into(), format!("`{bad}` is not a figure kind name")));
    }
    if !raw.takes.is_empty() && !raw.occupiable {
        return Err((
            "takes".into(),
            "an unoccupiable kind takes no figures".into(),
        ));
    }
    let mut def = FeatureKindDef::new(&raw.name, shape, scoring, raw.occupiable);
    def.completes = completes;
    def.look = look;
    def.takes = raw.takes.clone();
    Ok(def)
}

/// Checks one `[[figures]]` entry (its kind names are resolved at ruleset build).
pub(crate) fn figure(raw: &RawFigure, line: usize) -> Result<DeclaredFigure, FieldError> {
    check_name(&raw.name, &BUILT_IN_FIGURES, "figure")?;
    let (per_player, neutral) = match (raw.per_player, raw.neutral) {
        (None, None) => {
            return Err((
                "per-player".into(),
                "give `per-player = n` (each player's copies) or `neutral = n` (copies that belong to nobody)".into(),
            ))
        }
        (Some(_), Some(_)) => {
            return Err((
                "neutral".into(),
                "a figure is either each player's (`per-player`) or nobody's (`neutral`), not both".into(),
            ))
        }
        (Some(p), None) if !(1..=30).contains(&p) => {
            return Err(("per-player".into(), format!("{p} is outside 1..=30")))
        }
        (None, Some(n)) if !(1..=30).contains(&n) => {
            return Err(("neutral".into(), format!("{n} is outside 1..=30")))
        }
        (p, n) => (p.unwrap_or(0) as u8, n.unwrap_or(0) as u8),
    };
    if !(0..=20).contains(&raw.strength) {
        return Err((
            "strength".into(),
            format!(
                "{} is outside 0..=20 (half-units: a follower is 2)",
                raw.strength
            ),
        ));
    }
    if raw.stands_on.is_empty() {
        return Err(("stands-on".into(), "name at least one feature kind".into()));
    }
    let action_step = match raw.deploy.as_deref().unwrap_or("action-step") {
        "action-step" => true,
        "script" => false,
        other => {
            return Err((
                "deploy".into(),
                format!("`{other}` is not `action-step` (players deploy it like a follower) or `script` (only your script deploys it)"),
            ))
        }
    };
    if neutral > 0 && action_step {
        return Err((
            "deploy".into(),
            "a neutral figure belongs to nobody, so no player deploys it: give `deploy = \"script\"`".into(),
        ));
    }
    let colour = raw.colour.clone().unwrap_or_default();
    if !colour.is_empty() && !colour_ok(&colour) {
        return Err((
            "colour".into(),
            format!("`{colour}` is not a colour `#rrggbb`"),
        ));
    }
    let look = raw.shape.clone().unwrap_or_default();
    if !look.is_empty() && !FIGURE_SHAPES.contains(&look.as_str()) {
        let path_ok = look.strip_prefix("path:").is_some_and(|p| {
            !p.trim().is_empty()
                && p.len() <= 2000
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || " ,.-".contains(c))
        });
        if !path_ok {
            return Err((
                "shape".into(),
                format!(
                    "`{look}` is not one of {} nor `path:<SVG path data>` (letters, numbers, spaces, `,`, `.`, `-`; at most 2000 characters)",
                    FIGURE_SHAPES.join(", ")
                ),
            ));
        }
    }
    Ok(DeclaredFigure {
        name: raw.name.clone(),
        per_player,
        neutral,
        shares: raw.shares || neutral > 0,
        colour,
        strength: raw.strength as i32,
        stands_on: raw.stands_on.clone(),
        returns: raw.returns,
        action_step,
        look,
        line,
    })
}
