//! Finding expansions: manifest folders and the plugin libraries they name.
//!
//! Manifests (native and script alike) are searched, in this order, in every
//! `--plugin-dir` / `--expansion-dir`, in every folder of the `CARCASSONNE_PLUGIN_PATH` and
//! `CARCASSONNE_EXPANSION_PATH` environment variables (path lists), in `./expansions` and
//! `./fan-expansions`, and in the `expansions/` and `fan-expansions/` folders of the source
//! tree the running binary was built in (`<target>/<profile>/../..`), which is what makes a
//! fresh build work with no flag. The first manifest found for an id wins. A folder holds either an `expansion.toml` itself or sub-folders that do; they are
//! read in name order. A native manifest's `library` is looked up beside the manifest, then
//! beside the executable (where cargo puts the built `cdylib`s); whatever has the name beside
//! the manifest is used, so a directory or damaged file there is an error, never a silent
//! switch to the other copy. Manifests are read with `carcassonne_files::fsio::read_text`
//! (regular files of at most `MANIFEST_LIMIT`).
//!
//! This module is the bottom of the crate: it uses neither building nor listing.

use crate::RulesError;
use carcassonne_files::fsio::{read_text, MANIFEST_LIMIT};
use carcassonne_files::manifest::{parse_manifest, Manifest};
use std::path::{Path, PathBuf};

/// Environment variable with extra manifest folders.
pub const PLUGIN_PATH_VAR: &str = "CARCASSONNE_PLUGIN_PATH";
/// The same for fan expansions (both variables are searched for both kinds).
pub const EXPANSION_PATH_VAR: &str = "CARCASSONNE_EXPANSION_PATH";

/// The folders searched for manifests, in order, without duplicates.
pub fn search_dirs(extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = extra.to_vec();
    for var in [PLUGIN_PATH_VAR, EXPANSION_PATH_VAR] {
        if let Some(path) = std::env::var_os(var) {
            dirs.extend(std::env::split_paths(&path).filter(|p| !p.as_os_str().is_empty()));
        }
    }
    dirs.push(PathBuf::from("expansions"));
    dirs.push(PathBuf::from("fan-expansions"));
    if let Some(exe_dir) = exe_dir() {
        if let Some(root) = exe_dir.parent().and_then(Path::parent) {
            dirs.push(root.join("expansions"));
            dirs.push(root.join("fan-expansions"));
        }
    }
    let mut seen: Vec<PathBuf> = Vec::new();
    dirs.retain(|d| {
        let key = d.canonicalize().unwrap_or_else(|_| d.clone());
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
    dirs
}

/// The cargo output folder of the running binary (`target/<profile>`), also for test
/// binaries and examples, which cargo puts one level down (`deps/`, `examples/`).
fn exe_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    if dir
        .file_name()
        .is_some_and(|n| n == "deps" || n == "examples")
    {
        return dir.parent().map(Path::to_path_buf);
    }
    Some(dir.to_path_buf())
}

/// Reads every manifest in the search folders (missing folders are skipped).
pub fn discover(dirs: &[PathBuf]) -> Result<Vec<Manifest>, RulesError> {
    let mut out = Vec::new();
    for dir in dirs {
        let direct = dir.join("expansion.toml");
        let files: Vec<PathBuf> = if present(&direct) {
            vec![direct]
        } else {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut subs: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path().join("expansion.toml")))
                .filter(|p| present(p))
                .collect();
            subs.sort();
            subs
        };
        for f in files {
            let m = read_manifest(&f)?;
            // The first folder in search order wins for an id.
            if !out.iter().any(|o: &Manifest| o.id == m.id) {
                out.push(m);
            }
        }
    }
    Ok(out)
}

/// Reads and parses one manifest (refused past [`MANIFEST_LIMIT`] or when not a regular
/// file, with its path).
pub fn read_manifest(path: &Path) -> Result<Manifest, RulesError> {
    let text = read_text(path, MANIFEST_LIMIT)?;
    Ok(parse_manifest(&text, path).map_err(carcassonne_files::FilesError::from)?)
}

/// Whether anything at all has this name: a regular file, but also a directory, a
/// device, a FIFO or a broken symbolic link, which are then refused with their path when
/// read (`read_text`) or loaded, as `expansions check` refuses them, instead of being
/// skipped in silence.
fn present(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Environment variable with extra folders searched for native plugin libraries (a path
/// list), after the manifest's own folder and before the executable's: what a program
/// that is not in the cargo output folder (the Python module) uses to find the built
/// plugins.
pub const LIBRARY_PATH_VAR: &str = "CARCASSONNE_LIBRARY_PATH";

/// Where the library of a native manifest is, if it exists: the first path that exists
/// beside the manifest, then in the folders of `CARCASSONNE_LIBRARY_PATH`, then beside the
/// executable. Anything of that name counts, a broken or looping symbolic link included,
/// so that a directory, a dangling link or a damaged file named like the library beside
/// the manifest is refused when it is loaded (see `carcassonne_plugins::plugin_file`)
/// instead of silently loading another copy from beside the program.
pub fn library_path(m: &Manifest) -> Option<PathBuf> {
    let name = carcassonne_plugins::library_filename(m.library.as_ref()?);
    let beside = m.path.parent().map(|d| d.join(&name));
    let listed: Vec<PathBuf> = std::env::var_os(LIBRARY_PATH_VAR)
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .map(|d| d.join(&name))
                .collect()
        })
        .unwrap_or_default();
    let built = exe_dir().map(|d| d.join(&name));
    beside
        .into_iter()
        .chain(listed)
        .chain(built)
        .find(|p| present(p))
}
