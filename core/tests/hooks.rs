//! The hook API end to end, with a toy expansion that uses every kind of hook:
//! declarations and binding, placement filters, deployment-step alternatives, an out-of-turn
//! prompt window, strength deltas, score drafts, removal notifications, state slots,
//! final bonuses, and failure with rollback.

use carcassonne_core::*;
use std::sync::Arc;

struct Toy {
    fail_on_take: bool,
}

// Ids are deterministic: the toy is the only expansion, so its declarations come first.
const TOKEN: SlotId = SlotId(0); // per player: 1 = holds a token
const REMOVED: SlotId = SlotId(1); // per game: figures returned so far
const TAKE: VerbId = VerbId(0);
const BONUS: LabelId = LabelId(0);
const OUT_OF_TURN: u16 = 7;

/// The toy's only prompt: deploy out of turn on the tile just placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ToyPrompt {
    OutOfTurn,
}

impl PromptKind for ToyPrompt {
    fn encode(self) -> PromptCode {
        match self {
            ToyPrompt::OutOfTurn => PromptCode {
                tag: OUT_OF_TURN,
                arg: 0,
            },
        }
    }
    fn decode(c: PromptCode) -> Option<Self> {
        (c.tag == OUT_OF_TURN).then_some(ToyPrompt::OutOfTurn)
    }
}

/// The toy bound to a ruleset: its slots, and its options read once.
struct ToyRules {
    fail_on_take: bool,
    bonus: bool,
    token: PlayerSlot,
    removed: GameSlot,
}

impl Expansion for Toy {
    fn id(&self) -> &str {
        "toy"
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let token = d.player_slot("token", 0);
        let removed = d.game_slot("removed", 0);
        assert_eq!(token.id(), TOKEN);
        assert_eq!(removed.id(), REMOVED);
        assert_eq!(d.verb("take-token"), TAKE);
        assert_eq!(d.score_label("bonus"), BONUS);
        d.option(OptionDef::flag("bonus", true, "give the final bonus"))
            .map_err(|e| HookFailure(e.to_string()))?;
        let fail_on_take = self.fail_on_take;
        Ok(binder(move |b: &Binding<'_>| {
            Ok(ToyRules {
                fail_on_take,
                bonus: b.option_flag("bonus")?,
                token,
                removed,
            })
        }))
    }
}

impl BoundExpansion for ToyRules {
    fn filter_placements(
        &self,
        _: View<'_>,
        _: PlayerId,
        _: TileKindId,
        cells: &mut [PlacementCell],
    ) -> HookResult {
        for c in cells.iter_mut().filter(|c| c.pos.x > 3) {
            c.rotations = 0; // nothing east of x = 3
        }
        Ok(())
    }

    fn deploy_step_actions(&self, v: View<'_>, p: PlayerId, out: &mut Vec<Action>) -> HookResult {
        if v.get(self.token.of(p)) == 0 {
            out.push(Action::Custom(CustomAction {
                expansion: ExpansionIndex(0),
                verb: TAKE,
                figure: None,
                segment: None,
                value: 0,
            }));
        }
        Ok(())
    }

    fn apply_action(&self, ctx: &mut Ctx<'_>, p: PlayerId, a: CustomAction) -> HookResult {
        assert_eq!(a.verb, TAKE);
        ctx.set(self.token.of(p), 1);
        if self.fail_on_take {
            return Err("the token bag is empty".into());
        }
        Ok(())
    }

    fn open_window(&self, ctx: &mut Ctx<'_>, w: Window) -> HookResult {
        if w == Window::AfterDeploy {
            let active = ctx.state().active_player();
            for i in 0..ctx.state().players().len() {
                let p = PlayerId(i as u8);
                if i != active.index() && ctx.get(self.token.of(p)) == 1 {
                    ctx.prompt(p, ToyPrompt::OutOfTurn);
                }
            }
        }
        Ok(())
    }

    fn prompt_actions(&self, v: View<'_>, p: Prompt, out: &mut Vec<Action>) -> HookResult {
        assert_eq!(p.decode::<ToyPrompt>(), Ok(ToyPrompt::OutOfTurn));
        let pos = v.state.board().tile(v.state.last_placed().unwrap()).pos;
        v.deployments_on_tile(p.player, pos, out);
        out.push(Action::Pass);
        Ok(())
    }

    fn apply_prompt(&self, ctx: &mut Ctx<'_>, p: Prompt, a: Action) -> HookResult {
        if let Action::Deploy { figure, segment } = a {
            ctx.deploy(p.player, figure, segment)?;
            ctx.set(self.token.of(p.player), 0);
        }
        Ok(())
    }

    fn strength_delta(&self, v: View<'_>, f: FigureId) -> HookResult<i32> {
        // Seat 1's followers are worth a half more.
        Ok(i32::from(v.state.figure(f).owner == PlayerId(1)))
    }

    fn before_scoring(&self, _: &mut Ctx<'_>, d: &mut ScoreDraft) -> HookResult {
        for a in &mut d.awards {
            a.points *= 10; // makes the draft edit visible
        }
        Ok(())
    }

    fn on_figure_removed(&self, ctx: &mut Ctx<'_>, _: FigureId, _: RemovalReason) -> HookResult {
        let n = ctx.get(self.removed);
        ctx.set(self.removed, n + 1);
        Ok(())
    }

    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        if self.bonus {
            ctx.award(PlayerId(1), 5, BONUS);
        }
        Ok(())
    }
}

/// The base game with one expansion.
fn rules(expansion: impl Expansion + 'static) -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .expansion(Arc::new(expansion))
            .build()
            .unwrap(),
    )
}

fn position(r: &Ruleset) -> Position {
    let t = |n: &str| r.tiles().find(n).unwrap();
    Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![StartTile {
            kind: t("E"),
            pos: Pos::new(0, 0),
            rotation: Rotation::R0,
        }],
        draws: vec![t("E"), t("U"), t("U")],
        ..Position::default()
    }
}

#[test]
fn prompts_reach_other_players_and_drafts_can_be_rewritten() {
    let r = rules(Toy {
        fail_on_take: false,
    });
    let mut g = Game::from_position(Arc::clone(&r), &position(&r)).unwrap();
    assert_eq!(g.decision().player, PlayerId(0));
    assert!(g
        .actions()
        .iter()
        .all(|a| matches!(a, Action::Place { pos, .. } if pos.x <= 3)));
    // R closes the city with a cap and, instead of deploying, takes a token.
    g.apply(Action::Place {
        pos: Pos::new(0, -1),
        rotation: Rotation::R180,
    })
    .unwrap();
    // Deployment step: base deployments, pass, and the toy's take-token alternative.
    let take = *g
        .actions()
        .iter()
        .find(|a| matches!(a, Action::Custom(_)))
        .expect("take-token offered");
    g.apply(take).unwrap();
    assert_eq!(g.state().slot(TOKEN, 0), 1);
    // B's turn: B places a road tile and passes; R holds a token and is prompted out of turn.
    assert_eq!(g.decision().player, PlayerId(1));
    let place = *g
        .actions()
        .iter()
        .find(|a| matches!(a, Action::Place { .. }))
        .unwrap();
    g.apply(place).unwrap();
    if matches!(g.decision().kind, DecisionKind::Deploy { .. }) {
        g.apply(Action::Pass).unwrap();
    }
    assert_eq!(g.decision().player, PlayerId(0), "R answers the prompt");
    assert!(matches!(
        g.decision().kind,
        DecisionKind::Prompt(p) if p.decode::<ToyPrompt>() == Ok(ToyPrompt::OutOfTurn)
    ));
    let deploy = *g
        .actions()
        .iter()
        .find(|a| matches!(a, Action::Deploy { .. }))
        .expect("deployments offered");
    g.apply(deploy).unwrap();
    assert_eq!(g.state().slot(TOKEN, 0), 0, "the token was spent");
    assert_eq!(
        g.state()
            .in_supply(PlayerId(0), FigureKindId::SMALL_FOLLOWER),
        6
    );
    // Play to the end and check the final bonus.
    while !g.is_over() {
        let a = *g
            .actions()
            .iter()
            .find(|a| matches!(a, Action::Place { .. } | Action::Pass))
            .unwrap_or(&g.actions()[0]);
        g.apply(a).unwrap();
    }
    let bonus = g
        .state()
        .events()
        .iter()
        .find(|e| e.source == ScoreSource::Label(BONUS))
        .expect("bonus event");
    assert_eq!((bonus.player, bonus.points), (PlayerId(1), 5));
    // Final scoring of R's follower went through before_scoring (points × 10).
    assert!(g
        .state()
        .events()
        .iter()
        .filter(|e| e.player == PlayerId(0))
        .all(|e| e.points % 10 == 0));
}

#[test]
fn a_failing_hook_rolls_the_action_back() {
    let r = rules(Toy { fail_on_take: true });
    let mut g = Game::from_position(Arc::clone(&r), &position(&r)).unwrap();
    g.apply(Action::Place {
        pos: Pos::new(0, -1),
        rotation: Rotation::R180,
    })
    .unwrap();
    let before = format!("{:?}", g.state());
    let take = *g
        .actions()
        .iter()
        .find(|a| matches!(a, Action::Custom(_)))
        .unwrap();
    let err = g.apply(take).unwrap_err();
    match err {
        ActionError::Hook(HookError {
            expansion,
            hook,
            message,
        }) => {
            assert_eq!(
                (expansion.as_str(), hook, message.as_str()),
                ("toy", "apply_action", "the token bag is empty")
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        before,
        format!("{:?}", g.state()),
        "state unchanged, slot write undone"
    );
}

#[test]
fn strength_deltas_decide_majorities_and_removals_are_reported() {
    let r = rules(Toy {
        fail_on_take: false,
    });
    let t = |n: &str| r.tiles().find(n).unwrap();
    let at = |kind, x, y, rotation| StartTile {
        kind,
        pos: Pos::new(x, y),
        rotation,
    };
    let knight = |p, y| PositionFigure {
        player: PlayerId(p),
        kind: FigureKindId::SMALL_FOLLOWER,
        pos: Pos::new(0, y),
        segment: 0,
    };
    // R's knight south, B's knight north; the drawn G closes a 3-tile city between them.
    let p = Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![
            at(t("E"), 0, 0, Rotation::R0),
            at(t("E"), 0, -2, Rotation::R180),
        ],
        figures: vec![knight(0, 0), knight(1, -2)],
        draws: vec![t("G"), t("E")],
        ..Position::default()
    };
    let mut g = Game::from_position(Arc::clone(&r), &p).unwrap();
    let b_knight = g
        .state()
        .figures()
        .iter()
        .position(|f| f.owner == PlayerId(1) && f.loc != FigureLoc::Supply)
        .unwrap();
    assert_eq!(
        g.view().strength(FigureId(b_knight as u16)),
        Ok(3),
        "2 half-units + the toy's 1"
    );
    let close = *g
        .actions()
        .iter()
        .find(|a| matches!(a, Action::Place { pos, .. } if *pos == Pos::new(0, -1)))
        .unwrap();
    g.apply(close).unwrap();
    if matches!(g.decision().kind, DecisionKind::Deploy { .. }) {
        g.apply(Action::Pass).unwrap();
    }
    let turn: Vec<_> = g
        .state()
        .events()
        .iter()
        .filter(|e| !e.final_scoring)
        .map(|e| (e.player, e.points))
        .collect();
    assert_eq!(
        turn,
        vec![(PlayerId(1), 60)],
        "B alone wins 1.5 vs 1; the draft edit made 6 into 60"
    );
    assert_eq!(
        g.state().slot(REMOVED, 0),
        2,
        "both knights returned and were reported"
    );
}

/// The hook table declares every hook once: names are unique, and every pipeline bit is
/// a distinct single bit (only `prepare_game` shares `start_game`'s), below the window bits.
#[test]
fn the_hook_table_is_consistent() {
    let mut names: Vec<&str> = HOOKS.iter().map(|h| h.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), HOOKS.len(), "a hook is declared twice");
    let mut bits: Vec<u32> = HOOKS
        .iter()
        .filter(|h| h.set != HookSet::NONE && h.name != "prepare_game")
        .map(|h| h.set.0)
        .collect();
    assert!(bits.iter().all(|b| b.count_ones() == 1 && *b < 1 << 16));
    let n = bits.len();
    bits.sort_unstable();
    bits.dedup();
    assert_eq!(bits.len(), n, "two hooks share a bit");
    let info = |name: &str| HOOKS.iter().find(|h| h.name == name).copied().unwrap();
    assert_eq!(info("prepare_game").set, HookSet::GAME_START);
    assert_eq!(info("strength_delta").set, HookSet::STRENGTH_DELTA);
    assert_eq!(info("apply_prompt").set, HookSet::NONE);
    assert_eq!(info("apply_setting").params, ["ctx", "key", "value"]);
}

/// `Ctx` keeps the invariants it claims (issue 14): moving a figure that is not on the
/// board, or onto a segment that does not exist, is the hook's error; a supply holding a
/// tile kind the ruleset does not have fails the hook that put it there.
#[test]
fn ctx_checks_moves_and_supply_changes() {
    struct Bad(&'static str);
    impl Expansion for Bad {
        fn id(&self) -> &str {
            "bad"
        }
        fn declare(&self, _: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
            let case = self.0;
            Ok(binder(move |_| Ok(Bad(case))))
        }
    }
    impl BoundExpansion for Bad {
        fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
            match self.0 {
                "move-from-supply" => ctx.move_figure(FigureId(0), SegmentId::new(0)),
                "move-nowhere" => ctx.move_figure(FigureId(9999), SegmentId::new(0)),
                "unknown-tile" => {
                    ctx.supply_mut().groups[0].tiles.push(TileKindId(9999));
                    Ok(())
                }
                _ => Ok(()),
            }
        }
    }
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    for (case, want) in [
        ("move-from-supply", "not on the board"),
        ("move-nowhere", "no figure 9999"),
        ("unknown-tile", "put tile kind 9999 in the supply"),
    ] {
        let rules = Arc::new(
            Ruleset::builder()
                .tiles(base.clone())
                .expansion(Arc::new(Bad(case)))
                .build()
                .unwrap(),
        );
        let err = Game::new(rules, &GameSetup::new(vec!["A".into(), "B".into()], 1))
            .err()
            .unwrap_or_else(|| panic!("{case}: the game started"));
        let text = err.to_string();
        assert!(
            text.contains("bad") && text.contains(want),
            "{case}: {text}"
        );
    }
}

/// A toy whose `free_actions` (a reading hook, gateable since issue 33) is gated on a game
/// slot that `on_tile_placed` opens on every other turn: at each deployment step the free
/// action is offered exactly on those turns, and the hook, which fails if asked while the
/// slot is 0, is never asked on the others.
#[test]
fn gated_free_actions_are_asked_only_while_their_slot_is_open() {
    struct Free;
    struct FreeRules {
        me: ExpansionIndex,
        wave: VerbId,
        open: GameSlot,
    }
    impl Expansion for Free {
        fn id(&self) -> &str {
            "free"
        }
        fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
            let (me, wave, open) = (d.me(), d.verb("wave"), d.game_slot("open", 0));
            Ok(binder(move |_| Ok(FreeRules { me, wave, open })))
        }
    }
    impl BoundExpansion for FreeRules {
        fn hook_set(&self) -> HookSet {
            HookSet::ON_TILE_PLACED | HookSet::FREE_ACTIONS
        }
        fn hook_gates(&self) -> Vec<HookGate> {
            vec![HookGate {
                hooks: HookSet::FREE_ACTIONS,
                slot: self.open,
            }]
        }
        fn on_tile_placed(&self, ctx: &mut Ctx<'_>, _: Pos) -> HookResult {
            ctx.set(self.open, i64::from(ctx.state().turn() % 2 == 0));
            Ok(())
        }
        fn free_actions(&self, v: View<'_>, _: PlayerId, out: &mut Vec<Action>) -> HookResult {
            if v.get(self.open) == 0 {
                return Err("asked while the gate was shut".into());
            }
            out.push(Action::Custom(CustomAction {
                expansion: self.me,
                verb: self.wave,
                figure: None,
                segment: None,
                value: 0,
            }));
            Ok(())
        }
    }
    let mut game = Game::new(
        rules(Free),
        &GameSetup::new(vec!["A".into(), "B".into()], 5),
    )
    .unwrap();
    let (mut open_steps, mut shut_steps) = (0, 0);
    while !game.is_over() {
        if matches!(game.decision().kind, DecisionKind::Deploy { .. }) {
            let waves = game
                .actions()
                .iter()
                .filter(|a| matches!(a, Action::Custom(_)))
                .count();
            if game.state().turn() % 2 == 0 {
                assert_eq!(waves, 1, "turn {}: the free action", game.state().turn());
                open_steps += 1;
            } else {
                assert_eq!(waves, 0, "turn {}: no free action", game.state().turn());
                shut_steps += 1;
            }
        }
        // The first offer is never the free action (free actions come last).
        game.play_offered(0).unwrap();
    }
    assert!(
        open_steps > 5 && shut_steps > 5,
        "{open_steps} open, {shut_steps} shut"
    );
}

/// Free actions join an offer only as the expansion's own custom actions, each once: one
/// its deployment step already offers, a repeat, a pass and another expansion's action are
/// dropped (the pipeline compares whole only the expansion's own actions, from the end).
#[test]
fn free_actions_join_the_offer_once_and_only_as_their_own() {
    struct Free;
    struct FreeRules {
        me: ExpansionIndex,
        wave: VerbId,
    }
    impl Expansion for Free {
        fn id(&self) -> &str {
            "free"
        }
        fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
            let (me, wave) = (d.me(), d.verb("wave"));
            Ok(binder(move |_| Ok(FreeRules { me, wave })))
        }
    }
    impl FreeRules {
        fn wave(&self, expansion: ExpansionIndex, value: i32) -> Action {
            Action::Custom(CustomAction {
                expansion,
                verb: self.wave,
                figure: None,
                segment: None,
                value,
            })
        }
    }
    impl BoundExpansion for FreeRules {
        fn hook_set(&self) -> HookSet {
            HookSet::DEPLOY_STEP_ACTIONS | HookSet::FREE_ACTIONS
        }
        fn deploy_step_actions(
            &self,
            _: View<'_>,
            _: PlayerId,
            out: &mut Vec<Action>,
        ) -> HookResult {
            out.push(self.wave(self.me, 0));
            Ok(())
        }
        fn free_actions(&self, _: View<'_>, _: PlayerId, out: &mut Vec<Action>) -> HookResult {
            let other = ExpansionIndex(self.me.0 + 1);
            out.extend([
                self.wave(self.me, 0),
                self.wave(self.me, 1),
                Action::Pass,
                self.wave(other, 2),
                self.wave(self.me, 1),
                self.wave(self.me, 3),
            ]);
            Ok(())
        }
    }
    let me = ExpansionIndex(0);
    let mut game = Game::new(
        rules(Free),
        &GameSetup::new(vec!["A".into(), "B".into()], 5),
    )
    .unwrap();
    let mut steps = 0;
    while !game.is_over() && steps < 20 {
        if matches!(game.decision().kind, DecisionKind::Deploy { .. }) {
            let actions = game.actions();
            let customs: Vec<i32> = actions
                .iter()
                .filter_map(|a| match a {
                    Action::Custom(c) => {
                        assert_eq!(c.expansion, me, "another expansion's action: {a:?}");
                        Some(c.value)
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(customs, [0, 1, 3], "turn {}", game.state().turn());
            let passes = actions.iter().filter(|a| **a == Action::Pass).count();
            assert_eq!(passes, 1, "turn {}: one pass", game.state().turn());
            steps += 1;
        }
        game.play_offered(0).unwrap();
    }
    assert_eq!(steps, 20, "deployment steps seen");
}

/// A toy whose `on_turn_end` is gated on a game slot that `on_tile_placed` opens on every
/// other turn: the engine must call it on exactly those turns, and never the ungated
/// `after_scoring` less often than before.
#[test]
fn gated_hooks_run_only_while_their_slot_is_open() {
    struct Gated(&'static str);
    struct GatedRules {
        case: &'static str,
        open: GameSlot,
        calls: GameSlot,
        opened: GameSlot,
    }
    impl Expansion for Gated {
        fn id(&self) -> &str {
            "gated"
        }
        fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
            let (open, calls, opened) = (
                d.game_slot("open", 0),
                d.game_slot("calls", 0),
                d.game_slot("opened", 0),
            );
            let case = self.0;
            Ok(binder(move |_| {
                Ok(GatedRules {
                    case,
                    open,
                    calls,
                    opened,
                })
            }))
        }
    }
    impl BoundExpansion for GatedRules {
        fn hook_set(&self) -> HookSet {
            HookSet::ON_TILE_PLACED | HookSet::ON_TURN_END
        }
        fn hook_gates(&self) -> Vec<HookGate> {
            let (hooks, slot) = match self.case {
                "deploy-step" => (HookSet::DEPLOY_STEP_ACTIONS, self.open),
                "outside-set" => (HookSet::FINAL_SCORING, self.open),
                _ => (HookSet::ON_TURN_END, self.open),
            };
            vec![HookGate { hooks, slot }]
        }
        fn on_tile_placed(&self, ctx: &mut Ctx<'_>, _: Pos) -> HookResult {
            let open = i64::from(ctx.state().turn() % 2 == 0);
            ctx.set(self.open, open);
            let opened = ctx.get(self.opened);
            ctx.set(self.opened, opened + open);
            Ok(())
        }
        fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
            if ctx.get(self.open) == 0 {
                return Err("called while the gate was shut".into());
            }
            let calls = ctx.get(self.calls);
            ctx.set(self.calls, calls + 1);
            Ok(TurnEndVerdict::Next)
        }
    }
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let build = |case| {
        Ruleset::builder()
            .tiles(base.clone())
            .expansion(Arc::new(Gated(case)))
            .build()
    };
    let rules = Arc::new(build("ok").unwrap());
    let mut game = Game::new(
        Arc::clone(&rules),
        &GameSetup::new(vec!["A".into(), "B".into()], 3),
    )
    .unwrap();
    while !game.is_over() {
        game.play_offered(0).unwrap();
    }
    let v = game.view();
    let slot = |name: &str| {
        let i = rules.slots().iter().position(|d| d.name == name).unwrap();
        v.state.slot(SlotId(i as u16), 0)
    };
    assert!(
        slot("opened") > 10,
        "the gate opened {} times",
        slot("opened")
    );
    assert_eq!(slot("calls"), slot("opened"), "one call per open turn end");
    // What cannot be gated is refused when the ruleset is built, naming the expansion.
    for (case, want) in [
        ("deploy-step", "cannot gate"),
        ("outside-set", "outside its hook set"),
    ] {
        let err = build(case).err().unwrap_or_else(|| panic!("{case}: built"));
        let text = err.to_string();
        assert!(
            text.contains("gated") && text.contains(want),
            "{case}: {text}"
        );
    }
}

/// A toy whose `on_tile_drawn` and `on_turn_end` wait for the empty supply
/// (`hooks_once_supply_empty`) and whose `on_tile_placed` waits for a follower out of
/// supply (`figure_gates`): each fails if called with its gate shut, and counts its calls,
/// which must equal the times the gate was open (the last tile's draw and turn end; the
/// placements made while a follower was out, counted by the test).
#[test]
fn supply_and_figure_gates_call_exactly_while_open() {
    struct Waits(&'static str);
    struct WaitsRules {
        case: &'static str,
        drawn: GameSlot,
        ended: GameSlot,
        placed: GameSlot,
    }
    impl Expansion for Waits {
        fn id(&self) -> &str {
            "waits"
        }
        fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
            let (drawn, ended, placed) = (
                d.game_slot("drawn", 0),
                d.game_slot("ended", 0),
                d.game_slot("placed", 0),
            );
            let case = self.0;
            Ok(binder(move |_| {
                Ok(WaitsRules {
                    case,
                    drawn,
                    ended,
                    placed,
                })
            }))
        }
    }
    const FOLLOWER: FigureKindId = FigureKindId(0);
    fn follower_out(v: &View<'_>) -> bool {
        let per = v.rules.figure_kind(FOLLOWER).per_player;
        (0..v.state.players().len()).any(|p| v.state.in_supply(PlayerId(p as u8), FOLLOWER) < per)
    }
    impl BoundExpansion for WaitsRules {
        fn hook_set(&self) -> HookSet {
            HookSet::ON_TILE_DRAWN | HookSet::ON_TILE_PLACED | HookSet::ON_TURN_END
        }
        fn hooks_once_supply_empty(&self) -> HookSet {
            match self.case {
                "deploy-step" => HookSet::DEPLOY_STEP_ACTIONS,
                "outside-set" => HookSet::FINAL_SCORING,
                _ => HookSet::ON_TILE_DRAWN | HookSet::ON_TURN_END,
            }
        }
        fn figure_gates(&self) -> Vec<FigureGate> {
            let kind = match self.case {
                "no-such-kind" => FigureKindId(200),
                _ => FOLLOWER,
            };
            vec![FigureGate {
                hooks: HookSet::ON_TILE_PLACED,
                kind,
            }]
        }
        fn on_tile_drawn(&self, ctx: &mut Ctx<'_>, _: TileKindId) -> HookResult<DrawVerdict> {
            if ctx.state().supply().remaining() != 0 {
                return Err("on_tile_drawn called with tiles left".into());
            }
            let n = ctx.get(self.drawn);
            ctx.set(self.drawn, n + 1);
            Ok(DrawVerdict::Keep)
        }
        fn on_tile_placed(&self, ctx: &mut Ctx<'_>, _: Pos) -> HookResult {
            if !follower_out(&ctx.view()) {
                return Err("on_tile_placed called with every follower in supply".into());
            }
            let n = ctx.get(self.placed);
            ctx.set(self.placed, n + 1);
            Ok(())
        }
        fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
            if ctx.state().supply().remaining() != 0 {
                return Err("on_turn_end called with tiles left".into());
            }
            let n = ctx.get(self.ended);
            ctx.set(self.ended, n + 1);
            Ok(TurnEndVerdict::Next)
        }
    }
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let build = |case| {
        Ruleset::builder()
            .tiles(base.clone())
            .expansion(Arc::new(Waits(case)))
            .build()
    };
    let rules = Arc::new(build("ok").unwrap());
    for seed in 0..4 {
        let mut game = Game::new(
            Arc::clone(&rules),
            &GameSetup::new(vec!["A".into(), "B".into(), "C".into()], seed),
        )
        .unwrap();
        // Placements made while a follower was out (on_tile_placed runs before the
        // deployment step, so the figures are those of the moment of the placement).
        let mut out_placements = 0i64;
        play_randomly(&mut game, seed, |game| {
            let placing = matches!(game.decision().kind, DecisionKind::PlaceTile { .. });
            if placing && follower_out(&game.view()) {
                out_placements += 1;
            }
        });
        let v = game.view();
        let slot = |name: &str| {
            let i = rules.slots().iter().position(|d| d.name == name).unwrap();
            v.state.slot(SlotId(i as u16), 0)
        };
        assert!(out_placements > 30, "seed {seed}: {out_placements}");
        assert_eq!(
            slot("placed"),
            out_placements,
            "seed {seed}: one call per placement with a follower out"
        );
        // The last tile's draw and its turn's end: once each.
        assert_eq!(
            slot("drawn"),
            1,
            "seed {seed}: on_tile_drawn once the supply is empty"
        );
        assert_eq!(
            slot("ended"),
            1,
            "seed {seed}: on_turn_end once the supply is empty"
        );
    }
    for (case, want) in [
        ("deploy-step", "cannot gate"),
        ("outside-set", "outside its hook set"),
        ("no-such-kind", "figure kind that is not declared"),
    ] {
        let err = build(case).err().unwrap_or_else(|| panic!("{case}: built"));
        let text = err.to_string();
        assert!(
            text.contains("waits") && text.contains(want),
            "{case}: {text}"
        );
    }
}

/// `on_tile_placed_for`: an expansion that claims only the tile kinds with a centre site
/// (cloisters) has its `on_tile_placed` called for exactly those placements (it fails on
/// any other), while a second one that claims every kind (the default) is still called at
/// every placement, in load order after the first.
#[test]
fn on_tile_placed_runs_only_for_the_claimed_tile_kinds() {
    let (rules, site_kinds) = site_rules();
    for id in rules.tiles().iter().map(|(id, _)| id) {
        let want = if site_kinds.contains(&id) { 0b11 } else { 0b10 };
        assert_eq!(rules.tile_placed_members(id), want, "tile kind {}", id.0);
    }
    for seed in 0..4 {
        let (game, placements, site_placements) = play_counting(&rules, &site_kinds, seed);
        let calls = |e: usize| slot_of(&game, "placed", e);
        assert_eq!(
            calls(0),
            site_placements,
            "seed {seed}: cloister tiles only"
        );
        assert_eq!(calls(1), placements, "seed {seed}: every placement");
    }
}

/// `opens_window_for`: an expansion that opens the `BeforeScoring` window only after tile
/// kinds with a centre site (cloisters) has it called exactly in the turns that placed one
/// (it fails after any other), while a second one that claims every kind (the default) is
/// called in every turn that placed a tile; windows that follow no placement (`TurnStart`)
/// are never filtered by tile kind.
#[test]
fn windows_after_a_placement_open_only_for_the_claimed_tile_kinds() {
    let (rules, site_kinds) = site_rules();
    for seed in 0..4 {
        let (game, placements, site_placements) = play_counting(&rules, &site_kinds, seed);
        let slot = |name: &str, e: usize| slot_of(&game, name, e);
        assert_eq!(
            slot("calls", 0),
            site_placements,
            "seed {seed}: after cloister tiles only"
        );
        assert_eq!(
            slot("calls", 1),
            placements,
            "seed {seed}: after every tile"
        );
        assert_eq!(
            slot("starts", 0),
            slot("starts", 1),
            "seed {seed}: TurnStart"
        );
        assert!(
            slot("starts", 0) >= placements,
            "seed {seed}: TurnStart every turn"
        );
    }
}

/// A toy expansion that counts its `on_tile_placed` calls (slot `placed`), its
/// `BeforeScoring` windows (`calls`) and its `TurnStart` windows (`starts`); with `true` it
/// claims only the tile kinds with a centre site for the first two
/// (`on_tile_placed_for`, `opens_window_for`) and fails if called after another kind.
struct SitesOnly(bool);

struct SitesOnlyRules {
    sites_only: bool,
    placed: GameSlot,
    calls: GameSlot,
    starts: GameSlot,
}

impl Expansion for SitesOnly {
    fn id(&self) -> &str {
        if self.0 {
            "sites-only"
        } else {
            "every-tile"
        }
    }
    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let placed = d.game_slot("placed", 0);
        let calls = d.game_slot("calls", 0);
        let starts = d.game_slot("starts", 0);
        let sites_only = self.0;
        Ok(binder(move |_| {
            Ok(SitesOnlyRules {
                sites_only,
                placed,
                calls,
                starts,
            })
        }))
    }
}

impl SitesOnlyRules {
    /// Counts one call in `slot`, after checking that the tile it follows was claimed.
    fn count(&self, ctx: &mut Ctx<'_>, slot: GameSlot, tile: TileKindId) -> HookResult {
        if self.sites_only && !has_site(ctx.rules(), tile) {
            return Err("called after a tile kind it did not claim".into());
        }
        let n = ctx.get(slot);
        ctx.set(slot, n + 1);
        Ok(())
    }
}

impl BoundExpansion for SitesOnlyRules {
    fn hook_set(&self) -> HookSet {
        HookSet::ON_TILE_PLACED
            | HookSet::window(Window::BeforeScoring)
            | HookSet::window(Window::TurnStart)
    }
    fn on_tile_placed_for(&self, rules: &Ruleset, tile: TileKindId) -> bool {
        !self.sites_only || has_site(rules, tile)
    }
    fn opens_window_for(&self, rules: &Ruleset, window: Window, tile: TileKindId) -> bool {
        assert_eq!(
            window,
            Window::BeforeScoring,
            "asked for a window out of its set"
        );
        !self.sites_only || has_site(rules, tile)
    }
    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: Pos) -> HookResult {
        let kind = ctx
            .view()
            .state
            .board()
            .at(pos)
            .ok_or("no tile at pos")?
            .kind;
        self.count(ctx, self.placed, kind)
    }
    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        if window == Window::TurnStart {
            let n = ctx.get(self.starts);
            ctx.set(self.starts, n + 1);
            return Ok(());
        }
        let v = ctx.view();
        let last = v.state.last_placed().ok_or("no tile placed")?;
        let kind = v.state.board().tile(last).kind;
        self.count(ctx, self.calls, kind)
    }
}

/// Plays a seeded random game of `rules` (`site_rules`): the finished game, its placements
/// and its placements of tile kinds with a centre site (some, not all); `TurnStart`'s
/// implementers are never filtered by tile kind.
fn play_counting(rules: &Arc<Ruleset>, site_kinds: &[TileKindId], seed: u64) -> (Game, i64, i64) {
    let mut game = Game::new(
        Arc::clone(rules),
        &GameSetup::new(vec!["A".into(), "B".into()], seed),
    )
    .unwrap();
    let (mut placements, mut site_placements) = (0i64, 0i64);
    play_randomly(&mut game, seed, |game| {
        if let DecisionKind::PlaceTile { tile } = game.decision().kind {
            placements += 1;
            site_placements += i64::from(site_kinds.contains(&tile));
            assert_eq!(
                rules.window_members(Window::TurnStart, game.view().state),
                0b11,
                "TurnStart is not filtered by tile kind"
            );
        }
    });
    assert!(site_placements > 0 && site_placements < placements);
    (game, placements, site_placements)
}

/// Whether a tile kind has a centre site (a cloister).
fn has_site(rules: &Ruleset, tile: TileKindId) -> bool {
    rules
        .tiles()
        .get(tile)
        .segments
        .iter()
        .any(|s| rules.kind(s.kind).shape == Shape::Site)
}

/// The base game with `SitesOnly(true)` then `SitesOnly(false)`, and its tile kinds with a
/// centre site (some, not all).
fn site_rules() -> (Arc<Ruleset>, Vec<TileKindId>) {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let rules = Arc::new(
        Ruleset::builder()
            .tiles(base)
            .expansion(Arc::new(SitesOnly(true)))
            .expansion(Arc::new(SitesOnly(false)))
            .build()
            .unwrap(),
    );
    let site_kinds: Vec<TileKindId> = rules
        .tiles()
        .iter()
        .map(|(id, _)| id)
        .filter(|&id| has_site(&rules, id))
        .collect();
    assert!(!site_kinds.is_empty() && site_kinds.len() < rules.tiles().len());
    (rules, site_kinds)
}

/// The value of expansion `e`'s game slot `name` in `game`.
fn slot_of(game: &Game, name: &str, e: usize) -> i64 {
    let v = game.view();
    let i = v
        .rules
        .slots()
        .iter()
        .position(|d| d.name == name && d.expansion.0 as usize == e)
        .unwrap();
    v.state.slot(SlotId(i as u16), 0)
}

/// Plays `game` to its end, each decision's action picked by a seeded LCG; `seen` looks at
/// every decision before it is answered.
fn play_randomly(game: &mut Game, seed: u64, mut seen: impl FnMut(&Game)) {
    let mut pick = seed;
    while !game.is_over() {
        seen(game);
        pick = pick
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let i = (pick >> 33) as usize % game.actions().len();
        game.play_offered(i).unwrap();
    }
}
