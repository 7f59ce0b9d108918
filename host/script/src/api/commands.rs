//! Commands: the functions that change the game, each checking its arguments first.

use super::*;

/// `award` and `award_scoring` (`scoring`: the points are a scoring on the board, as
/// `Ctx::award_scoring` gives them).
fn award(c: &mut Call<'_, '_>, p: INT, points: INT, label: Option<&str>, scoring: bool) -> R<()> {
    let decl = c.decl()?;
    let label = match label {
        None => decl.label(&c.script.id).ok_or("no default label")?,
        Some(l) => decl
            .label(l)
            .ok_or_else(|| format!("label `{l}` was not declared in setup()"))?,
    };
    if !(-10_000..=10_000).contains(&points) {
        return err(format!(
            "{points} points is out of range (|points| ≤ 10000)"
        ));
    }
    let ctx = c.ctx()?;
    let p = player(ctx.state(), p)?;
    match c.awards.as_mut() {
        Some(later) => later.push((p, points as i32, label, scoring)),
        None if scoring => c.ctx()?.award_scoring(p, points as i32, label),
        None => c.ctx()?.award(p, points as i32, label),
    }
    Ok(())
}

/// `prompt`, `prompt_next` and, with `tile`, `prompt_placements(_next)`: the engine offers
/// that tile kind's placements (no `prompt_actions` call).
fn prompt(
    c: &mut Call<'_, '_>,
    p: INT,
    code: INT,
    arg: INT,
    next: bool,
    tile: Option<&str>,
) -> R<()> {
    let ctx = c.ctx()?;
    let tile = match tile {
        Some(id) => Some(
            ctx.rules()
                .tiles()
                .find(id)
                .ok_or_else(|| format!("no tile `{id}`"))?,
        ),
        None => None,
    };
    let p = player(ctx.state(), p)?;
    let code = u16::try_from(code)
        .ok()
        .filter(|c| *c <= crate::MAX_SCRIPT_PROMPT_CODE)
        .ok_or_else(|| {
            format!(
                "prompt code {code} is not 0..={}",
                crate::MAX_SCRIPT_PROMPT_CODE
            )
        })?;
    let arg = i32::try_from(arg).map_err(|_| format!("prompt arg {arg} is out of range"))?;
    if ctx.state().queued_prompts().count() >= 256 {
        return err("more than 256 prompts queued");
    }
    let what = crate::ScriptPrompt::Script { code, arg };
    match (tile, next) {
        (None, true) => ctx.prompt_next(p, what),
        (None, false) => ctx.prompt(p, what),
        (Some(t), true) => ctx.prompt_placements_next(p, what, t).map_err(|e| e.0)?,
        (Some(t), false) => ctx.prompt_placements(p, what, t).map_err(|e| e.0)?,
    }
    Ok(())
}

pub(crate) fn register_commands(reg: &mut Registry) {
    game_fn!(reg, Set, "set_state", |c, name: str, value: int| -> () {
        let slot = state_slot(c, name, SlotScope::Game)?;
        c.set_slot(SlotRef::untyped(slot, 0), value)
    });
    game_fn!(reg, Set, "set_player_state", |c,
                                            name: str,
                                            p: int,
                                            value: int|
     -> () {
        let slot = state_slot(c, name, SlotScope::Player)?;
        let p = player(c.ctx()?.state(), p)?;
        c.set_slot(SlotRef::untyped(slot, p.0 as usize), value)
    });
    game_fn!(reg, Set, "set_figure_state", |c,
                                            name: str,
                                            f: int,
                                            value: int|
     -> () {
        let slot = state_slot(c, name, SlotScope::Figure)?;
        let f = figure(c.ctx()?.state(), f)?;
        c.set_slot(SlotRef::untyped(slot, f.0 as usize), value)
    });
    game_fn!(reg, Award, "award", |c, p: int, pts: int| -> () {
        award(c, p, pts, None, false)
    });
    game_fn!(reg, Award, "award", |c,
                                   p: int,
                                   pts: int,
                                   label: str|
     -> () {
        award(c, p, pts, Some(label), false)
    });
    game_fn!(reg, Award, "award_scoring", |c, p: int, pts: int| -> () {
        award(c, p, pts, None, true)
    });
    game_fn!(reg, Award, "award_scoring", |c,
                                           p: int,
                                           pts: int,
                                           label: str|
     -> () {
        award(c, p, pts, Some(label), true)
    });
    game_fn!(reg, Other, "deploy", |c, p: int, action: any| -> INT {
        let me = c.me()?;
        let decl = c.decl()?;
        let ctx = c.ctx()?;
        let who = player(ctx.state(), p)?;
        let a = action_from_dynamic(ctx.view(), me, decl, action, who, Allow::Prompt)
            .map_err(|m| -> Box<EvalAltResult> { format!("deploy: {m}").into() })?;
        let Action::Deploy { figure, segment } = a else {
            return err("deploy: the action is not a `deploy` action");
        };
        let f = ctx
            .deploy(who, figure, segment)
            .map_err(|e| -> Box<EvalAltResult> { e.0.into() })?;
        Ok(f.0 as INT)
    });
    game_fn!(reg, Other, "place_neutral", |c, kind: str, s: int| -> INT {
        let ctx = c.ctx()?;
        let k = ctx
            .rules()
            .figure_named(kind)
            .ok_or_else(|| format!("place_neutral: no figure kind `{kind}`"))?;
        let s = segment(ctx.state(), s)?;
        check_stand(ctx.view(), k, s)
            .map_err(|m| -> Box<EvalAltResult> { format!("place_neutral: {m}").into() })?;
        let f = ctx
            .place_neutral(k, s)
            .map_err(|e| -> Box<EvalAltResult> { format!("place_neutral: {}", e.0).into() })?;
        Ok(f.0 as INT)
    });
    game_fn!(reg, Other, "move_figure", |c, f: int, s: int| -> () {
        let ctx = c.ctx()?;
        let f = figure(ctx.state(), f)?;
        let s = segment(ctx.state(), s)?;
        check_move(ctx.state(), f, s).map_err(|m| -> Box<EvalAltResult> { m.into() })?;
        ctx.move_figure(f, s)
            .map_err(|e| -> Box<EvalAltResult> { e.0.into() })
    });
    game_fn!(reg, Other, "return_figure", |c, f: int| -> () {
        let ctx = c.ctx()?;
        let f = figure(ctx.state(), f)?;
        if !matches!(ctx.state().figure(f).loc, FigureLoc::On(_)) {
            return err(format!("figure {} is not in play", f.0));
        }
        ctx.return_figure(f, RemovalReason::Expansion)
            .map_err(|e| e.to_string().into())
    });
    game_fn!(reg, Other, "prompt", |c,
                                    p: int,
                                    code: int,
                                    arg: int|
     -> () {
        prompt(c, p, code, arg, false, None)
    });
    game_fn!(reg, Other, "prompt_next", |c,
                                         p: int,
                                         code: int,
                                         arg: int|
     -> () {
        prompt(c, p, code, arg, true, None)
    });
    game_fn!(reg, Other, "prompt_placements", |c,
                                               p: int,
                                               code: int,
                                               arg: int,
                                               tile: str|
     -> () {
        prompt(c, p, code, arg, false, Some(tile))
    });
    game_fn!(reg, Other, "prompt_placements_next", |c,
                                                    p: int,
                                                    code: int,
                                                    arg: int,
                                                    tile: str|
     -> () {
        prompt(c, p, code, arg, true, Some(tile))
    });
    game_fn!(reg, Other, "hold_figure", |c, f: int| -> () {
        let ctx = c.ctx()?;
        let f = figure(ctx.state(), f)?;
        ctx.hold_figure(f, RemovalReason::Expansion)
            .map_err(|e| format!("hold_figure: {}", e.0).into())
    });
    game_fn!(reg, Other, "release_figure", |c, f: int| -> () {
        let ctx = c.ctx()?;
        let f = figure(ctx.state(), f)?;
        ctx.release_figure(f)
            .map_err(|e| format!("release_figure: {}", e.0).into())
    });
    game_fn!(reg, Other, "repeat_deploy_step", |c| -> () {
        c.ctx()?
            .repeat_deploy_step()
            .map_err(|e| format!("repeat_deploy_step: {}", e.0).into())
    });
    game_fn!(reg, Other, "request_scoring", |c| -> () {
        c.ctx()?.request_scoring();
        Ok(())
    });
    game_fn!(reg, Other, "set_more_turns", |c, on: any| -> () {
        let on = flag(on, "set_more_turns", "on")?;
        c.ctx()?.set_more_turns(on);
        Ok(())
    });
    game_fn!(reg, Other, "set_more_whole_turns", |c, on: any| -> () {
        let on = flag(on, "set_more_whole_turns", "on")?;
        c.ctx()?.set_more_whole_turns(on);
        Ok(())
    });
    game_fn!(reg, Other, "play_tile_instead", |c,
                                               tile: str,
                                               x: int,
                                               y: int,
                                               rotation: int|
     -> () {
        let ctx = c.ctx()?;
        let t = ctx
            .rules()
            .tiles()
            .find(tile)
            .ok_or_else(|| format!("play_tile_instead: no tile `{tile}`"))?;
        let r = Rotation::from_degrees(rotation)
            .ok_or("play_tile_instead: rotation must be 0, 90, 180 or 270")?;
        let pos = Pos::new(
            i32::try_from(x).map_err(|_| "play_tile_instead: x is out of range")?,
            i32::try_from(y).map_err(|_| "play_tile_instead: y is out of range")?,
        );
        ctx.play_tile_instead(t, pos, r)
            .map_err(|e| format!("play_tile_instead: {}", e.0).into())
    });
    game_fn!(reg, Other, "add_virtual_feature", |c,
                                                 kind: str,
                                                 slot: int,
                                                 complete: any|
     -> INT {
        let ctx = c.ctx()?;
        let k = ctx
            .rules()
            .kind_named(kind)
            .ok_or_else(|| format!("add_virtual_feature: no feature kind `{kind}`"))?;
        let slot = u8::try_from(slot)
            .map_err(|_| format!("add_virtual_feature: slot {slot} is outside 0..=255"))?;
        let complete = flag(complete, "add_virtual_feature", "complete")?;
        Ok(ctx.add_virtual_feature(k, slot, complete).index() as INT)
    });
    game_fn!(reg, Other, "take_over_feature", |c, s: int| -> () {
        let ctx = c.ctx()?;
        let s = segment(ctx.state(), s)?;
        let f = ctx.state().graph().feature_of(s);
        ctx.take_over_feature(f)
            .map_err(|e| format!("take_over_feature: {}", e.0).into())
    });
    game_fn!(reg, Other, "add_border", |c, field: int, city: int| -> () {
        let ctx = c.ctx()?;
        let field = segment(ctx.state(), field)?;
        let city = segment(ctx.state(), city)?;
        ctx.add_border(field, city);
        Ok(())
    });
    game_fn!(reg, Other, "supply_regroup", |c,
                                            name: str,
                                            tiles: any,
                                            first: any,
                                            active: any|
     -> () {
        let ctx = c.ctx()?;
        let first = flag(first, "supply_regroup", "first")?;
        let active = flag(active, "supply_regroup", "active")?;
        let list = tiles
            .into_array()
            .map_err(|t| format!("supply_regroup: `tiles` is an array of tile ids, not {t}"))?;
        let mut kinds = Vec::with_capacity(list.len());
        for t in list {
            let id = t.into_immutable_string().map_err(|t| {
                format!("supply_regroup: a tile is given by its id (a string), not {t}")
            })?;
            let k = ctx
                .rules()
                .tiles()
                .find(&id)
                .ok_or_else(|| format!("supply_regroup: no tile `{id}`"))?;
            kinds.push(k);
        }
        // Every tile must be in the supply: check on a copy, so a refusal changes nothing.
        let mut supply = ctx.state().supply().clone();
        for k in &kinds {
            if !supply.take(*k) {
                return err(format!(
                    "supply_regroup: no `{}` left in the supply",
                    ctx.rules().tiles().get(*k).id
                ));
            }
        }
        let at = match supply.groups.iter().position(|g| g.name == name) {
            Some(i) => i,
            None => {
                let g = carcassonne_core::SupplyGroup {
                    name: name.to_string(),
                    tiles: Vec::new(),
                    active,
                };
                if first {
                    supply.groups.insert(0, g);
                    0
                } else {
                    supply.groups.push(g);
                    supply.groups.len() - 1
                }
            }
        };
        supply.groups[at].tiles.extend(kinds);
        supply.groups[at].active = active;
        *ctx.supply_mut() = supply;
        Ok(())
    });
    game_fn!(reg, Other, "supply_activate", |c,
                                             name: str,
                                             active: any|
     -> () {
        let active = flag(active, "supply_activate", "active")?;
        let ctx = c.ctx()?;
        let Some(i) = ctx
            .state()
            .supply()
            .groups
            .iter()
            .position(|g| g.name == name)
        else {
            return err(format!("supply_activate: the supply has no group `{name}`"));
        };
        ctx.supply_mut().groups[i].active = active;
        Ok(())
    });
    game_fn!(reg, Other, "return_drawn_tile", |c| -> bool {
        Ok(c.ctx()?.return_drawn_tile())
    });
    game_fn!(reg, Other, "random", |c, n: int| -> INT {
        if !(1..=u32::MAX as INT).contains(&n) {
            return err(format!("random({n}): n must be at least 1"));
        }
        Ok(c.ctx()?.random_below(n as u32) as INT)
    });
}

/// A command's boolean argument `what`, or an error naming the command and the argument.
fn flag(v: Dynamic, command: &str, what: &str) -> R<bool> {
    v.as_bool()
        .map_err(|t| format!("{command}: `{what}` is true or false, not {t}").into())
}
