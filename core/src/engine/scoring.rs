//! Scoring: feature values, majorities, drafts of a placement and of the final scoring, farms in three editions.

use super::*;

/// Points a feature is worth to each majority winner.
pub(crate) fn feature_value(
    rules: &Ruleset,
    g: &FeatureGraph,
    f: FeatureId,
    tiles: u32,
    complete: bool,
) -> i32 {
    let t = g.totals(f);
    let tiles = tiles as i32;
    let pennants = t.pennants as i32;
    match rules.kind(g.kind(f)).scoring {
        Scoring::City if complete => {
            if rules.base().small_city_halved && tiles == 2 {
                tiles + pennants
            } else {
                2 * tiles + 2 * pennants
            }
        }
        Scoring::City => tiles + pennants,
        Scoring::Road => tiles,
        // 9 when complete (open = 0), else 1 + the surrounding tiles.
        Scoring::Cloister => 9 - t.open as i32,
        Scoring::Points {
            complete_tile,
            complete_marker,
            ..
        } if complete => complete_tile * tiles + complete_marker * pennants,
        Scoring::Points {
            end_tile,
            end_marker,
            ..
        } => end_tile * tiles + end_marker * pennants,
        Scoring::Farm | Scoring::Unscored => 0,
    }
}

/// Strength per player on a feature, in half-units.
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn strengths(
    rules: &Ruleset,
    st: &GameState,
    f: FeatureId,
) -> Result<[i32; MAX_PLAYERS], HookError> {
    let mut s = [0i32; MAX_PLAYERS];
    let plain = !rules.any_hooks(HookSet::STRENGTH_DELTA);
    // The feature's running total says how many figures stand on it: stop at the last.
    let mut left = st.graph.totals(f).occupants;
    for (i, fig) in st.figures.iter().enumerate() {
        if left == 0 {
            break;
        }
        if let FigureLoc::On(seg) = fig.loc {
            // Figures that share features (neutral ones included) are not occupants.
            if st.graph.feature_of(seg) != f || !st.occupies(fig.kind) {
                continue;
            }
            left -= 1;
            if rules.figure_kind(fig.kind).follower {
                s[fig.owner.index()] += if plain {
                    rules.figure_kind(fig.kind).strength
                } else {
                    View { rules, state: st }.strength(FigureId(i as u16))?
                };
            }
        }
    }
    Ok(s)
}

/// [`View::strength`] for the final scoring's passes over the figures, which ask it of every
/// occupying follower at the end of every search playout, in a game where some expansion
/// has `strength_delta`: the implementers are read once per pass and called directly from
/// the pass's loop (no call of [`View::strength`] a figure). The same value, or the same
/// error (the first failing expansion's, in load order).
#[derive(Clone, Copy)]
struct FinalStrength<'a> {
    rules: &'a Ruleset,
    st: &'a GameState,
    bound: &'a [Box<dyn BoundExpansion>],
    /// The hook's implementers ([`Ruleset::hook_members`]).
    members: u64,
}

impl<'a> FinalStrength<'a> {
    #[inline(always)]
    fn new(rules: &'a Ruleset, st: &'a GameState) -> Self {
        FinalStrength {
            rules,
            st,
            bound: rules.bound(),
            members: rules.hook_members(HookSet::STRENGTH_DELTA),
        }
    }

    /// The strength of figure `i`, whose kind's own strength is `base`.
    #[inline(always)]
    fn of(self, i: usize, base: i32) -> Result<i32, HookError> {
        let view = View {
            rules: self.rules,
            state: self.st,
        };
        let f = FigureId(i as u16);
        // Bit 63 also stands for every later expansion: no real ruleset has one.
        if self.members & (1 << 63) != 0 {
            return view.strength(f);
        }
        let mut s = base;
        let mut m = self.members;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            match self.bound[k].strength_delta(view, f) {
                Ok(d) => s += d,
                Err(e) => return Err(hook_error(self.rules, k, "strength_delta", e)),
            }
        }
        debug_assert_eq!(
            Ok(s.max(0)),
            view.strength(f),
            "the final scoring's strength against View::strength"
        );
        Ok(s.max(0))
    }
}

/// Adds an award of `value` for every player with the maximal strength (> 0).
pub(crate) fn push_majority(
    draft: &mut ScoreDraft,
    item: u16,
    s: &[i32; MAX_PLAYERS],
    players: usize,
    value: i32,
) {
    let max = s[..players].iter().copied().max().unwrap_or(0);
    if max <= 0 {
        return;
    }
    for (p, v) in s[..players].iter().enumerate() {
        if *v == max {
            draft.awards.push(Award {
                item,
                player: PlayerId(p as u8),
                points: value,
                bonus: false,
            });
        }
    }
}

/// The complete, unscored features the last placed tile closes: its own segments'
/// features, then the sites (cloisters, shrines) around it, without duplicates.
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn completed_by_last_placement(
    rules: &Ruleset,
    st: &GameState,
    out: &mut Vec<FeatureId>,
) {
    out.clear();
    // No feature counted complete since the tile was placed (most placements): none of
    // its features and sites around is complete, so nothing to find. Not so simple with a
    // segment an overlay added, a barrier tile or edges that only meet (those close
    // features the placement did not write).
    if !st.graph.completed_since_placement() && st.last_overlay.is_none() && plain_tile(rules, st) {
        debug_assert!(
            {
                completed_walk(rules, st, out);
                out.is_empty()
            },
            "a complete feature the placement did not count"
        );
        return;
    }
    completed_walk(rules, st, out);
}

/// Whether the last placed tile (if any) is neither a barrier nor placed under edges that
/// only meet ([`completed_by_last_placement`]'s early answer).
#[inline(always)]
fn plain_tile(rules: &Ruleset, st: &GameState) -> bool {
    let Some(idx) = st.last_placed else {
        return true;
    };
    !rules.tiles().get(st.board.tile(idx).kind).barrier && !rules.loose_edges()
}

/// [`completed_by_last_placement`]'s walk of the last tile's features (`out` empty).
#[inline(always)]
fn completed_walk(rules: &Ruleset, st: &GameState, out: &mut Vec<FeatureId>) {
    let Some(idx) = st.last_placed else {
        return;
    };
    let t = *st.board.tile(idx);
    let tk = rules.tiles().get(t.kind);
    for seg in t.segments() {
        consider_completed(st, seg, out);
    }
    // A segment an overlay added this turn, maybe to a neighbour (a bridge).
    if let Some(seg) = st.last_overlay {
        consider_completed(st, seg, out);
    }
    if tk.barrier || rules.loose_edges() {
        completed_beside(rules, st, &t, out);
    }
    // The sites around it, if any (the board counts them).
    if st.board.site_tiles_around(t.pos) == 0 {
        return;
    }
    for q in t.pos.surrounding() {
        let Some(n) = st.board.at(q) else {
            continue;
        };
        let mut sites = n.sites;
        while sites != 0 {
            let i = sites.trailing_zeros();
            sites &= sites - 1;
            consider_completed(st, n.segment(i as usize), out);
        }
    }
}

/// Adds the feature of `seg` to `out` if it is complete, unscored and not there yet.
#[inline(always)]
fn consider_completed(st: &GameState, seg: crate::graph::SegmentId, out: &mut Vec<FeatureId>) {
    let f = st.graph.feature_of(seg);
    let tot = st.graph.totals(f);
    if tot.complete() && !tot.scored && !out.contains(&f) {
        out.push(f);
    }
}

/// [`completed_by_last_placement`]'s neighbours' features that the tile `t` closes: a
/// barrier tile closes the roads and cities of its neighbours; so does an edge declared to
/// meet the neighbour's without joining (`edge_meets`: a gate). Out of line: most tiles are
/// neither.
#[inline(never)]
fn completed_beside(rules: &Ruleset, st: &GameState, t: &PlacedTile, out: &mut Vec<FeatureId>) {
    let tk = rules.tiles().get(t.kind);
    for s in crate::side::Side::ALL {
        let Some(n) = st.board.at(t.pos.step(s)) else {
            continue;
        };
        let nk = rules.tiles().get(n.kind);
        let closes = tk.barrier
            || rules.edges_meet(
                tk.edge_at(t.rotation, s),
                nk.edge_at(n.rotation, s.opposite()),
            );
        if !closes {
            continue;
        }
        // The segment on that side, and one sharing it (`Segment::shares`).
        let facing = nk.segment_on_side(n.rotation, s.opposite());
        for b in facing
            .into_iter()
            .chain(nk.sharer_on_side(n.rotation, s.opposite()))
        {
            consider_completed(st, n.segment(b as usize), out);
        }
    }
}

/// Scores the features the last placement completed (A-8 … A-11). Out of line, in the
/// per-turn section: [`advance`](super::pipeline::advance)'s scoring step.
#[inline(never)]
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn score_placement(rules: &Ruleset, st: &mut GameState) -> Result<(), HookError> {
    if st.last_placed.is_none() {
        return Ok(());
    }
    let mut done = std::mem::take(&mut st.completed);
    completed_by_last_placement(rules, st, &mut done);
    if done.is_empty() && !st.score_anyway {
        // Most placements: nothing to score and no hook to run. The draft is left as the
        // full path below leaves it (empty, this placer's), without moving it out and back.
        st.completed = done;
        st.draft.features.clear();
        st.draft.awards.clear();
        st.draft.final_scoring = false;
        st.draft.placer = Some(st.active);
        return Ok(());
    }
    let mut draft = std::mem::take(&mut st.draft);
    draft.features.clear();
    draft.awards.clear();
    draft.final_scoring = false;
    draft.placer = Some(st.active);
    for &f in &done {
        let tot = *st.graph.totals(f);
        let kind = st.graph.kind(f);
        let tiles = st.graph.tile_count(f);
        let value = feature_value(rules, &st.graph, f, tiles, true);
        let item = draft.features.len() as u16;
        draft.features.push(DraftFeature {
            feature: f,
            kind,
            tiles,
            complete: true,
            value,
            return_figures: true,
            closes: true,
            forfeit: false,
        });
        if tot.occupants > 0 {
            let s = strengths(rules, st, f)?;
            push_majority(&mut draft, item, &s, st.players.len(), value);
        }
    }
    done.clear();
    st.completed = done;
    // Scoring hooks see scorings, so a placement that completes nothing skips them, unless
    // an expansion asked for its own scoring of this placement (`Ctx::request_scoring`).
    let anyway = std::mem::take(&mut st.score_anyway);
    let r = if draft.features.is_empty() && !anyway {
        Ok(())
    } else {
        apply_draft(rules, st, &mut draft)
    };
    // Scratch: kept empty between placements so that a state clone copies nothing.
    draft.features.clear();
    draft.awards.clear();
    st.draft = draft;
    r
}

/// Runs `before_scoring`, applies the awards and returns, marks features scored, runs `after_scoring`.
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn apply_draft(
    rules: &Ruleset,
    st: &mut GameState,
    draft: &mut ScoreDraft,
) -> Result<(), HookError> {
    each(
        rules,
        st,
        HookSet::BEFORE_SCORING,
        "before_scoring",
        |e, ctx| e.before_scoring(ctx, draft),
    )?;
    for a in &draft.awards {
        let Some(item) = draft.features.get(a.item as usize) else {
            continue;
        };
        st.award_feature(
            a.player,
            a.points,
            ScoreSource::Feature(item.kind),
            item.complete,
        );
    }
    for item in &draft.features {
        if item.closes {
            st.graph.mark_scored(item.feature);
        }
        if !item.return_figures {
            continue;
        }
        // A feature with no occupant holds no figure to return, unless a figure that is not
        // counted (a sharing or neutral one) may return: most completed features of a random
        // game are empty, and each scan reads every figure's feature.
        if st.graph.totals(item.feature).occupants == 0 && !st.sharing.any_returns() {
            debug_assert!(!(0..st.figures.len()).any(|i| returns_from(rules, st, i, item.feature)));
            continue;
        }
        for i in 0..st.figures.len() {
            if returns_from(rules, st, i, item.feature) {
                return_figure(rules, st, FigureId(i as u16), RemovalReason::Scored)?;
            }
        }
    }
    each(
        rules,
        st,
        HookSet::AFTER_SCORING,
        "after_scoring",
        |e, ctx| e.after_scoring(ctx, draft),
    )
}

/// Whether figure `i` stands on `feature` and goes home when the feature scores.
#[inline]
pub(crate) fn returns_from(rules: &Ruleset, st: &GameState, i: usize, feature: FeatureId) -> bool {
    let f = st.figures[i];
    matches!(f.loc, FigureLoc::On(seg)
        if st.graph.feature_of(seg) == feature && rules.figure_kind(f.kind).returns)
}

/// End of game: unfinished features, then farms, then expansions' bonuses.
/// Out of line: once a game, and inlined it made `advance` (run at every decision) three
/// times as long, its hot parts spread over more cache lines.
#[inline(never)]
pub(crate) fn final_scoring(rules: &Ruleset, st: &mut GameState) -> Result<(), HookError> {
    // The state's scratch lists (kept empty between scorings) hold the drafts, the farms,
    // the strengths and a farm's cities, so ending a game allocates nothing once a search's
    // copy has ended one (search bots end a copy of the game per playout). The draft's own
    // fields are put back as they were.
    let mut draft = std::mem::take(&mut st.draft);
    let (placer, final_before) = (draft.placer, draft.final_scoring);
    let mut farms = std::mem::take(&mut st.completed);
    farms.clear();
    let mut scratch = FinalScratch {
        strengths: std::mem::take(&mut st.final_strengths),
        cities: std::mem::take(&mut st.final_cities),
    };
    let r = final_drafts(rules, st, &mut draft, &mut farms, &mut scratch);
    draft.features.clear();
    draft.awards.clear();
    draft.placer = placer;
    draft.final_scoring = final_before;
    st.draft = draft;
    farms.clear();
    st.completed = farms;
    scratch.strengths.clear();
    scratch.cities.clear();
    st.final_strengths = scratch.strengths;
    st.final_cities = scratch.cities;
    let r = r.and_then(|()| {
        each(
            rules,
            st,
            HookSet::FINAL_SCORING,
            "final_scoring",
            |e, ctx| e.final_scoring(ctx),
        )
    });
    // The farms' cities found for the farm draft served its hooks and the final scoring's
    // (`View::farm_cities`) until here.
    st.graph.forget_farms();
    r
}

/// The final scoring's lists taken out of the state for its length
/// ([`GameState::final_strengths`], [`GameState::final_cities`]).
struct FinalScratch {
    strengths: Vec<([i32; MAX_PLAYERS], u16)>,
    cities: Vec<FeatureId>,
}

/// The final scoring's two drafts, applied in turn: unfinished features, then farms.
fn final_drafts(
    rules: &Ruleset,
    st: &mut GameState,
    draft: &mut ScoreDraft,
    farms: &mut Vec<FeatureId>,
    scratch: &mut FinalScratch,
) -> Result<(), HookError> {
    draft.features.clear();
    draft.awards.clear();
    draft.final_scoring = true;
    draft.placer = None;
    final_features(rules, st, draft, farms, &mut scratch.strengths)?;
    apply_draft(rules, st, draft)?;
    draft.features.clear();
    draft.awards.clear();
    // Each farm's completed cities, found once: the farm draft, its hooks and the final
    // scoring's hooks (a barn's farm, a pig's) read them through `farm_cities` until the
    // graph is edited or the final scoring ends.
    // A search's copy refilled from one position again and again reads an unchanged
    // farm's borders from those kept for that position ([`FeatureGraph::farm_borders`])
    // instead of walking its segments.
    let cities = &mut scratch.cities;
    st.graph.remember_farms(|g, rec| {
        let kept = g.farm_borders();
        for &farm in farms.iter() {
            let tiles = match kept.as_ref().and_then(|k| k.farm(farm)) {
                Some((borders, tiles)) => {
                    cities.clear();
                    for &b in borders {
                        let f = g.feature_of(b.segment());
                        if is_farm_city(rules, g, f) && !cities.contains(&f) {
                            cities.push(f);
                        }
                    }
                    #[cfg(debug_assertions)]
                    {
                        let mut walked = Vec::new();
                        let t = farm_cities_walk(rules, g, farm, &mut walked);
                        assert!(
                            (walked.as_slice(), t) == (cities.as_slice(), tiles),
                            "kept farm borders give the walk's cities and tiles"
                        );
                    }
                    tiles
                }
                None => farm_cities_walk(rules, g, farm, cities),
            };
            rec.record(farm, cities, tiles);
        }
    });
    farm_draft(rules, st, farms, draft, scratch)?;
    apply_draft(rules, st, draft)
}

/// Drafts the unscored features with an occupant, in order of their first occupant,
/// and lists the farms with one. Only occupants make a feature score at the end (not a
/// neutral figure alone). The strengths of every feature come from one pass over the
/// figures, counted as [`strengths`] counts them (the first `occupants` occupying figures
/// of each feature).
fn final_features(
    rules: &Ruleset,
    st: &GameState,
    draft: &mut ScoreDraft,
    farms: &mut Vec<FeatureId>,
    acc: &mut Vec<([i32; MAX_PLAYERS], u16)>,
) -> Result<(), HookError> {
    if rules.any_hooks(HookSet::STRENGTH_DELTA) {
        final_features_in::<true>(rules, st, draft, farms, acc)
    } else {
        final_features_in::<false>(rules, st, draft, farms, acc)
    }
}

/// [`final_features`], with the strength hooks asked ([`FinalStrength`]) or not
/// (`DELTAS`): a copy each, so that a game without them runs the loop it always ran.
#[inline(always)]
fn final_features_in<const DELTAS: bool>(
    rules: &Ruleset,
    st: &GameState,
    draft: &mut ScoreDraft,
    farms: &mut Vec<FeatureId>,
    acc: &mut Vec<([i32; MAX_PLAYERS], u16)>,
) -> Result<(), HookError> {
    let strength = FinalStrength::new(rules, st);
    // Per drafted feature: each player's strength and the occupants still to count. At
    // most one per figure on the board, in the state's scratch list (a search ends a game
    // per playout): no allocation once a copy has ended a game.
    acc.clear();
    acc.reserve(st.figures.len());
    for (i, fig) in st.figures.iter().enumerate() {
        let FigureLoc::On(seg) = fig.loc else {
            continue;
        };
        if !st.occupies(fig.kind) {
            continue;
        }
        let f = st.graph.feature_of(seg);
        let kind = st.graph.kind(f);
        let item = match rules.kind(kind).scoring {
            Scoring::Farm => {
                if !farms.contains(&f) {
                    farms.push(f);
                }
                continue;
            }
            Scoring::Unscored => continue,
            Scoring::City | Scoring::Road | Scoring::Cloister | Scoring::Points { .. } => {
                match draft.features.iter().position(|d| d.feature == f) {
                    Some(k) => k,
                    None => {
                        let tot = st.graph.totals(f);
                        if tot.scored {
                            continue;
                        }
                        let complete = tot.complete();
                        let tiles = st.graph.tile_count(f);
                        let value = feature_value(rules, &st.graph, f, tiles, complete);
                        draft.features.push(DraftFeature {
                            feature: f,
                            kind,
                            tiles,
                            complete,
                            value,
                            return_figures: false,
                            closes: true,
                            forfeit: false,
                        });
                        acc.push(([0; MAX_PLAYERS], tot.occupants));
                        acc.len() - 1
                    }
                }
            }
        };
        let (s, left) = &mut acc[item];
        if *left == 0 {
            continue;
        }
        *left -= 1;
        let fk = rules.figure_kind(fig.kind);
        if fk.follower {
            s[fig.owner.index()] += if DELTAS {
                strength.of(i, fk.strength)?
            } else {
                fk.strength
            };
        }
    }
    for (item, (s, _)) in acc.iter().enumerate() {
        let value = draft.features[item].value;
        push_majority(draft, item as u16, s, st.players.len(), value);
    }
    Ok(())
}

/// Completed city-scoring features bordering a farm, in order of first contact: during the
/// final scoring, as its farm draft found them ([`FeatureGraph::remember_farms`]).
pub(crate) fn farm_cities(
    rules: &Ruleset,
    g: &FeatureGraph,
    farm: FeatureId,
    buf: &mut Vec<FeatureId>,
) {
    farm_cities_tiles(rules, g, farm, buf);
}

/// [`farm_cities`], and the farm's tile count ([`FeatureGraph::tile_count`]).
fn farm_cities_tiles(
    rules: &Ruleset,
    g: &FeatureGraph,
    farm: FeatureId,
    buf: &mut Vec<FeatureId>,
) -> u32 {
    if let Some((cities, tiles)) = g.farm_memo(farm) {
        buf.clear();
        buf.extend_from_slice(cities);
        return tiles;
    }
    farm_cities_walk(rules, g, farm, buf)
}

/// [`farm_cities_tiles`] found by one walk of the farm's segments and their borders.
fn farm_cities_walk(
    rules: &Ruleset,
    g: &FeatureGraph,
    farm: FeatureId,
    buf: &mut Vec<FeatureId>,
) -> u32 {
    // `bordering_features` then the filter, in one pass: a feature is checked before the
    // list is searched for it (most bordering cities of a farm are not complete), and the
    // order (first contact) is the same.
    buf.clear();
    g.walk_borders(farm, |c| {
        let f = g.feature_of(c);
        if is_farm_city(rules, g, f) && !buf.contains(&f) {
            buf.push(f);
        }
    })
}

/// Whether feature `f` bordering a farm counts for it: a completed city.
#[inline]
fn is_farm_city(rules: &Ruleset, g: &FeatureGraph, f: FeatureId) -> bool {
    g.totals(f).complete() && rules.kind(g.kind(f)).scoring == Scoring::City
}

/// Each farm's strength per player as [`strengths`] finds them, from one pass over
/// the figures instead of one per farm; `farms` holds no farm twice. Should a strength
/// hook fail, the farms are counted one by one as before, so the error is the one the
/// first failing farm gives.
fn farm_strengths<const DELTAS: bool>(
    rules: &Ruleset,
    st: &GameState,
    farms: &[FeatureId],
    out: &mut Vec<([i32; MAX_PLAYERS], u16)>,
) -> Result<(), HookError> {
    // Per farm: the strengths, and the occupants still to count.
    out.clear();
    out.extend(
        farms
            .iter()
            .map(|f| ([0; MAX_PLAYERS], st.graph.totals(*f).occupants)),
    );
    let strength = FinalStrength::new(rules, st);
    let mut total: u32 = out.iter().map(|(_, n)| u32::from(*n)).sum();
    let mut failed = false;
    for (i, fig) in st.figures.iter().enumerate() {
        if total == 0 {
            break;
        }
        let FigureLoc::On(seg) = fig.loc else {
            continue;
        };
        if !st.occupies(fig.kind) {
            continue;
        }
        let f = st.graph.feature_of(seg);
        let Some(k) = farms.iter().position(|x| *x == f) else {
            continue;
        };
        let (s, left) = &mut out[k];
        if *left == 0 {
            continue;
        }
        *left -= 1;
        total -= 1;
        let fk = rules.figure_kind(fig.kind);
        if fk.follower {
            s[fig.owner.index()] += if DELTAS {
                match strength.of(i, fk.strength) {
                    Ok(s) => s,
                    Err(_) => {
                        failed = true;
                        break;
                    }
                }
            } else {
                fk.strength
            };
        }
    }
    if failed {
        for (k, &farm) in farms.iter().enumerate() {
            out[k].0 = strengths(rules, st, farm)?;
        }
    }
    Ok(())
}

/// Drafts farm scoring in the chosen edition.
fn farm_draft(
    rules: &Ruleset,
    st: &GameState,
    farms: &[FeatureId],
    draft: &mut ScoreDraft,
    scratch: &mut FinalScratch,
) -> Result<(), HookError> {
    let n = st.players.len();
    let FinalScratch {
        strengths: strength,
        cities,
    } = scratch;
    if rules.any_hooks(HookSet::STRENGTH_DELTA) {
        farm_strengths::<true>(rules, st, farms, strength)?;
    } else {
        farm_strengths::<false>(rules, st, farms, strength)?;
    }
    match rules.base().farm_scoring {
        FarmScoring::Third | FarmScoring::Second => {
            // Cities already paid per player (second edition only).
            let mut paid: Vec<Vec<FeatureId>> = Vec::new();
            if rules.base().farm_scoring == FarmScoring::Second {
                paid.resize(n, Vec::new());
            }
            for (&farm, (s, _)) in farms.iter().zip(strength.iter()) {
                let tiles = farm_cities_tiles(rules, &st.graph, farm, cities);
                let item = draft.features.len() as u16;
                let value = 3 * cities.len() as i32;
                draft.features.push(DraftFeature {
                    feature: farm,
                    kind: st.graph.kind(farm),
                    tiles,
                    complete: false,
                    value,
                    return_figures: false,
                    closes: true,
                    forfeit: false,
                });
                let start = draft.awards.len();
                push_majority(draft, item, s, n, value);
                if rules.base().farm_scoring == FarmScoring::Second {
                    for a in &mut draft.awards[start..] {
                        let mine = &mut paid[a.player.index()];
                        let fresh = cities.iter().filter(|c| !mine.contains(c)).count() as i32;
                        mine.extend(
                            cities
                                .iter()
                                .filter(|c| !mine.contains(c))
                                .copied()
                                .collect::<Vec<_>>(),
                        );
                        a.points = 3 * fresh;
                    }
                }
            }
        }
        FarmScoring::First => {
            // City by city: every player's farmers over all farms bordering the city.
            let mut per_city: Vec<(FeatureId, [i32; MAX_PLAYERS])> = Vec::new();
            for (&farm, (s, _)) in farms.iter().zip(strength.iter()) {
                farm_cities(rules, &st.graph, farm, cities);
                for c in cities.iter() {
                    let entry = match per_city.iter_mut().position(|(f, _)| f == c) {
                        Some(i) => &mut per_city[i].1,
                        None => {
                            per_city.push((*c, [0; MAX_PLAYERS]));
                            &mut per_city.last_mut().expect("just pushed").1
                        }
                    };
                    for p in 0..n {
                        entry[p] += s[p];
                    }
                }
            }
            for (city, s) in per_city {
                let item = draft.features.len() as u16;
                draft.features.push(DraftFeature {
                    feature: city,
                    kind: FeatureKindId::FIELD,
                    tiles: 0,
                    complete: false,
                    value: 4,
                    return_figures: false,
                    closes: true,
                    forfeit: false,
                });
                push_majority(draft, item, &s, n, 4);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `completed_by_last_placement` (which answers at once when no feature was counted
    /// complete since the last placement) equals its walk, at every decision of seeded
    /// random base games.
    #[test]
    fn completed_by_last_placement_matches_its_walk() {
        let (mut fast, mut walk) = (Vec::new(), Vec::new());
        let (mut skipped, mut found) = (0, 0);
        each_random_base_decision(12, |seed, game| {
            let (rules, st) = (game.rules(), game.state());
            completed_by_last_placement(rules, st, &mut fast);
            walk.clear();
            completed_walk(rules, st, &mut walk);
            assert_eq!(fast, walk, "seed {seed}");
            skipped += usize::from(!st.graph.completed_since_placement());
            found += usize::from(!walk.is_empty());
        });
        assert!(skipped > 500 && found > 20, "{skipped} {found}");
    }

    /// Calls `at` with the seed and the game at every decision of seeded random base games
    /// (seeds `0..games`, two to four players), each decision taken at random.
    fn each_random_base_decision(games: u64, mut at: impl FnMut(u64, &Game)) {
        let base: crate::TileSetData = toml::from_str(crate::BASE_TILES_TOML).unwrap();
        let rules = Arc::new(Ruleset::builder().tiles(base).build().unwrap());
        for seed in 0..games {
            let players = (0..2 + seed % 3).map(|p| format!("P{p}")).collect();
            let mut game = Game::new(Arc::clone(&rules), &GameSetup::new(players, seed)).unwrap();
            let mut pick = seed;
            while !game.is_over() {
                at(seed, &game);
                pick = pick
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let i = (pick >> 33) as usize % game.action_count();
                game.apply_offered(i).unwrap();
            }
        }
    }

    /// ending a game leaves the final scoring's scratch lists empty (so a copy
    /// copies nothing) and keeps their buffers in the state that ended. A search's copy,
    /// refilled and ended at every playout, scores each position as a fresh copy does.
    #[test]
    fn final_scratch_is_empty_after_scoring_and_kept_for_the_next() {
        let mut reused: Option<Game> = None;
        let (mut ended, mut kept) = (0, 0);
        each_random_base_decision(6, |seed, game| {
            let mut fresh = game.clone();
            fresh.end_now().unwrap();
            let copy = reused.get_or_insert_with(|| game.clone());
            copy.refill_from(game);
            copy.end_now().unwrap();
            // The players' public state: their scores among it.
            assert_eq!(
                fresh.state().players(),
                copy.state().players(),
                "seed {seed}"
            );
            for g in [&fresh, &*copy] {
                let st = g.state();
                assert!(st.final_strengths.is_empty() && st.final_cities.is_empty());
            }
            ended += 1;
            kept += usize::from(copy.state().final_cities.capacity() > 0);
        });
        // Once a farm with a completed city has been scored, the copy keeps that buffer.
        assert!(kept > ended / 2, "{kept} of {ended}");
    }

    /// A strength delta that depends on the figure: `add` for seat 1's figures, `-3` for
    /// odd ordinals (so that `max(0)` matters), and a failure for every figure while
    /// `fail` is set.
    #[derive(Clone)]
    struct Delta {
        id: &'static str,
        add: i32,
        fail: Arc<std::sync::atomic::AtomicBool>,
    }

    impl crate::Expansion for Delta {
        fn id(&self) -> &str {
            self.id
        }
        fn declare(&self, _: &mut crate::Declare<'_>) -> HookResult<Box<dyn crate::Binder>> {
            let me = self.clone();
            Ok(crate::binder(move |_: &crate::Binding<'_>| Ok(me)))
        }
    }

    impl BoundExpansion for Delta {
        fn hook_set(&self) -> HookSet {
            HookSet::STRENGTH_DELTA
        }
        fn strength_delta(&self, v: View<'_>, f: FigureId) -> HookResult<i32> {
            if self.fail.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(crate::HookFailure(format!("{} fails", self.id)));
            }
            let fig = v.state.figure(f);
            let odd = if fig.ordinal % 2 == 1 { -3 } else { 0 };
            Ok(odd
                + if fig.owner == PlayerId(1) {
                    self.add
                } else {
                    0
                })
        }
    }

    /// The final scoring's strengths ([`FinalStrength`], the implementers called
    /// directly) equal [`View::strength`] for every figure at every decision of seeded
    /// random games, with one delta and with two, and their errors (the first failing
    /// expansion's) too.
    #[test]
    fn final_strengths_match_view_strength() {
        let base: crate::TileSetData = toml::from_str(crate::BASE_TILES_TOML).unwrap();
        let fail = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let delta = |id, add| Delta {
            id,
            add,
            fail: Arc::clone(&fail),
        };
        let mut checked = [0usize; 2];
        for deltas in 1..3usize {
            let mut b = Ruleset::builder().tiles(base.clone());
            for d in [delta("plus", 1), delta("more", 4)]
                .into_iter()
                .take(deltas)
            {
                b = b.expansion(Arc::new(d));
            }
            let rules = Arc::new(b.build().unwrap());
            for seed in 0..6u64 {
                let players = (0..2 + seed % 2).map(|p| format!("P{p}")).collect();
                let mut game =
                    Game::new(Arc::clone(&rules), &GameSetup::new(players, seed)).unwrap();
                let mut pick = seed;
                while !game.is_over() {
                    let st = game.state();
                    let view = View {
                        rules: &rules,
                        state: st,
                    };
                    for (i, fig) in st.figures.iter().enumerate() {
                        let base = rules.figure_kind(fig.kind).strength;
                        let general = view.strength(FigureId(i as u16));
                        let fast = FinalStrength::new(&rules, st).of(i, base);
                        assert_eq!(fast, general, "seed {seed}");
                        checked[deltas - 1] += 1;
                    }
                    if pick % 7 == 0 {
                        fail.store(true, std::sync::atomic::Ordering::Relaxed);
                        let general = view.strength(FigureId(0));
                        let fast = FinalStrength::new(&rules, st).of(0, 2);
                        fail.store(false, std::sync::atomic::Ordering::Relaxed);
                        assert!(general.is_err());
                        assert_eq!(fast, general, "seed {seed}");
                    }
                    pick = pick
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let i = (pick >> 33) as usize % game.action_count();
                    game.apply_offered(i).unwrap();
                }
            }
        }
        assert!(checked.iter().all(|n| *n > 1000), "{checked:?}");
    }
}
