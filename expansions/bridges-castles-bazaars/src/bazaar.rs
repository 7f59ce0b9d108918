//! Bazaars (BCB-13 … BCB-16): after a turn that placed a bazaar tile, as many tiles as
//! players are shown and auctioned; each player then places his tile on his next turn
//! instead of drawing. The flow follows JCZ's `BazaarPhase`: from the player after the
//! active one, each player without a tile in turn is the auctioneer: he chooses a shown
//! tile (`choose-tile`, value = its place in the row) and opens with a bid (`bid`); each
//! other player without a tile, in turn order, raises (`raise`) or passes once; the
//! auctioneer then buys (`buy`: pays the highest bid to its bidder) or sells (`sell`: the
//! bidder pays him and takes the tile); with no raise he pays his own bid to the bank. The
//! last player without a tile takes the last tile for free.
//!
//! Under `bazaarDraws = chosen` or chosen draws (`DrawMode::Chosen`: the table, or a JCZ
//! save, names every drawn tile) the shown tiles are named too: the active player's `show`
//! question offers one `show-tile` per tile kind the draw could take (value = the kind's
//! index), once per lot.
//!
//! State (game slots): per shown tile `bazaar-<k>-tile` (kind + 1) and `bazaar-<k>-owner`
//! (player + 1); the auction's `bazaar-auctioneer`, `-lot`, `-bid`, `-bidder` (+ 1 each,
//! auctioneer 0 = no auction); `bazaar-held` (bought tiles still to place: gates the
//! `BeforeDraw` window), `bazaar-due` (1: a bazaar tile was placed this turn; -1: this turn
//! placed the round's last bought tile, so it calls no bazaar; gates `AfterTurn`, which
//! follows the whole turn, a builder's second part included),
//! `bazaar-from` (lot + 1 of the bought tile chosen this turn: it opens no new bazaar) and
//! `bazaar-more` (this expansion keeps whole turns going past an empty supply).

use carcassonne_core::{
    Action, Ctx, CustomAction, DrawMode, ExpansionIndex, GameSlot, HookFailure, HookResult,
    LabelId, PlacementCell, PlayerId, Rotation, TileKindId, TileSupply, VerbId, View, Visible,
};

/// Players at most (the engine's 8, beyond the printed 6), so tiles shown at most.
pub const MAX_LOTS: usize = carcassonne_core::MAX_PLAYERS;

/// BCB-16: the highest bid. The printed rules set no limit and JCZ takes any number; a cap
/// keeps every prompt finite (bids 0 … 20: more than any tile has been worth in practice).
pub const MAX_BID: i32 = 20;

/// `f` with the placements of tile kind `t` now, read where core keeps them
/// ([`View::read_placements_of`]: the bazaar asks whether the bought tile fits, then core
/// offers them and `Ctx::play_tile_instead` checks the answer against them) instead of
/// copied into a list.
fn with_placements(v: &View<'_>, t: TileKindId, mut f: impl FnMut(&[PlacementCell])) -> HookResult {
    v.read_placements_of(t, &mut |cells, _| f(cells))
        .map_err(|e| HookFailure(e.to_string()))
}

/// The bazaar's ids, bound to one ruleset.
pub struct Bazaar {
    pub tile: [GameSlot; MAX_LOTS],
    pub owner: [GameSlot; MAX_LOTS],
    pub auctioneer: GameSlot,
    pub lot: GameSlot,
    pub bid: GameSlot,
    pub bidder: GameSlot,
    pub held: GameSlot,
    pub due: GameSlot,
    pub from: GameSlot,
    pub more: GameSlot,
    /// `show-tile` (chosen draws): value = the tile kind shown next.
    pub show: VerbId,
    pub choose: VerbId,
    pub open: VerbId,
    pub raise: VerbId,
    pub buy: VerbId,
    pub sell: VerbId,
    pub label: LabelId,
    /// Tile kinds that show a bazaar (BCB-3), and their variants (a bridge on them), so
    /// that a placement asks about the kind as it lies.
    pub marked: Vec<bool>,
    /// `bazaarAuction = no-auction` (JCZ's variant): a chosen tile is simply taken.
    pub no_auction: bool,
    /// `bazaarDraws = chosen`: the shown tiles are named (`show-tile`), not drawn.
    pub named: bool,
    /// This expansion, and its `bid` and `raise` actions for every bid 0 … [`MAX_BID`]
    /// ([`Bazaar::bid_lists`]): the bidding questions' lists copied from them, not built
    /// action by action at every question.
    pub me: ExpansionIndex,
    pub bids: Vec<Action>,
    pub raises: Vec<Action>,
}

/// What the bazaar asks next of whom (the prompt's question).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Under chosen draws, the active player names the next shown tile.
    Show,
    /// The auctioneer chooses a shown tile.
    Choose,
    /// The auctioneer opens the bidding.
    Open,
    /// Another player raises or passes.
    Raise,
    /// The auctioneer buys or sells.
    BuyOrSell,
    /// The active player places his bought tile.
    Place,
}

fn slot_player(v: i64) -> Option<PlayerId> {
    (v > 0).then(|| PlayerId(v as u8 - 1))
}

fn custom(me: ExpansionIndex, verb: VerbId, value: i32) -> Action {
    Action::Custom(CustomAction {
        expansion: me,
        verb,
        figure: None,
        segment: None,
        value,
    })
}

impl Bazaar {
    /// [`Bazaar::bids`] and [`Bazaar::raises`] for expansion `me` and verbs `open`, `raise`.
    pub fn bid_lists(me: ExpansionIndex, open: VerbId, raise: VerbId) -> [Vec<Action>; 2] {
        [open, raise].map(|verb| (0..=MAX_BID).map(|b| custom(me, verb, b)).collect())
    }

    /// Whether tile kind `t` shows a bazaar.
    pub fn is_marked(&self, t: TileKindId) -> bool {
        self.marked.get(t.0 as usize).copied().unwrap_or(false)
    }

    /// The lots a bazaar of this game may use: one per player (BCB-13), so the slots of
    /// the others stay 0 and the loops over lots stop here (short loops, not unrolled).
    fn lot_slots(v: &View<'_>) -> usize {
        v.state.players().len().min(MAX_LOTS)
    }

    fn lots(&self, v: &View<'_>) -> usize {
        (0..Self::lot_slots(v))
            .take_while(|&k| v.get(self.tile[k]) != 0)
            .count()
    }

    fn has_tile(&self, v: &View<'_>, p: PlayerId) -> bool {
        (0..Self::lot_slots(v)).any(|k| v.get(self.owner[k]) == i64::from(p.0) + 1)
    }

    fn next(v: &View<'_>, p: PlayerId) -> PlayerId {
        PlayerId(((p.0 as usize + 1) % v.state.players().len()) as u8)
    }

    /// BCB-13: a bazaar tile placed (not one bought at a bazaar) calls a bazaar. BCB-15: the
    /// bought tile chosen in the `BeforeDraw` window leaves the bazaar once it is placed
    /// (it is asked first, and core takes one tile instead of a draw, so no other set's
    /// tile, an abbey, replaces it).
    /// `placed`: the kind of the tile as it lies, a variant if a bridge was laid with it.
    pub fn on_tile_placed(&self, ctx: &mut Ctx<'_>, placed: TileKindId) {
        let from = ctx.get(self.from);
        if from != 0 {
            ctx.set(self.from, 0);
            let k = from as usize - 1;
            // The lot holds the kind bought, without the bridge.
            let tile = ctx.rules().tiles().get(placed).variant_of.unwrap_or(placed);
            if ctx.get(self.tile[k]) == i64::from(tile.0) + 1 {
                self.release(ctx, k);
            }
            return;
        }
        // The turn that ends a bazaar round (due -1) calls no new one, not even from its
        // builder's second part: the round is whole turns (BCB-15).
        if self.is_marked(placed) && ctx.get(self.held) == 0 && ctx.get(self.due) == 0 {
            ctx.set(self.due, 1);
        }
    }

    /// BCB-13: after the turn, the bazaar: as many tiles shown as players, unless fewer
    /// are left; the player after the active one is the first auctioneer.
    pub fn start(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let due = ctx.get(self.due);
        ctx.set(self.due, 0);
        if due < 0 {
            return Ok(());
        }
        let n = ctx.state().players().len();
        if !(2..=MAX_LOTS).contains(&n) || ctx.state().supply().remaining() < n {
            return Ok(());
        }
        if self.named || ctx.state().supply().mode == DrawMode::Chosen {
            ctx.prompt(ctx.state().active_player(), Ask::Show);
            return Ok(());
        }
        for k in 0..n {
            let Some(t) = self.take_tile(ctx) else {
                return Err(HookFailure(
                    "bazaar: the supply ran out while showing tiles".into(),
                ));
            };
            self.show_tile(ctx, k, t);
        }
        self.open_auctions(ctx);
        Ok(())
    }

    /// Lot `k` shows tile `t`, taken from the supply as a draw (it counts against a cap).
    fn show_tile(&self, ctx: &mut Ctx<'_>, k: usize, t: TileKindId) {
        let supply = ctx.supply_mut();
        supply.take(t);
        if let Some(d) = &mut supply.draws_left {
            *d = d.saturating_sub(1);
        }
        ctx.set(self.tile[k], i64::from(t.0) + 1);
        ctx.set(self.owner[k], 0);
    }

    /// BCB-14: every lot is shown; the player after the active one chooses first.
    fn open_auctions(&self, ctx: &mut Ctx<'_>) {
        let first = Self::next(&ctx.view(), ctx.state().active_player());
        ctx.set(self.auctioneer, i64::from(first.0) + 1);
        ctx.prompt(first, Ask::Choose);
    }

    /// One tile from the supply as a draw takes it: in stored order in an ordered supply,
    /// else at random with the game's RNG. Counted and found in place (no list of every
    /// drawable tile).
    fn take_tile(&self, ctx: &mut Ctx<'_>) -> Option<TileKindId> {
        let supply = ctx.state().supply();
        let n: usize = Self::drawable_groups(supply).map(<[TileKindId]>::len).sum();
        if n == 0 {
            return None;
        }
        let mut i = match supply.mode {
            DrawMode::InOrder => 0,
            _ => ctx.random_below(n as u32) as usize,
        };
        for tiles in Self::drawable_groups(ctx.state().supply()) {
            match tiles.get(i) {
                Some(&t) => return Some(t),
                None => i -= tiles.len(),
            }
        }
        None
    }

    /// The groups a draw may take from, in stored order: the active ones, or, with those
    /// empty, the first group that has any tiles.
    fn drawable_groups(supply: &TileSupply) -> impl Iterator<Item = &[TileKindId]> {
        let active = supply
            .groups
            .iter()
            .any(|g| g.active && !g.tiles.is_empty());
        let first = match active {
            true => None,
            false => supply.groups.iter().position(|g| !g.tiles.is_empty()),
        };
        supply
            .groups
            .iter()
            .enumerate()
            .filter(move |&(i, g)| if active { g.active } else { Some(i) == first })
            .map(|(_, g)| g.tiles.as_slice())
    }

    /// The tiles a draw may take, in stored order ([`Bazaar::drawable_groups`]).
    fn drawable(supply: &TileSupply) -> Vec<TileKindId> {
        Self::drawable_groups(supply).flatten().copied().collect()
    }

    /// The actions of a bazaar question asked of `p`.
    pub fn actions(
        &self,
        v: &View<'_>,
        _p: PlayerId,
        ask: Ask,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let me = self.me;
        match ask {
            Ask::Show => {
                let mut kinds = Self::drawable(v.state.supply());
                kinds.sort_unstable();
                kinds.dedup();
                out.extend(
                    kinds
                        .into_iter()
                        .map(|t| custom(me, self.show, i32::from(t.0))),
                );
            }
            Ask::Choose => {
                for k in 0..self.lots(v) {
                    if v.get(self.owner[k]) == 0 {
                        out.push(custom(me, self.choose, k as i32));
                    }
                }
            }
            Ask::Open => out.extend_from_slice(&self.bids),
            Ask::Raise => {
                let bid = v.get(self.bid) as i32;
                match raises_over(&self.raises, bid) {
                    Some(raises) => out.extend_from_slice(raises),
                    None => out.extend((bid + 1..=MAX_BID).map(|b| custom(me, self.raise, b))),
                }
                out.push(Action::Pass);
            }
            Ask::BuyOrSell => {
                out.push(custom(me, self.buy, 0));
                out.push(custom(me, self.sell, 0));
            }
            // Queued with `prompt_placements_next`: core offers the bought tile's
            // placements by index and never asks for this list.
            Ask::Place => {}
        }
        Ok(())
    }

    /// The bought tile `p` still has to place: (its lot, its kind).
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn held_by(&self, v: &View<'_>, p: PlayerId) -> Option<(usize, TileKindId)> {
        (0..Self::lot_slots(v)).find_map(|k| {
            let t = v.get(self.tile[k]);
            (t != 0 && v.get(self.owner[k]) == i64::from(p.0) + 1)
                .then(|| (k, TileKindId(t as u16 - 1)))
        })
    }

    /// Applies an answer to a bazaar question.
    pub fn apply(&self, ctx: &mut Ctx<'_>, p: PlayerId, ask: Ask, action: Action) -> HookResult {
        match (ask, action) {
            (Ask::Show, Action::Custom(c)) if c.verb == self.show => {
                let t = u16::try_from(c.value)
                    .ok()
                    .map(TileKindId)
                    .filter(|t| Self::drawable(ctx.state().supply()).contains(t))
                    .ok_or_else(|| {
                        HookFailure(format!(
                            "show-tile: tile kind {} cannot be drawn now",
                            c.value
                        ))
                    })?;
                let k = self.lots(&ctx.view());
                self.show_tile(ctx, k, t);
                if k + 1 < ctx.state().players().len() {
                    ctx.prompt_next(p, Ask::Show);
                } else {
                    self.open_auctions(ctx);
                }
                Ok(())
            }
            (Ask::Choose, Action::Custom(c)) if c.verb == self.choose => {
                let k = c.value as usize;
                if k >= self.lots(&ctx.view()) || ctx.get(self.owner[k]) != 0 {
                    return Err(HookFailure(format!("choose-tile: no tile {k} on offer")));
                }
                if self.no_auction {
                    ctx.set(self.owner[k], i64::from(p.0) + 1);
                    self.next_auctioneer(ctx, p);
                    return Ok(());
                }
                ctx.set(self.lot, k as i64 + 1);
                ctx.prompt_next(p, Ask::Open);
                Ok(())
            }
            (Ask::Open, Action::Custom(c)) if c.verb == self.open => {
                self.take_bid(ctx, p, c.value, 0)?;
                self.next_bidder(ctx, p)
            }
            (Ask::Raise, Action::Custom(c)) if c.verb == self.raise => {
                let bid = ctx.get(self.bid) as i32;
                self.take_bid(ctx, p, c.value, bid + 1)?;
                self.next_bidder(ctx, p)
            }
            (Ask::Raise, Action::Pass) => self.next_bidder(ctx, p),
            (Ask::BuyOrSell, Action::Custom(c)) if c.verb == self.buy => self.settle(ctx, true),
            (Ask::BuyOrSell, Action::Custom(c)) if c.verb == self.sell => self.settle(ctx, false),
            (Ask::Place, Action::Place { pos, rotation }) => self.place(ctx, p, pos, rotation),
            (ask, a) => Err(HookFailure(format!(
                "the bazaar's {ask:?} question cannot take `{a}`"
            ))),
        }
    }

    fn take_bid(&self, ctx: &mut Ctx<'_>, p: PlayerId, bid: i32, least: i32) -> HookResult {
        if !(least..=MAX_BID).contains(&bid) {
            return Err(HookFailure(format!(
                "a bid must be {least} … {MAX_BID} points, not {bid} (BCB-14, BCB-16)"
            )));
        }
        ctx.set(self.bid, i64::from(bid));
        ctx.set(self.bidder, i64::from(p.0) + 1);
        Ok(())
    }

    /// BCB-14: the next player without a tile after `from` raises or passes; back at the
    /// auctioneer, he buys or sells (or buys at once, his own bid standing).
    fn next_bidder(&self, ctx: &mut Ctx<'_>, from: PlayerId) -> HookResult {
        let v = ctx.view();
        let Some(auc) = slot_player(v.get(self.auctioneer)) else {
            return Err(HookFailure("bazaar: no auction is running".into()));
        };
        let mut q = Self::next(&v, from);
        while q != auc {
            if !self.has_tile(&v, q) {
                ctx.prompt_next(q, Ask::Raise);
                return Ok(());
            }
            q = Self::next(&v, q);
        }
        if slot_player(v.get(self.bidder)) == Some(auc) {
            self.settle(ctx, true)
        } else {
            ctx.prompt_next(auc, Ask::BuyOrSell);
            Ok(())
        }
    }

    /// BCB-14: the tile goes to the auctioneer (`buy`: he pays the bid to the bidder, or
    /// to the bank when the bid is his own) or to the bidder (`sell`: he pays the
    /// auctioneer); then the next auctioneer.
    fn settle(&self, ctx: &mut Ctx<'_>, buy: bool) -> HookResult {
        let v = ctx.view();
        let (Some(auc), Some(bidder)) = (
            slot_player(v.get(self.auctioneer)),
            slot_player(v.get(self.bidder)),
        ) else {
            return Err(HookFailure("bazaar: no bid to settle".into()));
        };
        if !buy && bidder == auc {
            return Err(HookFailure(
                "sell: the auctioneer cannot sell to himself".into(),
            ));
        }
        let k = v.get(self.lot) as usize - 1;
        let points = v.get(self.bid) as i32;
        let (payer, payee) = if buy { (auc, bidder) } else { (bidder, auc) };
        if points != 0 {
            ctx.award(payer, -points, self.label);
            if payee != payer {
                ctx.award(payee, points, self.label);
            }
        }
        ctx.set(
            self.owner[k],
            i64::from(if buy { auc } else { bidder }.0) + 1,
        );
        ctx.set(self.lot, 0);
        ctx.set(self.bid, 0);
        ctx.set(self.bidder, 0);
        self.next_auctioneer(ctx, auc);
        Ok(())
    }

    /// BCB-14: the next player without a tile after `auc` is the auctioneer; the last one
    /// takes the last tile for free. Then BCB-15: the tiles wait for their owners' turns.
    fn next_auctioneer(&self, ctx: &mut Ctx<'_>, auc: PlayerId) {
        let v = ctx.view();
        let lots = self.lots(&v);
        // The lots nobody has bought: how many, and the first (no list allocated).
        let mut unsold = (0..lots).filter(|&k| v.get(self.owner[k]) == 0);
        let first = unsold.next();
        let more = unsold.next().is_some();
        let mut q = auc;
        for _ in 0..v.state.players().len() {
            q = Self::next(&v, q);
            if self.has_tile(&v, q) {
                continue;
            }
            if more {
                ctx.set(self.auctioneer, i64::from(q.0) + 1);
                ctx.prompt_next(q, Ask::Choose);
                return;
            }
            if let Some(k) = first {
                ctx.set(self.owner[k], i64::from(q.0) + 1);
            }
            break;
        }
        ctx.set(self.auctioneer, 0);
        ctx.set(self.held, lots as i64);
        // BCB-15: the bought tiles are placed even after the supply ran out, in whole
        // turns (the bazaar round is turns in the order of play: a fairy's point, JCZ's
        // `CleanUpTurnPhase`, which starts the next turn while a bazaar lasts).
        if ctx.get(self.more) == 0 {
            ctx.set_more_whole_turns(true);
            ctx.set(self.more, 1);
        }
    }

    /// BCB-15: at the start of his turn a player holding a bought tile places it instead
    /// of drawing; a tile that fits nowhere goes back into the supply and he draws.
    pub fn before_draw(&self, ctx: &mut Ctx<'_>) -> HookResult {
        if ctx.state().extra_part() {
            return Ok(());
        }
        let p = ctx.state().active_player();
        let Some((k, t)) = self.held_by(&ctx.view(), p) else {
            return Ok(());
        };
        let mut nowhere = false;
        with_placements(&ctx.view(), t, |cells| nowhere = cells.is_empty())?;
        if nowhere {
            // It fits nowhere now: back into the supply (a later draw may place it, or
            // discard it by A-4), and its owner draws.
            let supply = ctx.supply_mut();
            supply.put_back(t);
            if let Some(d) = &mut supply.draws_left {
                *d += 1;
            }
            self.release(ctx, k);
        } else {
            // Asked before any other set's offer of a tile instead of the draw; its offers
            // are the tile's placements, which core keeps (no list built here).
            ctx.prompt_placements_next(p, Ask::Place, t)?;
        }
        Ok(())
    }

    fn place(
        &self,
        ctx: &mut Ctx<'_>,
        p: PlayerId,
        pos: carcassonne_core::Pos,
        rotation: Rotation,
    ) -> HookResult {
        let Some((k, t)) = self.held_by(&ctx.view(), p) else {
            return Err(HookFailure(
                "bazaar: this player holds no bought tile".into(),
            ));
        };
        ctx.play_tile_instead(t, pos, rotation)?;
        ctx.set(self.from, k as i64 + 1);
        Ok(())
    }

    /// Lot `k` leaves the bazaar; the last one ends it.
    fn release(&self, ctx: &mut Ctx<'_>, k: usize) {
        ctx.set(self.owner[k], 0);
        let left = ctx.get(self.held) - 1;
        ctx.set(self.held, left);
        if left > 0 {
            // Keep the lot's tile listed (so lots stay numbered) but owned by nobody: mark
            // it placed with owner -1.
            ctx.set(self.owner[k], -1);
            return;
        }
        for k in 0..Self::lot_slots(&ctx.view()) {
            ctx.set(self.tile[k], 0);
            ctx.set(self.owner[k], 0);
        }
        // The round lasts to the end of this turn [JCZ: its supply is cleared at the whole
        // turn's clean-up]: a bazaar tile of this turn's second part calls no bazaar.
        ctx.set(self.due, -1);
        if ctx.get(self.more) != 0 {
            ctx.set(self.more, 0);
            ctx.set_more_whole_turns(false);
        }
    }

    /// The shown and bought tiles, as titles: who holds which, and the bid on the lot.
    pub fn describe(&self, v: &View<'_>, out: &mut Vec<Visible>) {
        let lot = v.get(self.lot) as usize;
        for k in 0..self.lots(v) {
            let owner = v.get(self.owner[k]);
            if owner < 0 {
                continue;
            }
            let t = TileKindId(v.get(self.tile[k]) as u16 - 1);
            let detail = if owner > 0 {
                "bought: placed on its owner's next turn".to_string()
            } else if lot == k + 1 {
                match slot_player(v.get(self.bidder)) {
                    Some(b) => format!(
                        "auctioned: {} points bid by player {}",
                        v.get(self.bid),
                        b.0
                    ),
                    None => "auctioned".into(),
                }
            } else {
                format!("shown (tile {k})")
            };
            out.push(Visible::Title {
                group: "Bazaar".into(),
                name: v.rules.tiles().get(t).id.clone(),
                icon: "bazaar".into(),
                holder: slot_player(owner),
                detail,
            });
        }
    }
}

/// The `raise` actions over `bid` (BCB-14): those of `raises` (one per bid 0 …
/// [`MAX_BID`], [`Bazaar::bid_lists`]) from `bid + 1` on; `None` for a bid off the table.
fn raises_over(raises: &[Action], bid: i32) -> Option<&[Action]> {
    usize::try_from(bid + 1).ok().and_then(|b| raises.get(b..))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bidding questions' lists from the tables made at bind ([`Bazaar::bid_lists`],
    /// [`raises_over`]) are the ones built bid by bid: `bid` 0 … [`MAX_BID`], and every
    /// raise over each standing bid; a bid off the table is left to the built list.
    #[test]
    fn bid_tables_give_the_built_lists() {
        let (me, open, raise) = (ExpansionIndex(3), VerbId(7), VerbId(9));
        let [bids, raises] = Bazaar::bid_lists(me, open, raise);
        let built = |verb, from: i32| -> Vec<Action> {
            (from..=MAX_BID).map(|b| custom(me, verb, b)).collect()
        };
        assert_eq!(bids, built(open, 0));
        for bid in -3..=MAX_BID + 3 {
            let table = raises_over(&raises, bid);
            match bid {
                -1..=MAX_BID => {
                    assert_eq!(table.map(<[Action]>::to_vec), Some(built(raise, bid + 1)))
                }
                _ => assert_eq!(table, None, "bid {bid}"),
            }
        }
    }
}
