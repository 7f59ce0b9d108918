//! The file targets: records, JCZ saves and expansion folders, run as the program would.

use super::config::Target;
use super::corpus::{repo_root, Seed};
use super::play::{first_difference, play_random, random_options, random_setup, snapshot};
use super::report::Verdict;
use super::rng::Rng;
use super::ruleset_cache::cached_ruleset;
use super::work_dir::write_input;
use carcassonne_core::Game;
use carcassonne_play::record::Record;
use carcassonne_rules::{build_ruleset, RulesSpec};
use std::path::Path;
use std::sync::Arc;

/// Most actions replayed from one record or save (more than any real game has).
pub(super) const MAX_REPLAY: usize = 400;

pub(super) fn run_record(path: &Path, rng: &mut Rng) -> Result<Verdict, String> {
    let origin = path.display().to_string();
    let rec = match Record::load(path) {
        Ok(r) => r,
        Err(e) => return Ok(Verdict::Rejected("parse", e.to_string())),
    };
    // As `load_game` does (`replay FILE [--actions N]`), with the guide's example folder
    // as `--expansion-dir`.
    let limit = if rng.chance(1, 4) {
        Some(rng.below(rec.actions.len() + 3))
    } else {
        None
    };
    if let Some(n) = limit.filter(|n| *n > rec.actions.len()) {
        return Ok(Verdict::Rejected(
            "limit",
            format!("the record has {} actions, not {n}", rec.actions.len()),
        ));
    }
    let limit = Some(limit.unwrap_or(rec.actions.len()).min(MAX_REPLAY));
    let mut spec = rec.rules_spec();
    spec.plugin_dirs = vec![repo_root().join("docs").join("examples")];
    let rules = match cached_ruleset(&spec) {
        Ok(r) => r,
        Err(e) => return Ok(Verdict::Rejected("setup", e)),
    };
    let game = match rec.replay_with(&rules, &origin, limit) {
        Ok(g) => g,
        Err(e) => return Ok(Verdict::Rejected("replay", e.to_string())),
    };
    let _ = carcassonne_play::replay::replay_output(&game);
    if rng.chance(1, 6) {
        let _ = carcassonne_render::render_svg(&game, &Default::default());
    }
    Ok(Verdict::Accepted)
}

pub(super) fn run_jcz(
    path: &Path,
    rng: &mut Rng,
    mismatches: &mut Vec<String>,
) -> Result<Verdict, String> {
    let save = match carcassonne_jcz::save::JczSave::load(path) {
        Ok(s) => s,
        Err(e) => return Ok(Verdict::Rejected("parse", e.to_string())),
    };
    let limit = if rng.chance(1, 4) {
        Some(rng.below(save.replay.len() + 3))
    } else {
        None
    };
    if let Some(n) = limit.filter(|n| *n > save.replay.len()) {
        return Ok(Verdict::Rejected(
            "limit",
            format!("the save has {} messages, not {n}", save.replay.len()),
        ));
    }
    let limit = Some(limit.unwrap_or(save.replay.len()).min(MAX_REPLAY));
    let origin = path.display().to_string();
    let jg = match carcassonne_jcz::replay(&save, &origin, &[], limit) {
        Ok(g) => g,
        Err(e) => return Ok(Verdict::Rejected("replay", e.to_string())),
    };
    let _ = jg.output();
    if rng.chance(1, 6) {
        let _ = carcassonne_render::render_svg(&jg.game, &Default::default());
    }
    // `convert`: the save as our record, which must replay to the same game.
    let rec = match jg.to_record() {
        Ok(r) => r,
        Err(e) => return Ok(Verdict::Rejected("convert", e.to_string())),
    };
    match rec.replay_with(jg.game.rules(), "(converted)", None) {
        Ok(g) if snapshot(&g) == snapshot(&jg.game) => {}
        Ok(g) => mismatches.push(format!(
            "the converted record replays to another state, {}",
            first_difference(&snapshot(&g), &snapshot(&jg.game))
        )),
        Err(e) => mismatches.push(format!("the converted record does not replay: {e}")),
    }
    Ok(Verdict::Accepted)
}

/// The manifest id of an expansion folder.
pub(super) fn folder_id(dir: &Path) -> Option<String> {
    let path = dir.join("expansion.toml");
    let text = std::fs::read_to_string(&path).ok()?;
    carcassonne_files::manifest::parse_manifest(&text, &path)
        .ok()
        .map(|m| m.id)
}

/// A script expansion that only adds the base tile file under fuzz (the binary has no
/// other way to load a tile file).
pub(super) const TILES_WRAPPER: &str = r#"[expansion]
id = "fuzz-tiles"
name = "Fuzzed tiles"
version = "1.0.0"
api = "1.0"
kind = "script"
entry = "fuzz.rhai"

[assets]
tiles = ["tiles.toml"]
"#;

/// Writes the expansion folder of a manifest, tile file or script case into `dir` and
/// returns the id to request.
pub(super) fn write_folder(target: Target, seed: &Seed, text: &str, dir: &Path) -> String {
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::create_dir_all(dir);
    let Some(src) = &seed.dir else {
        // The base tile file, wrapped.
        write_input(&dir.join("expansion.toml"), TILES_WRAPPER);
        write_input(&dir.join("fuzz.rhai"), "fn setup() { }\n");
        write_input(&dir.join("tiles.toml"), text);
        return "fuzz-tiles".into();
    };
    if let Ok(rd) = std::fs::read_dir(src) {
        for e in rd.flatten() {
            let p = e.path();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if p.is_file()
                && (ext == "toml" || ext == "rhai")
                && p.file_name() != Some("Cargo.toml".as_ref())
            {
                let _ = std::fs::copy(&p, dir.join(e.file_name()));
            }
        }
    }
    write_input(&dir.join(&seed.file), text);
    let seed_id = folder_id(src).unwrap_or_default();
    if target == Target::Manifest {
        if let Ok(m) =
            carcassonne_files::manifest::parse_manifest(text, &dir.join("expansion.toml"))
        {
            return m.id;
        }
    }
    seed_id
}

pub(super) const NATIVE: [&str; 4] = ["count", "king-robber", "river2", "heretics-shrines"];
pub(super) fn run_folder(
    target: Target,
    dir: &Path,
    id: &str,
    rng: &mut Rng,
) -> Result<Verdict, String> {
    let mut expansions = vec![id.to_string()];
    if target != Target::Manifest && rng.chance(1, 3) {
        for n in NATIVE {
            if rng.chance(1, 3) && n != id {
                expansions.push(n.to_string());
            }
        }
    }
    let mut spec = RulesSpec {
        expansions,
        options: Vec::new(),
        plugin_dirs: vec![dir.to_path_buf(), repo_root().join("docs").join("examples")],
    };
    let mut rules = match build_ruleset(&spec) {
        Ok(r) => r,
        Err(e) => return Ok(Verdict::Rejected("setup", e.to_string())),
    };
    if rng.chance(1, 3) {
        spec.options = random_options(rng, &rules, true);
        rules = match build_ruleset(&spec) {
            Ok(r) => r,
            Err(e) => return Ok(Verdict::Rejected("options", e.to_string())),
        };
    }
    let setup = random_setup(rng, &rules);
    let mut game = match Game::new(Arc::clone(&rules), &setup) {
        Ok(g) => g,
        Err(e) => return Ok(Verdict::Rejected("new-game", e.to_string())),
    };
    let moves = match target {
        Target::Manifest => 40,
        _ => 120,
    };
    let v = play_random(&mut game, rng, moves)?;
    let _ = carcassonne_play::replay::replay_output(&game);
    Ok(v)
}
