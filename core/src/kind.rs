//! Feature kinds: the vocabulary of what a tile segment can be.
//!
//! The base game registers city, road, field and cloister with fixed ids; expansions
//! register more (river, shrine, quarter, …) at setup. A kind says how its segments
//! connect ([`Shape`]) and how a finished feature of that kind is valued ([`Scoring`]),
//! so core can merge and score an expansion's kinds without knowing the expansion.

use serde::{Deserialize, Serialize};

/// Index of a registered feature kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FeatureKindId(pub u8);

impl FeatureKindId {
    /// The base game's city.
    pub const CITY: FeatureKindId = FeatureKindId(0);
    /// The base game's road.
    pub const ROAD: FeatureKindId = FeatureKindId(1);
    /// The base game's field (farm).
    pub const FIELD: FeatureKindId = FeatureKindId(2);
    /// The base game's cloister.
    pub const CLOISTER: FeatureKindId = FeatureKindId(3);
}

/// How segments of a kind sit on a tile and join across tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Shape {
    /// Covers whole edges and joins the same kind across them (city, road, river). The
    /// letter names the edge type in edge strings; edges of different kinds never match.
    Edge {
        /// Edge letter, e.g. `C` for city.
        letter: char,
        /// Whether fields run along both halves of its edges (roads, rivers) or the
        /// feature fills the whole edge (cities).
        fields_alongside: bool,
    },
    /// Covers half-edges and joins fields across them; bounded by edge features.
    Field,
    /// Sits in the tile centre; complete when all 8 surrounding cells hold tiles (cloister).
    Site,
    /// Not on the grid (e.g. a district of a start block); only expansions create them.
    Virtual,
}

/// How a feature of a kind is valued when scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scoring {
    /// 2 per tile + 2 per pennant when complete, 1 + 1 at the end.
    City,
    /// 1 per tile, complete or not.
    Road,
    /// 9 when complete, 1 + surrounding tiles at the end.
    Cloister,
    /// farms, scored only at the end for completed bordering cities.
    Farm,
    /// Never scored by core (river, virtual districts); expansions may score it themselves.
    Unscored,
    /// Declared values (fan kinds): per tile and per marker (a segment's `pennants`), one
    /// pair when complete and one at the end of the game, to the majority like a road.
    Points {
        /// Per tile when complete.
        complete_tile: i32,
        /// Per marker when complete.
        complete_marker: i32,
        /// Per tile at the end of the game (incomplete).
        end_tile: i32,
        /// Per marker at the end of the game.
        end_marker: i32,
    },
}

/// A registered feature kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureKindDef {
    /// Name used in tile files, records and output (`city`, `shrine`, …).
    pub name: String,
    /// How segments of this kind connect.
    pub shape: Shape,
    /// How a feature of this kind is valued.
    pub scoring: Scoring,
    /// Whether figures may stand on it (a river may not).
    pub occupiable: bool,
    /// Whether a feature of this kind can be completed (closed edges, a surrounded site);
    /// `false` for kinds scored only at the end.
    #[serde(default = "yes")]
    pub completes: bool,
    /// How renderers draw it: a colour (`#rrggbb`), a drawing they know by name (`river`
    /// for an edge kind, `shrine` for a site, `quarter` for an off-board kind), or empty
    /// for the renderer's own choice.
    #[serde(default)]
    pub look: String,
    /// The figure kinds (by name) that may be deployed on it; empty: every kind whose
    /// `deploy_on` allows it. Core then never offers another kind there, so no filter has to
    /// drop it, whatever the load order (an acrobat space takes small followers only, BT-8).
    #[serde(default)]
    pub takes: Vec<String>,
}

fn yes() -> bool {
    true
}

impl FeatureKindDef {
    /// A kind that completes, in the renderer's own colour.
    pub fn new(name: &str, shape: Shape, scoring: Scoring, occupiable: bool) -> FeatureKindDef {
        FeatureKindDef {
            name: name.into(),
            shape,
            scoring,
            occupiable,
            completes: true,
            look: String::new(),
            takes: Vec::new(),
        }
    }
}

impl FeatureKindDef {
    /// The four base-game kinds, in id order.
    pub fn base_kinds() -> Vec<FeatureKindDef> {
        vec![
            FeatureKindDef::new(
                "city",
                Shape::Edge {
                    letter: 'C',
                    fields_alongside: false,
                },
                Scoring::City,
                true,
            ),
            FeatureKindDef::new(
                "road",
                Shape::Edge {
                    letter: 'R',
                    fields_alongside: true,
                },
                Scoring::Road,
                true,
            ),
            FeatureKindDef::new("field", Shape::Field, Scoring::Farm, true),
            FeatureKindDef::new("cloister", Shape::Site, Scoring::Cloister, true),
        ]
    }
}
