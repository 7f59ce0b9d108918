//! `docs/modding.md` stays true: it embeds exactly the reference the program prints
//! (`carcassonne expansions api`), and its worked example (`docs/examples/pilgrims`) passes
//! `carcassonne expansions check`, plays, records, replays and changes the score the way the
//! guide says; its hand-made record with chosen draws (`docs/examples/pilgrims-record.json`,
//! section 8.9) replays to the scores and decisions the guide shows.
//!
//! When the reference changes (a hook, function or limit was added or reworded), regenerate
//! the embedded copy with
//!
//! ```sh
//! UPDATE_MODDING_DOC=1 cargo test -p carcassonne-cli --test modding_doc
//! ```

mod common;
use carcassonne_core::{
    Action, DecisionKind, Game, Pos, Position, PositionSetting, Rotation, ScoreSource, StartTile,
};
use carcassonne_rules::{build_ruleset, RulesSpec};
use common::ok_in_repo as ok;
use common::Scratch;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

const BEGIN: &str = "<!-- BEGIN GENERATED API -->";
const END: &str = "<!-- END GENERATED API -->";

use common::repo;

fn examples() -> PathBuf {
    repo().join("docs").join("examples")
}

fn ok_json(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| {
        panic!(
            "carcassonne {} printed no JSON ({e}):\n{out}",
            args.join(" ")
        )
    })
}

#[test]
fn modding_doc_embeds_the_generated_reference() {
    let api = ok(&["expansions", "api"]);
    let api = api.trim_matches('\n');
    assert!(api.starts_with("### Hooks"), "unexpected reference:\n{api}");
    let path = repo().join("docs").join("modding.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        doc.matches(BEGIN).count(),
        1,
        "docs/modding.md needs one line `{BEGIN}`"
    );
    assert_eq!(
        doc.matches(END).count(),
        1,
        "docs/modding.md needs one line `{END}`"
    );
    let (head, rest) = doc.split_once(BEGIN).expect("begin marker");
    let (embedded, tail) = rest
        .split_once(END)
        .expect("end marker after the begin marker");
    let embedded = embedded.trim_matches('\n');
    if embedded == api {
        return;
    }
    if std::env::var_os("UPDATE_MODDING_DOC").is_some() {
        std::fs::write(&path, format!("{head}{BEGIN}\n{api}\n{END}{tail}"))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("docs/modding.md: generated reference updated");
        return;
    }
    let (doc_lines, api_lines): (Vec<&str>, Vec<&str>) =
        (embedded.lines().collect(), api.lines().collect());
    let first = doc_lines
        .iter()
        .zip(&api_lines)
        .position(|(a, b)| a != b)
        .unwrap_or(doc_lines.len().min(api_lines.len()));
    panic!(
        "docs/modding.md is out of date: the text between `{BEGIN}` and `{END}` is not the \
         output of `carcassonne expansions api`.\n\
         First difference at line {} of the reference:\n  doc: {:?}\n  api: {:?}\n\
         Regenerate it with\n  UPDATE_MODDING_DOC=1 cargo test -p carcassonne-cli --test modding_doc\n\
         (or paste the output of `cargo run --release -q -- expansions api` between the markers).",
        first + 1,
        doc_lines.get(first).copied().unwrap_or("<end>"),
        api_lines.get(first).copied().unwrap_or("<end>"),
    );
}

/// The published scripting API (`carcassonne expansions api`, embedded in docs/modding.md
/// section 10) enumerated against core's one hook table (`carcassonne_core::HOOKS`, made by
/// `for_each_hook!`): every hook the reference lists rides on a core hook, and every core
/// hook is listed, but `explain_refusal`, which the host answers from data (the `reason` of
/// `forbidden_cells` and `keep_apart`). A hook added to core's table without its script
/// row fails here (and the script crate's compile-time check fails first).
#[test]
fn the_script_api_covers_cores_hook_table() {
    // Nothing here is written per hook: the published reference, the script host's rows
    // and core's hook table are enumerated against each other, so a hook added to core's
    // table (`for_each_hook!`) without its script row, or a row the reference omits, fails.
    let api = ok(&["expansions", "api"]);
    let hooks = api
        .split("### Hooks")
        .nth(1)
        .and_then(|t| t.split("\n### ").next())
        .expect("a hooks table");
    // `| `name(a, b)` | …` → ("name", ["a", "b"]).
    let listed: Vec<(&str, Vec<&str>)> = hooks
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('('))
        .map(|(name, rest)| {
            let params = rest.split(')').next().unwrap_or("");
            let params = params.split(", ").filter(|p| !p.is_empty()).collect();
            (name, params)
        })
        .collect();
    let rows = carcassonne_script::HOOKS;
    let names: Vec<&str> = listed.iter().map(|(n, _)| *n).collect();
    let row_names: Vec<&str> = rows.iter().map(|h| h.name).collect();
    assert_eq!(
        names, row_names,
        "the reference lists exactly the host's rows, in order"
    );
    let core: Vec<&str> = carcassonne_core::HOOKS.iter().map(|h| h.name).collect();
    let mut reached = Vec::new();
    for ((name, params), spec) in listed.iter().zip(rows) {
        assert_eq!(params, &spec.params.to_vec(), "parameters of `{name}`");
        assert!(
            core.contains(&spec.core),
            "script hook `{name}` rides on `{}`, which is not in core's hook table",
            spec.core
        );
        reached.push(spec.core);
    }
    for c in &core {
        assert!(
            reached.contains(c),
            "core hook `{c}`: the published script API has no hook for it"
        );
    }
}

#[test]
fn the_example_passes_expansions_check() {
    let dir = examples().join("pilgrims");
    let dir = dir.to_str().expect("UTF-8 path");
    let out = ok(&["expansions", "check", dir, "--games", "10"]);
    for want in [
        "`pilgrims` 1.0.0 (script), 2 option(s), 0 tile file(s)",
        "compiled; hooks: setup, start_game, apply_setting, apply_action, prompt_actions, \
         apply_prompt, after_scoring, final_scoring",
        "ok: 10 random game(s) with 2 to 5 players played to the end",
    ] {
        assert!(out.contains(want), "missing `{want}` in:\n{out}");
    }
    assert!(!out.contains("problem:"), "{out}");
    // With the other fan expansions and an official one, and the option at its maximum.
    let out = ok(&[
        "expansions",
        "check",
        dir,
        "--games",
        "10",
        "--with",
        "tactician,promotions,count",
        "--option",
        "pilgrims.perPlayer=4",
    ]);
    assert!(out.contains("ok: 10 random game(s)"), "{out}");
}

/// Section 8 builds the example's script fragment by fragment: put together, the `rust` code
/// blocks of sections 8.3 to 8.7 are exactly `docs/examples/pilgrims/pilgrims.rhai`.
#[test]
fn the_guide_shows_the_whole_example_script() {
    let doc = std::fs::read_to_string(repo().join("docs").join("modding.md")).expect("guide");
    let script =
        std::fs::read_to_string(examples().join("pilgrims").join("pilgrims.rhai")).expect("script");
    let from = doc.find("### 8.3 ").expect("section 8.3");
    let to = doc.find("### 8.8 ").expect("section 8.8");
    let mut fragments = Vec::new();
    let mut rest = &doc[from..to];
    while let Some(start) = rest.find("```rust\n") {
        let body = &rest[start + "```rust\n".len()..];
        let end = body.find("```").expect("closed code block");
        fragments.push(&body[..end]);
        rest = &body[end + 3..];
    }
    let joined = fragments.join("\n");
    if joined != script {
        let first = joined
            .lines()
            .zip(script.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(joined.lines().count().min(script.lines().count()));
        panic!(
            "docs/modding.md sections 8.3-8.7 no longer add up to docs/examples/pilgrims/pilgrims.rhai \
             (first difference at script line {}): update the guide's fragments with the script",
            first + 1
        );
    }
}

/// Score events with one of the example's labels, from a replay's JSON output.
fn label_events<'a>(replay: &'a Value, label: &str) -> Vec<&'a Value> {
    replay["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["feature"] == label)
        .collect()
}

#[test]
fn the_example_changes_the_game_as_the_guide_says() {
    // The game the guide shows: `simulate --expansion-dir docs/examples --expansions
    // pilgrims --seed 3 --bots greedy,random`, recorded and replayed.
    let ex = examples();
    let ex = ex.to_str().expect("UTF-8 path");
    let play = |extra: &[&str]| -> (Value, Value) {
        let scratch = Scratch::new("modding", &format!("sim{}", extra.len()));
        let rec = scratch.dir().to_str().expect("UTF-8 path").to_string();
        let mut args = vec![
            "simulate",
            "--expansion-dir",
            ex,
            "--expansions",
            "pilgrims",
            "--seed",
            "3",
            "--bots",
            "greedy,random",
            "--record",
            &rec,
        ];
        args.extend_from_slice(extra);
        ok(&args);
        let file = scratch.path("game-0.json");
        let record: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("record written"))
                .expect("record is JSON");
        let f = file.to_str().expect("UTF-8 path");
        let replay = ok_json(&["replay", f, "--expansion-dir", ex, "--json"]);
        (record, replay)
    };

    let (record, replay) = play(&[]);
    assert_eq!(
        record["setup"]["options"]["pilgrims.perPlayer"], "2",
        "{}",
        record["setup"]
    );
    assert_eq!(
        record["setup"]["options"]["pilgrims.lostPilgrim"],
        "penalty"
    );
    let verbs: Vec<&str> = record["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter(|a| a["type"] == "custom")
        .map(|a| {
            assert_eq!(a["expansion"], "pilgrims", "{a}");
            a["verb"].as_str().expect("verb")
        })
        .collect();
    assert!(
        verbs.contains(&"send-pilgrim"),
        "no pilgrim sent: {verbs:?}"
    );
    assert!(
        verbs.contains(&"pilgrim-home") || verbs.contains(&"pilgrim-stays"),
        "no P-4 prompt answered: {verbs:?}"
    );
    let send = record["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["verb"] == "send-pilgrim")
        .unwrap();
    assert_eq!(send["target"]["feature"], "road", "{send}");

    // P-3/P-4: P1's pilgrimages score; P-5: P2's pilgrim is lost at the end.
    let pilgrimage = label_events(&replay, "pilgrimage");
    assert!(
        !pilgrimage.is_empty(),
        "no pilgrimage scored: {}",
        replay["events"]
    );
    assert!(pilgrimage.iter().all(|e| e["points"].as_i64().unwrap() > 0));
    let lost = label_events(&replay, "lost-pilgrim");
    assert!(!lost.is_empty(), "no pilgrim lost: {}", replay["events"]);
    assert!(lost.iter().all(|e| e["points"] == -2), "{lost:?}");
    assert_eq!(replay["finished"], true);

    // The option turns P-5 off: the same game, each lost pilgrim's 2 points given back.
    let (record_free, replay_free) = play(&["--option", "pilgrims.lostPilgrim=free"]);
    assert_eq!(
        record_free["setup"]["options"]["pilgrims.lostPilgrim"],
        "free"
    );
    assert!(label_events(&replay_free, "lost-pilgrim").is_empty());
    for (i, p) in replay["players"].as_array().unwrap().iter().enumerate() {
        let name = p["name"].as_str().unwrap();
        let lost_here = lost.iter().filter(|e| e["player"] == name).count() as i64;
        assert_eq!(
            replay_free["players"][i]["score"].as_i64().unwrap(),
            p["score"].as_i64().unwrap() + 2 * lost_here,
            "{name}: {} vs {}",
            replay_free["players"],
            replay["players"]
        );
    }
}

/// The example's `apply_setting` (the guide's "scenario settings"): a position where seat 1's
/// pilgrim walks the start tile's road, completed by two junctions.
#[test]
fn the_example_settings_set_up_a_position() {
    let rules = build_ruleset(&RulesSpec {
        expansions: vec!["pilgrims".into()],
        options: vec![],
        plugin_dirs: vec![examples()],
    })
    .expect("ruleset with pilgrims");
    let tile = |id: &str| {
        rules
            .tiles()
            .find(id)
            .unwrap_or_else(|| panic!("tile {id}"))
    };
    let setting = |key: &str, value: &str| PositionSetting {
        expansion: "pilgrims".into(),
        key: key.into(),
        value: value.into(),
    };
    let position = |settings: Vec<PositionSetting>| Position {
        players: vec!["A".into(), "B".into()],
        tiles: vec![StartTile {
            kind: tile("BA/RCr"),
            pos: Pos::new(0, 0),
            rotation: Rotation::R0,
        }],
        draws: vec![tile("BA/RRR"), tile("BA/RRR")],
        seed: 1,
        settings,
        ..Position::default()
    };

    // An unknown key fails with the script's own message, naming expansion and hook.
    let err = Game::from_position(Arc::clone(&rules), &position(vec![setting("nope", "1")]))
        .expect_err("unknown setting refused")
        .to_string();
    assert!(
        err.contains("expansion `pilgrims`")
            && err.contains("apply_setting")
            && err.contains("unknown setting 'nope' (known: tokens, road)"),
        "{err}"
    );

    let mut game = Game::from_position(
        Arc::clone(&rules),
        &position(vec![setting("tokens", "2,1"), setting("road", "1@0,0")]),
    )
    .expect("position with settings");
    let verb = |a: &Action| match a {
        Action::Custom(c) => rules.verbs()[c.verb.0 as usize].1.clone(),
        _ => String::new(),
    };
    let place_at = |game: &mut Game, x: i32| {
        let a = game
            .state()
            .offered()
            .iter()
            .copied()
            .find(|a| matches!(a, Action::Place { pos, .. } if *pos == Pos::new(x, 0)))
            .unwrap_or_else(|| panic!("no placement at ({x}, 0)"));
        game.apply(a).expect("placement applies");
    };
    // A closes the east end; A may send a pilgrim (ready), B may not (his walks already).
    place_at(&mut game, 1);
    let offered: Vec<String> = game.state().offered().iter().map(verb).collect();
    assert!(offered.iter().any(|v| v == "send-pilgrim"), "{offered:?}");
    game.apply(Action::Pass).expect("A passes");
    // B closes the west end: a 3-tile road, so B scores 3 and is asked P-4.
    place_at(&mut game, -1);
    let offered: Vec<String> = game.state().offered().iter().map(verb).collect();
    assert!(!offered.iter().any(|v| v == "send-pilgrim"), "{offered:?}");
    game.apply(Action::Pass).expect("B passes");
    assert!(
        matches!(game.decision().kind, DecisionKind::Prompt(_)),
        "P-4 prompt expected"
    );
    assert_eq!(game.decision().player.index(), 1);
    let stays = game
        .state()
        .offered()
        .iter()
        .copied()
        .find(|a| verb(a) == "pilgrim-stays")
        .expect("pilgrim-stays offered");
    game.apply(stays).expect("B lets him stay");
    assert!(game.is_over(), "no tiles left");
    let labelled: Vec<(usize, String, i32)> = game
        .state()
        .events()
        .iter()
        .filter_map(|e| match e.source {
            ScoreSource::Label(l) => Some((
                e.player.index(),
                rules.labels()[l.0 as usize].clone(),
                e.points,
            )),
            ScoreSource::Feature(_) => None,
        })
        .collect();
    assert_eq!(
        labelled,
        vec![
            (1, "pilgrimage".to_string(), 3),
            (1, "pilgrimage".to_string(), 2)
        ],
        "B: 3 for the road's tiles, 2 for staying; nobody's pilgrim is lost"
    );
}

/// The body of the first fenced block of kind `lang` (```` ```json ````) after `marker` in the
/// guide.
fn block_after<'a>(doc: &'a str, marker: &str, lang: &str) -> &'a str {
    let at = doc
        .find(marker)
        .unwrap_or_else(|| panic!("`{marker}` is not in docs/modding.md"));
    let fence = format!("```{lang}\n");
    let start = at
        + doc[at..]
            .find(&fence)
            .unwrap_or_else(|| panic!("no ```{lang} block after `{marker}`"))
        + fence.len();
    let len = doc[start..].find("```").expect("closed code block");
    &doc[start..start + len]
}

fn scores(replay: &Value) -> Vec<i64> {
    replay["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["score"].as_i64().expect("score"))
        .collect()
}

fn verbs(pending: &Value) -> Vec<&str> {
    pending["custom"]
        .as_array()
        .map(|c| {
            c.iter()
                .map(|a| a["verb"].as_str().expect("verb"))
                .collect()
        })
        .unwrap_or_default()
}

/// Section 8.9: the hand-made record with chosen draws (`docs/examples/pilgrims-record.json`)
/// is the one the guide shows, and replays with the real program to the scores, events,
/// state and pending decisions the guide describes.
#[test]
fn the_hand_made_record_replays_as_the_guide_says() {
    let doc = std::fs::read_to_string(repo().join("docs").join("modding.md")).expect("guide");
    let path = examples().join("pilgrims-record.json");
    let text = std::fs::read_to_string(&path).expect("the example record");
    let record: Value = serde_json::from_str(&text).expect("the example record is JSON");
    let shown: Value = serde_json::from_str(block_after(
        &doc,
        "`docs/examples/pilgrims-record.json`, tests P-2",
        "json",
    ))
    .expect("the guide's record is JSON");
    assert_eq!(
        shown, record,
        "the guide shows docs/examples/pilgrims-record.json"
    );
    assert_eq!(record["setup"]["draws"], "chosen");
    let draws: Vec<&str> = record["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter(|a| a["type"] == "draw")
        .map(|a| a["tile"].as_str().expect("tile"))
        .collect();
    assert_eq!(draws, ["BA/RRR", "BA/RRR"], "the tiles are forced");

    let file = "docs/examples/pilgrims-record.json";
    let replay = |file: &str, extra: &[&str]| -> Value {
        let mut args = vec!["replay", file, "--expansion-dir", "docs/examples", "--json"];
        args.extend_from_slice(extra);
        ok_json(&args)
    };

    // Before Ann's answer: Bob's road (3), Ann's pilgrimage (3), and her P-4 prompt.
    let before = replay(file, &["--actions", "6"]);
    let shown: Value = serde_json::from_str(block_after(
        &doc,
        "--expansion-dir docs/examples --actions 6 --json",
        "json",
    ))
    .expect("the guide's replay output is JSON");
    assert_eq!(shown, before, "the guide shows the real output");
    assert_eq!(scores(&before), [3, 3]);
    assert_eq!(
        before["events"],
        serde_json::json!([
            {"player": "Bob", "feature": "road", "points": 3},
            {"player": "Ann", "feature": "pilgrimage", "points": 3},
        ])
    );
    let pending = &before["pending"];
    assert_eq!(pending["player"], "Ann", "{pending}");
    assert_eq!(
        verbs(pending),
        ["pilgrim-home", "pilgrim-stays"],
        "{pending}"
    );
    assert_eq!(pending["deployments"], serde_json::json!([]), "{pending}");
    assert_eq!(
        before["state"]["pilgrims.tokens"],
        serde_json::json!([0, 1])
    );
    assert_eq!(before["state"]["pilgrims.walking"], 0);

    // Earlier, after Ann's placement: her deployment step offers the pilgrim on each road.
    let placed = replay(file, &["--actions", "2"]);
    let targets: Vec<&str> = placed["pending"]["custom"]
        .as_array()
        .expect("send-pilgrim offered")
        .iter()
        .map(|a| {
            assert_eq!(a["verb"], "send-pilgrim", "{a}");
            a["target"]["location"].as_str().expect("location")
        })
        .collect();
    assert_eq!(targets, ["E", "S", "W"], "{}", placed["pending"]);

    // The whole record: the pilgrim stays (+2), and the table is to draw Ann's next tile.
    let after = replay(file, &[]);
    assert_eq!(scores(&after), [5, 3]);
    let pilgrimage: Vec<i64> = label_events(&after, "pilgrimage")
        .iter()
        .map(|e| e["points"].as_i64().unwrap())
        .collect();
    assert_eq!(pilgrimage, [3, 2]);
    assert_eq!(after["finished"], false);
    assert_eq!(after["pending"]["player"], "Ann");
    let table = after["pending"]["draws"]
        .as_array()
        .expect("a draw is pending");
    assert_eq!(table.len(), 24, "{}", after["pending"]);
    assert!(verbs(&after["pending"]).is_empty());
    // The text summary the guide shows.
    let summary = ok(&["replay", file, "--expansion-dir", "docs/examples"]);
    assert_eq!(
        summary,
        block_after(
            &doc,
            "Ann's turn again; with `--json`, `pending.draws`",
            "console"
        )
        .split_once('\n')
        .expect("command line, then output")
        .1
    );

    // Edited copies: a draw limit ends the game there; another option value changes the game.
    let scratch = Scratch::new("modding", "hand-made");
    let edited = |name: &str, edit: &dyn Fn(&mut Value)| -> String {
        let mut r = record.clone();
        edit(&mut r);
        let p = scratch.path(name);
        std::fs::write(&p, serde_json::to_string_pretty(&r).unwrap()).unwrap();
        p.to_str().expect("UTF-8 path").to_string()
    };
    let limited = edited("limited.json", &|r| r["setup"]["draw_limit"] = 2.into());
    let over = replay(&limited, &[]);
    assert_eq!(
        (over["finished"].clone(), scores(&over)),
        (true.into(), vec![5, 3])
    );
    assert_eq!(over["pending"], Value::Null);
    let two = edited("two.json", &|r| {
        r["setup"]["options"]["pilgrims.perPlayer"] = "2".into()
    });
    let two = replay(&two, &[]);
    assert_eq!(two["state"]["pilgrims.tokens"], serde_json::json!([1, 2]));
    assert_eq!(scores(&two), [5, 3]);
}
