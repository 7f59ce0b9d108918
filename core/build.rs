//! Records the compiler that builds core, for the plugin ABI fingerprint
//! (`plugin::ABI_FINGERPRINT`): a native expansion built by another compiler must be refused.

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
    println!("cargo:rerun-if-env-changed=RUSTC");
    println!("cargo:rerun-if-changed=build.rs");
}
