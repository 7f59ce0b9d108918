//! The plugin panic guard: a panic in a hook becomes a hook failure naming the expansion
//! and the hook, the action is rolled back, and nothing unwinds past the guard.

use carcassonne_core::plugin::{guarded, PanicGuard};
use carcassonne_core::*;
use std::sync::Arc;

struct Boom;

impl Expansion for Boom {
    fn id(&self) -> &str {
        "boom"
    }
    fn final_scoring(&self, _: &mut Ctx<'_>) -> HookResult {
        panic!("the final bonus exploded")
    }
    fn strength_delta(&self, _: View<'_>, _: FigureId) -> i32 {
        panic!("no strength today")
    }
}

#[test]
fn a_panicking_hook_ends_the_game_with_an_error_naming_it() {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let boom: Arc<dyn Expansion> = Arc::new(PanicGuard::new(Boom));
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
