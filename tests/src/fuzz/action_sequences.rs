//! The `actions` target: random and invalid actions on games of random expansion mixes.

use super::corpus::repo_root;
use super::play::{first_difference, random_options, random_setup, snapshot};
use super::report::Verdict;
use super::rng::Rng;
use super::ruleset_cache::cached_ruleset;
use carcassonne_core::{
    Action, ActionError, CustomAction, ExpansionIndex, FigureId, FigureKindId, Game, Pos, Rotation,
    Ruleset, SegmentId, TileKindId, VerbId,
};
use carcassonne_play::record::Record;
use carcassonne_rules::RulesSpec;
use std::fmt::Write as _;
use std::sync::Arc;

/// The expansions the `actions` target mixes: every official plugin and both fan scripts
/// (bit i of a mix = `MIXABLE[i]`).
pub(super) const MIXABLE: [&str; 11] = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "tactician",
    "promotions",
    "inns-cathedrals",
    "traders-builders",
    "princess-dragon",
    "tower",
    "abbey-mayor",
];
/// The ruleset of a mix of the [`MIXABLE`] expansions (bit i = `MIXABLE[i]`), with option variant
/// `variant` (0: defaults; others: random valid values fixed by mix and variant).
pub(super) fn mix_ruleset(mix: usize, variant: usize) -> Result<Arc<Ruleset>, String> {
    let root = repo_root();
    let spec = RulesSpec {
        expansions: MIXABLE
            .iter()
            .enumerate()
            .filter(|(i, _)| mix >> i & 1 == 1)
            .map(|(_, s)| s.to_string())
            .collect(),
        options: Vec::new(),
        plugin_dirs: vec![root.join("expansions"), root.join("fan-expansions")],
    };
    let rules = cached_ruleset(&spec)?;
    if variant == 0 {
        return Ok(rules);
    }
    let mut vr = Rng::new(((mix as u64) << 8) | variant as u64);
    let options = random_options(&mut vr, &rules, false);
    cached_ruleset(&RulesSpec { options, ..spec })
}

pub(super) fn near_i32(rng: &mut Rng, v: i32) -> i32 {
    match rng.below(6) {
        0 => v.wrapping_add(1),
        1 => v.wrapping_sub(1),
        2 => *rng.pick(&[0, 512, -512, 513, -513, i32::MAX, i32::MIN]),
        3 => v.wrapping_neg(),
        _ => v.wrapping_add(rng.below(7) as i32 - 3),
    }
}

pub(super) fn random_segment(rng: &mut Rng, n: usize) -> SegmentId {
    SegmentId::new(match rng.below(5) {
        0 | 1 => rng.below(n.max(1)),
        2 => n + rng.below(3),
        3 => u32::MAX as usize - rng.below(2),
        _ => rng.below(n + 8),
    })
}

pub(super) fn random_small_id(rng: &mut Rng, n: usize, max: usize) -> usize {
    match rng.below(4) {
        0 | 1 => rng.below(n.max(1)),
        2 => n + rng.below(2),
        _ => max - rng.below(2),
    }
}

/// A random action: mostly an offered one changed a little, otherwise anything.
pub(super) fn random_action(rng: &mut Rng, g: &Game) -> Action {
    let st = g.state();
    let rules = g.rules();
    let nseg = st.graph().len();
    let nfig = st.figures().len();
    let nkind = rules.figure_kinds().len();
    let ntile = rules.tiles().len();
    let nexp = rules.expansions().len();
    let nverb = rules.verbs().len();
    let value = |rng: &mut Rng| *rng.pick(&[0, 1, -1, 2, 3, 4, 7, 100, i32::MAX, i32::MIN]);
    let offered = g.actions();
    if !offered.is_empty() && rng.chance(2, 3) {
        let a = *rng.pick(offered);
        return match a {
            Action::Place { pos, rotation } => match rng.below(3) {
                0 => Action::Place {
                    pos,
                    rotation: *rng.pick(&Rotation::ALL),
                },
                1 => Action::Place {
                    pos: Pos::new(near_i32(rng, pos.x), pos.y),
                    rotation,
                },
                _ => Action::Place {
                    pos: Pos::new(pos.x, near_i32(rng, pos.y)),
                    rotation,
                },
            },
            Action::Deploy { figure, segment } => match rng.below(3) {
                0 => Action::Deploy {
                    figure: FigureKindId(random_small_id(rng, nkind, 255) as u8),
                    segment,
                },
                1 => Action::Deploy {
                    figure,
                    segment: SegmentId::new(near_i32(rng, segment.index() as i32) as u32 as usize),
                },
                _ => Action::Move {
                    figure: FigureId(random_small_id(rng, nfig, 65535) as u16),
                    segment,
                },
            },
            Action::Move { figure, segment } => match rng.below(3) {
                0 => Action::Move {
                    figure: FigureId(random_small_id(rng, nfig, 65535) as u16),
                    segment,
                },
                1 => Action::Move {
                    figure,
                    segment: random_segment(rng, nseg),
                },
                _ => Action::Deploy {
                    figure: FigureKindId(figure.0 as u8),
                    segment,
                },
            },
            Action::Draw { tile } => Action::Draw {
                tile: TileKindId(if rng.chance(1, 2) {
                    near_i32(rng, tile.0 as i32) as u16
                } else {
                    random_small_id(rng, ntile, 65535) as u16
                }),
            },
            Action::Custom(c) => {
                let mut c = c;
                match rng.below(5) {
                    0 => c.expansion = ExpansionIndex(random_small_id(rng, nexp, 255) as u8),
                    1 => c.verb = VerbId(random_small_id(rng, nverb, 65535) as u16),
                    2 => {
                        c.figure = if rng.chance(1, 3) {
                            None
                        } else {
                            Some(FigureId(random_small_id(rng, nfig, 65535) as u16))
                        }
                    }
                    3 => {
                        c.segment = if rng.chance(1, 3) {
                            None
                        } else {
                            Some(random_segment(rng, nseg))
                        }
                    }
                    _ => {
                        c.value = if rng.chance(1, 2) {
                            value(rng)
                        } else {
                            c.value.wrapping_add(1)
                        }
                    }
                }
                Action::Custom(c)
            }
            Action::Pass => Action::Deploy {
                figure: FigureKindId(0),
                segment: random_segment(rng, nseg),
            },
        };
    }
    match rng.below(6) {
        0 => Action::Place {
            pos: Pos::new(near_i32(rng, 0), near_i32(rng, 0)),
            rotation: *rng.pick(&Rotation::ALL),
        },
        1 => Action::Deploy {
            figure: FigureKindId(random_small_id(rng, nkind, 255) as u8),
            segment: random_segment(rng, nseg),
        },
        2 => Action::Move {
            figure: FigureId(random_small_id(rng, nfig, 65535) as u16),
            segment: random_segment(rng, nseg),
        },
        3 => Action::Pass,
        4 => Action::Draw {
            tile: TileKindId(random_small_id(rng, ntile, 65535) as u16),
        },
        _ => Action::Custom(CustomAction {
            expansion: ExpansionIndex(random_small_id(rng, nexp, 255) as u8),
            verb: VerbId(random_small_id(rng, nverb, 65535) as u16),
            figure: rng
                .chance(1, 2)
                .then(|| FigureId(random_small_id(rng, nfig, 65535) as u16)),
            segment: rng.chance(1, 2).then(|| random_segment(rng, nseg)),
            value: value(rng),
        }),
    }
}

/// Steps per action-sequence case.
pub(super) const ACTION_STEPS: usize = 160;

pub(super) fn run_actions(rng: &mut Rng, log: &mut String) -> Result<Verdict, String> {
    let mix = rng.below(1 << MIXABLE.len());
    let variant = rng.below(3);
    let _ = writeln!(
        log,
        "expansions: {:?}, option variant {variant}",
        MIXABLE
            .iter()
            .enumerate()
            .filter(|(i, _)| mix >> i & 1 == 1)
            .map(|(_, s)| *s)
            .collect::<Vec<_>>()
    );
    let rules = match mix_ruleset(mix, variant) {
        Ok(r) => r,
        Err(e) => return Ok(Verdict::Rejected("setup", e)),
    };
    let _ = writeln!(log, "options: {:?}", rules.options());
    let mut setup = random_setup(rng, &rules);
    if rng.chance(1, 4) {
        // Short games reach final scoring within the step budget.
        setup.draw_limit = Some(1 + rng.below(12) as u32);
    }
    let _ = writeln!(log, "setup: {setup:?}");
    let mut game = match Game::new(Arc::clone(&rules), &setup) {
        Ok(g) => g,
        Err(e) => return Ok(Verdict::Rejected("new-game", e.to_string())),
    };
    let checkpoints = !rng.chance(1, 10);
    game.set_checkpoints(checkpoints);
    let _ = writeln!(log, "checkpoints: {checkpoints}");
    let mut taken: Vec<Action> = Vec::new();
    let mut verdict = Verdict::Accepted;
    // A start tile far out makes the board's grid large and its `Debug` text megabytes
    // long: then compare the state after one refusal in ten only.
    let big = snapshot(&game).len() > 200_000;
    let unchanged = |rng: &mut Rng, before: &Game, after: &Game| {
        if big && !rng.chance(1, 10) {
            return true;
        }
        snapshot(before) == snapshot(after)
    };
    let valid_share = 40 + rng.below(50) as u64;
    for step in 0..ACTION_STEPS {
        let before = game.clone();
        let r = rng.below(100) as u64;
        let (what, result, offered) = if game.is_over() || r >= valid_share {
            if rng.chance(1, 8) {
                let i = *rng.pick(&[game.action_count(), game.action_count() + 1, usize::MAX]);
                (format!("apply_offered({i})"), game.apply_offered(i), false)
            } else {
                let a = random_action(rng, &game);
                let offered = before.state().is_offered(&a);
                (
                    format!("apply({a:?})"),
                    game.apply(a).map(|()| taken.push(a)),
                    offered,
                )
            }
        } else {
            let n = game.action_count();
            if n == 0 {
                return Err(format!(
                    "step {step}: no action offered but the game is not over ({})",
                    game.describe_decision()
                ));
            }
            let i = rng.below(n);
            let a = game.state().offered_at(i).expect("in range");
            (
                format!("apply_offered({i}) = {a:?}"),
                game.apply_offered(i).map(|()| taken.push(a)),
                true,
            )
        };
        let _ = writeln!(log, "step {step}: {what} -> {result:?}");
        match result {
            Ok(()) if !offered => {
                return Err(format!(
                    "step {step}: {what} was accepted but not offered ({})",
                    before.describe_decision()
                ));
            }
            Ok(()) => {}
            Err(ActionError::Hook(e)) if before.failure().is_none() => {
                if checkpoints {
                    if !unchanged(rng, &before, &game) {
                        return Err(format!(
                            "step {step}: {what} failed in a hook and was not rolled back: {e}"
                        ));
                    }
                } else if game.failure().is_none() || game.apply(Action::Pass).is_ok() {
                    return Err(format!(
                        "step {step}: without checkpoints a failing hook must stop the game: {e}"
                    ));
                }
                verdict = Verdict::Rejected("hook", e.to_string());
                break;
            }
            Err(e) => {
                if offered && before.failure().is_none() && !before.is_over() {
                    return Err(format!(
                        "step {step}: {what} is offered but was refused: {e}"
                    ));
                }
                if !unchanged(rng, &before, &game) {
                    return Err(format!(
                        "step {step}: {what} was refused ({e}) but changed the state"
                    ));
                }
                if game.is_over()
                    && !matches!(e, ActionError::GameOver)
                    && !matches!(e, ActionError::BadIndex { .. })
                {
                    return Err(format!("step {step}: a finished game refused {what} with `{e}`, not `the game is over`"));
                }
            }
        }
        if game.is_over() && rng.chance(1, 3) {
            break;
        }
    }
    // Host side: the replay output, a picture now and then, and the record of the
    // accepted actions, which must replay to the same state.
    let _ = carcassonne_play::replay::replay_output(&game);
    if rng.chance(1, 8) {
        let _ = carcassonne_render::render_svg(&game, &Default::default());
    }
    if game.failure().is_none() && rng.chance(1, 2) {
        let rec = Record::with_setup(&game, &setup, &taken)
            .map_err(|e| format!("the accepted actions do not record: {e}"))?;
        let replayed = rec
            .replay_with(&rules, "(fuzz record)", None)
            .map_err(|e| format!("the record of the accepted actions does not replay: {e}"))?;
        let (a, b) = (snapshot(&replayed), snapshot(&game));
        if a != b {
            return Err(format!(
                "the record of the accepted actions replays to another state, {}",
                first_difference(&a, &b)
            ));
        }
    }
    Ok(verdict)
}
