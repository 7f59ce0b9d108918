//! The script API's segment functions on tiles with an overlay: a bridge of Bridges, Castles
//! & Bazaars adds a road segment to a placed tile, and that node is not consecutive with the
//! tile's others (`PlacedTile::segment`, `PlacedTile::local_of`). The probe script
//! `tests/scripts/segment-probe` checks, at every placement of seeded random games with
//! bridges, that `segments_of_kind`, `open_features`, `segments_at`, `segment_has_tag` and
//! `joins_at` name segments of the kind asked and on the cell asked; it throws, failing the
//! game, otherwise. Before the fix, `segments_of_kind("road")` named a quarter of the Count
//! and a field of another tile once a bridge was laid (the mixed soak found it through the
//! Courier, who is put back by that function when the dragon eats him).

use carcassonne_core::{Game, GameSetup};
use carcassonne_play::bots::{make_bot, Bot};
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::expansions_dir;
use carcassonne_tests::mixed::slot;
use std::path::Path;
use std::sync::Arc;

#[test]
fn segment_functions_name_a_bridged_tiles_segments() {
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let rules = build_ruleset(&RulesSpec {
        expansions: vec![
            "bridges-castles-bazaars".into(),
            "count".into(),
            "segment-probe".into(),
        ],
        options: Vec::new(),
        plugin_dirs: vec![expansions_dir(), scripts],
    })
    .expect("ruleset");
    let checked = slot(&rules, "segment-probe", "checked");
    let bridges = rules
        .verbs()
        .iter()
        .filter(|(_, n)| n.starts_with("bridge-"))
        .count();
    assert_eq!(bridges, 2, "the bridge verbs");
    let (mut probed, mut laid) = (0, 0);
    for seed in 1..=12u64 {
        let players = 2 + (seed % 3) as usize;
        let setup = GameSetup::new((0..players).map(|p| format!("P{p}")).collect(), seed);
        let mut bot: Box<dyn Bot> = make_bot("random", seed * 31).expect("bot");
        let mut g = Game::new(Arc::clone(&rules), &setup).expect("game");
        while !g.is_over() {
            let i = bot.choose(&g);
            g.apply_offered(i)
                .unwrap_or_else(|e| panic!("seed {seed}, {players} players: {e}"));
        }
        probed += g.state().slot(checked, 0);
        // Bridges laid: tiles whose kind is a variant (a bridge on it).
        laid += g
            .state()
            .board()
            .tiles()
            .iter()
            .filter(|t| rules.tiles().get(t.kind).variant_of.is_some())
            .count();
    }
    assert!(laid > 10, "only {laid} bridges were laid");
    assert!(probed > 10_000, "the probe checked {probed} segments");
}
