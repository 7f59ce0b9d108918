//! What the host does natively for a bound script: forbidden cells, action lists, declared offers and reactions.

use super::*;

impl BoundScript {
    /// Runs `forbidden_cells` (when defined and not guarded off) and hands its squares to
    /// `then` (none when it does not run).
    pub(crate) fn forbidden<T>(
        &self,
        view: View<'_>,
        player: PlayerId,
        tile: TileKindId,
        then: impl FnOnce(&[memo::Square]) -> HookResult<T>,
    ) -> HookResult<T> {
        if !self.script.defines(Hook::ForbiddenCells)
            || !self.guard_open(Hook::ForbiddenCells, view.state, player.0 as usize)
        {
            return then(&[]);
        }
        let params = [Param::Int(player.0 as i64), Param::Tile(tile)];
        let keep = |r: Dynamic| {
            let list = r
                .try_cast::<Array>()
                .ok_or_else(|| self.bad_return(Hook::ForbiddenCells, "not an array".into()))?;
            let mut out = Vec::with_capacity(list.len());
            for item in list {
                // `radius` r forbids the (2r+1)² square around the cell; `reason` names
                // the rule when a refused placement is explained.
                let (radius, reason) = item
                    .read_lock::<Map>()
                    .map(|m| {
                        let r = m.get("radius").and_then(|v| v.as_int().ok());
                        let why = m.get("reason").and_then(|v| v.clone().into_string().ok());
                        (r, why)
                    })
                    .unwrap_or_default();
                let (x, y, _) = self.cell_of(Hook::ForbiddenCells, item, false)?;
                out.push(memo::Square {
                    x,
                    y,
                    radius: radius.unwrap_or(0).clamp(0, 64) as i32,
                    reason,
                });
            }
            Ok(Cached::Cells(out))
        };
        self.invoke(
            Hook::ForbiddenCells,
            api::Access::Read(view),
            &params,
            keep,
            |r| match r {
                Cached::Cells(list) => then(list),
                _ => then(&[]),
            },
        )
    }

    /// Keeps a hook's returned actions: checked once when they depend on the rules only
    /// (custom actions and `pass` that name no figure and no segment), else as returned,
    /// to be checked against the game every time ([`BoundScript::push_actions`]).
    pub(crate) fn keep_actions(
        &self,
        hook: Hook,
        view: View<'_>,
        player: PlayerId,
        value: Dynamic,
        allow: api::Allow,
    ) -> HookResult<Cached> {
        if !value.is_array()
            || !value
                .read_lock::<Array>()
                .is_some_and(|a| api::rules_only(&a))
        {
            return Ok(Cached::Value(value));
        }
        let mut out = Vec::new();
        self.actions_from(hook, view, player, value, allow, &mut out)?;
        Ok(Cached::Actions(out))
    }

    /// Adds kept actions to `out` (each once).
    pub(crate) fn push_actions(
        &self,
        hook: Hook,
        view: View<'_>,
        player: PlayerId,
        kept: &Cached,
        allow: api::Allow,
        out: &mut Vec<Action>,
    ) -> HookResult {
        match kept {
            Cached::Actions(list) => {
                for a in list {
                    if !out.contains(a) {
                        out.push(*a);
                    }
                }
                Ok(())
            }
            Cached::Value(v) => self.actions_from(hook, view, player, v.clone(), allow, out),
            _ => Ok(()),
        }
    }

    /// Reads a returned cell `#{x, y}` (and `rotations` when `with_rotations`).
    pub(crate) fn cell_of(
        &self,
        hook: Hook,
        item: Dynamic,
        with_rotations: bool,
    ) -> HookResult<(i32, i32, u8)> {
        let m = item
            .try_cast::<Map>()
            .ok_or_else(|| self.bad_return(hook, "a cell that is not a map".into()))?;
        let get = |f: &str| m.get(f).and_then(|v| v.as_int().ok());
        let rot = if with_rotations {
            get("rotations")
        } else {
            Some(0)
        };
        match (get("x"), get("y"), rot) {
            (Some(x), Some(y), Some(r))
                if i32::try_from(x).is_ok() && i32::try_from(y).is_ok() && (0..16).contains(&r) =>
            {
                Ok((x as i32, y as i32, r as u8))
            }
            _ => Err(self.bad_return(
                hook,
                if with_rotations {
                    "a cell without integer x, y and rotations (0..15)".into()
                } else {
                    "a cell without integer x and y".into()
                },
            )),
        }
    }

    /// The declared deployment-step offers of the active player, without a script call.
    pub(crate) fn native_offers(
        &self,
        view: View<'_>,
        player: PlayerId,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let decl = &self.decl;
        if decl.offers.is_empty() {
            return Ok(());
        }
        let me = self.me;
        let roles = Some(&self.roles);
        for (i, o) in decl.offers.iter().enumerate() {
            let (_, _, slot) = decl.states[o.player_state];
            if view.state.slot(slot, player.0 as usize) == 0 {
                continue;
            }
            let custom = |figure| {
                Action::Custom(CustomAction {
                    expansion: me,
                    verb: o.verb,
                    figure,
                    segment: None,
                    value: 0,
                })
            };
            let Some(m) = roles.and_then(|r| r.get(i)) else {
                continue;
            };
            if o.per_corner.is_some() {
                if let Some(last) = view.state.last_placed() {
                    let pos = view.state.board().tile(last).pos;
                    for corner in crate::api::junction_corners_of(view, pos, m.feature_kinds) {
                        out.push(Action::Custom(CustomAction {
                            expansion: me,
                            verb: o.verb,
                            figure: None,
                            segment: None,
                            value: i32::from(corner),
                        }));
                    }
                }
                continue;
            }
            if o.per_segment.is_some() {
                Self::segment_offers(view, m.feature_kinds, |s| {
                    out.push(Action::Custom(CustomAction {
                        expansion: me,
                        verb: o.verb,
                        figure: None,
                        segment: Some(s),
                        value: 0,
                    }))
                });
                continue;
            }
            let Some((fstate, _)) = &o.per_figure else {
                out.push(custom(None));
                continue;
            };
            let (_, _, fslot) = decl.states[*fstate];
            // `offer_protect`: figures named by another expansion's game state (id + 1).
            let protected: Vec<usize> = o
                .protect
                .iter()
                .filter_map(|(exp, name)| {
                    let ix = view.rules.expansion_index(exp)?;
                    let s = view.rules.slots().iter().position(|d| {
                        d.expansion == ix && d.name == *name && d.scope == SlotScope::Game
                    })?;
                    let v = view.state.slot(carcassonne_core::SlotId(s as u16), 0);
                    usize::try_from(v - 1).ok()
                })
                .collect();
            for (fi, f) in view.state.figures().iter().enumerate() {
                let carcassonne_core::FigureLoc::On(seg) = f.loc else {
                    continue;
                };
                if f.owner != player && protected.contains(&fi) {
                    continue;
                }
                let node = view.state.graph().segment(seg);
                if node.is_virtual() || view.state.slot(fslot, fi) != 0 {
                    continue;
                }
                let fits = if view.rules.figure_kind(f.kind).follower {
                    m.feature_kinds & (1 << node.kind.0) != 0
                } else {
                    m.figure_kinds.contains(&f.kind)
                };
                if fits {
                    out.push(custom(Some(FigureId(fi as u16))));
                }
            }
        }
        Ok(())
    }

    /// `offer_per_segment`: the segments of the tile just placed whose kind is in `kinds`
    /// (a mask of feature kind ids) and whose feature is unfinished, in segment order.
    fn segment_offers(
        view: View<'_>,
        kinds: u64,
        mut each: impl FnMut(carcassonne_core::SegmentId),
    ) {
        let Some(last) = view.state.last_placed() else {
            return;
        };
        let g = view.state.graph();
        for s in view.state.board().tile(last).segments() {
            if kinds & (1 << g.segment(s).kind.0) != 0 && !g.totals(g.feature_of(s)).complete() {
                each(s);
            }
        }
    }

    /// Queues the declared out-of-turn deployment prompts of a window.
    pub(crate) fn native_reactions(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
        let decl = &self.decl;
        for (i, r) in decl.reactions.iter().enumerate() {
            if r.window != window || ctx.state().in_final_scoring() {
                continue;
            }
            let (_, _, slot) = decl.states[r.player_state];
            let n = ctx.state().players().len();
            let active = ctx.state().active_player().0 as usize;
            // Clockwise from the active player's left neighbour, then (stable) by score.
            let mut order: Vec<PlayerId> = (1..n)
                .map(|k| PlayerId(((active + k) % n) as u8))
                .filter(|p| ctx.state().slot(slot, p.0 as usize) != 0)
                .collect();
            if r.fewest_points_first {
                order.sort_by_key(|p| ctx.state().players()[p.0 as usize].score);
            }
            for p in order {
                ctx.prompt(p, ScriptPrompt::Reaction(i as u16));
            }
        }
        Ok(())
    }

    /// A reaction prompt's choices: the player's legal follower deployments on the tile
    /// just placed, and passing; nothing (the prompt is skipped) when there is none.
    pub(crate) fn reaction_actions(
        &self,
        view: View<'_>,
        prompt: Prompt,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let ScriptPrompt::Reaction(i) = prompt.decode::<ScriptPrompt>()? else {
            return Ok(());
        };
        let Some(r) = self.decl.reactions.get(i as usize) else {
            return Ok(());
        };
        let (_, _, slot) = self.decl.states[r.player_state];
        let Some(last) = view.state.last_placed() else {
            return Ok(());
        };
        if view.state.slot(slot, prompt.player.0 as usize) == 0 {
            return Ok(());
        }
        let start = out.len();
        view.deployments_on_tile(prompt.player, view.state.board().tile(last).pos, out);
        let mut k = start;
        while k < out.len() {
            match out[k] {
                Action::Deploy { figure, .. } if view.rules.figure_kind(figure).follower => k += 1,
                _ => {
                    out.remove(k);
                }
            }
        }
        if out.len() > start {
            out.push(Action::Pass);
        }
        Ok(())
    }
}

/// How a prompt's choices are listed natively ([`BoundScript::move_actions`]).
#[derive(Debug)]
pub(crate) enum NativePrompt {
    /// `offer_moves`: the feature kinds the prompt's figure may move to.
    Moves(Vec<carcassonne_core::FeatureKindId>),
    /// `offer_tiles`.
    Tiles(TileOffer),
}

/// An `offer_tiles` prompt, resolved: its custom action, and the game-scoped state naming
/// (segment + 1) the one tile left out.
#[derive(Debug)]
pub(crate) struct TileOffer {
    me: carcassonne_core::ExpansionIndex,
    pub(super) verb: VerbId,
    pub(super) except: SlotId,
    /// The answer carried out natively (`offer_tiles` with `lead`).
    pub(super) lead: Option<TileLeadRule>,
}

/// A [`crate::TileLead`], resolved: the neutral kind (`None`: no loaded expansion
/// declares it, an error when answered) and the figure state's slot.
#[derive(Debug)]
pub(crate) struct TileLeadRule {
    pub(super) kind: Result<carcassonne_core::FigureKindId, String>,
    pub(super) figure_state: Option<SlotId>,
}

/// The declared `offer_tiles` prompts, by code.
pub(super) fn tile_prompts<'a>(
    decl: &'a Decl,
    rules: &'a Ruleset,
    me: carcassonne_core::ExpansionIndex,
) -> impl Iterator<Item = (u16, NativePrompt)> + 'a {
    decl.tile_prompts.iter().map(move |t| {
        let lead = t.lead.as_ref().map(|l| TileLeadRule {
            kind: rules
                .figure_named(&l.kind)
                .filter(|k| rules.figure_kind(*k).neutral > 0)
                .ok_or_else(|| format!("offer_tiles: no neutral figure kind `{}`", l.kind)),
            figure_state: l.figure_state.map(|i| decl.states[i].2),
        });
        let offer = TileOffer {
            me,
            verb: t.verb,
            except: decl.states[t.except].2,
            lead,
        };
        (t.code, NativePrompt::Tiles(offer))
    })
}

impl TileOffer {
    /// `offer_tiles` with `lead`: the chosen tile's figure moves natively, and the
    /// states follow ([`crate::TileLead`]). Nothing for another answer.
    pub(super) fn carry_out(&self, ctx: &mut Ctx<'_>, action: Action) -> HookResult {
        let (Some(lead), Action::Custom(c)) = (&self.lead, action) else {
            return Ok(());
        };
        let Some(seg) = c
            .segment
            .filter(|_| c.verb == self.verb && c.expansion == self.me)
        else {
            return Ok(());
        };
        let kind = lead.kind.clone().map_err(HookFailure)?;
        ctx.set(SlotRef::untyped(self.except, 0), seg.index() as i64 + 1);
        let figure = crate::api::lead_neutral(ctx, kind, seg)
            .map_err(|e| HookFailure(format!("offer_tiles: {e}")))?;
        if let Some(slot) = lead.figure_state {
            ctx.set(
                SlotRef::untyped(slot, 0),
                figure.map_or(0, |f| f.0 as i64 + 1),
            );
        }
        Ok(())
    }
}

/// The placed-tile guards, resolved: follower kinds as a mask, `in_line` kinds by id.
pub(super) fn placed_checks(decl: &Decl, rules: &Ruleset) -> [Option<PlacedCheck>; HOOK_COUNT] {
    let mut followers = [0u64; 4];
    for (i, k) in rules.figure_kinds().iter().enumerate().take(256) {
        if k.follower {
            followers[i / 64] |= 1 << (i % 64);
        }
    }
    std::array::from_fn(|h| {
        decl.placed[h].as_ref().map(|p| PlacedCheck {
            follower: p.follower.then_some(followers),
            in_line: p.in_line.as_ref().map(|k| rules.figure_named(k)),
            tagged: (p.tag.is_some() || p.tiles.is_some()).then(|| {
                rules
                    .tiles()
                    .iter()
                    .map(|(_, k)| {
                        p.tag.as_ref().is_none_or(|t| k.has_tag(t))
                            && p.tiles.as_ref().is_none_or(|ids| ids.contains(&k.id))
                    })
                    .collect()
            }),
        })
    })
}

impl BoundScript {
    /// A hook's placed-tile guards: whether the tile placed last holds a follower of its
    /// placer (`guard_placed_follower`) and lies in the row or column of a figure of the
    /// declared kind (`guard_placed_in_line`). Open for a hook without them.
    pub(super) fn placed_open(&self, hook: Hook, state: &carcassonne_core::GameState) -> bool {
        let Some(check) = &self.placed[hook.index()] else {
            return true;
        };
        // On `on_tile_drawn` the tile guards look at the drawn tile (`drawn_open`).
        let drawn = hook == Hook::OnTileDrawn;
        if drawn && check.follower.is_none() && check.in_line.is_none() {
            return true;
        }
        let Some(last) = state.last_placed() else {
            return false;
        };
        let tile = state.board().tile(last);
        if let Some(tagged) = check.tagged.as_ref().filter(|_| !drawn) {
            if !tagged.get(tile.kind.0 as usize).copied().unwrap_or(false) {
                return false;
            }
        }
        let g = state.graph();
        let on = |f: &carcassonne_core::Figure| match f.loc {
            carcassonne_core::FigureLoc::On(s) => Some(s),
            _ => None,
        };
        if let Some(kind) = check.in_line {
            let Some(kind) = kind else {
                return false;
            };
            let pos = tile.pos;
            let seen = state.figures().iter().any(|f| {
                f.kind == kind
                    && on(f).is_some_and(|s| {
                        let n = g.segment(s);
                        !n.is_virtual() && (n.pos.x == pos.x || n.pos.y == pos.y)
                    })
            });
            if !seen {
                return false;
            }
        }
        if let Some(followers) = check.follower {
            let Some(placer) = state.last_placer() else {
                return false;
            };
            let k = |f: &carcassonne_core::Figure| f.kind.0 as usize;
            return state.figures().iter().any(|f| {
                f.owner == placer
                    && followers[k(f) / 64] & (1 << (k(f) % 64)) != 0
                    && on(f).is_some_and(|s| tile.has_segment(s))
            });
        }
        true
    }

    /// `guard_placed_tag` / `guard_placed_tile` on `on_tile_drawn`: whether the drawn tile
    /// passes them (open without them).
    pub(super) fn drawn_open(&self, tile: TileKindId) -> bool {
        self.placed[Hook::OnTileDrawn.index()]
            .as_ref()
            .and_then(|c| c.tagged.as_ref())
            .is_none_or(|t| t.get(tile.0 as usize).copied().unwrap_or(false))
    }

    /// `offer_tiles`: the verb once per placed tile, on its first segment, in placement
    /// order, but the tile of the segment the `except` state names.
    pub(super) fn tile_actions(view: View<'_>, t: &TileOffer, out: &mut Vec<Action>) {
        let st = view.state;
        let g = st.graph();
        let here = usize::try_from(st.slot(t.except, 0) - 1)
            .ok()
            .filter(|s| *s < g.len())
            .map(|s| g.segment(carcassonne_core::SegmentId::new(s)))
            .filter(|n| !n.is_virtual())
            .map(|n| n.pos);
        for tile in st.board().tiles() {
            if tile.segment_count == 0 || Some(tile.pos) == here {
                continue;
            }
            out.push(Action::Custom(CustomAction {
                expansion: t.me,
                verb: t.verb,
                figure: None,
                segment: Some(tile.segment(0)),
                value: 0,
            }));
        }
    }

    /// `keep_open_on`: clears the rotations of `cells` whose placement of `tile` would
    /// complete an unfinished feature (of the rule's kinds) with a part on the tile its
    /// state names. Only the cell such a feature's open edges all lead into can complete
    /// it, so only that one is tried.
    pub(crate) fn keep_open_cells(
        &self,
        view: View<'_>,
        tile: TileKindId,
        cells: &mut [PlacementCell],
    ) {
        let st = view.state;
        let g = st.graph();
        for rule in self.apart.iter().filter_map(|a| a.open_on) {
            let Some(node) = usize::try_from(st.slot(rule.slot, 0) - 1)
                .ok()
                .filter(|s| *s < g.len())
                .map(|s| g.segment(carcassonne_core::SegmentId::new(s)))
                .filter(|n| !n.is_virtual())
            else {
                continue;
            };
            let Some(placed) = st.board().at(node.pos) else {
                continue;
            };
            // One tile closes at most its four sides: a feature with more open edges
            // (or empty cells around a site) stays open whatever is placed.
            let mut guarded = Vec::new();
            for s in placed.segments() {
                let kind = g.segment(s).kind.0;
                let f = g.feature_of(s);
                let t = g.totals(f);
                if kind < 64
                    && rule.kinds & (1 << kind) != 0
                    && t.completable
                    && !t.scored
                    && (1..=4).contains(&t.open)
                    && !guarded.contains(&f)
                {
                    guarded.push(f);
                }
            }
            if guarded.is_empty() {
                continue;
            }
            // The one empty cell each feature's open edges all lead into: only a tile
            // placed there can complete it.
            let mut near: Vec<Pos> = Vec::new();
            for &f in &guarded {
                if let Some(p) = open_cell(view, f) {
                    if !near.contains(&p) {
                        near.push(p);
                    }
                }
            }
            for c in cells.iter_mut() {
                if c.rotations == 0 || !near.contains(&c.pos) {
                    continue;
                }
                for q in 0..4u8 {
                    if c.rotations & (1 << q) != 0
                        && api::completed_by(
                            view,
                            tile,
                            c.pos,
                            carcassonne_core::Rotation::quarter_turns(q),
                        )
                        .iter()
                        .any(|f| guarded.contains(f))
                    {
                        c.rotations &= !(1 << q);
                    }
                }
            }
        }
    }
}

/// The empty cell into which every open edge of feature `f` leads (the empty cells around
/// it, for a site), if there is exactly one: the only cell where one tile can complete it.
fn open_cell(view: View<'_>, f: carcassonne_core::FeatureId) -> Option<Pos> {
    let st = view.state;
    let g = st.graph();
    let board = st.board();
    let mut cell: Option<Pos> = None;
    // false as soon as two different cells are found.
    let mut add = |p: Pos| match cell {
        None => {
            cell = Some(p);
            true
        }
        Some(c) => c == p,
    };
    for m in g.members(f) {
        let node = g.segment(m);
        if node.is_virtual() {
            continue;
        }
        let tile = board.at(node.pos)?;
        let local = tile.local_of(m)?;
        if local < 16 && tile.sites & (1 << local) != 0 {
            for p in node.pos.surrounding() {
                if board.at(p).is_none() && !add(p) {
                    return None;
                }
            }
            continue;
        }
        let seg = view.rules.tiles().get(tile.kind).segments.get(local)?;
        for side in seg.sides.rotate(tile.rotation).iter() {
            let p = node.pos.step(side);
            if board.at(p).is_none() && !add(p) {
                return None;
            }
        }
    }
    cell
}

/// Where a `follow_deployments` figure hears a new follower from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reach {
    Line,
    Adjacent,
    Any,
}

/// What the placer scores when the figure arrives (`follow_deployments`'s `award`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FollowAward {
    Area,
    Own,
    None,
}

/// A `follow_deployments` declaration resolved against the ruleset and its options.
#[derive(Clone, Debug)]
pub(super) struct FollowRule {
    /// The figure kind (`None`: not in the ruleset, so the rule never acts).
    kind: Option<carcassonne_core::FigureKindId>,
    reach: Reach,
    farmers: bool,
    award: FollowAward,
    radius: i32,
    /// The feature kinds scored (bit k: kind k); every kind but fields when none is named.
    kinds: u64,
    label: carcassonne_core::LabelId,
}

impl FollowRule {
    pub(super) fn resolve(f: &crate::decl::Follow, b: &Binding<'_>) -> HookResult<FollowRule> {
        use crate::decl::Setting;
        let rules = b.rules();
        let text = |s: &Setting<String>| -> HookResult<String> {
            match s {
                Setting::Fixed(v) => Ok(v.clone()),
                Setting::Option(key) => b.option_str(key).map(str::to_string),
            }
        };
        let bad = |key: &str, v: &str| HookFailure(format!("follow_deployments: `{key}` is `{v}`"));
        let reach = match text(&f.reach)?.as_str() {
            "line" => Reach::Line,
            "adjacent" => Reach::Adjacent,
            "any" => Reach::Any,
            v => return Err(bad("reach", v)),
        };
        let award = match text(&f.award)?.as_str() {
            "area" => FollowAward::Area,
            "own" => FollowAward::Own,
            "none" => FollowAward::None,
            v => return Err(bad("award", v)),
        };
        let farmers = match &f.farmers {
            Setting::Fixed(v) => *v,
            Setting::Option(key) => b.option_flag(key)?,
        };
        let field = rules.kind_named("field");
        let kinds = if f.kinds.is_empty() {
            (0..rules.kinds().len().min(64))
                .filter(|&k| Some(carcassonne_core::FeatureKindId(k as u8)) != field)
                .fold(0u64, |m, k| m | 1 << k)
        } else {
            f.kinds
                .iter()
                .filter_map(|n| rules.kind_named(n).filter(|k| k.0 < 64))
                .fold(0u64, |m, k| m | 1 << k.0)
        };
        Ok(FollowRule {
            kind: rules.figure_named(&f.kind),
            reach,
            farmers,
            award,
            radius: f.radius,
            kinds,
            label: f.label,
        })
    }

    /// At the end of a turn: leads the figure to its placer's first follower on the tile
    /// placed this turn when that tile is within reach, then scores the award.
    pub(super) fn run(&self, ctx: &mut Ctx<'_>) -> HookResult {
        use carcassonne_core::{FigureLoc, Scoring};
        let Some(kind) = self.kind else {
            return Ok(());
        };
        let st = ctx.state();
        let (Some(last), Some(placer)) = (st.last_placed(), st.last_placer()) else {
            return Ok(());
        };
        let tile = st.board().tile(last);
        let at = tile.pos;
        let g = st.graph();
        let on = |f: &carcassonne_core::Figure| match f.loc {
            FigureLoc::On(s) => Some(s),
            _ => None,
        };
        // The figure, on a tile of the board.
        let Some((me, from)) = st.figures().iter().enumerate().find_map(|(i, f)| {
            let s = on(f).filter(|_| f.kind == kind && f.is_neutral())?;
            let n = g.segment(s);
            (!n.is_virtual()).then_some((FigureId(i as u16), n.pos))
        }) else {
            return Ok(());
        };
        let (dx, dy) = ((at.x - from.x).abs(), (at.y - from.y).abs());
        let within = match self.reach {
            Reach::Line => dx == 0 || dy == 0,
            Reach::Adjacent => dx + dy <= 1,
            Reach::Any => true,
        };
        if !within {
            return Ok(());
        }
        // The placer's first follower on the tile (a farmer only if farmers call).
        let field = ctx.rules().kind_named("field");
        let Some(caller) = st.figures().iter().find_map(|f| {
            let s = on(f)?;
            let n = g.segment(s);
            let counts = f.owner == placer
                && ctx.rules().figure_kind(f.kind).follower
                && !n.is_virtual()
                && n.pos == at
                && (self.farmers || Some(n.kind) != field);
            counts.then_some(s)
        }) else {
            return Ok(());
        };
        // Onto the caller's feature when the figure may stand there, else onto the first
        // segment of the tile it may stand on whose feature is not scored.
        let stands = |k| ctx.rules().figure_kind(kind).deploy_on.contains(k);
        let spot = if stands(g.segment(caller).kind) {
            Some(caller)
        } else {
            tile.segments()
                .find(|&s| stands(g.segment(s).kind) && !g.totals(g.feature_of(s)).scored)
        };
        if let Some(spot) = spot {
            crate::api::check_move(st, me, spot).map_err(HookFailure)?;
            ctx.move_figure(me, spot)?;
        }
        // The award: each feature once, at what final scoring would give it.
        let st = ctx.state();
        let g = st.graph();
        let mut features: Vec<carcassonne_core::SegmentId> = Vec::new();
        let wanted = |s: carcassonne_core::SegmentId| {
            let k = g.segment(s).kind.0;
            k < 64 && self.kinds & (1 << k) != 0 && !g.totals(g.feature_of(s)).complete()
        };
        match self.award {
            FollowAward::None => {}
            FollowAward::Own => features.extend(Some(caller).filter(|&s| wanted(s))),
            FollowAward::Area => features.extend(crate::api::unfinished_features_near(
                ctx.view(),
                at,
                self.radius,
                self.kinds,
            )),
        }
        let points: Vec<i32> = features
            .iter()
            .map(|&s| {
                let f = g.feature_of(s);
                let tiles = g.tile_count(f) as i32;
                let pennants = g.totals(f).pennants as i32;
                match ctx.rules().kind(g.segment(s).kind).scoring {
                    Scoring::City => tiles + pennants,
                    Scoring::Road => tiles,
                    Scoring::Cloister => 1 + st.board().surrounding_count(g.segment(s).pos) as i32,
                    Scoring::Points {
                        end_tile,
                        end_marker,
                        ..
                    } => end_tile * tiles + end_marker * pennants,
                    _ => 0,
                }
            })
            .collect();
        for p in points {
            ctx.award(placer, p, self.label);
        }
        Ok(())
    }
}

/// `tile_bonus_per_figure`, resolved: the figure kind and a mask of feature kinds.
#[derive(Clone, Copy, Debug)]
pub(super) struct TileBonus {
    kind: Option<carcassonne_core::FigureKindId>,
    kinds: u64,
}

impl TileBonus {
    pub(super) fn resolve((kind, kinds): &(String, Vec<String>), rules: &Ruleset) -> TileBonus {
        TileBonus {
            kind: rules.figure_named(kind),
            kinds: kinds
                .iter()
                .filter_map(|n| rules.kind_named(n).filter(|k| k.0 < 64))
                .fold(0u64, |m, k| m | 1 << k.0),
        }
    }

    /// Before a scoring: each figure of the kind on a drafted feature of the kinds adds the
    /// feature's points per tile to each of its awards (all of them: their number × its value
    /// ÷ its tiles, rounded down).
    pub(super) fn apply(&self, view: View<'_>, draft: &mut carcassonne_core::ScoreDraft) {
        use carcassonne_core::FigureLoc;
        let Some(kind) = self.kind else {
            return;
        };
        let g = view.state.graph();
        let mut bonus: Vec<(u16, i32)> = Vec::new();
        for (i, f) in draft.features.iter().enumerate() {
            let wanted = f.kind.0 < 64 && self.kinds & (1 << f.kind.0) != 0 && f.tiles > 0;
            if !wanted {
                continue;
            }
            let on = view
                .state
                .figures()
                .iter()
                .filter(|x| {
                    x.kind == kind
                        && matches!(x.loc, FigureLoc::On(s) if g.feature_of(s) == f.feature)
                })
                .count() as i32;
            if on > 0 {
                bonus.push((i as u16, on * f.value / f.tiles as i32));
            }
        }
        for a in draft.awards.iter_mut() {
            if let Some((_, b)) = bonus.iter().find(|(i, _)| *i == a.item) {
                a.points += b;
            }
        }
    }
}
