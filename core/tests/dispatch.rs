//! The hook dispatch with more expansions than a member mask has bits: expansions 63 and up
//! share bit 63 and are reached by a second loop, which must call them as the first loop
//! calls the others (load order, gates applied).

use carcassonne_core::*;
use std::sync::Arc;

const EXPANSIONS: usize = 70;

/// Expansion `n` of the ruleset: counts its `on_turn_end` calls. The even ones check that
/// the even one before them was called first in the same turn end; the odd ones gate the
/// hook on a slot their `on_tile_placed` opens on even turns only.
struct Tally {
    n: usize,
    id: String,
}

struct TallyRules {
    n: usize,
    count: GameSlot,
    open: GameSlot,
}

impl Expansion for Tally {
    fn id(&self) -> &str {
        &self.id
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let (n, count, open) = (self.n, d.game_slot("count", 0), d.game_slot("open", 0));
        // Slots are numbered in load order, two per expansion.
        assert_eq!(count.id(), SlotId(2 * n as u16));
        Ok(binder(move |_| Ok(TallyRules { n, count, open })))
    }
}

impl BoundExpansion for TallyRules {
    fn hook_set(&self) -> HookSet {
        HookSet::ON_TILE_PLACED | HookSet::ON_TURN_END
    }

    fn hook_gates(&self) -> Vec<HookGate> {
        if self.n % 2 == 0 {
            return Vec::new();
        }
        vec![HookGate {
            hooks: HookSet::ON_TURN_END,
            slot: self.open,
        }]
    }

    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, _: Pos) -> HookResult {
        let even_turn = ctx.state().turn() % 2 == 0;
        ctx.set(self.open, i64::from(even_turn));
        Ok(())
    }

    fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        let mine = ctx.get(self.count);
        if self.n % 2 == 1 && ctx.get(self.open) == 0 {
            return Err("called while its gate was shut".into());
        }
        if self.n % 2 == 0 && self.n >= 2 {
            let before = ctx.state().slot(SlotId(2 * (self.n as u16 - 2)), 0);
            if before != mine + 1 {
                return Err(format!("called before tally-{}", self.n - 2).into());
            }
        }
        ctx.set(self.count, mine + 1);
        Ok(TurnEndVerdict::Next)
    }
}

/// Plays `game` to its end, each action picked by a linear congruential sequence from `pick`.
fn play_randomly(game: &mut Game, mut pick: u64) {
    while !game.is_over() {
        pick = pick
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let i = (pick >> 33) as usize % game.actions().len();
        game.play_offered(i).unwrap();
    }
}

#[test]
fn expansions_past_the_mask_are_called_in_load_order_with_their_gates() {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let mut builder = Ruleset::builder().tiles(base);
    for n in 0..EXPANSIONS {
        builder = builder.expansion(Arc::new(Tally {
            n,
            id: format!("tally-{n}"),
        }));
    }
    let rules = Arc::new(builder.build().unwrap());
    let mut game = Game::new(rules, &GameSetup::new(vec!["A".into(), "B".into()], 3)).unwrap();
    play_randomly(&mut game, 11);
    let count = |n: usize| game.state().slot(SlotId(2 * n as u16), 0);
    let turn_ends = count(0);
    assert!(turn_ends > 20, "{turn_ends} turn ends");
    for n in 0..EXPANSIONS {
        if n % 2 == 0 {
            assert_eq!(count(n), turn_ends, "tally-{n}, never gated");
        } else {
            // Open after the placements of even turns only: about half of the turn ends.
            let c = count(n);
            assert!(c > 0 && c < turn_ends, "tally-{n}: {c} of {turn_ends}");
            assert_eq!(c, count(1), "tally-{n}: as the first gated one");
        }
    }
}

/// The value of the game slot `name` of the `n`-th expansion declaring one of that name.
fn game_slot(game: &Game, n: usize, name: &str) -> i64 {
    let i = game
        .rules()
        .slots()
        .iter()
        .enumerate()
        .filter(|(_, d)| d.name == name)
        .nth(n)
        .unwrap()
        .0;
    game.state().slot(SlotId(i as u16), 0)
}

/// Expansion `n` of [`shut_gates_skip_only_when_every_implementer_is_shut`]: its
/// `BeforeDraw` window is gated on a slot that its `on_tile_placed` opens on turns where
/// `turn % 3 == n` (never for `n` 3), its `on_turn_end` waits for the empty supply; each
/// counts its calls and fails if called with its gate shut.
struct Shut(usize);

struct ShutRules {
    n: usize,
    open: GameSlot,
    windows: GameSlot,
    opened: GameSlot,
    ends: GameSlot,
}

impl Expansion for Shut {
    fn id(&self) -> &str {
        ["shut-0", "shut-1", "shut-2", "shut-3"][self.0]
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let n = self.0;
        let (open, windows, opened, ends) = (
            d.game_slot("open", 0),
            d.game_slot("windows", 0),
            d.game_slot("opened", 0),
            d.game_slot("ends", 0),
        );
        Ok(binder(move |_| {
            Ok(ShutRules {
                n,
                open,
                windows,
                opened,
                ends,
            })
        }))
    }
}

impl BoundExpansion for ShutRules {
    fn hook_set(&self) -> HookSet {
        HookSet::window(Window::BeforeDraw) | HookSet::ON_TILE_PLACED | HookSet::ON_TURN_END
    }

    fn hook_gates(&self) -> Vec<HookGate> {
        vec![HookGate {
            hooks: HookSet::window(Window::BeforeDraw),
            slot: self.open,
        }]
    }

    fn hooks_once_supply_empty(&self) -> HookSet {
        HookSet::ON_TURN_END
    }

    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, _: Pos) -> HookResult {
        // Opened for the next turn's window.
        let open = (ctx.state().turn() + 1) % 3 == self.n as u32;
        ctx.set(self.open, i64::from(open));
        let opened = ctx.get(self.opened);
        ctx.set(self.opened, opened + i64::from(open));
        Ok(())
    }

    fn open_window(&self, ctx: &mut Ctx<'_>, w: Window) -> HookResult {
        if w != Window::BeforeDraw || ctx.get(self.open) == 0 {
            return Err("window opened while its gate was shut".into());
        }
        let n = ctx.get(self.windows);
        ctx.set(self.windows, n + 1);
        Ok(())
    }

    fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        if ctx.state().supply().remaining() != 0 {
            return Err("on_turn_end called with tiles left".into());
        }
        let n = ctx.get(self.ends);
        ctx.set(self.ends, n + 1);
        Ok(TurnEndVerdict::Next)
    }
}

/// The dispatch skips a gated hook altogether when every implementer's gate is shut
/// (`Ruleset::all_shut`): with several implementers, those whose gate is open are still
/// called (once per open gate), the others never, and the hooks waiting for the empty
/// supply run once, at the last turn's end.
#[test]
fn shut_gates_skip_only_when_every_implementer_is_shut() {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let mut builder = Ruleset::builder().tiles(base);
    for n in 0..4 {
        builder = builder.expansion(Arc::new(Shut(n)));
    }
    let rules = Arc::new(builder.build().unwrap());
    let mut game = Game::new(
        Arc::clone(&rules),
        &GameSetup::new(vec!["A".into(), "B".into()], 5),
    )
    .unwrap();
    while !game.is_over() {
        game.play_offered(0).unwrap();
    }
    let slot = |n: usize, name: &str| game_slot(&game, n, name);
    for n in 0..3 {
        let (windows, opened) = (slot(n, "windows"), slot(n, "opened"));
        assert!(windows > 5, "shut-{n}: {windows} windows");
        // The last placement's opening has no later turn to use it.
        assert!(opened - windows <= 1, "shut-{n}: {windows} of {opened}");
    }
    assert_eq!(slot(3, "windows"), 0, "shut-3's gate never opens");
    for n in 0..4 {
        assert_eq!(slot(n, "ends"), 1, "shut-{n}: the last turn end only");
    }
}

/// Expansion of [`holes_gate_calls_only_while_the_board_has_a_hole`]: its `BeforeDraw`
/// window counts the windows opened while the board has a hole; gated on the holes
/// (`hooks_while_holes`) or not, as `gated` says.
struct Holes {
    gated: bool,
}

struct HolesRules {
    gated: bool,
    windows: GameSlot,
    with_holes: GameSlot,
}

impl Expansion for Holes {
    fn id(&self) -> &str {
        if self.gated {
            "holes-gated"
        } else {
            "holes-counted"
        }
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let gated = self.gated;
        let (windows, with_holes) = (d.game_slot("windows", 0), d.game_slot("with-holes", 0));
        Ok(binder(move |_| {
            Ok(HolesRules {
                gated,
                windows,
                with_holes,
            })
        }))
    }
}

impl BoundExpansion for HolesRules {
    fn hook_set(&self) -> HookSet {
        HookSet::window(Window::BeforeDraw)
    }

    fn hooks_while_holes(&self) -> HookSet {
        if self.gated {
            HookSet::window(Window::BeforeDraw)
        } else {
            HookSet::NONE
        }
    }

    fn open_window(&self, ctx: &mut Ctx<'_>, _: Window) -> HookResult {
        let holes = ctx.state().board().holes() > 0;
        if self.gated && !holes {
            return Err("window opened without a hole".into());
        }
        let (n, h) = (ctx.get(self.windows), ctx.get(self.with_holes));
        ctx.set(self.windows, n + 1);
        ctx.set(self.with_holes, h + i64::from(holes));
        Ok(())
    }
}

/// A hook waiting for a hole (`hooks_while_holes`) is called in exactly the windows that
/// open while the board has one (counted by an ungated twin), and never without.
#[test]
fn holes_gate_calls_only_while_the_board_has_a_hole() {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let rules = Arc::new(
        Ruleset::builder()
            .tiles(base)
            .expansion(Arc::new(Holes { gated: false }))
            .expansion(Arc::new(Holes { gated: true }))
            .build()
            .unwrap(),
    );
    let (mut gated, mut all) = (0, 0);
    for seed in 0..8 {
        let setup = GameSetup::new(vec!["A".into(), "B".into()], seed);
        let mut game = Game::new(Arc::clone(&rules), &setup).unwrap();
        play_randomly(&mut game, seed);
        let slot = |e: usize, name: &str| game_slot(&game, e, name);
        assert_eq!(slot(1, "windows"), slot(0, "with-holes"));
        assert_eq!(slot(1, "with-holes"), slot(1, "windows"));
        gated += slot(1, "windows");
        all += slot(0, "windows");
    }
    assert!(gated > 0 && gated < all, "{gated} of {all} windows");
}

/// Expansion `n` of [`quick_shut_tests_imply_every_gate_shut`]. Expansion 0 waits for the
/// empty supply in `on_turn_end`, for a hole in its `BeforeDraw` window, and gates its
/// `AfterScoring` window on a slot open after placements of turns divisible by 3;
/// expansion 1 gates its `on_turn_end` on a slot open after even turns' placements. Each
/// fails if called with a gate shut.
struct Quick(usize);

struct QuickRules {
    n: usize,
    open: GameSlot,
}

impl Expansion for Quick {
    fn id(&self) -> &str {
        ["quick-0", "quick-1"][self.0]
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let (n, open) = (self.0, d.game_slot("open", 0));
        Ok(binder(move |_| Ok(QuickRules { n, open })))
    }
}

impl BoundExpansion for QuickRules {
    fn hook_set(&self) -> HookSet {
        let both = HookSet::ON_TILE_PLACED | HookSet::ON_TURN_END;
        if self.n == 0 {
            both | HookSet::window(Window::BeforeDraw) | HookSet::window(Window::AfterScoring)
        } else {
            both
        }
    }

    fn hook_gates(&self) -> Vec<HookGate> {
        let hooks = if self.n == 0 {
            HookSet::window(Window::AfterScoring)
        } else {
            HookSet::ON_TURN_END
        };
        vec![HookGate {
            hooks,
            slot: self.open,
        }]
    }

    fn hooks_once_supply_empty(&self) -> HookSet {
        if self.n == 0 {
            HookSet::ON_TURN_END
        } else {
            HookSet::NONE
        }
    }

    fn hooks_while_holes(&self) -> HookSet {
        if self.n == 0 {
            HookSet::window(Window::BeforeDraw)
        } else {
            HookSet::NONE
        }
    }

    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, _: Pos) -> HookResult {
        let open = ctx.state().turn() % [3, 2][self.n] == 0;
        ctx.set(self.open, i64::from(open));
        Ok(())
    }

    fn open_window(&self, ctx: &mut Ctx<'_>, w: Window) -> HookResult {
        let open = match w {
            Window::BeforeDraw => ctx.state().board().holes() > 0,
            _ => ctx.get(self.open) != 0,
        };
        if !open {
            return Err(format!("{w:?} window opened while its gate was shut").into());
        }
        Ok(())
    }

    fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        let open = if self.n == 0 {
            ctx.state().supply().remaining() == 0
        } else {
            ctx.get(self.open) != 0
        };
        if !open {
            return Err("on_turn_end called while its gate was shut".into());
        }
        Ok(TurnEndVerdict::Next)
    }
}

/// The test `Ruleset::all_shut` reads first for a hook (chosen at build from its
/// implementers' gates: the supply, the holes, one slot, or those together) finds every
/// implementer shut only when the gates, read one by one, do: checked at every decision of
/// seeded random games, for a hook waiting for the supply or a slot (`on_turn_end`), one
/// waiting for a hole and one on a slot (the windows, where the two answers are the same);
/// a hook with an ungated implementer (`on_tile_placed`) has no test.
#[test]
fn quick_shut_tests_imply_every_gate_shut() {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let rules = Arc::new(
        Ruleset::builder()
            .tiles(base)
            .expansion(Arc::new(Quick(0)))
            .expansion(Arc::new(Quick(1)))
            .build()
            .unwrap(),
    );
    // In bit order, as `shut_answers` lists them.
    let hooks = [
        HookSet::ON_TURN_END,
        HookSet::window(Window::AfterScoring),
        HookSet::window(Window::BeforeDraw),
    ];
    // Per hook: (quick yes, quick no).
    let mut seen = [(0, 0); 3];
    // Per hook: the test's exact "no" answers.
    let mut verdicts = [0; 3];
    for seed in 0..6u64 {
        let setup = GameSetup::new(vec!["A".into(), "B".into()], seed);
        let mut game = Game::new(Arc::clone(&rules), &setup).unwrap();
        let mut pick = seed;
        loop {
            let answers = rules.shut_answers(game.state());
            let tested: Vec<HookSet> = answers.iter().map(|a| a.hook).collect();
            assert_eq!(tested, hooks, "the hooks with a test");
            for (i, a) in answers.iter().enumerate() {
                let hook = a.hook;
                assert!(
                    a.gates || !a.quick,
                    "{hook:?}: quick test shut, a gate open"
                );
                if i > 0 {
                    assert_eq!(a.quick, a.gates, "{hook:?}: one condition, one answer");
                }
                seen[i].0 += usize::from(a.quick);
                seen[i].1 += usize::from(!a.quick);
                // The test's exact "no" (a hole or the slot opening an implementer with no
                // other gate): the windows always answer, `on_turn_end` (two implementers,
                // the supply's short test) may not.
                if let Some(v) = a.verdict {
                    assert_eq!(v, a.gates, "{hook:?}: the test's verdict against the gates");
                }
                if i > 0 {
                    assert_eq!(
                        a.verdict,
                        Some(a.gates),
                        "{hook:?}: one condition, an exact answer"
                    );
                }
                verdicts[i] += usize::from(a.verdict == Some(false));
            }
            if game.is_over() {
                break;
            }
            pick = pick
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let i = (pick >> 33) as usize % game.actions().len();
            game.play_offered(i).unwrap();
        }
    }
    for (hook, (yes, no)) in hooks.iter().zip(seen) {
        assert!(yes > 50 && no > 5, "{hook:?}: {yes} shut, {no} not");
    }
    assert!(
        verdicts[1] > 5 && verdicts[2] > 5,
        "the windows' exact no: {verdicts:?}"
    );
}
