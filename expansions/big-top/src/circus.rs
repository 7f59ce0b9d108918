//! The big top and its animal tokens (BT-2 … BT-6).
//!
//! State lives in game slots: whether the big top stands on the board and its cell, the cell
//! of a circus tile placed this turn (it acts after the turn's scoring, BT-4), and how many
//! tokens of each kind have been revealed. The bag is the full stacks minus the revealed
//! tokens, so it needs no other state. A reveal takes index `random_below(bag size)` of the
//! bag laid out in token order (1, 3, 4, 5, 6, 7 points), from the game's seeded generator:
//! the same seed and actions reveal the same tokens, so a record replays exactly.

use carcassonne_core::{
    Ctx, Declare, FigureLoc, GameSlot, HookFailure, HookResult, LabelId, PlayerId, Pos,
    TileCatalog, TileKindId, View, MAX_PLAYERS,
};

use crate::TileMarks;

/// BT-1: the animal tokens of one stack as (points, how many).
pub const TOKENS: [(i32, u32); 6] = [(1, 1), (3, 4), (4, 5), (5, 3), (6, 2), (7, 1)];
/// Tokens in one stack.
pub const TOKEN_SET: u32 = 16;

/// The slots declared before binding.
#[derive(Clone, Copy, Debug)]
pub struct CircusSlots {
    on: GameSlot,
    x: GameSlot,
    y: GameSlot,
    pending: GameSlot,
    px: GameSlot,
    py: GameSlot,
    revealed: [GameSlot; 6],
    label: LabelId,
}

/// The big top rules bound to one ruleset.
#[derive(Clone, Copy, Debug)]
pub struct Circus {
    s: CircusSlots,
    /// BT-3: full stacks of tokens in the bag.
    stacks: u32,
}

impl Circus {
    /// Declares the slots and the score label.
    pub fn declare(d: &mut Declare<'_>) -> CircusSlots {
        CircusSlots {
            on: d.game_slot("bigtop-on", 0),
            x: d.game_slot("bigtop-x", 0),
            y: d.game_slot("bigtop-y", 0),
            pending: d.game_slot("circus-placed", 0),
            px: d.game_slot("circus-x", 0),
            py: d.game_slot("circus-y", 0),
            revealed: [1, 3, 4, 5, 6, 7].map(|n| d.game_slot(&format!("revealed-{n}"), 0)),
            label: d.score_label("bigtop"),
        }
    }

    /// The slot set while a circus tile placed this turn waits for the turn's scoring
    /// (gates the `AfterScoring` window: [`Circus::after_scoring`] does nothing at 0).
    pub fn pending(&self) -> GameSlot {
        self.s.pending
    }

    /// The big top on the big top's cell, if it stands on the board.
    pub fn position(&self, v: &View<'_>) -> Option<Pos> {
        (v.get(self.s.on) != 0).then(|| Pos {
            x: v.get(self.s.x) as i32,
            y: v.get(self.s.y) as i32,
        })
    }

    /// Tokens revealed so far, by kind.
    pub fn revealed(&self, v: &View<'_>) -> [u32; 6] {
        self.s.revealed.map(|slot| v.get(slot) as u32)
    }

    /// BT-4: a circus tile was placed at `pos` this turn.
    pub fn mark_pending(&self, ctx: &mut Ctx<'_>, pos: Pos) {
        ctx.set(self.s.pending, 1);
        ctx.set(self.s.px, i64::from(pos.x));
        ctx.set(self.s.py, i64::from(pos.y));
    }

    /// BT-4, BT-5: the circus under the big top scores, then the big top moves to the circus
    /// tile placed this turn.
    pub fn after_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        if ctx.get(self.s.pending) == 0 {
            return Ok(());
        }
        ctx.set(self.s.pending, 0);
        if let Some(old) = self.position(&ctx.view()) {
            self.score(ctx, old)?;
        }
        ctx.set(self.s.on, 1);
        let (x, y) = (ctx.get(self.s.px), ctx.get(self.s.py));
        ctx.set(self.s.x, x);
        ctx.set(self.s.y, y);
        Ok(())
    }

    /// BT-6: at the end the big top's circus scores once more.
    pub fn score_final(&self, ctx: &mut Ctx<'_>) -> HookResult {
        match self.position(&ctx.view()) {
            Some(at) => self.score(ctx, at),
            None => Ok(()),
        }
    }

    /// BT-2, BT-5: reveal a token; each follower on the 3×3 around `at` earns its value.
    fn score(&self, ctx: &mut Ctx<'_>, at: Pos) -> HookResult {
        let points = self.reveal(ctx)?;
        let view = ctx.view();
        let mut per_player = [0i32; MAX_PLAYERS];
        let g = view.state.graph();
        for f in view.state.figures() {
            let FigureLoc::On(seg) = f.loc else { continue };
            if f.is_neutral() || !view.rules.figure_kind(f.kind).follower {
                continue;
            }
            let node = g.segment(seg);
            if node.is_virtual() || !near(node.pos, at) {
                continue;
            }
            if let Some(n) = per_player.get_mut(f.owner.0 as usize) {
                *n += 1;
            }
        }
        let players = view.state.players().len();
        for (p, n) in per_player.into_iter().enumerate().take(players) {
            if n > 0 {
                ctx.award(PlayerId(p as u8), n * points, self.s.label);
            }
        }
        Ok(())
    }

    /// BT-2: draws one token from the bag (the full stacks less the revealed tokens).
    fn reveal(&self, ctx: &mut Ctx<'_>) -> HookResult<i32> {
        let revealed = self.revealed(&ctx.view());
        let left: [u32; 6] =
            std::array::from_fn(|i| (TOKENS[i].1 * self.stacks).saturating_sub(revealed[i]));
        let total: u32 = left.iter().sum();
        if total == 0 {
            return Err(HookFailure(
                "big top: the bag of animal tokens is empty".into(),
            ));
        }
        let mut k = ctx.random_below(total);
        for (i, n) in left.into_iter().enumerate() {
            if k < n {
                let slot = self.s.revealed[i];
                let had = ctx.get(slot);
                ctx.set(slot, had + 1);
                return Ok(TOKENS[i].0);
            }
            k -= n;
        }
        unreachable!("k < total")
    }
}

impl CircusSlots {
    /// BT-3: binds to a ruleset: as many stacks as the circus tiles need.
    pub fn bind(self, tiles: &TileCatalog, marks: &TileMarks) -> Circus {
        let circus_tiles: u32 = (0..tiles.len())
            .map(|i| TileKindId(i as u16))
            .filter(|&k| marks.of(k).0)
            .map(|k| u32::from(tiles.get(k).count))
            .sum();
        Circus {
            s: self,
            stacks: circus_tiles.div_ceil(TOKEN_SET).max(1),
        }
    }
}

/// Whether `p` is `at` or one of the eight cells around it.
pub fn near(p: Pos, at: Pos) -> bool {
    (p.x - at.x).abs() <= 1 && (p.y - at.y).abs() <= 1
}
