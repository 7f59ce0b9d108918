//! Declarations (`setup()` only) and the action builders.

use super::*;
use crate::decl::PlacedGuard;
use carcassonne_core::VerbValue;

pub(crate) fn register_setup(engine: &mut Engine) {
    fn check_name(name: &str) -> R<()> {
        if name.is_empty()
            || name.len() > 64
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return err(format!(
                "`{name}` is not a valid name (1–64 letters, digits, `-`, `_`)"
            ));
        }
        Ok(())
    }
    engine.register_fn(
        "declare_state",
        |nc: NativeCallContext, name: &str, scope: &str, default: INT| -> R<()> {
            let mut c = call(&nc)?;
            let (setup, decl) = c.declarations()?;
            check_name(name)?;
            let scope = match scope {
                "game" => SlotScope::Game,
                "player" => SlotScope::Player,
                "figure" => SlotScope::Figure,
                other => {
                    return err(format!(
                        "scope `{other}`: expected \"game\", \"player\" or \"figure\""
                    ))
                }
            };
            let mut d = decl.borrow_mut();
            if d.state(name).is_some() {
                return err(format!("state `{name}` is declared twice"));
            }
            if d.states.len() >= 64 {
                return err("more than 64 state values");
            }
            let id = match scope {
                SlotScope::Game => {
                    let g = setup.game_slot(name, default);
                    d.game_slots.push(g);
                    g.id()
                }
                _ => setup.slot(name, scope, default),
            };
            d.states.push((name.to_string(), scope, id));
            Ok(())
        },
    );
    // A verb, with or without the words players read for it (`"move the donkey"`) and what
    // its action value means to them.
    fn declare_verb(nc: &NativeCallContext, name: &str, text: &str, value: &str) -> R<()> {
        let meaning = VerbValue::named(value).ok_or_else(|| {
            format!("verb `{name}`: value `{value}` is not number, hidden, figure-kind, figure-kind-of-seat, corner, points, index or tile-kind")
        })?;
        let mut c = call(nc)?;
        let (setup, decl) = c.declarations()?;
        check_name(name)?;
        if text.chars().any(char::is_control) {
            return err(format!(
                "the words of verb `{name}` hold a control character"
            ));
        }
        let mut d = decl.borrow_mut();
        if d.verb(name).is_some() {
            return err(format!("verb `{name}` is declared twice"));
        }
        let id = setup.verb_in_words(name, text);
        setup.verb_value(id, meaning);
        d.verbs.push((name.to_string(), id));
        Ok(())
    }
    engine.register_fn("declare_verb", |nc: NativeCallContext, name: &str| {
        declare_verb(&nc, name, "", "number")
    });
    engine.register_fn(
        "declare_verb",
        |nc: NativeCallContext, name: &str, text: &str| declare_verb(&nc, name, text, "number"),
    );
    engine.register_fn(
        "declare_verb",
        |nc: NativeCallContext, name: &str, text: &str, value: &str| {
            declare_verb(&nc, name, text, value)
        },
    );
    // A verb whose actions are the outcomes of a draw by chance (bots sample them).
    engine.register_fn(
        "verb_by_chance",
        |nc: NativeCallContext, name: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (setup, decl) = c.declarations()?;
            let Some(id) = decl.borrow().verb(name) else {
                return err(format!(
                    "verb `{name}` is not declared (declare_verb first)"
                ));
            };
            setup.verb_by_chance(id);
            Ok(())
        },
    );
    engine.register_fn(
        "declare_label",
        |nc: NativeCallContext, name: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (setup, decl) = c.declarations()?;
            check_name(name)?;
            let mut d = decl.borrow_mut();
            if d.label(name).is_none() {
                let id = setup.score_label(name);
                d.labels.push((name.to_string(), id));
            }
            Ok(())
        },
    );
    /// A guarded hook that looks at a scoring (`before_scoring`, `after_scoring`), for the
    /// scoring guards named `guard`.
    fn scoring_hook(hook: &str, guard: &str) -> R<&'static crate::HookSpec> {
        let spec = guarded_hook(hook)?;
        if !matches!(
            spec.hook,
            crate::Hook::BeforeScoring | crate::Hook::AfterScoring
        ) {
            return err(format!(
                "hook `{hook}` has no scoring to look at ({guard} guards `before_scoring` and `after_scoring`)"
            ));
        }
        Ok(spec)
    }
    engine.register_fn(
        "guard",
        |nc: NativeCallContext, hook: &str, state: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let spec = guarded_hook(hook)?;
            let mut d = decl.borrow_mut();
            let i = d
                .states
                .iter()
                .position(|(n, ..)| n == state)
                .ok_or_else(|| {
                    format!("state `{state}` is not declared (declare it before the guard)")
                })?;
            let scope = d.states[i].1;
            let fits = matches!(
                (scope, spec.guard_arg),
                (SlotScope::Game, _)
                    | (SlotScope::Player, crate::GuardArg::Player)
                    | (SlotScope::Figure, crate::GuardArg::Figure)
            );
            if !fits {
                return err(format!(
                    "hook `{hook}` cannot be guarded by {}-scoped state `{state}`",
                    scope_name(scope)
                ));
            }
            d.guards[spec.hook.index()] = Some(crate::Guard::State(i));
            Ok(())
        },
    );
    engine.register_fn(
        "keep_apart",
        |nc: NativeCallContext, kind: &str, near: &str, radius: INT, reason: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            if !(0..=16).contains(&radius) {
                return err(format!("keep_apart: radius {radius} is not in 0..=16"));
            }
            let mut d = decl.borrow_mut();
            if d.apart.len() >= 16 {
                return err("keep_apart: at most 16 spacing rules".to_string());
            }
            d.apart.push(crate::Apart {
                kind: kind.to_string(),
                near: near.to_string(),
                radius: radius as i32,
                reason: reason
                    .chars()
                    .filter(|c| !c.is_control())
                    .take(160)
                    .collect(),
                open_on: None,
            });
            Ok(())
        },
    );
    register_placed(engine);
    engine.register_fn(
        "tile_bonus_per_figure",
        |nc: NativeCallContext, kind: &str, kinds: Array| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let mut d = decl.borrow_mut();
            if d.tile_bonus.is_some() {
                return err("tile_bonus_per_figure: declared twice");
            }
            let kinds = strings(kinds, "tile_bonus_per_figure", "a feature kind")?;
            d.tile_bonus = Some((kind.to_string(), kinds));
            Ok(())
        },
    );
    engine.register_fn(
        "follow_deployments",
        |nc: NativeCallContext, kind: &str, options: Map| -> R<()> {
            follow_deployments(&nc, kind, options)
        },
    );
    engine.register_fn(
        "guard_figure",
        |nc: NativeCallContext, hook: &str, kind: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let spec = guarded_hook(hook)?;
            // Resolved when the ruleset is complete: the kind may be another expansion's.
            decl.borrow_mut().guards[spec.hook.index()] =
                Some(crate::Guard::Figure(kind.to_string()));
            Ok(())
        },
    );
    for (name, on) in [("guard_scoring_near", false), ("guard_scoring_on", true)] {
        engine.register_fn(
            name,
            move |nc: NativeCallContext, hook: &str, kind: &str| -> R<()> {
                let mut c = call(&nc)?;
                let (_, decl) = c.declarations()?;
                let spec = scoring_hook(hook, name)?;
                let kind = kind.to_string();
                decl.borrow_mut().guards[spec.hook.index()] = Some(if on {
                    crate::Guard::ScoringOn(kind)
                } else {
                    crate::Guard::ScoringNear(kind)
                });
                Ok(())
            },
        );
    }

    engine.register_fn(
        "guard_not_final",
        |nc: NativeCallContext, hook: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let spec = scoring_hook(hook, "guard_not_final")?;
            decl.borrow_mut().not_final[spec.hook.index()] = true;
            Ok(())
        },
    );
    engine.register_fn(
        "guard_scoring_state",
        |nc: NativeCallContext, hook: &str, state: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let spec = scoring_hook(hook, "guard_scoring_state")?;
            let mut d = decl.borrow_mut();
            let i = d
                .states
                .iter()
                .position(|(n, ..)| n == state)
                .ok_or_else(|| {
                    format!("state `{state}` is not declared (declare it before the guard)")
                })?;
            if d.states[i].1 == SlotScope::Figure {
                return err(format!(
                    "guard_scoring_state: state `{state}` must be player- or game-scoped"
                ));
            }
            d.guards[spec.hook.index()] = Some(crate::Guard::ScoringState(i));
            Ok(())
        },
    );

    fn state_index(d: &Decl, name: &str, want: SlotScope) -> R<usize> {
        let i = d
            .states
            .iter()
            .position(|(n, ..)| n == name)
            .ok_or_else(|| format!("state `{name}` is not declared (declare it first)"))?;
        if d.states[i].1 != want {
            return err(format!(
                "state `{name}` must be {}-scoped here",
                scope_name(want)
            ));
        }
        Ok(i)
    }
    fn effects(d: &Decl, m: Option<Map>) -> R<crate::Effects> {
        let mut out = crate::Effects::default();
        for (k, v) in m.unwrap_or_default() {
            // `deploy: kind` and `deployed_state: name` deploy natively; every other key
            // is a player-scoped state set to a number.
            if let ("deploy" | "deployed_state", Some(name)) =
                (k.as_str(), v.clone().into_immutable_string().ok())
            {
                if k == "deploy" {
                    out.deploy = Some(name.to_string());
                } else {
                    out.deployed_state = Some(state_index(d, &name, SlotScope::Figure)?);
                }
                continue;
            }
            let i = state_index(d, k.as_str(), SlotScope::Player)?;
            let v = v
                .as_int()
                .map_err(|t| format!("effect `{k}`: a {t}, not an integer"))?;
            out.sets.push((i, v));
        }
        Ok(out)
    }
    fn add_offer(
        nc: &NativeCallContext,
        verb: &str,
        player_state: &str,
        per_figure: Option<(&str, Array)>,
        per_segment: Option<Array>,
        effects_map: Option<Map>,
    ) -> R<()> {
        add_offer_at(
            nc,
            verb,
            player_state,
            per_figure,
            per_segment,
            None,
            effects_map,
        )
    }
    fn add_offer_at(
        nc: &NativeCallContext,
        verb: &str,
        player_state: &str,
        per_figure: Option<(&str, Array)>,
        per_segment: Option<Array>,
        per_corner: Option<Array>,
        effects_map: Option<Map>,
    ) -> R<()> {
        let mut c = call(nc)?;
        let (_, decl) = c.declarations()?;
        let mut d = decl.borrow_mut();
        let v = d
            .verb(verb)
            .ok_or_else(|| format!("verb `{verb}` is not declared (declare_verb first)"))?;
        let player_state = state_index(&d, player_state, SlotScope::Player)?;
        let names = |list: Array, what: &str| {
            list.into_iter()
                .map(|r| {
                    r.into_string()
                        .map_err(|t| format!("{what} must be a string, not {t}"))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let per_figure = match per_figure {
            None => None,
            Some((fs, roles)) => {
                let fs = state_index(&d, fs, SlotScope::Figure)?;
                Some((fs, names(roles, "a role")?))
            }
        };
        let per_segment = per_segment
            .map(|kinds| names(kinds, "a feature kind"))
            .transpose()?;
        let per_corner = per_corner
            .map(|kinds| names(kinds, "a feature kind"))
            .transpose()?;
        let effects = effects(&d, effects_map)?;
        d.offers.push(crate::Offer {
            verb: v,
            player_state,
            per_figure,
            per_segment,
            per_corner,
            effects,
            protect: Vec::new(),
        });
        Ok(())
    }
    engine.register_fn(
        "offer_protect",
        |nc: NativeCallContext, verb: &str, expansion: &str, state: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let mut d = decl.borrow_mut();
            let v = d
                .verb(verb)
                .ok_or_else(|| format!("verb `{verb}` is not declared (declare_verb first)"))?;
            let o = d
                .offers
                .iter_mut()
                .find(|o| o.verb == v && o.per_figure.is_some())
                .ok_or_else(|| {
                    format!("`{verb}` is not offered per figure (offer_per_figure first)")
                })?;
            o.protect.push((expansion.to_string(), state.to_string()));
            Ok(())
        },
    );
    engine.register_fn(
        "declare_prompt",
        |nc: NativeCallContext, code: INT, text: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (setup, decl) = c.declarations()?;
            let code = u16::try_from(code)
                .ok()
                .filter(|c| *c <= crate::MAX_SCRIPT_PROMPT_CODE)
                .ok_or_else(|| format!("declare_prompt: code {code} is outside 0..=32767"))?;
            if text.trim().is_empty() || text.chars().any(char::is_control) {
                return err(format!(
                    "declare_prompt: the words of prompt {code} are empty or hold a control character"
                ));
            }
            setup.prompt_in_words(crate::decl::ScriptPrompt::Script { code, arg: 0 }, text);
            decl.borrow_mut().prompt_texts.push((code, text.to_string()));
            Ok(())
        },
    );
    engine.register_fn(
        "offer_prompt",
        |nc: NativeCallContext, verb: &str, code: INT| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let mut d = decl.borrow_mut();
            let code = u16::try_from(code)
                .ok()
                .filter(|c| *c <= crate::MAX_SCRIPT_PROMPT_CODE)
                .ok_or_else(|| format!("offer_prompt: code {code} is outside 0..=32767"))?;
            let v = d
                .verb(verb)
                .ok_or_else(|| format!("verb `{verb}` is not declared (declare_verb first)"))?;
            let o = d
                .offers
                .iter_mut()
                .find(|o| o.verb == v)
                .ok_or_else(|| format!("`{verb}` is not offered (offer it first)"))?;
            o.effects.prompt = Some(code);
            Ok(())
        },
    );
    engine.register_fn(
        "offer",
        |nc: NativeCallContext, verb: &str, player_state: &str| {
            add_offer(&nc, verb, player_state, None, None, None)
        },
    );
    engine.register_fn(
        "offer",
        |nc: NativeCallContext, verb: &str, player_state: &str, effects: Map| {
            add_offer(&nc, verb, player_state, None, None, Some(effects))
        },
    );
    engine.register_fn(
        "offer_per_figure",
        |nc: NativeCallContext,
         verb: &str,
         player_state: &str,
         figure_state: &str,
         roles: Array| {
            add_offer(
                &nc,
                verb,
                player_state,
                Some((figure_state, roles)),
                None,
                None,
            )
        },
    );
    engine.register_fn(
        "offer_per_figure",
        |nc: NativeCallContext,
         verb: &str,
         player_state: &str,
         figure_state: &str,
         roles: Array,
         effects: Map| {
            add_offer(
                &nc,
                verb,
                player_state,
                Some((figure_state, roles)),
                None,
                Some(effects),
            )
        },
    );
    engine.register_fn(
        "offer_per_segment",
        |nc: NativeCallContext, verb: &str, player_state: &str, kinds: Array| {
            add_offer(&nc, verb, player_state, None, Some(kinds), None)
        },
    );
    engine.register_fn(
        "offer_per_segment",
        |nc: NativeCallContext, verb: &str, player_state: &str, kinds: Array, effects: Map| {
            add_offer(&nc, verb, player_state, None, Some(kinds), Some(effects))
        },
    );
    engine.register_fn(
        "offer_per_corner",
        |nc: NativeCallContext, verb: &str, player_state: &str, kinds: Array| {
            add_offer_at(&nc, verb, player_state, None, None, Some(kinds), None)
        },
    );
    engine.register_fn(
        "offer_per_corner",
        |nc: NativeCallContext, verb: &str, player_state: &str, kinds: Array, effects: Map| {
            add_offer_at(
                &nc,
                verb,
                player_state,
                None,
                None,
                Some(kinds),
                Some(effects),
            )
        },
    );
    fn add_reaction(
        nc: &NativeCallContext,
        window: &str,
        player_state: &str,
        order: &str,
        code: INT,
        effects_map: Option<Map>,
    ) -> R<()> {
        let mut c = call(nc)?;
        let (_, decl) = c.declarations()?;
        let mut d = decl.borrow_mut();
        let window = match window {
            "turn-start" => carcassonne_core::Window::TurnStart,
            "after-deploy" => carcassonne_core::Window::AfterDeploy,
            "before-scoring" => carcassonne_core::Window::BeforeScoring,
            "after-scoring" => carcassonne_core::Window::AfterScoring,
            other => return err(format!("window `{other}`: expected \"turn-start\", \"after-deploy\", \"before-scoring\" or \"after-scoring\"")),
        };
        let fewest_points_first = match order {
            "fewest-points" => true,
            "clockwise" => false,
            other => {
                return err(format!(
                    "order `{other}`: expected \"fewest-points\" or \"clockwise\""
                ))
            }
        };
        let code = u16::try_from(code)
            .ok()
            .filter(|c| *c <= crate::MAX_SCRIPT_PROMPT_CODE)
            .ok_or_else(|| {
                format!(
                    "reaction code {code} is not 0..={}",
                    crate::MAX_SCRIPT_PROMPT_CODE
                )
            })?;
        let player_state = state_index(&d, player_state, SlotScope::Player)?;
        let effects = effects(&d, effects_map)?;
        d.reactions.push(crate::Reaction {
            window,
            player_state,
            fewest_points_first,
            code,
            effects,
        });
        Ok(())
    }
    engine.register_fn(
        "reaction_deploy",
        |nc: NativeCallContext, window: &str, player_state: &str, order: &str, code: INT| {
            add_reaction(&nc, window, player_state, order, code, None)
        },
    );
    engine.register_fn(
        "reaction_deploy",
        |nc: NativeCallContext,
         window: &str,
         player_state: &str,
         order: &str,
         code: INT,
         effects: Map| {
            add_reaction(&nc, window, player_state, order, code, Some(effects))
        },
    );

    engine.register_fn(
        "offer_moves",
        |nc: NativeCallContext, code: INT, kinds: Array| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let code = u16::try_from(code)
                .ok()
                .filter(|c| *c <= crate::MAX_SCRIPT_PROMPT_CODE)
                .ok_or_else(|| format!("offer_moves: code {code} is outside 0..=32767"))?;
            let kinds = strings(kinds, "offer_moves", "a feature kind name")?;
            let mut d = decl.borrow_mut();
            if d.moves.iter().any(|(c, _)| *c == code)
                || d.tile_prompts.iter().any(|t| t.code == code)
            {
                return err(format!("offer_moves: prompt code {code} is declared twice"));
            }
            d.moves.push((code, kinds));
            Ok(())
        },
    );
    engine.register_fn(
        "strength_bonus",
        |nc: NativeCallContext, figure_state: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let mut d = decl.borrow_mut();
            let i = state_index(&d, figure_state, SlotScope::Figure)?;
            d.strength_bonus = Some(i);
            Ok(())
        },
    );
}

/// The strings of the script's array `list`, given to the function `what` as a list of
/// `item`s: an element of another type is named in the error.
fn strings(list: Array, what: &str, item: &str) -> R<Vec<String>> {
    list.into_iter()
        .map(|v| {
            v.into_string()
                .map_err(|t| format!("{what}: {item} is a string, not {t}").into())
        })
        .collect()
}

/// The hook a guard names, if it may be guarded at all.
pub(super) fn guarded_hook(hook: &str) -> R<&'static crate::HookSpec> {
    Ok(guardable(hook)?)
}

/// [`guarded_hook`] with the reason as plain text, for callers that name themselves in it.
fn guardable(hook: &str) -> Result<&'static crate::HookSpec, String> {
    use crate::Hook as H;
    let spec = crate::HOOKS
        .iter()
        .find(|h| h.name == hook)
        .ok_or_else(|| format!("no hook `{hook}`"))?;
    if matches!(
        spec.hook,
        H::Setup
            | H::FiltersTile
            | H::PrepareGame
            | H::StartGame
            | H::ApplySetting
            | H::ApplyAction
            | H::PromptActions
            | H::ApplyPrompt
    ) {
        return Err(format!(
            "hook `{hook}` cannot be guarded (it runs only when your own declaration, action or prompt calls for it)"
        ));
    }
    Ok(spec)
}

/// The declarations about the tile placed last: `guard_placed_follower`,
/// `guard_placed_in_line`, `guard_placed_tag`, `guard_placed_tile`, `keep_open_on` and
/// `offer_tiles`.
fn register_placed(engine: &mut Engine) {
    /// Sets what `edit` sets of the placed-tile guard of `hook`, for the guard function
    /// named `what`. The guard is made if the hook has none yet, and only if `edit`
    /// succeeds: a failed call declares nothing.
    fn edit_guard(
        nc: &NativeCallContext,
        hook: &str,
        what: &str,
        edit: impl FnOnce(&mut PlacedGuard) -> R<()>,
    ) -> R<()> {
        let mut c = call(nc)?;
        let (_, decl) = c.declarations()?;
        let h = guardable(hook)
            .map(|spec| spec.hook.index())
            .map_err(|e| format!("{what}: {e}"))?;
        let mut guard = decl.borrow().placed[h].clone().unwrap_or_default();
        edit(&mut guard)?;
        decl.borrow_mut().placed[h] = Some(guard);
        Ok(())
    }
    engine.register_fn(
        "guard_placed_follower",
        |nc: NativeCallContext, hook: &str| -> R<()> {
            edit_guard(&nc, hook, "guard_placed_follower", |g| {
                g.follower = true;
                Ok(())
            })
        },
    );
    engine.register_fn(
        "guard_placed_in_line",
        |nc: NativeCallContext, hook: &str, kind: &str| -> R<()> {
            // Resolved when the ruleset is complete: the kind may be another expansion's.
            edit_guard(&nc, hook, "guard_placed_in_line", |g| {
                g.in_line = Some(kind.to_string());
                Ok(())
            })
        },
    );
    engine.register_fn(
        "guard_placed_tag",
        |nc: NativeCallContext, hook: &str, tag: &str| -> R<()> {
            edit_guard(&nc, hook, "guard_placed_tag", |g| {
                g.tag = Some(tag.to_string());
                Ok(())
            })
        },
    );
    engine.register_fn(
        "guard_placed_tile",
        |nc: NativeCallContext, hook: &str, tiles: Array| -> R<()> {
            edit_guard(&nc, hook, "guard_placed_tile", |g| {
                g.tiles = Some(strings(tiles, "guard_placed_tile", "a tile id")?);
                Ok(())
            })
        },
    );
    fn keep_open_on(nc: &NativeCallContext, state: &str, kinds: Array) -> R<()> {
        let mut c = call(nc)?;
        let (_, decl) = c.declarations()?;
        let mut d = decl.borrow_mut();
        let state = d
            .states
            .iter()
            .position(|(n, s, _)| n == state && *s == SlotScope::Game)
            .ok_or_else(|| {
                format!("keep_open_on: `{state}` is not a declared game-scoped state (declare it first)")
            })?;
        let kinds = strings(kinds, "keep_open_on", "a feature kind")?;
        if d.apart.len() >= 16 {
            return err("keep_open_on: at most 16 placement rules".to_string());
        }
        d.apart.push(crate::Apart {
            kind: String::new(),
            near: String::new(),
            radius: 0,
            reason: String::new(),
            open_on: Some(crate::KeepOpen { state, kinds }),
        });
        Ok(())
    }
    engine.register_fn("keep_open_on", |nc: NativeCallContext, state: &str| {
        keep_open_on(&nc, state, Array::new())
    });
    engine.register_fn(
        "keep_open_on",
        |nc: NativeCallContext, state: &str, kinds: Array| keep_open_on(&nc, state, kinds),
    );
    engine.register_fn(
        "offer_tiles",
        |nc: NativeCallContext, code: INT, verb: &str, except: &str| -> R<()> {
            offer_tiles(&nc, code, verb, except, None)
        },
    );
    engine.register_fn(
        "offer_tiles",
        |nc: NativeCallContext, code: INT, verb: &str, except: &str, lead: Map| -> R<()> {
            offer_tiles(&nc, code, verb, except, Some(lead))
        },
    );
}

/// `offer_tiles(code, verb, except_state [, #{lead: kind, figure_state: state}])`.
fn offer_tiles(
    nc: &NativeCallContext,
    code: INT,
    verb: &str,
    except: &str,
    lead: Option<Map>,
) -> R<()> {
    let mut c = call(nc)?;
    let (_, decl) = c.declarations()?;
    let code = u16::try_from(code)
        .ok()
        .filter(|c| *c <= crate::MAX_SCRIPT_PROMPT_CODE)
        .ok_or_else(|| format!("offer_tiles: code {code} is outside 0..=32767"))?;
    let mut d = decl.borrow_mut();
    let verb = d.verb(verb).ok_or_else(|| {
        format!("offer_tiles: verb `{verb}` is not declared (declare_verb first)")
    })?;
    let game_state = |d: &Decl, name: &str| {
        d.states
            .iter()
            .position(|(n, s, _)| n == name && *s == SlotScope::Game)
            .ok_or_else(|| {
                format!(
                    "offer_tiles: `{name}` is not a declared game-scoped state (declare it first)"
                )
            })
    };
    let except = game_state(&d, except)?;
    let lead = match lead {
        None => None,
        Some(mut m) => {
            let text = |m: &mut Map, key: &str| -> R<Option<String>> {
                match m.remove(key) {
                    None => Ok(None),
                    Some(v) => v
                        .into_immutable_string()
                        .map(|s| Some(s.to_string()))
                        .map_err(|t| {
                            format!("offer_tiles: `{key}` must be a string, not {t}").into()
                        }),
                }
            };
            let kind = text(&mut m, "lead")?
                .ok_or("offer_tiles: the options need `lead`, the neutral figure kind to lead")?;
            let figure_state = match text(&mut m, "figure_state")? {
                Some(n) => Some(game_state(&d, &n)?),
                None => None,
            };
            if let Some(k) = m.keys().next() {
                return err(format!(
                    "offer_tiles: unknown option `{k}` (known: lead, figure_state)"
                ));
            }
            Some(crate::TileLead { kind, figure_state })
        }
    };
    if d.moves.iter().any(|(c, _)| *c == code) || d.tile_prompts.iter().any(|t| t.code == code) {
        return err(format!("offer_tiles: prompt code {code} is declared twice"));
    }
    d.tile_prompts.push(crate::TilePrompt {
        code,
        verb,
        except,
        lead,
    });
    Ok(())
}

/// `follow_deployments(kind, #{reach, farmers, award, radius, kinds, label})`. `reach`,
/// `farmers` and `award` may be `#{option: "key"}`: the expansion's option of that key,
/// read when the rules are built.
fn follow_deployments(nc: &NativeCallContext, kind: &str, mut m: Map) -> R<()> {
    use crate::decl::{Follow, Setting};
    const WHAT: &str = "follow_deployments";
    let mut c = call(nc)?;
    let (_, decl) = c.declarations()?;
    let mut d = decl.borrow_mut();
    if d.follow.is_some() {
        return err(format!("{WHAT}: declared twice"));
    }
    // A value, or `#{option: "key"}` for one of the expansion's options.
    fn setting<T>(
        m: &mut Map,
        key: &str,
        default: T,
        cast: impl Fn(Dynamic) -> Option<T>,
        expected: &str,
    ) -> R<Setting<T>> {
        let Some(v) = m.remove(key) else {
            return Ok(Setting::Fixed(default));
        };
        if let Some(mut o) = v.clone().try_cast::<Map>() {
            let name = o
                .remove("option")
                .and_then(|n| n.into_immutable_string().ok())
                .filter(|_| o.is_empty())
                .ok_or_else(|| format!("{WHAT}: `{key}` as a map is #{{option: \"key\"}}"))?;
            return Ok(Setting::Option(name.to_string()));
        }
        let t = v.type_name();
        cast(v)
            .map(Setting::Fixed)
            .ok_or_else(|| format!("{WHAT}: `{key}` must be {expected}, not {t}").into())
    }
    let text = |v: Dynamic| v.into_immutable_string().ok().map(|s| s.to_string());
    let reach = setting(&mut m, "reach", "line".to_string(), text, "a string")?;
    let farmers = setting(&mut m, "farmers", true, |v| v.as_bool().ok(), "a bool")?;
    let award = setting(&mut m, "award", "area".to_string(), text, "a string")?;
    for (key, value, known) in [
        ("reach", &reach, &["line", "adjacent", "any"][..]),
        ("award", &award, &["area", "own", "none"][..]),
    ] {
        if let Setting::Fixed(v) = value {
            if !known.contains(&v.as_str()) {
                return err(format!(
                    "{WHAT}: `{key}` is `{v}` (known: {})",
                    known.join(", ")
                ));
            }
        }
    }
    let radius = match m.remove("radius") {
        None => 1,
        Some(r) => r
            .as_int()
            .ok()
            .filter(|r| (0..=4).contains(r))
            .ok_or_else(|| format!("{WHAT}: `radius` must be a number from 0 to 4"))?
            as i32,
    };
    let kinds = match m.remove("kinds") {
        None => Vec::new(),
        Some(k) => strings(
            k.try_cast::<Array>()
                .ok_or_else(|| format!("{WHAT}: `kinds` must be an array of feature kind names"))?,
            WHAT,
            "a feature kind",
        )?,
    };
    let label = m
        .remove("label")
        .and_then(|l| l.into_immutable_string().ok())
        .ok_or_else(|| format!("{WHAT}: the options need `label`, a declared score label"))?;
    let label = d
        .label(&label)
        .ok_or_else(|| format!("{WHAT}: label `{label}` is not declared (declare_label first)"))?;
    if let Some(k) = m.keys().next() {
        return err(format!(
            "{WHAT}: unknown option `{k}` (known: reach, farmers, award, radius, kinds, label)"
        ));
    }
    d.follow = Some(Follow {
        kind: kind.to_string(),
        reach,
        farmers,
        award,
        radius,
        kinds,
        label,
    });
    Ok(())
}

fn custom(verb: &str, figure: INT, value: INT) -> Map {
    let mut m = Map::new();
    m.insert("type".into(), "custom".into());
    m.insert("verb".into(), verb.to_string().into());
    m.insert("figure".into(), figure.into());
    m.insert("segment".into(), (-1 as INT).into());
    m.insert("value".into(), value.into());
    m
}

pub(crate) fn register_builders(engine: &mut Engine) {
    // Maps are handed over as `Dynamic::from_map`: Rhai's `From<Map>` rebuilds the map.
    engine.register_fn("custom_action", |verb: &str| -> Dynamic {
        Dynamic::from_map(custom(verb, -1, 0))
    });
    engine.register_fn("custom_action", |verb: &str, value: INT| -> Dynamic {
        Dynamic::from_map(custom(verb, -1, value))
    });
    engine.register_fn("figure_action", |verb: &str, f: INT| -> Dynamic {
        Dynamic::from_map(custom(verb, f, 0))
    });
    engine.register_fn("move_action", |f: INT, s: INT| -> Dynamic {
        let mut m = Map::new();
        m.insert("type".into(), "move".into());
        m.insert("figure".into(), f.into());
        m.insert("segment".into(), s.into());
        Dynamic::from_map(m)
    });
    engine.register_fn("pass_action", || -> Dynamic {
        let mut m = Map::new();
        m.insert("type".into(), "pass".into());
        Dynamic::from_map(m)
    });
}
