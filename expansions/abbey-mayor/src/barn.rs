//! The barn (AM-19 … AM-27): the corners it may go on, its farm's placement and join
//! scorings (AM-22, AM-24) and the deployments its farm refuses (AM-23).

use crate::{AmRules, FeatureSet, NO_FIELD};
use carcassonne_core::{
    Action, Award, Board, CustomAction, DraftFeature, FeatureId, FeatureKindId, Figure, FigureId,
    FigureKindId, FigureLoc, HookFailure, HookResult, Offered, PlacedTile, PlayerId, Pos,
    ScoreDraft, View, MAX_PLAYERS,
};

/// The four tiles meeting at corner `c` of the tile at (0,0): offset and their corner there.
#[cfg(debug_assertions)]
const CORNER_TILES: [[(i32, i32, u8); 4]; 4] = [
    [(0, 0, 0), (-1, 0, 1), (-1, -1, 2), (0, -1, 3)],
    [(0, 0, 1), (1, 0, 0), (1, -1, 3), (0, -1, 2)],
    [(0, 0, 2), (1, 0, 3), (1, 1, 0), (0, 1, 1)],
    [(0, 0, 3), (-1, 0, 2), (-1, 1, 1), (0, 1, 0)],
];

/// The eight tiles around the placed one, in the order [`AmRules::barn_corner_mask`] reads
/// them (the side tiles first: most placements lack one, and no diagonal is read then):
/// offset, the placed tile's corners it decides (bit `c`), and which of them it allows for
/// each row of its corner bits (nibble `b` = the corners allowed when its bits are `b`).
const AROUND: [(i32, i32, u32, u64); 8] = [
    (-1, 0, 0b1001, allows(&[(0, 1), (3, 2)])),
    (1, 0, 0b0110, allows(&[(1, 0), (2, 3)])),
    (0, -1, 0b0011, allows(&[(0, 3), (1, 2)])),
    (0, 1, 0b1100, allows(&[(2, 1), (3, 0)])),
    (-1, -1, 0b0001, allows(&[(0, 2)])),
    (1, -1, 0b0010, allows(&[(1, 3)])),
    (1, 1, 0b0100, allows(&[(2, 0)])),
    (-1, 1, 0b1000, allows(&[(3, 1)])),
];

/// A neighbour's table row for [`AROUND`]: `meets` pairs a corner of the placed tile with
/// the neighbour's corner there; nibble `b` holds the placed tile's corners whose partner
/// is set in `b`.
const fn allows(meets: &[(u32, u32)]) -> u64 {
    let mut row = 0u64;
    let mut b = 0;
    while b < 16 {
        let mut ok = 0u64;
        let mut i = 0;
        while i < meets.len() {
            if b >> meets[i].1 & 1 != 0 {
                ok |= 1 << meets[i].0;
            }
            i += 1;
        }
        row |= ok << (4 * b);
        b += 1;
    }
    row
}

impl AmRules {
    /// The local field segment at corner `c` of a placed tile, if one field covers both
    /// half-edges there ([`NO_FIELD`] if not).
    #[inline]
    fn corner_field(&self, t: &PlacedTile, c: u8) -> u8 {
        self.corner_fields
            .get(t.kind.0 as usize)
            .map_or(NO_FIELD, |k| k[(4 * t.rotation.quarters() + c) as usize])
    }

    /// The corners of a placed tile covered by one field each: bit `c` (0 NW, 1 NE, 2 SE,
    /// 3 SW) of its row in [`AmRules::corner_bits`] (none for a barrier tile).
    #[inline(always)]
    fn corner_bits_of(&self, t: &PlacedTile) -> u32 {
        let i = 4 * t.kind.0 as usize + usize::from(t.rotation.quarters());
        self.corner_bits.get(i).map_or(0, |&b| u32::from(b))
    }

    /// AM-20: the corners of the placed tile `t` (bit `c`, 0 NW, 1 NE, 2 SE, 3 SW) where
    /// four tiles meet, each with one field at that corner. Every deployment step while the
    /// player holds his barn: a neighbour is read only while a corner it decides is left
    /// (the side tiles first), each as one byte of the per-kind table, in one loop over
    /// [`AROUND`] (no call a read: the board lookup inline once), inline in the hook.
    #[inline(always)]
    pub(crate) fn barn_corner_mask(&self, board: &Board, t: &PlacedTile) -> u32 {
        let mut m = self.corner_bits_of(t);
        for &(dx, dy, decides, allows) in &AROUND {
            if m == 0 {
                break;
            }
            if m & decides == 0 {
                continue;
            }
            let b = board
                .at(Pos::new(t.pos.x + dx, t.pos.y + dy))
                .map_or(0, |n| self.corner_bits_of(n));
            m &= (allows >> (4 * (b & 15))) as u32 & 15 | !decides;
        }
        m
    }

    /// AM-20, AM-21: a barn offer on each corner of `corners` ([`AmRules::barn_corner_mask`])
    /// of the placed tile `t`, in corner order, unless a barn stands in that farm already
    /// (`barnPlacement=not-occupied`). Out of line: most steps have no such corner.
    #[inline(never)]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn offer_barns(
        &self,
        view: &View<'_>,
        t: &PlacedTile,
        mut corners: u32,
        out: &mut Vec<Action>,
    ) {
        let g = view.state.graph();
        while corners != 0 {
            let c = corners.trailing_zeros() as u8;
            corners &= corners - 1;
            let seg = t.segment(usize::from(self.corner_field(t, c)));
            if !self.barn_on_barn && self.barn_in(view, g.feature_of(seg)) {
                continue;
            }
            out.push(Action::Custom(CustomAction {
                expansion: self.me,
                verb: self.ids.barn_verb,
                figure: None,
                segment: Some(seg),
                value: i32::from(c),
            }));
        }
    }

    /// AM-20 read tile by tile (the four tiles of each corner, as the rule says): what
    /// [`AmRules::barn_corner_mask`] finds, for debug builds' check of it.
    #[cfg(debug_assertions)]
    pub(crate) fn barn_corners_walk(&self, board: &Board, t: &PlacedTile) -> u32 {
        let mut m = 0;
        for (c, tiles) in CORNER_TILES.iter().enumerate() {
            let fits = tiles.iter().all(|&(dx, dy, cc)| {
                board
                    .at(Pos::new(t.pos.x + dx, t.pos.y + dy))
                    .is_some_and(|n| self.corner_field(n, cc) != NO_FIELD)
            });
            if fits && !self.barrier.get(t.kind.0 as usize).copied().unwrap_or(true) {
                m |= 1 << c;
            }
        }
        m
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
        let fields = self
            .field_mask
            .get(t.kind.0 as usize)
            .map_or(0, |&m| u32::from(m));
        #[cfg(debug_assertions)]
        assert_eq!(fields, Self::field_segments_walk(view, t), "field mask");
        let g = view.state.graph();
        let mut left = fields;
        let mut any = false;
        while left != 0 && !any {
            let l = left.trailing_zeros() as usize;
            left &= left - 1;
            any = g.totals(g.feature_of(t.segment(l))).occupants > 1;
        }
        any && self.joined_barn_farms(view, t, fields, f)
    }

    /// The field segments of the placed tile `t` read from its tile kind (bit `l`: local
    /// segment `l`): what [`AmRules::field_mask`] holds, for debug builds' check of it.
    #[cfg(debug_assertions)]
    fn field_segments_walk(view: &View<'_>, t: &PlacedTile) -> u32 {
        let kind = view.rules.tiles().get(t.kind);
        kind.segments
            .iter()
            .enumerate()
            .filter(|(_, s)| view.rules.kind(s.kind).shape == carcassonne_core::Shape::Field)
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// The farms of `fields` (bit `l`: local field segment `l` of `t`) that are a barn's
    /// farm holding a follower, each once, given to `f`; whether there is one.
    #[inline(never)]
    fn joined_barn_farms(
        &self,
        view: &View<'_>,
        t: &PlacedTile,
        fields: u32,
        f: &mut dyn FnMut(FeatureId),
    ) -> bool {
        let g = view.state.graph();
        let farm = |l: u32| g.feature_of(t.segment(l as usize));
        let barn_farms = self.barn_farms(view);
        let mut seen = FeatureSet::default();
        let mut any = false;
        let mut left = fields;
        while left != 0 {
            let l = left.trailing_zeros();
            left &= left - 1;
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
            forfeit: false,
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
                        bonus: false,
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

    /// The barns on the board, one entry per barn in figure order (`entry` of its farm and
    /// the barn), in an inline list (one barn a seat): the list and how many it holds;
    /// `None` when more barns are out than it holds (then the callers take their general
    /// paths).
    #[inline]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn barns_inline<T: Copy>(
        &self,
        view: &View<'_>,
        fill: T,
        entry: impl Fn(FeatureId, &Figure) -> T,
    ) -> Option<([T; MAX_PLAYERS], usize)> {
        let g = view.state.graph();
        let mut barns = [fill; MAX_PLAYERS];
        let (mut n, mut more) = (0usize, false);
        self.each_figure_of(view, self.ids.barn, self.layout.barn, |_, fig| {
            if let FigureLoc::On(s) = fig.loc {
                if n < MAX_PLAYERS {
                    barns[n] = entry(g.feature_of(s), fig);
                    n += 1;
                } else {
                    more = true;
                }
            }
        });
        (!more).then_some((barns, n))
    }

    /// The farms of the barns on the board, inline ([`AmRules::barns_inline`]).
    #[inline]
    pub(crate) fn barn_farms_inline(
        &self,
        view: &View<'_>,
    ) -> Option<([FeatureId; MAX_PLAYERS], usize)> {
        self.barns_inline(view, FeatureId(0), |farm, _| farm)
    }

    /// Removes deployments onto a farm holding a barn (AM-23: no farmer or pig). A figure
    /// kind that shares its feature (a fan set's marker such as Děčínský Sněžník's tower,
    /// which decides no majority) is neither, and stays offered, as in FanCloisterZone.
    /// Without a barn on the board, or without a deployment among the offers (a dragon
    /// step, a ransom prompt), nothing. Every deployment step and prompt of a mix: the
    /// figure kinds that claim are bits of a table built at bind ([`AmRules::claiming`]),
    /// the barns' farms (one barn per seat) an inline list; the offer is rewritten by the
    /// general path ([`AmRules::drop_barn_farm_deploys_general`]), which also serves more
    /// barns than seats and debug builds' check.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn drop_barn_farm_deploys(&self, view: &View<'_>, actions: &mut Offered<'_>) {
        // Every barn in supply: no barn's farm. The gate of `on_tile_placed` (one slot read)
        // is 0 only then; at 1 the barns' farms are looked up, none while no barn is out.
        if view.get(self.ids.barn_gate) == 0 {
            return;
        }
        let claims = |k: FigureKindId| self.claims(k);
        // Only a deployment of a figure that does not share can be barred (a prompt's
        // offers often hold none): the barns' farms are looked up from the first one on.
        let Some(first) = actions
            .iter()
            .position(|a| matches!(*a, Action::Deploy { figure, .. } if claims(figure)))
        else {
            return;
        };
        let g = view.state.graph();
        let Some((farms, n)) = self.barn_farms_inline(view) else {
            self.drop_barn_farm_deploys_general(view, actions);
            return;
        };
        if n == 0 {
            return;
        }
        let farms = &farms[..n];
        // A barn's farm is a field, so a deployment onto a segment of another kind (a city,
        // a road: most of a deployment step's, or of a portal's 100+) is refused without a
        // walk of the union-find. (A farm of another kind, which no set makes, goes the
        // general way.)
        if farms.iter().any(|f| g.kind(*f) != FeatureKindId::FIELD) {
            self.drop_barn_farm_deploys_general(view, actions);
            return;
        }
        let barred = |a: &Action| match *a {
            Action::Deploy { figure, segment } if claims(figure) => {
                g.segment(segment).kind == FeatureKindId::FIELD
                    && farms.contains(&g.feature_of(segment))
            }
            _ => false,
        };
        // Most offers put nothing onto a barn's farm: one pass finds the first that does,
        // and the general path rewrites the offer then (out of line).
        if actions[first..].iter().any(barred) {
            self.drop_barn_farm_deploys_general(view, actions);
        } else {
            #[cfg(debug_assertions)]
            {
                let mut w = actions.to_vec();
                self.drop_barn_farm_deploys_general(view, &mut Offered::new(&mut w));
                assert_eq!(**actions, *w, "AM-23's filter drops nothing here");
            }
        }
    }

    /// Whether AM-23 keeps figure kind `k` off a barn's farm ([`AmRules::claiming`]).
    #[inline(always)]
    fn claims(&self, k: FigureKindId) -> bool {
        self.claiming[usize::from(k.0 >> 6)] >> (k.0 & 63) & 1 != 0
    }

    /// [`AmRules::drop_barn_farm_deploys`] read the general way: each deployment's figure
    /// kind asked whether it claims, the barns' farms listed whatever their number. Out of
    /// line: it rewrites the offer once a deployment to drop is found, and serves more
    /// barns than seats (never with one barn a seat) and debug builds' check.
    #[cold]
    #[inline(never)]
    pub(crate) fn drop_barn_farm_deploys_general(
        &self,
        view: &View<'_>,
        actions: &mut Offered<'_>,
    ) {
        let g = view.state.graph();
        let claims = |a: &Action| match a {
            Action::Deploy { figure, segment } => self.claims(*figure).then_some(*segment),
            _ => None,
        };
        let barn_farms = self.barn_farms(view);
        actions.retain(|a| !claims(a).is_some_and(|s| barn_farms.contains(&g.feature_of(s))));
    }
}
