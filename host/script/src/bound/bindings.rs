//! Core's hooks, each bound to the script function of the same role.

use super::*;

impl BoundExpansion for BoundScript {
    fn hook_set(&self) -> HookSet {
        self.hook_set
    }

    fn hook_gates(&self) -> Vec<carcassonne_core::HookGate> {
        self.gates.clone()
    }

    fn prepare_game(&self, ctx: &mut Ctx<'_>, start: &mut Vec<StartTile>) -> HookResult {
        let h = Hook::PrepareGame;
        if !self.script.defines(h) || !self.guard_open(h, ctx.state(), 0) {
            return Ok(());
        }
        let list: Array = start
            .iter()
            .map(|t| api::start_tile_value(&self.names, t))
            .collect();
        let r = self.call(h, api::Access::write(ctx), (list,))?;
        if r.is_unit() {
            return Ok(());
        }
        let items = r
            .try_cast::<Array>()
            .ok_or_else(|| self.bad_return(h, "neither () nor an array".into()))?;
        let laid = items
            .into_iter()
            .map(|item| api::start_tile_from(&self.names, item))
            .collect::<Result<Vec<_>, String>>()
            .map_err(|m| self.bad_return(h, m))?;
        *start = laid;
        Ok(())
    }

    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        if !self.script.defines(Hook::StartGame) {
            return Ok(());
        }
        self.invoke(Hook::StartGame, api::Access::write(ctx), &[], unit, done)
    }

    fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
        if !self.script.defines(Hook::ApplySetting) {
            return Err(HookFailure(format!(
                "this expansion has no position setting `{key}` (its script defines no `apply_setting`)"
            )));
        }
        self.call(
            Hook::ApplySetting,
            api::Access::write(ctx),
            (key.to_string(), value.to_string()),
        )
        .map(drop)
    }

    fn on_tile_drawn(&self, ctx: &mut Ctx<'_>, tile: TileKindId) -> HookResult<DrawVerdict> {
        if !self.guard_open(Hook::OnTileDrawn, ctx.state(), 0) {
            return Ok(DrawVerdict::Keep);
        }
        let params = [Param::Tile(tile)];
        let keep = |r| self.verdict(Hook::OnTileDrawn, r, &["keep", "redraw", "discard"]);
        self.invoke(
            Hook::OnTileDrawn,
            api::Access::write(ctx),
            &params,
            keep,
            |r| {
                Ok(match r {
                    Cached::Int(1) => DrawVerdict::Redraw,
                    Cached::Int(2) => DrawVerdict::Discard,
                    _ => DrawVerdict::Keep,
                })
            },
        )
    }

    fn filters_tile(&self, rules: &Ruleset, tile: TileKindId) -> HookResult<bool> {
        if self.apart.iter().any(|a| a.concerns(rules, tile)) {
            return Ok(true);
        }
        let scripted = self.script.defines(Hook::ForbiddenCells)
            || self.script.defines(Hook::FilterPlacements);
        if !scripted {
            return Ok(false);
        }
        if !self.script.defines(Hook::FiltersTile) {
            return Ok(true);
        }
        let name = rules.tiles().get(tile).id.clone();
        let r = self.call(Hook::FiltersTile, api::Access::Rules(rules), (name,))?;
        r.as_bool()
            .map_err(|t| self.bad_return(Hook::FiltersTile, format!("a value of type {t}")))
    }

    fn filter_placements(
        &self,
        view: View<'_>,
        player: PlayerId,
        tile: TileKindId,
        cells: &mut [PlacementCell],
    ) -> HookResult {
        let p = player.0 as rhai::INT;
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
        if !self.script.defines(Hook::FilterPlacements)
            || !self.guard_open(Hook::FilterPlacements, view.state, player.0 as usize)
        {
            return Ok(());
        }
        let name = self.names.tile_id(tile);
        let list: Array = cells
            .iter()
            .filter(|c| c.rotations != 0)
            .map(|c| {
                let mut m = Map::new();
                m.insert("x".into(), (c.pos.x as rhai::INT).into());
                m.insert("y".into(), (c.pos.y as rhai::INT).into());
                m.insert("rotations".into(), (c.rotations as rhai::INT).into());
                Dynamic::from_map(m)
            })
            .collect();
        let r = self.call(
            Hook::FilterPlacements,
            api::Access::Read(view),
            (p, name, list),
        )?;
        let kept = r
            .try_cast::<Array>()
            .ok_or_else(|| self.bad_return(Hook::FilterPlacements, "not an array".into()))?;
        let mut allowed: Vec<(i32, i32, u8)> = Vec::with_capacity(kept.len());
        for k in kept {
            allowed.push(self.cell_of(Hook::FilterPlacements, k, true)?);
        }
        for c in cells.iter_mut() {
            let keep = allowed
                .iter()
                .filter(|(x, y, _)| *x == c.pos.x && *y == c.pos.y)
                .fold(0u8, |m, (_, _, r)| m | r);
            // A filter only removes: bits it adds are ignored.
            c.rotations &= keep;
        }
        Ok(())
    }

    /// A placement into a cell the script's `forbidden_cells` forbids names the item's
    /// `reason` (or the cell, when the item gives none). Asked only for a refused action.
    fn explain_refusal(
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

    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: Pos) -> HookResult {
        if !self.guard_open(Hook::OnTilePlaced, ctx.state(), 0) {
            return Ok(());
        }
        let params = [Param::Int(pos.x as i64), Param::Int(pos.y as i64)];
        self.invoke(
            Hook::OnTilePlaced,
            api::Access::write(ctx),
            &params,
            unit,
            done,
        )
    }

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

    fn filter_deploy_actions(
        &self,
        view: View<'_>,
        player: PlayerId,
        actions: &mut Vec<Action>,
    ) -> HookResult {
        if !self.guard_open(Hook::FilterDeployActions, view.state, player.0 as usize) {
            return Ok(());
        }
        let p = player.0 as rhai::INT;
        self.filter_actions(Hook::FilterDeployActions, view, player, actions, |list| {
            (p, list)
        })
    }

    fn filter_prompt_actions(
        &self,
        view: View<'_>,
        prompt: Prompt,
        actions: &mut Vec<Action>,
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

    fn apply_action(
        &self,
        ctx: &mut Ctx<'_>,
        player: PlayerId,
        action: CustomAction,
    ) -> HookResult {
        if let Some(o) = self.decl.offers.iter().find(|o| o.verb == action.verb) {
            apply_effects(ctx, &self.decl, &o.effects, player);
        }
        if !self.script.defines(Hook::ApplyAction) {
            return Ok(());
        }
        let a = Action::Custom(action);
        let params = [Param::Int(player.0 as i64), Param::Action(&a)];
        self.invoke(
            Hook::ApplyAction,
            api::Access::write(ctx),
            &params,
            unit,
            done,
        )
    }

    fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        self.native_reactions(ctx, window)?;
        let hook = window_hook(window);
        if !self.script.defines(hook) || !self.guard_open(hook, ctx.state(), 0) {
            return Ok(());
        }
        self.invoke(hook, api::Access::write(ctx), &[], unit, done)
    }

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

    fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
        let (code, arg) = match prompt.decode::<ScriptPrompt>()? {
            ScriptPrompt::Script { code, arg } => {
                // `offer_moves`: the engine carries the move out (it was offered, so legal).
                if let (Some(_), Action::Move { figure, segment }) = (self.move_kinds(code), action)
                {
                    ctx.move_figure(figure, segment)?;
                }
                (code, arg)
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
                (r.code, 0)
            }
        };
        if !self.script.defines(Hook::ApplyPrompt) {
            return Ok(());
        }
        let params = [
            Param::Int(prompt.player.0 as i64),
            Param::Int(code as i64),
            Param::Int(arg as i64),
            Param::Action(&action),
        ];
        self.invoke(
            Hook::ApplyPrompt,
            api::Access::write(ctx),
            &params,
            unit,
            done,
        )
    }

    fn strength_delta(&self, view: View<'_>, figure: FigureId) -> HookResult<i32> {
        let mut bonus = 0;
        if let Some(i) = self.decl.strength_bonus.map(|b| self.decl.states[b].2) {
            bonus = view.state.slot(i, figure.0 as usize).clamp(-1000, 1000) as i32;
        }
        if !self.script.defines(Hook::Strength)
            || !self.guard_open(Hook::Strength, view.state, figure.0 as usize)
        {
            return Ok(bonus);
        }
        let params = [Param::Int(figure.0 as i64)];
        let keep = |r: Dynamic| {
            r.as_int()
                .map(Cached::Int)
                .map_err(|t| self.bad_return(Hook::Strength, format!("a value of type {t}")))
        };
        let v = self.invoke(
            Hook::Strength,
            api::Access::Read(view),
            &params,
            keep,
            |r| {
                Ok(match *r {
                    Cached::Int(v) => v,
                    _ => 0,
                })
            },
        )?;
        Ok(bonus + v.clamp(-1000, 1000) as i32)
    }

    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        if !self.guard_open(Hook::BeforeScoring, ctx.state(), 0)
            || !self.scoring_open(Hook::BeforeScoring, ctx.state(), draft)
        {
            return Ok(());
        }
        let players = ctx.state().players().len() as i64;
        let params = [Param::Draft(draft)];
        let keep = |r: Dynamic| Ok(Cached::Value(r));
        let r = self.invoke(
            Hook::BeforeScoring,
            api::Access::write(ctx),
            &params,
            keep,
            |r| {
                Ok(match r {
                    Cached::Value(v) if !v.is_unit() => Some(v.clone()),
                    _ => None,
                })
            },
        )?;
        let Some(r) = r else {
            return Ok(());
        };
        let awards = r
            .try_cast::<Array>()
            .ok_or_else(|| self.bad_return(Hook::BeforeScoring, "not an array".into()))?;
        let mut out = Vec::with_capacity(awards.len());
        for a in awards {
            let m = a
                .try_cast::<Map>()
                .ok_or_else(|| self.bad_return(Hook::BeforeScoring, "a non-map award".into()))?;
            let get = |f: &str| m.get(f).and_then(|v| v.as_int().ok());
            match (get("item"), get("player"), get("points")) {
                (Some(i), Some(p), Some(pts))
                    if (0..draft.features.len() as i64).contains(&i)
                        && (0..players).contains(&p)
                        && (-10_000..=10_000).contains(&pts) =>
                {
                    out.push(Award {
                        item: i as u16,
                        player: PlayerId(p as u8),
                        points: pts as i32,
                    })
                }
                _ => {
                    return Err(self.bad_return(
                        Hook::BeforeScoring,
                        "an award without a valid item, player and points (|points| ≤ 10000)"
                            .into(),
                    ))
                }
            }
        }
        draft.awards = out;
        Ok(())
    }

    fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        if !self.script.defines(Hook::AfterScoring)
            || !self.guard_open(Hook::AfterScoring, ctx.state(), 0)
            || !self.scoring_open(Hook::AfterScoring, ctx.state(), draft)
        {
            return Ok(());
        }
        let params = [Param::Draft(draft)];
        self.invoke(
            Hook::AfterScoring,
            api::Access::write(ctx),
            &params,
            unit,
            done,
        )
    }

    fn on_figure_removed(
        &self,
        ctx: &mut Ctx<'_>,
        figure: FigureId,
        reason: RemovalReason,
    ) -> HookResult {
        if !self.guard_open(Hook::OnFigureRemoved, ctx.state(), figure.0 as usize) {
            return Ok(());
        }
        let params = [Param::Int(figure.0 as i64), Param::Reason(reason)];
        self.invoke(
            Hook::OnFigureRemoved,
            api::Access::write(ctx),
            &params,
            unit,
            done,
        )
    }

    fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        if !self.guard_open(Hook::OnTurnEnd, ctx.state(), 0) {
            return Ok(TurnEndVerdict::Next);
        }
        let keep = |r| self.verdict(Hook::OnTurnEnd, r, &["next", "extra"]);
        self.invoke(Hook::OnTurnEnd, api::Access::write(ctx), &[], keep, |r| {
            Ok(match r {
                Cached::Int(1) => TurnEndVerdict::ExtraPart,
                _ => TurnEndVerdict::Next,
            })
        })
    }

    fn describe(&self, view: View<'_>, out: &mut Vec<Visible>) -> HookResult {
        let h = Hook::Describe;
        if !self.script.defines(h) || !self.guard_open(h, view.state, 0) {
            return Ok(());
        }
        let r = self.call(h, api::Access::Read(view), ())?;
        let items = r
            .try_cast::<Array>()
            .ok_or_else(|| self.bad_return(h, "not an array".into()))?;
        for item in items {
            let v = api::visible_from(view, item).map_err(|m| self.bad_return(h, m))?;
            out.push(v);
        }
        Ok(())
    }

    fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
        if !self.guard_open(Hook::FinalScoring, ctx.state(), 0) {
            return Ok(());
        }
        self.invoke(Hook::FinalScoring, api::Access::write(ctx), &[], unit, done)
    }
}
