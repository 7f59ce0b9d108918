//! A library without the plugin header.

/// Something exported, but not a plugin.
#[no_mangle]
pub extern "C" fn fixture_answer() -> i32 {
    42
}
