//! Edge strings, tile references and feature names: how a scenario names tiles
//! (`BA/RCr`, `D`, `CRFR`) and features (`N`, `WE`, `NL.NR`, `city`, `field:WL`).

use carcassonne_core::{
    HalfEdge, HalfSet, Rotation, Ruleset, Shape, SideSet, TileKind, TileKindId,
};

/// A parsed spec edge string (section 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeSpec {
    /// Edge letters N E S W as placed.
    pub edges: [char; 4],
    /// `+p` count.
    pub pennants: u8,
    /// `M`.
    pub cloister: bool,
    /// `H`.
    pub shrine: bool,
    /// `s`: the city edges are separate segments.
    pub separate: bool,
}

impl EdgeSpec {
    /// Parses `CFCF+p`, `FFFRM`, `CFCFs`, `CCCC+2p`, ….
    pub fn parse(text: &str) -> Result<EdgeSpec, String> {
        let chars: Vec<char> = text.chars().collect();
        let bad = |m: &str| format!("edge string `{text}`: {m}");
        if chars.len() < 4 {
            return Err(bad("four edge letters N E S W expected"));
        }
        let mut edges = ['F'; 4];
        for (i, c) in chars[..4].iter().enumerate() {
            // C, R, F, the river's W (or I), and any expansion's own edge letter.
            if !c.is_ascii_uppercase() {
                return Err(bad(&format!(
                    "`{c}` is not an edge letter (C R F W, or an expansion's capital letter)"
                )));
            }
            edges[i] = *c;
        }
        let mut spec = EdgeSpec {
            edges,
            pennants: 0,
            cloister: false,
            shrine: false,
            separate: false,
        };
        let mut i = 4;
        while i < chars.len() {
            match chars[i] {
                '+' => {
                    let mut n = 0u8;
                    i += 1;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        n = n * 10 + chars[i].to_digit(10).unwrap_or(0) as u8;
                        i += 1;
                    }
                    if chars.get(i) != Some(&'p') {
                        return Err(bad("`+` must be followed by `p` (pennant)"));
                    }
                    spec.pennants += n.max(1);
                }
                'M' => spec.cloister = true,
                'H' => spec.shrine = true,
                's' => spec.separate = true,
                c => return Err(bad(&format!("unknown suffix `{c}`"))),
            }
            i += 1;
        }
        Ok(spec)
    }

    /// Whether `tk` turned by `rot` is a tile of this description.
    pub fn matches(&self, rules: &Ruleset, tk: &TileKind, rot: Rotation) -> bool {
        for s in carcassonne_core::Side::ALL {
            let code = tk.edge_at(rot, s);
            let want = self.edges[s.index() as usize];
            let ok = if code == 0 {
                want == 'F'
            } else {
                let def = &rules.kinds()[code as usize - 1];
                match def.shape {
                    Shape::Edge { letter, .. } => {
                        letter == want || (matches!(want, 'W' | 'I') && def.name == "river")
                    }
                    _ => false,
                }
            };
            if !ok {
                return false;
            }
        }
        let named = |name: &str| {
            rules
                .kind_named(name)
                .map_or(0, |k| tk.segments.iter().filter(|s| s.kind == k).count())
        };
        let pennants: u32 = tk.segments.iter().map(|s| s.pennants as u32).sum();
        if pennants != self.pennants as u32
            || (named("cloister") > 0) != self.cloister
            || (named("shrine") > 0) != self.shrine
        {
            return false;
        }
        let count = |c: char| self.edges.iter().filter(|e| **e == c).count();
        let edge_segments = |k| {
            tk.segments
                .iter()
                .filter(|s| s.kind == k && !s.sides.is_empty())
                .count()
        };
        let cities = count('C');
        if cities > 0 {
            let want = if self.separate { cities } else { 1 };
            if edge_segments(carcassonne_core::FeatureKindId::CITY) != want {
                return false;
            }
        }
        // Two R edges are joined; with 1, 3 or 4 each road ends at the centre.
        let roads = count('R');
        let want = if roads == 2 { 1 } else { roads };
        edge_segments(carcassonne_core::FeatureKindId::ROAD) == want
    }
}

/// The rotations (ascending) in which tile kind `kind` shows the edge string `edges`.
pub fn rotations_showing(
    rules: &Ruleset,
    kind: TileKindId,
    edges: &str,
) -> Result<Vec<Rotation>, String> {
    let spec = EdgeSpec::parse(edges)?;
    let tk = rules.tiles().get(kind);
    Ok(Rotation::ALL
        .into_iter()
        .filter(|r| spec.matches(rules, tk, *r))
        .collect())
}

/// Resolves a tile reference (id, letter or edge string in any rotation) to its kind. An
/// edge string that fits a base tile and expansion tiles means the base tile.
pub fn resolve_kind(rules: &Ruleset, text: &str) -> Result<TileKindId, String> {
    if let Some(k) = rules.tiles().find(text) {
        return Ok(k);
    }
    let spec = EdgeSpec::parse(text)?;
    let found: Vec<TileKindId> = rules
        .tiles()
        .iter()
        .filter(|(_, tk)| Rotation::ALL.iter().any(|r| spec.matches(rules, tk, *r)))
        .map(|(id, _)| id)
        .collect();
    let base: Vec<TileKindId> = found
        .iter()
        .copied()
        .filter(|k| rules.tiles().get(*k).set == "base")
        .collect();
    if let ([k], true) = (base.as_slice(), found.len() > 1) {
        return Ok(*k);
    }
    match found.as_slice() {
        [k] => Ok(*k),
        [] => Err(format!("no tile kind looks like `{text}`")),
        many => Err(format!(
            "`{text}` is ambiguous ({}); name the tile by id",
            many.iter()
                .map(|k| rules.tiles().get(*k).id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Resolves a tile given by id/letter and/or edge string and/or rotation to (kind, rotation).
pub fn resolve_placed(
    rules: &Ruleset,
    tile: Option<&str>,
    edges: Option<&str>,
    rotation: Option<i64>,
) -> Result<(TileKindId, Rotation), String> {
    let rot = rotation
        .map(|d| Rotation::from_degrees(d).ok_or_else(|| format!("bad rotation {d}")))
        .transpose()?;
    let kind = match (tile, edges) {
        (Some(t), _) => rules
            .tiles()
            .find(t)
            .ok_or_else(|| format!("unknown tile `{t}`"))?,
        (None, Some(e)) => resolve_kind(rules, e)?,
        (None, None) => return Err("a tile needs `tile` or `edges`".into()),
    };
    let rot = match (edges, rot) {
        (Some(e), r) => {
            let rs = rotations_showing(rules, kind, e)?;
            match r {
                Some(r) if rs.contains(&r) => r,
                Some(r) => {
                    return Err(format!(
                        "tile {} at rotation {r} does not show `{e}`",
                        rules.tiles().get(kind).id
                    ))
                }
                None => *rs.first().ok_or_else(|| {
                    format!("tile {} cannot show `{e}`", rules.tiles().get(kind).id)
                })?,
            }
        }
        (None, r) => r.unwrap_or(Rotation::R0),
    };
    Ok((kind, rot))
}

fn parse_halves(text: &str) -> Option<HalfSet> {
    let mut set = 0u8;
    for part in text.split('.') {
        set |= 1 << HalfEdge::parse(part)?.index();
    }
    Some(HalfSet(set))
}

/// The local segment index of the feature `want` on tile kind `tk` turned by `rot`.
pub fn find_segment(
    rules: &Ruleset,
    tk: &TileKind,
    rot: Rotation,
    want: &str,
) -> Result<u8, String> {
    let (kind, loc) = match want.split_once(':') {
        Some((k, l)) => (Some(k), Some(l)),
        None if rules.kind_named(want).is_some() => (Some(want), None),
        None => (None, Some(want)),
    };
    let kind = kind
        .map(|k| {
            rules
                .kind_named(k)
                .ok_or_else(|| format!("unknown feature kind `{k}`"))
        })
        .transpose()?;
    let mut cands: Vec<usize> = (0..tk.segments.len())
        .filter(|i| kind.is_none_or(|k| tk.segments[*i].kind == k))
        .collect();
    if let Some(loc) = loc {
        // (sides, halves) wanted; `None` = an inner location matched by name.
        let parsed = if let Some(rest) = loc.strip_prefix('_') {
            SideSet::parse(rest).map(|s| (SideSet(!s.0 & 0xF), HalfSet::EMPTY))
        } else if let Some(s) = SideSet::parse(loc) {
            Some((s, HalfSet::EMPTY))
        } else {
            parse_halves(loc).map(|h| (SideSet::EMPTY, h))
        };
        let exact: Vec<usize> = cands
            .iter()
            .copied()
            .filter(|i| {
                let s = &tk.segments[*i];
                match parsed {
                    Some((sides, halves)) => {
                        s.sides.rotate(rot) == sides && s.halves.rotate(rot) == halves
                    }
                    None => s.location(rot) == loc,
                }
            })
            .collect();
        cands = if exact.is_empty() {
            let Some((sides, halves)) = parsed else {
                return Err(format!("no feature at `{loc}`"));
            };
            cands
                .into_iter()
                .filter(|i| {
                    let s = &tk.segments[*i];
                    let (ss, hs) = (s.sides.rotate(rot), s.halves.rotate(rot));
                    ss.0 & sides.0 == sides.0 && hs.0 & halves.0 == halves.0
                })
                .collect()
        } else {
            exact
        };
    }
    let describe = || {
        tk.segments
            .iter()
            .map(|s| format!("{} {}", rules.kind(s.kind).name, s.location(rot)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match cands.as_slice() {
        [i] => Ok(*i as u8),
        [] => Err(format!(
            "tile {} has no feature `{want}` (it has: {})",
            tk.id,
            describe()
        )),
        _ => Err(format!(
            "feature `{want}` is ambiguous on tile {} (it has: {})",
            tk.id,
            describe()
        )),
    }
}
