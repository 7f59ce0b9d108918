//! Neutral figures and figures that share features: a figure kind with `neutral` copies
//! belongs to nobody (the expansion places and moves it), and a kind that `shares` may
//! join a feature that holds figures without occupying it or counting for its majority.
//! Both are ordinary figures otherwise: conserved, named, moved and scored around.

mod common;

use carcassonne_core::*;
use common::at;
use std::sync::Arc;

/// `herald`: two neutral heralds, the first put on the start tile's road at game start;
/// each player has one `squire`, a follower that shares features.
struct Herald;

struct HeraldRules {
    herald: FigureKindId,
}

impl Expansion for Herald {
    fn id(&self) -> &str {
        "herald"
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let road = d.kind_named("road").ok_or("no road kind")?;
        let herald = d
            .figure_kind(FigureKindDef {
                name: "herald".into(),
                per_player: 0,
                neutral: 2,
                strength: 2,
                follower: false,
                deploy_on: KindMask::default(),
                returns: false,
                ..FigureKindDef::small_follower()
            })
            .map_err(|e| e.to_string())?;
        d.figure_kind(FigureKindDef {
            name: "squire".into(),
            per_player: 1,
            shares: true,
            deploy_on: KindMask::default().with(road),
            ..FigureKindDef::small_follower()
        })
        .map_err(|e| e.to_string())?;
        Ok(binder(move |_| Ok(HeraldRules { herald })))
    }
}

impl BoundExpansion for HeraldRules {
    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let road = ctx.state().segment_at(Pos::new(0, 0), 0).ok_or("no road")?;
        ctx.place_neutral(self.herald, road)?;
        Ok(())
    }

    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, _: &str) -> HookResult {
        let road = ctx.state().segment_at(Pos::new(0, 0), 0).ok_or("no road")?;
        match key {
            "place-herald" => ctx.place_neutral(self.herald, road).map(drop),
            "place-follower" => ctx
                .place_neutral(FigureKindId::SMALL_FOLLOWER, road)
                .map(drop),
            _ => Err(format!("no setting `{key}`").into()),
        }
    }
}

fn rules() -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .expansion(Arc::new(Herald))
            .build()
            .unwrap(),
    )
}

/// A straight road (U, road east–west) at the origin, two more to draw.
fn position(r: &Ruleset) -> Position {
    let u = common::tile(r, "U");
    Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![at(r, "U", 0, 0, 0)],
        draws: vec![u, u],
        ..Position::default()
    }
}

fn road_at(g: &Game, x: i32) -> SegmentId {
    g.state().segment_at(Pos::new(x, 0), 0).unwrap()
}

#[test]
fn neutral_figures_belong_to_nobody_and_follow_the_players_figures() {
    let r = rules();
    let g = Game::from_position(Arc::clone(&r), &position(&r)).unwrap();
    let st = g.state();
    let herald = r.figure_named("herald").unwrap();
    // 2 players × (7 small followers + 1 squire), then the 2 heralds.
    assert_eq!(st.figures().len(), 2 * 8 + 2);
    let (first, neutral) = st.neutral_figures();
    assert_eq!(first, 16);
    assert!(neutral
        .iter()
        .all(|f| f.is_neutral() && f.seat().is_none() && f.kind == herald));
    // The first herald stands on the road; nobody's supply counts heralds.
    assert_eq!(neutral[0].loc, FigureLoc::On(road_at(&g, 0)));
    assert_eq!(neutral[1].loc, FigureLoc::Supply);
    assert_eq!(st.in_supply(PlayerId(0), herald), 0);
    assert_eq!(g.view().figure_name(FigureId(16)), "herald.1");
    assert_eq!(g.view().figure_name(FigureId(8)), "1.small-follower.1");
    assert_eq!(PlayerId::NEUTRAL.to_string(), "nobody (neutral)");
    // A neutral figure does not occupy its feature.
    let road = st.graph().feature_of(road_at(&g, 0));
    assert_eq!(st.graph().totals(road).occupants, 0);
    assert_eq!(
        st.figures_on(road_at(&g, 0)).collect::<Vec<_>>(),
        [FigureId(16)]
    );
}

#[test]
fn followers_join_a_neutral_figure_and_sharing_figures_join_followers() {
    let r = rules();
    let squire = r.figure_named("squire").unwrap();
    let mut g = Game::from_position(Arc::clone(&r), &position(&r)).unwrap();
    // R extends the road east and deploys a follower on it, beside the herald.
    g.apply(Action::Place {
        pos: Pos::new(1, 0),
        rotation: Rotation::R0,
    })
    .unwrap();
    let on_road = Action::Deploy {
        figure: FigureKindId::SMALL_FOLLOWER,
        segment: road_at(&g, 1),
    };
    assert!(
        g.actions().contains(&on_road),
        "A-7: the herald does not occupy the road"
    );
    g.apply(on_road).unwrap();
    let road = g.state().graph().feature_of(road_at(&g, 0));
    assert_eq!(g.state().graph().totals(road).occupants, 1);
    // B extends it west: the road is occupied, so only B's squire (which shares) may go.
    g.apply(Action::Place {
        pos: Pos::new(-1, 0),
        rotation: Rotation::R0,
    })
    .unwrap();
    let deploys: Vec<Action> = g
        .actions()
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Deploy { segment, .. } if *segment == road_at(&g, -1)))
        .collect();
    assert_eq!(
        deploys,
        [Action::Deploy {
            figure: squire,
            segment: road_at(&g, -1)
        }]
    );
    g.apply(deploys[0]).unwrap();
    assert_eq!(
        g.state().graph().totals(road).occupants,
        1,
        "a squire does not occupy"
    );
    assert_eq!(g.state().figures_on(road_at(&g, 0)).count(), 3);
    // The supply is empty: final scoring. The road (3 tiles) is R's alone: the squire and
    // the herald count for no majority.
    assert!(g.is_over());
    assert_eq!(g.state().players()[0].score, 3);
    assert_eq!(g.state().players()[1].score, 0);
    // The herald stays where it was (it does not return when its feature is scored).
    assert_eq!(
        g.state().neutral_figures().1[0].loc,
        FigureLoc::On(road_at(&g, 0))
    );
}

#[test]
fn placing_neutral_figures_is_checked() {
    let r = rules();
    let with = |key: &str| {
        let mut p = position(&r);
        p.settings.push(PositionSetting {
            expansion: "herald".into(),
            key: key.into(),
            value: String::new(),
        });
        Game::from_position(Arc::clone(&r), &p)
    };
    // The second herald can be placed too, even on the same road.
    let g = with("place-herald").unwrap();
    assert!(g
        .state()
        .neutral_figures()
        .1
        .iter()
        .all(|f| f.loc != FigureLoc::Supply));
    // A player's figure kind is not neutral.
    let err = with("place-follower").unwrap_err().to_string();
    assert!(err.contains("`small-follower` is not neutral"), "{err}");
    // A position may place neutral figures itself, as nobody's.
    let mut p = position(&r);
    p.settings.push(PositionSetting {
        expansion: "herald".into(),
        key: "place-herald".into(),
        value: String::new(),
    });
    let herald = r.figure_named("herald").unwrap();
    p.figures.push(PositionFigure {
        player: PlayerId::NEUTRAL,
        kind: herald,
        pos: Pos::new(0, 0),
        segment: 1,
    });
    let err = Game::from_position(Arc::clone(&r), &p)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("every `herald` is already on the board"),
        "{err}"
    );
    // … but never a player's figure as nobody's, nor a herald as a player's.
    for (player, kind) in [
        (PlayerId::NEUTRAL, FigureKindId::SMALL_FOLLOWER),
        (PlayerId(0), herald),
    ] {
        let mut p = position(&r);
        p.figures.push(PositionFigure {
            player,
            kind,
            pos: Pos::new(0, 0),
            segment: 1,
        });
        assert!(Game::from_position(Arc::clone(&r), &p).is_err());
    }
}

#[test]
fn a_neutral_kind_cannot_belong_to_players() {
    struct Both;
    impl Expansion for Both {
        fn id(&self) -> &str {
            "both"
        }
        fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
            d.figure_kind(FigureKindDef {
                name: "odd".into(),
                neutral: 1,
                ..FigureKindDef::small_follower()
            })
            .map_err(|e| e.to_string())?;
            Ok(binder(|_| {
                Ok(HeraldRules {
                    herald: FigureKindId(0),
                })
            }))
        }
    }
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let err = Ruleset::builder()
        .tiles(base)
        .expansion(Arc::new(Both))
        .build()
        .expect_err("refused")
        .to_string();
    assert!(err.contains("figure kind `odd` is neutral"), "{err}");
}
