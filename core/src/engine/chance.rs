//! Draws by chance that an expansion asks as a prompt (a token revealed from a bag when a
//! replay must name it): the outcomes, with their weights, so that bots sample them instead
//! of choosing the one they like best ([`crate::Declare::verb_by_chance`]).

use super::Game;
use crate::action::{Action, VerbValue};
use crate::state::DecisionKind;
use crate::tile::TileKindId;

impl Game {
    /// Whether the pending decision is a draw by chance: a prompt whose owner offers actions
    /// of a verb declared by chance. Cheap when no verb is (most rulesets).
    #[inline]
    pub fn is_chance(&self) -> bool {
        self.chance_offers().next().is_some()
    }

    /// Whether the pending decision can be a draw by chance at all: the ruleset has such a
    /// verb and the decision is a prompt that lists its actions. Every bot asks at every
    /// decision, so this is the test the common answer takes, inline in the caller: three
    /// loads and compares, no call.
    #[inline(always)]
    pub fn may_be_chance(&self) -> bool {
        self.rules.has_chance_verbs()
            && matches!(self.state.decision.kind,
                DecisionKind::Prompt(p) if p.placements_of().is_none())
    }

    /// The outcomes of a draw by chance ([`Game::is_chance`]) as (offer index, weight):
    /// weight 1 each, or the copies left to draw for a verb whose value is a tile kind. Empty
    /// when the decision is no such draw. Other offers of the step (another expansion's free
    /// action) are not outcomes.
    pub fn chance_outcomes(&self, out: &mut Vec<(usize, u32)>) {
        out.clear();
        for (i, c) in self.chance_offers() {
            let weight = match (self.rules.verb_value(c.verb), u16::try_from(c.value)) {
                (VerbValue::TileKind, Ok(kind)) => {
                    self.state.supply.copies_left(TileKindId(kind)).max(1)
                }
                _ => 1,
            };
            out.push((i, weight));
        }
    }

    /// The index of an outcome drawn from [`Game::chance_outcomes`] with `roll`, a number
    /// below the weights' sum (`None` when the decision is no draw by chance).
    #[inline]
    pub fn chance_pick(&self, roll: impl FnOnce(u32) -> u32) -> Option<usize> {
        // Every decision of every bot asks: most rulesets have no such verb, and the answer
        // is then one load and a branch.
        if !self.may_be_chance() {
            return None;
        }
        let mut outcomes = Vec::new();
        self.chance_outcomes(&mut outcomes);
        let total: u32 = outcomes.iter().map(|(_, w)| *w).sum();
        if total == 0 {
            return None;
        }
        let mut k = roll(total).min(total - 1);
        for (i, w) in outcomes {
            if k < w {
                return Some(i);
            }
            k -= w;
        }
        None
    }

    /// The offered custom actions of the prompt's owner whose verb is by chance, with their
    /// offer index; none unless [`Game::may_be_chance`] (a tile step's or a placements
    /// prompt's offer is places, and reading it as a list would build that list at every
    /// decision of a game with such a verb).
    fn chance_offers(&self) -> impl Iterator<Item = (usize, crate::action::CustomAction)> + '_ {
        let (owner, offers) = match self.state.decision.kind {
            DecisionKind::Prompt(p) if self.may_be_chance() => (Some(p.owner), self.actions()),
            _ => (None, &[][..]),
        };
        offers.iter().enumerate().filter_map(move |(i, a)| match a {
            Action::Custom(c)
                if Some(c.expansion) == owner && self.rules.verb_by_chance(c.verb) =>
            {
                Some((i, *c))
            }
            _ => None,
        })
    }
}
