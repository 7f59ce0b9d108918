//! # The Tower (rules TW-1 … TW-22)
//!
//! **Towers.** Every tile of the set carries a *tower foundation*: a segment of the new
//! centre-site kind `tower`, never scored, never completed and not occupiable, so core's
//! deployment never offers it (TW-3: no follower on a bare foundation). A tower's height
//! is kept in a game slot: the k-th foundation on the board, in placement order, has its
//! height in `tower.height.k` (1-based; placement order never changes, so the index is
//! stable). A tower is *closed* while a follower stands on its segment (TW-4).
//!
//! **Deployment-step alternatives** (`deploy_step_actions`, each the whole step, TW-5/TW-6):
//! `tower-piece` on any open tower (segment = its foundation) while the player has pieces
//! (per-player slot `tower.pieces`, 10/9/7/6/5 for 2–6 players, TW-2), and `cap-tower`
//! (value = figure kind) on any open tower of height ≥ 1 with a follower that may stand on
//! every base feature kind (small and big followers; never mayors, wagons, abbots, builders,
//! pigs or barns, from core's figure data: no name is assumed).
//!
//! **Capture** (TW-7 … TW-10): after a piece, if a follower is in reach, the placer is
//! prompted at once (before the `AfterDeploy` window and scoring): `capture` one candidate
//! or pass. Reach: the tower's tile and the cells in its row and column at distance ≤ H.
//! Only followers (core's `follower` flag) are candidates; followers in virtual features
//! (City of Carcassonne quarters) only with `cocQuarterFigures=jcz` (at (0,0)), never on a
//! place anchored at a cell (a castle, BCB-9), tower tops
//! unless `towerTopCapture=immune`. With the fan expansion Promotions (its figure state
//! `disc`, found by name at bind), an upgraded follower is never a candidate (PR-9) and a
//! downgraded one is in reach at H + 1 (AP-10). One's own follower goes back to supply; another
//! player's becomes a **prisoner**: core location `Removed` (through `Ctx::hold_figure`)
//! and figure slot `tower.jailer` = jailer seat + 1. So every figure is in supply, on the
//! board, or held (`Removed` with a jailer). Builders and pigs (figure kinds named `builder`
//! / `pig`, looked up at bind, if any) left without a follower of their owner on the feature
//! go back to supply (TW-10).
//!
//! **Exchange** (TW-12): right after a capture, if the victim holds prisoners of the
//! capturer, the captured follower goes back to the victim and one of the capturer's comes
//! back; the capturer chooses the kind (prompt, verb `exchange`, value = figure kind) when
//! there are several.
//!
//! **Ransom** (TW-13): the turn player, once per turn (a double turn is one turn: game
//! slot `tower.ransom-turn` holds the turn number + 1), with ≥ 3 points unless
//! `ransomFunds=may-go-negative`, pays 3 points to the jailer and gets one follower back
//! into his supply. Offered (`pay-ransom`, value = jailer seat + 256 × figure kind) at the start of his turn
//! (a prompt before the draw), in his deployment step (the whole step is then offered
//! again, `Ctx::repeat_deploy_step`, without the ransom), while he chooses a capture and,
//! as a free action (`free_actions`), in any other expansion's prompt asked of him.
//!
//! **The Black Tower** (option `blackTower`, BW-1 … BW-7, `docs/rules/tower-black-tower.md`):
//! each player also gets black and white pieces (`tower.black-pieces`, `tower.white-pieces`,
//! fewer normal ones). `black-tower-piece` goes where `tower-piece` goes and its capture
//! reaches along the diagonals; `white-tower-piece` goes on an open tower of height ≥ 1,
//! captures nothing and closes the tower for good. The top piece's colour is a bit per tower
//! in `tower.black-tops` / `tower.white-tops`; the capture reads the black bit (the piece
//! just placed is the top).
//!
//! **Cost.** The step's offers are one pass over the registered foundations (their slots and
//! the union-find totals, no allocation); the capture check stops at the first follower in
//! reach; prisoners are iterated, never collected; ransom checks start with `captive`.

use carcassonne_core::{
    binder, Action, Binder, Binding, BoundExpansion, Ctx, CustomAction, DecisionKind, Declare,
    DrawVerdict, Expansion, ExpansionIndex, FeatureKindDef, FeatureKindId, Figure, FigureId,
    FigureKindId, FigureLoc, FigureSlot, GameSlot, HookFailure, HookGate, HookResult, HookSet,
    LabelId, PlayerId, PlayerSlot, Pos, Prompt, PromptCode, PromptKind, RemovalReason, Ruleset,
    Scoring, SegmentId, Shape, SlotId, SlotScope, TileKindId, VerbId, VerbValue, View, Visible,
    Window,
};

/// Option keys (full).
pub const TOWER_TOP_CAPTURE: &str = "tower.towerTopCapture";
/// TW-13.
pub const RANSOM_FUNDS: &str = "tower.ransomFunds";
/// TW-8 / TW-16.
pub const COC_QUARTER_FIGURES: &str = "tower.cocQuarterFigures";
/// TW-13: when the ransom question is asked outside the deployment step.
pub const RANSOM_ASKED: &str = "tower.ransomAsked";
/// BW-1 … BW-7 (`docs/rules/tower-black-tower.md`): the fan variant's black and white pieces.
pub const BLACK_TOWER: &str = "tower.blackTower";

/// Towers whose height is kept (one game slot each). The set has 18; a tower beyond this
/// number (only possible with another tile set using the `tower` kind) takes no piece.
pub const MAX_TOWERS: usize = 32;

/// The price of a prisoner (TW-13).
pub const RANSOM: i32 = 3;

/// Tower pieces each player gets (TW-2; JCZ for 1, 7 and 8 players).
pub fn pieces_for(players: usize) -> i64 {
    match players {
        0..=2 => 10,
        3 => 9,
        4 => 7,
        5 => 6,
        6 => 5,
        7 => 4,
        _ => 3,
    }
}

/// BW-1: with the Black Tower, (normal, black, white) pieces each player gets (the fan
/// rules for 2–6 players; FanCloisterZone's table for 1, 7 and 8).
pub fn black_tower_pieces_for(players: usize) -> (i64, i64, i64) {
    match players {
        0..=2 => (8, 4, 2),
        3 => (7, 3, 2),
        4 => (6, 3, 1),
        5 => (5, 2, 1),
        6 => (4, 2, 1),
        7 => (3, 2, 1),
        _ => (2, 1, 1),
    }
}

/// The value of a `pay-ransom` action: the jailer's seat + 256 × the figure kind.
pub fn ransom_value(jailer: PlayerId, kind: FigureKindId) -> i32 {
    jailer.0 as i32 + 256 * kind.0 as i32
}

/// The Tower expansion. It keeps nothing about any ruleset.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tower;

impl Tower {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// What the Tower asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TowerPrompt {
    /// TW-7: capture a follower in reach of the tower on this segment, or pass.
    Capture { tower: i32 },
    /// TW-12: choose which of one's followers held by `victim` comes back.
    Exchange { victim: u8 },
    /// TW-13: pay a ransom at the start of one's turn, or pass.
    Ransom,
    /// TW-13 `ransomAsked=jcz`: pay a ransom after the draw, before placing it, or pass.
    RansomTile,
    /// TW-13 `jcz`/`fcz`: pay after the action (JCZ's commit step; `fcz` reopens the step).
    RansomCommit,
}

impl PromptKind for TowerPrompt {
    fn encode(self) -> PromptCode {
        match self {
            TowerPrompt::Capture { tower } => PromptCode { tag: 1, arg: tower },
            TowerPrompt::Exchange { victim } => PromptCode {
                tag: 2,
                arg: victim as i32,
            },
            TowerPrompt::Ransom => PromptCode { tag: 3, arg: 0 },
            TowerPrompt::RansomTile => PromptCode { tag: 4, arg: 0 },
            TowerPrompt::RansomCommit => PromptCode { tag: 5, arg: 0 },
        }
    }

    fn decode(code: PromptCode) -> Option<Self> {
        match code.tag {
            1 if code.arg >= 0 => Some(TowerPrompt::Capture { tower: code.arg }),
            2 if (0..=u8::MAX as i32).contains(&code.arg) => Some(TowerPrompt::Exchange {
                victim: code.arg as u8,
            }),
            3 => Some(TowerPrompt::Ransom),
            4 => Some(TowerPrompt::RansomTile),
            5 => Some(TowerPrompt::RansomCommit),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Verbs {
    piece: VerbId,
    /// BW-3: a black piece (captures along the diagonals).
    black: VerbId,
    /// BW-5: a white piece (tops the tower for good).
    white: VerbId,
    cap: VerbId,
    capture: VerbId,
    exchange: VerbId,
    ransom: VerbId,
}

#[derive(Clone, Debug)]
struct Slots {
    height: Vec<GameSlot>,
    /// The k-th foundation's segment index + 1 (0: none yet), registered as tiles land.
    at: Vec<GameSlot>,
    /// Foundations registered.
    count: GameSlot,
    pieces: PlayerSlot,
    /// BW-1: black and white pieces left.
    black: PlayerSlot,
    white: PlayerSlot,
    /// BW-3/BW-5: bit k set = the k-th tower's top piece is black / white.
    black_tops: GameSlot,
    white_tops: GameSlot,
    /// Prisoners each player holds (kept with `jailer`, for tools and tests).
    held: PlayerSlot,
    /// Each player's followers held by others (what he could ransom).
    captive: PlayerSlot,
    /// Followers held, all players together (the sum of `captive`): the ransom's hooks
    /// are called only while it is not 0 (`hook_gates`).
    captives: GameSlot,
    jailer: FigureSlot,
    captured: FigureSlot, // when taken (`captures` then): TW-12 gives back the first taken
    captures: GameSlot,
    ransom_turn: GameSlot,
}

/// The Tower bound to one ruleset.
struct TowerRules {
    me: ExpansionIndex,
    tower: FeatureKindId,
    verbs: Verbs,
    slots: Slots,
    ransom_label: LabelId,
    /// Local index of the tower foundation per tile kind.
    tower_local: Vec<Option<u8>>,
    /// Figure kinds that may cap a tower (TW-6).
    cap_kinds: Vec<FigureKindId>,
    /// Figure kinds that go back when orphaned (TW-10): `builder`, `pig` if declared.
    orphan_kinds: Vec<FigureKindId>,
    /// Promotions' figure state `disc` (seat + 1 of the disc's owner), if that fan
    /// expansion is loaded: PR-9 (an upgraded follower is never captured) and AP-10 (a
    /// downgraded one is in reach at H + 1).
    promo_disc: Option<SlotId>,
    top_immune: bool,
    negative_funds: bool,
    coc_jcz: bool,
    /// TW-13 `ransomAsked=jcz`/`fcz`: asked after the draw and after the action.
    ransom_jcz: bool,
    /// TW-13 `ransomAsked=fcz`: a ransom after the action reopens the deployment step.
    ransom_rewind: bool,
    /// BW-1: the Black Tower's pieces are dealt (`blackTower=true`).
    black_tower: bool,
}

impl Expansion for Tower {
    fn id(&self) -> &str {
        "tower"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let mut def = FeatureKindDef::new("tower", Shape::Site, Scoring::Unscored, false);
        def.completes = false;
        def.look = "#8c8c8c".into();
        let tower = d.feature_kind(def).map_err(|e| e.to_string())?;
        let verbs = Verbs {
            piece: d.verb_in_words("tower-piece", "add a floor to a tower"),
            black: d.verb_in_words(
                "black-tower-piece",
                "add a black floor to a tower (it captures along the diagonals)",
            ),
            white: d.verb_in_words(
                "white-tower-piece",
                "top a tower with a white floor (no capture; the tower is finished)",
            ),
            cap: d.verb_in_words("cap-tower", "finish a tower with a follower"),
            capture: d.verb_in_words("capture", "take a follower prisoner"),
            exchange: d.verb_in_words("exchange", "choose the prisoner to exchange"),
            ransom: d.verb_in_words("pay-ransom", "pay a ransom"),
        };
        // TW-6, TW-12: which follower caps or comes back; TW-13: whose prisoner is freed.
        d.verb_value(verbs.cap, VerbValue::FigureKind);
        d.verb_value(verbs.exchange, VerbValue::FigureKind);
        d.verb_value(verbs.ransom, VerbValue::FigureKindOfSeat);
        let slots = Slots {
            height: (1..=MAX_TOWERS)
                .map(|k| d.game_slot(&format!("height.{k}"), 0))
                .collect(),
            at: (1..=MAX_TOWERS)
                .map(|k| d.game_slot(&format!("segment.{k}"), 0))
                .collect(),
            count: d.game_slot("towers", 0),
            pieces: d.player_slot("pieces", 0),
            black: d.player_slot("black-pieces", 0),
            white: d.player_slot("white-pieces", 0),
            black_tops: d.game_slot("black-tops", 0),
            white_tops: d.game_slot("white-tops", 0),
            held: d.player_slot("held", 0),
            captive: d.player_slot("captive", 0),
            captives: d.game_slot("captives", 0),
            jailer: d.figure_slot("jailer", 0),
            captured: d.figure_slot("captured", 0),
            captures: d.game_slot("captures", 0),
            ransom_turn: d.game_slot("ransom-turn", 0),
        };
        let ransom_label = d.score_label("ransom");
        let me = d.me();
        d.prompt_in_words(
            TowerPrompt::Capture { tower: 0 },
            "take a follower in reach of your tower prisoner",
        );
        d.prompt_in_words(
            TowerPrompt::Exchange { victim: 0 },
            "choose which of your followers comes back in the exchange",
        );
        for when in [
            TowerPrompt::Ransom,
            TowerPrompt::RansomTile,
            TowerPrompt::RansomCommit,
        ] {
            d.prompt_in_words(when, "pay 3 points to free one of your followers");
        }
        Ok(binder(move |b: &Binding<'_>| {
            let rules = b.rules();
            let tower_local = rules
                .tiles()
                .iter()
                .map(|(_, k)| {
                    k.segments
                        .iter()
                        .position(|s| s.kind == tower)
                        .map(|i| i as u8)
                })
                .collect();
            let base = [
                FeatureKindId::CITY,
                FeatureKindId::ROAD,
                FeatureKindId::FIELD,
                FeatureKindId::CLOISTER,
            ];
            let cap_kinds = rules
                .figure_kinds()
                .iter()
                .enumerate()
                .filter(|(_, k)| k.follower && base.iter().all(|b| k.deploy_on.contains(*b)))
                .map(|(i, _)| FigureKindId(i as u8))
                .collect();
            let orphan_kinds = ["builder", "pig"]
                .iter()
                .filter_map(|n| rules.figure_named(n))
                .filter(|k| !rules.figure_kind(*k).follower)
                .collect();
            let promo_disc = rules.expansion_index("promotions").and_then(|ix| {
                rules
                    .slots()
                    .iter()
                    .position(|d| {
                        d.expansion == ix && d.name == "disc" && d.scope == SlotScope::Figure
                    })
                    .map(|i| SlotId(i as u16))
            });
            Ok(TowerRules {
                me,
                promo_disc,
                tower,
                verbs,
                slots,
                ransom_label,
                tower_local,
                cap_kinds,
                orphan_kinds,
                top_immune: b.option_str("towerTopCapture")? == "immune",
                negative_funds: b.option_str("ransomFunds")? == "may-go-negative",
                coc_jcz: b.option_str("cocQuarterFigures")? == "jcz",
                ransom_jcz: b.option_str("ransomAsked")? != "before-draw",
                ransom_rewind: b.option_str("ransomAsked")? == "fcz",
                black_tower: b.option_flag("blackTower")?,
            })
        }))
    }
}

/// One tower on the board.
#[derive(Clone, Copy, Debug)]
struct TowerAt {
    /// Index of its height slot (placement order of tower foundations).
    index: usize,
    seg: SegmentId,
    pos: Pos,
}

impl TowerRules {
    /// The window `open_window` asks the ransom in under the options.
    fn ransom_window(&self) -> Window {
        match (self.ransom_jcz, self.ransom_rewind) {
            (false, _) => Window::TurnStart,
            (true, true) => Window::AfterDeploy,
            (true, false) => Window::BeforeScoring,
        }
    }

    /// Makes `f` (already `Removed`) a prisoner of `jailer`.
    fn imprison(&self, ctx: &mut Ctx<'_>, f: FigureId, jailer: PlayerId) {
        ctx.set(self.slots.jailer.of(f), jailer.0 as i64 + 1);
        let seq = ctx.get(self.slots.captures) + 1;
        ctx.set(self.slots.captures, seq);
        ctx.set(self.slots.captured.of(f), seq);
        let n = ctx.get(self.slots.held.of(jailer));
        ctx.set(self.slots.held.of(jailer), n + 1);
        let owner = ctx.state().figure(f).owner;
        let c = ctx.get(self.slots.captive.of(owner));
        ctx.set(self.slots.captive.of(owner), c + 1);
        let all = ctx.get(self.slots.captives);
        ctx.set(self.slots.captives, all + 1);
    }

    /// Frees prisoner `f` into its owner's supply.
    fn free(&self, ctx: &mut Ctx<'_>, f: FigureId) -> HookResult {
        if let Some(j) = self.jailer_of(&ctx.view(), f) {
            let n = ctx.get(self.slots.held.of(j));
            ctx.set(self.slots.held.of(j), (n - 1).max(0));
            let owner = ctx.state().figure(f).owner;
            let c = ctx.get(self.slots.captive.of(owner));
            ctx.set(self.slots.captive.of(owner), (c - 1).max(0));
            if c > 0 {
                let all = ctx.get(self.slots.captives);
                ctx.set(self.slots.captives, all - 1);
            }
        }
        ctx.set(self.slots.jailer.of(f), 0);
        ctx.release_figure(f)
    }

    fn custom(
        &self,
        verb: VerbId,
        figure: Option<FigureId>,
        seg: Option<SegmentId>,
        value: i32,
    ) -> Action {
        Action::Custom(CustomAction {
            expansion: self.me,
            verb,
            figure,
            segment: seg,
            value,
        })
    }

    /// The foundations registered so far: `tower.segment.k` slots 1 … n.
    #[inline]
    fn registered(&self, v: &View<'_>) -> &[GameSlot] {
        let n = (v.get(self.slots.count).max(0) as usize).min(self.slots.at.len());
        &self.slots.at[..n]
    }

    /// Every tower foundation on the board, in placement order (registered by
    /// `start_game` and `on_tile_placed`, so no board scan).
    fn towers<'a>(&'a self, v: &'a View<'_>) -> impl Iterator<Item = TowerAt> + 'a {
        let g = v.state.graph();
        self.registered(v)
            .iter()
            .enumerate()
            .filter_map(move |(index, slot)| {
                let s = usize::try_from(v.get(*slot) - 1).ok()?;
                if s >= g.len() {
                    return None;
                }
                let seg = SegmentId::new(s);
                Some(TowerAt {
                    index,
                    seg,
                    pos: g.segment(seg).pos,
                })
            })
    }

    /// The tower whose foundation is `seg` (the first registration naming it).
    fn tower_of_seg(&self, v: &View<'_>, seg: SegmentId) -> Option<TowerAt> {
        let g = v.state.graph();
        if seg.index() >= g.len() || g.segment(seg).kind != self.tower {
            return None;
        }
        let want = seg.index() as i64 + 1;
        let index = self
            .registered(v)
            .iter()
            .position(|slot| v.get(*slot) == want)?;
        Some(TowerAt {
            index,
            seg,
            pos: g.segment(seg).pos,
        })
    }

    fn tower_at(&self, v: &View<'_>, pos: Pos) -> Option<TowerAt> {
        self.towers(v).find(|t| t.pos == pos)
    }

    /// Registers the foundation of the tile at `pos`, if it has one.
    fn register(&self, ctx: &mut Ctx<'_>, pos: Pos) {
        let board = ctx.state().board();
        // In a tile step the tile at `pos` is the one placed last: no cell lookup.
        let t = match ctx.state().last_placed().map(|i| board.tile(i)) {
            Some(t) if t.pos == pos => *t,
            _ => match board.at(pos) {
                Some(t) => *t,
                None => return,
            },
        };
        let Some(Some(local)) = self.tower_local.get(t.kind.0 as usize).copied() else {
            return;
        };
        let n = ctx.get(self.slots.count).max(0) as usize;
        if let Some(slot) = self.slots.at.get(n) {
            ctx.set(*slot, t.segment(local as usize).index() as i64 + 1);
            ctx.set(self.slots.count, n as i64 + 1);
        }
    }

    fn height(&self, v: &View<'_>, t: &TowerAt) -> i64 {
        self.slots
            .height
            .get(t.index)
            .map(|s| v.get(*s))
            .unwrap_or(0)
    }

    /// TW-4, BW-5: closed while a follower stands on it, or for good under a white piece.
    fn closed(&self, v: &View<'_>, t: &TowerAt) -> bool {
        let g = v.state.graph();
        g.totals(g.feature_of(t.seg)).occupants > 0 || self.top_is(v, self.slots.white_tops, t)
    }

    /// BW-3/BW-5: whether tower `t`'s top piece is of the colour `tops` keeps.
    fn top_is(&self, v: &View<'_>, tops: GameSlot, t: &TowerAt) -> bool {
        t.index < 64 && v.get(tops) >> t.index & 1 == 1
    }

    /// BW-3/BW-5: records the colour of the piece just put on tower `t` (bit `t.index` of
    /// `black-tops` / `white-tops`; a normal piece clears both).
    fn set_top(&self, ctx: &mut Ctx<'_>, t: &TowerAt, verb: VerbId) {
        let bit = 1i64 << t.index;
        for (slot, colour) in [
            (self.slots.black_tops, self.verbs.black),
            (self.slots.white_tops, self.verbs.white),
        ] {
            let tops = ctx.get(slot);
            let tops = if verb == colour {
                tops | bit
            } else {
                tops & !bit
            };
            ctx.set(slot, tops);
        }
    }

    /// The seat holding `f` as a prisoner.
    fn jailer_of(&self, v: &View<'_>, f: FigureId) -> Option<PlayerId> {
        let j = v.get(self.slots.jailer.of(f));
        if j > 0 && v.state.figure(f).loc == FigureLoc::Removed {
            Some(PlayerId((j - 1) as u8))
        } else {
            None
        }
    }

    /// Prisoners owned by `owner` held by `jailer` (any jailer if `None`), by figure id.
    fn prisoners<'a>(
        &'a self,
        v: &'a View<'_>,
        owner: PlayerId,
        jailer: Option<PlayerId>,
    ) -> impl Iterator<Item = FigureId> + 'a {
        v.state
            .figures()
            .iter()
            .enumerate()
            .filter(move |(_, fig)| fig.owner == owner && fig.loc == FigureLoc::Removed)
            .map(|(i, _)| FigureId(i as u16))
            .filter(move |f| match self.jailer_of(v, *f) {
                Some(j) => j != owner && jailer.is_none_or(|x| x == j),
                None => false,
            })
    }

    /// TW-12: the prisoner of `owner` held by `jailer` (of `kind`, if given) that an
    /// exchange gives back: the first taken, as JCZ does (printed followers are alike).
    fn first_taken(
        &self,
        v: &View<'_>,
        owner: PlayerId,
        jailer: PlayerId,
        kind: Option<FigureKindId>,
    ) -> Option<FigureId> {
        self.prisoners(v, owner, Some(jailer))
            .filter(|f| kind.is_none_or(|k| v.state.figure(*f).kind == k))
            .min_by_key(|f| v.get(self.slots.captured.of(*f)))
    }

    /// TW-7/TW-8: whether figure `i` is a follower that tower `t` of height `h` reaches.
    /// The cells are compared first (most figures stand out of reach), then the rest.
    /// BW-3: `diagonal` (a black piece just placed): the cells with |dx| = |dy| ≤ H instead.
    #[inline(always)]
    fn reaches(
        &self,
        v: &View<'_>,
        t: &TowerAt,
        (h, diagonal): (i32, bool),
        i: usize,
        fig: &Figure,
    ) -> bool {
        let FigureLoc::On(s) = fig.loc else {
            return false;
        };
        let node = v.state.graph().segment(s);
        let dx = (node.pos.x - t.pos.x).abs();
        let dy = (node.pos.y - t.pos.y).abs();
        // Promotions can add one cell (AP-10), so the cheap test allows it.
        let most = h + self.promo_disc.is_some() as i32;
        let within = |r: i32| {
            if diagonal {
                dx == dy && dx <= r
            } else {
                (dx == 0 && dy <= r) || (dy == 0 && dx <= r)
            }
        };
        if !within(most) {
            return false;
        }
        if !v.rules.figure_kind(fig.kind).follower {
            return false;
        }
        // CO-14: quarters are out of reach, unless `cocQuarterFigures=jcz` stands them at
        // (0,0); a place anchored at a cell (a castle, BCB-9) never is: its follower left
        // the city's tiles (JCZ's `TowerCapturePhase` skips castles).
        if node.is_virtual() && (!self.coc_jcz || node.cell().is_some()) {
            return false;
        }
        if node.kind == self.tower && (self.top_immune || s == t.seg) {
            return false;
        }
        // Promotions (TW-7, TW-20): upgraded = the owner's own disc, never captured;
        // downgraded = another player's disc, one more cell of reach.
        let mut reach = h;
        if let Some(slot) = self.promo_disc {
            let disc = v.state.slot(slot, i);
            if disc == fig.owner.0 as i64 + 1 {
                return false;
            }
            if disc > 0 {
                reach += 1;
            }
        }
        within(reach)
    }

    /// The reach of tower `t` now: its height, and whether its top piece is black (BW-3:
    /// the capture right after a black piece goes along the diagonals).
    fn reach(&self, v: &View<'_>, t: &TowerAt) -> (i32, bool) {
        (
            self.height(v, t) as i32,
            self.top_is(v, self.slots.black_tops, t),
        )
    }

    /// TW-7/TW-8: the followers a tower of its current height reaches, by figure id, each
    /// passed to `f` until it returns `false`. Returns whether it stopped early.
    #[inline]
    fn each_candidate(
        &self,
        v: &View<'_>,
        t: &TowerAt,
        mut f: impl FnMut(FigureId) -> bool,
    ) -> bool {
        let reach = self.reach(v, t);
        for (i, fig) in v.state.figures().iter().enumerate() {
            if self.reaches(v, t, reach, i, fig) && !f(FigureId(i as u16)) {
                return true;
            }
        }
        false
    }

    /// Whether tower `t` reaches any follower.
    fn any_candidate(&self, v: &View<'_>, t: &TowerAt) -> bool {
        self.each_candidate(v, t, |_| false)
    }

    /// Whether tower `t` reaches figure `f` (any id: a bad one is not a candidate).
    fn is_candidate(&self, v: &View<'_>, t: &TowerAt, f: FigureId) -> bool {
        let i = f.0 as usize;
        match v.state.figures().get(i) {
            Some(fig) => self.reaches(v, t, self.reach(v, t), i, fig),
            None => false,
        }
    }

    /// TW-13: whether `p` may pay a ransom now. Asked at every turn start and deployment
    /// step, so the common answer (none of his followers is held) comes first, inline.
    #[inline(always)]
    fn may_ransom(&self, v: &View<'_>, p: PlayerId) -> bool {
        v.get(self.slots.captive.of(p)) > 0 && self.may_ransom_held(v, p)
    }

    /// [`Self::may_ransom`] once `p` has followers held by others.
    #[inline(never)]
    fn may_ransom_held(&self, v: &View<'_>, p: PlayerId) -> bool {
        self.ransom_open(v, p) && self.each_prisoner(v, p, |_, _| false)
    }

    /// [`Self::may_ransom_held`] but for its prisoner: whether the turn, the moment and
    /// `p`'s score allow a ransom.
    #[inline(always)]
    fn ransom_open(&self, v: &View<'_>, p: PlayerId) -> bool {
        let st = v.state;
        if st.in_final_scoring() || st.is_over() || st.active_player() != p {
            return false;
        }
        if v.get(self.slots.ransom_turn) == st.turn() as i64 + 1 {
            return false;
        }
        self.negative_funds || st.players()[p.index()].score >= RANSOM
    }

    /// One `pay-ransom` per (jailer, kind) of `p`'s prisoners (the lowest figure id).
    /// None if [`Self::may_ransom`] says no: without a prisoner, [`Self::push_ransoms`]
    /// pushes nothing, so its own scan is the prisoner test.
    #[inline(always)]
    fn ransom_actions(&self, v: &View<'_>, p: PlayerId, out: &mut Vec<Action>) {
        if v.get(self.slots.captive.of(p)) > 0 {
            self.ransom_actions_held(v, p, out);
        }
    }

    /// [`Self::ransom_actions`] once `p` has followers held by others.
    #[inline(never)]
    fn ransom_actions_held(&self, v: &View<'_>, p: PlayerId, out: &mut Vec<Action>) {
        if self.ransom_open(v, p) {
            #[cfg(debug_assertions)]
            let start = out.len();
            self.push_ransoms(v, p, out);
            #[cfg(debug_assertions)]
            self.check_ransoms(v, p, &out[start..]);
        }
    }

    /// Debug builds: the ransoms [`Self::push_ransoms`] offered are those of the general
    /// scan (for each prisoner, none before it by figure id with its jailer and kind).
    #[cfg(debug_assertions)]
    fn check_ransoms(&self, v: &View<'_>, p: PlayerId, offered: &[Action]) {
        let key = |f: FigureId| (self.jailer_of(v, f).unwrap_or(p), v.state.figure(f).kind);
        let mut expected = Vec::new();
        for f in self.prisoners(v, p, None) {
            let k = key(f);
            if !self
                .prisoners(v, p, None)
                .take_while(|g| *g != f)
                .any(|g| key(g) == k)
            {
                expected.push(self.custom(self.verbs.ransom, None, None, ransom_value(k.0, k.1)));
            }
        }
        debug_assert_eq!(offered, &expected[..], "TW-13: the ransom offers");
    }

    /// [`Self::ransom_actions`] once a ransom is allowed: one pass over `p`'s prisoners
    /// by figure id, each (jailer, kind) offered at its first prisoner. The offers pushed
    /// so far are the keys seen (a ransom's value names its jailer and kind).
    #[inline(always)]
    fn push_ransoms(&self, v: &View<'_>, p: PlayerId, out: &mut Vec<Action>) {
        let start = out.len();
        self.each_prisoner(v, p, |kind, jailer| {
            let value = ransom_value(jailer, kind);
            let seen = out[start..]
                .iter()
                .any(|a| matches!(a, Action::Custom(c) if c.value == value));
            if !seen {
                out.push(self.custom(self.verbs.ransom, None, None, value));
            }
            true
        });
    }

    /// `prisoners(v, owner, None)` as one plain loop over `owner`'s figures only (every
    /// player's figures are contiguous, `figures_of`; the ransom's offers are asked at
    /// every step while a follower is held): the kind and jailer of each, by figure id,
    /// passed to `f` until it returns `false`. Returns whether it stopped early.
    #[inline(always)]
    fn each_prisoner(
        &self,
        v: &View<'_>,
        owner: PlayerId,
        mut f: impl FnMut(FigureKindId, PlayerId) -> bool,
    ) -> bool {
        let (first, mine) = v.state.figures_of(owner);
        for (i, fig) in mine.iter().enumerate() {
            if fig.owner != owner || fig.loc != FigureLoc::Removed {
                continue;
            }
            // `jailer_of`: a seat + 1, 0 for none.
            let j = v.get(self.slots.jailer.of(FigureId((first + i) as u16)));
            if j <= 0 {
                continue;
            }
            let jailer = PlayerId((j - 1) as u8);
            if jailer != owner && !f(fig.kind, jailer) {
                return true;
            }
        }
        false
    }

    /// TW-5 / TW-6 / BW-3 / BW-5: the offers of [`Self::tower_offers`]. Asked at every
    /// deployment step; without the Black Tower's pieces (the default) its instance for
    /// `BLACK = false` holds no code of theirs, and the other is out of line.
    #[inline(always)]
    fn tower_actions(&self, v: &View<'_>, p: PlayerId, out: &mut Vec<Action>) {
        if self.black_tower {
            self.black_tower_actions(v, p, out);
        } else {
            self.tower_offers::<false>(v, p, out);
        }
    }

    /// [`Self::tower_actions`] under the Black Tower's pieces.
    #[cold]
    #[inline(never)]
    fn black_tower_actions(&self, v: &View<'_>, p: PlayerId, out: &mut Vec<Action>) {
        self.tower_offers::<true>(v, p, out);
    }

    /// TW-5 / TW-6 / BW-3 / BW-5: pieces and caps for `p`, in tower order (a piece, a
    /// black piece, then the caps in figure-kind order, then a white piece; black and white
    /// pieces only when `BLACK`, the Black Tower's option, holds). One pass over the
    /// registered foundations reading only their slots and the union-find totals.
    #[inline(always)]
    fn tower_offers<const BLACK: bool>(&self, v: &View<'_>, p: PlayerId, out: &mut Vec<Action>) {
        let at = self.registered(v);
        if at.is_empty() {
            return;
        }
        let st = v.state;
        let pieces = v.get(self.slots.pieces.of(p)) > 0;
        // The cap kinds in supply (bits by their index in `cap_kinds`), read once for every
        // tower; past 64 kinds (no set has them), none.
        let in_supply = self
            .cap_kinds
            .iter()
            .take(64)
            .enumerate()
            .fold(0u64, |m, (i, k)| {
                m | u64::from(st.in_supply(p, *k) > 0) << i
            });
        let caps = in_supply != 0;
        let (black, white) = if BLACK {
            (
                v.get(self.slots.black.of(p)) > 0,
                v.get(self.slots.white.of(p)) > 0,
            )
        } else {
            (false, false)
        };
        if !pieces && !caps && !black && !white {
            return;
        }
        // BW-5: towers under a white piece take nothing more.
        let whites = if BLACK {
            v.get(self.slots.white_tops)
        } else {
            0
        };
        let g = st.graph();
        for (k, (at, height)) in at.iter().zip(&self.slots.height).enumerate() {
            if BLACK && whites >> k & 1 == 1 {
                continue;
            }
            // A value v names segment v - 1; 0 (or garbage) names none.
            let s = (v.get(*at) as u64).wrapping_sub(1);
            if s >= g.len() as u64 {
                continue;
            }
            let seg = SegmentId::new(s as usize);
            // TW-4: closed while a follower stands on it.
            if g.totals(g.feature_of(seg)).occupants > 0 {
                continue;
            }
            if pieces {
                out.push(self.custom(self.verbs.piece, None, Some(seg), 0));
            }
            if black {
                out.push(self.custom(self.verbs.black, None, Some(seg), 0));
            }
            if (caps || white) && v.get(*height) >= 1 {
                let mut m = in_supply;
                while m != 0 {
                    let k = self.cap_kinds[m.trailing_zeros() as usize];
                    m &= m - 1;
                    out.push(self.custom(self.verbs.cap, None, Some(seg), k.0 as i32));
                }
                if white {
                    out.push(self.custom(self.verbs.white, None, Some(seg), 0));
                }
            }
        }
    }

    /// The per-player slot of the pieces `verb` places (TW-5, BW-3, BW-5).
    fn piece_slot(&self, verb: VerbId) -> Option<PlayerSlot> {
        if verb == self.verbs.piece {
            Some(self.slots.pieces)
        } else if verb == self.verbs.black {
            Some(self.slots.black)
        } else if verb == self.verbs.white {
            Some(self.slots.white)
        } else {
            None
        }
    }

    /// Applies a piece or a cap (validated against the offers again).
    fn apply_tower_action(&self, ctx: &mut Ctx<'_>, p: PlayerId, c: CustomAction) -> HookResult {
        let v = ctx.view();
        let seg = c.segment.ok_or("a tower action names a tower")?;
        let t = self
            .tower_of_seg(&v, seg)
            .ok_or_else(|| HookFailure(format!("segment {} is not a tower", seg.index())))?;
        if self.closed(&v, &t) || t.index >= self.slots.height.len() {
            return Err("TW-4/BW-5: the tower is closed".into());
        }
        if let Some(slot) = self.piece_slot(c.verb) {
            let left = v.get(slot.of(p));
            if left <= 0 {
                return Err("TW-5/BW-1: no tower piece of that colour left".into());
            }
            let h = self.height(&v, &t);
            let white = c.verb == self.verbs.white;
            if white && h < 1 {
                return Err("BW-5: a white piece goes only on a tower of height ≥ 1".into());
            }
            ctx.set(slot.of(p), left - 1);
            ctx.set(self.slots.height[t.index], h + 1);
            if self.black_tower {
                self.set_top(ctx, &t, c.verb);
            }
            // BW-5: a white piece captures nothing.
            if !white && self.any_candidate(&ctx.view(), &t) {
                ctx.prompt_next(
                    p,
                    TowerPrompt::Capture {
                        tower: t.seg.index() as i32,
                    },
                );
            }
            Ok(())
        } else if c.verb == self.verbs.cap {
            let kind = FigureKindId(u8::try_from(c.value).map_err(|_| "bad figure kind")?);
            if !self.cap_kinds.contains(&kind) || self.height(&v, &t) < 1 {
                return Err("TW-6: not a legal cap".into());
            }
            ctx.deploy(p, kind, t.seg)?;
            Ok(())
        } else {
            Err(format!("verb {} is not a tower action", c.verb.0).into())
        }
    }

    /// TW-13: `p` pays for one of his followers of the kind and jailer `value` names
    /// ([`ransom_value`]): the one with the lowest figure id.
    fn pay_ransom(&self, ctx: &mut Ctx<'_>, p: PlayerId, value: i32) -> HookResult {
        let v = ctx.view();
        if !self.may_ransom(&v, p) {
            return Err("TW-13: no ransom allowed".into());
        }
        let (jailer, kind) = (
            PlayerId((value & 0xff) as u8),
            FigureKindId((value >> 8) as u8),
        );
        let f = self
            .prisoners(&v, p, Some(jailer))
            .find(|f| v.state.figure(*f).kind == kind)
            .ok_or("TW-13: no such prisoner")?;
        let jailer = self
            .jailer_of(&v, f)
            .filter(|j| *j != p && v.state.figure(f).owner == p)
            .ok_or("TW-13: not one of the player's imprisoned followers")?;
        let turn = v.state.turn() as i64 + 1;
        ctx.award(p, -RANSOM, self.ransom_label);
        ctx.award(jailer, RANSOM, self.ransom_label);
        self.free(ctx, f)?;
        ctx.set(self.slots.ransom_turn, turn);
        Ok(())
    }

    /// TW-9 … TW-12: `capturer` captures `f` (a checked candidate).
    fn capture(&self, ctx: &mut Ctx<'_>, capturer: PlayerId, f: FigureId) -> HookResult {
        let fig = *ctx.state().figure(f);
        let FigureLoc::On(seg) = fig.loc else {
            return Err("the figure is not on the board".into());
        };
        let victim = fig.owner;
        if victim == capturer {
            ctx.return_figure(f, RemovalReason::Expansion)
                .map_err(|e| HookFailure(e.to_string()))?;
        } else {
            ctx.hold_figure(f, RemovalReason::Expansion)?;
            self.imprison(ctx, f, capturer);
        }
        self.return_orphans(ctx, victim, seg)?;
        if victim == capturer {
            return Ok(());
        }
        // TW-12: the exchange.
        let v = ctx.view();
        let (back, several_kinds) = {
            let Some(first) = self.first_taken(&v, capturer, victim, None) else {
                return Ok(());
            };
            let kind = v.state.figure(first).kind;
            let mut mine = self.prisoners(&v, capturer, Some(victim));
            (first, mine.any(|g| v.state.figure(g).kind != kind))
        };
        self.free(ctx, f)?;
        if several_kinds {
            ctx.prompt_next(capturer, TowerPrompt::Exchange { victim: victim.0 });
        } else {
            self.free(ctx, back)?;
        }
        Ok(())
    }

    /// TW-10: builders and pigs of `owner` on the feature of `seg` go back when no
    /// follower of his is left there.
    fn return_orphans(&self, ctx: &mut Ctx<'_>, owner: PlayerId, seg: SegmentId) -> HookResult {
        if self.orphan_kinds.is_empty() {
            return Ok(());
        }
        let st = ctx.state();
        let on: Vec<FigureId> = st
            .figures_on(seg)
            .filter(|f| st.figure(*f).owner == owner)
            .collect();
        if on
            .iter()
            .any(|f| ctx.rules().figure_kind(st.figure(*f).kind).follower)
        {
            return Ok(());
        }
        for f in on {
            if self.orphan_kinds.contains(&ctx.state().figure(f).kind) {
                ctx.return_figure(f, RemovalReason::Expansion)
                    .map_err(|e| HookFailure(e.to_string()))?;
            }
        }
        Ok(())
    }

    fn setting_heights(&self, ctx: &mut Ctx<'_>, value: &str) -> HookResult {
        for item in value.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let (cell, h) = item
                .rsplit_once(':')
                .ok_or_else(|| HookFailure(format!("`{item}`: write `x,y:height`")))?;
            let pos = Pos::parse(cell)?;
            let h: i64 = h
                .trim()
                .parse()
                .map_err(|_| HookFailure(format!("`{item}`: bad height")))?;
            let t = self
                .tower_at(&ctx.view(), pos)
                .ok_or_else(|| HookFailure(format!("no tower at {pos}")))?;
            let slot = *self.slots.height.get(t.index).ok_or("too many towers")?;
            ctx.set(slot, h.max(0));
        }
        Ok(())
    }
}

impl BoundExpansion for TowerRules {
    fn hook_set(&self) -> HookSet {
        // Only the window `open_window` asks the ransom in under the options.
        let h = HookSet::GAME_START
            | HookSet::ON_TILE_PLACED
            | HookSet::DEPLOY_STEP_ACTIONS
            | HookSet::window(self.ransom_window())
            | HookSet::FREE_ACTIONS;
        // `on_tile_drawn` asks only under `ransomAsked=jcz`.
        if self.ransom_jcz {
            h | HookSet::ON_TILE_DRAWN
        } else {
            h
        }
    }

    /// TW-13: the ransom's hooks (its window, its free action, and under
    /// `ransomAsked=jcz` the tile step) offer nothing while no follower is held: every
    /// `captive` is then 0, and so is their sum.
    fn hook_gates(&self) -> Vec<HookGate> {
        let ransom = HookSet::window(self.ransom_window()) | HookSet::FREE_ACTIONS;
        let hooks = if self.ransom_jcz {
            ransom | HookSet::ON_TILE_DRAWN
        } else {
            ransom
        };
        vec![HookGate {
            hooks,
            slot: self.slots.captives,
        }]
    }

    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: Pos) -> HookResult {
        self.register(ctx, pos);
        Ok(())
    }

    /// Only a tile with a tower foundation registers anything.
    fn on_tile_placed_for(&self, _rules: &Ruleset, tile: TileKindId) -> bool {
        matches!(self.tower_local.get(tile.0 as usize), Some(Some(_)))
    }

    /// TW-2: pieces by the number of players.
    /// The start layout's (or a position's) foundations are registered in board order.
    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        let n = ctx.state().players().len();
        for p in 0..n {
            let p = PlayerId(p as u8);
            if self.black_tower {
                let (normal, black, white) = black_tower_pieces_for(n);
                ctx.set(self.slots.pieces.of(p), normal);
                ctx.set(self.slots.black.of(p), black);
                ctx.set(self.slots.white.of(p), white);
            } else {
                ctx.set(self.slots.pieces.of(p), pieces_for(n));
            }
        }
        for i in 0..ctx.state().board().tiles().len() {
            let pos = ctx.state().board().tiles()[i].pos;
            self.register(ctx, pos);
        }
        Ok(())
    }

    /// Position settings: `heights` = `x,y:h;…`; `cap` = `x,y:PLAYER[:kind];…` (a follower
    /// from supply on top of that tower); `prisoners` = `JAILER:OWNER[:kind];…` (a follower
    /// of OWNER from supply held by JAILER); `pieces` (and, BW-1, `black-pieces`,
    /// `white-pieces`) = `PLAYER:n;…`; `tops` = `x,y:black|white|normal;…` (BW-3/BW-5: the
    /// colour of that tower's top piece); `ransomed` = `yes` (a ransom was already paid
    /// this turn).
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        let entries = || value.split(';').map(str::trim).filter(|s| !s.is_empty());
        match key {
            "heights" => self.setting_heights(ctx, value),
            "cap" => {
                for item in entries() {
                    let (cell, figure) = head_and_figure(item);
                    let pos = Pos::parse(cell)?;
                    let (p, kind) = ctx.view().player_figure(figure)?;
                    let t = self
                        .tower_at(&ctx.view(), pos)
                        .ok_or_else(|| HookFailure(format!("no tower at {pos}")))?;
                    ctx.deploy(p, kind, t.seg)?;
                }
                Ok(())
            }
            "prisoners" => {
                for item in entries() {
                    let (jailer, figure) = head_and_figure(item);
                    let jailer = ctx.state().player_named(jailer)?;
                    let (owner, kind) = ctx.view().player_figure(figure)?;
                    if jailer == owner {
                        return Err("a player holds no follower of his own".into());
                    }
                    if ctx.state().graph().is_empty() {
                        return Err("prisoners need a board".into());
                    }
                    // Through the board, so core's counts stay exact.
                    let f = ctx.deploy(owner, kind, SegmentId::new(0))?;
                    ctx.hold_figure(f, RemovalReason::Expansion)?;
                    self.imprison(ctx, f, jailer);
                }
                Ok(())
            }
            "pieces" | "black-pieces" | "white-pieces" => {
                let slot = match key {
                    "pieces" => self.slots.pieces,
                    "black-pieces" => self.slots.black,
                    _ => self.slots.white,
                };
                for item in entries() {
                    let (p, n) = item
                        .split_once(':')
                        .ok_or_else(|| HookFailure(format!("`{item}`: write `PLAYER:n`")))?;
                    let p = ctx.state().player_named(p)?;
                    let n: i64 = n
                        .trim()
                        .parse()
                        .map_err(|_| HookFailure(format!("`{item}`: bad number")))?;
                    ctx.set(slot.of(p), n.max(0));
                }
                Ok(())
            }
            "tops" => {
                for item in entries() {
                    let (cell, colour) = item
                        .rsplit_once(':')
                        .ok_or_else(|| HookFailure(format!("`{item}`: write `x,y:colour`")))?;
                    let pos = Pos::parse(cell)?;
                    let t = self
                        .tower_at(&ctx.view(), pos)
                        .ok_or_else(|| HookFailure(format!("no tower at {pos}")))?;
                    if t.index >= self.slots.height.len() {
                        return Err("too many towers".into());
                    }
                    let verb = match colour.trim() {
                        "black" => self.verbs.black,
                        "white" => self.verbs.white,
                        "normal" => self.verbs.piece,
                        other => {
                            return Err(HookFailure(format!(
                                "`{other}`: a top is black, white or normal"
                            )))
                        }
                    };
                    self.set_top(ctx, &t, verb);
                }
                Ok(())
            }
            "ransomed" => {
                let turn = ctx.state().turn() as i64 + 1;
                ctx.set(
                    self.slots.ransom_turn,
                    if value == "yes" { turn } else { 0 },
                );
                Ok(())
            }
            _ => Err(HookFailure(format!(
                "unknown setting `{key}` (known: heights, cap, prisoners, pieces, black-pieces, white-pieces, tops, ransomed)"
            ))),
        }
    }

    /// TW-13 before the draw (`ransomAsked=before-draw`) or after the action (`jcz`).
    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        // JCZ's commit step follows its dragon flight; FCZ's rewind needs it after the step.
        let asked = match (window, self.ransom_jcz, self.ransom_rewind) {
            (Window::TurnStart, false, _) => TowerPrompt::Ransom,
            (Window::AfterDeploy, true, true) => TowerPrompt::RansomCommit,
            (Window::BeforeScoring, true, false) => TowerPrompt::RansomCommit,
            _ => return Ok(()),
        };
        let p = ctx.state().active_player();
        if self.may_ransom(&ctx.view(), p) {
            ctx.prompt(p, asked);
        }
        Ok(())
    }

    /// TW-13 `ransomAsked=jcz`: JCZ's tile step, the drawn tile shown and not yet placed.
    fn on_tile_drawn(&self, ctx: &mut Ctx<'_>, _tile: TileKindId) -> HookResult<DrawVerdict> {
        let p = ctx.state().active_player();
        if self.ransom_jcz && self.may_ransom(&ctx.view(), p) {
            ctx.prompt(p, TowerPrompt::RansomTile);
        }
        Ok(DrawVerdict::Keep)
    }

    // Every deployment step: with the plugin's other per-turn code (the guards' section).
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn deploy_step_actions(&self, v: View<'_>, p: PlayerId, out: &mut Vec<Action>) -> HookResult {
        self.tower_actions(&v, p, out);
        // Under `ransomAsked=jcz` the ransom is only a free action here: JCZ has no action
        // step whose only choice is a ransom (it is asked after the action instead).
        if !self.ransom_jcz {
            self.ransom_actions(&v, p, out);
        }
        Ok(())
    }

    /// TW-13: the ransom while another expansion's prompt waits for the turn player (a
    /// Count's, an abbey's, a dragon step); that prompt is asked again afterwards.
    fn free_actions(&self, v: View<'_>, p: PlayerId, out: &mut Vec<Action>) -> HookResult {
        self.ransom_actions(&v, p, out);
        Ok(())
    }

    fn apply_action(&self, ctx: &mut Ctx<'_>, p: PlayerId, c: CustomAction) -> HookResult {
        if c.verb == self.verbs.ransom {
            self.pay_ransom(ctx, p, c.value)?;
            // TW-13: paying does not spend the deployment step; it is offered again, whole.
            // (Paid as a free action in another prompt, that prompt is asked again.)
            if matches!(ctx.state().decision().kind, DecisionKind::Deploy { .. }) {
                return ctx.repeat_deploy_step();
            }
            return Ok(());
        }
        self.apply_tower_action(ctx, p, c)
    }

    fn prompt_actions(&self, v: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        let p = prompt.player;
        match prompt.decode::<TowerPrompt>()? {
            TowerPrompt::Capture { tower } => {
                let Some(t) = self.tower_of_seg(&v, SegmentId::new(tower as usize)) else {
                    return Ok(());
                };
                self.each_candidate(&v, &t, |f| {
                    out.push(self.custom(self.verbs.capture, Some(f), Some(t.seg), 0));
                    true
                });
                if !out.is_empty() {
                    out.push(Action::Pass);
                    self.ransom_actions(&v, p, out);
                }
            }
            TowerPrompt::Exchange { victim } => {
                let victim = Some(PlayerId(victim));
                let kind = |f: FigureId| v.state.figure(f).kind;
                for f in self.prisoners(&v, p, victim) {
                    let k = kind(f);
                    // One offer per kind, in the order of the kinds' first prisoners.
                    if !self
                        .prisoners(&v, p, victim)
                        .take_while(|g| *g != f)
                        .any(|g| kind(g) == k)
                    {
                        out.push(self.custom(self.verbs.exchange, None, None, k.0 as i32));
                    }
                }
            }
            TowerPrompt::Ransom | TowerPrompt::RansomTile | TowerPrompt::RansomCommit => {
                self.ransom_actions(&v, p, out);
                if !out.is_empty() {
                    out.push(Action::Pass);
                }
            }
        }
        Ok(())
    }

    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        let p = prompt.player;
        let what = prompt.decode::<TowerPrompt>()?;
        match (what, action) {
            (_, Action::Pass) => Ok(()),
            (TowerPrompt::Capture { tower }, Action::Custom(c)) if c.verb == self.verbs.ransom => {
                self.pay_ransom(ctx, p, c.value)?;
                ctx.prompt_next(p, TowerPrompt::Capture { tower });
                Ok(())
            }
            (TowerPrompt::Capture { tower }, Action::Custom(c)) if c.verb == self.verbs.capture => {
                let f = c.figure.ok_or("a capture names a figure")?;
                let v = ctx.view();
                let t = self
                    .tower_of_seg(&v, SegmentId::new(tower as usize))
                    .ok_or("the tower is gone")?;
                if !self.is_candidate(&v, &t, f) {
                    return Err("TW-7: that follower is not in reach".into());
                }
                self.capture(ctx, p, f)
            }
            (TowerPrompt::Exchange { victim }, Action::Custom(c))
                if c.verb == self.verbs.exchange =>
            {
                let v = ctx.view();
                let kind = u8::try_from(c.value).ok().map(FigureKindId);
                let f = kind
                    .and_then(|k| self.first_taken(&v, p, PlayerId(victim), Some(k)))
                    .ok_or("TW-12: the victim holds no prisoner of that kind")?;
                self.free(ctx, f)
            }
            (TowerPrompt::Ransom | TowerPrompt::RansomTile, Action::Custom(c))
                if c.verb == self.verbs.ransom =>
            {
                self.pay_ransom(ctx, p, c.value)
            }
            (TowerPrompt::RansomCommit, Action::Custom(c)) if c.verb == self.verbs.ransom => {
                self.pay_ransom(ctx, p, c.value)?;
                // TW-13: the step once taken stays taken (upstream JCZ keeps its commit
                // step); FCZ's fork reopens it, so the follower may still be deployed.
                if self.ransom_rewind {
                    ctx.repeat_deploy_step()?;
                }
                Ok(())
            }
            (w, a) => Err(HookFailure(format!(
                "{a} does not answer the tower prompt {w:?}"
            ))),
        }
    }

    /// Why a tower action (or a deployment on a foundation) was not offered.
    fn explain_refusal(
        &self,
        v: View<'_>,
        player: PlayerId,
        action: Action,
    ) -> HookResult<Option<String>> {
        let is_tower = |seg: SegmentId| {
            seg.index() < v.state.graph().len() && v.state.graph().segment(seg).kind == self.tower
        };
        let reason = match action {
            Action::Deploy { segment, .. } if is_tower(segment) => {
                Some("TW-3: no follower is deployed on a tower foundation (cap a tower of height ≥ 1 instead)".to_string())
            }
            Action::Custom(c) if c.expansion == self.me => {
                let tower = c.segment.and_then(|s| self.tower_of_seg(&v, s));
                let piece = self.piece_slot(c.verb);
                if piece.is_some() || c.verb == self.verbs.cap {
                    match tower {
                        None => Some("TW-5/TW-6: that is not a tower foundation".to_string()),
                        Some(t) if self.top_is(&v, self.slots.white_tops, &t) => Some(format!(
                            "BW-5: the tower at {} is topped by a white piece: nothing more goes on it",
                            t.pos
                        )),
                        Some(t) if self.closed(&v, &t) => Some(format!(
                            "TW-4: the tower at {} is closed (a follower stands on it)",
                            t.pos
                        )),
                        Some(_) if piece.is_some_and(|s| v.get(s.of(player)) <= 0) => {
                            Some(if c.verb == self.verbs.piece {
                                "TW-5: no tower piece left".to_string()
                            } else if self.black_tower {
                                "BW-1: no tower piece of that colour left".to_string()
                            } else {
                                "BW-1: black and white pieces need the option tower.blackTower".to_string()
                            })
                        }
                        Some(t) if c.verb == self.verbs.white && self.height(&v, &t) < 1 => Some(format!(
                            "BW-5: the foundation at {} is bare; a white piece goes only on a tower of height ≥ 1",
                            t.pos
                        )),
                        Some(t) if c.verb == self.verbs.cap && self.height(&v, &t) < 1 => Some(format!(
                            "TW-6: the foundation at {} is bare; only a tower of height ≥ 1 can be capped",
                            t.pos
                        )),
                        Some(_) if c.verb == self.verbs.cap
                            && !self.cap_kinds.iter().any(|k| k.0 as i32 == c.value) =>
                        {
                            Some("TW-6: only a follower that may stand on every feature (a normal or big follower) caps a tower".to_string())
                        }
                        Some(_) => None,
                    }
                } else if c.verb == self.verbs.capture {
                    Some("TW-7/TW-8: that figure is not a follower within the tower's reach".to_string())
                } else if c.verb == self.verbs.ransom {
                    let st = v.state;
                    Some(if st.active_player() != player {
                        "TW-13: a ransom is paid only in one's own turn".to_string()
                    } else if v.get(self.slots.ransom_turn) == st.turn() as i64 + 1 {
                        "TW-13: at most one ransom per turn".to_string()
                    } else if !self.negative_funds && st.players()[player.index()].score < RANSOM {
                        "TW-13: a ransom needs a score of at least 3 (ransomFunds=need-3)".to_string()
                    } else {
                        "TW-13: no such prisoner".to_string()
                    })
                } else {
                    None
                }
            }
            _ => None,
        };
        Ok(reason)
    }

    /// Tower heights ≥ 1 (places under `Tower heights`, named by the height: renderers
    /// badge the foundation), pieces left (titles under `Tower pieces`, detail = number)
    /// and prisoners (titles under `Prisoners`, `Red's small-follower`, held by the jailer). JCloisterZone names a
    /// foundation `{position, feature Tower, location I}`, which is our tile position and
    /// location, so no foreign name is needed.
    fn describe(&self, v: View<'_>, out: &mut Vec<Visible>) -> HookResult {
        for t in self.towers(&v) {
            let h = self.height(&v, &t);
            if h > 0 {
                // BW-3/BW-5: the top piece's colour names the group (renderers badge black
                // and white groups in their colour).
                let group = if self.top_is(&v, self.slots.white_tops, &t) {
                    "White tower heights"
                } else if self.top_is(&v, self.slots.black_tops, &t) {
                    "Black tower heights"
                } else {
                    "Tower heights"
                };
                out.push(Visible::Place {
                    group: group.into(),
                    name: h.to_string(),
                    segment: t.seg,
                });
            }
        }
        for p in 0..v.state.players().len() {
            let p = PlayerId(p as u8);
            out.push(Visible::Title {
                group: "Tower pieces".into(),
                name: "pieces".into(),
                icon: "tower".into(),
                holder: Some(p),
                detail: v.get(self.slots.pieces.of(p)).to_string(),
            });
            if self.black_tower {
                for (name, slot) in [
                    ("black pieces", self.slots.black),
                    ("white pieces", self.slots.white),
                ] {
                    out.push(Visible::Title {
                        group: "Tower pieces".into(),
                        name: name.into(),
                        icon: "tower".into(),
                        holder: Some(p),
                        detail: v.get(slot.of(p)).to_string(),
                    });
                }
            }
        }
        for (i, fig) in v.state.figures().iter().enumerate() {
            let f = FigureId(i as u16);
            if let Some(j) = self.jailer_of(&v, f) {
                let owner = v
                    .state
                    .players()
                    .get(fig.owner.index())
                    .map_or("?", |p| p.name.as_str());
                out.push(Visible::Title {
                    group: "Prisoners".into(),
                    name: format!("{owner}'s {}", v.rules.figure_kind(fig.kind).name),
                    icon: "prisoner".into(),
                    holder: Some(j),
                    detail: String::new(),
                });
            }
        }
        Ok(())
    }
}

/// The tower kind a ruleset declares (for tools), if the Tower is loaded.
pub fn tower_kind(rules: &Ruleset) -> Option<FeatureKindId> {
    rules.kind_named("tower")
}

/// `HEAD:PLAYER[:kind]` (a `cap` or `prisoners` entry): the head, and the player's figure
/// after it ([`View::player_figure`]).
fn head_and_figure(item: &str) -> (&str, &str) {
    item.split_once(':').unwrap_or((item, ""))
}

carcassonne_core::export_expansion!("tower", Tower::new());

#[cfg(test)]
mod offer_tests;

#[cfg(test)]
mod tests {
    use super::*;

    /// `decode(encode(p)) == Some(p)`, and foreign codes are refused.
    #[test]
    fn prompts_round_trip() {
        for p in [
            TowerPrompt::Capture { tower: 0 },
            TowerPrompt::Capture { tower: 4711 },
            TowerPrompt::Exchange { victim: 5 },
            TowerPrompt::Ransom,
        ] {
            assert_eq!(TowerPrompt::decode(p.encode()), Some(p));
        }
        for (tag, arg) in [(0, 0), (1, -1), (2, 256), (9, 0)] {
            assert_eq!(TowerPrompt::decode(PromptCode { tag, arg }), None);
        }
    }

    /// TW-2 (and JCZ beyond 2–6 players); 30 pieces always suffice.
    #[test]
    fn pieces_per_player_count() {
        let got: Vec<i64> = (1..=8).map(pieces_for).collect();
        assert_eq!(got, [10, 10, 9, 7, 6, 5, 4, 3]);
        for n in 1..=8usize {
            assert!(n as i64 * pieces_for(n) <= 30 || n == 1, "{n} players");
        }
    }

    /// BW-1: the fan table for 2–6 players (FanCloisterZone's for 1, 7, 8); the box's 12
    /// black and 6 white pieces suffice for 2–6 players.
    #[test]
    fn black_tower_pieces_per_player_count() {
        let got: Vec<(i64, i64, i64)> = (1..=8).map(black_tower_pieces_for).collect();
        assert_eq!(
            got,
            [
                (8, 4, 2),
                (8, 4, 2),
                (7, 3, 2),
                (6, 3, 1),
                (5, 2, 1),
                (4, 2, 1),
                (3, 2, 1),
                (2, 1, 1)
            ]
        );
        for n in 2..=6usize {
            let (_, black, white) = black_tower_pieces_for(n);
            assert!(
                n as i64 * black <= 12 && n as i64 * white <= 6,
                "{n} players"
            );
        }
    }

    #[test]
    fn ransom_values_name_jailer_and_kind() {
        assert_eq!(ransom_value(PlayerId(1), FigureKindId(0)), 1);
        assert_eq!(ransom_value(PlayerId(3), FigureKindId(2)), 515);
    }
}
