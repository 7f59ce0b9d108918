//! Declare, then bind: how an expansion joins a ruleset.
//!
//! 1. **Declare.** [`crate::Expansion::declare`] states what the expansion brings
//!    (feature and figure kinds, tiles, options, verbs, score labels, state slots) through
//!    a [`Declare`], which hands back typed ids at once. It returns a [`Binder`] that
//!    keeps those ids.
//! 2. **Bind.** Once every expansion has declared and the chosen options are checked,
//!    each binder gets a [`Binding`]: the complete vocabulary (other expansions' kinds and
//!    figures included) and the parsed options. It returns the expansion's
//!    [`BoundExpansion`]: an immutable value holding its ids and options, shared by
//!    every game of the ruleset on every thread. Per-game data lives in state slots.
//!
//! An expansion value can therefore join any number of rulesets: nothing about a
//! ruleset is ever stored in it.

use crate::action::{ExpansionIndex, VerbId, VerbValue};
use crate::figure::{FigureKindDef, FigureKindId};
use crate::graph::SegmentMark;
use crate::hooks::{BoundExpansion, HookFailure, HookResult};
use crate::kind::{FeatureKindDef, FeatureKindId, Scoring, Shape};
use crate::options::{OptionDef, OptionValue};
use crate::prompt::PromptKind;
use crate::ruleset::{LabelId, Ruleset, SetupError};
use crate::slot::{FigureSlot, GameSlot, PlayerSlot, SlotDef, SlotId, SlotRole, SlotScope};
use crate::tile::TileSetData;

/// What an expansion may declare in [`crate::Expansion::declare`].
pub struct Declare<'a> {
    pub(crate) me: ExpansionIndex,
    pub(crate) id: &'a str,
    pub(crate) kinds: &'a mut Vec<FeatureKindDef>,
    pub(crate) figures: &'a mut Vec<FigureKindDef>,
    pub(crate) tile_sets: &'a mut Vec<TileSetData>,
    pub(crate) option_defs: &'a mut Vec<OptionDef>,
    pub(crate) verbs: &'a mut Vec<(ExpansionIndex, String)>,
    pub(crate) verb_words: &'a mut Vec<(String, VerbValue)>,
    pub(crate) chance_verbs: &'a mut Vec<VerbId>,
    pub(crate) prompt_texts: &'a mut Vec<(ExpansionIndex, u16, String)>,
    pub(crate) labels: &'a mut Vec<String>,
    pub(crate) slots: &'a mut Vec<SlotDef>,
    pub(crate) overlays: &'a mut Vec<crate::overlay::Overlay>,
    pub(crate) edge_meets: &'a mut Vec<(u8, u8)>,
    pub(crate) mark_tags: &'a mut Vec<String>,
}

impl Declare<'_> {
    /// The declaring expansion's index.
    pub fn me(&self) -> ExpansionIndex {
        self.me
    }

    /// A feature kind declared so far (base game, earlier expansions, this one).
    pub fn kind_named(&self, name: &str) -> Option<FeatureKindId> {
        self.kinds
            .iter()
            .position(|k| k.name == name)
            .map(|i| FeatureKindId(i as u8))
    }

    /// A feature kind declared so far, by id.
    pub fn kind(&self, k: FeatureKindId) -> &FeatureKindDef {
        &self.kinds[k.0 as usize]
    }

    /// A figure kind declared so far.
    pub fn figure_named(&self, name: &str) -> Option<FigureKindId> {
        self.figures
            .iter()
            .position(|k| k.name == name)
            .map(|i| FigureKindId(i as u8))
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

    /// Opens a kind declared by another expansion to followers and gives it a valuation,
    /// for rules that turn a feature nobody could stand on into one people claim (fans'
    /// fishermen on River I's river). Only an unoccupiable, unscored, completable edge or
    /// site kind can be opened, and only once: a kind somebody already scores is not
    /// rewritten behind its owner's back.
    pub fn open_kind(&mut self, k: FeatureKindId, scoring: Scoring) -> Result<(), SetupError> {
        let def = &mut self.kinds[k.0 as usize];
        let refuse = |why: &str| SetupError::Expansion {
            expansion: self.id.to_string(),
            message: format!("feature kind `{}` cannot be opened: {why}", def.name),
        };
        if def.occupiable || def.scoring != Scoring::Unscored {
            return Err(refuse("it is occupiable or scored already"));
        }
        if !matches!(def.shape, Shape::Edge { .. } | Shape::Site) || !def.completes {
            return Err(refuse("only edge or site kinds that complete can be"));
        }
        def.occupiable = true;
        def.scoring = scoring;
        Ok(())
    }

    /// Declares an overlay ([`crate::overlay`]): a segment of edge kind `kind` across
    /// `sides` (`"NS"`, turned in every rotation) that hooks may add to a placed tile whose
    /// sides there are field edges, tagged `tag`. With `amends`, a placement that fits only
    /// with the overlay on the placed tile or on the neighbour it faces is legal while the
    /// active player's `amends` value is above 0, and placing it adds the overlay.
    pub fn segment_overlay(
        &mut self,
        kind: FeatureKindId,
        sides: &str,
        tag: &str,
        amends: Option<PlayerSlot>,
    ) -> Result<(), SetupError> {
        let refuse = |why: &str| SetupError::Expansion {
            expansion: self.id.to_string(),
            message: format!("segment overlay `{tag}`: {why}"),
        };
        let set = crate::side::SideSet::parse(sides).ok_or_else(|| refuse("bad sides"))?;
        if !matches!(
            self.kinds.get(kind.0 as usize).map(|k| k.shape),
            Some(Shape::Edge { .. })
        ) || set.is_empty()
        {
            return Err(refuse("an overlay is an edge kind on at least one side"));
        }
        self.overlays.push(crate::overlay::Overlay {
            kind,
            sides: set,
            tag: tag.to_string(),
            amends,
        });
        Ok(())
    }

    /// Lets an edge of kind `a` face an edge of kind `b` (and the reverse) although they
    /// differ, without joining: each is closed there, as at a tile's end (The City Gates: a
    /// gate may face a road, which ends there, or a field). `b` may be the field kind (a
    /// field edge); with `a == b`, two edges of that kind face each other without joining
    /// (two gates).
    pub fn edge_meets(&mut self, a: FeatureKindId, b: FeatureKindId) -> Result<(), SetupError> {
        let code = |k: FeatureKindId| match self.kinds.get(k.0 as usize).map(|d| d.shape) {
            Some(Shape::Edge { .. }) => Some(k.0 + 1),
            Some(Shape::Field) => Some(0),
            _ => None,
        };
        match (code(a), code(b)) {
            (Some(x), Some(y)) if x != 0 || y != 0 => {
                // Kept as declared: `x` is the declaring kind (the gate), which
                // `Ruleset::edges_declaring` looks for; the table is made symmetric.
                if !self.edge_meets.contains(&(x, y)) {
                    self.edge_meets.push((x, y));
                }
                Ok(())
            }
            _ => Err(SetupError::Expansion {
                expansion: self.id.to_string(),
                message: "edge_meets: both kinds must be edge kinds, or one of them the field"
                    .into(),
            }),
        }
    }

    /// Asks core to carry segment tag `tag` into every feature's totals
    /// ([`crate::FeatureTotals::marks`]): whether a feature holds a segment with the tag is
    /// then one read ([`SegmentMark::on`]), however large the feature (Inns & Cathedrals'
    /// inns and cathedrals). Expansions asking for the same tag share its bit; a ruleset
    /// has at most [`SegmentMark::MAX`] such tags.
    pub fn segment_mark(&mut self, tag: &str) -> Result<SegmentMark, SetupError> {
        let i = match self.mark_tags.iter().position(|t| t == tag) {
            Some(i) => i,
            None if self.mark_tags.len() < SegmentMark::MAX => {
                self.mark_tags.push(tag.to_string());
                self.mark_tags.len() - 1
            }
            None => {
                return Err(SetupError::Expansion {
                    expansion: self.id.to_string(),
                    message: format!(
                        "segment_mark `{tag}`: a ruleset marks at most {} segment tags ({})",
                        SegmentMark::MAX,
                        self.mark_tags.join(", ")
                    ),
                })
            }
        };
        Ok(SegmentMark(1 << i))
    }

    /// Declares a figure kind.
    pub fn figure_kind(&mut self, mut def: FigureKindDef) -> Result<FigureKindId, SetupError> {
        if self.figures.iter().any(|f| f.name == def.name) {
            return Err(SetupError::Duplicate {
                what: "figure kind",
                name: def.name,
            });
        }
        if self.figures.len() > usize::from(u8::MAX) {
            return Err(SetupError::Limit(format!(
                "figure kind `{}`: at most 256 figure kinds",
                def.name
            )));
        }
        if def.neutral > 0 {
            if def.per_player > 0 || def.follower {
                return Err(SetupError::Expansion {
                    expansion: self.id.to_string(),
                    message: format!(
                        "figure kind `{}` is neutral: it can have no copies per player and cannot be a follower",
                        def.name
                    ),
                });
            }
            // Nobody's figure claims a feature.
            def.shares = true;
        }
        self.figures.push(def);
        Ok(FigureKindId((self.figures.len() - 1) as u8))
    }

    /// Adds a tile set.
    pub fn tiles(&mut self, data: TileSetData) {
        self.tile_sets.push(data);
    }

    /// Declares an option `<expansion>.<name>`; its value is read in bind
    /// ([`Binding::option`]).
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

    /// Registers a verb for [`crate::CustomAction`]s. Hosts show it to players by its name
    /// (`move-dragon` → "move dragon") unless [`Declare::verb_in_words`] gave it words.
    pub fn verb(&mut self, name: &str) -> VerbId {
        self.verbs.push((self.me, name.to_string()));
        self.verb_words.push((String::new(), VerbValue::Number));
        VerbId((self.verbs.len() - 1) as u16)
    }

    /// Registers a verb with the words a player reads for the choice: an imperative in lower
    /// case that names what the action does, `"move the dragon"`, `"let the flock grow"`
    /// (hosts capitalise it and add the action's figure, place and value).
    pub fn verb_in_words(&mut self, name: &str, text: &str) -> VerbId {
        let v = self.verb(name);
        self.verb_words[v.0 as usize].0 = text.trim().to_string();
        v
    }

    /// Marks `verb` as a draw by chance: a prompt of this expansion that offers actions of
    /// it is the table's draw, not the player's choice (a token revealed from a bag under a
    /// `tokenDraws=chosen` option, where a replay names the outcome). Each such action is one
    /// outcome, equally likely, or, for a verb whose value is a tile kind
    /// ([`VerbValue::TileKind`]), as likely as that kind's copies left in the supply. Bots
    /// sample them instead of choosing ([`crate::Game::chance_outcomes`]).
    pub fn verb_by_chance(&mut self, verb: VerbId) {
        if (verb.0 as usize) < self.verbs.len() && !self.chance_verbs.contains(&verb) {
            self.chance_verbs.push(verb);
        }
    }

    /// What `verb`'s action value means to a player (default [`VerbValue::Number`]).
    pub fn verb_value(&mut self, verb: VerbId, meaning: VerbValue) {
        if let Some(w) = self.verb_words.get_mut(verb.0 as usize) {
            w.1 = meaning;
        }
    }

    /// The words a player reads for this expansion's question `what` (every prompt with
    /// its tag, whatever its argument): an imperative in lower case, `"place your abbey
    /// instead of drawing a tile"`. Hosts show it instead of a list made from the offered
    /// actions.
    pub fn prompt_in_words(&mut self, what: impl PromptKind, text: &str) {
        let tag = what.encode().tag;
        let me = self.me;
        self.prompt_texts.retain(|(o, t, _)| (*o, *t) != (me, tag));
        self.prompt_texts.push((me, tag, text.trim().to_string()));
    }

    /// Registers a score label for points outside feature scoring (shared by name).
    pub fn score_label(&mut self, name: &str) -> LabelId {
        if let Some(i) = self.labels.iter().position(|l| l == name) {
            return LabelId(i as u16);
        }
        self.labels.push(name.to_string());
        LabelId((self.labels.len() - 1) as u16)
    }

    /// Declares a state slot with one value per game.
    pub fn game_slot(&mut self, name: &str, default: i64) -> GameSlot {
        GameSlot(self.slot(name, SlotScope::Game, default))
    }

    /// Declares a state slot with one value per player.
    pub fn player_slot(&mut self, name: &str, default: i64) -> PlayerSlot {
        PlayerSlot(self.slot(name, SlotScope::Player, default))
    }

    /// Declares a state slot with one value per figure.
    pub fn figure_slot(&mut self, name: &str, default: i64) -> FigureSlot {
        FigureSlot(self.slot(name, SlotScope::Figure, default))
    }

    /// Declares a figure slot that holds the tile corner its figure stands on
    /// ([`SlotRole::FigureCorner`]: 0 none, 1 NW, 2 NE, 3 SE, 4 SW), so renderers draw
    /// the figure there.
    pub fn figure_corner_slot(&mut self, name: &str) -> FigureSlot {
        let id = self.slot(name, SlotScope::Figure, 0);
        self.slots[id.0 as usize].role = SlotRole::FigureCorner;
        FigureSlot(id)
    }

    /// Declares a state slot whose scope is only known at run time (script hosts); native
    /// expansions use the typed declarations above.
    pub fn slot(&mut self, name: &str, scope: SlotScope, default: i64) -> SlotId {
        self.slots.push(SlotDef {
            expansion: self.me,
            name: name.to_string(),
            scope,
            default,
            role: SlotRole::State,
        });
        SlotId((self.slots.len() - 1) as u16)
    }
}

/// The second step of joining a ruleset: made by `declare`, consumed by bind.
pub trait Binder: Send {
    /// Reads the complete ruleset and returns the expansion's hooks.
    fn bind(self: Box<Self>, b: &Binding<'_>) -> HookResult<Box<dyn BoundExpansion>>;

    /// [`Binder::bind`] under the plugin's panic guard, with the hooks it makes wrapped in
    /// [`crate::plugin::GuardedHooks`]: what a plugin's guard calls. The default guards
    /// the box `bind` hands back (each hook is then two indirect calls); [`binder`]'s
    /// binder guards its concrete type (one). Not to be overridden elsewhere: the result
    /// must be guarded.
    #[doc(hidden)]
    fn bind_guarded(self: Box<Self>, b: &Binding<'_>) -> HookResult<Box<dyn BoundExpansion>> {
        let inner = crate::plugin::guard(|| self.bind(b))?;
        Ok(Box::new(crate::plugin::GuardedHooks::new(inner)))
    }
}

impl<F> Binder for F
where
    F: FnOnce(&Binding<'_>) -> HookResult<Box<dyn BoundExpansion>> + Send,
{
    fn bind(self: Box<Self>, b: &Binding<'_>) -> HookResult<Box<dyn BoundExpansion>> {
        (*self)(b)
    }
}

/// [`binder`]'s binder: knows the bound type `B`, so its guarded binding wraps `B` itself.
struct MakeBound<F, B> {
    make: F,
    bound: std::marker::PhantomData<fn() -> B>,
}

impl<B, F> Binder for MakeBound<F, B>
where
    B: BoundExpansion + 'static,
    F: FnOnce(&Binding<'_>) -> HookResult<B> + Send + 'static,
{
    fn bind(self: Box<Self>, b: &Binding<'_>) -> HookResult<Box<dyn BoundExpansion>> {
        Ok(Box::new((self.make)(b)?))
    }

    fn bind_guarded(self: Box<Self>, b: &Binding<'_>) -> HookResult<Box<dyn BoundExpansion>> {
        let inner = crate::plugin::guard(|| (self.make)(b))?;
        Ok(Box::new(crate::plugin::GuardedHooks::new(inner)))
    }
}

/// A [`Binder`] from a closure that makes the bound value:
/// `Ok(binder(move |b| Ok(MyRules { ids, mode: b.option_str("mode")?.parse()? })))`.
/// Under a plugin's panic guard the guard wraps the bound type itself, so each hook call
/// reaches it through one indirect call.
pub fn binder<B, F>(make: F) -> Box<dyn Binder>
where
    B: BoundExpansion + 'static,
    F: FnOnce(&Binding<'_>) -> HookResult<B> + Send + 'static,
{
    Box::new(MakeBound {
        make,
        bound: std::marker::PhantomData,
    })
}

/// What a [`Binder`] reads: the complete ruleset (without any expansion's hooks yet).
pub struct Binding<'a> {
    pub(crate) rules: &'a Ruleset,
    pub(crate) me: ExpansionIndex,
    pub(crate) id: &'a str,
}

impl<'a> Binding<'a> {
    /// The ruleset's vocabulary, tiles and options.
    pub fn rules(&self) -> &'a Ruleset {
        self.rules
    }

    /// The binding expansion's index.
    pub fn me(&self) -> ExpansionIndex {
        self.me
    }

    /// The value of this expansion's option `name` (declared in `declare` or in the
    /// manifest), default filled in.
    pub fn option(&self, name: &str) -> HookResult<&'a OptionValue> {
        let key = format!("{}.{name}", self.id);
        self.rules
            .options()
            .get(&key)
            .ok_or_else(|| HookFailure(format!("option `{key}` is not declared")))
    }

    /// A choice option's value.
    pub fn option_str(&self, name: &str) -> HookResult<&'a str> {
        match self.option(name)? {
            OptionValue::Str(s) => Ok(s),
            other => Err(HookFailure(format!(
                "option `{name}` is `{other}`, not a choice"
            ))),
        }
    }

    /// A flag option's value.
    pub fn option_flag(&self, name: &str) -> HookResult<bool> {
        match self.option(name)? {
            OptionValue::Bool(b) => Ok(*b),
            other => Err(HookFailure(format!(
                "option `{name}` is `{other}`, not a flag"
            ))),
        }
    }

    /// An integer option's value.
    pub fn option_int(&self, name: &str) -> HookResult<i64> {
        match self.option(name)? {
            OptionValue::Int(i) => Ok(*i),
            other => Err(HookFailure(format!(
                "option `{name}` is `{other}`, not an integer"
            ))),
        }
    }
}
