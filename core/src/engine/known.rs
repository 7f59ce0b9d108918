//! Offers a search already knows: a decision reached again by the same actions from the
//! same position offers what it offered the first time, so a copy can be given that list
//! instead of listing it again ([`Game::apply_known`]). With the nine official expansions
//! a deployment step's listing asks every tower, portal target and barn (several thousand
//! instructions); a copy of a known list is a few hundred bytes.

#[cfg(debug_assertions)]
use super::pipeline;
use super::*;
use crate::state::{NextOffer, OfferAt};

/// The offer of one decision, taken as a game reached it ([`Game::apply_to_known`]), to be
/// given back to a copy that reaches the same decision again ([`Game::apply_known`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownOffer {
    /// The action that led to the decision.
    after: Action,
    at: OfferAt,
    actions: Vec<Action>,
}

impl KnownOffer {
    /// The offered actions, in the order the decision offers them.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }
}

impl Game {
    /// [`Game::apply_offered`], and the offer of the decision the action leads to when a
    /// copy that comes back to it offers the same: a deployment step or a prompt whose
    /// offer is a list (not a placements prompt), reached while no random number has been
    /// drawn since the game was seeded or reseeded ([`Game::generator_untouched`]). Every
    /// copy refilled from the same position, reseeded, that plays the same actions reaches
    /// that decision with that offer, whatever its seed. `None` for any other decision.
    pub fn apply_to_known(&mut self, index: usize) -> Result<Option<KnownOffer>, ActionError> {
        let after = self.play_offered(index)?;
        if !self.generator_untouched() {
            return Ok(None);
        }
        let st = &self.state;
        let at = match st.decision.kind {
            DecisionKind::Deploy { tile } => OfferAt::deploy(st, tile),
            DecisionKind::Prompt(prompt) if prompt.placements_of().is_none() => OfferAt::Prompt {
                turn: st.turn,
                asked: st.turn_prompts,
                prompt,
            },
            _ => return Ok(None),
        };
        Ok(Some(KnownOffer {
            after,
            at,
            actions: st.offered.clone(),
        }))
    }

    /// [`Game::apply_offered`], the decision `known` was taken at offering `known`'s
    /// actions instead of listing them, when the action leads to it: the action is the one
    /// that led there, and the decision is in the same turn, the same tile's deployment
    /// step or the same prompt asked as often this turn, with the generator still
    /// untouched. Any other decision is listed as usual.
    ///
    /// `known` must come from [`Game::apply_to_known`] on a copy of the same position as
    /// this game (refilled from it, reseeded) that played the same actions as this game has
    /// played since, ending with this one. Its offer is then the one the listing would give, as
    /// debug builds check. A search keeps the offers of the decisions its tree reaches
    /// without chance, and gives them back at every later visit.
    pub fn apply_known(&mut self, index: usize, known: &KnownOffer) -> Result<(), ActionError> {
        let action = self.offered_action(index)?;
        if action != known.after {
            return self.apply_checked(action);
        }
        let st = &mut self.state;
        st.known_offer.clear();
        st.known_offer.extend_from_slice(&known.actions);
        st.known_at = Some(known.at);
        st.next_offer = NextOffer::Known;
        let r = self.apply_checked(action);
        let st = &mut self.state;
        st.next_offer = NextOffer::Listed;
        st.known_at = None;
        st.known_offer.clear();
        r
    }
}

/// Offers the known list if the decision about to be listed is the known one (`at`) and
/// no random number has been drawn; then the state is as if it had been listed (the
/// caller sets the decision). Debug builds list it on a copy and compare.
#[inline(never)]
#[cfg_attr(not(debug_assertions), allow(unused_variables))]
pub(super) fn offer_known(
    rules: &Ruleset,
    st: &mut GameState,
    at: OfferAt,
) -> Result<bool, HookError> {
    if st.known_at != Some(at) || st.rng.get_word_pos() != 0 {
        return Ok(false);
    }
    #[cfg(debug_assertions)]
    {
        let mut probe = st.clone();
        probe.next_offer = NextOffer::Listed;
        let asked = match at {
            OfferAt::Deploy { .. } => pipeline::deploy_offers(rules, &mut probe)?,
            OfferAt::Prompt { prompt, .. } => {
                probe.turn_prompts -= 1;
                pipeline::ask_prompt(rules, &mut probe, prompt)?
            }
        };
        assert!(
            asked && probe.offered == st.known_offer,
            "a known offer is the decision's listing"
        );
    }
    std::mem::swap(&mut st.offered, &mut st.known_offer);
    st.known_offer.clear();
    st.known_at = None;
    st.next_offer = NextOffer::Listed;
    Ok(true)
}
