//! Prompts: decisions an expansion asks of one player, often out of turn.
//!
//! Each expansion says what it asks in its own type (an enum of its questions) by
//! implementing [`PromptKind`]. The game state stores a prompt as a small `Copy` value
//! ([`PromptCode`]), so queues clone and compare for free; the expansion turns it back
//! into its own type with [`Prompt::decode`] and never matches raw numbers.

use crate::action::ExpansionIndex;
use crate::hooks::{HookFailure, HookResult};
use crate::player::PlayerId;

/// The stored form of a prompt's question: a tag and one argument. Only
/// [`PromptKind`] implementations read or write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PromptCode {
    /// Which question (the kind's own numbering).
    pub tag: u16,
    /// Its argument.
    pub arg: i32,
}

/// An expansion's own type of questions, stored in a [`PromptCode`].
///
/// `decode(encode(p)) == Some(p)` must hold for every value; `decode` returns `None` for
/// codes the type never produces.
pub trait PromptKind: Copy {
    /// The stored form.
    fn encode(self) -> PromptCode;
    /// Back from the stored form.
    fn decode(code: PromptCode) -> Option<Self>;
}

/// The identity, for callers whose questions are numbers anyway (the script host passes
/// a script's own `(code, arg)` through it).
impl PromptKind for PromptCode {
    fn encode(self) -> PromptCode {
        self
    }
    fn decode(code: PromptCode) -> Option<Self> {
        Some(code)
    }
}

/// A decision offered to one player on behalf of an expansion.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Prompt {
    /// Who decides.
    pub player: PlayerId,
    /// The expansion that asks, lists the actions and handles the answer.
    pub owner: ExpansionIndex,
    /// What is asked, in the owner's [`PromptKind`].
    pub(crate) code: PromptCode,
    /// Kind + 1 of the tile whose placements core offers instead of asking the owner for a
    /// list ([`crate::Ctx::prompt_placements`]); 2 bytes, so a prompt stays 12.
    pub(crate) places: Option<std::num::NonZeroU16>,
}

/// As derived before `places` was added: the question is the owner's code, and texts that
/// show prompts stay as they were.
impl std::fmt::Debug for Prompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prompt")
            .field("player", &self.player)
            .field("owner", &self.owner)
            .field("code", &self.code)
            .finish()
    }
}

impl Prompt {
    /// What is asked, as the owner's type; an error names a code the type does not know.
    pub fn decode<P: PromptKind>(&self) -> HookResult<P> {
        P::decode(self.code).ok_or_else(|| {
            HookFailure(format!(
                "prompt code {}/{} is not one of this expansion's prompts",
                self.code.tag, self.code.arg
            ))
        })
    }

    /// The stored form (for tools that show or compare prompts).
    pub fn code(&self) -> PromptCode {
        self.code
    }

    /// The tile kind whose placements this prompt offers, if it was queued with
    /// [`crate::Ctx::prompt_placements`].
    pub fn placements_of(&self) -> Option<crate::tile::TileKindId> {
        self.places.map(|k| crate::tile::TileKindId(k.get() - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tile a placements prompt carries fits the padding of the code: a prompt (and so
    /// a decision) is no larger than before it.
    #[test]
    fn a_prompt_stays_twelve_bytes() {
        assert_eq!(std::mem::size_of::<Prompt>(), 12);
    }
}
