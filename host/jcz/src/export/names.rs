//! What the loaded expansions declare for JCZ, read the other way round: our figure kinds,
//! feature kinds, verbs and prompts → JCZ's meeple kinds, feature classes, messages and
//! answers. The same `[jcz]` sections the importer reads (`carcassonne_files::jcz`); only the
//! base game's names are written here, as the importer has them (`crate::declared`).

use carcassonne_core::{
    ExpansionIndex, FeatureKindId, FigureKindId, Game, Ruleset, SegmentId, VerbId,
};
use carcassonne_files::jcz::{
    JczAction, JczActionMessage, JczDeclaration, JczNeutralFigure, JczPrompt,
};
use carcassonne_files::manifest::Manifest;
use carcassonne_play::record::target_of;
use serde_json::{json, Value};

/// The base game's feature classes (JCZ has one class, `Monastery`, for every cloister).
const BASE_FEATURES: [(&str, &str); 4] = [
    ("City", "city"),
    ("Road", "road"),
    ("Field", "field"),
    ("Monastery", "cloister"),
];

/// The declarations of a ruleset's expansions, by expansion index.
pub(super) struct Names {
    per: Vec<(ExpansionIndex, JczDeclaration)>,
}

impl Names {
    pub(super) fn new(rules: &Ruleset, manifests: &[Manifest]) -> Names {
        let per = rules
            .expansions()
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let m = manifests.iter().find(|m| m.id == e.id())?;
                Some((ExpansionIndex(i as u8), m.jcz.clone()))
            })
            .collect();
        Names { per }
    }

    fn all(&self) -> impl Iterator<Item = &JczDeclaration> {
        self.per.iter().map(|(_, d)| d)
    }

    /// JCZ's meeple kind of our figure kind (`small` for the small follower).
    pub(super) fn meeple_kind(
        &self,
        rules: &Ruleset,
        kind: FigureKindId,
    ) -> Result<String, String> {
        let name = &rules.figure_kind(kind).name;
        if name == "small-follower" {
            return Ok("small".into());
        }
        self.all()
            .flat_map(|d| &d.figures)
            .find(|(_, ours)| ours == name)
            .map(|(jcz, _)| jcz.clone())
            .ok_or_else(|| format!("figure `{name}` has no JCZ meeple kind (`[jcz] figures`)"))
    }

    /// JCZ's feature class of our feature kind.
    pub(super) fn feature_class(
        &self,
        rules: &Ruleset,
        kind: FeatureKindId,
    ) -> Result<String, String> {
        let name = &rules.kind(kind).name;
        BASE_FEATURES
            .iter()
            .map(|(c, o)| (c.to_string(), o.to_string()))
            .chain(self.all().flat_map(|d| d.features.iter().cloned()))
            .find(|(_, ours)| ours == name)
            .map(|(class, _)| class)
            .ok_or_else(|| format!("feature `{name}` has no JCZ feature class (`[jcz] features`)"))
    }

    /// The declared message of one of an expansion's verbs.
    pub(super) fn action(&self, rules: &Ruleset, verb: VerbId) -> Option<&JczAction> {
        let (owner, name) = rules.verbs().get(verb.0 as usize)?;
        self.declared(*owner, name)
    }

    /// The declared message of a verb named as a record names it (expansion id, verb name).
    pub(super) fn message_of(
        &self,
        rules: &Ruleset,
        expansion: &str,
        verb: &str,
    ) -> Option<&JczActionMessage> {
        let owner = rules
            .expansions()
            .iter()
            .position(|e| e.id() == expansion)?;
        let a = self.declared(ExpansionIndex(owner as u8), verb)?;
        Some(&a.message)
    }

    /// The `[[jcz.actions]]` entry of `owner`'s verb `verb`.
    fn declared(&self, owner: ExpansionIndex, verb: &str) -> Option<&JczAction> {
        self.per
            .iter()
            .filter(|(o, _)| *o == owner)
            .flat_map(|(_, d)| &d.actions)
            .find(|a| a.verb == verb)
    }

    /// The declared answer to one of an expansion's prompts.
    pub(super) fn prompt(&self, owner: ExpansionIndex, tag: u16) -> Option<&JczPrompt> {
        self.per
            .iter()
            .filter(|(o, _)| *o == owner)
            .flat_map(|(_, d)| &d.prompts)
            .find(|p| p.tags.contains(&tag))
    }

    /// The neutral figures an expansion moves with `MOVE_NEUTRAL_FIGURE`.
    pub(super) fn neutral(&self, owner: ExpansionIndex) -> Vec<&JczNeutralFigure> {
        self.per
            .iter()
            .filter(|(o, _)| *o == owner)
            .flat_map(|(_, d)| &d.neutral_figures)
            .collect()
    }

    /// `<seat>.<kind>.<n>`: JCZ numbers a player's figures of a kind from 1, as we do.
    pub(super) fn meeple_id(
        &self,
        game: &Game,
        f: carcassonne_core::FigureId,
    ) -> Result<String, String> {
        let fig = game.state().figure(f);
        let seat = fig.seat().ok_or("a neutral figure has no JCZ meeple id")?;
        let kind = self.meeple_kind(game.rules(), fig.kind)?;
        Ok(format!("{}.{kind}.{}", seat.0, fig.ordinal))
    }

    /// A feature pointer `{position, feature, location}` for a segment; an off-board feature
    /// (a quarter) as its expansion names it for JCZ (`crate::pointer::foreign_to_jcz`).
    pub(super) fn pointer(&self, game: &Game, seg: SegmentId) -> Result<Value, String> {
        let rules = game.rules();
        let st = game.state();
        let mut t = target_of(rules, st, seg);
        let class = self.feature_class(rules, st.graph().segment(seg).kind)?;
        crate::pointer::foreign_to_jcz(game, &mut t.x, &mut t.y, &t.feature, &mut t.location);
        let (Some(x), Some(y)) = (t.x, t.y) else {
            return Err(format!(
                "{} {} lies off the board and its expansion gives it no JCZ name",
                t.feature, t.location
            ));
        };
        Ok(json!({"position": [x, y], "feature": class, "location": t.location}))
    }

    /// `{featurePointer, meepleId}` of a figure on the board.
    pub(super) fn meeple_pointer(
        &self,
        game: &Game,
        f: carcassonne_core::FigureId,
    ) -> Result<Value, String> {
        let carcassonne_core::FigureLoc::On(seg) = game.state().figure(f).loc else {
            return Err(format!(
                "figure {} is not on the board",
                game.view().figure_name(f)
            ));
        };
        Ok(
            json!({"featurePointer": self.pointer(game, seg)?, "meepleId": self.meeple_id(game, f)?}),
        )
    }
}
