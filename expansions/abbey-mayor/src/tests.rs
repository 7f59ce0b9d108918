//! The crate linked directly (no plugin loading): seeded random games, each barn and abbey
//! offer checked against the rule read the general way (the barn's four tiles a corner
//! read one by one; the abbey's places from core's placement search). Debug builds also
//! compare the barn's corners, the abbey's holes and the wagon's targets with their
//! general paths at every call (`cargo test -p carcassonne-abbey-mayor` without
//! `--release`).

use crate::{AbbeyMayor, AmPrompt, ABBEY_TILE};
use carcassonne_core::{
    Action, CustomAction, DecisionKind, FigureLoc, Game, GameSetup, HalfEdge, PlacedTile,
    PlacementCell, Pos, Rotation, Ruleset, View,
};
use std::path::Path;
use std::sync::Arc;

/// The base game with Abbey & Mayor as the host loads it, the crate's code linked in.
fn rules(options: &[(&str, &str)]) -> Arc<Ruleset> {
    let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/expansion.toml"));
    carcassonne_rules::linked_ruleset(manifest, Arc::new(AbbeyMayor::new()), options).unwrap()
}

/// The local field segment covering both half-edges of corner `c` (0 NW … 3 SW) of `t`.
fn corner_field(view: &View<'_>, t: &PlacedTile, c: usize) -> Option<u8> {
    const HALVES: [(u8, u8); 4] = [(7, 0), (1, 2), (3, 4), (5, 6)];
    let kind = view.rules.tiles().get(t.kind);
    let (a, b) = HALVES[c];
    let sa = kind.segment_on_half(t.rotation, HalfEdge::from_index(a))?;
    let sb = kind.segment_on_half(t.rotation, HalfEdge::from_index(b))?;
    (sa == sb && !kind.barrier).then_some(sa)
}

/// AM-20, AM-21 read tile by tile: the barn offers of the deployment step after `t` was
/// placed, in corner order (a barn's farm takes a second barn only if `occupied`, AM-21).
fn barn_offers(view: &View<'_>, t: &PlacedTile, verb: CustomAction, occupied: bool) -> Vec<Action> {
    // The four tiles at each corner: offset and their corner there.
    const TILES: [[(i32, i32, usize); 4]; 4] = [
        [(0, 0, 0), (-1, 0, 1), (-1, -1, 2), (0, -1, 3)],
        [(0, 0, 1), (1, 0, 0), (1, -1, 3), (0, -1, 2)],
        [(0, 0, 2), (1, 0, 3), (1, 1, 0), (0, 1, 1)],
        [(0, 0, 3), (-1, 0, 2), (-1, 1, 1), (0, 1, 0)],
    ];
    let g = view.state.graph();
    let barn = view
        .rules
        .figure_kinds()
        .iter()
        .position(|k| k.name == "barn");
    let mut out = Vec::new();
    for (c, tiles) in TILES.iter().enumerate() {
        let fits = tiles.iter().all(|&(dx, dy, cc)| {
            let p = Pos::new(t.pos.x + dx, t.pos.y + dy);
            view.state
                .board()
                .at(p)
                .is_some_and(|n| corner_field(view, n, cc).is_some())
        });
        if !fits {
            continue;
        }
        let seg = t.segment(usize::from(corner_field(view, t, c).unwrap()));
        let farm = g.feature_of(seg);
        let barn_there = view.state.figures().iter().any(|f| {
            Some(usize::from(f.kind.0)) == barn
                && matches!(f.loc, FigureLoc::On(s) if g.feature_of(s) == farm)
        });
        if occupied || !barn_there {
            out.push(Action::Custom(CustomAction {
                segment: Some(seg),
                value: c as i32,
                ..verb
            }));
        }
    }
    out
}

/// Plays seeded random games; at each deployment step and abbey prompt, the offers are
/// checked. Returns the barn offers, abbey places and wagon prompts seen.
fn play(
    rules: &Arc<Ruleset>,
    players: usize,
    seeds: std::ops::Range<u64>,
    occupied: bool,
) -> (usize, usize, usize) {
    let me = rules.expansion_index("abbey-mayor").unwrap();
    let verb = CustomAction {
        expansion: me,
        verb: rules.verb_named(me, "barn").unwrap(),
        figure: None,
        segment: None,
        value: 0,
    };
    let abbey = rules.tiles().find(ABBEY_TILE).unwrap();
    let (mut barns, mut places, mut wagons) = (0, 0, 0);
    for seed in seeds {
        let names = (0..players).map(|i| format!("P{i}")).collect();
        let mut g = Game::new(rules.clone(), &GameSetup::new(names, seed)).unwrap();
        let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        while !g.is_over() {
            let view = g.view();
            let actions = g.actions();
            match view.state.decision().kind {
                DecisionKind::Deploy { tile } => {
                    let t = view.state.board().tile(tile);
                    let offered: Vec<Action> = actions
                        .iter()
                        .filter(|a| matches!(a, Action::Custom(c) if c.verb == verb.verb))
                        .copied()
                        .collect();
                    let holds = view
                        .state
                        .in_supply(view.state.decision().player, barn_kind(rules))
                        > 0;
                    let want = if holds {
                        barn_offers(&view, t, verb, occupied)
                    } else {
                        Vec::new()
                    };
                    assert_eq!(offered, want, "seed {seed}: the barn offers at {:?}", t.pos);
                    barns += offered.len();
                }
                DecisionKind::Prompt(p) if p.owner == me => {
                    if let Ok(AmPrompt::Wagon { .. }) = p.decode::<AmPrompt>() {
                        wagons += 1;
                    }
                    if let Ok(AmPrompt::Abbey) = p.decode::<AmPrompt>() {
                        let mut cells: Vec<PlacementCell> = Vec::new();
                        view.placements_of(abbey, &mut cells).unwrap();
                        let mut want: Vec<Action> = cells
                            .iter()
                            .flat_map(|c| {
                                (0..4u8).filter(|q| c.rotations >> q & 1 != 0).map(|q| {
                                    Action::Place {
                                        pos: c.pos,
                                        rotation: Rotation::quarter_turns(q),
                                    }
                                })
                            })
                            .collect();
                        if !want.is_empty() {
                            want.push(Action::Pass);
                        }
                        assert_eq!(actions, &want[..], "seed {seed}: the abbey's places");
                        places += want.len().saturating_sub(1);
                    }
                }
                _ => {}
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let i = (rng % actions.len() as u64) as usize;
            g.play_offered(i).unwrap();
        }
    }
    (barns, places, wagons)
}

fn barn_kind(rules: &Ruleset) -> carcassonne_core::FigureKindId {
    let i = rules
        .figure_kinds()
        .iter()
        .position(|k| k.name == "barn")
        .unwrap();
    carcassonne_core::FigureKindId(i as u8)
}

#[test]
fn barn_and_abbey_offers_match_the_rule_read_the_general_way() {
    for (players, options) in [
        (2, &[][..]),
        (3, &[("wagonMove", "C2")][..]),
        (4, &[("barnPlacement", "occupied")][..]),
    ] {
        let occupied = options.contains(&("barnPlacement", "occupied"));
        let (barns, places, wagons) = play(&rules(options), players, 1..13, occupied);
        assert!(
            barns > 0 && places > 0 && wagons > 0,
            "{options:?}: barns {barns}, places {places}, wagon prompts {wagons}"
        );
    }
}
