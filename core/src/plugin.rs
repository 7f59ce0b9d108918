//! The native plugin boundary: what a compiled expansion (`cdylib`) exports so that the
//! host can load it at run time.
//!
//! Rust has no stable ABI, so a plugin only works with a host built by the same compiler
//! against the same `carcassonne-core`. The plugin therefore exports one `#[repr(C)]`
//! [`PluginHeader`] under the symbol [`PLUGIN_SYMBOL`]; the host reads its magic bytes,
//! ABI number and [`ABI_FINGERPRINT`] *before* any Rust-level call, and only then calls
//! `create`, which hands back an `Arc<dyn Expansion>`.
//!
//! A panic must never unwind from the plugin's copy of std into the host's: the
//! [`export_expansion!`] macro builds the expansion under `catch_unwind` and wraps it in a
//! [`PanicGuard`], compiled into the plugin, that turns a panic in any hook into a
//! [`HookFailure`] naming the panic. Libraries are never unloaded (see ARCHITECTURE.md).

use crate::action::Action;
use crate::declare::{Binder, Binding, Declare};
use crate::hooks::{BoundExpansion, Expansion, HookFailure, HookResult, HookSet, ScoreDraft};
use crate::prompt::Prompt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// First bytes of every plugin header.
pub const PLUGIN_MAGIC: [u8; 8] = *b"CARCEXP\0";

/// Version of the header layout itself.
pub const PLUGIN_ABI: u32 = 1;

/// Name of the exported header symbol (NUL-terminated for the loader).
pub const PLUGIN_SYMBOL: &[u8] = b"CARCASSONNE_EXPANSION\0";

const fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

const fn fnv_layout<T>(h: u64) -> u64 {
    let h = fnv(h, &(std::mem::size_of::<T>() as u64).to_le_bytes());
    fnv(h, &(std::mem::align_of::<T>() as u64).to_le_bytes())
}

/// Hash of what host and plugin must share: the compiler (`rustc -vV`), core's version,
/// a hash of core's source (`build.rs`: any change to the boundary's code, a vtable
/// included, changes it), and the layout of the types that cross the boundary.
pub const ABI_FINGERPRINT: u64 = {
    let mut h = 0xcbf2_9ce4_8422_2325;
    h = fnv(h, env!("CARCASSONNE_RUSTC_VV").as_bytes());
    h = fnv(h, env!("CARGO_PKG_VERSION").as_bytes());
    h = fnv(h, env!("CARCASSONNE_CORE_SOURCE_HASH").as_bytes());
    h = fnv_layout::<PluginHeader>(h);
    h = fnv_layout::<PluginOutput>(h);
    h = fnv_layout::<Action>(h);
    h = fnv_layout::<crate::state::GameState>(h);
    h = fnv_layout::<crate::ruleset::Ruleset>(h);
    h = fnv_layout::<ScoreDraft>(h);
    h = fnv_layout::<Prompt>(h);
    h = fnv_layout::<crate::tile::TileSetData>(h);
    h = fnv_layout::<crate::kind::FeatureKindDef>(h);
    h = fnv_layout::<crate::figure::FigureKindDef>(h);
    h = fnv_layout::<crate::options::OptionDef>(h);
    fnv_layout::<HookFailure>(h)
};

/// A `&'static str` as pointer and length, readable across the boundary.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RawStr {
    /// First byte.
    pub ptr: *const u8,
    /// Length in bytes.
    pub len: usize,
}

impl RawStr {
    /// Wraps a static string.
    pub const fn new(s: &'static str) -> RawStr {
        RawStr {
            ptr: s.as_ptr(),
            len: s.len(),
        }
    }

    /// The string, if it is valid UTF-8.
    ///
    /// # Safety
    /// `ptr` and `len` must describe readable memory that lives as long as the library.
    pub unsafe fn to_str(&self) -> Option<&'static str> {
        if self.ptr.is_null() {
            return None;
        }
        // SAFETY: guaranteed by the caller (the header of a loaded, never-unloaded library).
        let bytes = unsafe { std::slice::from_raw_parts(self.ptr, self.len) };
        std::str::from_utf8(bytes).ok()
    }
}

/// Where `create` writes the expansion (only used after the fingerprint matched, so its
/// Rust layout is shared).
pub struct PluginOutput {
    /// The expansion, or why it could not be made (a panic message).
    pub result: Result<Arc<dyn Expansion>, String>,
}

impl Default for PluginOutput {
    fn default() -> Self {
        PluginOutput {
            result: Err("the plugin did not create its expansion".into()),
        }
    }
}

/// The header a plugin exports under [`PLUGIN_SYMBOL`]. Field order is the contract:
/// `magic` first, so a foreign library is recognised before anything else is read.
#[repr(C)]
pub struct PluginHeader {
    /// [`PLUGIN_MAGIC`].
    pub magic: [u8; 8],
    /// [`PLUGIN_ABI`].
    pub abi: u32,
    /// [`ABI_FINGERPRINT`] of the core the plugin was built against.
    pub fingerprint: u64,
    /// Expansion id.
    pub id: RawStr,
    /// Expansion version.
    pub version: RawStr,
    /// Makes the expansion; never unwinds.
    pub create: unsafe extern "C" fn(out: *mut PluginOutput),
}

// SAFETY: the header is immutable static data; the pointers in it point to static strings.
unsafe impl Sync for PluginHeader {}

/// Builds an expansion under `catch_unwind` and wraps it in a [`PanicGuard`]. Used by
/// [`export_expansion!`]; runs inside the plugin.
pub fn guarded<E: Expansion + 'static>(
    version: &'static str,
    make: impl FnOnce() -> E,
) -> Result<Arc<dyn Expansion>, String> {
    match catch_unwind(AssertUnwindSafe(make)) {
        Ok(e) => Ok(Arc::new(PanicGuard::new(e).with_version(version))),
        Err(p) => Err(format!(
            "panicked while creating the expansion: {}",
            panic_text(&*p)
        )),
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-text panic payload".into())
}

/// Exports an expansion from a `cdylib`: `export_expansion!("my-id", MyExpansion::new());`
#[macro_export]
macro_rules! export_expansion {
    ($id:expr, $make:expr) => {
        /// The plugin header read by the host.
        #[no_mangle]
        pub static CARCASSONNE_EXPANSION: $crate::plugin::PluginHeader =
            $crate::plugin::PluginHeader {
                magic: $crate::plugin::PLUGIN_MAGIC,
                abi: $crate::plugin::PLUGIN_ABI,
                fingerprint: $crate::plugin::ABI_FINGERPRINT,
                id: $crate::plugin::RawStr::new($id),
                version: $crate::plugin::RawStr::new(env!("CARGO_PKG_VERSION")),
                create: __carcassonne_create_expansion,
            };

        unsafe extern "C" fn __carcassonne_create_expansion(
            out: *mut $crate::plugin::PluginOutput,
        ) {
            let made = $crate::plugin::guarded(env!("CARGO_PKG_VERSION"), || $make);
            // SAFETY: the host passes a valid PluginOutput, and only after the fingerprint
            // check proved both sides share its layout.
            unsafe { (*out).result = made };
        }
    };
}

/// Runs the wrapped expansion's `declare` under `catch_unwind`, and wraps what it makes
/// (its [`Binder`], then its [`BoundExpansion`]) so that a panic in bind or in any hook
/// becomes a [`HookFailure`] instead of unwinding across the plugin boundary. A panic
/// fails the call it happened in, in that game only: the guards keep no state.
pub struct PanicGuard<E> {
    inner: E,
    id: String,
    version: String,
}

impl<E: Expansion> PanicGuard<E> {
    /// Wraps an expansion.
    pub fn new(inner: E) -> PanicGuard<E> {
        let id = catch_unwind(AssertUnwindSafe(|| inner.id().to_string()))
            .unwrap_or_else(|_| "?".into());
        let version = catch_unwind(AssertUnwindSafe(|| inner.version().to_string()))
            .unwrap_or_else(|_| "0.0.0".into());
        PanicGuard { inner, id, version }
    }

    /// Reports `version` instead of the inner expansion's.
    pub fn with_version(mut self, version: &str) -> PanicGuard<E> {
        self.version = version.to_string();
        self
    }
}

impl<E: Expansion> Expansion for PanicGuard<E> {
    fn id(&self) -> &str {
        &self.id
    }

    fn version(&self) -> &str {
        &self.version
    }

    fn declare(&self, declare: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let inner = guard(|| self.inner.declare(declare))?;
        Ok(Box::new(GuardedBinder { inner }))
    }
}

#[inline(always)]
pub(crate) fn guard<T>(f: impl FnOnce() -> HookResult<T>) -> HookResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(panicked(p)),
    }
}

/// The failure a panic becomes. Out of line, so that every hook's guard (one per hook in
/// every plugin, each run at every call) keeps only the call and its landing pad: the
/// error text, and the payload's drop, are code no game runs.
#[cold]
#[inline(never)]
fn panicked(p: Box<dyn std::any::Any + Send>) -> HookFailure {
    HookFailure(format!("panicked: {}", panic_text(&*p)))
}

/// A plugin's binder, bound under `catch_unwind` ([`Binder::bind_guarded`]).
struct GuardedBinder {
    inner: Box<dyn Binder>,
}

impl Binder for GuardedBinder {
    fn bind(self: Box<Self>, b: &Binding<'_>) -> HookResult<Box<dyn BoundExpansion>> {
        self.inner.bind_guarded(b)
    }

    /// Binding it is guarding it already. (The default would wrap a box again, and compile
    /// a second guard of every hook, one that no plugin's binder uses, into every plugin.)
    fn bind_guarded(self: Box<Self>, b: &Binding<'_>) -> HookResult<Box<dyn BoundExpansion>> {
        self.bind(b)
    }
}

/// A plugin's bound hooks `B`, each run under `catch_unwind` (the forwarding of every hook
/// is generated from the hook table in `hooks.rs`). Generic over the bound type, so that a
/// hook is one indirect call (the engine's, to the guard) with the expansion's hook called
/// directly inside it: [`crate::binder`] makes the guard of its concrete type. A binder
/// that hands back a box gets `GuardedHooks<Box<dyn BoundExpansion>>`, whose forwarding
/// calls through the box.
pub struct GuardedHooks<B> {
    inner: B,
}

impl<B: BoundExpansion> GuardedHooks<B> {
    /// Guards `inner`.
    pub(crate) fn new(inner: B) -> GuardedHooks<B> {
        GuardedHooks { inner }
    }

    /// `hook_set()` of the inner expansion; a panic there means "all hooks".
    pub(crate) fn guarded_hook_set(&self) -> HookSet {
        catch_unwind(AssertUnwindSafe(|| self.inner.hook_set())).unwrap_or(HookSet::ALL)
    }

    /// `hook_gates()` of the inner expansion; a panic there means "no gate" (every hook
    /// of the set is called).
    pub(crate) fn guarded_hook_gates(&self) -> Vec<crate::hooks::HookGate> {
        catch_unwind(AssertUnwindSafe(|| self.inner.hook_gates())).unwrap_or_default()
    }

    /// `hooks_once_supply_empty()` of the inner expansion; a panic there means "none"
    /// (every hook of the set is called).
    pub(crate) fn guarded_hooks_once_supply_empty(&self) -> HookSet {
        catch_unwind(AssertUnwindSafe(|| self.inner.hooks_once_supply_empty()))
            .unwrap_or(HookSet::NONE)
    }

    /// `hooks_while_holes()` of the inner expansion; a panic there means "none" (every hook
    /// of the set is called).
    pub(crate) fn guarded_hooks_while_holes(&self) -> HookSet {
        catch_unwind(AssertUnwindSafe(|| self.inner.hooks_while_holes())).unwrap_or(HookSet::NONE)
    }

    /// `figure_gates()` of the inner expansion; a panic there means "no gate".
    pub(crate) fn guarded_figure_gates(&self) -> Vec<crate::hooks::FigureGate> {
        catch_unwind(AssertUnwindSafe(|| self.inner.figure_gates())).unwrap_or_default()
    }

    /// Runs one hook of the inner expansion; a panic becomes its failure.
    #[inline(always)]
    pub(crate) fn run<T>(&self, f: impl FnOnce(&B) -> HookResult<T>) -> HookResult<T> {
        guard(|| f(&self.inner))
    }
}

/// One hook's forwarding in [`GuardedHooks`] (the hook table in `hooks.rs` expands it once
/// per hook). The hooks a game calls every turn go to one section of their own in each
/// plugin, `.text.carcassonne_plugin_hot` (the host's per-turn code has its own,
/// `.text.carcassonne_hot`): a plugin whose hook is inlined into its forwarding keeps the
/// code of its turns together instead of between set-up and rare code. The ones called
/// once a game or never in play (set-up, settings, final scoring, descriptions) stay in
/// `.text`.
macro_rules! guarded_forward {
    (@cold $name:ident ($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        fn $name(&self $(, $arg: $ty)*) -> $ret {
            self.run(|e| e.$name($($arg),*))
        }
    };
    (prepare_game $($rest:tt)*) => { $crate::plugin::guarded_forward! { @cold prepare_game $($rest)* } };
    (start_game $($rest:tt)*) => { $crate::plugin::guarded_forward! { @cold start_game $($rest)* } };
    (apply_setting $($rest:tt)*) => { $crate::plugin::guarded_forward! { @cold apply_setting $($rest)* } };
    (filters_tile $($rest:tt)*) => { $crate::plugin::guarded_forward! { @cold filters_tile $($rest)* } };
    (final_scoring $($rest:tt)*) => { $crate::plugin::guarded_forward! { @cold final_scoring $($rest)* } };
    (explain_refusal $($rest:tt)*) => { $crate::plugin::guarded_forward! { @cold explain_refusal $($rest)* } };
    (describe $($rest:tt)*) => { $crate::plugin::guarded_forward! { @cold describe $($rest)* } };
    ($name:ident ($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
        fn $name(&self $(, $arg: $ty)*) -> $ret {
            self.run(|e| e.$name($($arg),*))
        }
    };
}
pub(crate) use guarded_forward;
