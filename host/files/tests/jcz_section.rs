//! A manifest's `[prompts]` and `[jcz]` sections (`carcassonne_files::jcz`): parsed into
//! typed declarations, and every mistake one file can show reported with file, line and
//! field.

use carcassonne_files::jcz::{
    JczActionMessage, JczActionValue, JczMessagePattern, JczNeutralFigure, JczNeutralTarget,
    JczPromptAnswer,
};
use carcassonne_files::manifest::{parse_manifest, Manifest, ManifestError};
use std::path::Path;

const HEAD: &str = r#"[expansion]
id = "tower"
name = "The Tower"
version = "1.0.0"
api = "1.0"
kind = "native"
library = "carcassonne_tower"

[options.ransomFunds]
type = "choice"
values = ["need-3", "may-go-negative"]
default = "need-3"
"#;

fn parse(extra: &str) -> Result<Manifest, ManifestError> {
    parse_manifest(
        &format!("{HEAD}{extra}"),
        Path::new("expansions/tower/expansion.toml"),
    )
}

#[test]
fn a_full_section_parses() {
    let m = parse(
        r#"
[prompts]
capture = 1
ransom = 3

[jcz]
sets = ["tower:1", "tower:2"]
elements = { tower = { required = true, count = 1 } }
options = { ransomFunds = "need-3" }
features = { Tower = "tower" }
figures = { tw = "small-follower" }
neutral-figures = ["tower.1"]

[jcz.set-options."tower:2"]
ransomFunds = "may-go-negative"

[jcz.rules.ransom-rule]
option = "ransomFunds"
default = "need-3"
values = { strict = "need-3", lax = "may-go-negative" }

[[jcz.prompts]]
prompts = ["ransom"]
passed-by = ["PLACE_TILE", "DEPLOY_MEEPLE wagon"]

[[jcz.actions]]
message = "PAY_RANSOM"
verb = "pay-ransom"
value = "prisoner"
slot = "jailer"
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        m.prompts,
        [("capture".to_string(), 1), ("ransom".to_string(), 3)]
    );
    let j = &m.jcz;
    assert_eq!(j.sets, ["tower:1", "tower:2"]);
    assert_eq!(j.line, 18);
    assert!(j.elements[0].required && j.elements[0].count == Some(1));
    assert_eq!(j.rules[0].values.len(), 2);
    assert_eq!(j.prompts[0].tags, [3]);
    assert_eq!(
        j.prompts[0].answer,
        JczPromptAnswer::PassedBy(vec![
            JczMessagePattern {
                kind: "PLACE_TILE".into(),
                qualifier: None
            },
            JczMessagePattern {
                kind: "DEPLOY_MEEPLE".into(),
                qualifier: Some("wagon".into())
            },
        ])
    );
    assert!(j.prompts[0].answer != JczPromptAnswer::Tile("x".into()));
    assert_eq!(j.actions[0].message, JczActionMessage::PayRansom);
    assert_eq!(
        j.actions[0].value,
        JczActionValue::Prisoner("jailer".into())
    );
    assert_eq!(j.actions[0].line, 38);
    // The pattern matches a meeple id's kind.
    let p = JczMessagePattern {
        kind: "DEPLOY_MEEPLE".into(),
        qualifier: Some("wagon".into()),
    };
    assert!(p.matches("DEPLOY_MEEPLE", Some("1.wagon.1"), None));
    assert!(!p.matches("DEPLOY_MEEPLE", Some("1.small.1"), None));
    assert!(!p.matches("PASS", None, None));
    // … or a message's token: a bridge, not a tower piece.
    let p = JczMessagePattern {
        kind: "PLACE_TOKEN".into(),
        qualifier: Some("BRIDGE".into()),
    };
    assert!(p.matches("PLACE_TOKEN", None, Some("BRIDGE")));
    assert!(!p.matches("PLACE_TOKEN", None, Some("TOWER_PIECE")));
    assert!(!p.matches("PLACE_TOKEN", None, None));
}

#[test]
fn a_manifest_without_the_sections_declares_nothing() {
    let m = parse("").unwrap();
    assert!(m.jcz.is_empty() && m.prompts.is_empty());
}

#[test]
fn mistakes_name_file_line_and_field() {
    let cases: &[(&str, &str, &str)] = &[
        ("[prompts]\nRansom = 3\n", ":14: `prompts.Ransom`", "must match"),
        ("[prompts]\na = 3\nb = 3\n", "`prompts.b`", "already named `a`"),
        ("[jcz]\nsets = [\"a b\"]\n", ":14: `jcz.sets[0]`", "not a JCZ set id"),
        ("[jcz]\nelements = { tower = {} }\n", "`jcz.elements.tower`", "needs `jcz.sets`"),
        ("[jcz]\nsets = [\"t\"]\noptions = { ransomFund = \"x\" }\n", "`jcz.options.ransomFund`", "not an option of this manifest"),
        ("[jcz]\nsets = [\"t\"]\noptions = { ransomFunds = \"x\" }\n", "`jcz.options.ransomFunds`", "`x` is not a value"),
        ("[jcz]\nsets = [\"t\"]\n[jcz.set-options.u]\nransomFunds = \"need-3\"\n", "`jcz.set-options.\"u\"`", "not in `jcz.sets`"),
        ("[jcz]\nsets = [\"t\"]\n[jcz.rules.r]\noption = \"ransomFunds\"\ndefault = \"need-3\"\nvalues = { a = \"nope\" }\n", ":15: `jcz.rules.r`", "`nope`"),
        ("[jcz]\nfigures = { \"a.b\" = \"x\" }\n", "`jcz.figures.a.b`", "without dots"),
        ("[[jcz.prompts]]\nprompts = [\"ransom\"]\npassed-by = [\"PLACE_TILE\"]\n", ":13: `jcz.prompts[0].prompts`", "not named in `[prompts]`"),
        ("[prompts]\nransom = 3\n[[jcz.prompts]]\nprompts = [\"ransom\"]\n", "`jcz.prompts[0].tile`", "exactly one of"),
        ("[prompts]\nransom = 3\n[[jcz.prompts]]\nprompts = [\"ransom\"]\npassed-by = [\"place tile\"]\n", "`jcz.prompts[0].passed-by`", "MESSAGE_TYPE"),
        ("[[jcz.actions]]\nmessage = \"BAZAAR_BID\"\nverb = \"bid\"\n", ":13: `jcz.actions[0].message`", "`BAZAAR_BID` is not one of"),
        ("[[jcz.actions]]\nmessage = \"PLACE_TOKEN\"\nverb = \"x\"\n", "`jcz.actions[0].token`", "needs a `token`"),
        ("[[jcz.actions]]\nmessage = \"CAPTURE_FOLLOWER\"\ntoken = \"T\"\nverb = \"x\"\n", "`jcz.actions[0].token`", "not with"),
        ("[[jcz.actions]]\nmessage = \"DEPLOY_MEEPLE\"\nverb = \"x\"\n", "`jcz.actions[0].feature`", "exactly one of"),
        ("[[jcz.actions]]\nmessage = \"PAY_RANSOM\"\nverb = \"x\"\nvalue = \"prisoner\"\n", "`jcz.actions[0].slot`", "needs `slot`"),
        ("[[jcz.actions]]\nmessage = \"PAY_RANSOM\"\nverb = \"x\"\nvalue = \"corner\"\n", "`jcz.actions[0].value`", "`corner` is not possible here"),
        ("[jcz]\nsets = [\"t\"]\nelements = { e = { absent-with = { t = \"x\" } } }\n", "`jcz.elements.e`", "need `option`"),
        ("[jcz]\nsets = [\"t\"]\nelements = { e = { option = \"ransomFunds\", absent-with = { t = \"x\" } } }\n", "`jcz.elements.e`", "`x` is not a value"),
        ("[jcz]\nsurprise = 1\n", "expansions/tower/expansion.toml", "unknown field `surprise`"),
    ];
    assert_mistakes(cases);
}

/// Each `(extra, at, why)`: the manifest with `extra` is refused with an error in this file
/// that contains `at` and `why`.
fn assert_mistakes(cases: &[(&str, &str, &str)]) {
    for (extra, at, why) in cases {
        let e = parse(extra).expect_err(extra).to_string();
        assert!(
            e.starts_with("expansions/tower/expansion.toml") && e.contains(at) && e.contains(why),
            "{extra}\n→ {e}"
        );
    }
}

/// `neutral-figures` entries as tables (what `to` may point at, whether JCZ undoes a step)
/// and `RETURN_MEEPLE` actions with a `source`.
#[test]
fn neutral_figure_tables_and_return_meeple_parse() {
    let m = parse(
        r#"
[jcz]
sets = ["t"]
neutral-figures = [
    "count.1",
    { id = "dragon.1", to = ["cell"], undoable = false },
    { id = "fairy.1", to = ["follower", "cell"] },
]

[[jcz.actions]]
message = "RETURN_MEEPLE"
source = "PRINCESS"
verb = "princess"
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let n = &m.jcz.neutral_figures;
    assert_eq!(
        n[0],
        JczNeutralFigure {
            id: "count.1".into(),
            targets: vec![JczNeutralTarget::Feature],
            undoable: true,
            via: None,
        }
    );
    assert_eq!(
        n[1],
        JczNeutralFigure {
            id: "dragon.1".into(),
            targets: vec![JczNeutralTarget::Cell],
            undoable: false,
            via: None,
        }
    );
    assert_eq!(
        n[2].targets,
        [JczNeutralTarget::Follower, JczNeutralTarget::Cell]
    );
    assert!(n[2].undoable);
    assert_eq!(JczNeutralTarget::Follower.name(), "follower");
    let a = &m.jcz.actions[0];
    assert_eq!(a.message, JczActionMessage::ReturnMeeple("PRINCESS".into()));
    assert_eq!(a.verb, "princess");
    assert_eq!(a.value, JczActionValue::Any);
}

#[test]
fn neutral_figure_and_return_meeple_mistakes_name_file_line_and_field() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "[jcz]\nneutral-figures = [{ id = \"d.1\", to = [\"tile\"] }]\n",
            ":14: `jcz.neutral-figures[0].to`",
            "`tile` is not one of feature, cell, follower",
        ),
        (
            "[jcz]\nneutral-figures = [{ id = \"d.1\", to = [] }]\n",
            "`jcz.neutral-figures[0].to`",
            "lists no pointer kind",
        ),
        (
            "[jcz]\nneutral-figures = [{ id = \"d.1\", to = [\"cell\", \"cell\"] }]\n",
            "`jcz.neutral-figures[0].to`",
            "`cell` is listed twice",
        ),
        (
            "[jcz]\nneutral-figures = [\"d.1\", { id = \"d.1\" }]\n",
            "`jcz.neutral-figures[1]`",
            "listed twice",
        ),
        (
            "[jcz]\nneutral-figures = [{ id = \"a b\" }]\n",
            "`jcz.neutral-figures[0]`",
            "not a JCZ figure id",
        ),
        (
            "[jcz]\nneutral-figures = [{ id = \"d.1\", undo = false }]\n",
            "expansions/tower/expansion.toml",
            "unknown field `undo`",
        ),
        (
            "[[jcz.actions]]\nmessage = \"RETURN_MEEPLE\"\nverb = \"x\"\n",
            ":13: `jcz.actions[0].source`",
            "`RETURN_MEEPLE` needs a `source`",
        ),
        (
            "[[jcz.actions]]\nmessage = \"PAY_RANSOM\"\nsource = \"PRINCESS\"\nverb = \"x\"\n",
            "`jcz.actions[0].source`",
            "not with",
        ),
        (
            "[[jcz.actions]]\nmessage = \"RETURN_MEEPLE\"\nsource = \"A B\"\nverb = \"x\"\n",
            "`jcz.actions[0].source`",
            "not a JCZ name",
        ),
    ];
    assert_mistakes(cases);
}

/// `random-by` prompts (a draw JCZ makes with a message's random number: Hills & Sheep's
/// bag) and `choice` actions (`FLOCK_EXPAND_OR_SCORE` with `value`).
#[test]
fn random_by_prompts_and_choice_actions_parse() {
    let m = parse(
        r#"
[prompts]
draw = 2

[jcz]
sets = ["tower:1"]

[[jcz.prompts]]
prompts = ["draw"]
random-by = ["SHEPHERD_CONFIRM", "FLOCK_EXPAND_OR_SCORE"]

[[jcz.actions]]
message = "FLOCK_EXPAND_OR_SCORE"
choice = "EXPAND"
verb = "flock-grow"
"#,
    )
    .expect("parses");
    let kinds = |l: &[JczMessagePattern]| l.iter().map(|p| p.kind.clone()).collect::<Vec<_>>();
    match &m.jcz.prompts[0].answer {
        JczPromptAnswer::RandomBy(l) => {
            assert_eq!(kinds(l), ["SHEPHERD_CONFIRM", "FLOCK_EXPAND_OR_SCORE"])
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        m.jcz.actions[0].message,
        JczActionMessage::Choice("FLOCK_EXPAND_OR_SCORE".into(), "EXPAND".into())
    );
    assert_mistakes(&[
        (
            "[prompts]\ndraw = 2\n[jcz]\nsets = [\"tower:1\"]\n[[jcz.prompts]]\nprompts = [\"draw\"]\nrandom-by = [\"X\"]\npassed-by = [\"PASS\"]\n",
            "`jcz.prompts[0].random-by`",
            "give exactly one of",
        ),
        (
            "[[jcz.actions]]\nmessage = \"PLACE_TOKEN\"\ntoken = \"T\"\nchoice = \"A\"\nverb = \"x\"\n",
            "`jcz.actions[0].choice`",
            "not with",
        ),
    ]);
}

/// A `PLACE_TOKEN` at a fixed place of a tile (a bridge: `feature` + `location`), and the
/// mistakes around it.
#[test]
fn a_token_at_a_place_of_a_tile_parses() {
    let m = parse(
        "[[jcz.actions]]\nmessage = \"PLACE_TOKEN\"\ntoken = \"BRIDGE\"\nfeature = \"Road\"\nlocation = \"NS\"\nverb = \"bridge-ns\"\n",
    )
    .unwrap();
    let a = &m.jcz.actions[0];
    assert_eq!(a.message, JczActionMessage::PlaceToken("BRIDGE".into()));
    let at = a.at.as_ref().expect("a place");
    assert_eq!((at.feature.as_str(), at.location.as_str()), ("Road", "NS"));
    assert_mistakes(&[
        (
            "[[jcz.actions]]\nmessage = \"PLACE_TOKEN\"\ntoken = \"B\"\nlocation = \"NS\"\nverb = \"x\"\n",
            "`jcz.actions[0].location`",
            "needs the pointer's `feature`",
        ),
        (
            "[[jcz.actions]]\nmessage = \"PLACE_TOKEN\"\ntoken = \"B\"\nfeature = \"Road\"\nverb = \"x\"\n",
            "`jcz.actions[0].feature`",
            "not with",
        ),
        (
            "[[jcz.actions]]\nmessage = \"PAY_RANSOM\"\nlocation = \"NS\"\nverb = \"x\"\n",
            "`jcz.actions[0].location`",
            "not with",
        ),
    ]);
}

/// Another message type with `pointer = true` (Under the Big Top's `SCORE_ACROBATS`): the
/// offered action of the verb on the pointer's feature; not with the listed types.
#[test]
fn a_pointer_message_parses() {
    let m = parse(
        "[[jcz.actions]]\nmessage = \"SCORE_ACROBATS\"\npointer = true\nverb = \"score-pyramid\"\n",
    )
    .unwrap();
    assert_eq!(
        m.jcz.actions[0].message,
        JczActionMessage::Pointer("SCORE_ACROBATS".into())
    );
    assert_mistakes(&[
        (
            "[[jcz.actions]]\nmessage = \"PLACE_TOKEN\"\ntoken = \"T\"\npointer = true\nverb = \"x\"\n",
            "`jcz.actions[0].pointer`",
            "another message type only",
        ),
        (
            "[[jcz.actions]]\nmessage = \"SCORE_ACROBATS\"\npointer = true\nchoice = \"A\"\nverb = \"x\"\n",
            "`jcz.actions[0].choice`",
            "not with",
        ),
    ]);
}
