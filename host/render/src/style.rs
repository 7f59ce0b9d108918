//! Colours and shapes: how each feature kind and figure kind looks.
//!
//! The base game's feature kinds get their own look (city, road, field, cloister), and so
//! do kinds whose `look` names a drawing (`river`, `shrine`, `quarter`). Figure kinds are drawn as their `look` declares (`meeple`, `pawn`, `pig`,
//! `hood`, `mayor`, … or a `path:`), never recognised by name; the base game's small
//! follower is the meeple. Any other kind — a fan expansion's — gets a generic look of its
//! shape, in a colour derived from its name, so it still renders and two unknown kinds
//! still differ.

use carcassonne_core::{FeatureKindDef, FigureKindDef, Shape};

/// Player colours by seat (fields are green, so no green).
pub const PLAYER_COLOURS: [&str; 8] = [
    "#d7263d", "#1b4fd8", "#f4c20d", "#1e1e1e", "#f07a12", "#d43fa9", "#0f9d9a", "#f2f2f2",
];

/// Colour of seat `p`.
pub fn player_colour(p: usize) -> &'static str {
    PLAYER_COLOURS[p % PLAYER_COLOURS.len()]
}

/// Neutral figures (nobody's) without a declared colour: a grey no seat uses.
pub const NEUTRAL: &str = "#8c8c8c";

/// The fill of figure `fig`: its kind's declared colour, else its owner's seat colour, or
/// [`NEUTRAL`] for a neutral figure.
pub fn figure_colour<'a>(def: &'a FigureKindDef, fig: &carcassonne_core::Figure) -> &'a str {
    match fig.seat() {
        Some(p) if def.colour.is_empty() => player_colour(p.index()),
        _ => kind_colour(def).unwrap_or(NEUTRAL),
    }
}

/// The colour a figure kind declares, or [`NEUTRAL`] for a neutral kind that declares none;
/// `None` for a player's kind drawn in its owner's seat colour.
pub fn kind_colour(def: &FigureKindDef) -> Option<&str> {
    if !def.colour.is_empty() {
        Some(&def.colour)
    } else if def.is_neutral() {
        Some(NEUTRAL)
    } else {
        None
    }
}

/// Page background.
pub const PAPER: &str = "#f6f1e6";
/// Ground of a tile with no features (the inside of the City of Carcassonne).
pub const STONE: &str = "#b8b0a2";
/// Field.
pub const FIELD: &str = "#a8d26f";
/// Divider between two fields on one tile.
pub const FIELD_LINE: &str = "#5f8f36";
/// City.
pub const CITY: &str = "#d6ad6b";
/// City walls.
pub const WALL: &str = "#7a4f1d";
/// Pennant (coat of arms).
pub const PENNANT: &str = "#2a56b8";

/// Road.
pub const ROAD: &str = "#fbf8ef";
/// The deck under a segment an overlay added (a bridge's road).
pub const OVERLAY_DECK: &str = "#7a4a22";
/// Road edges.
pub const ROAD_EDGE: &str = "#6d6458";
/// River.
pub const RIVER: &str = "#4aa3df";
/// River banks.
pub const RIVER_EDGE: &str = "#23679e";
/// Village where roads end.
pub const VILLAGE: &str = "#8a5a3c";
/// The Count.
pub const COUNT: &str = "#6a2c91";
/// Outline of the tile placed last.
pub const LAST: &str = "#ff6a00";
/// Text.
pub const INK: &str = "#222222";
/// Secondary text.
pub const MUTED: &str = "#666666";

/// How a feature kind is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Look {
    /// City: tan with walls.
    City,
    /// Another walled edge kind: its own colour, with walls.
    Walled(String),
    /// Road: light band with dark edges; a village where it ends mid-tile.
    Road,
    /// River: blue band; a pond where it ends mid-tile.
    River,
    /// Another edge kind with fields alongside: a band in its own colour.
    Line(String),
    /// Field: green.
    Field,
    /// Another field kind: its own colour.
    OtherField(String),
    /// Cloister: a chapel with a red roof.
    Cloister,
    /// Shrine: a dark temple with a dome.
    Shrine,
    /// Another centre site: an octagon in its own colour.
    Site(String),
    /// A quarter of the City of Carcassonne (off the board).
    Quarter,
    /// Another off-board feature.
    Virtual(String),
}

impl Look {
    /// The look of a feature kind.
    pub fn of(def: &FeatureKindDef) -> Look {
        // A colour the kind declares wins over one made from its name.
        let own = || {
            if def.look.is_empty() {
                hue_colour(&def.name, 0.45, 0.55)
            } else {
                def.look.clone()
            }
        };
        // A drawing the kind declares by name in `look` (the expansion that brings it says
        // so); the base game's own kinds (core declares them) by name; any other kind a
        // generic look of its shape.
        match (def.shape, def.look.as_str()) {
            (Shape::Edge { .. }, "river") => return Look::River,
            (Shape::Site, "shrine") => return Look::Shrine,
            (Shape::Virtual, "quarter") => return Look::Quarter,
            _ => {}
        }
        match (def.shape, def.name.as_str()) {
            (Shape::Edge { .. }, "city") => Look::City,
            (Shape::Edge { .. }, "road") => Look::Road,
            (
                Shape::Edge {
                    fields_alongside: false,
                    ..
                },
                _,
            ) => Look::Walled(own()),
            (Shape::Edge { .. }, _) => Look::Line(own()),
            (Shape::Field, "field") => Look::Field,
            (Shape::Field, _) if !def.look.is_empty() => Look::OtherField(def.look.clone()),
            (Shape::Field, _) => Look::OtherField(hue_colour(&def.name, 0.35, 0.7)),
            (Shape::Site, "cloister") => Look::Cloister,
            (Shape::Site, _) => Look::Site(own()),
            (Shape::Virtual, _) => Look::Virtual(own()),
        }
    }

    /// Drawn width of a line kind, in tile units.
    pub fn width(&self) -> f64 {
        match self {
            Look::River => 0.16,
            _ => 0.1,
        }
    }

    /// Main fill colour.
    pub fn fill(&self) -> String {
        match self {
            Look::City => CITY.into(),
            Look::Road => ROAD.into(),
            Look::River => RIVER.into(),
            Look::Field => FIELD.into(),
            Look::Cloister => "#efe3c8".into(),
            Look::Shrine => "#c9b3d6".into(),
            Look::Quarter => "#e9dcc0".into(),
            Look::Walled(c)
            | Look::Line(c)
            | Look::OtherField(c)
            | Look::Site(c)
            | Look::Virtual(c) => c.clone(),
        }
    }

    /// Edge / outline colour.
    pub fn edge(&self) -> String {
        match self {
            Look::City => WALL.into(),
            Look::Road => ROAD_EDGE.into(),
            Look::River => RIVER_EDGE.into(),
            Look::Field | Look::OtherField(_) => FIELD_LINE.into(),
            Look::Cloister => "#7b5a33".into(),
            Look::Shrine => "#3e2452".into(),
            Look::Quarter => WALL.into(),
            Look::Walled(_) | Look::Line(_) | Look::Site(_) | Look::Virtual(_) => "#333333".into(),
        }
    }
}

/// A colour from a name: FNV-1a of the name picks the hue.
pub fn hue_colour(name: &str, saturation: f64, lightness: f64) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    hsl((h % 360) as f64, saturation, lightness)
}

/// `#rrggbb` of an HSL colour.
pub fn hsl(h: f64, s: f64, l: f64) -> String {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let m = l - c / 2.0;
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", to(r), to(g), to(b))
}

/// The outline of a figure kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FigureShape {
    /// The classic follower.
    Meeple,
    /// A bigger follower.
    BigMeeple,
    /// A pawn (builder).
    Pawn,
    /// An oval with ears (pig).
    Pig,
    /// A hooded figure (abbot).
    Hood,
    /// A diamond.
    Diamond,
    /// A hexagon.
    Hexagon,
    /// A five-pointed star.
    Star,
    /// A triangle.
    Triangle,
    /// A robed figure with a wide hat (Abbey & Mayor's mayor).
    Mayor,
    /// A cart on two wheels (Abbey & Mayor's wagon).
    Wagon,
    /// A barn with a gambrel roof (Abbey & Mayor's barn, drawn on its corner).
    Barn,
    /// A ghost: a round head and a robe ending in a wavy hem (The Phantom).
    Phantom,
}

impl FigureShape {
    /// The shape of figure kind `index` when it declares none ([`FigureKindDef::look`]
    /// empty or unknown): the base game's small follower is the meeple; any other kind
    /// gets a generic shape by its index. Kinds are never recognised by name: an
    /// expansion that wants a pawn or a pig says so in `look`.
    pub fn undeclared(index: usize) -> FigureShape {
        const OTHERS: [FigureShape; 5] = [
            FigureShape::Diamond,
            FigureShape::Hexagon,
            FigureShape::Star,
            FigureShape::Triangle,
            FigureShape::Pawn,
        ];
        if index == usize::from(carcassonne_core::FigureKindId::SMALL_FOLLOWER.0) {
            return FigureShape::Meeple;
        }
        OTHERS[index % OTHERS.len()]
    }

    /// The outline in a box from -1 to 1 (y down), as path commands.
    pub fn path(self) -> Vec<Cmd> {
        use Cmd::*;
        match self {
            FigureShape::Meeple | FigureShape::BigMeeple => vec![
                M(0.0, -1.0),
                C(0.32, -1.0, 0.42, -0.72, 0.3, -0.48),
                L(0.85, -0.25),
                C(1.02, -0.17, 1.0, 0.1, 0.8, 0.1),
                L(0.5, 0.06),
                L(0.8, 0.85),
                C(0.85, 1.0, 0.75, 1.0, 0.65, 1.0),
                L(0.18, 1.0),
                L(0.0, 0.62),
                L(-0.18, 1.0),
                L(-0.65, 1.0),
                C(-0.75, 1.0, -0.85, 1.0, -0.8, 0.85),
                L(-0.5, 0.06),
                L(-0.8, 0.1),
                C(-1.0, 0.1, -1.02, -0.17, -0.85, -0.25),
                L(-0.3, -0.48),
                C(-0.42, -0.72, -0.32, -1.0, 0.0, -1.0),
                Z,
            ],
            FigureShape::Pawn => vec![
                M(0.0, -1.0),
                C(0.3, -1.0, 0.42, -0.62, 0.2, -0.42),
                L(0.45, 0.75),
                L(0.7, 0.8),
                L(0.7, 1.0),
                L(-0.7, 1.0),
                L(-0.7, 0.8),
                L(-0.45, 0.75),
                L(-0.2, -0.42),
                C(-0.42, -0.62, -0.3, -1.0, 0.0, -1.0),
                Z,
            ],
            FigureShape::Pig => vec![
                M(-0.9, 0.0),
                C(-0.9, -0.6, 0.5, -0.75, 0.8, -0.25),
                L(1.0, -0.2),
                L(1.0, 0.2),
                L(0.8, 0.25),
                C(0.5, 0.75, -0.9, 0.6, -0.9, 0.0),
                Z,
                M(-0.5, 0.4),
                L(-0.45, 0.85),
                L(-0.25, 0.85),
                L(-0.2, 0.45),
                Z,
                M(0.25, 0.45),
                L(0.3, 0.85),
                L(0.5, 0.85),
                L(0.5, 0.4),
                Z,
            ],
            FigureShape::Hood => vec![
                M(0.0, -1.0),
                L(0.35, -0.4),
                L(0.75, 1.0),
                L(-0.75, 1.0),
                L(-0.35, -0.4),
                Z,
            ],
            FigureShape::Diamond => vec![M(0.0, -1.0), L(0.8, 0.0), L(0.0, 1.0), L(-0.8, 0.0), Z],
            FigureShape::Hexagon => vec![
                M(0.0, -1.0),
                L(0.87, -0.5),
                L(0.87, 0.5),
                L(0.0, 1.0),
                L(-0.87, 0.5),
                L(-0.87, -0.5),
                Z,
            ],
            FigureShape::Star => {
                let mut v = Vec::new();
                for k in 0..10 {
                    let r = if k % 2 == 0 { 1.0 } else { 0.45 };
                    let a = std::f64::consts::PI * (k as f64 / 5.0 - 0.5);
                    let p = (r * a.cos(), r * a.sin());
                    v.push(if k == 0 { M(p.0, p.1) } else { L(p.0, p.1) });
                }
                v.push(Z);
                v
            }
            FigureShape::Triangle => vec![M(0.0, -1.0), L(0.95, 0.9), L(-0.95, 0.9), Z],
            FigureShape::Mayor => vec![
                // Hat: brim and crown; then head and a long robe.
                M(-0.75, -0.55),
                L(-0.3, -0.6),
                L(-0.3, -1.0),
                L(0.3, -1.0),
                L(0.3, -0.6),
                L(0.75, -0.55),
                L(0.3, -0.45),
                L(0.25, -0.2),
                L(0.55, -0.05),
                L(0.75, 1.0),
                L(-0.75, 1.0),
                L(-0.55, -0.05),
                L(-0.25, -0.2),
                L(-0.3, -0.45),
                Z,
            ],
            FigureShape::Wagon => {
                // A box cart with a shaft, then two octagonal wheels.
                let mut v = vec![
                    M(-1.0, -0.55),
                    L(0.55, -0.55),
                    L(0.55, -0.15),
                    L(1.0, -0.15),
                    L(1.0, 0.0),
                    L(0.55, 0.0),
                    L(0.55, 0.2),
                    L(-1.0, 0.2),
                    Z,
                ];
                for cx in [-0.55, 0.25] {
                    for k in 0..8 {
                        let a = std::f64::consts::PI * (k as f64 / 4.0 + 0.125);
                        let p = (cx + 0.36 * a.cos(), 0.55 + 0.36 * a.sin());
                        v.push(if k == 0 { M(p.0, p.1) } else { L(p.0, p.1) });
                    }
                    v.push(Z);
                }
                v
            }
            FigureShape::Phantom => vec![
                M(0.0, -1.0),
                C(0.5, -1.0, 0.72, -0.6, 0.72, -0.2),
                L(0.8, 0.95),
                L(0.53, 0.7),
                L(0.27, 0.95),
                L(0.0, 0.7),
                L(-0.27, 0.95),
                L(-0.53, 0.7),
                L(-0.8, 0.95),
                L(-0.72, -0.2),
                C(-0.72, -0.6, -0.5, -1.0, 0.0, -1.0),
                Z,
            ],
            FigureShape::Barn => vec![
                M(-0.9, 0.95),
                L(-0.9, -0.2),
                L(-0.6, -0.75),
                L(0.0, -1.0),
                L(0.6, -0.75),
                L(0.9, -0.2),
                L(0.9, 0.95),
                L(0.25, 0.95),
                L(0.25, 0.35),
                L(-0.25, 0.35),
                L(-0.25, 0.95),
                Z,
            ],
        }
    }

    /// A shape by its declared name ([`FigureKindDef::look`]).
    pub fn named(name: &str) -> Option<FigureShape> {
        Some(match name {
            "meeple" => FigureShape::Meeple,
            "big-meeple" => FigureShape::BigMeeple,
            "pawn" => FigureShape::Pawn,
            "pig" => FigureShape::Pig,
            "hood" => FigureShape::Hood,
            "diamond" => FigureShape::Diamond,
            "hexagon" => FigureShape::Hexagon,
            "star" => FigureShape::Star,
            "triangle" => FigureShape::Triangle,
            "mayor" => FigureShape::Mayor,
            "wagon" => FigureShape::Wagon,
            "barn" => FigureShape::Barn,
            "phantom" => FigureShape::Phantom,
            _ => return None,
        })
    }

    /// Size relative to a small follower.
    pub fn scale(self) -> f64 {
        match self {
            FigureShape::BigMeeple => 1.3,
            FigureShape::Pig => 0.9,
            FigureShape::Mayor => 1.1,
            FigureShape::Barn => 1.15,
            _ => 1.0,
        }
    }
}

/// How figure kind `index` is drawn: the outline (in a box from -1 to 1) and its size
/// relative to a small follower. A kind's declared look wins (a shape name, or
/// `path:<SVG path>` with absolute `M`, `L`, `C` and `Z` commands); otherwise the shape
/// follows its name.
pub fn figure_outline(index: usize, def: &FigureKindDef) -> (Vec<Cmd>, f64) {
    if let Some(shape) = FigureShape::named(&def.look) {
        return (shape.path(), shape.scale());
    }
    if let Some(cmds) = def.look.strip_prefix("path:").and_then(parse_path) {
        return (cmds, 1.0);
    }
    let shape = FigureShape::undeclared(index);
    (shape.path(), shape.scale())
}

/// Absolute `M x y`, `L x y`, `C x1 y1 x2 y2 x y`, `Z` path data, coordinates within
/// -1..1 (`None` for anything else, so a bad path falls back to the default shape).
fn parse_path(d: &str) -> Option<Vec<Cmd>> {
    let spaced: String = d
        .chars()
        .flat_map(|c| {
            if c.is_ascii_alphabetic() {
                vec![' ', c, ' ']
            } else if c == ',' {
                vec![' ']
            } else {
                vec![c]
            }
        })
        .collect();
    let mut words = spaced.split_whitespace().peekable();
    let mut out = Vec::new();
    let num = |w: &mut std::iter::Peekable<std::str::SplitWhitespace<'_>>| -> Option<f64> {
        let v: f64 = w.next()?.parse().ok()?;
        (v.is_finite() && (-1.0..=1.0).contains(&v)).then_some(v)
    };
    while let Some(c) = words.next() {
        out.push(match c {
            "M" => Cmd::M(num(&mut words)?, num(&mut words)?),
            "L" => Cmd::L(num(&mut words)?, num(&mut words)?),
            "C" => Cmd::C(
                num(&mut words)?,
                num(&mut words)?,
                num(&mut words)?,
                num(&mut words)?,
                num(&mut words)?,
                num(&mut words)?,
            ),
            "Z" => Cmd::Z,
            _ => return None,
        });
    }
    (!out.is_empty() && matches!(out[0], Cmd::M(..))).then_some(out)
}

/// The path of a named icon an expansion asks for ([`carcassonne_core::Visible`]): `crown`,
/// `mask`, `count`; any other name draws the Count's pawn shape.
pub fn icon_path(name: &str) -> Vec<Cmd> {
    match name {
        "crown" => crown_path(),
        "mask" => mask_path(),
        "dragon" => dragon_path(),
        "fairy" => fairy_path(),
        "tower" => tower_path(),
        "big-top" => big_top_path(),
        "prisoner" => FigureShape::Meeple.path(),
        _ => count_path(),
    }
}

/// The colour of a neutral figure's icon: none of [`PLAYER_COLOURS`] (the dragon was red like seat 0).
pub fn icon_colour(name: &str) -> &'static str {
    match name {
        "dragon" => "#862e9c",
        "fairy" => "#99e9f2",
        "big-top" => "#a9e34b",
        _ => "#f5f5f5",
    }
}

/// The ground of a barrier tile (Abbey & Mayor's abbey) outside its buildings.
pub const ABBEY_GROUND: &str = "#d8cbb0";
/// The wall round a barrier tile.
pub const ABBEY_WALL: &str = "#6b4f35";

/// A symbol a tile tag stands for, drawn in a tile corner (`docs/rendering.md`): the tag,
/// the icon, its fill and which corner (0 bottom-left, 1 bottom-right).
pub const TILE_TAG_ICONS: &[(&str, &str, &str, u8)] = &[
    ("volcano", "volcano", "#e8590c", 0),
    ("dragon", "dragon", "#862e9c", 0),
    ("portal", "portal", "#7048e8", 0),
];

/// The path of a tile-tag symbol or segment-tag symbol (`princess`: a small crown).
pub fn symbol_path(name: &str) -> Vec<Cmd> {
    match name {
        "volcano" => volcano_path(),
        "dragon" => dragon_path(),
        "portal" => portal_path(),
        _ => crown_path(),
    }
}

/// The dragon: a winged head.
pub fn dragon_path() -> Vec<Cmd> {
    use Cmd::*;
    vec![
        M(-1.0, -0.9),
        L(-0.35, -0.2),
        L(-0.2, -0.7),
        L(0.2, -0.2),
        L(0.6, -0.4),
        L(1.0, -0.1),
        L(0.55, 0.05),
        L(0.35, 0.5),
        L(0.5, 1.0),
        L(-0.1, 0.6),
        L(-0.6, 1.0),
        L(-0.45, 0.2),
        Z,
    ]
}

/// The fairy: a four-pointed star.
pub fn fairy_path() -> Vec<Cmd> {
    use Cmd::*;
    vec![
        M(0.0, -1.0),
        L(0.25, -0.25),
        L(1.0, 0.0),
        L(0.25, 0.25),
        L(0.0, 1.0),
        L(-0.25, 0.25),
        L(-1.0, 0.0),
        L(-0.25, -0.25),
        Z,
    ]
}

/// A volcano: a cone with a crater.
pub fn volcano_path() -> Vec<Cmd> {
    use Cmd::*;
    vec![
        M(-1.0, 0.8),
        L(-0.3, -0.6),
        L(-0.1, -0.4),
        L(0.1, -0.6),
        L(0.3, -0.6),
        L(1.0, 0.8),
        Z,
    ]
}

/// A magic portal: a ring (two arcs drawn as a square ring).
pub fn portal_path() -> Vec<Cmd> {
    use Cmd::*;
    vec![
        M(0.0, -1.0),
        L(1.0, 0.0),
        L(0.0, 1.0),
        L(-1.0, 0.0),
        Z,
        M(0.0, -0.5),
        L(-0.5, 0.0),
        L(0.0, 0.5),
        L(0.5, 0.0),
        Z,
    ]
}

/// The Count: a pawn with a crown.
pub fn count_path() -> Vec<Cmd> {
    use Cmd::*;
    vec![
        M(-0.55, -1.0),
        L(-0.3, -0.75),
        L(0.0, -1.0),
        L(0.3, -0.75),
        L(0.55, -1.0),
        L(0.45, -0.45),
        L(0.22, -0.4),
        L(0.5, 0.75),
        L(0.75, 0.8),
        L(0.75, 1.0),
        L(-0.75, 1.0),
        L(-0.75, 0.8),
        L(-0.5, 0.75),
        L(-0.22, -0.4),
        L(-0.45, -0.45),
        Z,
    ]
}

/// A crown (the King).
pub fn crown_path() -> Vec<Cmd> {
    use Cmd::*;
    vec![
        M(-1.0, -0.6),
        L(-0.5, 0.0),
        L(0.0, -0.8),
        L(0.5, 0.0),
        L(1.0, -0.6),
        L(0.8, 0.7),
        L(-0.8, 0.7),
        Z,
    ]
}

/// A circus tent with its pennant (Under the Big Top's big top).
pub fn big_top_path() -> Vec<Cmd> {
    use Cmd::*;
    vec![
        M(0.0, -1.0),
        L(0.35, -0.85),
        L(0.05, -0.72),
        L(0.05, -0.55),
        L(0.95, 0.35),
        L(0.95, 0.9),
        L(-0.95, 0.9),
        L(-0.95, 0.35),
        L(-0.05, -0.55),
        L(-0.05, -1.0),
        Z,
    ]
}

/// A tower with battlements (tower pieces).
pub fn tower_path() -> Vec<Cmd> {
    use Cmd::*;
    vec![
        M(-0.7, -1.0),
        L(-0.4, -1.0),
        L(-0.4, -0.75),
        L(-0.15, -0.75),
        L(-0.15, -1.0),
        L(0.15, -1.0),
        L(0.15, -0.75),
        L(0.4, -0.75),
        L(0.4, -1.0),
        L(0.7, -1.0),
        L(0.7, -0.45),
        L(0.5, -0.45),
        L(0.6, 1.0),
        L(-0.6, 1.0),
        L(-0.5, -0.45),
        L(-0.7, -0.45),
        Z,
    ]
}

/// A masked face (the Robber).
pub fn mask_path() -> Vec<Cmd> {
    use Cmd::*;
    vec![
        M(-1.0, -0.3),
        C(-0.6, -0.7, 0.6, -0.7, 1.0, -0.3),
        L(0.8, 0.4),
        C(0.4, 0.6, 0.2, 0.2, 0.0, 0.2),
        C(-0.2, 0.2, -0.4, 0.6, -0.8, 0.4),
        Z,
    ]
}

/// A pennant (a small shield).
pub fn shield_path() -> Vec<Cmd> {
    use Cmd::*;
    vec![
        M(-0.8, -0.9),
        L(0.8, -0.9),
        L(0.8, 0.0),
        C(0.8, 0.5, 0.3, 0.8, 0.0, 1.0),
        C(-0.3, 0.8, -0.8, 0.5, -0.8, 0.0),
        Z,
    ]
}

/// A path command in shape space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cmd {
    /// Move to.
    M(f64, f64),
    /// Line to.
    L(f64, f64),
    /// Cubic Bézier to (two control points, then the end).
    C(f64, f64, f64, f64, f64, f64),
    /// Close.
    Z,
}

/// SVG path data of `cmds` scaled by `r`, turned by `quarter` quarter turns clockwise and
/// moved to `(cx, cy)`.
pub fn path_data(cmds: &[Cmd], cx: f64, cy: f64, r: f64, quarter: u8) -> String {
    let t = |x: f64, y: f64| {
        let (x, y) = match quarter % 4 {
            0 => (x, y),
            1 => (-y, x),
            2 => (-x, -y),
            _ => (y, -x),
        };
        format!("{} {}", num(cx + x * r), num(cy + y * r))
    };
    let mut out = String::new();
    for c in cmds {
        if !out.is_empty() {
            out.push(' ');
        }
        match *c {
            Cmd::M(x, y) => out.push_str(&format!("M{}", t(x, y))),
            Cmd::L(x, y) => out.push_str(&format!("L{}", t(x, y))),
            Cmd::C(a, b, c, d, e, f) => {
                out.push_str(&format!("C{} {} {}", t(a, b), t(c, d), t(e, f)))
            }
            Cmd::Z => out.push('Z'),
        }
    }
    out
}

/// A coordinate as text: one decimal, no `-0.0`.
pub fn num(v: f64) -> String {
    // Most coordinates are the double nearest to some k/10: their text is k/10 exactly
    // (the double is within half an ulp of it, far from a rounding boundary), written
    // without the exact float formatter, which was a few per cent of a served view's CPU.
    let k = (v * 10.0).round();
    if k.abs() < 1e15 && k / 10.0 == v {
        let a = (k as i64).unsigned_abs();
        let sign = if k < 0.0 && a != 0 { "-" } else { "" };
        return format!("{sign}{}.{}", a / 10, a % 10);
    }
    let s = format!("{v:.1}");
    if s == "-0.0" {
        "0.0".into()
    } else {
        s
    }
}

/// Text escaped for XML content and attributes.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    /// `num`'s fast path writes what the float formatter writes.
    #[test]
    fn num_matches_the_formatter() {
        let slow = |v: f64| {
            let s = format!("{v:.1}");
            if s == "-0.0" {
                "0.0".to_string()
            } else {
                s
            }
        };
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in -20_000..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (x >> 11) as f64 / (1u64 << 53) as f64;
            for v in [
                f64::from(i) / 10.0,
                f64::from(i) / 20.0,
                f64::from(i) * 0.05 + 0.0499,
                (r - 0.5) * 4000.0,
                f64::from(i) / 10.0 * 3.0 / 3.0,
                -0.0,
                0.04,
                -0.04,
                -0.05,
            ] {
                assert_eq!(super::num(v), slow(v), "{v:?}");
            }
        }
    }

    use super::*;

    #[test]
    fn colours_from_names_are_stable_and_valid() {
        let a = hue_colour("lake", 0.45, 0.55);
        assert_eq!(a, hue_colour("lake", 0.45, 0.55));
        assert_eq!(a.len(), 7);
        assert_ne!(a, hue_colour("tower", 0.45, 0.55));
        assert_eq!(hsl(0.0, 1.0, 0.5), "#ff0000");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(num(-0.01), "0.0");
    }
}

/// A symbol a tile file marks on a segment with a tag (`docs/tile-format.md`: segment
/// `tags`), drawn over the segment so that tags which change scoring are visible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagSymbol {
    /// An inn beside a road (tag `inn`, Inns & Cathedrals): a small house with a red roof.
    Inn,
    /// A cathedral in a city (tag `cathedral`, Inns & Cathedrals): a church with a spire.
    Cathedral,
    /// A goods symbol in a city (tags `wine`, `grain`, `cloth`, Traders & Builders): a small
    /// diamond in this colour.
    Goods(&'static str),
}

/// Segment tags that have a symbol, in drawing order. Other tags draw nothing.
pub const TAG_SYMBOLS: &[(&str, TagSymbol)] = &[
    ("inn", TagSymbol::Inn),
    ("cathedral", TagSymbol::Cathedral),
    ("wine", TagSymbol::Goods("#7b2d6b")),
    ("grain", TagSymbol::Goods("#d9a520")),
    ("cloth", TagSymbol::Goods("#3a7fc1")),
];

/// The symbol of a segment tag, if it has one.
pub fn tag_symbol(tag: &str) -> Option<TagSymbol> {
    TAG_SYMBOLS.iter().find(|(t, _)| *t == tag).map(|(_, s)| *s)
}
