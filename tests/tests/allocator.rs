//! Host and plugins share one allocator (ARCHITECTURE.md, "host and plugins share one
//! allocator"): values allocated on one side of the plugin boundary are freed on the other,
//! which is sound only while every side uses Rust's default global allocator, the process's
//! `malloc`. No crate of the workspace may declare another.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_crate_declares_a_global_allocator() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["core", "host", "expansions", "tests"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "the workspace's sources were found");
    // The attribute spelled out in pieces, so this file does not match itself.
    let attr = ["#[", "global_", "allocator]"].concat();
    let offenders: Vec<_> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .map(|t| t.contains(&attr))
                .unwrap_or(false)
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "a global allocator would break the plugin boundary: {offenders:?}"
    );
}
