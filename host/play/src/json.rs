//! JSON files: parse errors that name the file, the line and column, and the field.

/// A JSON file is malformed, or not what it should be (`origin: line L, column C: …`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: line {line}, column {column}: {message}")]
pub struct JsonError {
    /// The file.
    pub path: String,
    /// Line (1-based).
    pub line: usize,
    /// Column (1-based).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses JSON into `T`; an error names `origin`, the line and column, and the JSON path of
/// the offending field (`` `players[0].name`: invalid type … ``).
pub fn parse_json<T: serde::de::DeserializeOwned>(
    text: &str,
    origin: &str,
) -> Result<T, JsonError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        let m = inner.to_string();
        // serde_json appends " at line L column C"; the position is reported separately.
        let m = m
            .rfind(" at line ")
            .map_or(m.clone(), |i| m[..i].to_string());
        JsonError {
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
