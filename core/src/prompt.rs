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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// Who decides.
    pub player: PlayerId,
    /// The expansion that asks, lists the actions and handles the answer.
    pub owner: ExpansionIndex,
    /// What is asked, in the owner's [`PromptKind`].
    pub(crate) code: PromptCode,
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
}
