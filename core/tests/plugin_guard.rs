//! The plugin panic guard: a panic in a hook becomes a hook failure naming the expansion
//! and the hook, the action is rolled back, and nothing unwinds past the guard. A panic
//! in `declare` or in bind fails the ruleset's build instead.

use carcassonne_core::plugin::{guarded, PanicGuard};
use carcassonne_core::*;
use std::sync::Arc;

struct Boom;

impl Expansion for Boom {
    fn id(&self) -> &str {
        "boom"
    }
    fn declare(&self, _: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        Ok(binder(|_| Ok(Boom)))
    }
}

impl BoundExpansion for Boom {
    fn final_scoring(&self, _: &mut Ctx<'_>) -> HookResult {
        panic!("the final bonus exploded")
    }
    fn strength_delta(&self, _: View<'_>, _: FigureId) -> HookResult<i32> {
        panic!("no strength today")
    }
}

/// Panics in `strength_delta` for seat 0's figures only, so that one game can fail while
/// others run on.
struct Fragile;

impl Expansion for Fragile {
    fn id(&self) -> &str {
        "fragile"
    }
    fn declare(&self, _: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        Ok(binder(|_| Ok(Fragile)))
    }
}

impl BoundExpansion for Fragile {
    fn strength_delta(&self, v: View<'_>, f: FigureId) -> HookResult<i32> {
        if v.state.figure(f).owner == PlayerId(0) {
            panic!("no strength today")
        }
        Ok(0)
    }
}

/// A base ruleset with [`Fragile`] behind the panic guard.
fn fragile_rules() -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let boom: Arc<dyn Expansion> = Arc::new(PanicGuard::new(Fragile));
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .expansion(boom)
            .build()
            .unwrap(),
    )
}

/// Plays random offered actions until the game is over or an action fails.
fn play(g: &mut Game, seed: u64) -> Result<(), ActionError> {
    let mut x = seed | 1;
    while !g.is_over() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let n = g.action_count() as u64;
        g.apply_offered((x % n) as usize)?;
    }
    Ok(())
}

/// Issue 14: a hook failure belongs to the game it happened in. Game A fails in
/// `strength_delta` (a panic, caught by the guard); a probe clone of it, a fresh game B on
/// the same `Arc<Ruleset>` and games on other threads play on (the guard used to poison
/// the shared instance, so B failed at its first action with A's message).
#[test]
fn a_failure_in_one_game_never_touches_another() {
    let rules = fragile_rules();
    // Find a game in which seat 0 deploys and a strength is needed: it fails, naming the
    // expansion, the hook and the reason.
    let mut failed = None;
    for seed in 0..200u64 {
        let mut a = Game::new(
            Arc::clone(&rules),
            &GameSetup::new(vec!["A".into(), "B".into()], seed),
        )
        .unwrap();
        if let Err(e) = play(&mut a, seed) {
            failed = Some((a, e));
            break;
        }
    }
    let (a, err) = failed.expect("some game needs seat 0's strength");
    let ActionError::Hook(HookError {
        expansion,
        hook,
        message,
    }) = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!((expansion.as_str(), *hook), ("fragile", "strength_delta"));
    assert!(message.contains("no strength today"), "{message}");
    // The failed game is unchanged and its clone (a bot's probe) still answers.
    let probe = a.clone();
    assert_eq!(probe.action_count(), a.action_count());
    // Games in which seat 0 never deploys never ask for its strength: a fresh game on the
    // same ruleset, and games on other threads, finish.
    assert!(!finish_without_seat0(&rules, 7).is_empty());
    let handles: Vec<_> = (0..2u64)
        .map(|t| {
            let rules = Arc::clone(&rules);
            std::thread::spawn(move || finish_without_seat0(&rules, 100 + t))
        })
        .collect();
    for h in handles {
        assert!(!h.join().expect("no panic escapes").is_empty());
    }
}

/// [`Boom`] bound by a plain closure that hands back a box (not [`binder`]): the guard
/// then wraps the box ([`Binder::bind_guarded`]'s default) instead of the bound type.
struct BoxedBoom;

impl Expansion for BoxedBoom {
    fn id(&self) -> &str {
        "boom"
    }
    fn declare(&self, _: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        Ok(Box::new(
            |_: &Binding<'_>| -> HookResult<Box<dyn BoundExpansion>> { Ok(Box::new(Boom)) },
        ))
    }
}

#[test]
fn a_panicking_hook_ends_the_game_with_an_error_naming_it() {
    // The guard over the bound type (`binder`) and over a box (a closure binder).
    panicking_final_scoring(Arc::new(PanicGuard::new(Boom)));
    panicking_final_scoring(Arc::new(PanicGuard::new(BoxedBoom)));
}

fn panicking_final_scoring(boom: Arc<dyn Expansion>) {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let rules = Arc::new(
        Ruleset::builder()
            .tiles(base)
            .expansion(boom)
            .build()
            .unwrap(),
    );
    let t = rules.tiles().find("E").unwrap();
    let pos = Position {
        players: vec!["R".into()],
        tiles: vec![StartTile {
            kind: t,
            pos: Pos::new(0, 0),
            rotation: Rotation::R0,
        }],
        draws: vec![t],
        ..Position::default()
    };
    let mut g = Game::from_position(Arc::clone(&rules), &pos).unwrap();
    let place = *g
        .actions()
        .iter()
        .find(|a| matches!(a, Action::Place { .. }))
        .unwrap();
    g.apply(place).unwrap();
    // Passing ends the last turn; final scoring runs the panicking hook.
    let before = format!("{:?}", g.state());
    let err = g.apply(Action::Pass).unwrap_err();
    let ActionError::Hook(HookError {
        expansion,
        hook,
        message,
    }) = err
    else {
        panic!("{err:?}")
    };
    assert_eq!((expansion.as_str(), hook), ("boom", "final_scoring"));
    assert!(message.contains("the final bonus exploded"), "{message}");
    assert_eq!(before, format!("{:?}", g.state()), "rolled back");
}

#[test]
fn a_panic_while_creating_is_an_error() {
    let r = guarded::<Boom>("1.0.0", || panic!("cannot build"));
    assert!(r.err().unwrap().contains("cannot build"));
}

/// Panics in `declare` (`in_bind: false`) or in its binder (`in_bind: true`).
struct Brittle {
    in_bind: bool,
}

impl Expansion for Brittle {
    fn id(&self) -> &str {
        "brittle"
    }
    fn declare(&self, _: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        if !self.in_bind {
            panic!("nothing to declare")
        }
        Ok(binder(|_| -> HookResult<Boom> {
            panic!("nothing to bind")
        }))
    }
}

#[test]
fn a_panic_in_declare_or_bind_fails_the_build() {
    for (in_bind, step, want) in [
        (false, "declare", "nothing to declare"),
        (true, "bind", "nothing to bind"),
    ] {
        let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
        let e: Arc<dyn Expansion> = Arc::new(PanicGuard::new(Brittle { in_bind }));
        let err = Ruleset::builder()
            .tiles(base)
            .expansion(e)
            .build()
            .err()
            .unwrap_or_else(|| panic!("{step}: the ruleset was built"));
        let SetupError::Expansion { expansion, message } = &err else {
            panic!("{step}: {err:?}")
        };
        assert_eq!(expansion, "brittle");
        assert!(
            message.contains("panicked") && message.contains(want),
            "{step}: {message}"
        );
    }
}

/// A random game in which seat 0 passes every deployment step; its final scores.
fn finish_without_seat0(rules: &Arc<Ruleset>, seed: u64) -> Vec<i32> {
    let mut g = Game::new(
        Arc::clone(rules),
        &GameSetup::new(vec!["A".into(), "B".into()], seed),
    )
    .unwrap();
    let mut x = seed | 1;
    while !g.is_over() {
        let d = g.decision();
        let i = if d.player == PlayerId(0) && matches!(d.kind, DecisionKind::Deploy { .. }) {
            g.actions()
                .iter()
                .position(|a| *a == Action::Pass)
                .expect("pass is offered")
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % g.action_count() as u64) as usize
        };
        g.apply_offered(i)
            .expect("no strength of seat 0 is ever needed");
    }
    g.state().players().iter().map(|p| p.score).collect()
}
