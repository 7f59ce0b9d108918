//! # The abbot and gardens (rules AG-1 … AG-10, `docs/rules/abbot-garden.md`)
//!
//! The base game's 2nd/3rd edition (JCZ set `basic:2`): the same 72 tiles, 8 of them with a
//! garden in their field, and one abbot per player.
//!
//! **Tiles (AG-1).** The garden tiles are in `tiles.toml` with count 0; `prepare_game`
//! replaces the first copy of each first-edition twin in the supply by its garden tile, so
//! the box's counts hold and no other tile moves (`gardenTiles=false` keeps the first
//! edition's tiles).
//!
//! **Gardens (AG-2, AG-3).** Feature kind `garden`: a centre site scored like a cloister
//! (9 when its tile and the 8 around it are placed, else 1 per tile at the end); core
//! completes and scores it as any site. Only an abbot may stand on one: the deployment
//! filter drops any other figure's deployment or move onto a garden, whichever expansion
//! offers it.
//!
//! **The abbot (AG-4 … AG-9).** Figure kind `abbot`, one per player, a follower of strength
//! 1 that core deploys only where its `deploy_on` allows: cloister, garden, and shrine when
//! Heretics & Shrines is loaded (a monastic building, as JCZ's `Monastery`; the abbey of
//! Abbey & Mayor is a cloister tile). In the deployment step, a player whose abbot stands on
//! a cloister-scored feature that is not complete is offered `abbot-return` about it
//! instead of a deployment: the feature's incomplete value (9 minus its empty surrounding
//! cells) goes to him under the label `abbot`, and the abbot goes back to his supply.
//!
//! **Cost per turn.** Two hooks run in every deployment step: the return offer reads the
//! active player's abbot only (where core lays it out), and the filter looks at each offered
//! deployment's segment kind once.

use carcassonne_core::{
    binder, Action, Binder, Binding, BoundExpansion, Ctx, CustomAction, Declare, Expansion,
    FeatureKindDef, FeatureKindId, FigureId, FigureKindDef, FigureKindId, FigureLoc, HookFailure,
    HookResult, HookSet, KindMask, LabelId, Offered, PlayerId, RemovalReason, Scoring, SegmentId,
    Shape, StartTile, VerbId, View,
};

/// AG-1: whether the garden tiles replace their twins.
pub const GARDEN_TILES: &str = "abbot-garden.gardenTiles";

/// AG-3: whether the abbot may stand on a garden (`false`: JCZ's `basic:2` without its
/// `garden` element).
pub const GARDENS: &str = "abbot-garden.gardens";

/// AG-5 with the Count: the quarters the abbot may go into (`cathedral`, or `none` as JCZ).
pub const COUNT_QUARTERS: &str = "abbot-garden.countQuarters";

/// AG-1: (first-edition twin, its garden tile), in the box's letter order N M R E H I V U.
pub const GARDEN_TWINS: [(&str, &str); 8] = [
    ("BA/Cc.1", "BA/CcG"),
    ("BA/Cc+", "BA/Cc+G"),
    ("BA/Ccc", "BA/CccG"),
    ("BA/C", "BA/CG"),
    ("BA/CFC.2", "BA/CFCG"),
    ("BA/CC.2", "BA/CCG"),
    ("BA/Rr", "BA/RrG"),
    ("BA/RFr", "BA/RFrG"),
];

/// An abbot's outline: a mitre over a long robe (a box from -1 to 1, y down).
const ABBOT_LOOK: &str = "path:M -0.3 -0.5 L -0.22 -0.85 L 0 -1 L 0.22 -0.85 L 0.3 -0.5 \
     L 0.45 -0.35 L 0.75 0.95 L -0.75 0.95 L -0.45 -0.35 Z";

/// A garden's colour on the board.
const GARDEN_LOOK: &str = "#7cb342";

/// The expansion (stateless; one value serves every ruleset).
#[derive(Debug, Default)]
pub struct AbbotGarden;

impl AbbotGarden {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// The abbot and gardens bound to one ruleset.
struct AgRules {
    garden: FeatureKindId,
    abbot: FigureKindId,
    verb: VerbId,
    label: LabelId,
    me: carcassonne_core::ExpansionIndex,
    /// AG-1: (twin, garden tile) kind ids, empty under `gardenTiles=false`.
    swaps: Vec<(carcassonne_core::TileKindId, carcassonne_core::TileKindId)>,
    /// AG-3 `gardens`: whether the abbot may stand on a garden (false: no figure may, JCZ's
    /// `basic:2` without its `garden` element).
    gardens: bool,
    /// AG-5 `countQuarters=none`: the abbot goes into no quarter of the Count (JCZ).
    no_quarters: bool,
}

impl Expansion for AbbotGarden {
    fn id(&self) -> &str {
        "abbot-garden"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let garden = d
            .feature_kind(FeatureKindDef {
                look: GARDEN_LOOK.into(),
                ..FeatureKindDef::new("garden", Shape::Site, Scoring::Cloister, true)
            })
            .map_err(|e| e.to_string())?;
        // AG-5: cloisters, gardens and, when loaded, shrines (monastic buildings).
        let mut abbot_on = KindMask(0).with(FeatureKindId::CLOISTER).with(garden);
        if let Some(shrine) = d.kind_named("shrine") {
            abbot_on = abbot_on.with(shrine);
        }
        let abbot = d
            .figure_kind(FigureKindDef {
                name: "abbot".into(),
                per_player: 1,
                strength: 2,
                deploy_on: abbot_on,
                follower: true,
                returns: true,
                look: ABBOT_LOOK.into(),
                neutral: 0,
                shares: false,
                colour: String::new(),
            })
            .map_err(|e| e.to_string())?;
        let verb = d.verb_in_words("abbot-return", "take the abbot back and score");
        let label = d.score_label("abbot");
        Ok(binder(move |b: &Binding<'_>| {
            let rules = b.rules();
            let mut swaps = Vec::new();
            if b.option_flag("gardenTiles")? {
                for (twin, garden_tile) in GARDEN_TWINS {
                    match (rules.tiles().find(twin), rules.tiles().find(garden_tile)) {
                        (Some(t), Some(g)) => swaps.push((t, g)),
                        _ => {
                            return Err(HookFailure(format!(
                                "the garden tiles need `{twin}` and `{garden_tile}` in the catalog"
                            )))
                        }
                    }
                }
            }
            Ok(AgRules {
                garden,
                abbot,
                verb,
                label,
                me: b.me(),
                swaps,
                gardens: b.option_flag("gardens")?,
                no_quarters: b.option_str("countQuarters")? == "none",
            })
        }))
    }
}

impl AgRules {
    /// The active player's abbot, if it stands on a feature (one per player, read where core
    /// lays it out).
    fn abbot_on_board(&self, view: &View<'_>, p: PlayerId) -> Option<(FigureId, SegmentId)> {
        let (base, mine) = view.state.figures_of(p);
        let at = view.rules.figure_offset(self.abbot);
        let fig = mine.get(at).filter(|f| f.kind == self.abbot)?;
        match fig.loc {
            FigureLoc::On(seg) => Some((FigureId((base + at) as u16), seg)),
            _ => None,
        }
    }

    /// Whether `kind` may not stand on `seg`: a garden but for the abbot (AG-3; under
    /// `gardens=false` no kind may), or, for the abbot under `countQuarters=none`, a
    /// quarter of the Count (AG-5).
    fn barred(&self, view: &View<'_>, kind: FigureKindId, seg: SegmentId) -> bool {
        let g = view.state.graph();
        if seg.index() >= g.len() {
            return false;
        }
        let node = g.segment(seg);
        // AG-5 `countQuarters=none`: the abbot goes into no quarter of the Count (JCZ's
        // `CocFollowerPhase` offers followers, the phantom, the wagon, the mayor and the
        // ringmaster, not the abbot). A virtual segment is a quarter: the castles of
        // Bridges, Castles & Bazaars, the other ones, take no abbot anyway (cities).
        if self.no_quarters && kind == self.abbot && node.is_virtual() {
            return true;
        }
        (kind != self.abbot || !self.gardens) && node.kind == self.garden
    }

    /// The incomplete value of the cloister-scored feature the abbot stands on, or `None`
    /// when it is complete (then it scores normally: AG-8) or not cloister-scored (a figure
    /// moved it elsewhere).
    fn return_value(&self, view: &View<'_>, seg: SegmentId) -> Option<i32> {
        let g = view.state.graph();
        let f = g.feature_of(seg);
        if view.rules.kind(g.kind(f)).scoring != Scoring::Cloister {
            return None;
        }
        let t = g.totals(f);
        if t.complete() || t.scored {
            return None;
        }
        // 1 for its tile + 1 per surrounding tile = 9 minus the empty cells.
        Some(9 - i32::from(t.open))
    }
}

impl BoundExpansion for AgRules {
    fn hook_set(&self) -> HookSet {
        let hooks = HookSet::DEPLOY_STEP_ACTIONS
            | HookSet::FILTER_DEPLOY_ACTIONS
            | HookSet::FILTER_PROMPT_ACTIONS;
        // `prepare_game` (AG-1) only when there are tiles to swap.
        if self.swaps.is_empty() {
            hooks
        } else {
            hooks | HookSet::GAME_START
        }
    }

    /// AG-1: each garden tile takes the place of the first copy of its twin in the supply.
    fn prepare_game(&self, ctx: &mut Ctx<'_>, _start: &mut Vec<StartTile>) -> HookResult {
        for &(twin, garden_tile) in &self.swaps {
            'found: for g in &mut ctx.supply_mut().groups {
                for t in &mut g.tiles {
                    if *t == twin {
                        *t = garden_tile;
                        break 'found;
                    }
                }
            }
        }
        Ok(())
    }

    /// AG-8: taking the abbot back is an alternative to a deployment.
    fn deploy_step_actions(&self, v: View<'_>, p: PlayerId, out: &mut Vec<Action>) -> HookResult {
        if let Some((fig, seg)) = self.abbot_on_board(&v, p) {
            if self.return_value(&v, seg).is_some() {
                out.push(Action::Custom(CustomAction {
                    expansion: self.me,
                    verb: self.verb,
                    figure: Some(fig),
                    segment: Some(seg),
                    value: 0,
                }));
            }
        }
        Ok(())
    }

    /// AG-3 drops deployments and moves only.
    fn keeps_deploy_pass(&self) -> bool {
        true
    }

    /// The prompt filter drops the same deployments and moves only.
    fn keeps_prompt_pass(&self) -> bool {
        true
    }

    /// AG-3: only an abbot on a garden (AG-5: the abbot's own places are its `deploy_on`).
    fn filter_deploy_actions(
        &self,
        v: View<'_>,
        _p: PlayerId,
        actions: &mut Offered<'_>,
    ) -> HookResult {
        actions.retain(|a| !self.bars(&v, a));
        Ok(())
    }

    /// AG-3 for the moves other expansions' prompts offer (a wagon, a redeployment).
    fn filter_prompt_actions(
        &self,
        v: View<'_>,
        _prompt: carcassonne_core::Prompt,
        actions: &mut Offered<'_>,
    ) -> HookResult {
        actions.retain(|a| !self.bars(&v, a));
        Ok(())
    }

    fn apply_action(&self, ctx: &mut Ctx<'_>, p: PlayerId, c: CustomAction) -> HookResult {
        if c.verb != self.verb {
            return Err(HookFailure(format!(
                "abbot-garden: unknown verb {}",
                c.verb.0
            )));
        }
        let view = ctx.view();
        let Some((fig, seg)) = self.abbot_on_board(&view, p) else {
            return Err(HookFailure(
                "abbot-return: the abbot is not on the board".into(),
            ));
        };
        if c.figure != Some(fig) {
            return Err(HookFailure("abbot-return: not this player's abbot".into()));
        }
        let Some(points) = self.return_value(&view, seg) else {
            return Err(HookFailure(
                "abbot-return: its cloister or garden is complete".into(),
            ));
        };
        // AG-8: score as at the end of the game, then back to supply.
        ctx.award(p, points, self.label);
        ctx.return_figure(fig, RemovalReason::Expansion)
            .map_err(|e| HookFailure(e.to_string()))
    }
}

impl AgRules {
    /// Whether an offered action puts a figure other than an abbot on a garden (AG-3).
    fn bars(&self, v: &View<'_>, a: &Action) -> bool {
        match *a {
            Action::Deploy { figure, segment } => self.barred(v, figure, segment),
            Action::Move { figure, segment } => {
                let kind = v.state.figure(figure).kind;
                self.barred(v, kind, segment)
            }
            _ => false,
        }
    }
}

carcassonne_core::export_expansion!("abbot-garden", AbbotGarden::new());
