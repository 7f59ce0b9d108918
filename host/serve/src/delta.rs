//! The board of a view, whole or as what changed since a version the page shows.
//!
//! The renderer draws each placed tile as two groups that stay valid as the board grows
//! (`carcassonne_render::BoardSvg`): the tile itself, which never changes, and the figures
//! on it. A game remembers, per cell, the version at which each group last changed
//! ([`Stamps`], noted whenever a view is drawn), so a page that shows version N is sent
//! only the groups stamped after N, the picture's extent, and the backdrop and overlay
//! (title, last move, neutral figures, side panel), which change with every move anyway.
//! A page whose version is not covered (drawn before this server started, or from a
//! future the server lost) gets the whole board.

use carcassonne_render::BoardSvg;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// When each cell's groups last changed, as seen by the views drawn so far.
#[derive(Default)]
pub struct Stamps {
    /// The first version from which deltas are exact (`None` before any drawing).
    base: Option<u64>,
    /// The version drawn last.
    last: u64,
    cells: BTreeMap<(i32, i32), CellStamp>,
}

#[derive(Clone, Copy)]
struct CellStamp {
    /// Hashes of the tile group and of the figures group as drawn last.
    tile: u64,
    figures: u64,
    /// The versions at which they last changed.
    tile_at: u64,
    figures_at: u64,
}

fn hash(s: &str) -> u64 {
    // SipHash with fixed keys: a fingerprint of a group's text, compared within a process.
    let mut h = std::hash::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// A string as the inside of a JSON string literal (escaping concatenates, so the whole
/// board's literal is the concatenation of its parts').
fn json_inner(s: &str) -> String {
    let q = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    q[1..q.len() - 1].to_string()
}

/// A drawn board kept with a cached view: its parts, JSON-escaped once, and each cell's
/// stamps at the time of drawing.
pub struct DrawnBoard {
    version: u64,
    base: u64,
    width: String,
    height: String,
    view_box: String,
    open: String,
    backdrop: String,
    overlay: String,
    cells: Vec<DrawnCell>,
}

struct DrawnCell {
    key: String,
    order: usize,
    tile: String,
    figures: String,
    tile_at: u64,
    figures_at: u64,
}

impl Stamps {
    /// Notes `board`, drawn at `version`, and returns it ready to send.
    pub fn note(&mut self, version: u64, board: &BoardSvg) -> DrawnBoard {
        // A version older than one drawn before (a record resumed after a crash lost a
        // write) or a tile gone from the board: start again from here.
        let now: std::collections::BTreeSet<(i32, i32)> =
            board.cells.iter().map(|c| (c.x, c.y)).collect();
        let gone = self.cells.keys().any(|k| !now.contains(k));
        if self.base.is_none() || version < self.last || gone {
            self.base = Some(version);
            self.cells.clear();
        }
        self.last = version;
        let mut cells = Vec::with_capacity(board.cells.len());
        for c in &board.cells {
            let (tile, figures) = (hash(&c.tile), hash(&c.figures));
            let e = self.cells.entry((c.x, c.y)).or_insert(CellStamp {
                tile,
                figures,
                tile_at: version,
                figures_at: version,
            });
            if e.tile != tile {
                (e.tile, e.tile_at) = (tile, version);
            }
            if e.figures != figures {
                (e.figures, e.figures_at) = (figures, version);
            }
            cells.push(DrawnCell {
                key: format!("{},{}", c.x, c.y),
                order: c.order,
                tile: json_inner(&c.tile),
                figures: json_inner(&c.figures),
                tile_at: e.tile_at,
                figures_at: e.figures_at,
            });
        }
        DrawnBoard {
            version,
            base: self.base.unwrap_or(version),
            width: json_inner(&board.width),
            height: json_inner(&board.height),
            view_box: json_inner(&board.view_box),
            open: json_inner(&board.open_tag()),
            backdrop: json_inner(&board.backdrop),
            overlay: json_inner(&board.overlay),
            cells,
        }
    }
}

impl DrawnBoard {
    /// `head` (a view's JSON text, open) followed by the board: what changed since version
    /// `since` when given, else the whole picture.
    pub fn after(&self, head: &str, since: Option<u64>) -> String {
        let board = match since {
            Some(_) => self.backdrop.len() + self.overlay.len() + 16 * 1024,
            None => self.size(),
        };
        let mut out = String::with_capacity(head.len() + board + 64);
        out.push_str(head);
        match since {
            Some(n) => self.delta(n, &mut out),
            None => self.whole(&mut out),
        }
        out
    }

    /// The length of the whole board's text, about.
    fn size(&self) -> usize {
        let cells: usize = self
            .cells
            .iter()
            .map(|c| c.tile.len() + c.figures.len())
            .sum();
        cells + self.open.len() + self.backdrop.len() + self.overlay.len() + 128
    }

    /// `"board":"<svg…>"`: the whole picture, as `BoardSvg::to_svg` writes it.
    fn whole(&self, out: &mut String) {
        out.push_str(",\"board\":\"");
        out.push_str(&self.open);
        out.push_str("\\n");
        out.push_str(&self.backdrop);
        out.push_str("<g id=\\\"tiles\\\">\\n");
        for c in &self.cells {
            out.push_str(&c.tile);
        }
        out.push_str("</g>\\n<g id=\\\"figures\\\">\\n");
        for c in &self.cells {
            out.push_str(&c.figures);
        }
        out.push_str("</g>\\n");
        out.push_str(&self.overlay);
        out.push_str("</svg>\\n\"");
    }

    /// Whether a page showing version `since` can be sent only what changed.
    pub fn covers(&self, since: u64) -> bool {
        (self.base..=self.version).contains(&since)
    }

    /// `"board_delta":{…}`: what changed since version `since` (see `docs/serve.md`):
    /// the picture's extent, the backdrop and overlay, and in placement order each cell
    /// whose tile is new (`tile` and `figures`) or whose figures changed (`figures`, empty
    /// when none are left). Call only when [`DrawnBoard::covers`] `since`.
    fn delta(&self, since: u64, out: &mut String) {
        use std::fmt::Write as _;
        let _ = write!(
            out,
            ",\"board_delta\":{{\"since\":{since},\"width\":\"{}\",\"height\":\"{}\",\"view_box\":\"{}\",\"backdrop\":\"{}\",\"overlay\":\"{}\",\"cells\":[",
            self.width, self.height, self.view_box, self.backdrop, self.overlay
        );
        let mut first = true;
        for c in self
            .cells
            .iter()
            .filter(|c| c.tile_at.max(c.figures_at) > since)
        {
            out.push_str(if first { "{" } else { ",{" });
            first = false;
            let _ = write!(out, "\"cell\":\"{}\",\"order\":{}", c.key, c.order);
            if c.tile_at > since {
                let _ = write!(out, ",\"tile\":\"{}\"", c.tile);
            }
            let _ = write!(out, ",\"figures\":\"{}\"}}", c.figures);
        }
        out.push_str("]}");
    }
}
