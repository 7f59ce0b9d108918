//! # Bridges, Castles & Bazaars (rules BCB-1 … BCB-16, `docs/rules/bridges-castles-bazaars.md`)
//!
//! JCZ sets `bridges-castles-and-bazaars:1` / `:2`: 12 land tiles (`tiles.toml`; tile tag
//! `bazaar`, city tag `no-castle`, road tag `inn`), 3 castles per player (2 with 5–6).
//!
//! **Tiles (BCB-1 … BCB-3).** Shuffled into the supply and placed by the base rules; the
//! inns on `BB/R.bi` and `BB/RFR.bi` score as inns when Inns & Cathedrals is loaded (its
//! IC-5 reads the `inn` tag), and JCZ's wagon links are tagged for Abbey & Mayor.
//!
//! **Castles (BCB-9 … BCB-12, `castle.rs`).** In the `BeforeScoring` window the owner of
//! the sole follower in a two-tile city the placement completed is asked `make-castle` or
//! pass (every player in turn order from the active one, as JCZ's `CastlePhase`); the
//! follower moves onto the castle, a virtual feature, and the castle takes the city's
//! place (`Ctx::take_over_feature`: the city is never scored, and other rules no longer
//! count it as a completed city, though bordering farms do); the castle scores later
//! (`after_scoring`).
//!
//! **Bazaars (BCB-13 … BCB-16, `bazaar.rs`).** A bazaar tile placed calls an auction in
//! the `AfterTurn` window, after the whole turn (a builder's second part included, as
//! JCZ's `BazaarPhase` follows its `CleanUpTurnPartPhase`; prompts `choose-tile`, `bid`,
//! `raise`/pass, `buy`/`sell`);
//! the bought tiles are placed from the `BeforeDraw` window with `Ctx::play_tile_instead`.
//!
//! **Bridges (BCB-4 … BCB-8, `bridge.rs`).** A core overlay (road `NS`, tag `bridge`): a
//! tile with a bridge is its kind's variant with that road. Placements legal only with a
//! bridge are offered while the player has one, and lay it; otherwise `on_tile_placed`
//! asks him (prompt `bridge`) before his deployment step.
//!
//! **Cost per turn.** One table lookup per placement (bazaar tile?) and one per
//! `BeforeScoring` window (a castle-base city on the placed tile?); the scoring hooks and
//! the bazaar windows are gated by slots and cost nothing while no castle waits and no
//! bazaar runs.

mod bazaar;
mod bridge;
mod castle;

pub use bazaar::{MAX_BID, MAX_LOTS};
pub use castle::MAX_CASTLES;

use bazaar::{Ask, Bazaar};
use bridge::Bridges;
use carcassonne_core::{
    binder, Action, Binder, Binding, BoundExpansion, Ctx, Declare, Expansion, FeatureKindDef,
    FeatureKindId, FigureId, HookFailure, HookGate, HookResult, HookSet, PlayerId, Pos, Prompt,
    PromptCode, PromptKind, RemovalReason, ScoreDraft, Scoring, Shape, VerbValue, View, Visible,
    Window,
};
use castle::Castles;

/// The tile tag of a tile showing a bazaar (BCB-3).
pub const BAZAAR_TAG: &str = "bazaar";
/// The city tag of a one-sided city that can never hold a castle (BCB-9, JCZ `castle-base`).
pub const NO_CASTLE_TAG: &str = "no-castle";

/// What this expansion asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BcbPrompt {
    /// BCB-9: make a castle of a city the placement completed, or pass.
    Castle,
    /// BCB-13 … BCB-15.
    Bazaar(Ask),
    /// BCB-4: lay a bridge, or pass.
    Bridge,
}

const ASKS: [Ask; 5] = [
    Ask::Choose,
    Ask::Open,
    Ask::Raise,
    Ask::BuyOrSell,
    Ask::Place,
];

impl PromptKind for BcbPrompt {
    fn encode(self) -> PromptCode {
        let tag = match self {
            BcbPrompt::Castle => 1,
            BcbPrompt::Bridge => 7,
            // Added after the bridge's tag, so earlier records keep their codes.
            BcbPrompt::Bazaar(Ask::Show) => 8,
            BcbPrompt::Bazaar(a) => 2 + ASKS.iter().position(|x| *x == a).unwrap_or(0) as u16,
        };
        PromptCode { tag, arg: 0 }
    }

    fn decode(code: PromptCode) -> Option<Self> {
        match code.tag {
            1 => Some(BcbPrompt::Castle),
            7 => Some(BcbPrompt::Bridge),
            8 => Some(BcbPrompt::Bazaar(Ask::Show)),
            t => ASKS
                .get(usize::from(t).checked_sub(2)?)
                .map(|a| BcbPrompt::Bazaar(*a)),
        }
    }
}

impl PromptKind for Ask {
    fn encode(self) -> PromptCode {
        BcbPrompt::Bazaar(self).encode()
    }

    fn decode(code: PromptCode) -> Option<Self> {
        match BcbPrompt::decode(code)? {
            BcbPrompt::Bazaar(a) => Some(a),
            BcbPrompt::Castle | BcbPrompt::Bridge => None,
        }
    }
}

/// The expansion (stateless; one value serves every ruleset).
#[derive(Debug, Default)]
pub struct BridgesCastlesBazaars;

impl BridgesCastlesBazaars {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// The expansion bound to one ruleset.
struct BcbRules {
    bridges: Bridges,
    castles: Castles,
    bazaar: Bazaar,
    /// Tile kinds with a segment that may be half of a castle (the `BeforeScoring` check).
    castle_tiles: Vec<bool>,
}

impl Expansion for BridgesCastlesBazaars {
    fn id(&self) -> &str {
        "bridges-castles-bazaars"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let slots = |d: &mut Declare<'_>, what: &str| {
            std::array::from_fn::<_, { castle::MAX_CASTLES }, _>(|k| {
                d.game_slot(&format!("castle-{k}-{what}"), 0)
            })
        };
        let (a, b, v, fig) = (slots(d, "a"), slots(d, "b"), slots(d, "v"), slots(d, "fig"));
        let waiting = d.game_slot("castles-waiting", 0);
        // BCB-4 … BCB-8: a bridge is a road overlay across two opposite field edges; it
        // makes placements legal while the player has a bridge left.
        let bridges_left = d.player_slot("bridges", 0);
        d.segment_overlay(FeatureKindId::ROAD, "NS", "bridge", Some(bridges_left))
            .map_err(|e| e.to_string())?;
        let bridge_ns = d.verb_in_words("bridge-ns", "lay a bridge north–south");
        let bridge_we = d.verb_in_words("bridge-we", "lay a bridge west–east");
        d.prompt_in_words(
            BcbPrompt::Bridge,
            "lay a bridge on the tile you placed or beside it, or pass",
        );
        let castle_kind = d
            .feature_kind(FeatureKindDef::new(
                "castle",
                Shape::Virtual,
                Scoring::Unscored,
                true,
            ))
            .map_err(|e| e.to_string())?;
        let used = d.player_slot("castles-used", 0);
        let made = d.game_slot("castles-made", 0);
        let castle_verb = d.verb_in_words("make-castle", "make a castle");
        d.prompt_in_words(
            BcbPrompt::Castle,
            "turn the town you completed into a castle, or let it score",
        );
        let castle_label = d.score_label("castle");
        let lots = |d: &mut Declare<'_>, what: &str| {
            std::array::from_fn::<_, { bazaar::MAX_LOTS }, _>(|k| {
                d.game_slot(&format!("bazaar-{k}-{what}"), 0)
            })
        };
        let (tile, owner) = (lots(d, "tile"), lots(d, "owner"));
        let auctioneer = d.game_slot("bazaar-auctioneer", 0);
        let lot = d.game_slot("bazaar-lot", 0);
        let bid = d.game_slot("bazaar-bid", 0);
        let bidder = d.game_slot("bazaar-bidder", 0);
        let held = d.game_slot("bazaar-held", 0);
        let due = d.game_slot("bazaar-due", 0);
        let from = d.game_slot("bazaar-from", 0);
        let more = d.game_slot("bazaar-more", 0);
        let show = d.verb_in_words("show-tile", "show this tile at the bazaar");
        d.verb_value(show, VerbValue::TileKind);
        // BCB-13: the tile shown is the stack's, as likely as its kind's copies left.
        d.verb_by_chance(show);
        let choose = d.verb_in_words("choose-tile", "auction the shown tile");
        let open = d.verb_in_words("bid", "bid");
        let raise = d.verb_in_words("raise", "raise the bid");
        let buy = d.verb_in_words("buy", "buy the tile, paying the bid to its bidder");
        let sell = d.verb_in_words("sell", "sell the tile to the bidder");
        d.verb_value(choose, VerbValue::Index);
        d.verb_value(open, VerbValue::Points);
        d.verb_value(raise, VerbValue::Points);
        for (ask, words) in [
            (Ask::Show, "name the next tile shown at the bazaar"),
            (Ask::Choose, "choose a shown tile to auction"),
            (Ask::Open, "open the bidding on the tile"),
            (Ask::Raise, "raise the bid, or pass"),
            (
                Ask::BuyOrSell,
                "buy the tile or sell it to the highest bidder",
            ),
            (Ask::Place, "place the tile you bought at the bazaar"),
        ] {
            d.prompt_in_words(ask, words);
        }
        let bazaar_label = d.score_label("bazaar");
        Ok(binder(move |bnd: &Binding<'_>| {
            let tiles = bnd.rules().tiles();
            let kinds: Vec<_> = (0..tiles.len())
                .map(|i| tiles.get(carcassonne_core::TileKindId(i as u16)))
                .collect();
            let base = Castles::bases_of(tiles);
            let castle_tiles: Vec<bool> = base.iter().map(|b| b.iter().any(|x| *x)).collect();
            let marked: Vec<bool> = kinds
                .iter()
                .map(|t| {
                    let own = t.variant_of.map_or(*t, |v| tiles.get(v));
                    own.has_tag(BAZAAR_TAG)
                })
                .collect();
            let no_auction = bnd.option_str("bazaarAuction")? == "no-auction";
            let [bids, raises] = Bazaar::bid_lists(bnd.me(), open, raise);
            let adjacent = bnd.option_str("bridgeReach")? == "adjacent";
            // A part switched off (JCZ without its element) leaves its tiles plain.
            let castles_on = bnd.option_flag("castles")?;
            let castle_tiles = if castles_on {
                castle_tiles
            } else {
                vec![false; castle_tiles.len()]
            };
            let marked = if bnd.option_flag("bazaars")? {
                marked
            } else {
                vec![false; kinds.len()]
            };
            Ok(BcbRules {
                bridges: Bridges {
                    left: bridges_left,
                    ns: bridge_ns,
                    we: bridge_we,
                    adjacent,
                    on: bnd.option_flag("bridges")?,
                    variants: Bridges::variant_codes(tiles),
                    exact: bnd.rules().edges_exact(),
                },
                castles: Castles {
                    a,
                    b,
                    v,
                    fig,
                    waiting,
                    kind: castle_kind,
                    used,
                    verb: castle_verb,
                    label: castle_label,
                    bases: Castles::base_bits(&base),
                    base,
                    made,
                    barn: bnd
                        .rules()
                        .expansion_index("abbey-mayor")
                        .and_then(|_| bnd.rules().figure_named("barn")),
                    end_event: bnd.option_flag("castleEndEvent")?,
                },
                bazaar: Bazaar {
                    tile,
                    owner,
                    auctioneer,
                    lot,
                    bid,
                    bidder,
                    held,
                    due,
                    from,
                    more,
                    show,
                    choose,
                    open,
                    raise,
                    buy,
                    sell,
                    label: bazaar_label,
                    marked,
                    no_auction,
                    named: bnd.option_str("bazaarDraws")? == "chosen",
                    me: bnd.me(),
                    bids,
                    raises,
                },
                castle_tiles,
            })
        }))
    }
}

impl BcbRules {
    /// BCB-9: the players who may make a castle now, in turn order from the active one.
    fn ask_castles(&self, ctx: &mut Ctx<'_>) {
        let v = ctx.view();
        let Some(last) = v.state.last_placed() else {
            return;
        };
        if !self.castle_tiles[v.state.board().tile(last).kind.0 as usize] {
            return;
        }
        let askable = self.castles.askable(&v);
        if askable == 0 {
            return;
        }
        let n = v.state.players().len();
        let first = v.state.active_player();
        for i in 0..n {
            let p = PlayerId(((first.0 as usize + i) % n) as u8);
            if askable & (1u64 << (p.0 & 63)) != 0 {
                ctx.prompt(p, BcbPrompt::Castle);
            }
        }
    }
}

impl BoundExpansion for BcbRules {
    fn hook_set(&self) -> HookSet {
        HookSet::ON_TILE_PLACED
            | HookSet::GAME_START
            | HookSet::BEFORE_SCORING
            | HookSet::FINAL_SCORING
            | HookSet::AFTER_SCORING
            | HookSet::ON_FIGURE_REMOVED
            | HookSet::window(Window::BeforeScoring)
            | HookSet::window(Window::AfterTurn)
            | HookSet::window(Window::BeforeDraw)
    }

    /// Every hook but the placement and the castle question waits on a slot.
    fn hook_gates(&self) -> Vec<HookGate> {
        vec![
            HookGate {
                hooks: HookSet::AFTER_SCORING | HookSet::ON_FIGURE_REMOVED,
                slot: self.castles.waiting,
            },
            // The farm bonus and the end (waiting castles' events, barns) once a castle
            // is made.
            HookGate {
                hooks: HookSet::BEFORE_SCORING | HookSet::FINAL_SCORING,
                slot: self.castles.made,
            },
            HookGate {
                hooks: HookSet::window(Window::AfterTurn),
                slot: self.bazaar.due,
            },
            HookGate {
                hooks: HookSet::window(Window::BeforeDraw),
                slot: self.bazaar.held,
            },
        ]
    }

    /// BCB-9: the castle question (`BeforeScoring`) follows only a tile with a castle base:
    /// after any other tile the engine skips the window, and its gate's check. (The
    /// bazaar's `AfterTurn` window follows the whole turn, whose last part may have placed
    /// another tile: its gate, `bazaar-due`, alone says whether it opens.)
    fn opens_window_for(
        &self,
        _rules: &carcassonne_core::Ruleset,
        window: Window,
        tile: carcassonne_core::TileKindId,
    ) -> bool {
        match window {
            Window::BeforeScoring => self
                .castle_tiles
                .get(usize::from(tile.0))
                .copied()
                .unwrap_or(true),
            _ => true,
        }
    }

    /// BCB-1: everyone's bridges.
    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        self.bridges.start_game(ctx);
        Ok(())
    }

    /// BCB-4, BCB-7: a bridge laid by the placement, or the bridge question; BCB-13: a
    /// bazaar tile placed calls a bazaar after the turn.
    #[inline(always)]
    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: Pos) -> HookResult {
        let player = ctx
            .state()
            .last_placer()
            .unwrap_or(ctx.state().active_player());
        if self.bridges.on_tile_placed(ctx, player)? {
            ctx.prompt(player, BcbPrompt::Bridge);
        }
        // The tile placed is the last one placed: read by its index, not looked up by
        // its cell (this runs at every placement).
        let st = ctx.state();
        let placed = match st.last_placed() {
            Some(i) if st.board().tile(i).pos == pos => Some(st.board().tile(i).kind),
            _ => st.board().at(pos).map(|t| t.kind),
        };
        if let Some(t) = placed {
            self.bazaar.on_tile_placed(ctx, t);
        }
        Ok(())
    }

    /// `bridges`: bridges left per player, `R=0,B=2` (players by name).
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        if key != "bridges" {
            return Err(HookFailure(format!(
                "unknown setting `{key}` (known: bridges)"
            )));
        }
        for item in value.split(',') {
            let (name, n) = item
                .split_once('=')
                .ok_or_else(|| HookFailure(format!("bridges: `{item}` is not NAME=COUNT")))?;
            let player = ctx.state().player_named(name)?;
            let n: i64 = n
                .trim()
                .parse()
                .map_err(|_| HookFailure(format!("bridges: `{n}` is not a number")))?;
            ctx.set(self.bridges.left.of(player), n);
        }
        Ok(())
    }

    #[inline(always)]
    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        match window {
            Window::BeforeScoring => {
                self.ask_castles(ctx);
                Ok(())
            }
            Window::AfterTurn if ctx.get(self.bazaar.due) != 0 => self.bazaar.start(ctx),
            Window::BeforeDraw if ctx.get(self.bazaar.held) != 0 => self.bazaar.before_draw(ctx),
            _ => Ok(()),
        }
    }

    #[inline(always)]
    fn prompt_actions(&self, v: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        match prompt.decode::<BcbPrompt>()? {
            BcbPrompt::Castle => {
                self.castles.options(&v, prompt.owner, prompt.player, out);
                if !out.is_empty() {
                    out.push(Action::Pass);
                }
                Ok(())
            }
            BcbPrompt::Bazaar(ask) => self.bazaar.actions(&v, prompt.player, ask, out),
            BcbPrompt::Bridge => {
                self.bridges.options(&v, prompt.owner, prompt.player, out)?;
                if !out.is_empty() {
                    out.push(Action::Pass);
                }
                Ok(())
            }
        }
    }

    #[inline(always)]
    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        match (prompt.decode::<BcbPrompt>()?, action) {
            (BcbPrompt::Castle, Action::Pass) => Ok(()),
            (BcbPrompt::Castle, Action::Custom(c)) if c.verb == self.castles.verb => {
                let (Some(fig), Some(seg)) = (c.figure, c.segment) else {
                    return Err(HookFailure("make-castle needs a figure and a city".into()));
                };
                self.castles.make(ctx, prompt.player, fig, seg)
            }
            (BcbPrompt::Bazaar(ask), a) => self.bazaar.apply(ctx, prompt.player, ask, a),
            (BcbPrompt::Bridge, Action::Pass) => Ok(()),
            (BcbPrompt::Bridge, Action::Custom(c)) => self.bridges.apply(ctx, prompt.player, c),
            (p, a) => Err(HookFailure(format!("prompt {p:?} cannot take `{a}`"))),
        }
    }

    /// BCB-12: farms bordering castles.
    #[inline(always)]
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        self.castles.farm_bonus(&ctx.view(), draft);
        Ok(())
    }

    /// BCB-12 `castleEndEvent`: the waiting castles' 0-point scorings; BCB-12 with AM-25:
    /// barns count castles too.
    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        self.castles.end_events(ctx);
        self.castles.barn_bonus(ctx);
        Ok(())
    }

    /// BCB-11, BCB-12: waiting castles score a feature completed in their vicinity.
    #[inline(always)]
    fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        self.castles.after_scoring(ctx, draft)
    }

    #[inline(always)]
    fn on_figure_removed(
        &self,
        ctx: &mut Ctx<'_>,
        figure: FigureId,
        _reason: RemovalReason,
    ) -> HookResult {
        self.castles.on_figure_removed(ctx, figure);
        Ok(())
    }

    /// The castles as badges on their tiles; the bazaar's tiles as titles.
    fn describe(&self, v: View<'_>, out: &mut Vec<Visible>) -> HookResult {
        self.castles.describe(&v, out);
        self.bazaar.describe(&v, out);
        Ok(())
    }
}

/// What the unit tests share: the set's ruleset and a seeded pick.
#[cfg(test)]
mod testing {
    use carcassonne_core::Ruleset;
    use std::path::Path;
    use std::sync::Arc;

    /// The base game with this set, as the host loads it (its manifest's tiles and options,
    /// at their defaults), the crate's code linked in.
    pub fn rules() -> Arc<Ruleset> {
        let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/expansion.toml"));
        carcassonne_rules::linked_ruleset(
            manifest,
            Arc::new(crate::BridgesCastlesBazaars::new()),
            &[],
        )
        .unwrap()
    }

    /// The next value of the tests' linear congruential generator.
    pub fn next(pick: u64) -> u64 {
        pick.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
    }
}

carcassonne_core::export_expansion!("bridges-castles-bazaars", BridgesCastlesBazaars::new());
