//! The barn (AM-19 … AM-27): the corners it may go on, its farm's placement and join
//! scorings (AM-22, AM-24) and the deployments its farm refuses (AM-23).

use crate::{AmRules, FeatureSet, NO_FIELD};
use carcassonne_core::{
    Action, Award, DraftFeature, FeatureId, FigureId, FigureLoc, HookFailure, HookResult,
    PlacedTile, PlayerId, Pos, ScoreDraft, SegmentId, View, MAX_PLAYERS,
};

/// The four tiles meeting at corner `c` of the tile at (0,0): offset and their corner there.
const CORNER_TILES: [[(i32, i32, u8); 4]; 4] = [
    [(0, 0, 0), (-1, 0, 1), (-1, -1, 2), (0, -1, 3)],
    [(0, 0, 1), (1, 0, 0), (1, -1, 3), (0, -1, 2)],
    [(0, 0, 2), (1, 0, 3), (1, 1, 0), (0, 1, 1)],
    [(0, 0, 3), (-1, 0, 2), (-1, 1, 1), (0, 1, 0)],
];

impl AmRules {
    /// The local field segment at corner `c` of a placed tile, if one field covers both
    /// half-edges there ([`NO_FIELD`] if not).
    #[inline]
    fn corner_field(&self, t: &PlacedTile, c: u8) -> u8 {
        self.corner_fields
            .get(t.kind.0 as usize)
            .map_or(NO_FIELD, |k| k[(4 * t.rotation.quarters() + c) as usize])
    }

    /// AM-20: the field segments of the placed tile `t` at the corners where four tiles
    /// meet, each with one field at that corner, with the corner (0 NW, 1 NE, 2 SE, 3 SW).
    pub(crate) fn barn_corners(
        &self,
        view: &View<'_>,
        t: &PlacedTile,
        mut f: impl FnMut(u8, SegmentId),
    ) {
        let Some(own) = self.corner_fields.get(t.kind.0 as usize) else {
            return;
        };
        let q = 4 * t.rotation.quarters() as usize;
        let own: [u8; 4] = [own[q], own[q + 1], own[q + 2], own[q + 3]];
        if own == [NO_FIELD; 4] {
            return;
        }
        let board = view.state.board();
        let pos = t.pos;
        let at = |dx: i32, dy: i32| board.at(Pos::new(pos.x + dx, pos.y + dy));
        // Four tiles meet at a corner only with a tile beside the placed one on each axis:
        // the side neighbours are read once (most placements have one or two).
        let (w, e) = (at(-1, 0), at(1, 0));
        if w.is_none() && e.is_none() {
            return;
        }
        let (n, s) = (at(0, -1), at(0, 1));
        if n.is_none() && s.is_none() {
            return;
        }
        let fits = |n: Option<&PlacedTile>, cc: u8| {
            n.is_some_and(|n| self.corner_field(n, cc) != NO_FIELD)
        };
        for c in 0..4u8 {
            // The placed tile's own corner first (a table look-up), then the three others.
            let own = own[c as usize];
            if own == NO_FIELD {
                continue;
            }
            let [_, (dx, _, hc), (_, dy, dc), (_, _, vc)] = CORNER_TILES[c as usize];
            let side = if dx < 0 { w } else { e };
            let upright = if dy < 0 { n } else { s };
            if fits(side, hc) && fits(upright, vc) && fits(at(dx, dy), dc) {
                f(c, t.segment(usize::from(own)));
            }
        }
    }

    /// AM-24: the farms of the fields of the placed tile `t` that are a barn's farm holding
    /// a follower, each once, in the tile's segment order, given to `f`; whether there is
    /// one. Asked only once a barn is out ([`AmRules::barn_out`]: with every barn in its
    /// owner's supply there is no barn's farm to join, and the callers stop before any
    /// farm is looked up). Such a farm holds a barn and a follower, two figures: farms
    /// holding fewer are passed over on their occupancy (the tile's segments lie next to
    /// their roots, the barns' own segments often deep under them), and the barns' farms
    /// are looked up out of line, only past that.
    #[inline]
    pub(crate) fn field_joins_barn_farm(
        &self,
        view: &View<'_>,
        t: &PlacedTile,
        f: &mut dyn FnMut(FeatureId),
    ) -> bool {
        debug_assert!(self.barn_out(view));
        let Some(fields) = self.fields.get(t.kind.0 as usize) else {
            return false;
        };
        let g = view.state.graph();
        if !fields
            .iter()
            .any(|l| g.totals(g.feature_of(t.segment(usize::from(*l)))).occupants > 1)
        {
            return false;
        }
        self.joined_barn_farms(view, t, fields, f)
    }

    /// The farms of `fields` (local field segments of `t`) that are a barn's farm holding
    /// a follower, each once, given to `f`; whether there is one.
    #[inline(never)]
    fn joined_barn_farms(
        &self,
        view: &View<'_>,
        t: &PlacedTile,
        fields: &[u8],
        f: &mut dyn FnMut(FeatureId),
    ) -> bool {
        let g = view.state.graph();
        let farm = |l: u8| g.feature_of(t.segment(usize::from(l)));
        let barn_farms = self.barn_farms(view);
        let mut seen = FeatureSet::default();
        let mut any = false;
        for &l in fields {
            let ff = farm(l);
            if seen.contains(&ff) {
                continue;
            }
            seen.push(ff);
            if barn_farms.contains(&ff) && Self::has_follower(view, ff, &barn_farms) {
                any = true;
                f(ff);
            }
        }
        any
    }

    /// Whether some barn has left its owner's supply (a barn never returns, so one is on
    /// the board or was taken off it): the supply counts, without reading the figures.
    pub(crate) fn barn_out(&self, view: &View<'_>) -> bool {
        let per = self.layout.barn.1;
        let n = view.state.players().len();
        (0..n as u8).any(|p| usize::from(view.state.in_supply(PlayerId(p), self.ids.barn)) < per)
    }

    /// Whether a barn stands in farm `f`.
    pub(crate) fn barn_in(&self, view: &View<'_>, f: FeatureId) -> bool {
        let g = view.state.graph();
        let mut found = false;
        self.each_figure_of(view, self.ids.barn, self.layout.barn, |_, fig| {
            if let FigureLoc::On(s) = fig.loc {
                found |= g.feature_of(s) == f;
            }
        });
        found
    }

    /// Whether farm `f` holds a follower; `barns` are the farms of the barns on the board
    /// ([`AmRules::barn_farms`]). A farm holding no figure but its barns holds none: the
    /// figures are looked at only when it holds more.
    pub(crate) fn has_follower(view: &View<'_>, f: FeatureId, barns: &FeatureSet) -> bool {
        let g = view.state.graph();
        if usize::from(g.totals(f).occupants) <= barns.count(&f) {
            return false;
        }
        view.state.figures().iter().any(|fig| {
            view.rules.figure_kind(fig.kind).follower
                && matches!(fig.loc, FigureLoc::On(s) if g.feature_of(s) == f)
        })
    }

    /// A farm item for the draft: `per_city` per completed city to the followers' majority;
    /// the followers (and pigs) return, the farm stays open.
    pub(crate) fn farm_item(
        &self,
        view: &View<'_>,
        draft: &mut ScoreDraft,
        farm: FeatureId,
        per_city: i32,
    ) -> HookResult {
        let g = view.state.graph();
        let cities = view.completed_city_count(farm) as i32;
        let value = per_city * cities;
        let item = draft.features.len() as u16;
        draft.features.push(DraftFeature {
            feature: farm,
            kind: g.kind(farm),
            tiles: g.tile_count(farm),
            complete: false,
            value,
            return_figures: true,
            closes: false,
        });
        let n = view.state.players().len();
        let mut s = [0i32; MAX_PLAYERS];
        for (i, fig) in view.state.figures().iter().enumerate() {
            if let FigureLoc::On(seg) = fig.loc {
                if g.feature_of(seg) == farm && view.rules.figure_kind(fig.kind).follower {
                    s[fig.owner.index()] += view
                        .strength(FigureId(i as u16))
                        .map_err(|e| HookFailure(e.to_string()))?;
                }
            }
        }
        let max = s[..n].iter().copied().max().unwrap_or(0);
        if max > 0 {
            for (p, v) in s[..n].iter().enumerate() {
                if *v == max {
                    draft.awards.push(Award {
                        item,
                        player: PlayerId(p as u8),
                        points: value,
                    });
                }
            }
        }
        Ok(())
    }

    /// The farms holding a barn, one entry per barn on the board, in figure order (no
    /// allocation for up to [`FeatureSet::INLINE`] barns).
    pub(crate) fn barn_farms(&self, view: &View<'_>) -> FeatureSet {
        let mut out = FeatureSet::default();
        let g = view.state.graph();
        self.each_figure_of(view, self.ids.barn, self.layout.barn, |_, fig| {
            if let FigureLoc::On(s) = fig.loc {
                out.push(g.feature_of(s));
            }
        });
        out
    }

    /// Removes deployments onto a farm holding a barn (AM-23: no farmer or pig). A figure
    /// kind that shares its feature (a fan set's marker such as Děčínský Sněžník's tower,
    /// which decides no majority) is neither, and stays offered, as in FanCloisterZone.
    /// Without a barn on the board, or without a deployment among the offers (a dragon
    /// step, a ransom prompt), nothing.
    pub(crate) fn drop_barn_farm_deploys(&self, view: &View<'_>, actions: &mut Vec<Action>) {
        // Every barn in supply: no barn's farm. The gate of `on_tile_placed` (one slot read)
        // is 0 only then; at 1 the barns' farms are looked up, none while no barn is out.
        if view.get(self.ids.barn_gate) == 0 {
            return;
        }
        let g = view.state.graph();
        let claims = |a: &Action| match a {
            Action::Deploy { figure, segment } => {
                (!view.rules.figure_kind(*figure).shares).then_some(*segment)
            }
            _ => None,
        };
        // Only a deployment of a figure that does not share can be barred (a prompt's
        // offers often hold none): the barns' farms are looked up from the first one on.
        let Some(first) = actions.iter().position(|a| claims(a).is_some()) else {
            return;
        };
        let barn_farms = self.barn_farms(view);
        if barn_farms.is_empty() {
            return;
        }
        let barred = |a: &Action| claims(a).is_some_and(|s| barn_farms.contains(&g.feature_of(s)));
        // Most offers put nothing onto a barn's farm: one pass finds the first that does.
        if actions[first..].iter().any(barred) {
            actions.retain(|a| !barred(a));
        }
    }
}
