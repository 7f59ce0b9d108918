//! Playing a short game of random offered moves from a random setup, and comparing game states.

use super::extreme_values::extreme_string;
use super::report::Verdict;
use super::rng::Rng;
use carcassonne_core::{
    ActionError, DrawMode, Game, GameSetup, OptionType, Pos, Rotation, Ruleset, StartTile,
    TileKindId,
};

/// A snapshot of a game's state (its `Debug` text) for "refused means unchanged" and
/// "replays to the same state", without the cache of the offered placements as actions
/// (built when first asked for, and kept past the tile step: not part of the game).
pub(super) fn snapshot(g: &Game) -> String {
    let mut s = format!("{:?}", g.state());
    const CACHE: &str = "placement_actions: OnceLock(";
    if let Some(i) = s.find(CACHE) {
        let from = i + CACHE.len();
        let mut depth = 1;
        let mut end = s.len();
        for (j, c) in s[from..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = from + j;
                        break;
                    }
                }
                _ => {}
            }
        }
        s.replace_range(from..end, "…");
    }
    s
}

/// Where two snapshots first differ, with some context.
pub(super) fn first_difference(a: &str, b: &str) -> String {
    let i = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = i.saturating_sub(120);
    let from = (0..=from)
        .rev()
        .find(|j| a.is_char_boundary(*j) && b.is_char_boundary(*j))
        .unwrap_or(0);
    let end = |s: &str| {
        let mut e = (i + 120).min(s.len());
        while !s.is_char_boundary(e) {
            e -= 1;
        }
        e
    };
    format!(
        "at byte {i}: `{}` vs `{}`",
        &a[from..end(a)],
        &b[from..end(b)]
    )
}

/// Plays up to `moves` random offered actions. A hook failure ends the game (rejected),
/// after checking that it was rolled back.
pub(super) fn play_random(g: &mut Game, rng: &mut Rng, moves: usize) -> Result<Verdict, String> {
    for _ in 0..moves {
        if g.is_over() {
            break;
        }
        let n = g.action_count();
        if n == 0 {
            return Err(format!(
                "no action offered but the game is not over ({})",
                g.describe_decision()
            ));
        }
        let before = g.clone();
        match g.apply_offered(rng.below(n)) {
            Ok(()) => {}
            Err(ActionError::Hook(e)) => {
                if snapshot(&before) != snapshot(g) {
                    return Err(format!("a failing hook was not rolled back: {e}"));
                }
                return Ok(Verdict::Rejected("hook", e.to_string()));
            }
            Err(e) => return Err(format!("an offered index was refused: {e}")),
        }
    }
    Ok(Verdict::Accepted)
}

/// Random options for a ruleset's declared options (a valid value mostly, sometimes not).
pub(super) fn random_options(rng: &mut Rng, rules: &Ruleset, wild: bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for d in rules.option_defs() {
        if !rng.chance(1, 3) {
            continue;
        }
        let v = match &d.ty {
            _ if wild && rng.chance(1, 30) => extreme_string(rng),
            OptionType::Choice(vals) => rng.pick(vals).clone(),
            OptionType::Bool => rng.pick(&["true", "false"]).to_string(),
            OptionType::Int { min, max } => {
                let span = (max - min).clamp(0, 1000) as usize;
                (min + rng.below(span + 1) as i64).to_string()
            }
        };
        out.push((d.key.clone(), v));
    }
    out
}

pub(super) fn random_players(rng: &mut Rng) -> Vec<String> {
    let n = if rng.chance(1, 40) {
        *rng.pick(&[0, 9])
    } else {
        *rng.pick(&[2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 1, 6, 7, 8])
    };
    (0..n)
        .map(|i| {
            if rng.chance(1, 20) {
                extreme_string(rng)
            } else {
                format!("P{i}")
            }
        })
        .collect()
}

pub(super) fn random_setup(rng: &mut Rng, rules: &Ruleset) -> GameSetup {
    let mut setup = GameSetup::new(random_players(rng), rng.next_u64());
    setup.draws = match rng.below(10) {
        0..=6 => DrawMode::Random,
        7 | 8 => DrawMode::Chosen,
        _ => DrawMode::InOrder,
    };
    if rng.chance(1, 4) {
        setup.draw_limit = Some(*rng.pick(&[0, 1, 2, 3, 5, 8, 13, 20, u32::MAX]));
    }
    if rng.chance(1, 10) && !rules.tiles().is_empty() {
        let n = 1 + rng.small(3);
        setup.start = Some(
            (0..n)
                .map(|_| {
                    let (x, y) = *rng.pick(&[
                        (0, 0),
                        (1, 0),
                        (0, -1),
                        (-2, -1),
                        (0, -35),
                        (-50, -1),
                        (512, 512),
                        (-512, 0),
                        (513, 0),
                        (0, -513),
                        (i32::MAX, 0),
                        (i32::MIN, i32::MIN),
                        (2_000_000_000, 2_000_000_000),
                    ]);
                    StartTile {
                        kind: TileKindId(rng.below(rules.tiles().len()) as u16),
                        pos: Pos::new(x, y),
                        rotation: *rng.pick(&Rotation::ALL),
                    }
                })
                .collect(),
        );
    }
    setup
}
