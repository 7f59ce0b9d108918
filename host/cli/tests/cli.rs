//! The `carcassonne` binary end to end: simulate, record, replay, tiles, and clean failures.

mod common;
use common::Scratch;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_carcassonne"))
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("the carcassonne binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// Runs a command that must succeed and returns its stdout.
fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "carcassonne {} failed ({}):\n{}",
        args.join(" "),
        o.status,
        stderr(&o)
    );
    stdout(&o)
}

/// Runs a command that must succeed and parses its stdout as one JSON value.
fn ok_json(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| {
        panic!(
            "carcassonne {} printed no single JSON value ({e}):\n{out}",
            args.join(" ")
        )
    })
}

/// A failure must exit non-zero with exactly one stderr line `error: …`, no panic, no
/// backtrace, nothing on stdout. Returns that line.
fn fails_cleanly(args: &[&str]) -> String {
    let o = run(args);
    let err = stderr(&o);
    let what = format!("carcassonne {}", args.join(" "));
    assert!(!o.status.success(), "{what} succeeded:\n{}", stdout(&o));
    assert_eq!(o.status.code(), Some(1), "{what}: exit status {}", o.status);
    assert!(
        !err.contains("panicked") && !err.contains("backtrace") && !err.contains("RUST_BACKTRACE"),
        "{what} panicked:\n{err}"
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "{what}: expected one stderr line, got:\n{err}"
    );
    assert!(
        lines[0].starts_with("error: ") && lines[0].len() > "error: ".len() + 5,
        "{what}: stderr line does not start with `error:`: {err}"
    );
    assert!(stdout(&o).is_empty(), "{what} printed on stdout too");
    lines[0].to_string()
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

#[test]
fn simulate_json_summary_is_sane() {
    let s = ok_json(&["simulate", "--games", "50", "--json"]);
    assert_eq!(s["games"], 50, "{s}");
    assert_eq!(s["players"], 2, "{s}");
    assert!(s["score_mean"].as_f64().unwrap() > 0.0, "{s}");
    assert!(s["score_spread"].as_f64().unwrap() >= 0.0, "{s}");
    assert!(s["games_per_second"].as_f64().unwrap() > 0.0, "{s}");
    let counts = |key: &str| -> Vec<u64> {
        s[key]
            .as_array()
            .unwrap_or_else(|| panic!("`{key}` is an array: {s}"))
            .iter()
            .map(|w| w.as_u64().expect("a count"))
            .collect()
    };
    let (wins, ties_per_seat) = (counts("wins_per_seat"), counts("ties_per_seat"));
    assert_eq!((wins.len(), ties_per_seat.len()), (2, 2), "{s}");
    let ties = s["ties"].as_u64().expect("`ties` is a count");
    // Every game is won outright by one seat or has a shared first place, never both.
    assert_eq!(
        wins.iter().sum::<u64>() + ties,
        50,
        "outright wins + tied games = games: {s}"
    );
    // With 2 players a tie is shared by both seats.
    assert_eq!(ties_per_seat, vec![ties, ties], "{s}");
    let per_seat = f64s(&s["score_mean_per_seat"]);
    assert_eq!(per_seat.len(), 2);
    let mean = s["score_mean"].as_f64().unwrap();
    assert!(
        ((per_seat[0] + per_seat[1]) / 2.0 - mean).abs() < 0.02,
        "mean of seat means = score mean: {s}"
    );
    assert_eq!(s["bots"], serde_json::json!(["random", "random"]));
    let turns = s["turns_mean"].as_f64().unwrap();
    assert!(turns > 50.0 && turns <= 71.0, "71 tiles to place: {s}");
    // Base game: one tile a turn, on top of the start tile.
    let tiles = s["tiles_mean"].as_f64().unwrap();
    assert!(
        (tiles - turns - 1.0).abs() < 0.011,
        "tiles = turns + 1: {s}"
    );
}

#[test]
fn simulate_one_game_prints_final_scores() {
    let text = ok(&["simulate", "--games", "1", "--seed", "11"]);
    let scores: Vec<i64> = text
        .lines()
        .filter(|l| l.starts_with("P1 ") || l.starts_with("P2 "))
        .map(|l| {
            let mut w = l.split_whitespace();
            let _name = w.next();
            let n = w.next().expect("a score after the name");
            assert_eq!(w.next(), Some("points"), "line `{l}`");
            n.parse().unwrap_or_else(|_| panic!("score in `{l}`"))
        })
        .collect();
    assert_eq!(scores.len(), 2, "one score line per player:\n{text}");
    assert!(text.contains("winner"), "{text}");
    // The same game through --json gives the same scores.
    let s = ok_json(&["simulate", "--games", "1", "--seed", "11", "--json"]);
    let per_seat = f64s(&s["score_mean_per_seat"]);
    assert_eq!(
        per_seat,
        scores.iter().map(|x| *x as f64).collect::<Vec<_>>(),
        "text and JSON scores of one game:\n{text}"
    );
}

#[test]
fn simulate_is_deterministic() {
    let strip = |mut v: Value| {
        v.as_object_mut().unwrap().remove("games_per_second");
        v
    };
    let args = [
        "simulate",
        "--games",
        "30",
        "--seed",
        "1234",
        "--players",
        "3",
        "--json",
    ];
    let a = strip(ok_json(&args));
    let b = strip(ok_json(&args));
    assert_eq!(a, b, "same seed twice");
    // More threads: same games, same summary (apart from the thread count).
    let mut threaded: Vec<&str> = args.to_vec();
    threaded.extend(["--threads", "2"]);
    let mut c = strip(ok_json(&threaded));
    let mut a2 = a.clone();
    c.as_object_mut().unwrap().remove("threads");
    a2.as_object_mut().unwrap().remove("threads");
    assert_eq!(a2, c, "thread count changes the games");
    // `--threads 0`: one per core (at most one per game), the same games.
    let mut every: Vec<&str> = args.to_vec();
    every.extend(["--threads", "0"]);
    let mut e = strip(ok_json(&every));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(e["threads"], cores.min(30), "{e}");
    e.as_object_mut().unwrap().remove("threads");
    assert_eq!(a2, e, "every core plays the same games");
    // Another seed gives other games.
    let mut other: Vec<&str> = args.to_vec();
    other[4] = "4321";
    let d = strip(ok_json(&other));
    assert_ne!(a["score_mean_per_seat"], d["score_mean_per_seat"]);
    // Greedy bots and options run too.
    let g = ok_json(&[
        "simulate",
        "--games",
        "2",
        "--bots",
        "greedy,random",
        "--option",
        "farmScoring=1st",
        "--option",
        "farmers=false",
        "--json",
    ]);
    assert_eq!(g["bots"], serde_json::json!(["greedy", "random"]));
    assert_eq!(g["games"], 2);
}

/// A shared first place is a tie, not a win for each tied seat: the summary's outright wins
/// and tied games add up to the games played, and both agree with the games' final scores.
#[test]
fn simulate_reports_ties_apart_from_wins() {
    let dir = Scratch::new("cli", "ties");
    let rec = dir.arg("records");
    let args = [
        "simulate",
        "--games",
        "60",
        "--seed",
        "5",
        "--players",
        "3",
        "--record",
        &rec,
    ];
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let s = ok_json(&with_json);
    // Recount from the recorded final scores.
    let (mut wins, mut ties_per_seat, mut ties) = (vec![0u64; 3], vec![0u64; 3], 0u64);
    for i in 0..60 {
        let text = std::fs::read_to_string(dir.path("records").join(format!("game-{i}.json")))
            .expect("record written");
        let r: Value = serde_json::from_str(&text).expect("record is JSON");
        let result: Vec<i64> = r["result"]
            .as_array()
            .expect("result")
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        let max = *result.iter().max().unwrap();
        let first: Vec<usize> = (0..3).filter(|p| result[*p] == max).collect();
        if first.len() == 1 {
            wins[first[0]] += 1;
        } else {
            ties += 1;
            for p in first {
                ties_per_seat[p] += 1;
            }
        }
    }
    assert!(
        ties > 0,
        "seed 5 was chosen for a game with a shared first place: {s}"
    );
    assert_eq!(s["wins_per_seat"], serde_json::json!(wins), "{s}");
    assert_eq!(s["ties_per_seat"], serde_json::json!(ties_per_seat), "{s}");
    assert_eq!(s["ties"], ties, "{s}");
    assert_eq!(wins.iter().sum::<u64>() + ties, 60, "{s}");
    // The text summary shows the same counts.
    let text = ok(&args);
    for p in 0..3 {
        let line = format!(", wins {}, ties {}", wins[p], ties_per_seat[p]);
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("  seat {}: ", p + 1)) && l.ends_with(&line)),
            "seat {}: `{line}` missing in:\n{text}",
            p + 1
        );
    }
    assert!(
        text.contains(&format!(
            "  {} game(s) won outright, {ties} tied for first place",
            60 - ties
        )),
        "{text}"
    );
}

#[test]
fn bad_simulate_arguments_fail_cleanly() {
    let e = fails_cleanly(&["simulate", "--players", "7"]);
    assert!(e.contains("players"), "{e}");
    let e = fails_cleanly(&["simulate", "--players", "1"]);
    assert!(e.contains("players"), "{e}");
    let e = fails_cleanly(&["simulate", "--bots", "nope"]);
    assert!(e.contains("nope"), "{e}");
    let e = fails_cleanly(&["simulate", "--option", "farmScoring=9th"]);
    assert!(e.contains("farmScoring") && e.contains("9th"), "{e}");
    let e = fails_cleanly(&["simulate", "--option", "nope=1"]);
    assert!(e.contains("nope"), "{e}");
    let e = fails_cleanly(&["simulate", "--option", "farmScoring"]);
    assert!(e.contains("farmScoring"), "{e}");
    let e = fails_cleanly(&["simulate", "--expansions", "nope"]);
    assert!(e.contains("nope"), "{e}");
    fails_cleanly(&["simulate", "--games", "0"]);
}

/// Simulates 3 recorded games into `dir` and returns the parsed records.
fn record_three(dir: &Scratch, seed: &str) -> Vec<Value> {
    let rec = dir.arg("records");
    let s = ok_json(&[
        "simulate", "--games", "3", "--seed", seed, "--record", &rec, "--json",
    ]);
    assert_eq!(s["games"], 3);
    let mut names: Vec<String> = std::fs::read_dir(dir.path("records"))
        .expect("record dir exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["game-0.json", "game-1.json", "game-2.json"]);
    names
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(dir.path("records").join(n)).unwrap();
            serde_json::from_str(&text).expect("records are JSON")
        })
        .collect()
}

fn scores_of(replay: &Value) -> Vec<i64> {
    replay["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["score"].as_i64().unwrap())
        .collect()
}

#[test]
fn recorded_games_replay_to_the_same_scores() {
    let dir = Scratch::new("cli", "record");
    let records = record_three(&dir, "77");
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["format"], "carcassonne-record");
        let file = dir.path("records").join(format!("game-{i}.json"));
        let out = ok_json(&["replay", &file.display().to_string(), "--json"]);
        let obj = out.as_object().expect("one JSON object");
        let mut keys: Vec<&String> = obj.keys().collect();
        keys.sort();
        assert_eq!(keys, ["events", "finished", "pending", "players"], "{out}");
        assert_eq!(out["finished"], true);
        assert_eq!(out["pending"], Value::Null);
        let scores = scores_of(&out);
        let names: Vec<&str> = out["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["P1", "P2"]);
        // The recorded result is the simulated game's final score.
        let result: Vec<i64> = r["result"]
            .as_array()
            .expect("finished records carry the result")
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        assert_eq!(scores, result, "game {i}: replay vs simulated scores");
        // The events add up to the scores.
        let mut sum = vec![0i64; names.len()];
        for e in out["events"].as_array().unwrap() {
            let who = names
                .iter()
                .position(|n| *n == e["player"].as_str().unwrap())
                .expect("event player is a seat");
            let feature = e["feature"].as_str().unwrap();
            assert!(
                ["city", "road", "field", "cloister"].contains(&feature),
                "{e}"
            );
            sum[who] += e["points"].as_i64().unwrap();
        }
        assert_eq!(sum, scores, "game {i}: events add up to the scores");
    }
    // Game 0 of a 3-game run is the game of a 1-game run with the same base seed.
    let one = ok_json(&["simulate", "--games", "1", "--seed", "77", "--json"]);
    let out = ok_json(&["replay", &dir.arg("records/game-0.json"), "--json"]);
    assert_eq!(
        f64s(&one["score_mean_per_seat"]),
        scores_of(&out)
            .iter()
            .map(|s| *s as f64)
            .collect::<Vec<_>>()
    );
    // Text replay and a partial replay work too.
    let text = ok(&["replay", &dir.arg("records/game-0.json")]);
    assert!(text.contains("finished"), "{text}");
    let part = ok_json(&[
        "replay",
        &dir.arg("records/game-0.json"),
        "--actions",
        "5",
        "--json",
    ]);
    assert_eq!(part["finished"], false);
    let pending = &part["pending"];
    assert!(pending.is_object(), "{part}");
    assert!(pending["player"].is_string());
    assert!(pending["tile"].is_string());
    let placing = !pending["placements"].as_array().unwrap().is_empty();
    let deploying = !pending["deployments"].as_array().unwrap().is_empty();
    assert!(
        placing != deploying,
        "one kind of step at a time: {pending}"
    );
    assert_eq!(pending["can_pass"], !placing, "{pending}");
}

fn write_json(path: &Path, v: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

#[test]
fn bad_records_fail_cleanly() {
    let dir = Scratch::new("cli", "bad");
    let records = record_three(&dir, "5");
    let good = &records[0];

    // Malformed JSON.
    let path = dir.path("malformed.json");
    std::fs::write(
        &path,
        "{ \"format\": \"carcassonne-record\", \"version\": 1, ",
    )
    .unwrap();
    let e = fails_cleanly(&["replay", &path.display().to_string(), "--json"]);
    assert!(e.contains("malformed.json"), "names the file: {e}");
    assert!(e.contains("line"), "gives the position: {e}");

    // Not a record at all.
    let path = dir.path("other.json");
    std::fs::write(&path, "[1, 2, 3]").unwrap();
    fails_cleanly(&["replay", &path.display().to_string()]);

    // A changed seed: the tiles drawn differ from the recorded ones.
    let mut changed = good.clone();
    let seed = changed["setup"]["seed"].as_u64().unwrap();
    changed["setup"]["seed"] = Value::from(seed ^ 0x5555);
    let path = dir.path("seed.json");
    write_json(&path, &changed);
    let e = fails_cleanly(&["replay", &path.display().to_string(), "--json"]);
    assert!(e.contains("seed.json") && e.contains("action"), "{e}");

    // An illegal action: the first placement moved far away.
    let mut illegal = good.clone();
    let first = illegal["actions"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|a| a["type"] == "place")
        .expect("a placement");
    first["x"] = Value::from(40);
    first["y"] = Value::from(-40);
    let path = dir.path("illegal.json");
    write_json(&path, &illegal);
    let e = fails_cleanly(&["replay", &path.display().to_string(), "--json"]);
    assert!(e.contains("illegal.json") && e.contains("action 0"), "{e}");

    // An action by the wrong player.
    let mut wrong = good.clone();
    wrong["actions"][0]["player"] = Value::from(1);
    let path = dir.path("wrong-player.json");
    write_json(&path, &wrong);
    let e = fails_cleanly(&["replay", &path.display().to_string()]);
    assert!(e.contains("action 0"), "{e}");

    // An unknown option value in the setup.
    let mut opt = good.clone();
    opt["setup"]["options"]["farmScoring"] = Value::from("9th");
    let path = dir.path("option.json");
    write_json(&path, &opt);
    let e = fails_cleanly(&["replay", &path.display().to_string()]);
    assert!(e.contains("farmScoring"), "{e}");

    // A missing file.
    let e = fails_cleanly(&["replay", &dir.arg("missing.json"), "--json"]);
    assert!(e.contains("missing.json"), "{e}");
}

#[test]
fn tiles_lists_the_base_set() {
    let text = ok(&["tiles"]);
    let first = text.lines().next().unwrap_or("");
    assert!(
        first.contains("24 kinds") && first.contains("72 tiles"),
        "first line: {first}"
    );
    assert_eq!(text.lines().count(), 25, "a header and one line per kind");
    assert_eq!(text.matches("(start)").count(), 1);
    let list = ok_json(&["tiles", "--json"]);
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 24);
    let total: u64 = list.iter().map(|t| t["count"].as_u64().unwrap()).sum();
    assert_eq!(total, 72);
    let start: Vec<&Value> = list.iter().filter(|t| t["start"] == true).collect();
    assert_eq!(start.len(), 1);
    assert_eq!(start[0]["id"], "BA/RCr");
    assert_eq!(start[0]["edges"], "CRFR");
    let e = fails_cleanly(&["tiles", "--set", "nope"]);
    assert!(e.contains("nope"), "{e}");
}

/// Issue 19: `arena` rotates the seats, and its report adds up whatever the thread count.
#[test]
fn arena_report_is_consistent_and_thread_independent() {
    let args = |threads: &str| {
        ok_json(&[
            "arena",
            "--bots",
            "greedy,random",
            "--games",
            "40",
            "--seed",
            "3",
            "--threads",
            threads,
            "--json",
        ])
    };
    let one = args("1");
    assert_eq!(one, args("2"), "the report does not depend on the threads");
    assert_eq!(one["games"], 40);
    assert_eq!(one["seats_balanced"], true);
    let bots = one["bots"].as_array().expect("bots");
    assert_eq!(bots.len(), 2);
    for b in bots {
        assert_eq!(b["seats"], 40, "each bot plays one seat of each game");
        let [lo, hi] =
            [&b["win_rate_ci95"][0], &b["win_rate_ci95"][1]].map(|v| v.as_f64().unwrap());
        let rate = b["win_rate"].as_f64().unwrap();
        assert!(lo <= rate && rate <= hi, "the interval holds the rate: {b}");
    }
    let pair = &one["pairs"][0];
    let (aw, bw, d) = (
        pair["a_wins"].as_u64().unwrap(),
        pair["b_wins"].as_u64().unwrap(),
        pair["draws"].as_u64().unwrap(),
    );
    assert_eq!(aw + bw + d, 40);
    assert_eq!(
        aw,
        bots[0]["wins"].as_u64().unwrap(),
        "2 players: a pair win is a game win"
    );
    assert!(aw > bw, "greedy beats random: {pair}");
    assert!(pair["elo_diff"].as_f64().unwrap() > 0.0);
    // Margins are opposite in a 2-player game.
    assert_eq!(
        bots[0]["margin_mean"].as_f64().unwrap(),
        -bots[1]["margin_mean"].as_f64().unwrap()
    );
}

#[test]
fn arena_and_simulate_refuse_bad_bot_specs() {
    for (args, needle) in [
        (&["arena", "--bots", "greedy"][..], "at least two bots"),
        (&["arena", "--bots", "greedy,mcts:fast"][..], "`fast`"),
        (&["arena", "--bots", "greedy,mcts:0"][..], "`0`"),
        (&["arena", "--bots", "greedy,mcts:100:0t"][..], "`0t`"),
        (
            &["arena", "--bots", "greedy,random,random"][..],
            "at most as many bots",
        ),
        (&["simulate", "--bots", "greedy:3"][..], "takes no settings"),
        (&["simulate", "--bots", "alphago"][..], "unknown bot"),
    ] {
        let line = fails_cleanly(args);
        assert!(line.contains(needle), "{args:?}: {line}");
    }
}

/// `mcts` with a playout budget is reproducible: the same seed plays the same game, with
/// one search thread or two (each thread's share of the playouts is fixed).
#[test]
fn simulate_with_mcts_is_deterministic() {
    for bot in ["mcts:40,random", "mcts:40:2t,random"] {
        let args = [
            "simulate", "--games", "1", "--seed", "4", "--bots", bot, "--json",
        ];
        let a = ok_json(&args);
        let b = ok_json(&args);
        assert_eq!(a["score_mean_per_seat"], b["score_mean_per_seat"], "{bot}");
        assert_eq!(a["decisions_mean"], b["decisions_mean"], "{bot}");
    }
}

/// Issue 19: `balance` on a rigged expansion with a known effect (the fixture `head-start`
/// gives the first seat 10 points at the start and changes nothing else). The paired games
/// are otherwise identical — the greedy bot's choices compare margins, which the head
/// start shifts equally for every option — so the report's numbers are exact.
/// `balance` of the fixture `head-start` (the first seat starts with 10 points) with
/// these further arguments, its JSON report.
fn head_start_balance(args: &[&str]) -> serde_json::Value {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let mut all = vec![
        "balance",
        "--expansion",
        "head-start",
        "--plugin-dir",
        fixtures,
    ];
    all.extend_from_slice(args);
    ok_json(&all)
}

#[test]
fn balance_measures_a_known_effect() {
    let dir = Scratch::new("cli", "balance");
    let html = dir.dir().join("report.html");
    let r = head_start_balance(&[
        "--games",
        "60",
        "--bots",
        "greedy",
        "--seed",
        "2",
        "--threads",
        "2",
        "--json",
        "--html",
        html.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(r["games"], 60);
    let label = r["points_by_label"]
        .as_array()
        .expect("labels")
        .iter()
        .find(|l| l["label"] == "head-start")
        .expect("the head-start label is reported");
    assert_eq!(label["per_game_with"], 10.0);
    assert_eq!(label["per_game_without"], 0.0);
    // Same games otherwise: mean score +10 / 2 players, same length.
    assert_eq!(r["score_mean"]["difference"]["mean"], 5.0);
    assert_eq!(r["game_length"]["difference"]["mean"], 0.0);
    assert!(r["game_length"]["verdict"]
        .as_str()
        .unwrap()
        .contains("no effect detectable with 60 games"));
    let first = &r["first_player_advantage"];
    assert!(
        first["difference"]["mean"].as_f64().unwrap() > 0.0,
        "{first}"
    );
    assert!(
        first["verdict"].as_str().unwrap().contains("up by"),
        "{first}"
    );
    assert_eq!(r["actions"].as_array().expect("actions").len(), 0);
    let page = std::fs::read_to_string(&html).expect("the HTML report is written");
    assert!(
        page.starts_with("<!DOCTYPE html>") && page.contains("<svg"),
        "charts inline"
    );
    assert!(page.contains("head-start") && !page.contains("chart not drawn"));
    // Too few games: no verdict is drawn.
    let small = head_start_balance(&["--games", "5", "--bots", "random", "--json"]);
    assert!(small["summary"][0]
        .as_str()
        .unwrap()
        .contains("sample too small"));
}

/// Each arm of each pair is a job of its own, handed to whichever thread is free: the
/// report is gathered by index, so it is the same on any number of threads.
#[test]
fn balance_report_is_thread_independent() {
    let run = |threads: &str| {
        head_start_balance(&[
            "--games",
            "14",
            "--bots",
            "greedy,random",
            "--seed",
            "5",
            "--threads",
            threads,
            "--json",
        ])
    };
    let one = run("1");
    assert_eq!(one["games"], 14);
    assert_eq!(one["score_mean"]["difference"]["n"], 14);
    assert_eq!(one, run("2"), "two threads give the one thread's report");
    assert_eq!(one, run("5"), "five threads give the one thread's report");
    assert_eq!(one, run("0"), "every core gives the one thread's report");
}

#[test]
fn balance_refuses_the_expansion_in_its_own_base_set() {
    let line = fails_cleanly(&[
        "balance",
        "--expansion",
        "count",
        "--expansions",
        "count",
        "--games",
        "2",
    ]);
    assert!(line.contains("leave it out"), "{line}");
}
