//! Reading a script's declared state values.

use super::*;

pub(crate) fn state_slot(
    c: &Call<'_, '_>,
    name: &str,
    want: SlotScope,
) -> R<carcassonne_core::SlotId> {
    let (scope, slot) = c
        .decl()?
        .state(name)
        .ok_or_else(|| format!("state `{name}` was not declared in setup()"))?;
    if scope != want {
        return err(format!("state `{name}` is {}-scoped", scope_name(scope)));
    }
    Ok(slot)
}

pub(crate) fn scope_name(s: SlotScope) -> &'static str {
    match s {
        SlotScope::Game => "game",
        SlotScope::Player => "player",
        SlotScope::Figure => "figure",
    }
}

/// State values: `state`, `expansion_state`, `player_state`, `figure_state`.
pub(crate) fn register_state_reads(reg: &mut Registry) {
    game_fn!(reg, Read, "state", |c, name: str| -> INT {
        let slot = state_slot(c, name, SlotScope::Game)?;
        Ok(c.view()?.state.slot(slot, 0))
    });
    game_fn!(reg, Read, "expansion_state", |c,
                                            id: str,
                                            name: str|
     -> INT {
        // Another expansion's game-scoped slot (e.g. `princess-dragon`'s `fairy-figure`):
        // 0 when that expansion is not loaded or declares no such slot.
        let v = c.view()?;
        let Some(ix) = v.rules.expansion_index(id) else {
            return Ok(0);
        };
        Ok(v.rules
            .slots()
            .iter()
            .position(|d| d.expansion == ix && d.name == name && d.scope == SlotScope::Game)
            .map_or(0, |i| v.state.slot(carcassonne_core::SlotId(i as u16), 0)))
    });
    game_fn!(reg, Read, "player_state", |c, name: str, p: int| -> INT {
        let slot = state_slot(c, name, SlotScope::Player)?;
        let v = c.view()?;
        Ok(v.state.slot(slot, player(v.state, p)?.0 as usize))
    });
    game_fn!(reg, Read, "figure_state", |c, name: str, f: int| -> INT {
        let slot = state_slot(c, name, SlotScope::Figure)?;
        let v = c.view()?;
        Ok(v.state.slot(slot, figure(v.state, f)?.0 as usize))
    });
}
