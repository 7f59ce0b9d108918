//! Segment marks (`Declare::segment_mark`): a tag that expansions ask about is carried into
//! every feature's totals, so `SegmentMark::on` answers whether some segment of the feature
//! carries it. After every action of random games, for every feature, the mark agrees with
//! a walk over the feature's segments and their tiles' tags; expansions asking for the same
//! tag share its bit; a ruleset marks at most eight tags, and a ninth is a clear error.

mod common;

use carcassonne_core::*;
use std::sync::{Arc, Mutex};

/// A straight road with an inn, and a city cap whose city carries a made-up tag.
const TAGGED: &str = r#"
schema = 1
set = "test-tags"

[[tile]]
id = "TEST/RI"
count = 6
edges = "FRFR"
features = [
  { kind = "road", sides = "EW", tags = ["inn"] },
  { kind = "field", halves = ["NL", "NR", "EL", "WR"] },
  { kind = "field", halves = ["ER", "SL", "SR", "WL"] },
]

[[tile]]
id = "TEST/Cm"
count = 6
edges = "CFFF"
features = [
  { kind = "city", sides = "N", tags = ["mark"] },
  { kind = "field", halves = ["EL", "ER", "SL", "SR", "WL", "WR"], cities = ["N"] },
]
"#;

/// An expansion that asks for marks of `tags` and hands them out through `got`.
struct Marks {
    id: &'static str,
    tags: Vec<String>,
    got: Arc<Mutex<Vec<SegmentMark>>>,
}

struct NoHooks;

impl BoundExpansion for NoHooks {
    fn hook_set(&self) -> HookSet {
        HookSet::NONE
    }
}

impl Expansion for Marks {
    fn id(&self) -> &str {
        self.id
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        for t in &self.tags {
            let m = d.segment_mark(t).map_err(|e| e.to_string())?;
            self.got.lock().unwrap().push(m);
        }
        Ok(binder(|_: &Binding<'_>| Ok(NoHooks)))
    }
}

fn marks(id: &'static str, tags: &[&str]) -> (Arc<Marks>, Arc<Mutex<Vec<SegmentMark>>>) {
    let got = Arc::new(Mutex::new(Vec::new()));
    let e = Marks {
        id,
        tags: tags.iter().map(|t| t.to_string()).collect(),
        got: Arc::clone(&got),
    };
    (Arc::new(e), got)
}

fn builder() -> RulesetBuilder {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).unwrap();
    let tagged: TileSetData = toml::from_str(TAGGED).unwrap();
    Ruleset::builder().tiles(base).tiles(tagged)
}

/// Whether a segment of `f` carries `tag`, by walking its segments and their tiles' kinds.
fn walked(rules: &Ruleset, st: &GameState, f: FeatureId, tag: &str) -> bool {
    let g = st.graph();
    g.members(f).any(|s| {
        let node = g.segment(s);
        !node.is_virtual()
            && st
                .board()
                .tiles()
                .get(usize::from(node.tile))
                .and_then(|t| {
                    rules
                        .tiles()
                        .get(t.kind)
                        .segments
                        .get(usize::from(node.local))
                })
                .is_some_and(|seg| seg.tags.iter().any(|t| t == tag))
    })
}

/// T-core: every feature's marks agree with its segments' tags after every action.
#[test]
fn marks_agree_with_the_segments_tags_in_random_games() {
    let (a, got_a) = marks("marks-a", &["inn", "link-a"]);
    let (b, got_b) = marks("marks-b", &["mark", "inn"]);
    let rules = Arc::new(builder().expansion(a).expansion(b).build().unwrap());
    let (ma, mb) = (got_a.lock().unwrap().clone(), got_b.lock().unwrap().clone());
    assert_eq!(
        ma[0], mb[1],
        "two expansions asking for `inn` share its bit"
    );
    assert_ne!(ma[1], mb[0], "different tags have different bits");
    assert_eq!(
        rules.segment_mark("inn"),
        Some(ma[0]),
        "the ruleset names the mark"
    );
    assert_eq!(rules.segment_mark("pennant"), None);
    let checks = [(ma[0], "inn"), (ma[1], "link-a"), (mb[0], "mark")];
    let mut seen = [0u32; 3];
    common::play_random(&rules, &["R", "B"], 30, |g, ctx| {
        let st = g.state();
        let graph = st.graph();
        for s in (0..graph.len())
            .map(SegmentId::new)
            .filter(|&s| graph.represents(s))
        {
            let f = graph.feature_of(s);
            for (i, (mark, tag)) in checks.iter().enumerate() {
                let on = mark.on(graph.totals(f));
                assert_eq!(on, walked(&rules, st, f, tag), "{ctx}: `{tag}` on {f:?}");
                seen[i] += u32::from(on);
            }
        }
    });
    assert!(
        seen.iter().all(|&n| n > 0),
        "every tag was seen on a feature: {seen:?}"
    );
}

/// `SegmentMark::NONE` is never on; a ninth tag is refused with the tags already marked.
#[test]
fn none_is_never_on_and_a_ninth_tag_is_refused() {
    let t = FeatureTotals {
        marks: u8::MAX,
        ..FeatureTotals::default()
    };
    assert!(!SegmentMark::NONE.on(&t));
    let tags = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"];
    let (eight, _) = marks("eight", &tags);
    assert!(builder().expansion(eight).build().is_ok());
    let (eight, _) = marks("eight", &tags);
    let (ninth, _) = marks("ninth", &["t1", "t9"]);
    let Err(err) = builder().expansion(eight).expansion(ninth).build() else {
        panic!("a ninth tag is refused");
    };
    let err = err.to_string();
    assert!(
        err.contains("ninth") && err.contains("`t9`") && err.contains("at most 8"),
        "{err}"
    );
}
