//! Measures what the fixed action encoding must hold: over many random games, the largest
//! distance of a placed tile from the start tile (per axis), and the most actions of one
//! decision outside the fixed blocks, the largest figure kind, local segment and tile kind
//! index used. `cargo run --release -p carcassonne-encoding --example extent -- GAMES
//! THREADS SEED [EXPANSION ...]` (docs/python-api.md, "Window").

use carcassonne_core::{Action, Game, GameSetup};
use carcassonne_encoding::{encode_actions, is_other, slot_of, Slot};
use carcassonne_play::simulate::game_seed;
use carcassonne_rules::{build_ruleset, RulesSpec};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

#[derive(Default, Clone, Debug)]
struct Max {
    games: u64,
    x: i32,
    y: i32,
    cheb: i32,
    other: usize,
    figure: u8,
    local: u8,
    tile: u16,
    actions: usize,
    over_half: Vec<u64>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let threads: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let expansions: Vec<String> = args.iter().skip(3).cloned().collect();
    let rules = build_ruleset(&RulesSpec {
        expansions: expansions.clone(),
        ..RulesSpec::default()
    })
    .expect("ruleset");
    let results: Vec<Max> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let rules = Arc::clone(&rules);
                s.spawn(move || {
                    let mut m = Max {
                        over_half: vec![0; 256],
                        ..Max::default()
                    };
                    let mut ids = Vec::new();
                    let mut i = t;
                    while i < games {
                        let gs = game_seed(seed, i);
                        let mut g = Game::new(
                            Arc::clone(&rules),
                            &GameSetup::new(vec!["a".into(), "b".into()], gs),
                        )
                        .expect("game");
                        g.set_checkpoints(false);
                        let mut rng = ChaCha8Rng::seed_from_u64(gs ^ 0x5eed);
                        let mut cheb = 0;
                        while !g.is_over() {
                            m.actions = m.actions.max(g.action_count());
                            // Placements outside any window are counted, not refused.
                            let other = g
                                .actions()
                                .iter()
                                .filter(|a| is_other(g.state(), a))
                                .count();
                            m.other = m.other.max(other);
                            for a in g.actions() {
                                match a {
                                    Action::Place { pos, .. } => {
                                        m.x = m.x.max(pos.x.abs());
                                        m.y = m.y.max(pos.y.abs());
                                    }
                                    Action::Draw { tile } => m.tile = m.tile.max(tile.0),
                                    _ => {}
                                }
                            }
                            if encode_actions(&g, &mut ids).is_ok() {
                                for &id in &ids {
                                    if let Some(Slot::Deploy { figure, local }) =
                                        slot_of(id as usize)
                                    {
                                        m.figure = m.figure.max(figure);
                                        m.local = m.local.max(local);
                                    }
                                }
                            }
                            let k = rng.random_range(0..g.action_count());
                            g.apply_offered(k).expect("legal");
                        }
                        for t in g.state().board().tiles() {
                            let c = t.pos.x.abs().max(t.pos.y.abs());
                            cheb = cheb.max(c);
                            m.tile = m.tile.max(t.kind.0);
                        }
                        m.cheb = m.cheb.max(cheb);
                        m.over_half[(cheb as usize).min(255)] += 1;
                        m.games += 1;
                        i += threads;
                    }
                    m
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().expect("worker")).collect()
    });
    let mut t = Max {
        over_half: vec![0; 256],
        ..Max::default()
    };
    for m in results {
        t.games += m.games;
        t.x = t.x.max(m.x);
        t.y = t.y.max(m.y);
        t.cheb = t.cheb.max(m.cheb);
        t.other = t.other.max(m.other);
        t.figure = t.figure.max(m.figure);
        t.local = t.local.max(m.local);
        t.tile = t.tile.max(m.tile);
        t.actions = t.actions.max(m.actions);
        for (a, b) in t.over_half.iter_mut().zip(m.over_half) {
            *a += b;
        }
    }
    let hist: Vec<String> = t
        .over_half
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(c, n)| format!("{c}:{n}"))
        .collect();
    println!(
        "games {} expansions [{}]\nlargest |x| of an offered placement {} |y| {}\nlargest distance (Chebyshev) of a placed tile {}\ngames by largest distance {}\nmost other actions in one decision {}\nlargest figure kind {} local segment {} tile kind {}\nmost actions in one decision {}",
        t.games,
        expansions.join(","),
        t.x,
        t.y,
        t.cheb,
        hist.join(" "),
        t.other,
        t.figure,
        t.local,
        t.tile,
        t.actions
    );
}
