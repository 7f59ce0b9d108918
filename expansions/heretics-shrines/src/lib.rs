//! # Heretics & Shrines (rules HS-1 … HS-13)
//!
//! A *shrine* is a new centre-site feature kind scored like a cloister (HS-1): complete
//! with its 8 surrounding cells filled, 9 points, or 1 + neighbours at the end. A
//! follower on it is a heretic. Everything else here is about shrines next to cloisters:
//!
//! - **Placement** (HS-3, HS-4), a batched placement filter: a shrine tile may not have
//!   two cloisters among its 8 surrounding cells, nor sit next to a cloister that already
//!   has a shrine around it; the same with the roles swapped. "Cloister" means any
//!   centre-site kind scored as a cloister other than the shrine (abbeys included). With
//!   the house rule `shrineCrowding` the HS-4 case is allowed, but no follower may go on
//!   that tile's building.
//! - **Challenges** (HS-5 … HS-9), in `before_scoring`: when a scoring completes an
//!   occupied building whose rival (the other kind, in a surrounding cell) is occupied and
//!   not complete, the rival's followers score 0 and return; the rival stays incomplete
//!   and may score later if occupied again (its draft item does not close it). Both
//!   completed at once: both score normally (HS-7). An empty completed building changes
//!   nothing (HS-8). Unresolved challenges score as incomplete cloisters at the end (HS-9),
//!   which is core's final scoring unchanged. Owners do not matter (HS-5: self-challenge).
//! - `challengeStakes` (HS-13): the winners also score the loser's incomplete value.
//! - `cultPlaces`: the sixth tile CU/SRCR stays in the supply only with this option.
//! - `shrines = plain-cloisters`: the CU tiles are plain cloisters, as JCloisterZone plays
//!   its cult sets without the element `shrine`. Tile kinds are fixed before options are
//!   known, so the segments stay of kind `shrine` (scored as a cloister: same values); the
//!   expansion then hooks nothing but `before_scoring`, where it relabels every drafted
//!   shrine item as the core `cloister` kind, so the score events (and the replay output)
//!   say `cloister`. No placement filter (HS-3/HS-4), no challenge, no crowding rule.

use carcassonne_core::{
    Action, Award, Ctx, DraftFeature, Expansion, FeatureId, FeatureKindDef, FeatureKindId,
    HookResult, HookSet, PlacementCell, PlayerId, Pos, Ruleset, ScoreDraft, Scoring, Setup,
    SetupIds, Shape, StartTile, TileKindId, View, MAX_PLAYERS,
};

/// Option keys.
pub const CULT_PLACES: &str = "heretics-shrines.cultPlaces";
/// HS-13 house rule.
pub const CHALLENGE_STAKES: &str = "heretics-shrines.challengeStakes";
/// HS-4 house rule.
pub const SHRINE_CROWDING: &str = "heretics-shrines.shrineCrowding";
/// `shrines` (default) or `plain-cloisters` (JCZ's cult sets without the element `shrine`).
pub const SHRINES: &str = "heretics-shrines.shrines";

#[derive(Debug, PartialEq)]
struct Ids {
    shrine: FeatureKindId,
}

/// The Heretics & Shrines expansion.
#[derive(Debug, Default)]
pub struct HereticsShrines {
    ids: SetupIds<Ids>,
    /// Buildings per tile kind (bit 0 shrine, bit 1 cloister), computed on first use.
    tile_buildings: std::sync::OnceLock<Vec<u8>>,
    /// The ruleset's options, read once (an instance serves one ruleset).
    opts: std::sync::OnceLock<Opts>,
    /// Tile kinds of the Cult Places edition only, found once.
    cult_places: std::sync::OnceLock<Vec<TileKindId>>,
}

/// Parsed options.
#[derive(Debug)]
struct Opts {
    crowding: bool,
    stakes: bool,
    /// `shrines = plain-cloisters`: the shrine tiles are plain cloisters.
    plain: bool,
}

/// The two building families that challenge each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Building {
    Shrine,
    Cloister,
}

impl Building {
    fn rival(self) -> Building {
        match self {
            Building::Shrine => Building::Cloister,
            Building::Cloister => Building::Shrine,
        }
    }
}

impl HereticsShrines {
    /// A new instance (one per ruleset).
    pub fn new() -> Self {
        Self::default()
    }

    fn opts(&self, rules: &Ruleset) -> &Opts {
        self.opts.get_or_init(|| Opts {
            crowding: rules.options().flag(SHRINE_CROWDING),
            stakes: rules.options().flag(CHALLENGE_STAKES),
            plain: rules.options().str(SHRINES) == "plain-cloisters",
        })
    }

    fn building_of(&self, rules: &Ruleset, kind: FeatureKindId) -> HookResult<Option<Building>> {
        let shrine = self.ids.get()?.shrine;
        Ok(if kind == shrine {
            Some(Building::Shrine)
        } else if rules.kind(kind).scoring == Scoring::Cloister {
            Some(Building::Cloister)
        } else {
            None
        })
    }

    /// Which buildings a tile kind carries (bit 0 shrine, bit 1 cloister).
    fn buildings_of_tile(&self, rules: &Ruleset, tile: TileKindId) -> HookResult<u8> {
        if let Some(t) = self.tile_buildings.get() {
            if let Some(m) = t.get(tile.0 as usize) {
                return Ok(*m);
            }
        }
        let mut all = Vec::with_capacity(rules.tiles().len());
        for (id, _) in rules.tiles().iter() {
            all.push(self.compute_buildings(rules, id)?);
        }
        let m = all.get(tile.0 as usize).copied().unwrap_or(0);
        let _ = self.tile_buildings.set(all);
        Ok(m)
    }

    fn compute_buildings(&self, rules: &Ruleset, tile: TileKindId) -> HookResult<u8> {
        let tk = rules.tiles().get(tile);
        let mut mask = 0u8;
        for seg in &tk.segments {
            match self.building_of(rules, seg.kind)? {
                Some(Building::Shrine) => mask |= 1,
                Some(Building::Cloister) => mask |= 2,
                None => {}
            }
        }
        Ok(mask)
    }

    /// Whether the tile at `pos` carries a building of family `b`.
    fn has_building(&self, v: &View<'_>, pos: Pos, b: Building) -> HookResult<bool> {
        let Some(t) = v.state.board().at(pos) else {
            return Ok(false);
        };
        if t.sites == 0 {
            return Ok(false);
        }
        let m = self.buildings_of_tile(v.rules, t.kind)?;
        Ok(m & bit(b) != 0)
    }

    /// Buildings of family `b` in the 8 cells around `pos`, not counting the cell `skip`.
    fn around(&self, v: &View<'_>, pos: Pos, b: Building, skip: Pos) -> HookResult<usize> {
        let mut n = 0;
        for q in pos.surrounding() {
            if q != skip {
                n += self.has_building(v, q, b)? as usize;
            }
        }
        Ok(n)
    }

    /// HS-3 (too many rivals around) and HS-4 (a rival around that already has one of
    /// ours around it) for a building of family `b` at `pos`. The cell `pos` itself never
    /// counts, so this gives the same answer before the tile is placed (placement filter)
    /// and after (`crowded_site`): "already has one of ours" means one other than this.
    fn violations(&self, v: &View<'_>, pos: Pos, b: Building) -> HookResult<(bool, bool)> {
        let rival = b.rival();
        let hs3 = self.around(v, pos, rival, pos)? >= 2;
        let mut hs4 = false;
        for q in pos.surrounding() {
            if self.has_building(v, q, rival)? && self.around(v, q, b, pos)? >= 1 {
                hs4 = true;
                break;
            }
        }
        Ok((hs3, hs4))
    }

    /// The crowded building segment on the tile just placed (house rule `shrineCrowding`).
    fn crowded_site(&self, v: &View<'_>) -> HookResult<Option<carcassonne_core::SegmentId>> {
        let Some(idx) = v.state.last_placed() else {
            return Ok(None);
        };
        let t = *v.state.board().tile(idx);
        let tk = v.rules.tiles().get(t.kind);
        for (i, seg) in tk.segments.iter().enumerate() {
            if let Some(b) = self.building_of(v.rules, seg.kind)? {
                // The tile is on the board now; `violations` does not count its cell.
                if self.violations(v, t.pos, b)?.1 {
                    return Ok(Some(carcassonne_core::SegmentId::new(
                        t.first_segment as usize + i,
                    )));
                }
            }
        }
        Ok(None)
    }
}

/// Whether two cells are among each other's 8 surrounding cells.
fn adjacent8(a: Pos, b: Pos) -> bool {
    a != b && (a.x - b.x).abs() <= 1 && (a.y - b.y).abs() <= 1
}

fn bit(b: Building) -> u8 {
    match b {
        Building::Shrine => 1,
        Building::Cloister => 2,
    }
}

impl Expansion for HereticsShrines {
    fn id(&self) -> &str {
        "heretics-shrines"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn hooks(&self, rules: &Ruleset) -> HookSet {
        // Plain cloisters: the cult-places supply and the relabelling only.
        if self.opts(rules).plain {
            return HookSet::GAME_START | HookSet::BEFORE_SCORING;
        }
        let base = HookSet::GAME_START | HookSet::FILTER_PLACEMENTS | HookSet::BEFORE_SCORING;
        // The deployment filter only serves the shrineCrowding house rule.
        if self.opts(rules).crowding {
            base | HookSet::FILTER_DEPLOY_ACTIONS
        } else {
            base
        }
    }

    fn setup(&self, s: &mut Setup<'_>) -> HookResult {
        let shrine = s
            .feature_kind(FeatureKindDef {
                name: "shrine".into(),
                shape: Shape::Site,
                scoring: Scoring::Cloister,
                occupiable: true,
            })
            .map_err(|e| e.to_string())?;
        self.ids.bind(Ids { shrine })
    }

    fn prepare_game(&self, ctx: &mut Ctx<'_>, _start: &mut Vec<StartTile>) -> HookResult {
        if !ctx.rules().options().flag(CULT_PLACES) {
            let rules = ctx.rules();
            let extra = self.cult_places.get_or_init(|| {
                rules
                    .tiles()
                    .iter()
                    .filter(|(_, k)| k.has_tag("cult-places"))
                    .map(|(id, _)| id)
                    .collect()
            });
            for &id in extra {
                while ctx.supply_mut().take(id) {}
            }
        }
        Ok(())
    }

    /// Only tiles with a shrine or a cloister are restricted.
    fn filters_tile(&self, rules: &Ruleset, tile: TileKindId) -> HookResult<bool> {
        Ok(self.compute_buildings(rules, tile)? != 0)
    }

    /// HS-3 / HS-4.
    fn filter_placements(
        &self,
        v: View<'_>,
        _player: PlayerId,
        tile: TileKindId,
        cells: &mut [PlacementCell],
    ) -> HookResult {
        let mask = self.buildings_of_tile(v.rules, tile)?;
        if mask == 0 {
            return Ok(());
        }
        let crowding = self.opts(v.rules).crowding;
        // The buildings on the board (few), then each candidate against them. Buildings
        // sit in the tile centre, so the rotation does not matter.
        let mut on_board: [Vec<Pos>; 2] = [Vec::new(), Vec::new()];
        for t in v.state.board().tiles() {
            if t.sites != 0 {
                let m = self.buildings_of_tile(v.rules, t.kind)?;
                for (i, list) in on_board.iter_mut().enumerate() {
                    if m & (1 << i) != 0 {
                        list.push(t.pos);
                    }
                }
            }
        }
        for b in [Building::Shrine, Building::Cloister] {
            if mask & bit(b) == 0 {
                continue;
            }
            let ours = &on_board[(bit(b) >> 1) as usize];
            let rivals = &on_board[(bit(b.rival()) >> 1) as usize];
            if rivals.is_empty() {
                continue;
            }
            // A small grid over the rivals' surroundings: per cell, how many rivals
            // touch it (HS-3) and whether one of them already has one of ours around
            // it (HS-4, bit 7). Then each candidate is one lookup.
            let (min_x, max_x) = rivals.iter().fold((i32::MAX, i32::MIN), |(a, b), r| {
                (a.min(r.x - 1), b.max(r.x + 1))
            });
            let (min_y, max_y) = rivals.iter().fold((i32::MAX, i32::MIN), |(a, b), r| {
                (a.min(r.y - 1), b.max(r.y + 1))
            });
            let w = (max_x - min_x + 1) as usize;
            let mut grid = vec![0u8; w * (max_y - min_y + 1) as usize];
            for r in rivals {
                let taken = ours.iter().any(|o| adjacent8(*o, *r));
                for q in r.surrounding() {
                    let cell = &mut grid[(q.y - min_y) as usize * w + (q.x - min_x) as usize];
                    *cell = (*cell + 1) | if taken { 0x80 } else { 0 };
                }
            }
            for c in cells.iter_mut() {
                let p = c.pos;
                if p.x < min_x || p.x > max_x || p.y < min_y || p.y > max_y {
                    continue;
                }
                let cell = grid[(p.y - min_y) as usize * w + (p.x - min_x) as usize];
                let around = cell & 0x7f;
                let hs4 = cell & 0x80 != 0;
                if around >= 2 || (hs4 && !crowding) {
                    c.rotations = 0;
                }
            }
        }
        Ok(())
    }

    /// HS-4 house rule: no follower on a crowded building.
    fn filter_deploy_actions(
        &self,
        v: View<'_>,
        _player: PlayerId,
        actions: &mut Vec<Action>,
    ) -> HookResult {
        if !self.opts(v.rules).crowding {
            return Ok(());
        }
        if let Some(site) = self.crowded_site(&v)? {
            actions.retain(|a| !matches!(a, Action::Deploy { segment, .. } if *segment == site));
        }
        Ok(())
    }

    /// HS-5 … HS-8, HS-13: resolve challenges of the buildings this scoring completes.
    /// With `shrines = plain-cloisters`: every drafted shrine is scored as the core
    /// `cloister` kind (placement and final scorings), nothing else.
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        if self.opts(ctx.rules()).plain {
            let shrine = self.ids.get()?.shrine;
            for d in &mut draft.features {
                if d.kind == shrine {
                    d.kind = FeatureKindId::CLOISTER;
                }
            }
            return Ok(());
        }
        if draft.final_scoring {
            return Ok(());
        }
        let stakes = self.opts(ctx.rules()).stakes;
        let n_items = draft.features.len();
        for item in 0..n_items {
            let d = draft.features[item];
            let v = ctx.view();
            let Some(b) = self.building_of(v.rules, d.kind)? else {
                continue;
            };
            let g = v.state.graph();
            if !d.complete || g.totals(d.feature).occupants == 0 {
                continue; // HS-8: an empty completed building challenges nobody.
            }
            let at = g.segment(d.feature.segment()).pos;
            let mut losers: Vec<FeatureId> = Vec::new();
            for q in at.surrounding() {
                let Some(t) = v.state.board().at(q) else {
                    continue;
                };
                let tk = v.rules.tiles().get(t.kind);
                for (i, seg) in tk.segments.iter().enumerate() {
                    if self.building_of(v.rules, seg.kind)? != Some(b.rival()) {
                        continue;
                    }
                    let f = g.feature_of(carcassonne_core::SegmentId::new(
                        t.first_segment as usize + i,
                    ));
                    let tot = g.totals(f);
                    let completed_now = draft.features.iter().any(|x| x.feature == f && x.complete);
                    if tot.occupants > 0 && !tot.complete() && !completed_now {
                        losers.push(f);
                    }
                }
            }
            let winners: Vec<PlayerId> = draft
                .awards
                .iter()
                .filter(|a| a.item as usize == item)
                .map(|a| a.player)
                .collect();
            for f in losers {
                if draft.features.iter().any(|x| x.feature == f) {
                    continue;
                }
                let g = ctx.state().graph();
                let tot = *g.totals(f);
                let loser_item = draft.features.len() as u16;
                draft.features.push(DraftFeature {
                    feature: f,
                    kind: g.kind(f),
                    tiles: g.tile_count(f),
                    complete: false,
                    value: 0,
                    return_figures: true,
                    closes: false,
                });
                // One 0-point event per owner of a losing follower (HS-6).
                let mut owners = [false; MAX_PLAYERS];
                for fig in ctx.state().figures_on(f.segment()) {
                    owners[ctx.state().figure(fig).owner.index()] = true;
                }
                for (p, _) in owners.iter().enumerate().filter(|(_, o)| **o) {
                    draft.awards.push(Award {
                        item: loser_item,
                        player: PlayerId(p as u8),
                        points: 0,
                    });
                }
                if stakes {
                    let value = 9 - tot.open as i32;
                    for &w in &winners {
                        draft.awards.push(Award {
                            item: loser_item,
                            player: w,
                            points: value,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

carcassonne_core::export_expansion!("heretics-shrines", HereticsShrines::new());
