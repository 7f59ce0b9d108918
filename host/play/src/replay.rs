//! The replay output contract (`../shared/formats/jcz-saves.md`, "Replay output contract").

use crate::record::target_of;
use carcassonne_core::{Action, DecisionKind, Game, ScoreSource};
use serde::Serialize;
use std::collections::BTreeMap;

/// The whole output object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplayOutput {
    /// Seat order, with current scores.
    pub players: Vec<PlayerScore>,
    /// Every scoring event in order, final scoring included.
    pub events: Vec<EventOut>,
    /// Whether final scoring is done.
    pub finished: bool,
    /// What the game waits for (`null` when finished).
    pub pending: Option<Pending>,
    /// The expansions' declared state, `"<expansion>.<name>"` → a number (per game), a
    /// list by seat (per player) or `{figure id: value}` for figures whose value is not
    /// the default. Absent without expansion state (the base game), so the contract's
    /// shape is unchanged there.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub state: BTreeMap<String, serde_json::Value>,
    /// Drawn tiles that left the game unplayed, with why (absent when there were none,
    /// so the contract's shape is unchanged in most games).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub discards: Vec<DiscardOut>,
}

/// A drawn tile that left the game unplayed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DiscardOut {
    /// The turn it was drawn in (0-based).
    pub turn: u32,
    /// Who drew it.
    pub player: String,
    /// Tile id.
    pub tile: String,
    /// `fits nowhere`, or `discarded by <expansion>`.
    pub reason: String,
}

/// A player and score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerScore {
    /// Name.
    pub name: String,
    /// Score.
    pub score: i32,
}

/// One scoring event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EventOut {
    /// Player name.
    pub player: String,
    /// Feature kind or label (`city`, `road`, `field`, `cloister`, `king`, …).
    pub feature: String,
    /// Points.
    pub points: i32,
}

/// The pending decision.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pending {
    /// Who decides.
    pub player: String,
    /// The drawn tile (tile step) or the tile just placed.
    pub tile: Option<String>,
    /// Legal cells with their rotations (tile step).
    pub placements: Vec<PlacementOut>,
    /// Legal figure placements.
    pub deployments: Vec<DeploymentOut>,
    /// Whether passing is allowed.
    pub can_pass: bool,
    /// The tiles the table may draw (only in a game whose draws are chosen, when the
    /// next tile is to be drawn; absent otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub draws: Vec<String>,
    /// Expansions' own actions offered now (`take-token`, `promote`, the Count's move), in
    /// their record form (`docs/record-format.md`); absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub custom: Vec<crate::record::RecordAction>,
}

/// A legal cell and its rotations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlacementOut {
    /// x.
    pub x: i32,
    /// y.
    pub y: i32,
    /// Degrees, ascending.
    pub rotations: Vec<u16>,
}

/// A legal figure placement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeploymentOut {
    /// Figure kind name.
    pub figure: String,
    /// Feature kind name.
    pub feature: String,
    /// x (absent for virtual features).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// y.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// Location in JCZ notation.
    pub location: String,
}

/// Builds the contract object for a game.
pub fn replay_output(game: &Game) -> ReplayOutput {
    let rules = game.rules();
    let st = game.state();
    let name = |p: carcassonne_core::PlayerId| st.players()[p.index()].name.clone();
    let events = st
        .events()
        .iter()
        .map(|e| EventOut {
            player: name(e.player),
            feature: match e.source {
                ScoreSource::Feature(k) => rules.kind(k).name.clone(),
                ScoreSource::Label(l) => rules.labels()[l.0 as usize].clone(),
            },
            points: e.points,
        })
        .collect();
    let pending = (!game.is_over()).then(|| {
        let d = game.decision();
        let tile = match d.kind {
            DecisionKind::PlaceTile { tile } => Some(rules.tiles().get(tile).id.clone()),
            DecisionKind::Draw => None,
            _ => st
                .last_placed()
                .map(|i| rules.tiles().get(st.board().tile(i).kind).id.clone()),
        };
        let mut cells: BTreeMap<(i32, i32), Vec<u16>> = BTreeMap::new();
        let mut deployments = Vec::new();
        let mut draws = Vec::new();
        let mut custom = Vec::new();
        for a in game.actions() {
            match *a {
                Action::Place { pos, rotation } => cells
                    .entry((pos.x, pos.y))
                    .or_default()
                    .push(rotation.degrees()),
                Action::Deploy { figure, segment } => {
                    let t = target_of(rules, st, segment);
                    deployments.push(DeploymentOut {
                        figure: rules.figure_kind(figure).name.clone(),
                        feature: t.feature,
                        x: t.x,
                        y: t.y,
                        location: t.location,
                    });
                }
                Action::Move { figure, segment } => {
                    let t = target_of(rules, st, segment);
                    let kind = st.figure(figure).kind;
                    deployments.push(DeploymentOut {
                        figure: rules.figure_kind(kind).name.clone(),
                        feature: t.feature,
                        x: t.x,
                        y: t.y,
                        location: t.location,
                    });
                }
                Action::Draw { tile } => draws.push(rules.tiles().get(tile).id.clone()),
                Action::Custom(_) => custom.push(crate::record::encode_action(rules, game, *a)),
                Action::Pass => {}
            }
        }
        Pending {
            player: name(d.player),
            tile,
            placements: cells
                .into_iter()
                .map(|((x, y), mut r)| {
                    r.sort_unstable();
                    PlacementOut { x, y, rotations: r }
                })
                .collect(),
            deployments,
            can_pass: game.actions().contains(&Action::Pass),
            draws,
            custom,
        }
    });
    let mut state = BTreeMap::new();
    for (i, def) in rules.slots().iter().enumerate() {
        let id = carcassonne_core::SlotId(i as u16);
        let exp = rules.expansions()[def.expansion.0 as usize].id();
        let value = match def.scope {
            carcassonne_core::SlotScope::Game => serde_json::json!(st.slot(id, 0)),
            carcassonne_core::SlotScope::Player => serde_json::json!((0..st.players().len())
                .map(|p| st.slot(id, p))
                .collect::<Vec<_>>()),
            carcassonne_core::SlotScope::Figure => serde_json::Value::Object(
                (0..st.figures().len())
                    .filter(|f| st.slot(id, *f) != def.default)
                    .map(|f| (f.to_string(), serde_json::json!(st.slot(id, f))))
                    .collect(),
            ),
        };
        state.insert(format!("{exp}.{}", def.name), value);
    }
    let discards = st
        .discards()
        .iter()
        .map(|d| DiscardOut {
            turn: d.turn,
            player: name(d.player),
            tile: rules.tiles().get(d.tile).id.clone(),
            reason: match d.reason {
                carcassonne_core::DiscardReason::FitsNowhere => "fits nowhere".into(),
                carcassonne_core::DiscardReason::Expansion(e) => {
                    format!("discarded by {}", rules.expansions()[e.0 as usize].id())
                }
            },
        })
        .collect();
    ReplayOutput {
        state,
        discards,
        players: st
            .players()
            .iter()
            .map(|p| PlayerScore {
                name: p.name.clone(),
                score: p.score,
            })
            .collect(),
        events,
        finished: game.is_over(),
        pending,
    }
}
