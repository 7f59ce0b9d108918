//! Scripts see anchored virtual features: `figure_cell` and `segment_cell` give the cell a
//! virtual feature is anchored at (`SegmentNode::cell`; a castle of Bridges, Castles &
//! Bazaars), not `()`. The probe script `tests/scripts/cell-probe` records what they return
//! for a follower on a castle; its scenario makes the castle (docs/modding.md, the
//! reference's `figure_cell`).

use carcassonne_scenario::Harness;
use carcassonne_tests::expansions_dir;
use std::path::Path;

#[test]
fn scripts_see_a_castle_at_its_anchor_cell() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let h = Harness {
        plugin_dirs: vec![expansions_dir(), dir.clone()],
        extra: Vec::new(),
        always: Vec::new(),
    };
    let path = dir.join("cell-probe").join("T-cell-probe-1.toml");
    let cases = carcassonne_scenario::load_cases(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(!cases.is_empty());
    for c in &cases {
        if let Err(f) = h.run(&c.scenario) {
            panic!("{} [{}]: {f}", c.scenario.id, c.scenario.name);
        }
    }
}
