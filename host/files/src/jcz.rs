//! A manifest's `[prompts]` and `[jcz]` sections: what an expansion tells the JCloisterZone
//! importer (`host/jcz`, `docs/jcz.md`) about itself, so the importer knows no expansion.
//!
//! ```toml
//! [prompts]                 # names for the tags of the expansion's PromptKind
//! ransom = 3
//!
//! [jcz]
//! sets = ["tower:1"]        # JCZ set ids that load this expansion
//! elements = { tower = { required = true } }   # also: count = 1; option, present, absent;
//! #   with-set = true: read only with one of the sets (alone it loads nothing)
//! # an element whose value is how many figures of a kind each player has (absent: none):
//! # elements = { mayor = { figure = "mayor" } }
//! options = { ransomFunds = "need-3" }          # written out for every save with a set
//! fcz-options = { ransomAsked = "fcz" }         # … replacing those in FCZ's saves (appVersion ≥ 6)
//! features = { Tower = "tower" }                # JCZ feature class → our feature kind
//! scorings = { barn = "Field" }                  # our score label → the class JCZ scores it as
//! figures = { wagon = "wagon" }                 # JCZ meeple kind → our figure kind
//! neutral-figures = ["count.1"]                 # MOVE_NEUTRAL_FIGURE ids it answers
//! # or, with the pointers `to` may be and whether JCZ may undo a step:
//! # neutral-figures = [{ id = "dragon.1", to = ["cell"], undoable = false }]
//!
//! [jcz.set-options."abbey-and-mayor:2"]
//! edition = "2"
//!
//! [jcz.rules.wagon-move]    # a JCZ rule key read as one of our options
//! option = "wagonMove"
//! default = "C2"            # our value when the save has no key
//! values = { C1 = "C1", C2 = "C2" }
//!
//! [[jcz.prompts]]           # a prompt JCZ does not ask as we do
//! prompts = ["ransom"]
//! passed-by = ["PLACE_TILE"]            # or passed-unless = [...], or tile = "AM/A",
//! #   or random-by = [...], or drawn = true (a tile JCZ draws: the value is its kind),
//! #   or placed = true (JCZ's tile step: any PLACE_TILE, position and rotation)
//! # confirmed = true      # a deployment answering it is followed by the player's `COMMIT`
//! # action-step = true    # JCZ offers it in its action step: a pass without a deployment
//! #                       # step after it is written as that step's `PASS`, and read
//! #                       # back as answering this prompt alone
//!
//! [[jcz.actions]]           # a JCZ message that is one of the expansion's custom actions
//! message = "PLACE_TOKEN"
//! token = "TOWER_PIECE"
//! verb = "tower-piece"
//!
//! [[jcz.actions]]           # a token at a fixed place of the pointer's tile (a bridge)
//! message = "PLACE_TOKEN"
//! token = "BRIDGE"
//! feature = "Road"
//! location = "NS"
//! verb = "bridge-ns"
//!
//! [[jcz.actions]]           # a payload field is the custom action's value
//! message = "BAZAAR_BID"
//! field = "price"
//! verb = "raise"
//!
//! [[jcz.actions]]           # RETURN_MEEPLE of one `source`: the custom action about that follower
//! message = "RETURN_MEEPLE"
//! source = "PRINCESS"
//! verb = "princess"
//! ```
//!
//! Everything one file can check is checked here (names, which fields go together, option
//! keys and values against the manifest's own `[options]`, prompt names against
//! `[prompts]`); verbs, slots and figure kinds declared in the expansion's code are checked
//! by the importer against the built ruleset.

use carcassonne_core::{OptionDef, OptionValue};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// Reports a bad value: the field under `jcz` (or `prompts`), its span, and the message.
pub(crate) type JczFieldError = (String, std::ops::Range<usize>, String);

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawJcz {
    #[serde(default)]
    sets: Vec<Spanned<String>>,
    #[serde(default)]
    set_options: BTreeMap<String, Spanned<BTreeMap<String, String>>>,
    #[serde(default)]
    elements: BTreeMap<String, Spanned<RawElement>>,
    #[serde(default)]
    rules: BTreeMap<String, Spanned<RawRule>>,
    options: Option<Spanned<BTreeMap<String, String>>>,
    without_set: Option<Spanned<BTreeMap<String, String>>>,
    fcz_options: Option<Spanned<BTreeMap<String, String>>>,
    features: Option<Spanned<BTreeMap<String, String>>>,
    scorings: Option<Spanned<BTreeMap<String, String>>>,
    figures: Option<Spanned<BTreeMap<String, String>>>,
    #[serde(default)]
    neutral_figures: Vec<Spanned<RawNeutral>>,
    #[serde(default)]
    prompts: Vec<Spanned<RawPrompt>>,
    #[serde(default)]
    actions: Vec<Spanned<RawAction>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawElement {
    #[serde(default)]
    required: bool,
    count: Option<i64>,
    figure: Option<String>,
    option: Option<String>,
    present: Option<String>,
    absent: Option<String>,
    #[serde(default, rename = "absent-with")]
    absent_with: BTreeMap<String, String>,
    #[serde(default, rename = "with-set")]
    with_set: bool,
}

/// A `neutral-figures` entry: its id alone (`to` a feature, undoable), or a table.
#[derive(Debug)]
enum RawNeutral {
    Id(String),
    Table(RawNeutralTable),
}

/// By hand rather than `untagged`, so a mistake in a table is reported as that table's
/// (`unknown field `undo``), not as "no variant matched".
impl<'de> Deserialize<'de> for RawNeutral {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = RawNeutral;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a neutral figure id or a table { id, to, undoable }")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawNeutral, E> {
                Ok(RawNeutral::Id(v.to_string()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<RawNeutral, A::Error> {
                RawNeutralTable::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RawNeutral::Table)
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNeutralTable {
    id: String,
    to: Option<Vec<String>>,
    undoable: Option<bool>,
    via: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    option: String,
    default: String,
    values: BTreeMap<String, String>,
    #[serde(default, rename = "fcz-only")]
    fcz_only: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawPrompt {
    prompts: Vec<String>,
    tile: Option<String>,
    passed_by: Option<Vec<String>>,
    passed_unless: Option<Vec<String>>,
    #[serde(default)]
    confirmed: bool,
    #[serde(default)]
    action_step: bool,
    random_by: Option<Vec<String>>,
    #[serde(default)]
    drawn: bool,
    #[serde(default)]
    placed: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAction {
    message: String,
    token: Option<String>,
    feature: Option<String>,
    figure: Option<String>,
    source: Option<String>,
    choice: Option<String>,
    field: Option<String>,
    location: Option<String>,
    #[serde(default)]
    pointer: bool,
    verb: String,
    value: Option<String>,
    slot: Option<String>,
}

/// A JCZ element this expansion owns: accepted only with one of its sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JczElement {
    /// The element's key in `setup.elements`.
    pub name: String,
    /// A save with one of the sets must have it.
    pub required: bool,
    /// When given: the element's value must be this number (or `true` when it is 1).
    pub count: Option<i64>,
    /// When given: the element's value is how many figures of this kind (ours) each player
    /// has (`true` is 1; an absent element: none), the ruleset option `figures.<kind>`.
    pub figure: Option<String>,
    /// An option (without the expansion prefix) the element's presence sets.
    pub option: Option<String>,
    /// The option's value when the element is there (whatever its value).
    pub present: Option<String>,
    /// The option's value when it is not.
    pub absent: Option<String>,
    /// When it is not but one of these sets is in the save: (set, value), first match wins
    /// (JCZ switches some elements on by itself when another set brings their tile).
    pub absent_with: Vec<(String, String)>,
    /// Read only when one of the expansion's sets is in the save: alone, the element does
    /// not load the expansion (FCZ's `fishermen` switches the river's set-up, but a save
    /// with it and no river set brings no river).
    pub with_set: bool,
}

/// A JCZ rule key read as one of this expansion's options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JczRule {
    /// The key in `setup.rules`.
    pub key: String,
    /// Our option (without the expansion prefix).
    pub option: String,
    /// Our value when the save has no key.
    pub default: String,
    /// JCZ value → our value.
    pub values: Vec<(String, String)>,
    /// Only FanCloisterZone knows the key (upstream JCZ refuses it): written only when the
    /// game's value is not the default.
    pub fcz_only: bool,
}

/// What a `MOVE_NEUTRAL_FIGURE`'s `to` may point at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JczNeutralTarget {
    /// A feature pointer (`{position, feature, location}`): the offered custom action whose
    /// target is that feature.
    Feature,
    /// A cell `[x, y]`: the offered custom action (about no figure) targeting that tile.
    Cell,
    /// A follower `{featurePointer, meepleId}`: the offered custom action about it.
    Follower,
}

impl JczNeutralTarget {
    const NAMES: [(&'static str, JczNeutralTarget); 3] = [
        ("feature", JczNeutralTarget::Feature),
        ("cell", JczNeutralTarget::Cell),
        ("follower", JczNeutralTarget::Follower),
    ];

    /// Its name in a manifest (`feature`, `cell`, `follower`).
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, t)| *t == self)
            .map_or("feature", |(n, _)| n)
    }
}

/// A neutral figure JCZ moves with `MOVE_NEUTRAL_FIGURE`: one of the expansion's offered
/// custom actions, found by what `to` points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JczNeutralFigure {
    /// The `figureId` (`count.1`).
    pub id: String,
    /// What `to` may point at (`[Feature]` when only the id is given).
    pub targets: Vec<JczNeutralTarget>,
    /// Whether JCZ's undo stack may take a step of it back (`false`: JCZ never undoes one,
    /// like the dragon's flight).
    pub undoable: bool,
    /// A verb of the expansion whose offered action (about nothing) comes first when no
    /// offered action targets `to` yet: JCZ's one message is our two steps (Village Life's
    /// `donkey`, then the tile its prompt offers).
    pub via: Option<String>,
}

/// How a save deals with one of the expansion's prompts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JczPromptAnswer {
    /// A `PLACE_TILE` of this tile answers it: the offered placement at the save's
    /// position, whatever rotation it names; the replay output shows the prompt as JCZ's
    /// tile step of this tile in every rotation.
    Tile(String),
    /// JCZ never asks it where these messages come: they pass it first.
    PassedBy(Vec<JczMessagePattern>),
    /// JCZ asks it only as these messages: any other message passes it first.
    PassedUnless(Vec<JczMessagePattern>),
    /// A draw JCZ makes with its random number (Hills & Sheep's bag): one of these messages
    /// carries the number (`random`), and the prompt is answered by the offered action at
    /// index `floor(random × n)` of the `n` offered. A type no other declaration knows
    /// (`SHEPHERD_CONFIRM`) only answers it.
    RandomBy(Vec<JczMessagePattern>),
    /// A draw of JCZ's (`drawn = true`: a bazaar's shown tiles): the tile JCZ draws next, from
    /// `drawOrder` or its random number, answers it with the offered custom action whose
    /// value is that tile's kind. Answered before the next message that is not a `COMMIT`
    /// (whose number draws it) and at the end of the save.
    Drawn,
    /// A tile step of JCZ's (`placed = true`: a tile bought at a bazaar): any `PLACE_TILE`
    /// answers it with the offered placement at the save's position and rotation.
    Placed,
}

/// A JCZ message type, optionally narrowed by a qualifier: the JCZ meeple kind of the
/// message's `meepleId` (`DEPLOY_MEEPLE wagon`: a deployment of `<player>.wagon.<n>`), or the
/// `token` of a message that names one (`PLACE_TOKEN BRIDGE`, not a tower piece).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JczMessagePattern {
    /// The message type (`PLACE_TILE`).
    pub kind: String,
    /// The meeple kind or token it is narrowed to, if any.
    pub qualifier: Option<String>,
}

impl JczMessagePattern {
    /// Whether a message of type `kind` matches, given its `meepleId` and `token` fields (if
    /// any): a qualifier is compared with the meeple id's kind, else with the token.
    pub fn matches(&self, kind: &str, meeple_id: Option<&str>, token: Option<&str>) -> bool {
        self.kind == kind
            && self.qualifier.as_ref().is_none_or(|q| {
                meeple_id.and_then(|id| id.split('.').nth(1)).or(token) == Some(q.as_str())
            })
    }
}

impl JczActionMessage {
    /// The JCZ message type this declaration reads (`PAY_RANSOM`).
    pub fn message_type(&self) -> &str {
        match self {
            JczActionMessage::PlaceToken(_) => "PLACE_TOKEN",
            JczActionMessage::DeployOnFeature(_) | JczActionMessage::DeployFigure(_) => {
                "DEPLOY_MEEPLE"
            }
            JczActionMessage::CaptureFollower => "CAPTURE_FOLLOWER",
            JczActionMessage::PayRansom => "PAY_RANSOM",
            JczActionMessage::ExchangeFollower => "EXCHANGE_FOLLOWER",
            JczActionMessage::ReturnMeeple(_) => "RETURN_MEEPLE",
            JczActionMessage::Choice(t, _)
            | JczActionMessage::Field(t, _)
            | JczActionMessage::Pointer(t) => t,
        }
    }
}

/// One `[[jcz.prompts]]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JczPrompt {
    /// The prompt names (from `[prompts]`) it is about.
    pub prompts: Vec<String>,
    /// Their tags.
    pub tags: Vec<u16>,
    /// How the save answers them.
    pub answer: JczPromptAnswer,
    /// JCZ waits for a `COMMIT` of the player after a deployment answering it, unless he is
    /// asked again (its `ConfirmAction`: the wagon's move).
    pub confirmed: bool,
    /// JCZ offers its actions in its action step beside the deployments (the bridge): a
    /// pass is that step's `PASS` when our engine asks no deployment after it.
    pub action_step: bool,
    /// Line of the entry.
    pub line: usize,
}

/// Which JCZ message an action is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JczActionMessage {
    /// `PLACE_TOKEN` with this `token`; the custom action targets the pointer's feature.
    PlaceToken(String),
    /// `DEPLOY_MEEPLE` onto a pointer of this JCZ feature class.
    DeployOnFeature(String),
    /// `DEPLOY_MEEPLE` of this JCZ meeple kind.
    DeployFigure(String),
    /// `CAPTURE_FOLLOWER`: the custom action about the follower of `pointer.meepleId`.
    CaptureFollower,
    /// `PAY_RANSOM`: the custom action for the prisoner `meepleId`.
    PayRansom,
    /// `EXCHANGE_FOLLOWER`: the capturer's choice of the prisoner `meepleId` he gets back
    /// in an exchange (the Tower's, when he is held in several kinds): the custom action
    /// whose value is that meeple's figure kind.
    ExchangeFollower,
    /// `RETURN_MEEPLE` with this `source`: the custom action about the follower of
    /// `pointer.meepleId`.
    ReturnMeeple(String),
    /// A message of this type whose payload `value` is the second field: the offered
    /// custom action of the verb (Hills & Sheep's `FLOCK_EXPAND_OR_SCORE` `EXPAND`).
    Choice(String, String),
    /// A message of this type whose payload field (the second) is the offered custom
    /// action's value (`field = "price"`). One message may answer several questions of its
    /// sender in a row, each with one declaration (`BAZAAR_BID`: a tile, then a bid).
    Field(String, String),
    /// A message of this type whose payload `pointer` names a feature (`pointer = true`):
    /// the offered custom action of the verb on that feature (Under the Big Top's
    /// `SCORE_ACROBATS`).
    Pointer(String),
}

/// What the offered custom action's `value` must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JczActionValue {
    /// Anything.
    Any,
    /// The deployed figure's kind index.
    FigureKind,
    /// The corner of the tile just placed that is the north-west corner of the pointer's
    /// tile: 0 NW, 1 NE, 2 SE, 3 SW.
    Corner,
    /// For a prisoner: 256 × its figure kind + the seat held in this figure slot − 1
    /// (the slot holds seat + 1).
    Prisoner(String),
}

/// A token JCZ lays at a fixed place of a tile (`feature` and `location` of a `PLACE_TOKEN`:
/// a bridge, `Road` `NS`): the pointer names the tile, since the feature does not exist yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JczTilePlace {
    /// The pointer's JCZ feature class (`Road`).
    pub feature: String,
    /// The pointer's location, board-oriented (`NS`).
    pub location: String,
}

/// One `[[jcz.actions]]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JczAction {
    /// The message.
    pub message: JczActionMessage,
    /// The expansion's verb.
    pub verb: String,
    /// Its value.
    pub value: JczActionValue,
    /// A `PLACE_TOKEN` at this place of a tile: the offered action of the verb with a
    /// segment on the pointer's tile (not on the pointer's feature).
    pub at: Option<JczTilePlace>,
    /// Line of the entry.
    pub line: usize,
}

/// A manifest's `[jcz]` section, checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JczDeclaration {
    /// Line of the section (0 if absent).
    pub line: usize,
    /// JCZ set ids that load the expansion.
    pub sets: Vec<String>,
    /// Per set: options (key without prefix, value) it writes out.
    pub set_options: Vec<(String, Vec<(String, String)>)>,
    /// Elements it owns.
    pub elements: Vec<JczElement>,
    /// Rule keys it reads.
    pub rules: Vec<JczRule>,
    /// Options written out for every save with one of its sets.
    pub options: Vec<(String, String)>,
    /// Options written out when only its elements are in the save, none of its sets (the
    /// abbot without `basic:2`: no garden tiles).
    pub without_set: Vec<(String, String)>,
    /// Options that replace the others' values in FanCloisterZone's saves (`appVersion` 6
    /// or later), where the fork plays differently.
    pub fcz_options: Vec<(String, String)>,
    /// JCZ feature class → our feature kind.
    pub features: Vec<(String, String)>,
    /// JCZ feature class → our score label JCZ reports as a scoring of that class (a barn's
    /// farm scoring is a `Field` scoring in JCZ).
    pub scorings: Vec<(String, String)>,
    /// JCZ meeple kind → our figure kind.
    pub figures: Vec<(String, String)>,
    /// Neutral figures whose `MOVE_NEUTRAL_FIGURE` `to` names the target of one of its
    /// offered custom actions.
    pub neutral_figures: Vec<JczNeutralFigure>,
    /// Prompts.
    pub prompts: Vec<JczPrompt>,
    /// Actions.
    pub actions: Vec<JczAction>,
}

impl JczDeclaration {
    /// Whether it declares nothing.
    pub fn is_empty(&self) -> bool {
        *self == JczDeclaration::default()
    }
}

/// A JCZ name: printable ASCII without spaces, quotes or backslashes, at most 64 bytes.
fn jcz_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
}

fn message_type(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
}

/// Checks `value` for this manifest's option `key`.
fn option_value(options: &[OptionDef], key: &str, value: &str) -> Result<(), String> {
    let def = options.iter().find(|o| o.key == key).ok_or_else(|| {
        format!(
            "`{key}` is not an option of this manifest (declared: {})",
            options
                .iter()
                .map(|o| o.key.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    match OptionValue::parse(&def.ty, value) {
        Some(v) if v.fits(&def.ty) => Ok(()),
        _ => Err(format!("`{value}` is not a value of option `{key}`")),
    }
}

/// `[prompts]`: name → tag, names unique by construction and tags checked to be unique.
pub(crate) fn prompt_names(
    raw: &BTreeMap<String, Spanned<u16>>,
) -> Result<Vec<(String, u16)>, JczFieldError> {
    let mut out: Vec<(String, u16)> = Vec::new();
    for (name, tag) in raw {
        let at = |m: String| (format!("prompts.{name}"), tag.span(), m);
        if !crate::vocabulary::valid_name(name) {
            return Err(at(format!(
                "`{name}` must match ^[a-z][a-z0-9-]*$ (at most 32 characters)"
            )));
        }
        if let Some((other, _)) = out.iter().find(|(_, t)| t == tag.get_ref()) {
            return Err(at(format!(
                "tag {} is already named `{other}`",
                tag.get_ref()
            )));
        }
        out.push((name.clone(), *tag.get_ref()));
    }
    Ok(out)
}

/// Checks a `[jcz]` section against the manifest's options and prompt names.
pub(crate) fn declaration(
    raw: &RawJcz,
    line: usize,
    options: &[OptionDef],
    prompt_names: &[(String, u16)],
    line_of: &dyn Fn(usize) -> usize,
) -> Result<JczDeclaration, JczFieldError> {
    let mut d = JczDeclaration {
        line,
        ..JczDeclaration::default()
    };
    for (i, s) in raw.sets.iter().enumerate() {
        let at = |m: String| (format!("jcz.sets[{i}]"), s.span(), m);
        if !jcz_name(s.get_ref()) {
            return Err(at(format!("`{}` is not a JCZ set id", s.get_ref())));
        }
        if d.sets.contains(s.get_ref()) {
            return Err(at(format!("`{}` is listed twice", s.get_ref())));
        }
        d.sets.push(s.get_ref().clone());
    }
    for (set, opts) in &raw.set_options {
        let field = format!("jcz.set-options.\"{set}\"");
        if !d.sets.contains(set) {
            return Err((field, opts.span(), format!("`{set}` is not in `jcz.sets`")));
        }
        let mut list = Vec::new();
        for (k, v) in opts.get_ref() {
            option_value(options, k, v).map_err(|m| (format!("{field}.{k}"), opts.span(), m))?;
            list.push((k.clone(), v.clone()));
        }
        d.set_options.push((set.clone(), list));
    }
    let sets_needed = |field: String, span: std::ops::Range<usize>| -> Result<(), JczFieldError> {
        if d.sets.is_empty() {
            return Err((field, span, "needs `jcz.sets`".into()));
        }
        Ok(())
    };
    for (name, e) in &raw.elements {
        let field = format!("jcz.elements.{name}");
        sets_needed(field.clone(), e.span())?;
        if !jcz_name(name) {
            return Err((field, e.span(), format!("`{name}` is not a JCZ element")));
        }
        let el = e.get_ref();
        if el.count.is_some_and(|c| c < 1) {
            return Err((field, e.span(), "`count` must be at least 1".into()));
        }
        if el.figure.is_some() && (el.count.is_some() || el.option.is_some()) {
            return Err((
                field,
                e.span(),
                "`figure` gives the count itself: it goes with neither `count` nor `option`".into(),
            ));
        }
        if el
            .figure
            .as_deref()
            .is_some_and(|f| !crate::vocabulary::valid_name(f))
        {
            return Err((field, e.span(), "`figure` is not a figure kind name".into()));
        }
        match &el.option {
            None if el.present.is_some() || el.absent.is_some() || !el.absent_with.is_empty() => {
                return Err((
                    field,
                    e.span(),
                    "`present`, `absent` and `absent-with` need `option`".into(),
                ))
            }
            Some(_) if el.present.is_none() && el.absent.is_none() && el.absent_with.is_empty() => {
                return Err((
                    field,
                    e.span(),
                    "`option` needs `present`, `absent` or `absent-with`".into(),
                ))
            }
            Some(o) => {
                for v in el
                    .present
                    .iter()
                    .chain(&el.absent)
                    .chain(el.absent_with.values())
                {
                    option_value(options, o, v).map_err(|m| (field.clone(), e.span(), m))?;
                }
            }
            None => {}
        }
        d.elements.push(JczElement {
            name: name.clone(),
            required: el.required,
            count: el.count,
            figure: el.figure.clone(),
            option: el.option.clone(),
            present: el.present.clone(),
            absent: el.absent.clone(),
            absent_with: el
                .absent_with
                .iter()
                .map(|(a, b)| (a.clone(), b.clone()))
                .collect(),
            with_set: el.with_set,
        });
    }
    for (key, r) in &raw.rules {
        let field = format!("jcz.rules.{key}");
        sets_needed(field.clone(), r.span())?;
        let rule = r.get_ref();
        let at = |m: String| (field.clone(), r.span(), m);
        if !jcz_name(key) {
            return Err(at(format!("`{key}` is not a JCZ rule key")));
        }
        option_value(options, &rule.option, &rule.default).map_err(at)?;
        if rule.values.is_empty() {
            return Err(at("`values` lists no JCZ value".into()));
        }
        for v in rule.values.values() {
            option_value(options, &rule.option, v).map_err(at)?;
        }
        d.rules.push(JczRule {
            key: key.clone(),
            option: rule.option.clone(),
            default: rule.default.clone(),
            fcz_only: rule.fcz_only,
            values: rule
                .values
                .iter()
                .map(|(a, b)| (a.clone(), b.clone()))
                .collect(),
        });
    }
    if let Some(opts) = &raw.options {
        sets_needed("jcz.options".into(), opts.span())?;
        for (k, v) in opts.get_ref() {
            option_value(options, k, v)
                .map_err(|m| (format!("jcz.options.{k}"), opts.span(), m))?;
            d.options.push((k.clone(), v.clone()));
        }
    }
    for (field, raw_opts, out) in [
        ("without-set", &raw.without_set, &mut d.without_set),
        ("fcz-options", &raw.fcz_options, &mut d.fcz_options),
    ] {
        let Some(opts) = raw_opts else { continue };
        sets_needed(format!("jcz.{field}"), opts.span())?;
        for (k, v) in opts.get_ref() {
            option_value(options, k, v)
                .map_err(|m| (format!("jcz.{field}.{k}"), opts.span(), m))?;
            out.push((k.clone(), v.clone()));
        }
    }
    // `scorings` is written ours → JCZ's (a label is ours to name); kept JCZ's → ours.
    let scorings = raw.scorings.as_ref().map(|m| {
        Spanned::new(
            m.span(),
            m.get_ref()
                .iter()
                .map(|(ours, jcz)| (jcz.clone(), ours.clone()))
                .collect::<BTreeMap<_, _>>(),
        )
    });
    for (what, map, out) in [
        ("features", &raw.features, &mut d.features),
        ("scorings", &scorings, &mut d.scorings),
        ("figures", &raw.figures, &mut d.figures),
    ] {
        let Some(map) = map else { continue };
        for (jcz, ours) in map.get_ref() {
            if !jcz_name(jcz) || jcz.contains('.') || !crate::vocabulary::valid_name(ours) {
                return Err((
                    format!("jcz.{what}.{jcz}"),
                    map.span(),
                    format!("`{jcz}` = `{ours}`: a JCZ name without dots = one of our names (^[a-z][a-z0-9-]*$)"),
                ));
            }
            out.push((jcz.clone(), ours.clone()));
        }
    }
    for (i, n) in raw.neutral_figures.iter().enumerate() {
        let figure = neutral_figure(n.get_ref(), &d.neutral_figures)
            .map_err(|(f, m)| (format!("jcz.neutral-figures[{i}]{f}"), n.span(), m))?;
        d.neutral_figures.push(figure);
    }
    for (i, p) in raw.prompts.iter().enumerate() {
        d.prompts.push(
            prompt(p.get_ref(), prompt_names, line_of(p.span().start))
                .map_err(|(f, m)| (format!("jcz.prompts[{i}].{f}"), p.span(), m))?,
        );
    }
    for (i, a) in raw.actions.iter().enumerate() {
        d.actions.push(
            action(a.get_ref(), line_of(a.span().start))
                .map_err(|(f, m)| (format!("jcz.actions[{i}].{f}"), a.span(), m))?,
        );
    }
    Ok(d)
}

/// One `neutral-figures` entry, checked against those before it; an error names the
/// sub-field (`.to`, or nothing for the entry).
fn neutral_figure(
    raw: &RawNeutral,
    before: &[JczNeutralFigure],
) -> Result<JczNeutralFigure, (String, String)> {
    let (id, to, undoable, via) = match raw {
        RawNeutral::Id(id) => (id, None, None, None),
        RawNeutral::Table(t) => (&t.id, t.to.as_ref(), t.undoable, t.via.as_ref()),
    };
    if let Some(v) = via.filter(|v| !crate::vocabulary::valid_name(v)) {
        return Err((
            ".via".into(),
            format!("`{v}` is not a verb name (^[a-z][a-z0-9-]*$)"),
        ));
    }
    if !jcz_name(id) || before.iter().any(|n| n.id == *id) {
        return Err((
            String::new(),
            format!("`{id}` is not a JCZ figure id, or listed twice"),
        ));
    }
    let targets = match to {
        None => vec![JczNeutralTarget::Feature],
        Some(list) if list.is_empty() => {
            return Err((".to".into(), "lists no pointer kind".into()))
        }
        Some(list) => {
            let mut out = Vec::new();
            for name in list {
                let t = JczNeutralTarget::NAMES
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, t)| *t)
                    .ok_or_else(|| {
                        (
                            ".to".to_string(),
                            format!("`{name}` is not one of feature, cell, follower"),
                        )
                    })?;
                if out.contains(&t) {
                    return Err((".to".into(), format!("`{name}` is listed twice")));
                }
                out.push(t);
            }
            out
        }
    };
    Ok(JczNeutralFigure {
        id: id.clone(),
        targets,
        undoable: undoable.unwrap_or(true),
        via: via.cloned(),
    })
}

fn patterns(list: &[String]) -> Result<Vec<JczMessagePattern>, String> {
    if list.is_empty() {
        return Err("lists no message".into());
    }
    list.iter()
        .map(|s| {
            let mut parts = s.split(' ');
            let (Some(kind), meeple, None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(format!(
                    "`{s}` is not `MESSAGE_TYPE` or `MESSAGE_TYPE qualifier` (a meeple kind or a token)"
                ));
            };
            if !message_type(kind) || meeple.is_some_and(|m| !jcz_name(m) || m.contains('.')) {
                return Err(format!(
                    "`{s}` is not `MESSAGE_TYPE` or `MESSAGE_TYPE qualifier` (a meeple kind or a token)"
                ));
            }
            Ok(JczMessagePattern {
                kind: kind.to_string(),
                qualifier: meeple.map(str::to_string),
            })
        })
        .collect()
}

fn prompt(
    raw: &RawPrompt,
    names: &[(String, u16)],
    line: usize,
) -> Result<JczPrompt, (String, String)> {
    if raw.prompts.is_empty() {
        return Err(("prompts".into(), "names no prompt".into()));
    }
    let mut tags = Vec::new();
    for n in &raw.prompts {
        let (_, tag) = names.iter().find(|(name, _)| name == n).ok_or_else(|| {
            (
                "prompts".to_string(),
                format!("`{n}` is not named in `[prompts]`"),
            )
        })?;
        tags.push(*tag);
    }
    let others = usize::from(raw.tile.is_some())
        + usize::from(raw.passed_by.is_some())
        + usize::from(raw.passed_unless.is_some())
        + usize::from(raw.random_by.is_some());
    let answer = match (&raw.tile, &raw.passed_by, &raw.passed_unless) {
        _ if raw.drawn || raw.placed => {
            if others > 0 || (raw.drawn && raw.placed) {
                return Err((
                    if raw.drawn { "drawn" } else { "placed" }.into(),
                    "give exactly one of `tile`, `passed-by`, `passed-unless`, `random-by`, \
                     `drawn`, `placed`"
                        .into(),
                ));
            }
            if raw.drawn {
                JczPromptAnswer::Drawn
            } else {
                JczPromptAnswer::Placed
            }
        }
        (None, None, None) if raw.random_by.is_some() => JczPromptAnswer::RandomBy(
            patterns(raw.random_by.as_deref().unwrap_or_default())
                .map_err(|m| ("random-by".to_string(), m))?,
        ),
        _ if raw.random_by.is_some() => {
            return Err((
                "random-by".into(),
                "give exactly one of `tile`, `passed-by`, `passed-unless`, `random-by`".into(),
            ))
        }
        (Some(t), None, None) if jcz_name(t) => JczPromptAnswer::Tile(t.clone()),
        (Some(t), None, None) => {
            return Err(("tile".into(), format!("`{t}` is not a JCZ tile id")))
        }
        (None, Some(l), None) => {
            JczPromptAnswer::PassedBy(patterns(l).map_err(|m| ("passed-by".to_string(), m))?)
        }
        (None, None, Some(l)) => JczPromptAnswer::PassedUnless(
            patterns(l).map_err(|m| ("passed-unless".to_string(), m))?,
        ),
        _ => {
            return Err((
                "tile".into(),
                "give exactly one of `tile`, `passed-by`, `passed-unless`".into(),
            ))
        }
    };
    Ok(JczPrompt {
        prompts: raw.prompts.clone(),
        tags,
        answer,
        confirmed: raw.confirmed,
        action_step: raw.action_step,
        line,
    })
}

fn action(raw: &RawAction, line: usize) -> Result<JczAction, (String, String)> {
    let err = |f: &str, m: String| (f.to_string(), m);
    let only = |f: &str, v: &Option<String>, allowed: bool| -> Result<(), (String, String)> {
        match v {
            Some(_) if !allowed => Err(err(f, format!("not with `message = \"{}\"`", raw.message))),
            Some(s) if !jcz_name(s) => Err(err(f, format!("`{s}` is not a JCZ name"))),
            _ => Ok(()),
        }
    };
    let m = raw.message.as_str();
    only("token", &raw.token, m == "PLACE_TOKEN")?;
    only("location", &raw.location, m == "PLACE_TOKEN")?;
    only(
        "feature",
        &raw.feature,
        m == "DEPLOY_MEEPLE" || raw.location.is_some(),
    )?;
    only("figure", &raw.figure, m == "DEPLOY_MEEPLE")?;
    only("source", &raw.source, m == "RETURN_MEEPLE")?;
    let known = [
        "PLACE_TOKEN",
        "DEPLOY_MEEPLE",
        "CAPTURE_FOLLOWER",
        "PAY_RANSOM",
        "RETURN_MEEPLE",
        "EXCHANGE_FOLLOWER",
    ];
    only(
        "choice",
        &raw.choice,
        !known.contains(&m) && message_type(m) && !raw.pointer,
    )?;
    if let Some(f) = &raw.field {
        if known.contains(&m) || !message_type(m) || raw.pointer || raw.choice.is_some() {
            return Err(err(
                "field",
                format!("not with `message = \"{m}\"`, `choice` or `pointer` (another message type only)"),
            ));
        }
        if f.is_empty() || !f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(err("field", format!("`{f}` is not a payload field name")));
        }
    }
    if raw.pointer && (known.contains(&m) || !message_type(m)) {
        return Err(err(
            "pointer",
            format!("not with `message = \"{m}\"` (another message type only)"),
        ));
    }
    let message = match (m, &raw.token, &raw.feature, &raw.figure) {
        _ if raw.pointer => JczActionMessage::Pointer(m.to_string()),
        _ if raw.field.is_some() => {
            JczActionMessage::Field(m.to_string(), raw.field.clone().unwrap_or_default())
        }
        _ if raw.choice.is_some() => {
            JczActionMessage::Choice(m.to_string(), raw.choice.clone().unwrap_or_default())
        }
        ("PLACE_TOKEN", Some(t), ..) => JczActionMessage::PlaceToken(t.clone()),
        ("PLACE_TOKEN", None, ..) => {
            return Err(err("token", "`PLACE_TOKEN` needs a `token`".into()))
        }
        ("DEPLOY_MEEPLE", _, Some(f), None) => JczActionMessage::DeployOnFeature(f.clone()),
        ("DEPLOY_MEEPLE", _, None, Some(f)) => JczActionMessage::DeployFigure(f.clone()),
        ("DEPLOY_MEEPLE", ..) => {
            return Err(err(
                "feature",
                "`DEPLOY_MEEPLE` needs exactly one of `feature` and `figure`".into(),
            ))
        }
        ("CAPTURE_FOLLOWER", ..) => JczActionMessage::CaptureFollower,
        ("PAY_RANSOM", ..) => JczActionMessage::PayRansom,
        ("EXCHANGE_FOLLOWER", ..) => JczActionMessage::ExchangeFollower,
        ("RETURN_MEEPLE", ..) => match &raw.source {
            Some(s) => JczActionMessage::ReturnMeeple(s.clone()),
            None => return Err(err("source", "`RETURN_MEEPLE` needs a `source`".into())),
        },
        (other, ..) => {
            return Err(err(
                "message",
                format!(
                "`{other}` is not one of PLACE_TOKEN, DEPLOY_MEEPLE, CAPTURE_FOLLOWER, PAY_RANSOM, RETURN_MEEPLE, EXCHANGE_FOLLOWER (or another type with `choice`, `field` or `pointer`)"
            ),
            ))
        }
    };
    if !crate::vocabulary::valid_name(&raw.verb) {
        return Err(err("verb", format!("`{}` is not a verb name", raw.verb)));
    }
    let value = match (raw.value.as_deref().unwrap_or("any"), &raw.slot) {
        ("any", None) => JczActionValue::Any,
        ("figure-kind", None)
            if matches!(
                message,
                JczActionMessage::DeployOnFeature(_) | JczActionMessage::ExchangeFollower
            ) =>
        {
            JczActionValue::FigureKind
        }
        ("corner", None) if matches!(message, JczActionMessage::DeployFigure(_)) => {
            JczActionValue::Corner
        }
        ("prisoner", Some(s)) if message == JczActionMessage::PayRansom => {
            JczActionValue::Prisoner(s.clone())
        }
        ("prisoner", None) => {
            return Err(err("slot", "`value = \"prisoner\"` needs `slot`".into()))
        }
        (_, Some(_)) => return Err(err("slot", "only with `value = \"prisoner\"`".into())),
        (v, None) => {
            return Err(err(
                "value",
                format!(
                    "`{v}` is not possible here (any; figure-kind with DEPLOY_MEEPLE feature; \
                     corner with DEPLOY_MEEPLE figure; prisoner with PAY_RANSOM)"
                ),
            ))
        }
    };
    let at = match (&raw.location, &raw.feature) {
        (Some(location), Some(feature)) => Some(JczTilePlace {
            feature: feature.clone(),
            location: location.clone(),
        }),
        (Some(_), None) => {
            return Err(err(
                "location",
                "`location` needs the pointer's `feature` class".into(),
            ))
        }
        (None, _) => None,
    };
    Ok(JczAction {
        message,
        verb: raw.verb.clone(),
        value,
        at,
        line,
    })
}
