//! Bridges (BCB-4 … BCB-8): a road across a tile from one field edge to the opposite one,
//! on the tile just placed or on one of its four neighbours, at most one a turn.
//!
//! Core does the board's part through an overlay (`Declare::segment_overlay`, road `NS`
//! tagged `bridge`): every tile kind with field edges N and S (or W and E) has a variant
//! with that road added, and a tile with a bridge *is* that variant, so its road joins
//! the roads its ends meet and scores as road (BCB-6). The overlay amends placements while
//! the player has a bridge left: a tile that fits only with a bridge on it, or on the
//! neighbour its road faces, is offered, and placing it lays that bridge (BCB-7). Then, in
//! `on_tile_placed`, this module counts the bridge used, or, when none was, asks the
//! player whether to lay one (prompt `bridge`, verbs `bridge-ns` / `bridge-we` on any
//! segment of the chosen tile, or pass) before his deployment step, so a follower may
//! stand on a bridge of the tile just placed (BCB-4).
//!
//! State: the player slot `bridges` (bridges left, set by `start_game`).

use carcassonne_core::{
    Action, Board, Ctx, CustomAction, ExpansionIndex, HookFailure, HookResult, PlayerId,
    PlayerSlot, Pos, Rotation, SegmentId, Side, TileCatalog, TileKindId, VerbId, View,
};

/// The bridge rules' ids, bound to one ruleset.
pub struct Bridges {
    /// Bridges each player has left.
    pub left: PlayerSlot,
    /// Lay a bridge running north–south / west–east on the board.
    pub ns: VerbId,
    pub we: VerbId,
    /// BCB-4: bridges also on the placed tile's neighbours (printed), or on it only (JCZ).
    pub adjacent: bool,
    /// The part is played (false: nobody has a bridge; JCZ without its `bridge` element).
    pub on: bool,
    /// Per tile kind: its variants (a bridge on it, in the kind's order) with their edge
    /// codes per rotation ([`Bridges::variant_codes`]), read at every placement while the
    /// player has a bridge instead of each variant's kind in the ruleset.
    pub variants: Vec<Vec<(TileKindId, [u32; 4])>>,
    /// Whether every placed tile matches its neighbours exactly (`Ruleset::edges_exact`,
    /// as every placement and bridge is checked so): then a bridge needs a look only at
    /// its ends ([`fits_around`]).
    pub exact: bool,
}

/// Whether the edge code `code` matches every tile around `pos` (each shows the same edge
/// towards it, `Board::constraints`' test), looked up side by side and stopping at the
/// first mismatch: first the sides where `code` differs from `was` (the tile's code now:
/// a bridge's ends, where a tile usually stands in the way), then the others, unless
/// `exact` (`Ruleset::edges_exact`: the tile's code `was` matches its neighbours, so the
/// others do).
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
fn fits_around(board: &Board, pos: Pos, code: u32, was: u32, exact: bool) -> bool {
    let changed: u8 = (0..4u8)
        .map(|s| u8::from((code ^ was) >> (8 * s) & 0xFF != 0) << s)
        .sum();
    let rest = if exact { 0 } else { !changed & 0xF };
    for sides in [changed, rest] {
        let mut m = sides;
        while m != 0 {
            let s = Side::from_index(m.trailing_zeros() as u8);
            m &= m - 1;
            if let Some(n) = board.at(pos.step(s)) {
                let theirs = n.edge_code >> (8 * u32::from(s.opposite().index())) & 0xFF;
                if theirs != code >> (8 * u32::from(s.index())) & 0xFF {
                    return false;
                }
            }
        }
    }
    true
}

/// BCB-1: bridges per player: 3 with 2–4 players, 2 with more (JCZ).
pub fn per_player(players: usize) -> i64 {
    if players < 5 {
        3
    } else {
        2
    }
}

impl Bridges {
    /// [`Bridges::variants`] for a ruleset's tile kinds.
    pub fn variant_codes(tiles: &TileCatalog) -> Vec<Vec<(TileKindId, [u32; 4])>> {
        (0..tiles.len())
            .map(|i| {
                tiles
                    .get(TileKindId(i as u16))
                    .variants
                    .iter()
                    .map(|&v| (v, Rotation::ALL.map(|r| tiles.get(v).edge_code(r))))
                    .collect()
            })
            .collect()
    }

    /// BCB-1: everyone's bridges.
    pub fn start_game(&self, ctx: &mut Ctx<'_>) {
        let n = ctx.state().players().len();
        let each = if self.on { per_player(n) } else { 0 };
        for p in 0..n {
            ctx.set(self.left.of(PlayerId(p as u8)), each);
        }
    }

    /// BCB-7: a bridge the placement laid is used up; BCB-4: otherwise `player` may lay one
    /// now. Returns whether to ask him.
    pub fn on_tile_placed(&self, ctx: &mut Ctx<'_>, player: PlayerId) -> HookResult<bool> {
        if ctx.state().last_overlay().is_some() {
            let left = ctx.get(self.left.of(player));
            ctx.set(self.left.of(player), left - 1);
            return Ok(false);
        }
        // Most placements are by a player without a bridge left: answered here, the search
        // out of line (a small function on the path of every placement).
        if ctx.get(self.left.of(player)) <= 0 {
            return Ok(false);
        }
        self.any_option(&ctx.view())
    }

    /// Whether a bridge may be laid now (its player has one left and the placement laid
    /// none), without listing the options.
    #[inline(never)]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn any_option(&self, v: &View<'_>) -> HookResult<bool> {
        let mut any = false;
        self.each_bridge(v, |_, _, _| {
            any = true;
            false
        })?;
        Ok(any)
    }

    /// BCB-4, BCB-5: the bridges `player` may lay now, one action each.
    pub fn options(
        &self,
        v: &View<'_>,
        me: ExpansionIndex,
        player: PlayerId,
        out: &mut Vec<Action>,
    ) -> HookResult {
        self.each_option(v, player, |pos, variant, seg| {
            out.push(Action::Custom(CustomAction {
                expansion: me,
                verb: self.verb_of(v, pos, variant),
                figure: None,
                segment: Some(seg),
                value: 0,
            }));
            true
        })
    }

    /// Calls `f(cell, variant, first segment of its tile)` for each bridge `player` may lay
    /// now, in [`Bridges::options`]' order, while `f` returns true. A bridge another
    /// expansion vetoes (`View::overlay_allowed`: Under the Big Top's occupied acrobat
    /// space under `bridgeAcrobats=barred`) is none.
    fn each_option(
        &self,
        v: &View<'_>,
        player: PlayerId,
        f: impl FnMut(Pos, TileKindId, SegmentId) -> bool,
    ) -> HookResult {
        if v.get(self.left.of(player)) <= 0 || v.state.last_overlay().is_some() {
            return Ok(());
        }
        self.each_bridge(v, f)
    }

    /// [`Bridges::each_option`] once the player is known to have a bridge left and none
    /// was laid by the placement.
    #[inline(always)]
    fn each_bridge(
        &self,
        v: &View<'_>,
        mut f: impl FnMut(Pos, TileKindId, SegmentId) -> bool,
    ) -> HookResult {
        let st = v.state;
        let Some(last) = st.last_placed() else {
            return Ok(());
        };
        let placed = st.board().tile(last);
        let at = placed.pos;
        // The placed tile, then (printed rules) its four neighbours.
        let reach = if self.adjacent { 5 } else { 1 };
        let cells = [
            at,
            at.step(Side::N),
            at.step(Side::E),
            at.step(Side::S),
            at.step(Side::W),
        ];
        for (i, pos) in cells.into_iter().take(reach).enumerate() {
            // The placed tile by its index; its neighbours looked up.
            let t = if i == 0 {
                placed
            } else {
                let Some(t) = st.board().at(pos) else {
                    continue;
                };
                t
            };
            let Some(variants) = self.variants.get(usize::from(t.kind.0)) else {
                continue;
            };
            if t.segment_count == 0 || variants.is_empty() {
                continue;
            }
            // `View::overlay_fits` per variant.
            let q = usize::from(t.rotation.quarters());
            for &(variant, codes) in variants {
                let fits = fits_around(st.board(), pos, codes[q], t.edge_code, self.exact);
                // Debug builds check the answer against the cell's constraints.
                debug_assert_eq!(fits, {
                    let (want, mask) = st.board().constraints(pos);
                    codes[q] & mask == want
                });
                if fits && v.overlay_allowed(pos, variant)? && !f(pos, variant, t.segment(0)) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// The verb of a bridge: its direction on the board.
    fn verb_of(&self, v: &View<'_>, pos: Pos, variant: TileKindId) -> VerbId {
        let rotation = v
            .state
            .board()
            .at(pos)
            .map(|t| t.rotation)
            .unwrap_or_default();
        let added = v
            .rules
            .tiles()
            .get(variant)
            .segments
            .last()
            .map(|s| s.sides);
        match added.map(|s| s.rotate(rotation).contains(Side::N)) {
            Some(true) => self.ns,
            _ => self.we,
        }
    }

    /// Lays the bridge `action` names (one of [`Bridges::options`]).
    pub fn apply(&self, ctx: &mut Ctx<'_>, player: PlayerId, c: CustomAction) -> HookResult {
        let seg = c
            .segment
            .ok_or_else(|| HookFailure("a bridge needs a segment of its tile".into()))?;
        let pos = ctx.state().graph().segment(seg).pos;
        let kind = ctx
            .state()
            .board()
            .at(pos)
            .map(|t| t.kind)
            .ok_or_else(|| HookFailure(format!("no tile at {pos}")))?;
        let v = ctx.view();
        let mut found = None;
        for &x in &v.rules.tiles().get(kind).variants {
            if self.verb_of(&v, pos, x) == c.verb
                && v.overlay_fits(pos, x)
                && v.overlay_allowed(pos, x)?
            {
                found = Some(x);
                break;
            }
        }
        let variant = found.ok_or_else(|| HookFailure(format!("no bridge fits at {pos}")))?;
        ctx.add_overlay(pos, variant)?;
        let left = ctx.get(self.left.of(player));
        ctx.set(self.left.of(player), left - 1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{next, rules};
    use carcassonne_core::{Game, GameSetup};

    /// [`fits_around`] looking only at a bridge's ends (`exact`, `Ruleset::edges_exact`)
    /// answers as looking at every side, and as the cell's constraints, for every placed
    /// tile with a bridge variant and each variant, at every decision of seeded random
    /// games of the set.
    #[test]
    fn bridge_ends_fit_as_every_side() {
        let rules = rules();
        let tiles = rules.tiles();
        assert!(rules.edges_exact());
        let variants = Bridges::variant_codes(tiles);
        let (mut fitting, mut failing) = (0, 0);
        for seed in 0..6u64 {
            let setup = GameSetup::new(vec!["A".into(), "B".into()], seed);
            let mut game = Game::new(rules.clone(), &setup).unwrap();
            let mut pick = seed.wrapping_mul(6364136223846793005).wrapping_add(5);
            while !game.is_over() {
                let board = game.state().board();
                for t in board.tiles() {
                    let q = usize::from(t.rotation.quarters());
                    for &(_, codes) in &variants[usize::from(t.kind.0)] {
                        let ends = fits_around(board, t.pos, codes[q], t.edge_code, true);
                        let every = fits_around(board, t.pos, codes[q], t.edge_code, false);
                        let (want, mask) = board.constraints(t.pos);
                        assert_eq!(ends, every, "tile at {}", t.pos);
                        assert_eq!(every, codes[q] & mask == want, "tile at {}", t.pos);
                        fitting += usize::from(ends);
                        failing += usize::from(!ends);
                    }
                }
                pick = next(pick);
                let i = (pick >> 33) as usize % game.action_count();
                game.play_offered(i).unwrap();
            }
        }
        assert!(
            fitting > 1000 && failing > 1000,
            "{fitting} fitting, {failing} failing"
        );
    }
}
