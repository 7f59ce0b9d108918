//! Kernel checks on hand-built positions: feature merging, distinct tile counts, board growth.

mod common;
use carcassonne_core::*;
use common::{at, rules, tile};
use std::sync::Arc;

/// The ring of the JCZ sample `city-and-road-scoring`: a city closed through both
/// separate city segments of one `BA/CC.2` tile counts that tile once: 4 tiles, 8 points.
#[test]
fn a9_city_ring_counts_each_tile_once() {
    let r = rules();
    let pos = Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![
            at(&r, "BA/RCr", 0, 0, 0),
            at(&r, "BA/CC.2", 0, 1, 270),
            at(&r, "BA/Cc.1", -1, 1, 180),
            at(&r, "BA/Cc.1", -1, 2, 90),
        ],
        figures: vec![PositionFigure {
            player: PlayerId(1),
            kind: FigureKindId::SMALL_FOLLOWER,
            pos: Pos::new(-1, 1),
            segment: 0,
        }],
        draws: vec![tile(&r, "BA/Cc.1")],
        ..Position::default()
    };
    let mut g = Game::from_position(Arc::clone(&r), &pos).unwrap();
    g.apply(Action::Place {
        pos: Pos::new(0, 2),
        rotation: Rotation::R0,
    })
    .unwrap();
    if g.actions().contains(&Action::Pass) {
        g.apply(Action::Pass).unwrap();
    }
    let city = g
        .state()
        .events()
        .iter()
        .find(|e| e.source == ScoreSource::Feature(FeatureKindId::CITY) && !e.final_scoring)
        .expect("city scored");
    assert_eq!((city.player, city.points), (PlayerId(1), 8));
    assert_eq!(
        g.state()
            .in_supply(PlayerId(1), FigureKindId::SMALL_FOLLOWER),
        7,
        "A-11: the knight returns"
    );
}

/// only edge-matching cells with edge contact are offered; the board grows past its
/// initial grid without losing tiles.
#[test]
fn a3_long_road_grows_the_board() {
    let r = rules();
    let straight = tile(&r, "BA/RFr");
    let mut g = Game::from_position(
        Arc::clone(&r),
        &Position {
            players: vec!["R".into()],
            tiles: vec![at(&r, "BA/RCr", 0, 0, 0)],
            draws: vec![straight; 40],
            ..Position::default()
        },
    )
    .unwrap();
    for x in 1..=40 {
        let a = Action::Place {
            pos: Pos::new(x, 0),
            rotation: Rotation::R0,
        };
        assert!(g.actions().contains(&a), "x = {x}");
        assert!(!g
            .actions()
            .iter()
            .any(|a| matches!(a, Action::Place { pos, .. } if pos.y.abs() > 1 || pos.x > x + 1)));
        g.apply(a).unwrap();
        if !g.is_over()
            && g.actions().contains(&Action::Pass)
            && !matches!(g.decision().kind, DecisionKind::PlaceTile { .. })
        {
            g.apply(Action::Pass).unwrap();
        }
    }
    assert!(g.is_over());
    assert_eq!(g.state().board().tiles().len(), 41);
    for (i, t) in g.state().board().tiles().iter().enumerate() {
        assert_eq!(g.state().board().index_at(t.pos), Some(i as u16));
    }
    // One road from (-?) through 41 tiles, open at the far end.
    let seg = g.state().segment_at(Pos::new(40, 0), 0).unwrap();
    let f = g.state().graph().feature_of(seg);
    assert_eq!(g.state().graph().tile_count(f), 41);
    assert_eq!(g.state().graph().totals(f).open, 2);
}

/// A refused action leaves everything as it was.
#[test]
fn refused_action_changes_nothing() {
    let r = rules();
    let mut g = Game::new(
        Arc::clone(&r),
        &GameSetup::new(vec!["A".into(), "B".into()], 5),
    )
    .unwrap();
    let before = format!("{:?}", g.state());
    let err = g
        .apply(Action::Place {
            pos: Pos::new(9, 9),
            rotation: Rotation::R0,
        })
        .unwrap_err();
    assert!(matches!(err, ActionError::NotOffered { .. }));
    assert!(g.apply(Action::Pass).is_err());
    assert_eq!(before, format!("{:?}", g.state()));
}
