//! The ruleset: everything fixed before a game starts (kinds, tiles, figures, options,
//! expansions), built once and shared by every game that uses it.

use crate::action::{ExpansionIndex, VerbId};
use crate::figure::{FigureKindDef, FigureKindId};
use crate::hooks::Expansion;
use crate::kind::{FeatureKindDef, FeatureKindId};
use crate::options::{OptionDef, OptionValue, Options};
use crate::tile::{TileCatalog, TileDataError, TileSetData};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Farm scoring edition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FarmScoring {
    /// 3rd edition (DEFAULT): each farm pays 3 per completed bordering city to its majority.
    Third,
    /// 2nd edition: farm by farm, but a city pays a given player at most once.
    Second,
    /// 1st edition: city by city, 4 points to the players with most farmers around it.
    First,
}

/// The base-game options, parsed once for the hot paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BaseRules {
    /// `farmScoring`.
    pub farm_scoring: FarmScoring,
    /// `smallCity` = `1st/2nd`: a completed 2-tile city scores 1 per tile and pennant.
    pub small_city_halved: bool,
    /// `farmers`: whether figures may be deployed on fields.
    pub farmers: bool,
}

/// Scope of an expansion state slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotScope {
    /// One value per game.
    Game,
    /// One value per player.
    Player,
    /// One value per figure.
    Figure,
}

/// A declared integer state slot of an expansion (saved with the game state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotDef {
    /// Declaring expansion.
    pub expansion: ExpansionIndex,
    /// Name, unique within the expansion.
    pub name: String,
    /// Scope.
    pub scope: SlotScope,
    /// Initial value.
    pub default: i64,
}

/// Handle of a declared state slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotId(pub u16);

/// Handle of a registered score label (points outside feature scoring: `king`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LabelId(pub u16);

/// Why a ruleset could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// A tile file is wrong.
    #[error(transparent)]
    Tiles(#[from] TileDataError),
    /// An option key nobody declared.
    #[error("unknown option `{key}` (known: {known})")]
    UnknownOption {
        /// The key.
        key: String,
        /// Declared keys.
        known: String,
    },
    /// An option value of the wrong type or out of range.
    #[error("option `{key}`: `{value}` is not allowed ({expected})")]
    BadOptionValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What is allowed.
        expected: String,
    },
    /// Something declared twice.
    #[error("{what} `{name}` is declared twice")]
    Duplicate {
        /// What kind of thing.
        what: &'static str,
        /// Its name.
        name: String,
    },
    /// An expansion refused the setup.
    #[error("expansion `{expansion}`: {message}")]
    Expansion {
        /// Expansion id.
        expansion: String,
        /// Its message.
        message: String,
    },
    /// A limit of the engine was exceeded.
    #[error("{0}")]
    Limit(String),
}

/// The fixed rules of a game: vocabulary, tiles, options and expansions.
pub struct Ruleset {
    pub(crate) kinds: Vec<FeatureKindDef>,
    pub(crate) figures: Vec<FigureKindDef>,
    pub(crate) tiles: TileCatalog,
    pub(crate) option_defs: Vec<OptionDef>,
    pub(crate) options: Options,
    pub(crate) base: BaseRules,
    pub(crate) expansions: Vec<Arc<dyn Expansion>>,
    /// Each expansion's [`Expansion::hooks`], read once at build.
    pub(crate) hook_sets: Vec<crate::hooks::HookSet>,
    /// The union of `hook_sets`.
    pub(crate) any_hooks: crate::hooks::HookSet,
    /// Per hook bit: which expansions implement it (bit `i` = expansion `i`; bit 63
    /// also stands for every later one).
    pub(crate) hook_members: [u64; 32],
    /// Per tile kind: bit `i` = expansion `i` filters its placements (bit 63: any of
    /// expansions 63 and up).
    pub(crate) placement_filters: Vec<u64>,
    pub(crate) verbs: Vec<(ExpansionIndex, String)>,
    pub(crate) labels: Vec<String>,
    pub(crate) slots: Vec<SlotDef>,
}

impl std::fmt::Debug for Ruleset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ruleset")
            .field(
                "expansions",
                &self
                    .expansions
                    .iter()
                    .map(|e| e.id().to_string())
                    .collect::<Vec<_>>(),
            )
            .field("tiles", &self.tiles.len())
            .field("options", &self.options)
            .finish()
    }
}

impl Ruleset {
    /// Starts building a ruleset with the base game's kinds, figure and options.
    pub fn builder() -> RulesetBuilder {
        RulesetBuilder::new()
    }

    /// Feature kinds, indexed by [`FeatureKindId`].
    pub fn kinds(&self) -> &[FeatureKindDef] {
        &self.kinds
    }

    /// A feature kind.
    #[inline]
    pub fn kind(&self, k: FeatureKindId) -> &FeatureKindDef {
        &self.kinds[k.0 as usize]
    }

    /// Finds a feature kind by name.
    pub fn kind_named(&self, name: &str) -> Option<FeatureKindId> {
        self.kinds
            .iter()
            .position(|k| k.name == name)
            .map(|i| FeatureKindId(i as u8))
    }

    /// Figure kinds, indexed by [`FigureKindId`].
    pub fn figure_kinds(&self) -> &[FigureKindDef] {
        &self.figures
    }

    /// A figure kind.
    #[inline]
    pub fn figure_kind(&self, k: FigureKindId) -> &FigureKindDef {
        &self.figures[k.0 as usize]
    }

    /// Finds a figure kind by name.
    pub fn figure_named(&self, name: &str) -> Option<FigureKindId> {
        self.figures
            .iter()
            .position(|k| k.name == name)
            .map(|i| FigureKindId(i as u8))
    }

    /// The tile catalog.
    pub fn tiles(&self) -> &TileCatalog {
        &self.tiles
    }

    /// Declared options.
    pub fn option_defs(&self) -> &[OptionDef] {
        &self.option_defs
    }

    /// Chosen option values (defaults filled in).
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Parsed base-game options.
    pub fn base(&self) -> &BaseRules {
        &self.base
    }

    /// Each expansion's hook set, in load order.
    pub fn hook_sets(&self) -> &[crate::hooks::HookSet] {
        &self.hook_sets
    }

    /// The expansions (bit `i` = expansion `i`; bit 63 also stands for every later one)
    /// whose placement filter applies to tile kind `tile`.
    #[inline]
    pub fn placement_filters(&self, tile: crate::tile::TileKindId) -> u64 {
        self.placement_filters
            .get(tile.0 as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The expansions implementing one hook (bit `i` = expansion `i`; bit 63 also
    /// stands for every later one). `hook` must be a single hook of [`crate::HookSet`].
    #[inline]
    pub fn hook_members(&self, hook: crate::hooks::HookSet) -> u64 {
        self.hook_members[(hook.0.trailing_zeros() & 31) as usize]
    }

    /// Whether any expansion implements one of `hooks`.
    #[inline]
    pub fn any_hooks(&self, hooks: crate::hooks::HookSet) -> bool {
        self.any_hooks.has(hooks)
    }

    /// Loaded expansions in hook order.
    pub fn expansions(&self) -> &[Arc<dyn Expansion>] {
        &self.expansions
    }

    /// Index of a loaded expansion by id.
    pub fn expansion_index(&self, id: &str) -> Option<ExpansionIndex> {
        self.expansions
            .iter()
            .position(|e| e.id() == id)
            .map(|i| ExpansionIndex(i as u8))
    }

    /// Registered verbs: owner and name.
    pub fn verbs(&self) -> &[(ExpansionIndex, String)] {
        &self.verbs
    }

    /// A verb by owner and name.
    pub fn verb_named(&self, owner: ExpansionIndex, name: &str) -> Option<VerbId> {
        self.verbs
            .iter()
            .position(|(o, n)| *o == owner && n == name)
            .map(|i| VerbId(i as u16))
    }

    /// Registered score labels.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Declared state slots.
    pub fn slots(&self) -> &[SlotDef] {
        &self.slots
    }
}

/// Builds a [`Ruleset`]; see [`Ruleset::builder`].
pub struct RulesetBuilder {
    kinds: Vec<FeatureKindDef>,
    figures: Vec<FigureKindDef>,
    tile_sets: Vec<TileSetData>,
    option_defs: Vec<OptionDef>,
    chosen: BTreeMap<String, OptionValue>,
    expansions: Vec<Arc<dyn Expansion>>,
    extra_options: Vec<OptionDef>,
}

impl RulesetBuilder {
    fn new() -> RulesetBuilder {
        RulesetBuilder {
            kinds: FeatureKindDef::base_kinds(),
            figures: vec![FigureKindDef::small_follower()],
            tile_sets: Vec::new(),
            option_defs: vec![
                OptionDef::choice(
                    "farmScoring",
                    &["3rd", "2nd", "1st"],
                    "A-13/A-14 farm scoring edition",
                ),
                OptionDef::choice(
                    "smallCity",
                    &["normal", "1st/2nd"],
                    "A-15 value of a completed 2-tile city",
                ),
                OptionDef::flag(
                    "farmers",
                    true,
                    "whether followers may be deployed on fields",
                ),
            ],
            chosen: BTreeMap::new(),
            expansions: Vec::new(),
            extra_options: Vec::new(),
        }
    }

    /// Adds a tile set (checked when the ruleset is built, after expansions declared their kinds).
    pub fn tiles(mut self, data: TileSetData) -> Self {
        self.tile_sets.push(data);
        self
    }

    /// Adds an expansion; hooks run in the order expansions are added.
    pub fn expansion(mut self, e: Arc<dyn Expansion>) -> Self {
        self.expansions.push(e);
        self
    }

    /// Declares an option on behalf of an expansion (its key already namespaced, e.g. from
    /// a manifest). Declaring a key twice is an error at [`RulesetBuilder::build`].
    pub fn declare_option(mut self, def: OptionDef) -> Self {
        self.extra_options.push(def);
        self
    }

    /// Chooses an option value.
    pub fn option(mut self, key: &str, value: OptionValue) -> Self {
        self.chosen.insert(key.to_string(), value);
        self
    }

    /// Runs every expansion's setup, checks the tiles and the options.
    pub fn build(mut self) -> Result<Ruleset, SetupError> {
        if self.expansions.len() > u8::MAX as usize {
            return Err(SetupError::Limit("at most 255 expansions".into()));
        }
        for def in std::mem::take(&mut self.extra_options) {
            if self.option_defs.iter().any(|d| d.key == def.key) {
                return Err(SetupError::Duplicate {
                    what: "option",
                    name: def.key,
                });
            }
            self.option_defs.push(def);
        }
        let mut verbs = Vec::new();
        let mut labels = Vec::new();
        let mut slots = Vec::new();
        let expansions = std::mem::take(&mut self.expansions);
        for (i, e) in expansions.iter().enumerate() {
            let mut s = Setup {
                me: ExpansionIndex(i as u8),
                id: e.id().to_string(),
                kinds: &mut self.kinds,
                figures: &mut self.figures,
                tile_sets: &mut self.tile_sets,
                option_defs: &mut self.option_defs,
                verbs: &mut verbs,
                labels: &mut labels,
                slots: &mut slots,
            };
            e.setup(&mut s).map_err(|message| SetupError::Expansion {
                expansion: e.id().to_string(),
                message: message.0,
            })?;
        }
        if self.kinds.len() > 64 {
            return Err(SetupError::Limit("at most 64 feature kinds".into()));
        }
        let mut tiles = TileCatalog::default();
        for set in &self.tile_sets {
            tiles.add_set(set, &self.kinds)?;
        }
        let mut options = Options::default();
        for (key, value) in &self.chosen {
            let def = self
                .option_defs
                .iter()
                .find(|d| &d.key == key)
                .ok_or_else(|| SetupError::UnknownOption {
                    key: key.clone(),
                    known: self
                        .option_defs
                        .iter()
                        .map(|d| d.key.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
            if !value.fits(&def.ty) {
                return Err(SetupError::BadOptionValue {
                    key: key.clone(),
                    value: value.to_string(),
                    expected: describe(&def.ty),
                });
            }
        }
        for def in &self.option_defs {
            let v = self
                .chosen
                .get(&def.key)
                .cloned()
                .unwrap_or_else(|| def.default.clone());
            options.0.insert(def.key.clone(), v);
        }
        let base = BaseRules {
            farm_scoring: match options.str("farmScoring") {
                "2nd" => FarmScoring::Second,
                "1st" => FarmScoring::First,
                _ => FarmScoring::Third,
            },
            small_city_halved: options.str("smallCity") == "1st/2nd",
            farmers: options.flag("farmers"),
        };
        let mut rules = Ruleset {
            hook_members: [0; 32],
            placement_filters: Vec::new(),
            hook_sets: Vec::new(),
            any_hooks: crate::hooks::HookSet::NONE,
            kinds: self.kinds,
            figures: self.figures,
            tiles,
            option_defs: self.option_defs,
            options,
            base,
            expansions,
            verbs,
            labels,
            slots,
        };
        // What each expansion hooks, asked once the rules are complete (options included).
        let hook_sets: Vec<crate::hooks::HookSet> =
            rules.expansions.iter().map(|e| e.hooks(&rules)).collect();
        for (i, h) in hook_sets.iter().enumerate() {
            rules.any_hooks = rules.any_hooks | *h;
            for (b, m) in rules.hook_members.iter_mut().enumerate() {
                if h.0 & (1 << b) != 0 {
                    *m |= 1 << i.min(63);
                }
            }
        }
        rules.hook_sets = hook_sets;
        let mut filters = vec![0u64; rules.tiles.len()];
        for (i, (e, hooks)) in rules.expansions.iter().zip(&rules.hook_sets).enumerate() {
            if !hooks.has(crate::hooks::HookSet::FILTER_PLACEMENTS) {
                continue;
            }
            for (id, _) in rules.tiles.iter() {
                let filters_it = e
                    .filters_tile(&rules, id)
                    .map_err(|m| SetupError::Expansion {
                        expansion: e.id().to_string(),
                        message: format!("filters_tile: {}", m.0),
                    })?;
                if filters_it {
                    filters[id.0 as usize] |= 1 << i.min(63);
                }
            }
        }
        rules.placement_filters = filters;
        Ok(rules)
    }
}

fn describe(ty: &crate::options::OptionType) -> String {
    match ty {
        crate::options::OptionType::Choice(c) => format!("one of {}", c.join(", ")),
        crate::options::OptionType::Bool => "true or false".into(),
        crate::options::OptionType::Int { min, max } => format!("an integer from {min} to {max}"),
    }
}

/// What an expansion may declare in [`Expansion::setup`].
pub struct Setup<'a> {
    me: ExpansionIndex,
    id: String,
    kinds: &'a mut Vec<FeatureKindDef>,
    figures: &'a mut Vec<FigureKindDef>,
    tile_sets: &'a mut Vec<TileSetData>,
    option_defs: &'a mut Vec<OptionDef>,
    verbs: &'a mut Vec<(ExpansionIndex, String)>,
    labels: &'a mut Vec<String>,
    slots: &'a mut Vec<SlotDef>,
}

impl Setup<'_> {
    /// The declaring expansion's index.
    pub fn me(&self) -> ExpansionIndex {
        self.me
    }

    /// Declares a feature kind, or returns the existing one with the same name and shape.
    pub fn feature_kind(&mut self, def: FeatureKindDef) -> Result<FeatureKindId, SetupError> {
        if let Some(i) = self.kinds.iter().position(|k| k.name == def.name) {
            if self.kinds[i] != def {
                return Err(SetupError::Duplicate {
                    what: "feature kind",
                    name: def.name,
                });
            }
            return Ok(FeatureKindId(i as u8));
        }
        self.kinds.push(def);
        Ok(FeatureKindId((self.kinds.len() - 1) as u8))
    }

    /// Declares a figure kind.
    pub fn figure_kind(&mut self, def: FigureKindDef) -> Result<FigureKindId, SetupError> {
        if self.figures.iter().any(|f| f.name == def.name) {
            return Err(SetupError::Duplicate {
                what: "figure kind",
                name: def.name,
            });
        }
        self.figures.push(def);
        Ok(FigureKindId((self.figures.len() - 1) as u8))
    }

    /// Adds a tile set.
    pub fn tiles(&mut self, data: TileSetData) {
        self.tile_sets.push(data);
    }

    /// Declares an option `<expansion>.<name>`.
    pub fn option(&mut self, mut def: OptionDef) -> Result<(), SetupError> {
        def.key = format!("{}.{}", self.id, def.key);
        if self.option_defs.iter().any(|d| d.key == def.key) {
            return Err(SetupError::Duplicate {
                what: "option",
                name: def.key,
            });
        }
        self.option_defs.push(def);
        Ok(())
    }

    /// Registers a verb for [`crate::CustomAction`]s.
    pub fn verb(&mut self, name: &str) -> VerbId {
        self.verbs.push((self.me, name.to_string()));
        VerbId((self.verbs.len() - 1) as u16)
    }

    /// Registers a score label for points outside feature scoring.
    pub fn score_label(&mut self, name: &str) -> LabelId {
        if let Some(i) = self.labels.iter().position(|l| l == name) {
            return LabelId(i as u16);
        }
        self.labels.push(name.to_string());
        LabelId((self.labels.len() - 1) as u16)
    }

    /// Declares an integer state slot.
    pub fn slot(&mut self, name: &str, scope: SlotScope, default: i64) -> SlotId {
        self.slots.push(SlotDef {
            expansion: self.me,
            name: name.to_string(),
            scope,
            default,
        });
        SlotId((self.slots.len() - 1) as u16)
    }
}
