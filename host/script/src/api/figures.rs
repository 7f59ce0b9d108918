//! Functions that read figures: where they stand, their kinds, owners, strength, supplies and deployments.

use super::*;

fn with_figure<T>(
    c: &Call<'_, '_>,
    f: INT,
    g: impl Fn(View<'_>, FigureId, &carcassonne_core::Figure) -> T,
) -> R<T> {
    let v = c.view()?;
    let id = figure(v.state, f)?;
    Ok(g(v, id, v.state.figure(id)))
}

/// Figures: where they stand, their kinds, owners, strength, supplies and deployments.
pub(crate) fn register_figures(reg: &mut Registry) {
    game_fn!(reg, Read, "figure_owner", |c, f: int| -> INT {
        with_figure(c, f, |_, _, fig| fig.seat().map_or(-1, |p| p.0 as INT))
    });
    game_fn!(reg, Read, "is_neutral", |c, f: int| -> bool {
        with_figure(c, f, |_, _, fig| fig.is_neutral())
    });
    game_fn!(reg, Read, "neutral_figures", |c, kind: str| -> Array {
        let v = c.view()?;
        let k = v
            .rules
            .figure_named(kind)
            .ok_or_else(|| format!("no figure kind `{kind}`"))?;
        let (first, neutral) = v.state.neutral_figures();
        Ok(neutral
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == k)
            .map(|(i, _)| ((first + i) as INT).into())
            .collect())
    });
    game_fn!(reg, Read, "figure_kind", |c, f: int| -> String {
        with_figure(c, f, |v, _, fig| v.rules.figure_kind(fig.kind).name.clone())
    });
    game_fn!(reg, Read, "is_follower", |c, f: int| -> bool {
        with_figure(c, f, |v, _, fig| v.rules.figure_kind(fig.kind).follower)
    });
    game_fn!(reg, Read, "in_play", |c, f: int| -> bool {
        with_figure(c, f, |_, _, fig| matches!(fig.loc, FigureLoc::On(_)))
    });
    game_fn!(reg, Read, "figure_segment", |c, f: int| -> INT {
        with_figure(c, f, |_, _, fig| match fig.loc {
            FigureLoc::On(s) => s.index() as INT,
            _ => -1,
        })
    });
    game_fn!(reg, Read, "figure_role", |c, f: int| -> String {
        with_figure(c, f, |v, _, fig| match fig.loc {
            FigureLoc::On(s) => v.rules.kind(v.state.graph().segment(s).kind).name.clone(),
            _ => String::new(),
        })
    });
    game_fn!(reg, Read, "figure_cell", |c, f: int| -> Dynamic {
        with_figure(c, f, |v, _, fig| match fig.loc {
            FigureLoc::On(s) => v
                .state
                .graph()
                .segment(s)
                .cell()
                .map_or(Dynamic::UNIT, cell),
            _ => Dynamic::UNIT,
        })
    });
    game_fn!(reg, Read, "strength", |c, f: int| -> INT {
        with_figure(c, f, |v, id, _| v.strength(id))?
            .map(INT::from)
            .map_err(|e| e.to_string().into())
    });
    game_fn!(reg, Read, "supply_count", |c, p: int, kind: str| -> INT {
        let v = c.view()?;
        let p = player(v.state, p)?;
        let k = v
            .rules
            .figure_named(kind)
            .ok_or_else(|| format!("no figure kind `{kind}`"))?;
        Ok(v.state.in_supply(p, k) as INT)
    });
    game_fn!(reg, Read, "deployments", |c,
                                        p: int,
                                        x: int,
                                        y: int|
     -> Array {
        let v = c.view()?;
        let p = player(v.state, p)?;
        let mut out = Vec::new();
        let pos = Pos::new(x as i32, y as i32);
        if v.state.board().is_occupied(pos) {
            v.deployments_on_tile(p, pos, &mut out);
        }
        let names = c.bound()?.names();
        Ok(out.iter().map(|a| action_to_dynamic(v, names, a)).collect())
    });
}
