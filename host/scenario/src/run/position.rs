//! The start position of a case: its tiles, figures, scores, active player, tiles to
//! draw and expansion settings, as core's `Position`.

use super::Failure;
use crate::format::Scenario;
use crate::tiles::{find_segment, resolve_kind, resolve_placed};
use carcassonne_core::{
    FigureKindId, PlayerId, Pos, Position, PositionFigure, PositionSetting, Ruleset, StartTile,
};

pub(super) fn pos(a: [i32; 2]) -> Pos {
    Pos::new(a[0], a[1])
}

pub(super) fn player_index(players: &[String], name: &str) -> Result<usize, String> {
    players
        .iter()
        .position(|p| p == name)
        .ok_or_else(|| format!("unknown player `{name}` (players: {})", players.join(", ")))
}

pub(super) fn figure_kind(rules: &Ruleset, name: &str) -> Result<FigureKindId, String> {
    rules
        .figure_named(name)
        .ok_or_else(|| format!("unknown figure kind `{name}`"))
}

/// Builds the game position of a scenario (tiles, figures, scores, the active player,
/// the tiles to draw and the expansion settings of `state`).
pub fn build_position(rules: &Ruleset, sc: &Scenario) -> Result<Position, Failure> {
    let players = &sc.players;
    let mut tiles: Vec<StartTile> = Vec::new();
    let mut figures = Vec::new();
    let mut figure_at = |tiles: &[StartTile],
                         player: &str,
                         at: [i32; 2],
                         feature: &str,
                         kind: &str|
     -> Result<(), String> {
        let t = tiles
            .iter()
            .find(|t| t.pos == pos(at))
            .ok_or_else(|| format!("figure on {:?}: no tile there", at))?;
        let segment = find_segment(rules, rules.tiles().get(t.kind), t.rotation, feature)
            .map_err(|e| format!("figure on {:?}: {e}", at))?;
        figures.push(PositionFigure {
            player: PlayerId(player_index(players, player)? as u8),
            kind: figure_kind(rules, kind)?,
            pos: pos(at),
            segment,
        });
        Ok(())
    };
    for (i, bt) in sc.tile.iter().enumerate() {
        let at = |e: String| Failure::setup(Some("tile"), Some(i), e);
        let (kind, rotation) =
            resolve_placed(rules, bt.tile.as_deref(), bt.edges.as_deref(), bt.rotation)
                .map_err(|e| at(format!("tile at {:?}: {e}", bt.at)))?;
        tiles.push(StartTile {
            kind,
            pos: pos(bt.at),
            rotation,
        });
        for f in &bt.figures {
            figure_at(&tiles, &f.player, bt.at, &f.feature, &f.kind).map_err(at)?;
        }
    }
    for (i, f) in sc.figure.iter().enumerate() {
        figure_at(&tiles, &f.player, f.at, &f.feature, &f.kind)
            .map_err(|e| Failure::setup(Some("figure"), Some(i), e))?;
    }
    let mut scores = vec![0; players.len()];
    for (name, s) in &sc.scores {
        scores
            [player_index(players, name).map_err(|e| Failure::setup(Some("scores"), None, e))?] =
            *s;
    }
    let active = match &sc.active {
        Some(a) => {
            player_index(players, a).map_err(|e| Failure::setup(Some("active"), None, e))? as u8
        }
        None => 0,
    };
    let draws = sc
        .draws
        .iter()
        .enumerate()
        .map(|(i, d)| resolve_kind(rules, d).map_err(|e| Failure::setup(Some("draws"), Some(i), e)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Position {
        players: players.clone(),
        scores,
        active,
        tiles,
        figures,
        draws,
        seed: sc.seed,
        settings: sc
            .state
            .iter()
            .map(|(k, v)| {
                let (expansion, key) = k.split_once('.').ok_or_else(|| {
                    Failure::setup(
                        Some("state"),
                        None,
                        format!("state key `{k}`: expected `<expansion>.<key>`"),
                    )
                })?;
                Ok(PositionSetting {
                    expansion: expansion.to_string(),
                    key: key.to_string(),
                    value: v.clone(),
                })
            })
            .collect::<Result<Vec<_>, Failure>>()?,
    })
}
