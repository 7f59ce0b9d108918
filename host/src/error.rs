//! Host errors: one enum, every variant a one-line message for the CLI.

use carcassonne_core::{ActionError, GameError, SetupError};
use std::path::PathBuf;

/// Anything that can go wrong in the host.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A TOML file is malformed (the message carries line and column).
    #[error("{path}: {message}")]
    Toml {
        /// The file.
        path: String,
        /// Parser message with position.
        message: String,
    },
    /// A JSON file is malformed.
    #[error("{path}: line {line}, column {column}: {message}")]
    Json {
        /// The file.
        path: String,
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The ruleset could not be built.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The game could not be created.
    #[error(transparent)]
    Game(#[from] GameError),
    /// A record does not replay.
    #[error("{path}: action {index}: {message}")]
    Replay {
        /// The record.
        path: String,
        /// Index of the failing action (0-based).
        index: usize,
        /// What went wrong.
        message: String,
    },
    /// A JCloisterZone save cannot be mapped to our rules (sets, elements, rules, start).
    #[error("{path}: {message}")]
    Jcz {
        /// The save.
        path: String,
        /// What is not supported or wrong.
        message: String,
    },
    /// A message of a JCloisterZone save cannot be replayed.
    #[error("{path}: message {index} ({kind}): {message}")]
    JczMessage {
        /// The save.
        path: String,
        /// Index of the message in `replay` (0-based).
        index: usize,
        /// Its type (`PLACE_TILE`, …).
        kind: String,
        /// What went wrong.
        message: String,
    },
    /// An action was refused during simulation.
    #[error(transparent)]
    Action(#[from] ActionError),
    /// A fan expansion's script failed to compile or to run.
    #[error(transparent)]
    Script(#[from] crate::script::ScriptError),
    /// Wrong command-line input.
    #[error("{0}")]
    Usage(String),
    /// An image could not be made.
    #[error("{path}: cannot render: {message}")]
    Render {
        /// The output file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// Parses JSON into `T`; an error names `origin`, the line and column, and the JSON path of
/// the offending field (`` `players[0].name`: invalid type … ``).
pub fn parse_json<T: serde::de::DeserializeOwned>(
    text: &str,
    origin: &str,
) -> Result<T, HostError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        let m = inner.to_string();
        // serde_json appends " at line L column C"; the position is reported separately.
        let m = m
            .rfind(" at line ")
            .map_or(m.clone(), |i| m[..i].to_string());
        HostError::Json {
            path: origin.to_string(),
            line: inner.line(),
            column: inner.column(),
            message: if field == "." {
                m
            } else {
                format!("`{field}`: {m}")
            },
        }
    })
}

/// Whether `c` would not print as itself on one line: control characters (C0, DEL, C1)
/// and the invisible format characters that can reorder or hide text (soft hyphen,
/// zero-width characters, bidirectional controls, line and paragraph separators, byte
/// order mark, interlinear annotations, tags).
fn non_printing(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

/// Makes a message safe to print as one line: control and other non-printing characters
/// from the input (a newline in a record, the CR of a CRLF file, a NUL, an escape sequence)
/// become visible escapes (`\n`, `\r`, `\t`, `\0`, `\u{1b}`). Everything else, backslashes
/// included, is kept as it is. Used wherever the program prints an error or a problem line.
pub fn escape_line(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(non_printing) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if non_printing(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::escape_line;

    #[test]
    fn control_characters_become_visible() {
        assert_eq!(escape_line("plain text, é ü ✓"), "plain text, é ü ✓");
        assert_eq!(escape_line("a\nb\r\nc\td\0e"), "a\\nb\\r\\nc\\td\\0e");
        assert_eq!(escape_line("\u{1b}[31mred"), "\\u{1b}[31mred");
        assert_eq!(escape_line("x\u{7f}\u{85}y"), "x\\u{7f}\\u{85}y");
        assert_eq!(
            escape_line("a\u{202e}b\u{2028}c\u{200b}"),
            "a\\u{202e}b\\u{2028}c\\u{200b}"
        );
        assert_eq!(escape_line("C:\\path\\n"), "C:\\path\\n");
        assert!(!escape_line("\u{0}\u{1}\u{2}\u{1f}\u{9f}").contains(|c: char| c.is_control()));
    }
}
