//! # Under the Big Top (rules BT-1 … BT-14, `docs/rules/big-top.md`)
//!
//! JCZ sets `under-the-big-top:1` / `:2`: 20 tiles (`tiles.toml`; tile tags `circus` and
//! `acrobats`), one ringmaster per player; `edition = c1`: FanCloisterZone's list
//! `under-the-big-top-c1` (`tiles-c1.toml`, set `big-top-c1`) instead. Both sets are in the
//! catalog; `prepare_game` leaves the other edition's set out of the supply. Options
//! `bigTop` and `acrobats` switch those parts off (JCZ's elements).
//!
//! **The big top (BT-2 … BT-6).** Its cell is kept in game slots (it stands on a tile's
//! circus space, which is no feature). When a circus tile is placed, after the turn's
//! scoring (`AfterScoring`), the circus under the big top scores with a token drawn from the
//! bag, then the big top moves to the new tile. See `circus.rs`.
//!
//! **The ringmaster (BT-12, BT-13).** A follower of strength 1; when a feature he stands on
//! scores for his owner, +2 per circus or acrobat tile in the 3×3 around him. See
//! `ringmaster.rs`.
//!
//! **Acrobats (BT-7 … BT-11, BT-14).** Each acrobat tile has a segment of the plugin's
//! centre-site kind `acrobats` (unscored, never complete): the deployment step offers a
//! small follower on any such space of the 3×3 around the tile just placed that holds fewer
//! than three meeples, and `score-pyramid` for each full one; the end scores every occupied
//! space. See `acrobats.rs`.

mod acrobats;
mod circus;
mod ringmaster;

pub use circus::{TOKENS, TOKEN_SET};

use acrobats::Acrobats;
use carcassonne_core::{
    binder, Action, Binder, Binding, BoundExpansion, Ctx, CustomAction, Declare, Expansion,
    FeatureKindDef, FigureKindDef, HookFailure, HookGate, HookResult, HookSet, KindMask, Offered,
    OptionValue, PlayerId, Pos, Prompt, PromptCode, PromptKind, ScoreDraft, Scoring, Shape, Stands,
    StartTile, TileKindId, VerbId, View, Visible, Window,
};
use circus::Circus;
use ringmaster::Ringmaster;

/// BT-1: the edition option.
pub const EDITION: &str = "big-top.edition";
/// BT-1: the second edition's garden twins: (first-edition tile, its twin).
pub const GARDEN_TWINS: [(&str, &str); 2] = [
    ("BT/ffff.ac", "BT/ffff.g.ac"),
    ("BT/frrf.bt", "BT/frrf.g.bt"),
];

/// BT-1: FanCloisterZone's tile list (`edition = c1`), the set of `tiles-c1.toml`.
pub const C1_SET: &str = "big-top-c1";
/// BT-1: JCZ's tile list (`edition = 1` / `2`), the set of `tiles.toml`.
pub const JCZ_SET: &str = "big-top";
/// BT-8: Princess & Dragon's magic portal (PD-22), which sends an acrobat to any space.
pub const PORTAL_OPTION: &str = "princess-dragon.portal";
/// BT-20: the tag of Bridges, Castles & Bazaars' bridge segment (its overlay).
pub const BRIDGE: &str = "bridge";

/// BT-2 under `tokenDraws=chosen`: the turn player reveals an animal token (one action per
/// token in the bag); `last`: the final reveal (BT-6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DrawToken {
    last: bool,
}

impl PromptKind for DrawToken {
    fn encode(self) -> PromptCode {
        PromptCode {
            tag: 1,
            arg: i32::from(self.last),
        }
    }

    fn decode(code: PromptCode) -> Option<Self> {
        (code.tag == 1 && (0..=1).contains(&code.arg)).then_some(DrawToken {
            last: code.arg == 1,
        })
    }
}

/// An acrobat space's colour on the board.
const ACROBATS_LOOK: &str = "#e0a030";

/// A ringmaster's outline: a meeple with a top hat (a box from -1 to 1, y down).
const RINGMASTER_LOOK: &str = "path:M -0.3 -0.95 L 0.3 -0.95 L 0.3 -0.7 L 0.45 -0.7 L 0.45 -0.6 \
     L -0.45 -0.6 L -0.45 -0.7 L -0.3 -0.7 Z M -0.22 -0.55 A 0.25 0.25 0 1 0 0.22 -0.55 Z \
     M -0.3 -0.2 L 0.3 -0.2 L 0.8 0.2 L 0.45 0.3 L 0.35 0.95 L -0.35 0.95 L -0.45 0.3 \
     L -0.8 0.2 Z";

/// The expansion (stateless; one value serves every ruleset).
#[derive(Debug, Default)]
pub struct BigTop;

impl BigTop {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// Which tiles carry a circus space or an acrobat space, by tile kind, and the local
/// index of the acrobat space's segment; then, by tile kind, whether its acrobat space is
/// closed (BT-20 `bridgeAcrobats=barred`: a tile with a bridge; empty when allowed).
#[derive(Clone, Debug, Default)]
pub struct TileMarks(Vec<(bool, bool, Option<u8>)>, Vec<bool>);

impl TileMarks {
    /// (circus, acrobats) of a tile kind.
    pub fn of(&self, k: TileKindId) -> (bool, bool) {
        self.0
            .get(k.0 as usize)
            .map_or((false, false), |&(c, a, _)| (c, a))
    }

    /// BT-7: the local segment of a tile kind's acrobat space.
    pub fn space(&self, k: TileKindId) -> Option<u8> {
        self.0.get(k.0 as usize).and_then(|m| m.2)
    }

    /// BT-20 `bridgeAcrobats=barred`: whether any tile kind's acrobat space is closed.
    pub fn any_closed(&self) -> bool {
        !self.1.is_empty()
    }

    /// BT-20 `bridgeAcrobats=barred`: whether the acrobat space of a tile kind is closed
    /// (the tile carries a bridge).
    pub fn closed(&self, k: TileKindId) -> bool {
        self.1.get(k.0 as usize).copied().unwrap_or(false)
    }
}

/// Under the Big Top bound to one ruleset.
struct BtRules {
    circus: Circus,
    acrobats: Acrobats,
    ringmaster: Ringmaster,
    marks: TileMarks,
    /// BT-1: (twin, garden twin) pairs under `edition = 2`.
    swap: Vec<(TileKindId, TileKindId)>,
    /// BT-1: per tile kind, whether it belongs to the other edition's list (`edition`).
    other_list: Vec<bool>,
    /// BT-2 … BT-6 are played (option `bigTop`).
    big_top: bool,
    /// BT-2 `tokenDraws=chosen`: reveals are `draw-token` prompts.
    chosen: bool,
    /// `draw-token` (value: the token's index in the bag).
    draw_token: VerbId,
    /// BT-8 with Princess & Dragon's magic portal: per tile kind, whether placing it lets an
    /// acrobat go onto any space on the board (a `portal` tile while `princess-dragon.portal`
    /// is on), as JCZ's acrobats read a portal tile.
    portal: Vec<bool>,
    /// No other expansion is loaded: only core's deployments on the placed tile and this
    /// set's own offers reach the deployment filter, and no other set asks prompts.
    alone: bool,
}

impl Expansion for BigTop {
    fn id(&self) -> &str {
        "big-top"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        // BT-7, BT-9: the acrobat space, a centre site that no rule of core scores or
        // completes; occupiable by small followers only (BT-8), so core offers no other
        // figure there (a phantom step deciding from its offers, PH-3, never sees one); the
        // filter adds the pyramid's limits.
        let space = d
            .feature_kind(FeatureKindDef {
                completes: false,
                look: ACROBATS_LOOK.into(),
                takes: vec!["small-follower".into()],
                ..FeatureKindDef::new("acrobats", Shape::Site, Scoring::Unscored, true)
            })
            .map_err(|e| e.to_string())?;
        let ringmaster = d
            .figure_kind(FigureKindDef {
                name: "ringmaster".into(),
                per_player: 1,
                // BT-12: strength of a normal follower (half-units).
                strength: 2,
                // BT-8: never on an acrobat space (only small followers stand there), so
                // core does not offer him there for the filter to drop.
                deploy_on: KindMask(!KindMask(0).with(space).0),
                follower: true,
                returns: true,
                look: RINGMASTER_LOOK.into(),
                neutral: 0,
                shares: false,
                colour: String::new(),
            })
            .map_err(|e| e.to_string())?;
        let verb = d.verb_in_words("score-pyramid", "score a full pyramid of acrobats");
        let draw_token = d.verb_in_words("draw-token", "reveal this animal token");
        // BT-2: a reveal is the bag's, not the player's choice (one action per token).
        d.verb_by_chance(draw_token);
        let label = d.score_label("acrobats");
        let bonus_label = d.score_label("ringmaster");
        let spaces = d.game_slot("acrobat-spaces", 0);
        let tracked: [_; acrobats::TRACKED] =
            std::array::from_fn(|i| d.game_slot(&format!("acrobat-space-{i}"), 0));
        let full = d.game_slot("acrobat-full", 0);
        let circus = Circus::declare(d);
        Ok(binder(move |b: &Binding<'_>| {
            let tiles = b.rules().tiles();
            let marks = TileMarks(
                (0..tiles.len())
                    .map(|i| {
                        let t = tiles.get(TileKindId(i as u16));
                        let local = t.segments.iter().position(|s| s.kind == space);
                        (
                            t.has_tag("circus"),
                            t.has_tag("acrobats"),
                            local.map(|l| l as u8),
                        )
                    })
                    .collect(),
                // BT-20: a tile kind with a bridge (a segment tagged `bridge`, Bridges,
                // Castles & Bazaars' overlay) closes its acrobat space.
                if b.option_str("bridgeAcrobats")? == "barred" {
                    (0..tiles.len())
                        .map(|i| {
                            let t = tiles.get(TileKindId(i as u16));
                            t.has_tag("acrobats")
                                && t.segments
                                    .iter()
                                    .any(|s| s.tags.iter().any(|x| x == BRIDGE))
                        })
                        .collect()
                } else {
                    Vec::new()
                },
            );
            let edition = b.option_str("edition")?;
            let skip = if edition == "c1" { JCZ_SET } else { C1_SET };
            let other_list = (0..tiles.len())
                .map(|i| tiles.get(TileKindId(i as u16)).set == skip)
                .collect();
            let swap = match edition {
                "2" => GARDEN_TWINS
                    .iter()
                    .map(|(a, g)| match (tiles.find(a), tiles.find(g)) {
                        (Some(a), Some(g)) => Ok((a, g)),
                        _ => Err(HookFailure(format!(
                            "edition 2 needs the tiles `{a}` and `{g}`"
                        ))),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
                _ => Vec::new(),
            };
            let portal_on = matches!(
                b.rules().options().get(PORTAL_OPTION),
                Some(OptionValue::Bool(true))
            );
            let portal = (0..tiles.len())
                .map(|i| portal_on && tiles.get(TileKindId(i as u16)).has_tag("portal"))
                .collect();
            Ok(BtRules {
                circus: circus.bind(tiles, &marks, skip),
                acrobats: Acrobats {
                    enabled: b.option_flag("acrobats")?,
                    kind: space,
                    verb,
                    label,
                    bonus_label,
                    ringmaster,
                    me: b.me(),
                    spaces,
                    tracked,
                    full,
                },
                ringmaster: Ringmaster {
                    kind: ringmaster,
                    every: b.option_str("ringmasterBonus")? == "every",
                },
                marks,
                swap,
                other_list,
                big_top: b.option_flag("bigTop")?,
                chosen: b.option_str("tokenDraws")? == "chosen",
                draw_token,
                portal,
                alone: b.rules().expansions().len() == 1,
            })
        }))
    }
}

impl BoundExpansion for BtRules {
    fn hook_set(&self) -> HookSet {
        let hooks = HookSet::ON_TILE_PLACED
            | HookSet::DEPLOY_STEP_ACTIONS
            | HookSet::FILTER_DEPLOY_ACTIONS
            | HookSet::BEFORE_SCORING
            | HookSet::FINAL_SCORING
            | HookSet::window(Window::AfterScoring);
        // GAME_START: BT-1's garden twins and the count of acrobat spaces already placed.
        let hooks = hooks | HookSet::GAME_START;
        // BT-8 for other sets' prompts (a portal, a wagon's move); alone, the only prompt
        // is this set's `draw-token`, which offers no deployment or move.
        let hooks = if self.alone {
            hooks
        } else {
            hooks | HookSet::FILTER_PROMPT_ACTIONS
        };
        // BT-8 alone: core offers on the fresh space of the tile just placed only the small
        // follower (the ringmaster's `deploy_on` leaves the space out, and no other set
        // brings a figure or a bridge), which the space takes; only with the acrobats off
        // (`acrobats=false`) is there anything to drop.
        let hooks = if self.alone && self.acrobats.enabled {
            HookSet(hooks.0 & !HookSet::FILTER_DEPLOY_ACTIONS.0)
        } else {
            hooks
        };
        // BT-20 `bridgeAcrobats=barred`: no bridge over an occupied acrobat space (only
        // another set's overlay can ask).
        let hooks = if self.marks.any_closed() && !self.alone {
            hooks | HookSet::ALLOWS_OVERLAY
        } else {
            hooks
        };
        // BT-10: which spaces may hold a full pyramid, told by every meeple's arrival.
        let hooks = if self.acrobats.enabled {
            hooks | HookSet::ON_FIGURE_PLACED
        } else {
            hooks
        };
        if self.chosen && self.big_top {
            // BT-6 `tokenDraws=chosen`: the final reveal is asked before final scoring.
            return hooks | HookSet::window(Window::BeforeFinalScoring);
        }
        hooks
    }

    /// BT-4: the circus scores after the turn's scoring only in a turn that placed a
    /// circus tile; the engine skips the window's call in every other turn. Arrivals
    /// (`on_figure_placed`) matter only once an acrobat space is on the board.
    fn hook_gates(&self) -> Vec<HookGate> {
        let set = self.hook_set();
        [
            HookGate {
                hooks: HookSet::window(Window::AfterScoring),
                slot: self.circus.pending(),
            },
            HookGate {
                hooks: HookSet::ON_FIGURE_PLACED,
                slot: self.acrobats.spaces,
            },
        ]
        .into_iter()
        .filter(|g| set.has(g.hooks))
        .collect()
    }

    /// BT-1: the other edition's list leaves the supply; the second edition's garden twins
    /// take the place of their twins.
    fn prepare_game(&self, ctx: &mut Ctx<'_>, _start: &mut Vec<StartTile>) -> HookResult {
        for g in &mut ctx.supply_mut().groups {
            g.tiles
                .retain(|t| !self.other_list.get(t.0 as usize).copied().unwrap_or(false));
            for t in &mut g.tiles {
                if let Some(&(_, garden)) = self.swap.iter().find(|(twin, _)| twin == t) {
                    *t = garden;
                }
            }
        }
        Ok(())
    }

    /// The acrobat spaces of the start board or position.
    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        self.acrobats.count_spaces(ctx, &self.marks);
        Ok(())
    }

    /// Only a circus tile (with the big top) or a tile with an acrobat space does anything.
    fn on_tile_placed_for(&self, _rules: &carcassonne_core::Ruleset, tile: TileKindId) -> bool {
        (self.big_top && self.marks.of(tile).0) || self.marks.space(tile).is_some()
    }

    /// BT-4: remember that a circus tile was placed this turn (it acts after scoring);
    /// count a new acrobat space.
    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: Pos) -> HookResult {
        let view = ctx.view();
        let Some(idx) = view.state.board().index_at(pos) else {
            return Ok(());
        };
        let tile = view.state.board().tile(idx);
        let space = self
            .marks
            .space(tile.kind)
            .map(|local| tile.segment(usize::from(local)));
        if self.big_top && self.marks.of(tile.kind).0 {
            self.circus.mark_pending(ctx, pos);
        }
        if let Some(seg) = space {
            self.acrobats.add_space(ctx, seg);
        }
        Ok(())
    }

    /// BT-4, BT-5: after the turn's features are scored, the old circus scores, the big top
    /// moves.
    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        match window {
            Window::AfterScoring if self.chosen => self.ask_reveal(ctx),
            Window::AfterScoring => self.circus.after_scoring(ctx)?,
            Window::BeforeFinalScoring
                if self.chosen && self.circus.position(&ctx.view()).is_some() =>
            {
                let p = ctx.view().state.active_player();
                ctx.prompt(p, DrawToken { last: true });
            }
            _ => {}
        }
        Ok(())
    }

    /// BT-2 `tokenDraws=chosen`: one `draw-token` per token in the bag, in bag order.
    fn prompt_actions(&self, v: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        prompt.decode::<DrawToken>()?;
        out.extend((0..self.circus.bag_size(&v)).map(|k| {
            Action::Custom(CustomAction {
                expansion: prompt.owner,
                verb: self.draw_token,
                figure: None,
                segment: None,
                value: k as i32,
            })
        }));
        Ok(())
    }

    /// BT-4 … BT-6 `tokenDraws=chosen`: the token revealed; the circus scores and the big
    /// top moves (the final reveal waits for final scoring).
    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        let d = prompt.decode::<DrawToken>()?;
        let k = match action {
            Action::Custom(c) if c.verb == self.draw_token && c.value >= 0 => c.value as u32,
            a => return Err(HookFailure(format!("the token draw cannot take `{a}`"))),
        };
        if d.last {
            self.circus.keep_final(ctx, k)
        } else {
            self.circus.score_with(ctx, k)
        }
    }

    /// BT-13.
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        self.ringmaster.bonus(&ctx.view(), &self.marks, draft);
        Ok(())
    }

    /// BT-8, BT-10: acrobats on the spaces around the tile just placed; full pyramids.
    fn deploy_step_actions(&self, v: View<'_>, p: PlayerId, out: &mut Vec<Action>) -> HookResult {
        self.acrobats.offers(&v, &self.marks, &self.portal, p, out)
    }

    /// BT-8 drops deployments and moves onto an acrobat space only.
    fn keeps_deploy_pass(&self) -> bool {
        true
    }

    /// The prompt filter drops the same deployments and moves only.
    fn keeps_prompt_pass(&self) -> bool {
        true
    }

    /// BT-8: only small followers, and at most three, on an acrobat space.
    fn filter_deploy_actions(
        &self,
        v: View<'_>,
        _p: PlayerId,
        actions: &mut Offered<'_>,
    ) -> HookResult {
        if !self.acrobats.any(&v) {
            return Ok(());
        }
        if self.alone {
            // Alone, only core's deployments on the tile just placed can break BT-8 (the
            // acrobat offers of `deploy_step_actions` keep it): only a tile with an
            // acrobat space has any to check.
            let Some(space) = v.state.last_placed().and_then(|i| {
                let t = v.state.board().tile(i);
                self.marks
                    .space(t.kind)
                    .map(|local| t.segment(usize::from(local)))
            }) else {
                return Ok(());
            };
            actions.retain(|a| {
                !matches!(*a, Action::Deploy { segment, .. } if segment == space)
                    || !self.acrobats.bars(&v, &self.marks, a)
            });
            return Ok(());
        }
        actions.retain(|a| !self.acrobats.bars(&v, &self.marks, a));
        Ok(())
    }

    /// BT-8 for what other expansions' prompts offer (a portal, a wagon's move).
    fn filter_prompt_actions(
        &self,
        v: View<'_>,
        _prompt: Prompt,
        actions: &mut Offered<'_>,
    ) -> HookResult {
        actions.retain(|a| !self.acrobats.bars(&v, &self.marks, a));
        Ok(())
    }

    /// BT-20 `bridgeAcrobats=barred`: no overlay (a bridge) on a tile whose acrobat space
    /// holds a meeple.
    fn allows_overlay(&self, v: View<'_>, pos: Pos, _variant: TileKindId) -> HookResult<bool> {
        Ok(!self.acrobats.occupied_at(&v, &self.marks, pos))
    }

    /// BT-10: a meeple that makes a pyramid full marks its space.
    fn on_figure_placed(
        &self,
        ctx: &mut Ctx<'_>,
        _figure: carcassonne_core::FigureId,
        segment: carcassonne_core::SegmentId,
    ) -> HookResult {
        self.acrobats.arrived(ctx, segment);
        Ok(())
    }

    /// BT-10: `score-pyramid`.
    fn apply_action(&self, ctx: &mut Ctx<'_>, _p: PlayerId, c: CustomAction) -> HookResult {
        if c.verb != self.acrobats.verb {
            return Err(HookFailure(format!("big-top: unknown verb {}", c.verb.0)));
        }
        self.acrobats.apply(ctx, &self.marks, c)
    }

    /// BT-6: the big top's circus scores once more; BT-11: every occupied acrobat space.
    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        if self.big_top {
            self.circus.score_final(ctx, self.chosen)?;
        }
        self.acrobats.score_final(ctx, &self.marks)
    }

    /// BT-2: the big top, drawn on its whole tile (it stands on the circus space, no
    /// feature), and the tokens left in the bag (BT-3).
    fn describe(&self, v: View<'_>, out: &mut Vec<Visible>) -> HookResult {
        let Some(pos) = self.circus.position(&v) else {
            return Ok(());
        };
        let Some(idx) = v.state.board().index_at(pos) else {
            return Ok(());
        };
        let tile = v.state.board().tile(idx);
        out.push(Visible::NeutralFigure {
            name: "big top".into(),
            icon: "big-top".into(),
            segment: tile.segment(0),
            stands: Stands::OnTile,
        });
        Ok(())
    }
}

impl BtRules {
    /// BT-17: the circus placed this turn waits for the turn player's reveal (or, with no
    /// big top on the board yet, the big top simply moves there).
    fn ask_reveal(&self, ctx: &mut Ctx<'_>) {
        if self.circus.take_pending(ctx) {
            let p = ctx.view().state.active_player();
            ctx.prompt(p, DrawToken { last: false });
        }
    }
}

carcassonne_core::export_expansion!("big-top", BigTop::new());
