//! What the loaded expansions declare for JCZ (`[jcz]` and `[prompts]` of their manifests,
//! `carcassonne_files::jcz`), resolved against the built ruleset: verbs, slots and figure
//! kinds by their ids. Every expansion-specific fact the importer uses comes from here; a
//! declaration naming a verb, slot or figure its expansion does not have is an error naming
//! the manifest, the line and the field.

use carcassonne_core::{DecisionKind, ExpansionIndex, FigureKindId, Game, Ruleset, SlotId, VerbId};
use carcassonne_files::jcz::{
    JczAction, JczActionMessage, JczActionValue, JczDeclaration, JczNeutralFigure, JczPrompt,
    JczPromptAnswer,
};
use carcassonne_files::manifest::Manifest;
use carcassonne_rules::discovery::{discover, search_dirs};
use std::path::PathBuf;

/// Every manifest the ruleset builder would find with these extra folders.
pub fn manifests(plugin_dirs: &[PathBuf]) -> Result<Vec<Manifest>, String> {
    discover(&search_dirs(plugin_dirs)).map_err(|e| e.to_string())
}

/// One loaded expansion's declaration, resolved.
#[derive(Clone, Debug)]
struct Declared {
    owner: ExpansionIndex,
    decl: JczDeclaration,
    /// Per action: its verb and, for `prisoner`, its slot.
    verbs: Vec<(VerbId, Option<SlotId>)>,
}

/// A resolved action: who offers it, which verb, how its value is matched.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ActionRef<'a> {
    pub verb: VerbId,
    pub slot: Option<SlotId>,
    pub action: &'a JczAction,
}

/// The JCZ declarations of a ruleset's expansions, in load order.
#[derive(Clone, Debug, Default)]
pub struct Declarations {
    per: Vec<Declared>,
}

impl Declarations {
    /// Resolves the declarations of `rules`' expansions (manifests found as the ruleset
    /// builder finds them, `--plugin-dir` first).
    pub fn load(rules: &Ruleset, plugin_dirs: &[PathBuf]) -> Result<Declarations, String> {
        Declarations::of(rules, &manifests(plugin_dirs)?)
    }

    /// Resolves against manifests already read (the first one of an id counts).
    pub fn of(rules: &Ruleset, manifests: &[Manifest]) -> Result<Declarations, String> {
        let mut per = Vec::new();
        for (i, e) in rules.expansions().iter().enumerate() {
            let Some(m) = manifests.iter().find(|m| m.id == e.id()) else {
                continue;
            };
            let owner = ExpansionIndex(i as u8);
            let mut verbs = Vec::new();
            for (k, a) in m.jcz.actions.iter().enumerate() {
                let at = |f: &str| m.at(a.line, &format!("jcz.actions[{k}].{f}"));
                let verb = rules.verb_named(owner, &a.verb).ok_or_else(|| {
                    format!("{}: `{}` declares no verb `{}`", at("verb"), m.id, a.verb)
                })?;
                let slot = match &a.value {
                    JczActionValue::Prisoner(s) => Some(
                        rules
                            .slots()
                            .iter()
                            .position(|d| d.expansion == owner && d.name == *s)
                            .map(|i| SlotId(i as u16))
                            .ok_or_else(|| {
                                format!("{}: `{}` declares no slot `{s}`", at("slot"), m.id)
                            })?,
                    ),
                    _ => None,
                };
                verbs.push((verb, slot));
            }
            for (_, ours) in &m.jcz.figures {
                if rules.figure_named(ours).is_none() {
                    return Err(format!(
                        "{}: no figure kind `{ours}` in this game",
                        m.at(m.jcz.line, "jcz.figures")
                    ));
                }
            }
            per.push(Declared {
                owner,
                decl: m.jcz.clone(),
                verbs,
            });
        }
        Ok(Declarations { per })
    }

    /// Our figure kind for a JCZ meeple kind (the base game's `small` is the small
    /// follower).
    pub fn figure(&self, rules: &Ruleset, jcz: &str) -> Option<FigureKindId> {
        if jcz == "small" {
            return rules.figure_named("small-follower");
        }
        self.per
            .iter()
            .flat_map(|d| &d.decl.figures)
            .find(|(j, _)| j == jcz)
            .and_then(|(_, ours)| rules.figure_named(ours))
    }

    /// The JCZ meeple kinds known in this game.
    pub fn figure_names(&self) -> Vec<&str> {
        std::iter::once("small")
            .chain(
                self.per
                    .iter()
                    .flat_map(|d| d.decl.figures.iter().map(|(j, _)| j.as_str())),
            )
            .collect()
    }

    /// Our feature kinds for a JCZ feature class: the base game's, then the expansions'.
    pub fn feature_kinds(&self, class: &str) -> Result<Vec<&str>, String> {
        let mut out: Vec<&str> = match class {
            "City" => vec!["city"],
            "Road" => vec!["road"],
            "Field" => vec!["field"],
            // JCZ has one class for cloisters and the buildings that stand for one.
            "Monastery" => vec!["cloister"],
            _ => Vec::new(),
        };
        out.extend(
            self.per
                .iter()
                .flat_map(|d| &d.decl.features)
                .filter(|(j, _)| j == class)
                .map(|(_, ours)| ours.as_str()),
        );
        if out.is_empty() {
            return Err(format!("feature class `{class}` is not supported"));
        }
        Ok(out)
    }

    /// Every `[jcz] scorings` pair of the loaded expansions: a JCZ feature class and a score
    /// label of ours that JCZ reports as a scoring of that class.
    pub fn scorings(&self) -> Vec<(String, String)> {
        self.per
            .iter()
            .flat_map(|d| d.decl.scorings.iter().cloned())
            .collect()
    }

    /// Each JCZ feature class a loaded expansion deploys onto with a custom action
    /// (`[[jcz.actions]]` `DEPLOY_MEEPLE` with `feature`: the Tower's `Tower`), with our
    /// feature kind (`[jcz] features`: `tower`): the replay output lists those actions as
    /// deployments too. Other declared classes are left out: JCZ's `Garden` is on every
    /// second-edition garden tile, most of which we play as plain twins (AG-10), so its
    /// options would not compare.
    pub fn features(&self) -> Vec<(String, String)> {
        self.per
            .iter()
            .flat_map(|d| {
                d.decl.features.iter().filter(|(class, _)| {
                    d.decl.actions.iter().any(|a| {
                        matches!(&a.message, JczActionMessage::DeployOnFeature(c) if c == class)
                    })
                })
            })
            .cloned()
            .collect()
    }

    /// Each declared JCZ meeple kind as JCZ's figure class (its first letter upper-case:
    /// `ringmaster` → `Ringmaster`), with our figure kind, for the assertions
    /// `Meeple <Class> options` ([`crate::assertions::Classes`]).
    pub fn figure_classes(&self) -> Vec<(String, String)> {
        self.per
            .iter()
            .flat_map(|d| &d.decl.figures)
            .map(|(jcz, ours)| {
                let mut c = jcz.chars();
                let class = c
                    .next()
                    .map(|f| f.to_uppercase().chain(c).collect())
                    .unwrap_or_default();
                (class, ours.clone())
            })
            .collect()
    }

    /// Every `PLACE_TOKEN` entry of the loaded expansions' `[[jcz.actions]]`: a JCZ token
    /// and the verb of ours that places it (for the assertions on token actions).
    pub fn tokens(&self) -> Vec<(String, String)> {
        self.per
            .iter()
            .flat_map(|d| &d.decl.actions)
            .filter_map(|a| match &a.message {
                JczActionMessage::PlaceToken(t) => Some((t.clone(), a.verb.clone())),
                _ => None,
            })
            .collect()
    }

    /// The neutral figure `id` as a loaded expansion declares it.
    pub fn neutral_figure(&self, id: &str) -> Option<&JczNeutralFigure> {
        self.neutral_owner(id).map(|(_, n)| n)
    }

    /// The expansion declaring a neutral figure, with its declaration: its moves are that
    /// expansion's custom actions (another's about the same follower, the abbot's return, is
    /// not a move of the fairy).
    pub fn neutral_owner(&self, id: &str) -> Option<(ExpansionIndex, &JczNeutralFigure)> {
        self.per.iter().find_map(|d| {
            d.decl
                .neutral_figures
                .iter()
                .find(|n| n.id == id)
                .map(|n| (d.owner, n))
        })
    }

    /// The declared prompt entry that is pending in `game`, among those `keep` accepts.
    pub(crate) fn pending_prompt(
        &self,
        game: &Game,
        keep: impl Fn(&JczPrompt) -> bool,
    ) -> Option<&JczPrompt> {
        let DecisionKind::Prompt(p) = game.decision().kind else {
            return None;
        };
        self.per
            .iter()
            .filter(|d| d.owner == p.owner)
            .flat_map(|d| &d.decl.prompts)
            .find(|jp| keep(jp) && jp.tags.contains(&p.code().tag))
    }

    /// The tile whose `PLACE_TILE` answers a declared prompt, if `id` is one.
    pub(crate) fn is_prompt_tile(&self, id: &str) -> bool {
        self.per
            .iter()
            .flat_map(|d| &d.decl.prompts)
            .any(|p| matches!(&p.answer, JczPromptAnswer::Tile(t) if t == id))
    }

    /// Whether a declared `random-by` prompt names the message type `kind`.
    pub(crate) fn random_message(&self, kind: &str) -> bool {
        self.per.iter().flat_map(|d| &d.decl.prompts).any(|p| {
            matches!(&p.answer, JczPromptAnswer::RandomBy(l) if l.iter().any(|m| m.kind == kind))
        })
    }

    /// The declared actions `keep` accepts, in load order.
    pub(crate) fn actions(
        &self,
        keep: impl Fn(&JczActionMessage) -> bool,
    ) -> impl Iterator<Item = ActionRef<'_>> {
        self.per
            .iter()
            .flat_map(|d| d.decl.actions.iter().zip(&d.verbs))
            .filter(move |(a, _)| keep(&a.message))
            .map(|(action, (verb, slot))| ActionRef {
                verb: *verb,
                slot: *slot,
                action,
            })
    }
}
