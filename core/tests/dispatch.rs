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
    let mut pick = 11u64;
    while !game.is_over() {
        pick = pick
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let i = (pick >> 33) as usize % game.actions().len();
        game.play_offered(i).unwrap();
    }
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
