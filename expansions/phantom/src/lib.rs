//! # The Phantom (rules PH-1 … PH-9, `docs/rules/phantom.md`)
//!
//! A mini-expansion without tiles: every player owns one phantom, a follower of his colour.
//!
//! **The figure (PH-1, PH-2, PH-6).** Figure kind `phantom`, one per player, strength 1 (2
//! half-units), a follower wherever a follower may stand (`deploy_on` every kind). It is an
//! ordinary follower in everything else, so every expansion that deals with followers deals
//! with it: majorities and scoring, capture and ransom (The Tower), the dragon, the fairy,
//! the portal, the wagon's move, the abbot-only garden (AG-3 removes it there).
//!
//! **The phantom step (PH-3 … PH-5, PH-7 … PH-9).** The phantom may be the turn's normal
//! deployment (core offers it like any follower). Besides, after a deployment step that
//! the player answered with something other than passing (a follower, a tower piece, a
//! fairy move, an abbot taken back, …; never after the princess sent a knight home, PH-8),
//! while his phantom is in his supply, the `AfterDeploy` window repeats the deployment
//! step ([`Ctx::repeat_deploy_step`]) with the game slot `step` at 1: the filter then keeps
//! only what puts the phantom on the board — core's deployments of the kind, the portal's
//! (unless the first deployment already went through the portal, PH-9), and any custom
//! action whose value is a figure kind (`VerbValue::FigureKind`: a tower top) naming it —
//! and passing. When the window opens again after that step, `step` goes back to 0 and
//! the other expansions' `AfterDeploy` hooks run (the window waits for the step). The
//! phantom step is JCZ's `PhantomPhase`.
//!
//! **Cost per turn.** In a game with the Phantom the window hook runs once or twice per turn
//! and the filter once per deployment step (a slot read unless the phantom step is on).

use carcassonne_core::{
    binder, Action, Binding, BoundExpansion, Ctx, DecisionKind, Declare, Expansion, ExpansionIndex,
    FigureKindDef, FigureKindId, GameSlot, HookResult, HookSet, KindMask, Offered, PlayerId,
    VerbId, VerbValue, View, Window,
};

/// The figure kind this expansion declares.
pub const PHANTOM: &str = "phantom";

/// Custom verbs of other expansions after which the phantom may not follow (PH-8): the
/// princess's (JCZ: "if a knight is removed from the city, the player may not deploy or
/// move any other figure") and the Robber's Son's, which JCZ treats alike.
const NO_PHANTOM_AFTER: [(&str, &str); 2] = [
    ("princess-dragon", "princess"),
    ("robbers-son", "robbers-son"),
];

/// The expansion (stateless; one value serves every ruleset).
#[derive(Debug, Default)]
pub struct Phantom;

impl Phantom {
    /// The expansion.
    pub fn new() -> Self {
        Self
    }
}

/// The Phantom bound to one ruleset.
struct PhantomRules {
    kind: FigureKindId,
    /// While the phantom step is offered (and until the window opens after it): 1, or 2
    /// when the step's first deployment went through the portal (PH-9); else 0.
    step: GameSlot,
    /// PH-8: verbs after which no phantom step follows.
    no_phantom_after: Vec<VerbId>,
    /// `towerTopsAlone=jcz`: a phantom step offering only other expansions' actions (tower
    /// tops) is skipped, as JCZ's `PhantomPhase` does.
    skip_tops_alone: bool,
    /// Per tile kind: tagged `volcano` (Princess & Dragon's dragon lands there, and PD-5
    /// then removes every deployment onto it, in a filter that runs after this one).
    volcano: Vec<bool>,
    me: ExpansionIndex,
}

impl Expansion for Phantom {
    fn id(&self) -> &str {
        "phantom"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn carcassonne_core::Binder>> {
        // PH-1, PH-6: one per player, strength 1, wherever a follower may stand.
        let kind = d
            .figure_kind(FigureKindDef {
                name: PHANTOM.into(),
                per_player: 1,
                strength: 2,
                deploy_on: KindMask::ALL,
                follower: true,
                returns: true,
                look: "phantom".into(),
                neutral: 0,
                shares: false,
                colour: String::new(),
            })
            .map_err(|e| e.to_string())?;
        let step = d.game_slot("step", 0);
        Ok(binder(move |b: &Binding<'_>| {
            let rules = b.rules();
            let no_phantom_after = NO_PHANTOM_AFTER
                .iter()
                .filter_map(|(exp, verb)| {
                    rules
                        .expansion_index(exp)
                        .and_then(|ix| rules.verb_named(ix, verb))
                })
                .collect();
            let skip_tops_alone = b.option_str("towerTopsAlone")? == "jcz";
            let volcano = rules
                .tiles()
                .iter()
                .map(|(_, k)| k.has_tag(VOLCANO_TAG))
                .collect();
            Ok(PhantomRules {
                kind,
                step,
                no_phantom_after,
                skip_tops_alone,
                volcano,
                me: b.me(),
            })
        }))
    }
}

impl PhantomRules {
    /// Whether `a` puts the player's phantom on the board (or passes): what the phantom
    /// step keeps. `portal_used`: the step's first deployment went to another tile (PH-9).
    fn keeps(&self, v: &View<'_>, a: &Action, portal_used: bool) -> bool {
        match *a {
            Action::Pass => true,
            Action::Deploy { figure, segment } => {
                figure == self.kind && (!portal_used || on_last_tile(v, segment))
            }
            Action::Custom(c) => {
                c.expansion != self.me
                    && v.rules.verb_value(c.verb) == VerbValue::FigureKind
                    && c.value == i32::from(self.kind.0)
            }
            Action::Move { .. } | Action::Place { .. } | Action::Draw { .. } => false,
        }
    }
}

/// The tile tag of Princess & Dragon's volcanoes (its tile files).
const VOLCANO_TAG: &str = "volcano";

/// Whether `segment` is on the tile placed last (the deployment step's tile).
fn on_last_tile(v: &View<'_>, segment: carcassonne_core::SegmentId) -> bool {
    v.state
        .last_placed()
        .is_some_and(|t| v.state.board().tile(t).has_segment(segment))
}

impl BoundExpansion for PhantomRules {
    fn hook_set(&self) -> HookSet {
        HookSet::window(Window::AfterDeploy) | HookSet::FILTER_DEPLOY_ACTIONS
    }

    /// PH-3 … PH-5, PH-8: after the deployment step, the phantom step.
    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        if window != Window::AfterDeploy {
            return Ok(());
        }
        // The window opens again after the phantom step: the turn goes on.
        if ctx.get(self.step) != 0 {
            ctx.set(self.step, 0);
            return Ok(());
        }
        let st = ctx.state();
        let p = st.active_player();
        if st.last_placer() != Some(p) || st.in_supply(p, self.kind) == 0 {
            return Ok(());
        }
        // PH-4: only after an action of the step, not after passing (nor when the step
        // asked nothing: then no phantom deployment was possible either).
        match st.deploy_choice() {
            None | Some(Action::Pass) => return Ok(()),
            Some(Action::Custom(c)) if self.no_phantom_after.contains(&c.verb) => return Ok(()),
            Some(_) => {}
        }
        // PH-9: one portal use per turn: the first deployment went to another tile.
        let portal_used = matches!(
            st.deploy_choice(),
            Some(Action::Deploy { segment, .. }) if !on_last_tile(&ctx.view(), segment)
        );
        ctx.set(self.step, if portal_used { 2 } else { 1 });
        ctx.repeat_deploy_step()
    }

    /// PH-3: the phantom step keeps passing.
    fn keeps_deploy_pass(&self) -> bool {
        true
    }

    /// PH-3, PH-9: in the phantom step, only the phantom's deployments and passing.
    fn filter_deploy_actions(
        &self,
        v: View<'_>,
        _p: PlayerId,
        actions: &mut Offered<'_>,
    ) -> HookResult {
        let step = v.get(self.step);
        if step == 0 {
            return Ok(());
        }
        let portal_used = step == 2;
        actions.retain(|a| self.keeps(&v, a, portal_used));
        // JCZ decides whether to open the step from the phantom's own spots, before other
        // expansions add theirs (tower tops): with none, only passing is left. A spot on a
        // volcano is none: the dragon stands there (PD-5 removes it after this filter).
        if self.skip_tops_alone {
            let on_volcano = v.state.last_placed().is_some_and(|t| {
                let kind = v.state.board().tile(t).kind;
                self.volcano
                    .get(usize::from(kind.0))
                    .copied()
                    .unwrap_or(false)
            });
            let spot = |a: &Action| match *a {
                Action::Deploy { segment, .. } => !(on_volcano && on_last_tile(&v, segment)),
                _ => false,
            };
            if !actions.iter().any(spot) {
                actions.retain(|a| *a == Action::Pass);
            }
        }
        Ok(())
    }

    /// Names the rule when an action the phantom step does not take is tried in it.
    fn explain_refusal(
        &self,
        v: View<'_>,
        _p: PlayerId,
        action: Action,
    ) -> HookResult<Option<String>> {
        let step = v.get(self.step);
        if step == 0 || !matches!(v.state.decision().kind, DecisionKind::Deploy { .. }) {
            return Ok(None);
        }
        Ok((!self.keeps(&v, &action, step == 2)).then(|| {
            if step == 2 && matches!(action, Action::Deploy { figure, .. } if figure == self.kind) {
                "PH-9: the portal was used this turn; the phantom goes on the tile just placed"
                    .into()
            } else {
                "PH-3: the phantom step deploys only the phantom (or passes)".into()
            }
        }))
    }
}

carcassonne_core::export_expansion!("phantom", Phantom::new());
