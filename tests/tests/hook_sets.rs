//! Every official expansion declares the hooks it implements (`BoundExpansion::hook_set`),
//! so the engine calls it for nothing else and switches on no path for it (issues 33, 34):
//! a plugin without a hook set is taken to implement every hook, and one that implemented
//! `allows_overlay` would make core ask it for every neighbour's bridge while a player holds
//! one, and keep `View::placements_of` from remembering answers.

use carcassonne_core::HookSet;
use carcassonne_tests::official_rules;

/// The official expansions (the folders of `expansions/` holding a plugin).
const OFFICIAL: &[&str] = &[
    "abbey-mayor",
    "abbot-garden",
    "big-top",
    "bridges-castles-bazaars",
    "count",
    "heretics-shrines",
    "hills-sheep",
    "inns-cathedrals",
    "king-robber",
    "phantom",
    "princess-dragon",
    "river",
    "river2",
    "tower",
    "traders-builders",
];

/// Each official expansion alone declares a hook set, not `HookSet::ALL` (what the engine
/// assumes of a plugin that declares none, or whose `hook_set` panics).
#[test]
fn every_official_expansion_declares_its_hooks() {
    for id in OFFICIAL {
        let rules = official_rules(&[id], &[]);
        let sets = rules.hook_sets();
        assert_eq!(sets.len(), 1, "{id}: one expansion loaded");
        assert_ne!(sets[0], HookSet::ALL, "{id} declares no hook set");
    }
}

/// River II with Bridges, Castles & Bazaars (BCB-7's bridges amend placements): nobody
/// vets overlays, so core never asks `allows_overlay` for a neighbour's bridge. River II
/// implements exactly its river hooks (RV-1 … RV-10: `start_game`/`prepare_game` and the
/// placement filter); BCB its own. Also with each of River II's option sets that change
/// its hooks (`riverSetup=mixed`: no placement filter; `volcanoExtraTile`: `on_turn_end`).
#[test]
fn river2_with_bridges_has_no_overlay_vetter() {
    for options in [
        &[][..],
        &[("river2.volcanoExtraTile", "true")][..],
        &[("river2.riverSetup", "mixed")][..],
    ] {
        let rules = official_rules(&["river2", "bridges-castles-bazaars"], options);
        assert!(
            !rules.overlays().is_empty(),
            "BCB declares the bridge overlay"
        );
        assert_eq!(
            rules.hook_members(HookSet::ALLOWS_OVERLAY),
            0,
            "{options:?}: an expansion vets overlays"
        );
        let river = rules
            .expansions()
            .iter()
            .position(|e| e.id() == "river2")
            .expect("river2 loaded");
        let set = rules.hook_sets()[river];
        let mixed = options.iter().any(|(k, _)| *k == "river2.riverSetup");
        let volcano = options.iter().any(|(k, _)| *k == "river2.volcanoExtraTile");
        let mut want = HookSet::GAME_START;
        if !mixed {
            want = want | HookSet::FILTER_PLACEMENTS;
        }
        if volcano {
            want = want | HookSet::ON_TURN_END;
        }
        assert_eq!(set, want, "{options:?}: River II's hook set");
    }
}
