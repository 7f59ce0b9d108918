//! The work dir of a run, where each case's input is written, and saving failing inputs.

use super::byte_mutation::input_bytes;
use super::config::Target;
use std::path::{Path, PathBuf};

pub(super) fn work_dir(target: Target) -> PathBuf {
    std::env::temp_dir()
        .join(format!("carcassonne-fuzz-{}", std::process::id()))
        .join(target.name())
}

pub(super) fn write_input(path: &Path, text: &str) {
    if let Some(d) = path.parent() {
        let _ = std::fs::create_dir_all(d);
    }
    let _ = std::fs::write(path, input_bytes(text));
}

pub(super) fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::create_dir_all(to);
    if let Ok(rd) = std::fs::read_dir(from) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_file() {
                let _ = std::fs::copy(&p, to.join(e.file_name()));
            }
        }
    }
}

/// Copies a failing input (file or folder) to the output folder; returns where.
pub(super) fn save_failure(out_dir: &Path, target: Target, seed: u64, input: &Path) -> PathBuf {
    let _ = std::fs::create_dir_all(out_dir);
    let stem = format!("{}-{seed:016x}", target.name());
    if input.is_dir() {
        let to = out_dir.join(&stem);
        let _ = std::fs::remove_dir_all(&to);
        copy_dir(input, &to);
        to
    } else {
        let ext = input
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        let to = out_dir.join(format!("{stem}{ext}"));
        let _ = std::fs::copy(input, &to);
        to
    }
}
