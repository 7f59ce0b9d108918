//! Exports the header symbol with the wrong bytes.

/// Not a plugin header.
#[no_mangle]
pub static CARCASSONNE_EXPANSION: [u8; 64] =
    *b"NOTAPLUGNOTAPLUGNOTAPLUGNOTAPLUGNOTAPLUGNOTAPLUGNOTAPLUGNOTAPLUG";
