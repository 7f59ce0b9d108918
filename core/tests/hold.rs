//! `Ctx::hold_figure` / `Ctx::release_figure`: a figure taken off the board without going
//! back to supply (a prisoner, The Tower's TW-11) and given back later. Figures stay
//! conserved (supply + board + held = per player), occupancy stays exact, every expansion's
//! `on_figure_removed` runs, and misuse is an error that changes nothing.
//! `Ctx::repeat_deploy_step`: an action that does not spend the deployment step (The
//! Tower's ransom, TW-13) gives the whole step back.

mod common;

use carcassonne_core::*;
use common::at;
use std::sync::Arc;

/// `jail`: settings `hold` / `release` = a figure index.
struct Jail;

struct JailRules {
    removed: GameSlot,
    me: ExpansionIndex,
    free: VerbId,
    used: GameSlot,
}

impl Expansion for Jail {
    fn id(&self) -> &str {
        "jail"
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let removed = d.game_slot("removed", 0);
        let used = d.game_slot("used", 0);
        let free = d.verb("free-action");
        let me = d.me();
        Ok(binder(move |_| {
            Ok(JailRules {
                removed,
                me,
                free,
                used,
            })
        }))
    }
}

impl BoundExpansion for JailRules {
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        let f = FigureId(value.parse().map_err(|_| "not a figure index")?);
        match key {
            "hold" => ctx.hold_figure(f, RemovalReason::Expansion),
            "release" => ctx.release_figure(f),
            "repeat" => ctx.repeat_deploy_step(),
            _ => Err("unknown setting".into()),
        }
    }

    /// Offers `free-action` once per game: it does not spend the step.
    fn deploy_step_actions(&self, v: View<'_>, _: PlayerId, out: &mut Vec<Action>) -> HookResult {
        if v.get(self.used) == 0 {
            out.push(Action::Custom(CustomAction {
                expansion: self.me,
                verb: self.free,
                figure: None,
                segment: None,
                value: 0,
            }));
        }
        Ok(())
    }

    fn apply_action(&self, ctx: &mut Ctx<'_>, _: PlayerId, _: CustomAction) -> HookResult {
        ctx.set(self.used, 1);
        ctx.repeat_deploy_step()
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

#[test]
fn an_action_that_does_not_spend_the_step_gives_it_back() {
    let r = rules();
    let mut g = Game::from_position(Arc::clone(&r), &position(&r, &[])).unwrap();
    let place = *g
        .actions()
        .iter()
        .find(|a| matches!(a, Action::Place { .. }))
        .unwrap();
    g.apply(place).unwrap();
    assert!(matches!(g.decision().kind, DecisionKind::Deploy { .. }));
    let before: Vec<Action> = g.actions().to_vec();
    let free = *before
        .iter()
        .find(|a| matches!(a, Action::Custom(_)))
        .expect("free-action offered");
    g.apply(free).unwrap();
    // The same step again, core deployments included, without the used action.
    assert!(matches!(g.decision().kind, DecisionKind::Deploy { .. }));
    assert_eq!(g.decision().player, PlayerId(0));
    let after: Vec<Action> = g.actions().to_vec();
    let expected: Vec<Action> = before.into_iter().filter(|a| *a != free).collect();
    assert_eq!(after, expected);
    g.apply(Action::Pass).unwrap();
    assert_eq!(g.decision().player, PlayerId(1));
}

#[test]
fn the_step_cannot_be_repeated_from_elsewhere() {
    let r = rules();
    let err = Game::from_position(Arc::clone(&r), &position(&r, &[("repeat", "0")])).unwrap_err();
    assert!(err.to_string().contains("deployment step"), "{err}");
}
