//! Functions that read the `tags` of a placed tile's segments (a tile file's free-form
//! segment flags, `docs/tile-format.md`): which feature of a tile carries a symbol, for fan
//! sets whose rule belongs to one feature of a tile and not to the whole tile (Robber's
//! Son's road). `tile_has_tag` reads the tile's own tags. `feature_has_tag` asks the same
//! of a whole feature, in one read of its totals for a tag marked in `setup()` (`mark_tag`,
//! core's `Declare::segment_mark`) or by any loaded expansion, else segment by segment.

use super::*;

/// The tile-file segment behind the board segment `s`, with the tile it lies on; `None`
/// for a virtual feature (off the board).
pub(crate) fn tile_segment<'v>(
    v: &View<'v>,
    s: SegmentId,
) -> Option<&'v carcassonne_core::Segment> {
    let node = v.state.graph().segment(s);
    if node.is_virtual() {
        return None;
    }
    let t = v.state.board().at(node.pos)?;
    let local = t.local_of(s)?;
    v.rules.tiles().get(t.kind).segments.get(local)
}

/// `mark_tag(tag)` (`setup()` only): core carries `tag` into every feature's totals.
/// Whether the tile-file segment behind board segment `s` carries `tag` (never for a
/// virtual feature).
pub(crate) fn segment_tagged(v: &View<'_>, s: SegmentId, tag: &str) -> bool {
    tile_segment(v, s).is_some_and(|seg| seg.tags.iter().any(|t| t == tag))
}

pub(crate) fn register_marks(engine: &mut Engine) {
    engine.register_fn("mark_tag", |nc: NativeCallContext, tag: &str| -> R<()> {
        let mut c = call(&nc)?;
        let (setup, _) = c.declarations()?;
        setup
            .segment_mark(tag)
            .map(|_| ())
            .map_err(|e| format!("mark_tag: {e}").into())
    });
}

pub(crate) fn register_tags(reg: &mut Registry) {
    game_fn!(reg, Read, "feature_has_tag", |c,
                                            s: int,
                                            tag: str|
     -> bool {
        let v = c.view()?;
        let s = segment(v.state, s)?;
        let g = v.state.graph();
        let f = g.feature_of(s);
        // A marked tag is a bit of the feature's totals; any other is looked for on its
        // segments (the same answer, `tests::feature_has_tag_marked_or_not`).
        Ok(match v.rules.segment_mark(tag) {
            Some(mark) => mark.on(g.totals(f)),
            None => g.members(f).any(|m| segment_tagged(&v, m, tag)),
        })
    });
    game_fn!(reg, Read, "segment_has_tag", |c,
                                            s: int,
                                            tag: str|
     -> bool {
        let v = c.view()?;
        let s = segment(v.state, s)?;
        Ok(segment_tagged(&v, s, tag))
    });
    game_fn!(reg, Read, "segments_tagged", |c,
                                            x: int,
                                            y: int,
                                            tag: str|
     -> Array {
        let v = c.view()?;
        let Some(t) = v.state.board().at(Pos::new(x as i32, y as i32)) else {
            return Ok(Array::new());
        };
        // In the tile file's segment order, which is the board's (consecutive nodes).
        Ok(v.rules
            .tiles()
            .get(t.kind)
            .segments
            .iter()
            .enumerate()
            .filter(|(_, seg)| seg.tags.iter().any(|g| g == tag))
            .map(|(local, _)| (t.segment(local).index() as INT).into())
            .collect())
    });
}

#[cfg(test)]
mod tests {
    use crate::bound::native_tests::rules_with;
    use carcassonne_core::{Game, GameSetup, Ruleset};
    use std::sync::Arc;

    // `rules_with`: the base tiles (whose roads carry the wagon-link tags `link-a`) and one
    // script.

    /// The scores of a random game, each choice drawn from `seed`.
    fn scores(rules: &Arc<Ruleset>, seed: u64) -> Vec<i32> {
        let players = vec!["A".into(), "B".into()];
        let mut g = Game::new(rules.clone(), &GameSetup::new(players, seed)).unwrap();
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        while !g.is_over() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            g.apply_offered((x % g.action_count() as u64) as usize)
                .unwrap();
        }
        g.state().players().iter().map(|p| p.score).collect()
    }

    /// `segments_tagged` lists exactly the segments of the placed tile for which
    /// `segment_has_tag` is true: a script that scores one point per tagged segment each way
    /// plays the same games, and the tags are found (the base roads' `link-a`).
    #[test]
    fn segments_tagged_agrees_with_segment_has_tag() {
        let listed = rules_with(
            r#"
            fn on_tile_placed(x, y) {
                award(active_player(), segments_tagged(x, y, "link-a").len());
            }
            "#,
        );
        let asked = rules_with(
            r#"
            fn on_tile_placed(x, y) {
                let n = 0;
                for s in segments_at(x, y) {
                    if segment_has_tag(s, "link-a") { n += 1; }
                }
                if segment_has_tag(segments_at(x, y)[0], "no-such-tag") { n += 100; }
                award(active_player(), n);
            }
            "#,
        );
        let mut total = 0;
        for seed in 1..=6 {
            let (a, b) = (scores(&listed, seed), scores(&asked, seed));
            assert_eq!(a, b, "seed {seed}");
            total += a.iter().sum::<i32>();
        }
        assert!(total > 0, "tagged road segments were placed");
    }

    /// `feature_has_tag` gives the same answer with the tag marked in `setup()` (a read of
    /// the feature's totals) and without (a walk of its segments): a script that scores a
    /// point for each segment of the placed tile whose feature holds a `link-a` road plays
    /// the same games either way, and the features are found.
    #[test]
    fn feature_has_tag_marked_or_not() {
        let body = r#"
            fn on_tile_placed(x, y) {
                let n = 0;
                for s in segments_at(x, y) {
                    if feature_has_tag(s, "link-a") { n += 1; }
                    if feature_has_tag(s, "no-such-tag") { n += 100; }
                }
                award(active_player(), n);
            }
            "#;
        let marked = rules_with(&format!(
            "fn setup() {{ mark_tag(\"link-a\"); mark_tag(\"no-such-tag\"); }} {body}"
        ));
        assert_eq!(marked.segment_mark_tags(), ["link-a", "no-such-tag"]);
        let walked = rules_with(body);
        assert!(walked.segment_mark_tags().is_empty());
        let mut total = 0;
        for seed in 1..=6 {
            let (a, b) = (scores(&marked, seed), scores(&walked, seed));
            assert_eq!(a, b, "seed {seed}");
            total += a.iter().sum::<i32>();
        }
        assert!(total > 0, "features with a tagged road were found");
    }

    /// A ninth marked tag is refused at setup, naming the tags marked.
    #[test]
    fn a_ninth_marked_tag_is_refused() {
        let tags: Vec<String> = (1..=9).map(|i| format!("mark_tag(\"t{i}\");")).collect();
        let err = crate::bound::native_tests::try_rules_with(&format!(
            "fn setup() {{ {} }}",
            tags.concat()
        ))
        .err()
        .unwrap_or_default();
        assert!(
            err.contains("mark_tag: ") && err.contains("`t9`") && err.contains("t1, t2"),
            "{err}"
        );
    }
}
