//! Records what a native plugin must share with the host, for the plugin ABI fingerprint
//! (`plugin::ABI_FINGERPRINT`): the compiler that builds core, and a hash of core's
//! source. Type sizes alone miss a changed `Expansion` vtable or a changed enum meaning, so
//! any change to core's source makes every plugin built before it a stale one.

use std::path::{Path, PathBuf};

/// FNV-1a, stable across compilers (unlike `DefaultHasher`).
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Every `.rs` file below `dir`, sorted, so the hash does not depend on directory order.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_else(|| "unknown rustc".into());
    println!(
        "cargo:rustc-env=CARCASSONNE_RUSTC_VV={}",
        version.trim().replace('\n', "; ")
    );
    let src = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut h = 0xcbf2_9ce4_8422_2325;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap_or(f);
        h = fnv(h, rel.to_string_lossy().as_bytes());
        // Line endings do not change the code: a checkout with CRLF builds the same plugin.
        let text = std::fs::read(f).unwrap_or_default();
        let text: Vec<u8> = text.into_iter().filter(|b| *b != b'\r').collect();
        h = fnv(h, &text);
    }
    println!("cargo:rustc-env=CARCASSONNE_CORE_SOURCE_HASH={h:016x}");
    println!("cargo:rerun-if-env-changed=RUSTC");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src");
}
