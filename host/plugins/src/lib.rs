//! # carcassonne-plugins
//!
//! Loading native expansions (`cdylib` plugins) with libloading: the only crate of the
//! workspace that depends on libloading, so the only one that opens a library or calls
//! into one.
//!
//! The loader reads the plugin's `#[repr(C)]` header and checks, in this order, the magic
//! bytes, the header ABI number and the build fingerprint, before making any Rust-level
//! call into the library (see `carcassonne_core::plugin`). Before that, the file itself is
//! checked ([`plugin_file`]): a directory, a non-library or a truncated library is
//! refused with an error instead of crashing the loader. Libraries are never unloaded:
//! hooks and the values they return must not outlive their code, and unloading with
//! thread-local destructors is unsound on several platforms.
//!
//! It must not know where plugins are searched for, manifests beyond a library's file name,
//! scripts, or any game file: it turns a path into an `Arc<dyn Expansion>` or a
//! [`PluginError`].

pub mod plugin_file;

use crate::plugin_file::LibraryFileError;
use carcassonne_core::plugin::{
    PluginHeader, PluginOutput, ABI_FINGERPRINT, PLUGIN_ABI, PLUGIN_MAGIC, PLUGIN_SYMBOL,
};
use carcassonne_core::Expansion;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The platform's file name of a library called `name` (`libname.so`, `name.dll`,
/// `libname.dylib`): what a native manifest's `library` names.
pub fn library_filename(name: &str) -> OsString {
    libloading::library_filename(name)
}

/// Why a plugin could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginError {
    /// The file is not a complete library: not a regular file, not a shared library, or
    /// truncated (checked before loading, see [`plugin_file`]).
    #[error("{path}: refusing to load the library: it {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong (`is truncated: …`).
        message: String,
    },
    /// The file could not be opened as a library.
    #[error("{path}: cannot load the library: {message}")]
    Open {
        /// The file.
        path: PathBuf,
        /// The loader's message.
        message: String,
    },
    /// The library exports no plugin header.
    #[error("{path}: not an expansion plugin (no `CARCASSONNE_EXPANSION` symbol)")]
    MissingSymbol {
        /// The file.
        path: PathBuf,
    },
    /// The header does not start with the magic bytes.
    #[error("{path}: not an expansion plugin (wrong magic bytes {found:02x?})")]
    BadMagic {
        /// The file.
        path: PathBuf,
        /// The bytes found.
        found: [u8; 8],
    },
    /// The header layout version differs.
    #[error("{path}: plugin header ABI {found}, this program reads ABI {expected}")]
    Abi {
        /// The file.
        path: PathBuf,
        /// The host's ABI.
        expected: u32,
        /// The plugin's.
        found: u32,
    },
    /// Built by another compiler or against another core.
    #[error("{path}: built for another engine build (plugin fingerprint {plugin:016x}, this program {host:016x}); rebuild the plugin with this program's toolchain and sources")]
    Fingerprint {
        /// The file.
        path: PathBuf,
        /// The host's fingerprint.
        host: u64,
        /// The plugin's.
        plugin: u64,
    },
    /// The header's id or version is not readable text.
    #[error("{path}: plugin header has an unreadable {field}")]
    Header {
        /// The file.
        path: PathBuf,
        /// Which field.
        field: &'static str,
    },
    /// The plugin failed (panicked) while creating its expansion.
    #[error("{path}: expansion `{id}` failed to start: {message}")]
    Create {
        /// The file.
        path: PathBuf,
        /// Expansion id from the header.
        id: String,
        /// What happened.
        message: String,
    },
}

/// A loaded native expansion.
#[derive(Clone)]
pub struct LoadedPlugin {
    /// Id from the header.
    pub id: String,
    /// Version from the header.
    pub version: String,
    /// The library file.
    pub path: PathBuf,
    /// The expansion (declare, bind and every hook are panic-guarded inside the plugin).
    /// It keeps nothing about any ruleset, so every ruleset shares this one value.
    pub expansion: Arc<dyn Expansion>,
}

impl std::fmt::Debug for LoadedPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedPlugin")
            .field("id", &self.id)
            .field("version", &self.version)
            .field("path", &self.path)
            .finish()
    }
}

/// Loads a plugin library and creates its expansion.
pub fn load_plugin(path: &Path) -> Result<LoadedPlugin, PluginError> {
    let path_buf = path.to_path_buf();
    // A truncated library would be mapped past its end and kill the process with SIGBUS
    // on first touch: its headers are checked against its size first.
    crate::plugin_file::check_library(path).map_err(|e| match e {
        LibraryFileError::Unreadable(message) => PluginError::Open {
            path: path_buf.clone(),
            message,
        },
        LibraryFileError::Refused(message) => PluginError::File {
            path: path_buf.clone(),
            message,
        },
    })?;
    // SAFETY: loading runs the library's initialisers; expansion plugins are trusted code
    // (unlike fan scripts, which are sandboxed). The library is leaked: never unloaded.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| PluginError::Open {
        path: path_buf.clone(),
        message: e.to_string(),
    })?;
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    // SAFETY: we only take the symbol's address here; nothing is read yet.
    let header: *const PluginHeader = unsafe { lib.get::<*const PluginHeader>(PLUGIN_SYMBOL) }
        .map(|s| *s)
        .map_err(|_| PluginError::MissingSymbol {
            path: path_buf.clone(),
        })?;
    // SAFETY: any exported data symbol has at least the 8 bytes we compare against; the
    // rest of the header is only read once the magic bytes proved it is ours.
    let magic: [u8; 8] = unsafe { std::ptr::read_unaligned(header as *const [u8; 8]) };
    if magic != PLUGIN_MAGIC {
        return Err(PluginError::BadMagic {
            path: path_buf,
            found: magic,
        });
    }
    // SAFETY: the magic identifies a PluginHeader, whose repr(C) layout is fixed per ABI.
    let header: &'static PluginHeader = unsafe { &*header };
    if header.abi != PLUGIN_ABI {
        return Err(PluginError::Abi {
            path: path_buf,
            expected: PLUGIN_ABI,
            found: header.abi,
        });
    }
    if header.fingerprint != ABI_FINGERPRINT {
        return Err(PluginError::Fingerprint {
            path: path_buf,
            host: ABI_FINGERPRINT,
            plugin: header.fingerprint,
        });
    }
    // SAFETY: same ABI and fingerprint: the strings are static data of the loaded library.
    let id = unsafe { header.id.to_str() }.ok_or(PluginError::Header {
        path: path_buf.clone(),
        field: "id",
    })?;
    let version = unsafe { header.version.to_str() }.ok_or(PluginError::Header {
        path: path_buf.clone(),
        field: "version",
    })?;
    let mut out = PluginOutput::default();
    // SAFETY: the fingerprint matched, so PluginOutput has the same layout on both sides;
    // `create` catches panics inside the plugin and never unwinds.
    unsafe { (header.create)(&mut out) };
    let expansion = out.result.map_err(|message| PluginError::Create {
        path: path_buf.clone(),
        id: id.to_string(),
        message,
    })?;
    Ok(LoadedPlugin {
        id: id.to_string(),
        version: version.to_string(),
        path: path_buf,
        expansion,
    })
}
