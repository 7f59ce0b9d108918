//! The wagon (AM-14 … AM-18): where it may go after its feature is scored (AM-16: `C1`
//! connected to the scored feature, `C2` on its tile or the 8 around it).

use crate::AmRules;
use carcassonne_core::{FeatureId, FeatureKindId, Pos, Scoring, SegmentId, Shape, View};

impl AmRules {
    /// Whether segment `s` of a placed tile is a road ending on its tile that runs into
    /// `other` (a site or a city segment of the same tile): by a shared link tag, or, on a
    /// tile without link tags (unless `wagonJunctions=tagged`), a road ending on a tile with
    /// a site runs into the site.
    fn linked(&self, view: &View<'_>, a: SegmentId, b: SegmentId) -> bool {
        let g = view.state.graph();
        let (na, nb) = (g.segment(a), g.segment(b));
        if na.is_virtual() || nb.is_virtual() || na.tile != nb.tile || a == b {
            return false;
        }
        let Some(t) = view.state.board().tiles().get(na.tile as usize) else {
            return false;
        };
        let k = t.kind.0 as usize;
        if self.has_links[k] {
            // Two cities never connect (AM-16), even when one link names both; JCZ joins
            // every feature of a `wagon-move` group (`wagonCityLinks=linked`).
            let city = |n: &carcassonne_core::SegmentNode| {
                view.rules.kind(n.kind).scoring == Scoring::City
            };
            let l = &self.links[k];
            return l[na.local as usize] & l[nb.local as usize] != 0
                && (self.city_links || !(city(na) && city(nb)));
        }
        // `wagonJunctions=tagged` (JCZ): a tile without link tags links nothing.
        if self.tags_only {
            return false;
        }
        let road = FeatureKindId::ROAD;
        let site = |n: &carcassonne_core::SegmentNode| view.rules.kind(n.kind).shape == Shape::Site;
        (na.kind == road && na.sides.len() == 1 && site(nb))
            || (nb.kind == road && nb.sides.len() == 1 && site(na))
    }

    /// The wagon's targets after the feature of segment `from` was scored (AM-16): one
    /// segment per target feature and tile it has segments on, in a fixed order. Each
    /// candidate is judged as it is found (the order of a list of them judged after), with
    /// no list allocated; debug builds compare with `wagon_targets_listed`, the first form.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn wagon_targets(
        &self,
        view: &View<'_>,
        from: SegmentId,
        up: bool,
        out: &mut Vec<SegmentId>,
    ) {
        out.clear();
        let g = view.state.graph();
        if from.index() >= g.len() {
            return;
        }
        let scored = g.feature_of(from);
        let mut take = |s: SegmentId| self.take_target(view, scored, s, out);
        self.each_candidate(view, from, up, &mut take);
        #[cfg(debug_assertions)]
        {
            let mut listed = Vec::new();
            self.wagon_targets_listed(view, from, up, &mut listed);
            assert_eq!(*out, listed, "the wagon's targets");
        }
    }

    /// How many tiles around the wagon's tile its candidates lie. C2: the 3 × 3 tiles around
    /// it; an upgraded wagon (PR-5, AP-6) also reaches the 3 × 3 under C1 and the 5 × 5 under
    /// C2.
    fn reach(&self, up: bool) -> i32 {
        match (self.c2, up) {
            (true, true) => 2,
            (true, false) | (false, true) => 1,
            (false, false) => 0,
        }
    }

    /// Candidate `s` of [`AmRules::wagon_targets`] added to `out` if it is a target: a
    /// segment a wagon stands on, of an unfinished, unscored, unoccupied feature other than
    /// `scored`, which has no segment in `out` on the same tile yet.
    #[inline]
    fn take_target(
        &self,
        view: &View<'_>,
        scored: FeatureId,
        s: SegmentId,
        out: &mut Vec<SegmentId>,
    ) {
        let g = view.state.graph();
        let node = g.segment(s);
        if node.is_virtual() || !self.wagon_on.contains(node.kind) {
            return;
        }
        let f = g.feature_of(s);
        let t = g.totals(f);
        if f == scored || t.complete() || t.scored || t.occupants > 0 {
            return;
        }
        // One segment per target feature and tile (JCZ offers every segment): a ban on
        // one tile (the dragon's, PD-5) then leaves the feature's segments on the others.
        if out
            .iter()
            .any(|o| g.feature_of(*o) == f && g.segment(*o).tile == node.tile)
        {
            return;
        }
        out.push(s);
    }

    /// The candidate segments of AM-16 for the wagon that stood on `from`, in a fixed
    /// order (a segment may come more than once), given to `take`.
    fn each_candidate(
        &self,
        view: &View<'_>,
        from: SegmentId,
        up: bool,
        take: &mut dyn FnMut(SegmentId),
    ) {
        let g = view.state.graph();
        let scored = g.feature_of(from);
        let board = view.state.board();
        let tile_segments = |pos: Pos, take: &mut dyn FnMut(SegmentId)| {
            if let Some(t) = board.at(pos) {
                t.segments().for_each(&mut *take);
            }
        };
        let radius = self.reach(up);
        let origin = g.segment(from);
        if radius > 0 && !origin.is_virtual() {
            for dy in -radius..=radius {
                for dx in -radius..=radius {
                    tile_segments(Pos::new(origin.pos.x + dx, origin.pos.y + dy), take);
                }
            }
        }
        if self.c2 {
            return;
        }
        let road = FeatureKindId::ROAD;
        let scored_kind = g.kind(scored);
        for m in g.members(scored) {
            let node = g.segment(m);
            if node.is_virtual() {
                continue;
            }
            // The member's tile's segments (none if its cell is empty).
            let on_tile = board.at(node.pos).map(|t| t.segments());
            let on_tile = on_tile.into_iter().flatten();
            for o in on_tile.clone() {
                if self.linked(view, m, o) {
                    take(o);
                }
            }
            // (i) roads meeting where the scored road ends (a junction, no site there).
            if scored_kind == road && node.sides.len() == 1 && !self.tags_only {
                let site_here = on_tile
                    .clone()
                    .any(|o| view.rules.kind(g.segment(o).kind).shape == Shape::Site);
                let t = board.tiles()[node.tile as usize].kind.0 as usize;
                let linked_away = self.has_links[t] && self.links[t][node.local as usize] != 0;
                if !site_here && !linked_away {
                    for o in on_tile.clone() {
                        let on = g.segment(o);
                        let other_linked =
                            self.has_links[t] && self.links[t][on.local as usize] != 0;
                        if on.kind == road && on.sides.len() == 1 && !other_linked {
                            take(o);
                        }
                    }
                }
            }
            // (iv) abbey edges: a road or city closed by an abbey, and an abbey's closed
            // neighbours. Off an abbey only the member's own sides can face one, so the
            // other cells are not read.
            let here_abbey = self.abbey_out && self.is_abbey(view, node.tile as usize);
            for side in carcassonne_core::Side::ALL {
                if !here_abbey && !node.sides.contains(side) {
                    continue;
                }
                let q = node.pos.step(side);
                let Some(nt) = board.at(q) else { continue };
                let nk = view.rules.tiles().get(nt.kind);
                if here_abbey {
                    if let Some(b) = nk.segment_on_side(nt.rotation, side.opposite()) {
                        take(nt.segment(usize::from(b)));
                    }
                } else if nk.barrier {
                    tile_segments(q, take);
                }
            }
        }
    }

    /// [`AmRules::wagon_targets`] as it was written first (every candidate listed, each
    /// member's four neighbours read, then the list judged in order): debug builds' check.
    #[cfg(debug_assertions)]
    pub(crate) fn wagon_targets_listed(
        &self,
        view: &View<'_>,
        from: SegmentId,
        up: bool,
        out: &mut Vec<SegmentId>,
    ) {
        out.clear();
        let g = view.state.graph();
        if from.index() >= g.len() {
            return;
        }
        let scored = g.feature_of(from);
        let board = view.state.board();
        let mut cands: Vec<SegmentId> = Vec::new();
        let tile_segments = |pos: Pos, out: &mut Vec<SegmentId>| {
            if let Some(t) = board.at(pos) {
                out.extend(t.segments());
            }
        };
        let radius = self.reach(up);
        let origin = g.segment(from);
        if radius > 0 && !origin.is_virtual() {
            for dy in -radius..=radius {
                for dx in -radius..=radius {
                    tile_segments(Pos::new(origin.pos.x + dx, origin.pos.y + dy), &mut cands);
                }
            }
        }
        if !self.c2 {
            let road = FeatureKindId::ROAD;
            let scored_kind = g.kind(scored);
            let mut on_tile = Vec::new();
            for m in g.members(scored) {
                let node = g.segment(m);
                if node.is_virtual() {
                    continue;
                }
                on_tile.clear();
                tile_segments(node.pos, &mut on_tile);
                for &o in &on_tile {
                    if self.linked(view, m, o) {
                        cands.push(o);
                    }
                }
                // (i) roads meeting where the scored road ends (a junction, no site there).
                if scored_kind == road && node.sides.len() == 1 && !self.tags_only {
                    let site_here = on_tile
                        .iter()
                        .any(|o| view.rules.kind(g.segment(*o).kind).shape == Shape::Site);
                    let t = board.tiles()[node.tile as usize].kind.0 as usize;
                    let linked_away = self.has_links[t] && self.links[t][node.local as usize] != 0;
                    if !site_here && !linked_away {
                        for &o in &on_tile {
                            let on = g.segment(o);
                            let other_linked =
                                self.has_links[t] && self.links[t][on.local as usize] != 0;
                            if on.kind == road && on.sides.len() == 1 && !other_linked {
                                cands.push(o);
                            }
                        }
                    }
                }
                // (iv) abbey edges: a road or city closed by an abbey, and an abbey's
                // closed neighbours.
                let here_abbey = self.abbey_out && self.is_abbey(view, node.tile as usize);
                for side in carcassonne_core::Side::ALL {
                    let q = node.pos.step(side);
                    let Some(nt) = board.at(q) else { continue };
                    let nk = view.rules.tiles().get(nt.kind);
                    if here_abbey {
                        if let Some(b) = nk.segment_on_side(nt.rotation, side.opposite()) {
                            cands.push(nt.segment(usize::from(b)));
                        }
                    } else if nk.barrier && node.sides.contains(side) {
                        tile_segments(q, &mut cands);
                    }
                }
            }
        }
        // The same judgement as the fast path: the check compares the candidates.
        for s in cands {
            self.take_target(view, scored, s, out);
        }
    }
}
