//! Rulesets cached by spec.

use carcassonne_core::Ruleset;
use carcassonne_rules::{build_ruleset, RulesSpec};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

pub(super) fn cached_ruleset(spec: &RulesSpec) -> Result<Arc<Ruleset>, String> {
    type Cache = Mutex<BTreeMap<String, Result<Arc<Ruleset>, String>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = format!("{spec:?}");
    let cache = CACHE.get_or_init(|| Mutex::new(BTreeMap::new()));
    if let Some(r) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return r.clone();
    }
    let r = build_ruleset(spec).map_err(|e| e.to_string());
    let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
    if c.len() > 512 {
        c.clear();
    }
    c.insert(key, r.clone());
    r
}
