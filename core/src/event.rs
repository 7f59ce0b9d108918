//! Score events: every point change is one event.

use crate::kind::FeatureKindId;
use crate::player::PlayerId;
use crate::ruleset::LabelId;

/// What the points were for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreSource {
    /// A feature of this kind was scored.
    Feature(FeatureKindId),
    /// Points outside feature scoring, under a registered label (`king`, …).
    Label(LabelId),
}

/// One scoring of one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreEvent {
    /// Who scored.
    pub player: PlayerId,
    /// For what.
    pub source: ScoreSource,
    /// How many points (may be 0).
    pub points: i32,
    /// Whether the scored feature was complete.
    pub complete: bool,
    /// Whether it happened during final scoring.
    pub final_scoring: bool,
    /// Whether the points come from a scoring on the board: every feature's scoring, and
    /// an expansion's award made with [`crate::Ctx::award_scoring`] (a castle's). Rules
    /// that react to "a scoring caused by the placement" (the Count, CO-4) count these and
    /// no other label's points (a King's, a trade good's).
    pub scoring: bool,
    /// Turn number (0-based) when it happened.
    pub turn: u32,
}
