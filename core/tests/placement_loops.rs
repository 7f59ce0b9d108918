//! The base game's hot loops against plain computations from the public state, at every
//! step of seeded random games: the legal placements of every tile kind (the plain edge
//! match, written for few instructions a cell) against "every frontier cell, every rotation
//! whose edge code matches its neighbours", and the deployments on every placed tile for
//! every player (the offers written branch-free from a supply row read once) against a
//! walk of its segments; with farmers on and off.

mod common;
#[path = "rules/deployments.rs"]
mod rules_oracle;

use carcassonne_core::*;
use std::sync::Arc;

/// The legal cells of `tile`, computed cell by cell from the frontier (A-2: every
/// constrained edge matches), in frontier order, and their (cell, rotation) count.
fn plain_placements(
    rules: &Ruleset,
    st: &GameState,
    tile: TileKindId,
) -> (Vec<PlacementCell>, usize) {
    let tk = rules.tiles().get(tile);
    let mut cells = Vec::new();
    let mut count = 0;
    for f in st.board().frontier() {
        let mut rotations = 0u8;
        if tk.barrier {
            // Only into a hole, unturned.
            if f.mask == u32::MAX {
                rotations = 1;
                count += 1;
            }
        }
        for r in Rotation::ALL.into_iter().filter(|_| !tk.barrier) {
            if tk.edge_code(r) & f.mask == f.want {
                rotations |= 1 << r.quarters();
                count += 1;
            }
        }
        if rotations != 0 {
            cells.push(PlacementCell {
                pos: f.pos,
                rotations,
            });
        }
    }
    (cells, count)
}

fn check_games(rules: &Arc<Ruleset>, players: &[&str], games: u64) -> (usize, usize) {
    let (mut cells, mut offers) = (0, 0);
    let mut fast = Vec::new();
    let mut deploy = Vec::new();
    common::play_random(rules, players, games, |g, at| {
        let st = g.state();
        for i in 0..rules.tiles().len() {
            let tile = TileKindId(i as u16);
            let n = g.placement_cells_for(tile, &mut fast).expect("no hooks");
            let (plain, count) = plain_placements(rules, st, tile);
            assert_eq!((n, &fast), (count, &plain), "{at}: tile {i}");
            cells += plain.len();
        }
        let view = View { rules, state: st };
        for p in 0..players.len() {
            let player = PlayerId(p as u8);
            for t in st.board().tiles() {
                // A stale offer beyond the length must not show: start from a full buffer.
                deploy.clear();
                deploy.extend(std::iter::repeat_n(Action::Pass, 3));
                deploy.clear();
                view.deployments_on_tile(player, t.pos, &mut deploy);
                assert_eq!(
                    deploy,
                    rules_oracle::deployments_by_the_rule(rules, st, player, t.pos),
                    "{at}: player {p}, tile at {}",
                    t.pos
                );
                offers += deploy.len();
            }
        }
    });
    (cells, offers)
}

/// Placements and deployments of seeded base games (2 and 3 players) as the plain
/// computations give them.
#[test]
fn placements_and_deployments_match_plain_computations() {
    let rules = common::rules();
    let (cells, offers) = check_games(&rules, &["A", "B"], 6);
    let (cells3, offers3) = check_games(&rules, &["A", "B", "C"], 3);
    assert!(cells + cells3 > 100_000, "{cells} cells");
    assert!(offers + offers3 > 10_000, "{offers} offers");
}

/// The same without farmers (no field is offered), the barrier of a hole-only tile
/// included (an abbey-like kind).
#[test]
fn without_farmers_and_with_a_barrier_kind() {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).expect("base tiles parse");
    let abbey: TileSetData = toml::from_str(
        "schema = 1\nset = \"abbey-test\"\n[[tile]]\nid = \"T/A\"\ncount = 4\n\
         edges = \"XXXX\"\nfeatures = [{ kind = \"cloister\" }]\n",
    )
    .expect("the set parses");
    let rules = Arc::new(
        Ruleset::builder()
            .tiles(base)
            .tiles(abbey)
            .option("farmers", OptionValue::Bool(false))
            .build()
            .expect("the ruleset"),
    );
    assert!(!rules.base().farmers);
    let (cells, offers) = check_games(&rules, &["A", "B"], 4);
    assert!(
        cells > 10_000 && offers > 10_000,
        "{cells} cells, {offers} offers"
    );
}
