//! What a filter hook gets: an offer it can narrow and nothing else.

use std::ops::Deref;

use crate::action::Action;

/// The actions a filter hook (`filter_deploy_actions`, `filter_prompt_actions`) may narrow.
/// A filter reads them as a slice and drops some with [`Offered::retain`]; it cannot add,
/// change or reorder one. So whatever every filter leaves is the offer with actions left
/// out, in order, by construction: the engine neither keeps a copy of the offer nor checks
/// the filters' answer against it.
pub struct Offered<'a> {
    actions: &'a mut Vec<Action>,
}

impl<'a> Offered<'a> {
    /// The offer `actions`, to be narrowed (the engine makes one for each filter; a test
    /// or a helper may make its own).
    pub fn new(actions: &'a mut Vec<Action>) -> Offered<'a> {
        Offered { actions }
    }

    /// The same offer, borrowed for a shorter time (to hand it on: a script host keeps it
    /// while the script runs).
    pub fn reborrow(&mut self) -> Offered<'_> {
        Offered {
            actions: &mut *self.actions,
        }
    }

    /// Keeps the actions for which `keep` holds, in their order.
    #[inline]
    pub fn retain(&mut self, keep: impl FnMut(&Action) -> bool) {
        self.actions.retain(keep);
    }
}

impl Deref for Offered<'_> {
    type Target = [Action];

    #[inline]
    fn deref(&self) -> &[Action] {
        self.actions
    }
}

impl std::fmt::Debug for Offered<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.actions.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::Offered;
    use crate::{Action, Pos, Rotation};

    /// An offer reads as its actions and narrows in order.
    #[test]
    fn an_offer_reads_as_its_actions_and_keeps_their_order() {
        let place = |x| Action::Place {
            pos: Pos::new(x, 0),
            rotation: Rotation::R0,
        };
        let mut actions = vec![place(0), place(1), place(2), Action::Pass];
        let mut offer = Offered::new(&mut actions);
        assert_eq!(offer.len(), 4);
        assert_eq!(offer[3], Action::Pass);
        offer.retain(|a| *a != place(1));
        assert_eq!(&*offer, &[place(0), place(2), Action::Pass]);
        offer.retain(|a| *a == Action::Pass);
        assert_eq!(actions, [Action::Pass]);
    }
}
