//! `Ctx::hold_figure` / `Ctx::release_figure`: a figure taken off the board without going
//! back to supply (a prisoner, The Tower's TW-11) and given back later. Figures stay
//! conserved (supply + board + held = per player), occupancy stays exact, every expansion's
//! `on_figure_removed` runs, and misuse is an error that changes nothing.

mod common;

use carcassonne_core::*;
use common::at;
use std::sync::Arc;

/// `jail`: settings `hold` / `release` = a figure index.
struct Jail;

struct JailRules {
    removed: GameSlot,
}

impl Expansion for Jail {
    fn id(&self) -> &str {
        "jail"
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let removed = d.game_slot("removed", 0);
        Ok(binder(move |_| Ok(JailRules { removed })))
    }
}

impl BoundExpansion for JailRules {
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        let f = FigureId(value.parse().map_err(|_| "not a figure index")?);
        match key {
            "hold" => ctx.hold_figure(f, RemovalReason::Expansion),
            "release" => ctx.release_figure(f),
            _ => Err("unknown setting".into()),
        }
    }

    fn on_figure_removed(&self, ctx: &mut Ctx<'_>, _: FigureId, _: RemovalReason) -> HookResult {
        let n = ctx.get(self.removed);
        ctx.set(self.removed, n + 1);
        Ok(())
    }
}

fn rules() -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .expansion(Arc::new(Jail))
            .build()
            .unwrap(),
    )
}

fn position(r: &Ruleset, settings: &[(&str, &str)]) -> Position {
    Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![at(r, "E", 0, 0, 0)],
        figures: vec![
            PositionFigure {
                player: PlayerId(1),
                kind: FigureKindId::SMALL_FOLLOWER,
                pos: Pos::new(0, 0),
                segment: 0,
            },
            PositionFigure {
                player: PlayerId(1),
                kind: FigureKindId::SMALL_FOLLOWER,
                pos: Pos::new(0, 0),
                segment: 1,
            },
        ],
        draws: vec![common::tile(r, "E")],
        settings: settings
            .iter()
            .map(|(k, v)| PositionSetting {
                expansion: "jail".into(),
                key: k.to_string(),
                value: v.to_string(),
            })
            .collect(),
        ..Position::default()
    }
}

/// B's figures are 7…13 (R's 0…6); B's first two stand on the city and the field.
fn on_board(g: &Game) -> Vec<FigureId> {
    (0..g.state().figures().len())
        .map(|i| FigureId(i as u16))
        .filter(|f| matches!(g.state().figure(*f).loc, FigureLoc::On(_)))
        .collect()
}

#[test]
fn a_held_figure_is_neither_on_the_board_nor_in_supply_until_released() {
    let r = rules();
    let g = Game::from_position(Arc::clone(&r), &position(&r, &[])).unwrap();
    let [city_fig, field_fig] = on_board(&g)[..] else {
        panic!("two figures on the board")
    };
    let (a, b) = (city_fig.0.to_string(), field_fig.0.to_string());
    let g = Game::from_position(
        Arc::clone(&r),
        &position(&r, &[("hold", &a), ("hold", &b), ("release", &b)]),
    )
    .unwrap();
    let st = g.state();
    assert_eq!(st.figure(city_fig).loc, FigureLoc::Removed);
    assert_eq!(st.figure(field_fig).loc, FigureLoc::Supply);
    // 7 − 2 deployed + 1 released; the held one is in neither place.
    assert_eq!(st.in_supply(PlayerId(1), FigureKindId::SMALL_FOLLOWER), 6);
    let g_ = st.graph();
    for s in [0, 1] {
        let seg = st.segment_at(Pos::new(0, 0), s).unwrap();
        assert_eq!(g_.totals(g_.feature_of(seg)).occupants, 0, "segment {s}");
    }
    // Both holds told every expansion; the release did not.
    let removed = SlotId(r.slots().iter().position(|d| d.name == "removed").unwrap() as u16);
    assert_eq!(st.slot(removed, 0), 2);
}

#[test]
fn holding_or_releasing_the_wrong_figure_fails() {
    let r = rules();
    // Figure 0 (R's) is in supply: it cannot be held, nor released.
    for (k, v) in [
        ("hold", "0"),
        ("release", "0"),
        ("hold", "999"),
        ("release", "999"),
    ] {
        let err = Game::from_position(Arc::clone(&r), &position(&r, &[(k, v)])).unwrap_err();
        assert!(matches!(err, GameError::Hook(_)), "{k} {v}: {err}");
    }
}
