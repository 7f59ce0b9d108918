//! The hooks whose scripts get more than the generic binding ([`generic`]): what a
//! script's declarations do natively (offers, reactions, spacing rules, moves, strength
//! bonuses), before or instead of the script's own function. Every other hook is the
//! generic binding alone.

use super::*;

impl Bind for BoundScript {
    fn bound(&self) -> &BoundScript {
        self
    }

    /// A script without `apply_setting` is told so, not only that the key is unknown.
    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        if !self.script.defines(Hook::ApplySetting) {
            return Err(HookFailure(format!(
                "this expansion has no position setting `{key}` (its script defines no `apply_setting`)"
            )));
        }
        generic::apply_setting(self, ctx, key, value)
    }

    /// A tile guard on `on_tile_drawn` looks at the drawn tile: another one is kept
    /// without a call.
    fn on_tile_drawn(&self, ctx: &mut Ctx<'_>, tile: TileKindId) -> HookResult<DrawVerdict> {
        if !self.drawn_open(tile) {
            return Ok(DrawVerdict::Keep);
        }
        generic::on_tile_drawn(self, ctx, tile)
    }

    /// A spacing rule (`keep_apart`) or `forbidden_cells` needs every tile it concerns.
    fn filters_tile(&self, rules: &Ruleset, tile: TileKindId) -> HookResult<bool> {
        if self.apart.iter().any(|a| a.concerns(rules, tile)) {
            return Ok(true);
        }
        let scripted = self.script.defines(Hook::ForbiddenCells)
            || self.script.defines(Hook::FilterPlacements);
        if !scripted {
            return Ok(false);
        }
        generic::filters_tile(self, rules, tile)
    }

    /// Spacing rules and `forbidden_cells` first, natively; then `filter_placements`.
    fn filter_placements(
        &self,
        view: View<'_>,
        player: PlayerId,
        tile: TileKindId,
        cells: &mut [PlacementCell],
    ) -> HookResult {
        let mut near = Vec::new();
        for a in self.apart.iter().filter(|a| a.concerns(view.rules, tile)) {
            a.near_cells(view, &mut near);
            for c in cells.iter_mut() {
                if c.rotations != 0 && a.conflict(&near, c.pos).is_some() {
                    c.rotations = 0;
                }
            }
        }
        self.keep_open_cells(view, tile, cells);
        self.forbidden(view, player, tile, |list| {
            if !list.is_empty() {
                for c in cells.iter_mut() {
                    if list.iter().any(|s| s.holds(c.pos.x, c.pos.y)) {
                        c.rotations = 0;
                    }
                }
            }
            Ok(())
        })?;
        generic::filter_placements(self, view, player, tile, cells)
    }

    /// A placement into a cell a spacing rule or `forbidden_cells` forbids names the
    /// rule's `reason` (or the cell, when the item gives none); any other refusal is the
    /// script's `explain_refusal` to explain.
    fn explain_refusal(
        &self,
        view: View<'_>,
        player: PlayerId,
        action: Action,
    ) -> HookResult<Option<String>> {
        if let Some(reason) = self.placement_refusal(view, player, action)? {
            return Ok(Some(reason));
        }
        generic::explain_refusal(self, view, player, action)
    }

    /// Declared offers natively; `deploy_actions(player, x, y)` gets the placed cell.
    fn deploy_step_actions(
        &self,
        view: View<'_>,
        player: PlayerId,
        out: &mut Vec<Action>,
    ) -> HookResult {
        self.native_offers(view, player, out)?;
        if !self.script.defines(Hook::DeployActions)
            || !self.guard_open(Hook::DeployActions, view.state, player.0 as usize)
        {
            return Ok(());
        }
        let (x, y) = api::last_cell(view).unwrap_or((0, 0));
        let params = [Param::Int(player.0 as i64), Param::Int(x), Param::Int(y)];
        let allow = api::Allow::OwnCustom;
        let h = Hook::DeployActions;
        self.invoke(
            h,
            api::Access::Read(view),
            &params,
            |r| self.keep_actions(h, view, player, r, allow),
            |r| self.push_actions(h, view, player, r, allow, out),
        )
    }

    /// The script sees the id of the expansion that asks (`owner`).
    fn filter_prompt_actions(
        &self,
        view: View<'_>,
        prompt: Prompt,
        actions: &mut Offered<'_>,
    ) -> HookResult {
        let (h, who) = (Hook::FilterPromptActions, prompt.player);
        if !self.script.defines(h) || !self.guard_open(h, view.state, who.0 as usize) {
            return Ok(());
        }
        let owner = view.rules.expansions()[prompt.owner.0 as usize]
            .id()
            .to_string();
        let p = who.0 as rhai::INT;
        self.filter_actions(h, view, who, actions, |list| (p, owner, list))
    }

    /// A declared offer's effects are set natively before `apply_action` runs (if any).
    fn apply_action(
        &self,
        ctx: &mut Ctx<'_>,
        player: PlayerId,
        action: CustomAction,
    ) -> HookResult {
        if let Some(o) = self.decl.offers.iter().find(|o| o.verb == action.verb) {
            apply_effects(ctx, &self.decl, &o.effects, player);
            if let Some(kind) = &o.effects.deploy {
                self.deploy_effect(ctx, o, kind, player, action)?;
            }
        }
        // A declared offer may be all there is: then its effects were the whole answer.
        if !self.script.defines(Hook::ApplyAction) {
            return Ok(());
        }
        generic::apply_action(self, ctx, player, action)
    }

    /// Declared reactions queue their prompts natively, `follow_deployments` leads its
    /// figure at the end of the turn; then the window's own hook.
    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        self.native_reactions(ctx, window)?;
        if let (Some(f), Window::AfterScoring) = (&self.follow, window) {
            f.run(ctx)?;
        }
        generic::open_window(self, ctx, window)
    }

    /// `offer_moves` prompts and reactions are listed natively.
    fn prompt_actions(&self, view: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
        let ScriptPrompt::Script { code, arg } = prompt.decode::<ScriptPrompt>()? else {
            return self.reaction_actions(view, prompt, out);
        };
        if let Some(kinds) = self.move_kinds(code) {
            return Self::move_actions(view, arg, kinds, out);
        }
        if !self.script.defines(Hook::PromptActions) {
            return Ok(());
        }
        let params = [
            Param::Int(prompt.player.0 as i64),
            Param::Int(code as i64),
            Param::Int(arg as i64),
        ];
        let allow = api::Allow::Prompt;
        let (h, who) = (Hook::PromptActions, prompt.player);
        self.invoke(
            h,
            api::Access::Read(view),
            &params,
            |r| self.keep_actions(h, view, who, r, allow),
            |r| self.push_actions(h, view, who, r, allow, out),
        )
    }

    /// An `offer_moves` move or a reaction's deployment is carried out natively first.
    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        match prompt.decode::<ScriptPrompt>()? {
            ScriptPrompt::Script { code, .. } => {
                match (self.move_kinds(code), action) {
                    // `offer_moves`: the engine carries the move out (it was offered, so legal).
                    (Some(NativePrompt::Moves(_)), Action::Move { figure, segment }) => {
                        ctx.move_figure(figure, segment)?;
                    }
                    // `offer_tiles` with `lead`: the figure goes to the chosen tile.
                    (Some(NativePrompt::Tiles(t)), _) => t.carry_out(ctx, action)?,
                    _ => {}
                }
            }
            ScriptPrompt::Reaction(i) => {
                let r = self
                    .decl
                    .reactions
                    .get(i as usize)
                    .ok_or_else(|| HookFailure(format!("unknown reaction prompt {i}")))?;
                if let Action::Deploy { figure, segment } = action {
                    ctx.deploy(prompt.player, figure, segment)?;
                    apply_effects(ctx, &self.decl, &r.effects, prompt.player);
                }
            }
        }
        generic::apply_prompt(self, ctx, prompt, action)
    }

    /// `tile_bonus_per_figure` natively, then the script's own `before_scoring`.
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        if let Some(t) = &self.tile_bonus {
            t.apply(ctx.view(), draft);
        }
        generic::before_scoring(self, ctx, draft)
    }

    /// A declared strength bonus, plus what `strength` adds.
    fn strength_delta(&self, view: View<'_>, figure: FigureId) -> HookResult<i32> {
        let mut bonus = 0;
        if let Some(i) = self.decl.strength_bonus.map(|b| self.decl.states[b].2) {
            bonus = view.state.slot(i, figure.0 as usize).clamp(-1000, 1000) as i32;
        }
        Ok(bonus + generic::strength_delta(self, view, figure)?)
    }
}

impl BoundScript {
    /// An offer's `deploy` effect: a figure of `kind` from the player's supply onto the
    /// offered segment, or for a corner offer onto the junction's segment; then its
    /// `deployed_state` is set to 1.
    fn deploy_effect(
        &self,
        ctx: &mut Ctx<'_>,
        offer: &crate::Offer,
        kind: &str,
        player: PlayerId,
        action: CustomAction,
    ) -> HookResult {
        let k = ctx
            .rules()
            .figure_named(kind)
            .ok_or_else(|| HookFailure(format!("offer `deploy`: no figure kind `{kind}`")))?;
        let at = if offer.per_corner.is_some() {
            let st = ctx.state();
            let pos = st.last_placed().map(|i| st.board().tile(i).pos);
            let corner = u8::try_from(action.value).ok().filter(|c| *c < 4);
            pos.zip(corner)
                .and_then(|(pos, c)| api::junction_anchor(ctx.view(), pos, c))
        } else {
            action.segment
        };
        let at = at.ok_or_else(|| {
            HookFailure("offer `deploy`: the action names no segment or junction".into())
        })?;
        let figure = ctx.deploy(player, k, at)?;
        if let Some(i) = offer.effects.deployed_state {
            let (_, _, slot) = self.decl.states[i];
            ctx.set(SlotRef::untyped(slot, figure.0 as usize), 1);
        }
        Ok(())
    }

    /// Why a spacing rule or `forbidden_cells` refuses a placement, if one does.
    fn placement_refusal(
        &self,
        view: View<'_>,
        player: PlayerId,
        action: Action,
    ) -> HookResult<Option<String>> {
        let Action::Place { pos, .. } = action else {
            return Ok(None);
        };
        let carcassonne_core::DecisionKind::PlaceTile { tile } = view.state.decision().kind else {
            return Ok(None);
        };
        let mine = 1u64 << (self.me.0 as u32).min(63);
        if view.rules.placement_filters(tile) & mine == 0 {
            return Ok(None);
        }
        let mut near = Vec::new();
        for a in self.apart.iter().filter(|a| a.concerns(view.rules, tile)) {
            a.near_cells(view, &mut near);
            if let Some(at) = a.conflict(&near, pos) {
                return Ok(Some(format!("{} ({},{})", a.reason, at.x, at.y)));
            }
        }
        self.forbidden(view, player, tile, |list| {
            let Some(square) = list.iter().find(|s| s.holds(pos.x, pos.y)) else {
                return Ok(None);
            };
            let reason = square.reason.clone().unwrap_or_else(|| {
                format!("({},{}) is a cell `forbidden_cells` forbids", pos.x, pos.y)
            });
            // A reason is one line of at most 200 characters.
            Ok(Some(
                reason
                    .chars()
                    .map(|c| if c.is_control() { ' ' } else { c })
                    .take(200)
                    .collect(),
            ))
        })
    }
}
