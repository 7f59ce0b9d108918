//! Rule options: declared with a type and a default, validated before a game starts.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The type and range of an option.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OptionType {
    /// One of these values.
    Choice(Vec<String>),
    /// `true` or `false`.
    Bool,
    /// An integer in `min..=max`.
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
}

/// A value of an option.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OptionValue {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string (choices).
    Str(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Str(s) => write!(f, "{s}"),
        }
    }
}

impl OptionValue {
    /// Parses command-line text for an option of type `ty`.
    pub fn parse(ty: &OptionType, text: &str) -> Option<OptionValue> {
        match ty {
            OptionType::Bool => match text {
                "true" | "on" | "yes" => Some(OptionValue::Bool(true)),
                "false" | "off" | "no" => Some(OptionValue::Bool(false)),
                _ => None,
            },
            OptionType::Int { .. } => text.parse().ok().map(OptionValue::Int),
            OptionType::Choice(_) => Some(OptionValue::Str(text.to_string())),
        }
    }

    /// Whether the value fits the type.
    pub fn fits(&self, ty: &OptionType) -> bool {
        match (self, ty) {
            (OptionValue::Bool(_), OptionType::Bool) => true,
            (OptionValue::Int(i), OptionType::Int { min, max }) => (min..=max).contains(&i),
            (OptionValue::Str(s), OptionType::Choice(c)) => c.contains(s),
            _ => false,
        }
    }
}

/// A declared option.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptionDef {
    /// Full key: base options are bare (`farmScoring`), expansion options are
    /// `<expansion>.<name>` (`count.countMove`).
    pub key: String,
    /// Type and range.
    pub ty: OptionType,
    /// Default value.
    pub default: OptionValue,
    /// One line for users.
    pub description: String,
}

impl OptionDef {
    /// A choice option; the first value is the default.
    pub fn choice(key: &str, values: &[&str], description: &str) -> OptionDef {
        OptionDef {
            key: key.into(),
            ty: OptionType::Choice(values.iter().map(|v| v.to_string()).collect()),
            default: OptionValue::Str(values[0].into()),
            description: description.into(),
        }
    }

    /// A boolean option.
    pub fn flag(key: &str, default: bool, description: &str) -> OptionDef {
        OptionDef {
            key: key.into(),
            ty: OptionType::Bool,
            default: OptionValue::Bool(default),
            description: description.into(),
        }
    }
}

/// Chosen option values (every declared option has one once a ruleset is built).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options(pub BTreeMap<String, OptionValue>);

impl Options {
    /// The value of an option.
    pub fn get(&self, key: &str) -> Option<&OptionValue> {
        self.0.get(key)
    }

    /// A string option's value, or `""`.
    pub fn str(&self, key: &str) -> &str {
        match self.0.get(key) {
            Some(OptionValue::Str(s)) => s,
            _ => "",
        }
    }

    /// A boolean option's value, or `false`.
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.0.get(key), Some(OptionValue::Bool(true)))
    }

    /// An integer option's value, or 0.
    pub fn int(&self, key: &str) -> i64 {
        match self.0.get(key) {
            Some(OptionValue::Int(i)) => *i,
            _ => 0,
        }
    }
}
