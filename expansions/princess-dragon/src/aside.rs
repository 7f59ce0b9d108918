//! Dragon tiles before the dragon (PD-3): set aside while the dragon is not in play, put
//! back as the active supply group `dragon` with the first volcano, as JCloisterZone does.

use crate::{PdRules, MAX_ASIDE_KINDS};

use carcassonne_core::{Ctx, DrawMode, SupplyGroup};

impl PdRules {
    /// PD-3: takes every dragon tile out of the supply while the dragon is not in play.
    /// A position's stack (`InOrder`, scenarios) also keeps where each tile was, so a
    /// position that puts the dragon in play gets its stack back unchanged.
    pub(crate) fn set_aside(&self, ctx: &mut Ctx<'_>) {
        if self.aside_kinds.is_empty() || ctx.get(self.ids.dragon) != 0 {
            return;
        }
        let mut counts = [0u32; MAX_ASIDE_KINDS];
        let mut places: Vec<i64> = Vec::new();
        let index = &self.aside_index;
        let supply = ctx.supply_mut();
        let in_order = supply.mode == DrawMode::InOrder && supply.groups.len() == 1;
        for g in supply.groups.iter_mut() {
            let mut at = 0i64;
            g.tiles.retain(|t| {
                let keep = match index.get(t.0 as usize).copied().flatten() {
                    Some(i) => {
                        counts[i] += 1;
                        if in_order && at < 1000 {
                            places.push((at << 6 | i as i64) + 1);
                        }
                        false
                    }
                    None => true,
                };
                at += 1;
                keep
            });
        }
        let remaining = ctx.state().supply().remaining() as i64;
        let mut slots = [0i64; 4];
        // Only the dragon tile kinds have counts.
        for (i, n) in counts.iter().take(self.aside_kinds.len()).enumerate() {
            slots[i / 16] |= i64::from((*n).min(15)) << (4 * (i % 16));
        }
        for (s, v) in self.ids.aside.iter().zip(slots) {
            ctx.set(*s, v);
        }
        if in_order && places.len() <= 16 {
            let mut slots = [0i64; 4];
            for (k, e) in places.iter().enumerate() {
                slots[k / 4] |= e << (16 * (k % 4));
            }
            for (s, v) in self.ids.aside_at.iter().zip(slots) {
                ctx.set(*s, v);
            }
            ctx.set(self.ids.aside_left, remaining + 1);
        }
    }

    /// PD-3: the set-aside dragon tiles go back into the stack.
    pub(crate) fn restore_aside(&self, ctx: &mut Ctx<'_>) {
        let mut tiles = Vec::new();
        for (i, kind) in self.aside_kinds.iter().enumerate() {
            let n = (ctx.get(self.ids.aside[i / 16]) >> (4 * (i % 16))) & 15;
            tiles.extend(std::iter::repeat_n(*kind, n as usize));
        }
        let mut places = Vec::new();
        for k in 0..16 {
            let e = (ctx.get(self.ids.aside_at[k / 4]) >> (16 * (k % 4))) & 0xffff;
            if e > 0 {
                let kind = self.aside_kinds.get(((e - 1) & 63) as usize).copied();
                places.push(((e - 1) >> 6, kind));
            }
        }
        // Nothing drawn since the tiles went aside: each goes back where it was.
        let untouched = ctx.get(self.ids.aside_left) == ctx.state().supply().remaining() as i64 + 1
            && places.len() == tiles.len();
        for s in self.ids.aside.into_iter().chain(self.ids.aside_at) {
            ctx.set(s, 0);
        }
        ctx.set(self.ids.aside_left, 0);
        if tiles.is_empty() {
            return;
        }
        let supply = ctx.supply_mut();
        let in_order = supply.mode == DrawMode::InOrder;
        match supply.groups.iter_mut().find(|g| g.name == "default") {
            Some(g) if in_order && untouched => {
                for (at, kind) in places {
                    if let Some(kind) = kind {
                        let at = (at as usize).min(g.tiles.len());
                        g.tiles.insert(at, kind);
                    }
                }
            }
            // A position's stack after draws (scenarios): they come back on top, in
            // catalog order.
            Some(g) if in_order => {
                g.tiles.splice(0..0, tiles);
            }
            Some(_) | None if in_order => supply.groups.push(SupplyGroup {
                name: "default".into(),
                tiles,
                active: true,
            }),
            // As JCloisterZone activates its `dragon` group: drawable at once, beside
            // whatever group is active (the same draws for its importer).
            _ => match supply.groups.iter_mut().find(|g| g.name == "dragon") {
                Some(g) => {
                    g.tiles.extend(tiles);
                    g.active = true;
                }
                None => supply.groups.push(SupplyGroup {
                    name: "dragon".into(),
                    tiles,
                    active: true,
                }),
            },
        }
        self.sync_groups(ctx);
    }

    /// Keeps the `dragon` group from holding back the rest of the stack: while it is the
    /// only active group with tiles (a river phase just ended), the next group with tiles
    /// is activated beside it, as the engine would have activated it alone.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn sync_groups(&self, ctx: &mut Ctx<'_>) {
        let sup = ctx.state().supply();
        if sup.mode == DrawMode::InOrder
            || sup
                .groups
                .iter()
                .any(|g| g.active && !g.tiles.is_empty() && g.name != "dragon")
            || !sup.groups.iter().any(|g| g.active && g.name == "dragon")
        {
            return;
        }
        let Some(i) = sup
            .groups
            .iter()
            .position(|g| g.name != "dragon" && !g.tiles.is_empty())
        else {
            return;
        };
        ctx.supply_mut().groups[i].active = true;
    }
}
