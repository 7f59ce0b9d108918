//! Making a case's input: a seed, mutated by the format's structure-aware and byte-level mutations.

use super::byte_mutation::{bytes_to_text, mutate_bytes};
use super::corpus::Seed;
use super::json::Json;
use super::json_mutation::mutate_json;
use super::rhai_mutation::{mutate_rhai, rhai_api, rhai_tokens, Tok};
use super::rng::Rng;
use super::toml_mutation::{mutate_toml, toml_words};

/// What a format's structure-aware mutations need, prepared once per run.
pub(super) struct Mutator {
    pub(super) seeds: Vec<Seed>,
    pub(super) words: Vec<String>,
    /// Parsed JSON seeds with their node counts.
    pub(super) json: Vec<(Json, usize)>,
    /// Each seed parsed (JSON), by seed index.
    pub(super) parsed: Vec<Option<Json>>,
    pub(super) toml: Vec<toml::Value>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Json,
    Toml,
    Rhai,
}

impl Mutator {
    pub(super) fn new(seeds: Vec<Seed>, format: Format) -> Mutator {
        let mut words = Vec::new();
        let mut json = Vec::new();
        let mut parsed = Vec::new();
        let mut tomls = Vec::new();
        for s in &seeds {
            match format {
                Format::Json => {
                    let j = Json::parse(&s.text);
                    if let Some(j) = &j {
                        j.collect_words(&mut words);
                        json.push((j.clone(), j.count()));
                    }
                    parsed.push(j);
                }
                Format::Toml => {
                    if let Ok(t) = toml::from_str::<toml::Table>(&s.text) {
                        let v = toml::Value::Table(t);
                        toml_words(&v, &mut words);
                        tomls.push(v);
                    }
                }
                Format::Rhai => {
                    for (k, a, b) in rhai_tokens(&s.text) {
                        if k != Tok::Int {
                            words.push(s.text[a..b].to_string());
                        }
                    }
                }
            }
        }
        if format == Format::Rhai {
            let (fns, hooks) = rhai_api();
            words.extend(fns.iter().map(|f| f.0.clone()));
            words.extend(hooks.iter().map(|h| h.0.clone()));
        }
        words.sort();
        words.dedup();
        Mutator {
            seeds,
            words,
            json,
            parsed,
            toml: tomls,
        }
    }

    /// The input of one case: a seed (as is for the first cases, so every seed is run
    /// once unchanged), mutated 1–6 times; returns the seed's index, the text and the
    /// mutations applied.
    pub(super) fn mutate(
        &self,
        rng: &mut Rng,
        index: u64,
        format: Format,
    ) -> (usize, String, Vec<&'static str>) {
        let n = self.seeds.len();
        if (index as usize) < n {
            return (
                index as usize,
                self.seeds[index as usize].text.clone(),
                vec!["none"],
            );
        }
        let si = rng.below(n);
        let seed = &self.seeds[si];
        let donors: Vec<&str> = self.seeds.iter().map(|s| s.text.as_str()).collect();
        let mut ops = Vec::new();
        let mut text = seed.text.clone();
        let mode = rng.below(20);
        // 0..13: structure only, 13..16: structure then bytes, 16..: bytes only.
        if mode < 16 {
            let rounds = 1 + rng.small(3);
            match format {
                Format::Json => {
                    if let Some(mut doc) = self.parsed[si].clone() {
                        for _ in 0..rounds {
                            ops.push(mutate_json(rng, &mut doc, &self.json, &self.words));
                        }
                        text = doc.write(rng.chance(3, 4));
                    }
                }
                Format::Toml => {
                    if let Ok(t) = toml::from_str::<toml::Table>(&text) {
                        let mut doc = toml::Value::Table(t);
                        for _ in 0..rounds {
                            ops.push(mutate_toml(rng, &mut doc, &self.toml, &self.words));
                        }
                        match toml::to_string(&doc) {
                            Ok(t) => text = t,
                            Err(_) => ops.push("toml:unwritable"),
                        }
                    }
                }
                Format::Rhai => {
                    for _ in 0..rounds {
                        ops.push(mutate_rhai(rng, &mut text, &donors, &self.words));
                    }
                }
            }
        }
        if mode >= 13 {
            let mut data = text.into_bytes();
            let rounds = if mode < 16 { 1 } else { 1 + rng.small(3) };
            for _ in 0..rounds {
                ops.push(mutate_bytes(rng, &mut data, &donors, &self.words));
            }
            text = bytes_to_text(rng, data);
        }
        (si, text, ops)
    }
}
