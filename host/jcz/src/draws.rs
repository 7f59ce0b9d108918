//! How JCloisterZone draws tiles (`jcz-saves.md` §4), on top of our supply.
//!
//! The game runs with chosen draws (`DrawMode::Chosen`): at every draw the importer names
//! the tile JCZ would draw. Forced draws come from `gameAnnotations.drawOrder`; random ones
//! take index `floor(r × n)` over the tiles of the active groups, groups ordered by name and
//! tiles by id (byte order), and then advance `r` with JCZ's 48-bit LCG. `COMMIT` messages
//! overwrite `r`.

use carcassonne_core::{Game, TileKindId};

/// The draw state of an imported game.
#[derive(Clone, Debug)]
pub struct JczDraws {
    /// The current random value, in [0, 1).
    pub r: f64,
    /// Forced draws not taken yet.
    pub queue: std::collections::VecDeque<String>,
}

/// JCZ's random step: the low 48 bits of `r`'s IEEE-754 bits through `java.util.Random`'s
/// LCG, back to [0, 1).
pub fn advance(r: f64) -> f64 {
    const MASK: u64 = (1 << 48) - 1;
    let b = r.to_bits() & MASK;
    let b = b.wrapping_mul(25_214_903_917).wrapping_add(11) & MASK;
    b as f64 / (1u64 << 48) as f64
}

impl JczDraws {
    /// The tile JCZ draws next in `game` (which waits for a draw), consuming a forced id or
    /// a random number. Errors name the tile that cannot be drawn.
    pub fn next(&mut self, game: &Game) -> Result<TileKindId, String> {
        self.next_where(game, |tile| {
            game.actions()
                .contains(&carcassonne_core::Action::Draw { tile })
        })
    }

    /// The tile JCZ draws next for a question that names a drawn tile (a bazaar's): a
    /// forced id must be one `offered` accepts.
    pub fn next_where(
        &mut self,
        game: &Game,
        offered: impl Fn(TileKindId) -> bool,
    ) -> Result<TileKindId, String> {
        let rules = game.rules();
        if let Some(id) = self.queue.pop_front() {
            let kind = rules
                .tiles()
                .find(&id)
                .ok_or_else(|| format!("drawOrder names tile `{id}`, which is not in the game"))?;
            if !offered(kind) {
                return Err(format!(
                    "drawOrder names tile `{id}`, but no copy of it is left in the active stack"
                ));
            }
            return Ok(kind);
        }
        // The tiles of the active groups in JCZ order.
        let supply = game.state().supply();
        let mut groups: Vec<_> = supply.groups.iter().filter(|g| g.active).collect();
        groups.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        let mut pack: Vec<(&str, TileKindId)> = Vec::new();
        for g in groups {
            let start = pack.len();
            pack.extend(
                g.tiles
                    .iter()
                    .map(|t| (rules.tiles().get(*t).id.as_str(), *t)),
            );
            pack[start..].sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        }
        if pack.is_empty() {
            return Err("a random draw is due but the active stack is empty".into());
        }
        let index = ((self.r * pack.len() as f64).floor() as usize).min(pack.len() - 1);
        self.r = advance(self.r);
        Ok(pack[index].1)
    }
}

#[cfg(test)]
mod tests {
    use super::advance;

    #[test]
    fn zero_advances_like_java_random() {
        // (25214903917 · 0 + 11) / 2^48
        assert_eq!(advance(0.0), 11.0 / (1u64 << 48) as f64);
        let r = advance(advance(0.5));
        assert!((0.0..1.0).contains(&r));
    }
}
