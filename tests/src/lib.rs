//! # carcassonne-tests
//!
//! The repository's scenario tests of the rules spec (`shared/rules/spec.md`, part E:
//! T-01 … T-71) and the integration tests around them. Each scenario is one TOML file under
//! `tests/scenarios/`; the tests `tests/tests/scenarios*.rs` have one `#[test]` per T-id
//! that calls [`run_scenario`].
//!
//! The scenario format and its runner are the crate `carcassonne-scenario` (its crate
//! documentation is the format reference; `docs/modding.md` 7.5 describes it for fan
//! designers, who run the same files with `carcassonne expansions test DIR`). This crate
//! adds what only the repository's tests need: where the repository's expansions and
//! scenario files are, and two in-process test doubles a scenario may name in
//! `expansions`: `test-princess` and `test-special-figures` ([`SpecialFigures`]). (The big
//! follower, the builder's double turn and Abbey & Mayor's tiles come from the real Inns &
//! Cathedrals, Traders & Builders and Abbey & Mayor plugins.)
//!
//! Also here: the fuzzing harness ([`fuzz`]), the mixed-expansion games ([`mixed`]) and the
//! helpers of the tests that compare two ways of playing a decision ([`copies`]).

use carcassonne_core::{
    binder, Binder, BoundExpansion, Declare, Expansion, FigureKindDef, HookResult, KindMask,
    Ruleset,
};
pub use carcassonne_scenario::{
    build_position, find_segment, resolve_kind, resolve_placed, rotations_showing, Case, EdgeSpec,
    Failure, Harness, Part, Scenario, Step,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
/// The nine official sets of the first boxes, in the order the mixed tests load them.
pub const NINE_OFFICIAL: [&str; 9] = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "inns-cathedrals",
    "traders-builders",
    "princess-dragon",
    "tower",
    "abbey-mayor",
];

pub mod copies;
pub mod fuzz;
pub mod mixed;

// ---------------------------------------------------------------------------------------
// The repository's folders
// ---------------------------------------------------------------------------------------

/// The repository's `expansions/` folder.
pub fn expansions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("expansions")
}

/// The repository's `fan-expansions/` folder (script expansions).
pub fn fan_expansions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("fan-expansions")
}

/// The ruleset of these official expansions (from [`expansions_dir`]) and options
/// (`key`, `value`), as the program builds it.
pub fn official_rules(expansions: &[&str], options: &[(&str, &str)]) -> Arc<Ruleset> {
    rules_from(vec![expansions_dir()], expansions, options)
}

/// [`official_rules`] with the fan scripts of `fan-expansions/` available too (mixes of
/// every expansion); a ruleset that does not build fails the test.
pub fn official_and_fan_rules(expansions: &[&str], options: &[(&str, &str)]) -> Arc<Ruleset> {
    rules_from(
        vec![expansions_dir(), fan_expansions_dir()],
        expansions,
        options,
    )
}

/// The ruleset of `expansions` found in `plugin_dirs`, with options (`key`, `value`); one
/// that does not build fails the test, naming the expansions.
fn rules_from(
    plugin_dirs: Vec<PathBuf>,
    expansions: &[&str],
    options: &[(&str, &str)],
) -> Arc<Ruleset> {
    carcassonne_rules::build_ruleset(&carcassonne_rules::RulesSpec {
        expansions: expansions.iter().map(|s| s.to_string()).collect(),
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        plugin_dirs,
    })
    .unwrap_or_else(|e| panic!("{expansions:?} load (build the workspace first): {e}"))
}

/// Copies of each tile id starting with `prefix` (`""`: every id) in the supply of a fresh
/// two-player game of `rules`, nothing drawn yet (chosen draws): what a set's tile-count
/// scenario checks.
pub fn supply_counts(
    rules: &Arc<Ruleset>,
    prefix: &str,
) -> std::collections::BTreeMap<String, usize> {
    use carcassonne_core::{DrawMode, Game, GameSetup};
    let setup = GameSetup {
        draws: DrawMode::Chosen,
        ..GameSetup::new(vec!["R".into(), "B".into()], 1)
    };
    let g = Game::new(rules.clone(), &setup).expect("game");
    let mut out = std::collections::BTreeMap::new();
    for group in &g.state().supply().groups {
        for t in &group.tiles {
            let id = &rules.tiles().get(*t).id;
            if id.starts_with(prefix) {
                *out.entry(id.clone()).or_insert(0) += 1;
            }
        }
    }
    out
}

/// The scenario directory (`tests/scenarios`).
pub fn scenario_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

/// Every scenario file (`T-*.toml`) under [`scenario_dir`], sorted.
pub fn scenario_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml")
                && p.file_stem()
                    .and_then(|s| s.to_str())
                    .is_some_and(|s| s.starts_with("T-"))
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&scenario_dir(), &mut out);
    out.sort();
    out
}

// ---------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------

/// What the repository's scenarios run with: the official plugins (`expansions/`) and the
/// fan expansions (`fan-expansions/`) found as the program finds them, and the test
/// doubles.
pub fn harness() -> Harness {
    Harness {
        plugin_dirs: vec![expansions_dir(), fan_expansions_dir()],
        extra: test_expansions(),
        always: Vec::new(),
    }
}

/// Reads a scenario file into its cases: the file itself, then one case per `[[variant]]`
/// (each top-level key a variant gives replaces the file's key of that name, so a variant
/// restates its whole `expect`). Errors name the file and line.
pub fn load_cases(path: &Path) -> Result<Vec<Scenario>, String> {
    carcassonne_scenario::load_cases(path)
        .map(|cases| cases.into_iter().map(|c| c.scenario).collect())
        .map_err(|e| e.to_string())
}

/// Runs one scenario case with [`harness`]; the error is the runner's whole report (where,
/// what, and the state of the game).
pub fn run_case(sc: &Scenario) -> Result<(), String> {
    harness().run(sc).map_err(|f| f.to_string())
}

/// Builds a scenario's ruleset with [`harness`].
pub fn build_rules(sc: &Scenario) -> Result<Arc<Ruleset>, String> {
    harness().build_rules(sc).map_err(|f| f.to_string())
}

/// Runs every case of `tests/scenarios/<name>.toml` (e.g. `base/T-01`) and panics with a
/// report of all failing cases, each with the line it failed at.
pub fn run_scenario(name: &str) {
    let path = scenario_dir().join(format!("{name}.toml"));
    let cases = carcassonne_scenario::load_cases(&path).unwrap_or_else(|e| panic!("{e}"));
    let h = harness();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            h.run(&c.scenario).err().map(|f| {
                let sc = &c.scenario;
                format!(
                    "{} [{}] ({}) at {}:{}:\n{f}",
                    sc.id,
                    sc.name,
                    sc.rules.join(", "),
                    path.display(),
                    c.line(&f.part)
                )
            })
        })
        .collect();
    if !failures.is_empty() {
        panic!(
            "{} of {} case(s) failed:\n\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n\n")
        );
    }
}

// ---------------------------------------------------------------------------------------
// Test-only expansions
// ---------------------------------------------------------------------------------------

/// The bound value of a test expansion that only declares things: every hook is the
/// default.
struct NoHooks;

impl BoundExpansion for NoHooks {}

/// `test-special-figures`: one `builder` (cities and roads), one `pig` and one `barn`
/// (fields) per player, none of them followers, with no rules of their own: stand-ins for
/// the special figures of Traders & Builders and Abbey & Mayor, so that Princess & Dragon's
/// rules about them (PD-10 … PD-12: eaten, orphaned, never eaten) can be tested before
/// those expansions exist. Scenarios place them with `kind = "builder"` etc.
pub struct SpecialFigures;

impl Expansion for SpecialFigures {
    fn id(&self) -> &str {
        "test-special-figures"
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        use carcassonne_core::FeatureKindId;
        let figure = |name: &str, deploy_on: KindMask| FigureKindDef {
            name: name.into(),
            per_player: 1,
            strength: 0,
            deploy_on,
            follower: false,
            returns: true,
            look: String::new(),
            neutral: 0,
            shares: false,
            colour: String::new(),
        };
        let towns = KindMask(0)
            .with(FeatureKindId::CITY)
            .with(FeatureKindId::ROAD);
        let fields = KindMask(0).with(FeatureKindId::FIELD);
        for f in [
            figure("builder", towns),
            figure("pig", fields),
            figure("barn", fields),
        ] {
            d.figure_kind(f).map_err(|e| e.to_string())?;
        }
        Ok(binder(|_| Ok(NoHooks)))
    }
}

/// `test-princess`: in his deployment step the active player may, instead of deploying,
/// send home one follower of a city his tile extends (verb `remove`, the figure named):
/// a stand-in for the princess, dragon or tower of later expansions, which take one
/// follower off the board without scoring its feature (TB-17, T-97).
struct Princess;

impl Expansion for Princess {
    fn id(&self) -> &str {
        "test-princess"
    }
    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let verb = d.verb("remove");
        Ok(binder(move |_| Ok(PrincessRules { verb })))
    }
}

/// `test-princess` bound to a ruleset.
struct PrincessRules {
    verb: carcassonne_core::VerbId,
}

impl BoundExpansion for PrincessRules {
    fn hook_set(&self) -> carcassonne_core::HookSet {
        carcassonne_core::HookSet::DEPLOY_STEP_ACTIONS
    }

    fn deploy_step_actions(
        &self,
        view: carcassonne_core::View<'_>,
        _player: carcassonne_core::PlayerId,
        out: &mut Vec<carcassonne_core::Action>,
    ) -> HookResult {
        use carcassonne_core::{Action, CustomAction, FigureId, FigureLoc, Scoring, SegmentId};
        let st = view.state;
        let Some(idx) = st.last_placed() else {
            return Ok(());
        };
        let t = st.board().tile(idx);
        let n = view.rules.tiles().get(t.kind).segments.len();
        let g = st.graph();
        let Some(me) = view.rules.expansion_index("test-princess") else {
            return Ok(());
        };
        for i in 0..n {
            let s = SegmentId::new(t.first_segment as usize + i);
            let f = g.feature_of(s);
            if view.rules.kind(g.kind(f)).scoring != Scoring::City {
                continue;
            }
            for (k, fig) in st.figures().iter().enumerate() {
                let FigureLoc::On(at) = fig.loc else { continue };
                if g.feature_of(at) == f && view.rules.figure_kind(fig.kind).follower {
                    out.push(Action::Custom(CustomAction {
                        expansion: me,
                        verb: self.verb,
                        figure: Some(FigureId(k as u16)),
                        segment: Some(at),
                        value: 0,
                    }));
                }
            }
        }
        Ok(())
    }

    fn apply_action(
        &self,
        ctx: &mut carcassonne_core::Ctx<'_>,
        _player: carcassonne_core::PlayerId,
        action: carcassonne_core::CustomAction,
    ) -> HookResult {
        let f = action
            .figure
            .ok_or_else(|| carcassonne_core::HookFailure("no figure".into()))?;
        ctx.return_figure(f, carcassonne_core::RemovalReason::Expansion)
            .map_err(|e| carcassonne_core::HookFailure(e.to_string()))
    }
}

/// Test-only expansions by name.
pub fn test_expansion(name: &str) -> Option<Arc<dyn Expansion>> {
    match name {
        "test-princess" => Some(Arc::new(Princess)),
        "test-special-figures" => Some(Arc::new(SpecialFigures)),
        _ => None,
    }
}

/// Every test-only expansion: what [`harness`] offers scenarios as [`Harness::extra`].
pub fn test_expansions() -> Vec<Arc<dyn Expansion>> {
    vec![Arc::new(Princess), Arc::new(SpecialFigures)]
}
