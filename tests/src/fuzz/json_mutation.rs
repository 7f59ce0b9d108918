//! Structure-aware mutations of JSON inputs (records, JCZ saves).

use super::extreme_values::{deep_json, extreme_json, extreme_string};
use super::json::Json;
use super::rng::Rng;

/// One structure-aware mutation of `doc`; `donors` are the parsed seeds with their node
/// counts.
pub(super) fn mutate_json(
    rng: &mut Rng,
    doc: &mut Json,
    donors: &[(Json, usize)],
    words: &[String],
) -> &'static str {
    let total = doc.count();
    let mut k = rng.below(total);
    // Bias towards leaves and deep nodes a little: pick twice, keep the later one.
    let k2 = rng.below(total);
    if rng.chance(1, 2) {
        k = k.max(k2);
    }
    let kind = {
        let mut i = k;
        doc.nth(&mut i).map(std::mem::discriminant)
    };
    // Another subtree (of this document or another seed), of the same kind if one of a
    // few tries finds one: an action for an action, a position for a position.
    let mut other = None;
    for _ in 0..12 {
        let (d, n) = if donors.is_empty() || rng.chance(1, 2) {
            (&*doc, total)
        } else {
            let (d, n) = rng.pick(donors);
            (d, *n)
        };
        let mut i = rng.below(n);
        if let Some(n) = d.nth(&mut i) {
            let same = Some(std::mem::discriminant(n)) == kind;
            if same || other.is_none() {
                other = Some(n.clone());
            }
            if same {
                break;
            }
        }
    }
    let Some(node) = doc.nth_mut(&mut k) else {
        return "json:none";
    };
    // Mostly mutations that keep the document's shape, so that cases get past parsing.
    let op = match rng.below(100) {
        0..=21 => 2,
        22..=49 => 0,
        50..=59 => 3,
        60..=71 => 4,
        72..=83 => 5,
        84..=89 => 9,
        90..=92 => 6,
        93..=95 => 1,
        96..=97 => 8,
        _ => 7,
    };
    match op {
        0 => {
            *node = extreme_json(rng, node, words, true);
            "json:same-kind-value"
        }
        1 => {
            *node = extreme_json(rng, node, words, false);
            "json:extreme-value"
        }
        2 => {
            if let Json::Num(n) = node {
                if let Ok(v) = n.parse::<i128>() {
                    let d = match rng.below(6) {
                        0 => v + 1,
                        1 => v - 1,
                        2 => -v,
                        3 => v * 1000,
                        4 => v + rng.below(40) as i128 - 20,
                        _ => 0,
                    };
                    *n = d.to_string();
                    return "json:tweak-number";
                }
            }
            *node = extreme_json(rng, node, words, false);
            "json:extreme-value"
        }
        3 => match node {
            Json::Arr(a) if !a.is_empty() => {
                a.remove(rng.below(a.len()));
                "json:delete-item"
            }
            Json::Obj(o) if !o.is_empty() => {
                o.remove(rng.below(o.len()));
                "json:delete-key"
            }
            _ => {
                *node = extreme_json(rng, node, words, true);
                "json:same-kind-value"
            }
        },
        4 => match node {
            Json::Arr(a) if !a.is_empty() => {
                rng.duplicate_item(a);
                "json:duplicate-item"
            }
            Json::Obj(o) if !o.is_empty() => {
                let (key, v) = o[rng.below(o.len())].clone();
                let v = if rng.chance(1, 2) {
                    extreme_json(rng, &v, words, true)
                } else {
                    v
                };
                o.insert(rng.below(o.len() + 1), (key, v));
                "json:duplicate-key"
            }
            _ => {
                *node = extreme_json(rng, node, words, true);
                "json:same-kind-value"
            }
        },
        5 => {
            if let Some(v) = other {
                *node = v;
            }
            "json:swap-subtree"
        }
        6 => match node {
            Json::Obj(o) if !o.is_empty() => {
                let i = rng.below(o.len());
                o[i].0 = if !words.is_empty() && rng.chance(2, 3) {
                    rng.pick(words).clone()
                } else {
                    extreme_string(rng)
                };
                "json:rename-key"
            }
            Json::Arr(a) => {
                let v = extreme_json(rng, &Json::Null, words, false);
                a.insert(rng.below(a.len() + 1), v);
                "json:insert-item"
            }
            _ => {
                *node = extreme_json(rng, node, words, false);
                "json:extreme-value"
            }
        },
        7 => {
            *node = deep_json(rng, node.clone());
            "json:deep-nesting"
        }
        8 => {
            *node = match node.clone() {
                Json::Num(n) => Json::Str(n),
                Json::Str(s) => Json::Num(if s.parse::<f64>().is_ok() {
                    s
                } else {
                    "0".into()
                }),
                Json::Bool(b) => Json::Num((b as u8).to_string()),
                Json::Arr(a) => Json::Obj(
                    a.into_iter()
                        .enumerate()
                        .map(|(i, v)| (i.to_string(), v))
                        .collect(),
                ),
                Json::Obj(o) => Json::Arr(o.into_iter().map(|(_, v)| v).collect()),
                other => Json::Str(other.write(false)),
            };
            "json:change-type"
        }
        _ => match node {
            Json::Arr(a) if a.len() > 1 => {
                let i = rng.below(a.len());
                let j = rng.below(a.len());
                a.swap(i, j);
                "json:swap-items"
            }
            Json::Obj(o) if o.len() > 1 => {
                o.reverse();
                "json:reorder-keys"
            }
            _ => {
                *node = extreme_json(rng, node, words, false);
                "json:extreme-value"
            }
        },
    }
}
