//! # carcassonne-scenario
//!
//! Scenario tests as data: a position (board tiles, figures, scores, the tiles still to
//! draw, expansion state), steps to play on it and expectations to check, in a TOML file.
//! The repository's rule tests (`tests/scenarios/**.toml`, spec part E: T-01 … T-71) and
//! fan designers' own tests (`carcassonne expansions test DIR`, docs/modding.md 7.5) use
//! the same format and this runner.
//!
//! - [`load_cases`] / [`parse_cases`]: the file → its [`Case`]s (the file, then one per
//!   `[[variant]]`), each knowing the line of its parts; bad input is a [`ScenarioError`]
//!   naming file and line.
//! - [`Harness`]: what cases run with (expansion search folders, in-process expansions
//!   such as test doubles, expansions every case loads); [`Harness::run`] plays a case
//!   and returns a [`Failure`] ([`Part`] + problems + the state of the game) when it does
//!   not pass; [`Case::line`] turns the part into a line.
//! - [`find_scenario_files`]: the scenario files of an expansion folder.
//!
//! It reaches expansions only through `carcassonne-rules` (no libloading, rhai or resvg).
//!
//! ## Scenario file format
//!
//! Coordinates and edge strings follow spec section 0: cell `[x, y]`, x grows east,
//! y grows south; rotations are clockwise degrees; edge strings give the edges *as
//! placed* in the order N E S W (`CFFF`, `CFCF+p`, `FFFRM`, `CFCFs`, …), matched against
//! the loaded tile kinds by [`EdgeSpec`]. The reference (every key is optional unless
//! noted; see the types [`Scenario`], [`Step`] and [`Expect`] for all fields):
//!
//! ```toml
//! id = "T-01"                       # must match the file name
//! title = "…"                       # the spec's sentence
//! rules = ["A-7", "A-9"]            # rule ids the scenario checks
//! players = ["R", "B"]              # default R, B, G, Y (seat order)
//! active = "R"                      # default: the first player
//! scores = { B = 10 }               # start scores (default 0)
//! options = { smallCity = "1st/2nd" }
//! draws = ["FFCF", "E", "BA/C"]     # tiles still to draw, in order (edge string, letter or id)
//! expansions = ["count"]            # expansions load from the search path (native or
//!                                   # script) like the program does; an id the harness
//!                                   # provides in process ([`Harness::extra`]) is added
//!                                   # after them (the repository's `test-princess`)
//! seed = 0                          # the game's RNG seed (default 0)
//! state = { "count.count" = "market", "count.castle" = "B,G" }  # expansion state (apply_setting)
//! # Fan expansions take seats (R = 0, B = 1, …): `"tactician.token" = "1,2"` (B and G hold
//! # their tokens); `"promotions.disc" = "0,-1,city:0"` (R's disc under the knight on
//! # (0,-1); `X,Y[,ROLE[,OWNER]]:DISC_OWNER`, entries separated by `;`).
//!
//! [[tile]]                          # board tiles, placed in file order
//! at = [0, 0]
//! edges = "CFFF"                    # or tile = "BA/C" (+ rotation = 90), or both tile and edges
//! figures = [{ player = "R", feature = "N" }]
//!
//! [[figure]]                        # figures may also be listed apart from their tile
//! player = "B"
//! at = [0, -1]
//! feature = "city"                  # location (`N`, `WE`, `NL.NR`, `I`) or kind name
//! kind = "small-follower"           # default
//!
//! [[step]]
//! do = "place"                      # place the drawn tile
//! at = [0, -1]
//! edges = "FFCF"
//! [[step]]
//! do = "pass"                       # also: deploy, place-legal, place-illegal,
//!                                   # deploy-legal, deploy-illegal, expect
//! [expect]                          # checked after the last step
//! gained = { R = 4 }                # points since the start; unlisted players: 0
//! supply = { R = 7 }
//! slots = { "king-robber.king" = 0 } # expansion state slots (`…@R` for a player slot)
//! occupants = [{ feature = "quarter#0", players = { B = 1 } }]  # neutral figures: `neutral = n`
//!
//! [[step]]
//! do = "move"                       # an offered move of the deciding player's figure
//!                                   # (or of a neutral figure)
//! from = "quarter#0"                # where it stands (`from_at` for a tile feature)
//! feature = "N"                     # where it goes (`at` for another tile)
//! [[step]]
//! do = "custom"                     # an expansion's own action: verb name and value
//! verb = "move-count"
//! value = 2                         # or tile = "U": that tile kind's index (a tile-kind value)
//! [[step]]
//! do = "custom"                     # … about a figure: the one standing on this segment
//! verb = "promote"                  # (`at` + `feature` as for `deploy`; `at` defaults to
//! at = [0, -1]                      # the tile just placed), of this owner if `owner` is
//! feature = "city"                  # given (a figure-less custom action never matches a
//! owner = "R"                       # step that names a figure, and vice versa);
//! figure = "pig"                    # and of this figure kind if `figure` is given
//! [[step]]
//! do = "custom"                     # … aimed at a segment: `target` (+ `target_at`, default
//! verb = "tower-piece"              # the tile just placed) names it as `feature` does; the
//! target = "tower"                  # offered action's segment must be on that feature
//! target_at = [0, 0]
//! [[step]]
//! do = "custom-legal"               # also: custom-illegal (not offered, and refused)
//! verb = "take-token"
//!
//! [expect]                          # more expectations (any `expect`):
//! prompts = ["Y", "B", "G"]         # who answers the pending prompt, then the players of
//!                                   # the prompts queued behind it, in order (a queued prompt
//!                                   # with no choices is skipped when its turn comes)
//! verbs = ["take-token"]            # the exact set of custom verbs offered now
//! figure_slots = [{ at = [0, -1], feature = "city", player = "R", slots = { "promotions.bonus" = 1 } }]
//!                                   # figure-scoped expansion state of the figure standing on
//!                                   # that segment (`player`: its owner, needed if several;
//!                                   # `figure`: its kind name)
//!
//! [[variant]]                       # runs the scenario again with these top-level keys replaced
//! name = "smallCity=1st/2nd"
//! options = { smallCity = "1st/2nd" }
//! expect = { gained = { R = 2 } }
//! ```
//!
//! A virtual feature (off the grid, e.g. a City of Carcassonne quarter) is named
//! `kind#slot` with no `at`: `quarter#0` … `quarter#3` are castle, market, blacksmith and
//! cathedral.
//!
//! Features are named on a tile by board-oriented JCloisterZone location (`N`, `WE`,
//! `NL.NR`, `I`; compared as sets, and a location that is part of exactly one segment's
//! location also names it), by feature kind name when the tile has one segment of that
//! kind (`city`, `cloister`), or by `kind:location` (`city:N`).

mod case;
mod format;
mod run;
mod tiles;

pub use case::{find_scenario_files, load_cases, parse_cases, Case};
pub use format::{
    BoardFigure, BoardTile, CheckDeploy, CustomStep, DeployStep, EventExp, Expect, FeatureRef,
    FigureSlotsExp, MoveStep, OccupantsExp, PlaceStep, PlacementExp, Scenario, Step, SupplyExp,
    TileFigure,
};
pub use run::{build_position, Failure, Harness, Part};
pub use tiles::{find_segment, resolve_kind, resolve_placed, rotations_showing, EdgeSpec};

use carcassonne_files::FileError;

/// A scenario file that cannot be used: unreadable, or not a valid scenario. Each variant
/// is one line naming the file (and line).
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file cannot be read (missing, not a regular file, too large, not UTF-8).
    #[error(transparent)]
    Read(#[from] FileError),
    /// Bad TOML, an unknown key, a value of the wrong type, a variant without a name, an
    /// id that is not the file's name.
    #[error("{origin}:{line}: {message}")]
    Invalid {
        /// The file (or what the text was called).
        origin: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

impl ScenarioError {
    /// The line the error is about, if it is about one.
    pub fn line(&self) -> Option<usize> {
        match self {
            ScenarioError::Read(_) => None,
            ScenarioError::Invalid { line, .. } => Some(*line),
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use carcassonne_core::Ruleset;
    use std::sync::Arc;

    fn base() -> Arc<Ruleset> {
        carcassonne_rules::base_ruleset()
    }

    fn placed(r: &Ruleset, edges: &str) -> (String, u16) {
        let (k, rot) = resolve_placed(r, None, Some(edges), None).unwrap();
        (r.tiles().get(k).aliases[0].clone(), rot.degrees())
    }

    /// Section 0 edge strings resolve to the base tiles (letters) and rotations.
    #[test]
    fn edge_strings_pick_base_tiles() {
        let r = base();
        let cases = [
            ("CFFF", "E", 0),
            ("FCFF", "E", 90),
            ("FFCF", "E", 180),
            ("FFFC", "E", 270),
            ("CRFR", "D", 0),
            ("CFCF+p", "F", 90),
            ("CFCF", "G", 90),
            ("CFCFs", "H", 0),
            ("FFFRM", "A", 90),
            ("FFFFM", "B", 0),
            ("CCCC+p", "C", 0),
            ("FRFR", "U", 0),
            ("FRRR", "W", 0),
            ("CCFC", "R", 0),
            ("CFFCs", "I", 0),
            ("CFFC+p", "M", 0),
        ];
        for (e, letter, deg) in cases {
            assert_eq!(placed(&r, e), (letter.to_string(), deg), "{e}");
        }
        assert!(resolve_kind(&r, "CCCC").is_err(), "no pennant-less CCCC");
    }

    const T01: &str = r#"
id = "T-01"
rules = ["A-9"]
draws = ["FFCF"]
[[tile]]
at = [0, 0]
edges = "CFFF"
figures = [{ player = "R", feature = "N" }]
[[step]]
do = "place"
at = [0, -1]
edges = "FFCF"
[[step]]
do = "pass"
[expect]
gained = { R = 4 }
"#;

    fn cases(text: &str, id: &str) -> Result<Vec<Case>, String> {
        parse_cases(text, "T-01.toml", Some(id)).map_err(|e| e.to_string())
    }

    fn run_case(c: &Case) -> Result<(), String> {
        Harness::default()
            .run(&c.scenario)
            .map_err(|f| f.to_string())
    }

    fn run_text(text: &str) -> Vec<Result<(), String>> {
        cases(text, "T-01").unwrap().iter().map(run_case).collect()
    }

    /// The runner fails on wrong outcomes instead of merely running the steps.
    #[test]
    fn wrong_expectations_fail() {
        assert_eq!(run_text(T01), vec![Ok(())]);
        let wrong_points = T01.replace("gained = { R = 4 }", "gained = { R = 5 }");
        let e = run_text(&wrong_points).remove(0).unwrap_err();
        assert!(e.contains("R gained 4, expected 5"), "{e}");
        let other_player = T01.replace("gained = { R = 4 }", "gained = {}");
        let e = run_text(&other_player).remove(0).unwrap_err();
        assert!(e.contains("R gained 4, expected 0"), "{e}");
        let legal = T01.replace("do = \"place\"", "do = \"place-illegal\"");
        let e = run_text(&legal).remove(0).unwrap_err();
        assert!(e.contains("is offered but must be illegal"), "{e}");
        let deploy = T01.replace("do = \"pass\"", "do = \"deploy-legal\"\nfeature = \"S\"");
        let e = run_text(&deploy).remove(0).unwrap_err();
        assert!(e.contains("is not offered but must be legal"), "{e}");
        let offered = T01.replace("do = \"pass\"", "do = \"expect\"\ndeployments = []");
        let e = run_text(&offered).remove(0).unwrap_err();
        assert!(
            e.contains("field") && e.contains("offered but not expected"),
            "{e}"
        );
        let wrong_id = cases(T01, "T-02").unwrap_err();
        assert!(wrong_id.contains("does not match"), "{wrong_id}");
        let typo = T01.replace("gained =", "ganed =");
        assert!(cases(&typo, "T-01").is_err(), "unknown keys are refused");
    }

    /// A variant replaces whole top-level keys.
    #[test]
    fn variants_replace_keys() {
        let text = format!(
            "{T01}\n[[variant]]\nname = \"small\"\noptions = {{ smallCity = \"1st/2nd\" }}\n\
             [variant.expect]\ngained = {{ R = 2 }}\n"
        );
        let cases = cases(&text, "T-01").unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[1].scenario.name, "small");
        assert_eq!(
            cases.iter().map(run_case).collect::<Vec<_>>(),
            vec![Ok(()), Ok(())]
        );
    }

    #[test]
    fn features_by_location_and_kind() {
        let r = base();
        let (k, rot) = resolve_placed(&r, None, Some("CFCF"), None).unwrap();
        let tk = r.tiles().get(k);
        let city = find_segment(&r, tk, rot, "city").unwrap();
        assert_eq!(find_segment(&r, tk, rot, "NS").unwrap(), city);
        assert_eq!(find_segment(&r, tk, rot, "N").unwrap(), city);
        assert_ne!(find_segment(&r, tk, rot, "EL.ER").unwrap(), city);
        assert!(find_segment(&r, tk, rot, "field").is_err(), "two fields");
        assert_eq!(
            find_segment(&r, tk, rot, "field:WL").unwrap(),
            find_segment(&r, tk, rot, "WL.WR").unwrap()
        );
    }

    /// A failure points at the line of the step, or of the `expect` key, that failed.
    #[test]
    fn failures_name_their_line() {
        let line_of = |text: &str| {
            let c = cases(text, "T-01").unwrap().remove(0);
            let f = Harness::default().run(&c.scenario).unwrap_err();
            (c.line(&f.part), f.summary())
        };
        // `gained` is on line 16.
        let (line, msg) = line_of(&T01.replace("R = 4", "R = 5"));
        assert_eq!(line, 16, "{msg}");
        assert!(
            msg.starts_with("expectations after the last step: points:"),
            "{msg}"
        );
        // The second step (`pass`, line 13) is refused when it is `deploy` on a missing feature.
        let (line, msg) =
            line_of(&T01.replace("do = \"pass\"", "do = \"deploy\"\nfeature = \"X\""));
        assert_eq!(line, 13, "{msg}");
        assert!(msg.starts_with("step 2 (deploy):"), "{msg}");
        // A board tile that does not exist: its `[[tile]]` (line 5).
        let (line, msg) = line_of(&T01.replace("edges = \"CFFF\"", "tile = \"nope\""));
        assert_eq!(line, 5, "{msg}");
        // In a variant, the variant's own keys.
        let text = format!("{T01}[[variant]]\nname = \"v\"\nexpect = {{ gained = {{ R = 1 }} }}\n");
        let c = cases(&text, "T-01").unwrap().remove(1);
        let f = Harness::default().run(&c.scenario).unwrap_err();
        assert_eq!((c.start, c.line(&f.part)), (17, 19), "{f}");
    }

    /// Bad input names its line: TOML syntax, unknown keys and `do` values, wrong types.
    #[test]
    fn bad_files_name_their_line() {
        let err = |text: &str| {
            let e = parse_cases(text, "T-01.toml", Some("T-01")).unwrap_err();
            (e.line(), e.to_string())
        };
        let (line, msg) = err(&T01.replace("gained =", "ganed ="));
        assert_eq!(line, Some(16), "{msg}");
        assert!(
            msg.starts_with("T-01.toml:16: expect: unknown field `ganed`"),
            "{msg}"
        );
        let (line, msg) = err(&T01.replace("do = \"pass\"", "do = \"passs\""));
        assert_eq!(line, Some(14), "{msg}");
        assert!(msg.contains("step[2].do: unknown variant `passs`"), "{msg}");
        // Inside a step, the step's first line (its `[[step]]`).
        let (line, msg) = err(&T01.replace("at = [0, -1]", "at = [0, \"x\"]"));
        assert_eq!(line, Some(9), "{msg}");
        assert!(msg.contains("step[1]: invalid type"), "{msg}");
        let (line, msg) = err(&T01.replace("at = [0, -1]", "at = [0, -1"));
        assert_eq!(line, Some(12), "{msg}"); // where the parser stops
        let (line, msg) = err(&T01.replace("id = \"T-01\"", "id = \"T-02\""));
        assert_eq!(line, Some(2), "{msg}");
        assert!(msg.contains("does not match the file name"), "{msg}");
    }
}
