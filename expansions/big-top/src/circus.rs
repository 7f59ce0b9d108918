//! The big top and its animal tokens (BT-2 … BT-6).
//!
//! State lives in game slots: whether the big top stands on the board and its cell, the cell
//! of a circus tile placed this turn (it acts after the turn's scoring, BT-4), and how many
//! tokens of each kind have been revealed. The bag is the full stacks minus the revealed
//! tokens, so it needs no other state. A reveal takes index `random_below(bag size)` of the
//! bag laid out in token order (1, 3, 4, 5, 6, 7 points), from the game's seeded generator:
//! the same seed and actions reveal the same tokens, so a record replays exactly. Under
//! `tokenDraws=chosen` (JCZ saves) a reveal is a `draw-token` prompt instead, one action per
//! token of the bag in that order ([`Circus::bag_size`], [`Circus::score_with`]); the final
//! reveal's token waits in a slot until final scoring.

use carcassonne_core::{
    Ctx, Declare, FigureLoc, GameSlot, HookFailure, HookResult, LabelId, PlayerId, Pos, SegmentId,
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
    /// BT-6 under `tokenDraws=chosen`: the final reveal's index in the bag + 1 (0: none).
    final_token: GameSlot,
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
            final_token: d.game_slot("final-token", 0),
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
            // The bag, read once for the draw and the reveal.
            let left = self.left(&ctx.view());
            let k = Self::random_index(ctx, &left)?;
            self.score(ctx, old, k, &left)?;
        }
        self.move_to_placed(ctx);
        Ok(())
    }

    /// BT-4 under `tokenDraws=chosen`: whether the circus placed this turn waits for a
    /// reveal (the big top stands on the board); clears the mark either way, and moves the
    /// big top at once when nothing is to score.
    pub fn take_pending(&self, ctx: &mut Ctx<'_>) -> bool {
        if ctx.get(self.s.pending) == 0 {
            return false;
        }
        ctx.set(self.s.pending, 0);
        if self.position(&ctx.view()).is_some() {
            return true;
        }
        self.move_to_placed(ctx);
        false
    }

    /// BT-4, BT-5 under `tokenDraws=chosen`: the circus under the big top scores with the
    /// token at index `k` of the bag, then the big top moves to the circus placed this turn.
    pub fn score_with(&self, ctx: &mut Ctx<'_>, k: u32) -> HookResult {
        let Some(old) = self.position(&ctx.view()) else {
            return Err(HookFailure("big top: it is not on the board".into()));
        };
        let left = self.left(&ctx.view());
        self.score(ctx, old, k, &left)?;
        self.move_to_placed(ctx);
        Ok(())
    }

    /// BT-6 under `tokenDraws=chosen`: the final reveal, kept for final scoring.
    pub fn keep_final(&self, ctx: &mut Ctx<'_>, k: u32) -> HookResult {
        if k >= self.bag_size(&ctx.view()) {
            return Err(HookFailure(format!("big top: no token {k} in the bag")));
        }
        ctx.set(self.s.final_token, i64::from(k) + 1);
        Ok(())
    }

    /// The big top goes onto the circus tile placed this turn.
    fn move_to_placed(&self, ctx: &mut Ctx<'_>) {
        ctx.set(self.s.on, 1);
        let (x, y) = (ctx.get(self.s.px), ctx.get(self.s.py));
        ctx.set(self.s.x, x);
        ctx.set(self.s.y, y);
    }

    /// BT-6: at the end the big top's circus scores once more (under `tokenDraws=chosen`
    /// with the token of the final reveal, [`Circus::keep_final`]).
    pub fn score_final(&self, ctx: &mut Ctx<'_>, chosen: bool) -> HookResult {
        let Some(at) = self.position(&ctx.view()) else {
            return Ok(());
        };
        let left = self.left(&ctx.view());
        let k = if chosen {
            match ctx.get(self.s.final_token) {
                0 => return Err(HookFailure("big top: no final token was drawn".into())),
                k => k as u32 - 1,
            }
        } else {
            Self::random_index(ctx, &left)?
        };
        self.score(ctx, at, k, &left)
    }

    /// BT-2, BT-5: reveal the token at index `k` of the bag (`left`: the tokens in it, by
    /// kind); each follower on the 3×3 around `at` earns its value.
    fn score(&self, ctx: &mut Ctx<'_>, at: Pos, k: u32, left: &[u32; 6]) -> HookResult {
        let points = self.reveal(ctx, k, left)?;
        let view = ctx.view();
        let mut per_player = [0i32; MAX_PLAYERS];
        let g = view.state.graph();
        if g.is_empty() {
            return Ok(());
        }
        let players = view.state.players().len();
        // Each seat's block of figures (neutral figures, which follow them, never count),
        // every figure's answer without a branch: whether a figure stands, and where,
        // varies from figure to figure, and those branches were mispredicted. A figure off
        // the board reads the first segment and counts 0. A virtual feature counts where
        // it stands on the board (a castle, BT-5).
        for (p, n) in per_player.iter_mut().enumerate().take(players) {
            let (_, mine) = view.state.figures_of(PlayerId(p as u8));
            *n = mine
                .iter()
                .map(|f| {
                    let (on, seg) = match f.loc {
                        FigureLoc::On(seg) => (true, seg),
                        _ => (false, SegmentId::new(0)),
                    };
                    let node = g.segment(seg);
                    let placed = !node.is_virtual() | node.anchored;
                    let dx = node.pos.x.wrapping_sub(at.x).wrapping_add(1) as u32;
                    let dy = node.pos.y.wrapping_sub(at.y).wrapping_add(1) as u32;
                    let follower = view.rules.figure_kind(f.kind).follower;
                    i32::from(on & placed & (dx <= 2) & (dy <= 2) & follower)
                })
                .sum();
        }
        debug_assert_eq!(
            per_player,
            near_followers_walk(&view, at),
            "the branch-free count differs from the figure by figure one"
        );
        for (p, n) in per_player.into_iter().enumerate().take(players) {
            if n > 0 {
                ctx.award(PlayerId(p as u8), n * points, self.s.label);
            }
        }
        Ok(())
    }

    /// The tokens left in the bag, by kind (the full stacks less the revealed tokens).
    fn left(&self, v: &View<'_>) -> [u32; 6] {
        let revealed = self.revealed(v);
        std::array::from_fn(|i| (TOKENS[i].1 * self.stacks).saturating_sub(revealed[i]))
    }

    /// BT-2: how many tokens are in the bag.
    pub fn bag_size(&self, v: &View<'_>) -> u32 {
        self.left(v).iter().sum()
    }

    /// BT-2: a random index into the bag (`left`: the tokens in it, by kind), from the
    /// game's seeded generator.
    fn random_index(ctx: &mut Ctx<'_>, left: &[u32; 6]) -> HookResult<u32> {
        match left.iter().sum() {
            0 => Err(HookFailure(
                "big top: the bag of animal tokens is empty".into(),
            )),
            total => Ok(ctx.random_below(total)),
        }
    }

    /// BT-2: takes the token at index `k` of the bag laid out in token order (1, 3, 4, 5,
    /// 6, 7 points; JCZ's `getUnusedTokens` order); its points.
    fn reveal(&self, ctx: &mut Ctx<'_>, mut k: u32, left: &[u32; 6]) -> HookResult<i32> {
        for (i, &n) in left.iter().enumerate() {
            if k < n {
                let slot = self.s.revealed[i];
                let had = ctx.get(slot);
                ctx.set(slot, had + 1);
                return Ok(TOKENS[i].0);
            }
            k -= n;
        }
        Err(HookFailure(
            "big top: no such token in the bag of animal tokens".into(),
        ))
    }
}

impl CircusSlots {
    /// BT-3: binds to a ruleset: as many stacks as the circus tiles need, those of the set
    /// `skip` left out (the other edition's list, `edition`, not in the supply).
    pub fn bind(self, tiles: &TileCatalog, marks: &TileMarks, skip: &str) -> Circus {
        let circus_tiles: u32 = (0..tiles.len())
            .map(|i| TileKindId(i as u16))
            .filter(|&k| marks.of(k).0 && tiles.get(k).set != skip)
            .map(|k| u32::from(tiles.get(k).count))
            .sum();
        Circus {
            s: self,
            stacks: circus_tiles.div_ceil(TOKEN_SET).max(1),
        }
    }
}

/// Followers per seat on the 3×3 around `at`, figure by figure with a branch for each
/// test: what [`Circus::score`] counts, for debug builds' check of its count.
fn near_followers_walk(v: &View<'_>, at: Pos) -> [i32; MAX_PLAYERS] {
    let mut per_player = [0i32; MAX_PLAYERS];
    let g = v.state.graph();
    for f in v.state.figures() {
        let FigureLoc::On(seg) = f.loc else { continue };
        match g.segment(seg).cell() {
            Some(p) if near(p, at) => {}
            _ => continue,
        }
        if f.is_neutral() || !v.rules.figure_kind(f.kind).follower {
            continue;
        }
        if let Some(n) = per_player.get_mut(f.owner.0 as usize) {
            *n += 1;
        }
    }
    per_player
}

/// Whether `p` is `at` or one of the eight cells around it.
pub fn near(p: Pos, at: Pos) -> bool {
    (p.x - at.x).abs() <= 1 && (p.y - at.y).abs() <= 1
}
