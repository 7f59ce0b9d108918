//! A-5 read from the public state: the oracle that core's deployment offers are checked
//! against, here (`placement_loops.rs`) and with expansions loaded
//! (`tests/tests/deployment_offers.rs`, which includes this file by path).

use carcassonne_core::{Action, GameState, PlayerId, Pos, Ruleset, Shape};

/// The offers of A-5 for `player` on the tile at `pos`, segment by segment in the tile's
/// order, one follower kind at a time (in `followers_on` order): a follower the player has
/// in supply, one that occupies only on an unoccupied feature; no field without farmers.
pub fn deployments_by_the_rule(
    rules: &Ruleset,
    st: &GameState,
    player: PlayerId,
    pos: Pos,
) -> Vec<Action> {
    let mut out = Vec::new();
    let Some(t) = st.board().at(pos) else {
        return out;
    };
    if !rules.tiles().get(t.kind).deploy {
        return out;
    }
    let g = st.graph();
    for seg in t.segments() {
        let kind = g.segment(seg).kind;
        let def = rules.kind(kind);
        if !def.occupiable || (def.shape == Shape::Field && !rules.base().farmers) {
            continue;
        }
        let occupied = g.totals(g.feature_of(seg)).occupants > 0;
        for &figure in rules.followers_on(kind) {
            if st.in_supply(player, figure) > 0 && (!occupied || !st.occupies(figure)) {
                out.push(Action::Deploy {
                    figure,
                    segment: seg,
                });
            }
        }
    }
    out
}
