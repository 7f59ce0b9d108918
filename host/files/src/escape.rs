//! Printing messages made from input on one line.

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

/// The longest line [`escape_line`] returns, in characters: a parser that quotes a whole
/// input line (a 200 KB TOML line) must not flood the terminal.
pub const MAX_LINE_CHARS: usize = 4000;

/// Makes a message safe to print as one line: control and other non-printing characters
/// from the input (a newline in a record, the CR of a CRLF file, a NUL, an escape sequence)
/// become visible escapes (`\n`, `\r`, `\t`, `\0`, `\u{1b}`), and a line longer than
/// [`MAX_LINE_CHARS`] keeps its start and its end (where file, position and reason are)
/// around a note of what was left out. Everything else, backslashes included, is kept as
/// it is. Used wherever the program prints an error or a problem line.
pub fn escape_line(s: &str) -> std::borrow::Cow<'_, str> {
    let escaped = escape_chars(s);
    let n = escaped.chars().count();
    if n <= MAX_LINE_CHARS {
        return escaped;
    }
    let (head, tail) = (MAX_LINE_CHARS * 3 / 4, MAX_LINE_CHARS / 5);
    let head_end = escaped
        .char_indices()
        .nth(head)
        .map_or(escaped.len(), |(i, _)| i);
    let tail_start = escaped
        .char_indices()
        .nth(n - tail)
        .map_or(escaped.len(), |(i, _)| i);
    std::borrow::Cow::Owned(format!(
        "{} … ({} characters left out) … {}",
        &escaped[..head_end],
        n - head - tail,
        &escaped[tail_start..]
    ))
}

fn escape_chars(s: &str) -> std::borrow::Cow<'_, str> {
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
    fn a_very_long_line_keeps_both_ends() {
        let long = format!("file.toml:3: {} reason at the end", "[".repeat(200_000));
        let out = escape_line(&long);
        assert!(
            out.chars().count() < super::MAX_LINE_CHARS + 60,
            "{}",
            out.len()
        );
        assert!(out.starts_with("file.toml:3: ["));
        assert!(out.ends_with("reason at the end"));
        assert!(out.contains("characters left out"));
        // Multi-byte characters are cut on character boundaries.
        let wide = "é".repeat(10_000);
        assert!(escape_line(&wide).contains("left out"));
    }

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
