//! A fixed-size action encoding and observation planes for learning agents.
//!
//! Every legal action of any expansion mix gets an id in `0..ACTION_SIZE`, distinct from the
//! ids of the other legal actions of the same decision, so a boolean mask of `ACTION_SIZE`
//! entries is exactly the set of legal actions. The layout (docs/python-api.md):
//!
//! | block | size | action |
//! |---|---|---|
//! | place | `WINDOW² × 4` | `Place { pos, rotation }`: `(row × WINDOW + column) × 4 + quarter turns`, the window centred on the start tile (0,0) |
//! | pass | 1 | `Pass` |
//! | deploy | `FIGURE_SLOTS × LOCAL_SLOTS` | `Deploy { figure, segment }` on the tile placed last: `figure kind × LOCAL_SLOTS + local segment` |
//! | draw | `TILE_SLOTS` | `Draw { tile }` (chosen-draw games): the tile kind's catalog index |
//! | other | `OTHER_SLOTS` | every other action (deployments elsewhere, moves, expansion actions and prompts): its rank among them in the engine's order; `describe_other` says what each slot is |
//!
//! An action that does not fit (a placement outside the window, a figure kind or segment index
//! past its slots, more "other" actions than slots) is an [`EncodeError`], never a silently wrong
//! id. The window was sized from measured games (docs/python-api.md, "Window").
//!
//! The encoding is computed from the engine's own offered actions (`Game::actions`), in the
//! engine's order, so `ids[i]` is the id of `game.actions()[i]`.

use carcassonne_core::{Action, DecisionKind, FigureLoc, Game, GameState, Pos, SegmentId};
use thiserror::Error;

/// Side of the square board window (odd: the start tile is its centre).
pub const WINDOW: usize = 63;
/// Cells from the centre to the window's edge.
pub const HALF: i32 = (WINDOW / 2) as i32;
/// Figure kinds a deployment id can name (ruleset figure kind index).
pub const FIGURE_SLOTS: usize = 16;
/// Local segment indices of one tile.
pub const LOCAL_SLOTS: usize = 16;
/// Tile kinds (catalog index) for draws and the tile encodings.
pub const TILE_SLOTS: usize = 256;
/// Slots for the other actions of one decision.
pub const OTHER_SLOTS: usize = 4096;
/// Most players of a game.
pub const MAX_PLAYERS: usize = carcassonne_core::MAX_PLAYERS;

/// First id of the placement block.
pub const PLACE_BASE: usize = 0;
/// The pass action's id.
pub const PASS_ID: usize = PLACE_BASE + WINDOW * WINDOW * 4;
/// First id of the deployment-on-the-last-tile block.
pub const DEPLOY_BASE: usize = PASS_ID + 1;
/// First id of the draw block.
pub const DRAW_BASE: usize = DEPLOY_BASE + FIGURE_SLOTS * LOCAL_SLOTS;
/// First id of the other-action block.
pub const OTHER_BASE: usize = DRAW_BASE + TILE_SLOTS;
/// Size of the action space.
pub const ACTION_SIZE: usize = OTHER_BASE + OTHER_SLOTS;

/// An action the encoding cannot represent.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// A placement outside the board window.
    #[error("placement at ({x},{y}) lies outside the {WINDOW}×{WINDOW} board window")]
    OutsideWindow {
        /// Column.
        x: i32,
        /// Row.
        y: i32,
    },
    /// A figure kind, segment or tile kind past its slots, or too many other actions.
    #[error("action `{what}` does not fit the encoding: {why}")]
    NoSlot {
        /// The action.
        what: String,
        /// Which limit it passes.
        why: String,
    },
}

/// The window index of a cell, if inside.
#[inline]
pub fn cell_index(p: Pos) -> Option<usize> {
    let (c, r) = (p.x + HALF, p.y + HALF);
    (c >= 0 && r >= 0 && (c as usize) < WINDOW && (r as usize) < WINDOW)
        .then(|| r as usize * WINDOW + c as usize)
}

/// The cell of a window index.
#[inline]
pub fn cell_pos(index: usize) -> Pos {
    Pos::new(
        (index % WINDOW) as i32 - HALF,
        (index / WINDOW) as i32 - HALF,
    )
}

/// What an id is, decoded from the layout alone (other-action slots need the game).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A placement at a cell with a number of clockwise quarter turns.
    Place {
        /// Cell.
        pos: Pos,
        /// Quarter turns.
        quarters: u8,
    },
    /// Pass.
    Pass,
    /// A deployment of a figure kind on a local segment of the tile placed last.
    Deploy {
        /// Figure kind index.
        figure: u8,
        /// Local segment index.
        local: u8,
    },
    /// A draw of a tile kind.
    Draw {
        /// Tile kind index.
        tile: u16,
    },
    /// The `n`-th other action.
    Other(usize),
}

/// Decodes an id's block and fields; `None` past `ACTION_SIZE`.
pub fn slot_of(id: usize) -> Option<Slot> {
    Some(if id < PASS_ID {
        Slot::Place {
            pos: cell_pos(id / 4),
            quarters: (id % 4) as u8,
        }
    } else if id == PASS_ID {
        Slot::Pass
    } else if id < DRAW_BASE {
        let k = id - DEPLOY_BASE;
        Slot::Deploy {
            figure: (k / LOCAL_SLOTS) as u8,
            local: (k % LOCAL_SLOTS) as u8,
        }
    } else if id < OTHER_BASE {
        Slot::Draw {
            tile: (id - DRAW_BASE) as u16,
        }
    } else if id < ACTION_SIZE {
        Slot::Other(id - OTHER_BASE)
    } else {
        return None;
    })
}

/// The tile placed last, if the action's segment is on it: its local index.
fn local_on_last(st: &GameState, seg: SegmentId) -> Option<u8> {
    let last = st.last_placed()?;
    let node = st.graph().segment(seg);
    (node.tile == last && !node.is_virtual()).then_some(node.local)
}

/// Whether an action goes to the fixed deploy slots (a deployment on the last placed tile
/// during its deployment step or any other decision).
fn deploy_slot(st: &GameState, a: &Action) -> Option<(u8, u8)> {
    match a {
        Action::Deploy { figure, segment } => {
            let local = local_on_last(st, *segment)?;
            Some((figure.0, local))
        }
        _ => None,
    }
}

/// Whether an offered action goes to the "other" block (ranked) rather than a fixed slot.
pub fn is_other(st: &GameState, a: &Action) -> bool {
    match a {
        Action::Place { .. } | Action::Pass | Action::Draw { .. } => false,
        _ => deploy_slot(st, a).is_none(),
    }
}

/// The ids of the offered actions, in the engine's order (`out[i]` is the id of
/// `game.actions()[i]`). Ids are distinct by construction: placements by cell and turn,
/// deployments on the last tile by figure kind and segment, the rest by rank.
pub fn encode_actions(game: &Game, out: &mut Vec<u32>) -> Result<(), EncodeError> {
    out.clear();
    let r = encode_into(game, out);
    if r.is_err() {
        out.clear();
    }
    r
}

fn encode_into(game: &Game, out: &mut Vec<u32>) -> Result<(), EncodeError> {
    encode_with(game, &mut |_, id| out.push(id), false)
}

/// Like [`encode_actions`], but a placement outside the window is left out instead of
/// being an error: `ids[k]` is the id of `game.actions()[index[k]]`. What a learning
/// environment uses, so that a board grown past the window masks those cells rather than
/// stopping the game; when nothing is left, the caller ends the game
/// (`Game::end_now`). Other actions that do not fit are still errors.
pub fn encode_in_window(
    game: &Game,
    ids: &mut Vec<u32>,
    index: &mut Vec<u32>,
) -> Result<(), EncodeError> {
    ids.clear();
    index.clear();
    let r = encode_with(
        game,
        &mut |i, id| {
            ids.push(id);
            index.push(i as u32);
        },
        true,
    );
    if r.is_err() {
        ids.clear();
        index.clear();
    }
    r
}

/// Calls `emit(engine index, id)` for every offered action that gets an id.
fn encode_with(
    game: &Game,
    emit: &mut dyn FnMut(usize, u32),
    skip_outside: bool,
) -> Result<(), EncodeError> {
    if game.is_over() {
        return Ok(());
    }
    let st = game.state();
    let mut other = 0usize;
    for (i, a) in game.actions().iter().enumerate() {
        let id = match a {
            Action::Place { pos, rotation } => {
                let Some(c) = cell_index(*pos) else {
                    if skip_outside {
                        continue;
                    }
                    return Err(EncodeError::OutsideWindow { x: pos.x, y: pos.y });
                };
                PLACE_BASE + c * 4 + rotation.quarters() as usize
            }
            Action::Pass => PASS_ID,
            Action::Draw { tile } => {
                if tile.0 as usize >= TILE_SLOTS {
                    return Err(EncodeError::NoSlot {
                        what: a.to_string(),
                        why: format!("tile kind {} ≥ {TILE_SLOTS}", tile.0),
                    });
                }
                DRAW_BASE + tile.0 as usize
            }
            _ => match deploy_slot(st, a) {
                Some((f, l)) if (f as usize) < FIGURE_SLOTS && (l as usize) < LOCAL_SLOTS => {
                    DEPLOY_BASE + f as usize * LOCAL_SLOTS + l as usize
                }
                Some((f, l)) => {
                    return Err(EncodeError::NoSlot {
                        what: a.to_string(),
                        why: format!(
                        "figure kind {f} (< {FIGURE_SLOTS}) or local segment {l} (< {LOCAL_SLOTS})"
                    ),
                    })
                }
                None => {
                    if other >= OTHER_SLOTS {
                        return Err(EncodeError::NoSlot {
                            what: a.to_string(),
                            why: format!("more than {OTHER_SLOTS} other actions in one decision"),
                        });
                    }
                    other += 1;
                    OTHER_BASE + other - 1
                }
            },
        };
        emit(i, id as u32);
    }
    Ok(())
}

/// The mask of the offered actions (`mask.len() == ACTION_SIZE`), from their ids.
pub fn fill_mask(ids: &[u32], mask: &mut [bool]) {
    mask.fill(false);
    for &id in ids {
        mask[id as usize] = true;
    }
}

/// Columns of the other-action descriptor table (`describe_other`).
pub const OTHER_COLUMNS: [&str; 9] = [
    "kind",
    "figure_kind",
    "figure_owner",
    "verb",
    "x",
    "y",
    "local",
    "value",
    "virtual",
];

/// Kind codes of the descriptor's `kind` column (0: unused slot).
pub const OTHER_DEPLOY: i32 = 1;
/// `Move`.
pub const OTHER_MOVE: i32 = 2;
/// `Custom`.
pub const OTHER_CUSTOM: i32 = 3;

/// One row per other-action slot (`OTHER_SLOTS × OTHER_COLUMNS.len()`, row-major): what the
/// slot's action is (kind, figure kind and owner, verb index, target cell and local segment,
/// value; -1 where absent). Owners are seat-relative to `seat` (0 = `seat`).
pub fn describe_other(game: &Game, seat: usize, out: &mut [i32]) {
    let cols = OTHER_COLUMNS.len();
    out.fill(0);
    if game.is_over() {
        return;
    }
    let st = game.state();
    let n = st.players().len().max(1);
    // Seats relative to the observer; a neutral figure's owner is `n` (no seat).
    let rel = |owner: usize| {
        if owner >= n {
            n as i32
        } else {
            ((owner + n - seat % n) % n) as i32
        }
    };
    let mut k = 0usize;
    for a in game.actions() {
        let row = match a {
            Action::Place { .. } | Action::Pass | Action::Draw { .. } => continue,
            _ if deploy_slot(st, a).is_some() => continue,
            _ => k,
        };
        if row >= OTHER_SLOTS {
            break;
        }
        k += 1;
        let r = &mut out[row * cols..(row + 1) * cols];
        r.fill(-1);
        let target = |r: &mut [i32], seg: SegmentId| {
            let node = st.graph().segment(seg);
            if node.is_virtual() {
                r[8] = 1;
                r[6] = node.local as i32;
            } else {
                r[8] = 0;
                r[4] = node.pos.x;
                r[5] = node.pos.y;
                r[6] = node.local as i32;
            }
        };
        match a {
            Action::Deploy { figure, segment } => {
                r[0] = OTHER_DEPLOY;
                r[1] = figure.0 as i32;
                target(r, *segment);
            }
            Action::Move { figure, segment } => {
                r[0] = OTHER_MOVE;
                let f = st.figure(*figure);
                r[1] = f.kind.0 as i32;
                r[2] = rel(f.owner.index());
                target(r, *segment);
            }
            Action::Custom(c) => {
                r[0] = OTHER_CUSTOM;
                r[3] = c.verb.0 as i32;
                if let Some(fid) = c.figure {
                    let f = st.figure(fid);
                    r[1] = f.kind.0 as i32;
                    r[2] = rel(f.owner.index());
                }
                if let Some(s) = c.segment {
                    target(r, s);
                }
                r[7] = c.value;
            }
            _ => {}
        }
    }
}

/// Names of the observation planes, in order.
pub const PLANES: [&str; 32] = [
    "tile",
    "last_placed",
    "frontier",
    "edge_n_city",
    "edge_n_road",
    "edge_n_field",
    "edge_n_other",
    "edge_e_city",
    "edge_e_road",
    "edge_e_field",
    "edge_e_other",
    "edge_s_city",
    "edge_s_road",
    "edge_s_field",
    "edge_s_other",
    "edge_w_city",
    "edge_w_road",
    "edge_w_field",
    "edge_w_other",
    "feature_cloister",
    "feature_other_site",
    "pennants",
    "complete",
    "open_sides",
    "occupancy_0",
    "occupancy_1",
    "occupancy_2",
    "occupancy_3",
    "occupancy_4",
    "occupancy_5",
    "occupancy_6+",
    "neutral_figures",
];

const P_TILE: usize = 0;
const P_LAST: usize = 1;
const P_FRONTIER: usize = 2;
const P_EDGE: usize = 3;
const P_CLOISTER: usize = 19;
const P_SITE: usize = 20;
const P_PENNANTS: usize = 21;
const P_COMPLETE: usize = 22;
const P_OPEN: usize = 23;
const P_OCC: usize = 24;
const P_NEUTRAL: usize = 31;

/// Edge class of a feature kind: city 0, road 1, field 2, anything else 3.
fn edge_class(kind: u8) -> usize {
    (kind as usize).min(3)
}

/// The observation planes of `game` seen from `seat` (`PLANES.len() × WINDOW × WINDOW`,
/// plane-major, uint8): occupancy planes are seat-relative (`occupancy_0` is `seat`'s own
/// figures), counts saturate at 255. Cells outside the window are not shown.
pub fn planes(game: &Game, seat: usize, out: &mut [u8]) {
    let area = WINDOW * WINDOW;
    out.fill(0);
    let st = game.state();
    let n = st.players().len().max(1);
    let at = |plane: usize, cell: usize| plane * area + cell;
    let bump = |out: &mut [u8], i: usize, by: u32| {
        out[i] = (out[i] as u32 + by).min(255) as u8;
    };
    let last = st.last_placed();
    let board = st.board();
    for (ti, t) in board.tiles().iter().enumerate() {
        let Some(c) = cell_index(t.pos) else { continue };
        out[at(P_TILE, c)] = 1;
        if last == Some(ti as u16) {
            out[at(P_LAST, c)] = 1;
        }
        let open = carcassonne_core::Side::ALL
            .into_iter()
            .filter(|d| !board.is_occupied(t.pos.step(*d)))
            .count();
        out[at(P_OPEN, c)] = open as u8;
        let mut local = 0u8;
        while let Some(seg) = st.segment_at(t.pos, local) {
            local += 1;
            let node = st.graph().segment(seg);
            let kind = node.kind.0;
            for (s, d) in carcassonne_core::Side::ALL.into_iter().enumerate() {
                if node.sides.contains(d) {
                    out[at(P_EDGE + s * 4 + edge_class(kind), c)] = 1;
                }
            }
            if t.sites & (1 << node.local) != 0 {
                if kind == 3 {
                    out[at(P_CLOISTER, c)] = 1;
                } else {
                    out[at(P_SITE, c)] = 1;
                }
            }
            bump(out, at(P_PENNANTS, c), node.pennants as u32);
            if st.graph().totals(st.graph().feature_of(seg)).complete() {
                bump(out, at(P_COMPLETE, c), 1);
            }
        }
    }
    for f in board.frontier() {
        if let Some(c) = cell_index(f.pos) {
            out[at(P_FRONTIER, c)] = 1;
        }
    }
    for fig in st.figures() {
        let FigureLoc::On(seg) = fig.loc else {
            continue;
        };
        let node = st.graph().segment(seg);
        if node.is_virtual() {
            continue;
        }
        let Some(c) = cell_index(node.pos) else {
            continue;
        };
        let owner = fig.owner.index();
        let plane = if owner >= n {
            P_NEUTRAL
        } else {
            P_OCC + ((owner + n - seat % n) % n).min(6)
        };
        bump(out, at(plane, c), 1);
    }
}

/// Remaining tiles per tile kind (catalog index; `TILE_SLOTS` entries; kinds past the last
/// slot are added to the last one).
pub fn remaining(st: &GameState, out: &mut [i32]) {
    out.fill(0);
    for g in &st.supply().groups {
        for t in &g.tiles {
            out[(t.0 as usize).min(TILE_SLOTS - 1)] += 1;
        }
    }
}

/// The drawn tile (one-hot over tile kinds; all zero when no tile is to be placed).
pub fn drawn_tile(game: &Game, out: &mut [u8]) {
    out.fill(0);
    if game.is_over() {
        return;
    }
    if let DecisionKind::PlaceTile { tile } = game.decision().kind {
        out[(tile.0 as usize).min(TILE_SLOTS - 1)] = 1;
    }
}

/// Decision kinds, one-hot: draw, place, deploy, prompt, over.
pub fn decision_code(game: &Game) -> usize {
    if game.is_over() {
        return 4;
    }
    match game.decision().kind {
        DecisionKind::Draw => 0,
        DecisionKind::PlaceTile { .. } => 1,
        DecisionKind::Deploy { .. } => 2,
        DecisionKind::Prompt(_) => 3,
        DecisionKind::GameOver => 4,
    }
}

/// Figures in supply per seat (seat-relative rows) and figure kind (`MAX_PLAYERS × FIGURE_SLOTS`).
pub fn supply(game: &Game, seat: usize, out: &mut [i32]) {
    out.fill(0);
    let st = game.state();
    let n = st.players().len().max(1);
    let kinds = game.rules().figure_kinds().len().min(FIGURE_SLOTS);
    for p in 0..n {
        let row = (p + n - seat % n) % n;
        for k in 0..kinds {
            let c = st.in_supply(
                carcassonne_core::PlayerId(p as u8),
                carcassonne_core::FigureKindId(k as u8),
            );
            out[row * FIGURE_SLOTS + k] = c as i32;
        }
    }
}

#[cfg(test)]
mod tests;
