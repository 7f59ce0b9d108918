//! Structure-aware mutations of TOML inputs (manifests, tile files).

use super::extreme_values::{extreme_string, similar_word};
use super::rng::Rng;

pub(super) fn toml_count(v: &toml::Value) -> usize {
    1 + match v {
        toml::Value::Array(a) => a.iter().map(toml_count).sum(),
        toml::Value::Table(t) => t.values().map(toml_count).sum(),
        _ => 0,
    }
}

pub(super) fn toml_nth(v: &toml::Value, k: &mut usize) -> Option<toml::Value> {
    if *k == 0 {
        return Some(v.clone());
    }
    *k -= 1;
    match v {
        toml::Value::Array(a) => a.iter().find_map(|c| toml_nth(c, k)),
        toml::Value::Table(t) => t.values().find_map(|c| toml_nth(c, k)),
        _ => None,
    }
}

pub(super) fn toml_nth_mut<'a>(
    v: &'a mut toml::Value,
    k: &mut usize,
) -> Option<&'a mut toml::Value> {
    if *k == 0 {
        return Some(v);
    }
    *k -= 1;
    match v {
        toml::Value::Array(a) => {
            for c in a.iter_mut() {
                if let Some(r) = toml_nth_mut(c, k) {
                    return Some(r);
                }
            }
            None
        }
        toml::Value::Table(t) => {
            for (_, c) in t.iter_mut() {
                if let Some(r) = toml_nth_mut(c, k) {
                    return Some(r);
                }
            }
            None
        }
        _ => None,
    }
}

pub(super) fn toml_words(v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::String(s) if s.len() <= 40 => out.push(s.clone()),
        toml::Value::Array(a) => a.iter().for_each(|c| toml_words(c, out)),
        toml::Value::Table(t) => {
            for (k, c) in t {
                out.push(k.clone());
                toml_words(c, out);
            }
        }
        _ => {}
    }
}

pub(super) fn extreme_toml(
    rng: &mut Rng,
    like: &toml::Value,
    words: &[String],
    same_kind: bool,
) -> toml::Value {
    use toml::Value as V;
    let kind = match (like, same_kind || rng.chance(2, 3)) {
        (V::Integer(_), true) => 0,
        (V::String(_), true) => 1,
        (V::Boolean(_), true) => 3,
        _ => rng.below(8),
    };
    match kind {
        0 if rng.chance(1, 2) => V::Integer(rng.below(140) as i64 - 20),
        0 => V::Integer(*rng.pick(&[
            0,
            -1,
            1,
            2,
            8,
            9,
            255,
            256,
            511,
            512,
            513,
            -513,
            65535,
            65536,
            i32::MAX as i64,
            i32::MIN as i64,
            u32::MAX as i64,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ])),
        1 if !words.is_empty() && (same_kind || rng.chance(1, 2)) && rng.chance(4, 5) => {
            V::String(similar_word(rng, words, like.as_str().unwrap_or("")))
        }
        1 => V::String(extreme_string(rng)),
        2 => V::Float(*rng.pick(&[
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.5,
            1e308,
            2.0,
        ])),
        3 => V::Boolean(rng.chance(1, 2)),
        4 => V::Datetime("1979-05-27T07:32:00Z".parse().expect("a TOML datetime")),
        5 => V::Array(Vec::new()),
        6 => V::Table(toml::Table::new()),
        _ => {
            let depth = 1 + rng.small(120);
            let mut v = V::Integer(1);
            for _ in 0..depth {
                v = V::Array(vec![v]);
            }
            v
        }
    }
}

pub(super) fn mutate_toml(
    rng: &mut Rng,
    doc: &mut toml::Value,
    donors: &[toml::Value],
    words: &[String],
) -> &'static str {
    use toml::Value as V;
    let total = toml_count(doc);
    // Never the root itself (it must stay a table).
    let mut k = 1 + rng.below(total.saturating_sub(1).max(1));
    if total == 1 {
        k = 0;
    }
    let donor = if !donors.is_empty() && rng.chance(1, 2) {
        let d = rng.pick(donors);
        let mut i = rng.below(toml_count(d));
        toml_nth(d, &mut i)
    } else {
        let mut i = rng.below(total);
        toml_nth(doc, &mut i)
    };
    let Some(node) = toml_nth_mut(doc, &mut k) else {
        return "toml:none";
    };
    if k == 0 && total == 1 {
        if let V::Table(t) = node {
            t.insert(
                rng.pick(words.get(..1).unwrap_or(&["x".into()])).clone(),
                V::Integer(1),
            );
        }
        return "toml:insert-key";
    }
    let op = match rng.below(100) {
        0..=19 => 2,
        20..=41 => 0,
        42..=53 => 3,
        54..=65 => 4,
        66..=75 => 5,
        76..=81 => 6,
        82..=89 => 1,
        90..=94 => 7,
        _ => 8,
    };
    match op {
        0 => {
            *node = extreme_toml(rng, node, words, true);
            "toml:same-kind-value"
        }
        1 => {
            *node = extreme_toml(rng, node, words, false);
            "toml:extreme-value"
        }
        2 => match node {
            V::Integer(i) => {
                *i = match rng.below(5) {
                    0 => i.wrapping_add(1),
                    1 => i.wrapping_sub(1),
                    2 => i.wrapping_neg(),
                    3 => i.wrapping_mul(1000),
                    _ => 0,
                };
                "toml:tweak-number"
            }
            _ => {
                *node = extreme_toml(rng, node, words, false);
                "toml:extreme-value"
            }
        },
        3 => match node {
            V::Array(a) if !a.is_empty() => {
                a.remove(rng.below(a.len()));
                "toml:delete-item"
            }
            V::Table(t) if !t.is_empty() => {
                let key = t.keys().nth(rng.below(t.len())).cloned().expect("in range");
                t.remove(&key);
                "toml:delete-key"
            }
            _ => {
                *node = V::String(String::new());
                "toml:empty"
            }
        },
        4 => match node {
            V::Array(a) if !a.is_empty() => {
                rng.duplicate_item(a);
                "toml:duplicate-item"
            }
            V::Table(t) if !t.is_empty() => {
                // A duplicate key cannot be represented: copy an entry under another name.
                let (key, v) = t
                    .iter()
                    .nth(rng.below(t.len()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .expect("in range");
                let new_key = if !words.is_empty() && rng.chance(1, 2) {
                    rng.pick(words).clone()
                } else {
                    format!("{key}2")
                };
                t.insert(new_key, v);
                "toml:copy-key"
            }
            _ => {
                *node = V::Array(vec![node.clone(), node.clone()]);
                "toml:pair"
            }
        },
        5 => {
            if let Some(v) = donor {
                *node = v;
            }
            "toml:swap-subtree"
        }
        6 => match node {
            V::Table(t) if !t.is_empty() => {
                let key = t.keys().nth(rng.below(t.len())).cloned().expect("in range");
                let v = t.remove(&key).expect("present");
                let new_key = if !words.is_empty() && rng.chance(2, 3) {
                    rng.pick(words).clone()
                } else {
                    extreme_string(rng)
                };
                t.insert(new_key, v);
                "toml:rename-key"
            }
            V::Array(a) => {
                let like = a.first().cloned().unwrap_or(V::Integer(0));
                let v = extreme_toml(rng, &like, words, true);
                a.insert(rng.below(a.len() + 1), v);
                "toml:insert-item"
            }
            _ => {
                *node = extreme_toml(rng, node, words, false);
                "toml:extreme-value"
            }
        },
        7 => {
            *node = match node.clone() {
                V::Integer(i) => V::String(i.to_string()),
                V::String(s) => s.parse::<i64>().map(V::Integer).unwrap_or(V::Boolean(true)),
                V::Boolean(b) => V::Integer(b as i64),
                V::Array(a) => V::Table(
                    a.into_iter()
                        .enumerate()
                        .map(|(i, v)| (format!("k{i}"), v))
                        .collect(),
                ),
                V::Table(t) => V::Array(t.into_iter().map(|(_, v)| v).collect()),
                other => V::String(other.to_string()),
            };
            "toml:change-type"
        }
        _ => {
            let depth = 1 + rng.small(60);
            let mut v = node.clone();
            for i in 0..depth {
                v = if i % 2 == 0 {
                    V::Array(vec![v])
                } else {
                    V::Table([("a".to_string(), v)].into_iter().collect())
                };
            }
            *node = v;
            "toml:deep-nesting"
        }
    }
}
