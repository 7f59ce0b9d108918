//! A correct header whose fingerprint belongs to another build.

use carcassonne_core::plugin::{PluginHeader, PluginOutput, RawStr, PLUGIN_ABI, PLUGIN_MAGIC};

unsafe extern "C" fn create(_: *mut PluginOutput) {
    // Never called: the host must refuse the fingerprint first.
    std::process::abort();
}

/// The header, with a fingerprint no real build has.
#[no_mangle]
pub static CARCASSONNE_EXPANSION: PluginHeader = PluginHeader {
    magic: PLUGIN_MAGIC,
    abi: PLUGIN_ABI,
    fingerprint: 0x0123_4567_89ab_cdef,
    id: RawStr::new("fixture-old-fingerprint"),
    version: RawStr::new("0.0.1"),
    create,
};
