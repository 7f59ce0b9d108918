//! A small JSON tree ([`Json`]) that keeps number literals as written, with its parser and writer.

use std::fmt::Write as _;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number literal, as written.
    Num(String),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object; duplicate keys are allowed (and written).
    Obj(Vec<(String, Json)>),
    /// Text written as is (malformed literals, lone surrogate escapes, `NaN`).
    Raw(String),
}

struct JsonParser<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\n' | b'\r' | b'\t') {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.b.get(self.i) == Some(&c)).then(|| self.i += 1)
    }

    fn value(&mut self) -> Option<Json> {
        self.depth += 1;
        if self.depth > 256 {
            return None;
        }
        self.ws();
        let v = match *self.b.get(self.i)? {
            b'n' => self.word("null", Json::Null),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'"' => self.string().map(Json::Str),
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']').is_none() {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b',').is_some() {
                            continue;
                        }
                        self.eat(b']')?;
                        break;
                    }
                }
                Some(Json::Arr(items))
            }
            b'{' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b'}').is_none() {
                    loop {
                        self.ws();
                        let k = self.string()?;
                        self.eat(b':')?;
                        items.push((k, self.value()?));
                        if self.eat(b',').is_some() {
                            continue;
                        }
                        self.eat(b'}')?;
                        break;
                    }
                }
                Some(Json::Obj(items))
            }
            b'-' | b'0'..=b'9' => {
                let s = self.i;
                while self.i < self.b.len()
                    && matches!(
                        self.b[self.i],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.i += 1;
                }
                Some(Json::Num(
                    String::from_utf8_lossy(&self.b[s..self.i]).into_owned(),
                ))
            }
            _ => None,
        };
        self.depth -= 1;
        v
    }

    fn word(&mut self, w: &str, v: Json) -> Option<Json> {
        self.b[self.i..].starts_with(w.as_bytes()).then(|| {
            self.i += w.len();
            v
        })
    }

    fn string(&mut self) -> Option<String> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = *self.b.get(self.i)?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let h = std::str::from_utf8(self.b.get(self.i..self.i + 4)?).ok()?;
                            let n = u32::from_str_radix(h, 16).ok()?;
                            self.i += 4;
                            let ch = char::from_u32(n).unwrap_or('\u{fffd}');
                            out.extend_from_slice(ch.to_string().as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        Some(String::from_utf8_lossy(&out).into_owned())
    }
}

impl Json {
    /// Parses JSON text (lenient about number literals); `None` if it is no JSON.
    pub fn parse(text: &str) -> Option<Json> {
        let mut p = JsonParser {
            b: text.as_bytes(),
            i: 0,
            depth: 0,
        };
        let v = p.value()?;
        p.ws();
        (p.i == p.b.len()).then_some(v)
    }

    /// Writes the value as JSON text (indented when `pretty`).
    pub fn write(&self, pretty: bool) -> String {
        let mut s = String::new();
        self.write_to(&mut s, pretty, 0);
        s
    }

    fn write_to(&self, s: &mut String, pretty: bool, indent: usize) {
        let nl = |s: &mut String, n: usize| {
            if pretty {
                s.push('\n');
                for _ in 0..n.min(64) {
                    s.push_str("  ");
                }
            }
        };
        match self {
            Json::Null => s.push_str("null"),
            Json::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) | Json::Raw(n) => s.push_str(n),
            Json::Str(t) => write_json_string(s, t),
            Json::Arr(items) => {
                s.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    nl(s, indent + 1);
                    v.write_to(s, pretty, indent + 1);
                }
                if !items.is_empty() {
                    nl(s, indent);
                }
                s.push(']');
            }
            Json::Obj(items) => {
                s.push('{');
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    nl(s, indent + 1);
                    write_json_string(s, k);
                    s.push(':');
                    if pretty {
                        s.push(' ');
                    }
                    v.write_to(s, pretty, indent + 1);
                }
                if !items.is_empty() {
                    nl(s, indent);
                }
                s.push('}');
            }
        }
    }

    pub(super) fn count(&self) -> usize {
        1 + match self {
            Json::Arr(a) => a.iter().map(Json::count).sum(),
            Json::Obj(o) => o.iter().map(|(_, v)| v.count()).sum(),
            _ => 0,
        }
    }

    pub(super) fn nth(&self, k: &mut usize) -> Option<&Json> {
        if *k == 0 {
            return Some(self);
        }
        *k -= 1;
        match self {
            Json::Arr(a) => a.iter().find_map(|c| c.nth(k)),
            Json::Obj(o) => o.iter().find_map(|(_, c)| c.nth(k)),
            _ => None,
        }
    }

    pub(super) fn nth_mut(&mut self, k: &mut usize) -> Option<&mut Json> {
        if *k == 0 {
            return Some(self);
        }
        *k -= 1;
        match self {
            Json::Arr(a) => {
                for c in a.iter_mut() {
                    if let Some(r) = c.nth_mut(k) {
                        return Some(r);
                    }
                }
                None
            }
            Json::Obj(o) => {
                for (_, c) in o.iter_mut() {
                    if let Some(r) = c.nth_mut(k) {
                        return Some(r);
                    }
                }
                None
            }
            _ => None,
        }
    }

    pub(super) fn collect_words(&self, keys: &mut Vec<String>) {
        match self {
            Json::Str(s) if s.len() <= 40 => keys.push(s.clone()),
            Json::Arr(a) => a.iter().for_each(|c| c.collect_words(keys)),
            Json::Obj(o) => {
                for (k, v) in o {
                    keys.push(k.clone());
                    v.collect_words(keys);
                }
            }
            _ => {}
        }
    }
}

pub(super) fn write_json_string(s: &mut String, t: &str) {
    s.push('"');
    for c in t.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}
