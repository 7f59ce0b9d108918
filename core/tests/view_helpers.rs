//! The helpers `View` offers expansions for what each once wrote for itself:
//! `completed_cities` (the completed cities a farm borders) and `player_figure` (a
//! player's figure as position settings name it).

mod common;

use carcassonne_core::*;
use common::{at, rules};
use std::sync::Arc;

/// Two city caps facing each other: a completed two-tile city, its farms beside it.
fn closed_city() -> Game {
    let r = rules();
    let position = Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![at(&r, "E", 0, 0, 0), at(&r, "E", 0, -1, 180)],
        draws: vec![common::tile(&r, "E")],
        ..Position::default()
    };
    Game::from_position(Arc::clone(&r), &position).unwrap()
}

#[test]
fn completed_cities_lists_the_closed_city_a_farm_borders() {
    let g = closed_city();
    let v = g.view();
    let t = v.state.board().at(Pos::new(0, 0)).unwrap();
    let graph = v.state.graph();
    let kinds = v.rules.tiles().get(t.kind);
    let local = |name: &str| {
        (0..kinds.segments.len())
            .find(|&i| v.rules.kind(kinds.segments[i].kind).name == name)
            .unwrap()
    };
    let farm = graph.feature_of(t.segment(local("field")));
    let city = graph.feature_of(t.segment(local("city")));
    assert_eq!(v.completed_cities(farm), vec![city]);
    let mut out = Vec::new();
    v.farm_cities(farm, &mut out);
    assert_eq!(v.completed_cities(farm), out);
}

#[test]
fn player_figure_reads_name_and_optional_kind() {
    let g = closed_city();
    let v = g.view();
    assert_eq!(
        v.player_figure("R"),
        Ok((PlayerId(0), FigureKindId::SMALL_FOLLOWER))
    );
    assert_eq!(
        v.player_figure(" B : small-follower "),
        Ok((PlayerId(1), FigureKindId::SMALL_FOLLOWER))
    );
    assert_eq!(
        v.player_figure("Y"),
        Err(HookFailure("no player named `Y`".into()))
    );
    assert_eq!(
        v.player_figure("R:dragon"),
        Err(HookFailure("no figure kind `dragon`".into()))
    );
}
