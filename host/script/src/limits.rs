//! Limits checked when a script is loaded, before Rhai compiles it.
//!
//! Rhai's parser does work that grows with the *square* of some constructs of one
//! function: the arms of a `switch` (ranges included), the `let`s and `const`s of one
//! scope, the parameters of a function, the variables a function reads. Measured on the
//! release build, a never-called function with a 100,000-arm `switch` (1.5 MiB) took
//! 42 s to compile and 40,000 `let`s 6 s; the engine's own limits (expression depth,
//! functions, literal sizes) do not stop either. So before compiling, the host
//! checks:
//!
//! - the script's size in bytes ([`LoadLimits::script_bytes`]), before it is even read
//!   whole;
//! - its number of **tokens** (names, keywords, numbers, strings, operators, brackets;
//!   comments and white space do not count), per function and for the code outside
//!   functions ([`LoadLimits::function_tokens`]) and for the whole script
//!   ([`LoadLimits::script_tokens`]).
//!
//! Bounding the tokens of one function bounds every quadratic cost of the parser (they
//! are all per function), and the total bounds how many such functions a script has:
//! the worst script that passes compiles in about 0.3 s on the release build. The token
//! scan itself is one linear pass that follows Rhai's lexical rules (nested block
//! comments, `"…"` and `'…'` with escapes and doubled quotes, raw `#"…"#` strings, and
//! back-quoted strings whose `${…}` parts are code and are counted).

use carcassonne_files::fsio::human_size;

/// The load-time limits of a script (the per-call limits are [`super::Limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadLimits {
    /// Bytes in the script file.
    pub script_bytes: usize,
    /// Tokens in one function (and in the code outside functions).
    pub function_tokens: usize,
    /// Tokens in the whole script.
    pub script_tokens: usize,
}

/// The limits every script is loaded under.
pub const LOAD_LIMITS: LoadLimits = LoadLimits {
    script_bytes: 256 * 1024,
    function_tokens: 10_000,
    script_tokens: 50_000,
};

/// A part of a script whose tokens are counted: a function, or the code outside them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The function's name; `None` for the code outside functions.
    pub function: Option<String>,
    /// Where it starts (`fn` keyword, or the first token outside functions), 1-based.
    pub line: usize,
    /// Column (1-based, in bytes).
    pub column: usize,
    /// Its tokens.
    pub tokens: usize,
}

/// What the token scan found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenCount {
    /// Every function in source order; the code outside functions, if any, is one more
    /// region (at its first token).
    pub regions: Vec<Region>,
    /// Tokens in the whole script.
    pub total: usize,
    /// Where the whole script passed [`LoadLimits::script_tokens`] (line, column).
    pub total_exceeded_at: Option<(usize, usize)>,
}

/// A load limit a script is over: where, and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitExceeded {
    /// Line (1-based).
    pub line: usize,
    /// Column (1-based).
    pub column: usize,
    /// What is over which limit.
    pub message: String,
}

/// The message for a script of `bytes` bytes over [`LoadLimits::script_bytes`].
pub fn too_large(bytes: u64, limits: &LoadLimits) -> String {
    let size = human_size(bytes);
    let exact = if size.ends_with(" bytes") {
        String::new()
    } else {
        format!(" ({bytes} bytes)")
    };
    format!(
        "is {size}{exact}, more than the {} a script may have",
        human_size(limits.script_bytes as u64)
    )
}

/// Checks a script's text against `limits` (its size too, for text that did not come
/// from a file): the first function over the limit, else the code outside functions,
/// else the whole script.
pub fn check(text: &str, limits: &LoadLimits) -> Result<TokenCount, LimitExceeded> {
    if text.len() > limits.script_bytes {
        return Err(LimitExceeded {
            line: 1,
            column: 1,
            message: format!("the script {}", too_large(text.len() as u64, limits)),
        });
    }
    let count = count_tokens(text, limits.script_tokens);
    if let Some(r) = count
        .regions
        .iter()
        .find(|r| r.tokens > limits.function_tokens)
    {
        let message = match &r.function {
            Some(name) => format!(
                "function `{name}` (line {}) has {} tokens, more than the {} one function may have; split it into smaller functions",
                r.line, r.tokens, limits.function_tokens
            ),
            None => format!(
                "the code outside functions has {} tokens, more than the {} it may have",
                r.tokens, limits.function_tokens
            ),
        };
        return Err(LimitExceeded {
            line: r.line,
            column: r.column,
            message,
        });
    }
    if let Some((line, column)) = count.total_exceeded_at {
        return Err(LimitExceeded {
            line,
            column,
            message: format!(
                "the script has {} tokens, more than the {} a script may have (counted up to here)",
                count.total, limits.script_tokens
            ),
        });
    }
    Ok(count)
}

/// Operators of more than one character, longest first (one token each, as in Rhai).
const OPERATORS: &[&str] = &[
    "**=", "<<=", ">>=", "...", "..=", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=",
    "/=", "%=", "&=", "|=", "^=", "::", "..", "->", "?.", "?[", "??", "**", "<<", ">>", "()", "++",
    "--",
];

/// Counts the tokens of a script, per function and in all (see the module comment);
/// `total_limit` only decides where [`TokenCount::total_exceeded_at`] is.
pub fn count_tokens(text: &str, total_limit: usize) -> TokenCount {
    Scanner {
        b: text.as_bytes(),
        i: 0,
        line: 1,
        line_start: 0,
        out: TokenCount::default(),
        total_limit,
        current: None,
        outside: None,
    }
    .run()
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    line: usize,
    line_start: usize,
    out: TokenCount,
    total_limit: usize,
    /// The region tokens go to now (index into `out.regions`), `None` = outside.
    current: Option<usize>,
    /// The region of the code outside functions, once it has a token.
    outside: Option<usize>,
}

impl Scanner<'_> {
    fn peek(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    fn newline(&mut self) {
        self.line += 1;
        self.line_start = self.i + 1;
    }

    /// Counts one token starting at byte `start`.
    fn token(&mut self, start: usize) {
        let column = start.saturating_sub(self.line_start) + 1;
        let region = match self.current {
            Some(r) => r,
            None => *self.outside.get_or_insert_with(|| {
                self.out.regions.push(Region {
                    function: None,
                    line: self.line,
                    column,
                    tokens: 0,
                });
                self.out.regions.len() - 1
            }),
        };
        self.out.regions[region].tokens += 1;
        self.out.total += 1;
        if self.out.total > self.total_limit && self.out.total_exceeded_at.is_none() {
            self.out.total_exceeded_at = Some((self.line, column));
        }
    }

    fn run(mut self) -> TokenCount {
        // Brace depth of the code (`{`, `#{` open; `}` closes); the depths at which the
        // `${` of back-quoted strings were opened; whether the current function's body
        // has been opened.
        let mut depth = 0usize;
        let mut interpolations: Vec<usize> = Vec::new();
        let mut body_open = false;
        while self.i < self.b.len() {
            let c = self.b[self.i];
            let start = self.i;
            match c {
                b'\n' => {
                    self.newline();
                    self.i += 1;
                }
                c if c.is_ascii_whitespace() => self.i += 1,
                b'/' if self.peek(1) == b'/' => {
                    while self.i < self.b.len() && self.b[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'"' | b'\'' => {
                    self.token(start);
                    self.quoted(c);
                }
                b'`' => {
                    self.token(start);
                    self.i += 1;
                    if self.back_quoted() {
                        interpolations.push(depth);
                        depth += 1;
                    }
                }
                b'#' if matches!(self.peek(1), b'"' | b'#') => {
                    self.token(start);
                    self.raw_string();
                }
                b'#' if self.peek(1) == b'{' => {
                    self.token(start);
                    self.i += 2;
                    depth += 1;
                }
                b'{' => {
                    self.token(start);
                    self.i += 1;
                    if depth == 0 && self.current.is_some() {
                        body_open = true;
                    }
                    depth += 1;
                }
                b'}' => {
                    self.token(start);
                    self.i += 1;
                    depth = depth.saturating_sub(1);
                    if interpolations.last() == Some(&depth) {
                        interpolations.pop();
                        if self.back_quoted() {
                            interpolations.push(depth);
                            depth += 1;
                        }
                    } else if depth == 0 && body_open {
                        body_open = false;
                        self.current = None;
                    }
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    while self.i < self.b.len()
                        && (self.b[self.i].is_ascii_alphanumeric() || self.b[self.i] == b'_')
                    {
                        self.i += 1;
                    }
                    let word = &self.b[start..self.i];
                    if word == b"fn" && depth == 0 && interpolations.is_empty() {
                        // A new function: it owns its tokens up to its body's `}`.
                        let column = start - self.line_start + 1;
                        self.out.regions.push(Region {
                            function: Some(self.next_word().unwrap_or_else(|| "?".into())),
                            line: self.line,
                            column,
                            tokens: 0,
                        });
                        self.current = Some(self.out.regions.len() - 1);
                        body_open = false;
                    }
                    self.token(start);
                }
                c if c.is_ascii_digit() => {
                    while self.i < self.b.len()
                        && (self.b[self.i].is_ascii_alphanumeric() || self.b[self.i] == b'_')
                    {
                        self.i += 1;
                    }
                    self.token(start);
                }
                c if c >= 0x80 => {
                    // One token per non-ASCII character (Rhai rejects them outside
                    // strings and comments anyway).
                    self.i += 1;
                    while self.i < self.b.len() && (0x80..0xC0).contains(&self.b[self.i]) {
                        self.i += 1;
                    }
                    self.token(start);
                }
                _ => {
                    let rest = &self.b[self.i..];
                    let len = OPERATORS
                        .iter()
                        .find(|op| rest.starts_with(op.as_bytes()))
                        .map_or(1, |op| op.len());
                    self.i += len;
                    self.token(start);
                }
            }
        }
        self.out
    }

    /// The name after `fn` (without consuming anything), if there is one.
    fn next_word(&self) -> Option<String> {
        let mut j = self.i;
        while j < self.b.len() && self.b[j].is_ascii_whitespace() {
            j += 1;
        }
        let s = j;
        while j < self.b.len() && (self.b[j].is_ascii_alphanumeric() || self.b[j] == b'_') {
            j += 1;
        }
        (j > s).then(|| String::from_utf8_lossy(&self.b[s..j]).into_owned())
    }

    /// `/* … */`, nested as in Rhai.
    fn block_comment(&mut self) {
        let mut level = 0usize;
        while self.i < self.b.len() {
            match (self.b[self.i], self.peek(1)) {
                (b'/', b'*') => {
                    level += 1;
                    self.i += 2;
                }
                (b'*', b'/') => {
                    level -= 1;
                    self.i += 2;
                    if level == 0 {
                        return;
                    }
                }
                (b'\n', _) => {
                    self.newline();
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
    }

    /// A `"…"` string or a `'…'` character at `self.i`: `\` escapes the next character
    /// (a line break too: a continued line), a doubled quote is a quote, an unescaped
    /// line break ends it (Rhai stops there with an error).
    fn quoted(&mut self, quote: u8) {
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => {
                    if self.peek(1) == b'\n' {
                        self.i += 1;
                        self.newline();
                    }
                    self.i += 2;
                }
                b'\n' => return,
                q if q == quote => {
                    if self.peek(1) == quote {
                        self.i += 2;
                    } else {
                        self.i += 1;
                        return;
                    }
                }
                _ => self.i += 1,
            }
        }
    }

    /// The text of a back-quoted string from `self.i`, up to its closing quote (false) or
    /// to a `${` that opens code (true, `self.i` after the `{`). No escapes but a doubled
    /// back quote and `\$`.
    fn back_quoted(&mut self) -> bool {
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'`' if self.peek(1) == b'`' => self.i += 2,
                b'`' => {
                    self.i += 1;
                    return false;
                }
                b'\\' if self.peek(1) == b'$' => self.i += 2,
                b'$' if self.peek(1) == b'{' => {
                    self.i += 2;
                    return true;
                }
                b'\n' => {
                    self.newline();
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
        false
    }

    /// `#"…"#`, `##"…"##`, …: up to a quote followed by as many `#`.
    fn raw_string(&mut self) {
        let mut hashes = 0;
        while self.peek(0) == b'#' {
            hashes += 1;
            self.i += 1;
        }
        if self.peek(0) != b'"' {
            return; // not a raw string: Rhai stops here with an error
        }
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'"' if self.b[self.i + 1..]
                    .get(..hashes)
                    .is_some_and(|s| s.iter().all(|&h| h == b'#')) =>
                {
                    self.i += 1 + hashes;
                    return;
                }
                b'\n' => {
                    self.newline();
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regions(text: &str) -> Vec<(Option<String>, usize, usize)> {
        count_tokens(text, usize::MAX)
            .regions
            .into_iter()
            .map(|r| (r.function, r.line, r.tokens))
            .collect()
    }

    #[test]
    fn functions_and_outside_code_are_counted_apart() {
        let text = "// a comment { fn x\nfn setup() {\n    let a = 1; // }\n}\n\nprivate fn f(x, y) { x + y }\nlet z = 2;\n";
        assert_eq!(
            regions(text),
            vec![
                (Some("setup".into()), 2, 10),
                (None, 6, 6),
                (Some("f".into()), 6, 12),
            ]
        );
    }

    #[test]
    fn strings_comments_and_interpolation() {
        // Braces in strings, characters and comments do not count; `${…}` is code.
        let text = "fn f(x) {\n  let s = \"}\\\"}\"; let c = '}'; /* } /* nested } */ } */\n  let t = `a}${ x + #{k: 1}.k }b``}${`${x}`}`; let r = ##\"}\"#}\"##;\n}\nfn g() { 1 }\n";
        let r = regions(text);
        assert_eq!(r.len(), 2, "{r:?}");
        assert_eq!(r[1], (Some("g".into()), 5, 6));
        // f: `fn f ( x ) {` 6 | `let s = "…" ; let c = '…' ;` 10 | `let t = \`…` 4, the
        // code `x + #{ k : 1 } . k` 9, its `}` 1, `\`…` x }` of the inner string 3, the `}`
        // ending the outer `${` 1, `;` 1, `let r = ##"…"## ;` 5 | `}` 1
        assert_eq!(r[0].2, 6 + 10 + (4 + 9 + 1 + 3 + 1 + 1 + 5) + 1);
    }

    #[test]
    fn the_first_function_over_the_limit_is_named_with_its_line() {
        let limits = LoadLimits {
            script_bytes: 1000,
            function_tokens: 20,
            script_tokens: 100,
        };
        let body: String = (0..10).map(|i| format!("{i} => {i}, ")).collect();
        let text = format!("fn setup() {{ }}\n\nfn big(x) {{ switch x {{ {body} }} }}\n");
        let e = check(&text, &limits).unwrap_err();
        assert_eq!((e.line, e.column), (3, 1));
        assert!(
            e.message
                .starts_with("function `big` (line 3) has 51 tokens, more than the 20"),
            "{}",
            e.message
        );
        let many: String = (0..30).map(|i| format!("fn f{i}() {{ 1 }}\n")).collect();
        let e = check(&many, &limits).unwrap_err();
        assert_eq!(e.line, 17, "{}", e.message);
        assert!(e
            .message
            .starts_with("the script has 180 tokens, more than the 100"));
        let e = check(&"x".repeat(1001), &limits).unwrap_err();
        assert_eq!(
            e.message,
            "the script is 1001 bytes, more than the 1000 bytes a script may have"
        );
    }
}
