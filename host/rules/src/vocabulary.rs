//! Declaring a manifest's `[[feature-kinds]]` and `[[figures]]`: each loaded expansion is
//! wrapped so that, when it joins a ruleset, its manifest's vocabulary is declared first and
//! then its own code (script or plugin) declares, seeing those kinds and figures.

use carcassonne_core::{
    Binder, Declare, Expansion, FigureKindDef, HookFailure, HookResult, KindMask, Shape,
};
use carcassonne_files::manifest::Manifest;
use carcassonne_files::vocabulary::{DeclaredFigure, DeclaredKind};
use std::path::PathBuf;
use std::sync::Arc;

/// The vocabulary of one manifest.
pub(crate) struct ManifestVocabulary {
    path: PathBuf,
    kinds: Vec<DeclaredKind>,
    figures: Vec<DeclaredFigure>,
}

impl ManifestVocabulary {
    pub(crate) fn of(m: &Manifest) -> ManifestVocabulary {
        ManifestVocabulary {
            path: m.path.clone(),
            kinds: m.feature_kinds.clone(),
            figures: m.figures.clone(),
        }
    }

    /// `code` as it joins rulesets: this vocabulary first (nothing to wrap if empty).
    pub(crate) fn wrap(self: &Arc<Self>, code: Arc<dyn Expansion>) -> Arc<dyn Expansion> {
        if self.kinds.is_empty() && self.figures.is_empty() {
            return code;
        }
        Arc::new(WithVocabulary {
            vocabulary: Arc::clone(self),
            code,
        })
    }

    fn at(&self, line: usize, field: String, message: String) -> HookFailure {
        HookFailure(format!(
            "{}:{line}: `{field}`: {message}",
            self.path.display()
        ))
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult {
        for (i, k) in self.kinds.iter().enumerate() {
            if d.kind_named(&k.def.name).is_some() {
                return Err(self.at(
                    k.line,
                    format!("feature-kinds[{i}].name"),
                    format!(
                        "feature kind `{}` is already declared by the base game or another expansion",
                        k.def.name
                    ),
                ));
            }
            d.feature_kind(k.def.clone())
                .map_err(|e| self.at(k.line, format!("feature-kinds[{i}]"), e.to_string()))?;
        }
        for (i, f) in self.figures.iter().enumerate() {
            let field = |name: &str| format!("figures[{i}].{name}");
            if d.figure_named(&f.name).is_some() {
                return Err(self.at(
                    f.line,
                    field("name"),
                    format!(
                        "figure kind `{}` is already declared by the base game or another expansion",
                        f.name
                    ),
                ));
            }
            let mut mask = KindMask::default();
            for name in &f.stands_on {
                let Some(k) = d.kind_named(name) else {
                    return Err(self.at(
                        f.line,
                        field("stands-on"),
                        format!("no feature kind `{name}` (declare it in `[[feature-kinds]]` or load the expansion that has it)"),
                    ));
                };
                let def = d.kind(k);
                if !def.occupiable || def.shape == Shape::Virtual {
                    return Err(self.at(
                        f.line,
                        field("stands-on"),
                        format!("figures may not stand on `{name}` (it is not occupiable)"),
                    ));
                }
                mask = mask.with(k);
            }
            d.figure_kind(FigureKindDef {
                name: f.name.clone(),
                per_player: f.per_player,
                strength: f.strength,
                deploy_on: mask,
                follower: f.action_step,
                returns: f.returns,
                look: f.look.clone(),
                neutral: f.neutral,
                shares: f.shares,
                colour: f.colour.clone(),
            })
            .map_err(|e| self.at(f.line, field("name"), e.to_string()))?;
        }
        Ok(())
    }
}

/// An expansion whose manifest declares vocabulary.
struct WithVocabulary {
    vocabulary: Arc<ManifestVocabulary>,
    code: Arc<dyn Expansion>,
}

impl Expansion for WithVocabulary {
    fn id(&self) -> &str {
        self.code.id()
    }

    fn version(&self) -> &str {
        self.code.version()
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        self.vocabulary.declare(d)?;
        self.code.declare(d)
    }
}
