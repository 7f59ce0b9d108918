//! The title band and the side panel: players and scores, titles, off-board features
//! (the City of Carcassonne's quarters) with their figures, and the legend.

use super::figures::draw_figure;
use super::legend::legend;
use super::marks::{figure_shape, text};
use super::PANEL_W;
use crate::style::{self, esc, num, FigureShape, Look};
use crate::RenderOptions;
use carcassonne_core::{
    FigureId, FigureKindId, Game, PlayerId, Ruleset, Shape, SlotId, SlotScope, Visible,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The title band: what is shown and where the game stands.
pub(super) fn title(out: &mut String, game: &Game, opts: &RenderOptions) {
    let rules = game.rules();
    let st = game.state();
    let _ = writeln!(out, r#"<g id="title">"#);
    let mut head = "Carcassonne".to_string();
    if let Some(c) = &opts.caption {
        head.push_str(" — ");
        head.push_str(c);
    }
    text(out, 14.0, 24.0, 18.0, r#"font-weight="bold""#, &head);
    let sets: Vec<String> = std::iter::once("base game".to_string())
        .chain(rules.expansions().iter().map(|e| e.id().to_string()))
        .collect();
    let state = if game.is_over() {
        "game over".to_string()
    } else {
        let d = game.decision();
        format!(
            "next: {}",
            st.players()
                .get(d.player.index())
                .map_or("?", |p| p.name.as_str())
        )
    };
    let line = format!(
        "{} · turn {} · {} tiles placed, {} discarded, {} left · {}",
        sets.join(" + "),
        st.turn(),
        st.board().tiles().len(),
        st.discards().len(),
        st.supply()
            .groups
            .iter()
            .map(|g| g.tiles.len())
            .sum::<usize>(),
        state
    );
    text(
        out,
        14.0,
        44.0,
        12.0,
        &format!(r#"fill="{}""#, style::MUTED),
        &line,
    );
    let _ = writeln!(out, "</g>");
}

/// `expansion.name` of a slot.
pub(super) fn slot_label(rules: &Ruleset, i: usize) -> String {
    let d = &rules.slots()[i];
    let exp = rules
        .expansions()
        .get(d.expansion.0 as usize)
        .map_or("?", |e| e.id());
    format!("{exp}.{}", d.name)
}

/// Players and scores, titles, off-board features, legend. Returns the y of its bottom.
pub(super) fn draw_panel(
    out: &mut String,
    game: &Game,
    x: f64,
    mut y: f64,
    virtual_figs: &BTreeMap<u32, Vec<FigureId>>,
) -> f64 {
    let rules = game.rules();
    let st = game.state();
    let w = PANEL_W;
    let _ = writeln!(out, r#"<g id="panel">"#);
    let _ = writeln!(out, r#"<g id="scores">"#);
    text(out, x, y + 16.0, 15.0, r#"font-weight="bold""#, "Players");
    y += 26.0;
    let best = st.players().iter().map(|p| p.score).max().unwrap_or(0);
    let to_move = (!game.is_over()).then(|| game.decision().player);
    let player_slots: Vec<usize> = rules
        .slots()
        .iter()
        .enumerate()
        .filter(|(_, d)| d.scope == SlotScope::Player)
        .map(|(i, _)| i)
        .collect();
    for (p, player) in st.players().iter().enumerate() {
        let colour = style::player_colour(p);
        let _ = writeln!(
            out,
            r#"<g class="player" data-owner="{p}" data-player="{}" data-score="{}">"#,
            esc(&player.name),
            player.score
        );
        if to_move == Some(PlayerId(p as u8)) {
            let _ = writeln!(
                out,
                r#"<path d="M{} {} L{} {} L{} {} Z" fill="{}"/>"#,
                num(x),
                num(y + 4.0),
                num(x + 8.0),
                num(y + 10.0),
                num(x),
                num(y + 16.0),
                style::INK
            );
        }
        figure_shape(
            out,
            &FigureShape::Meeple.path(),
            x + 22.0,
            y + 10.0,
            10.0,
            0,
            colour,
        );
        let mut name: String = player.name.chars().take(22).collect();
        if game.is_over() && player.score == best {
            name.push_str("  (winner)");
        }
        text(out, x + 38.0, y + 15.0, 14.0, "", &name);
        text(
            out,
            x + w - 8.0,
            y + 16.0,
            17.0,
            r#"font-weight="bold" text-anchor="end""#,
            &player.score.to_string(),
        );
        // Figures in supply, per kind.
        let mut sx = x + 38.0;
        for (k, def) in rules.figure_kinds().iter().enumerate() {
            if def.per_player == 0 {
                continue;
            }
            let n = st.in_supply(PlayerId(p as u8), FigureKindId(k as u8));
            let (outline, _) = style::figure_outline(k, def);
            figure_shape(out, &outline, sx + 5.0, y + 29.0, 6.0, 0, colour);
            text(
                out,
                sx + 13.0,
                y + 33.0,
                11.0,
                &format!(r#"fill="{}""#, style::MUTED),
                &format!("×{n}"),
            );
            sx += 44.0;
        }
        y += 42.0;
        if !player_slots.is_empty() {
            let parts: Vec<String> = player_slots
                .iter()
                // The slot's own name (`token 0`), not its key (`tactician.token 0`).
                .map(|&i| {
                    let name = rules.slots()[i].name.replace(['-', '_'], " ");
                    format!("{name} {}", st.slot(SlotId(i as u16), p))
                })
                .collect();
            // Wrapped to the panel's width (about 6 px a character at this size).
            let mut lines: Vec<String> = vec![String::new()];
            for part in parts {
                let cur = lines.last_mut().expect("one line at least");
                if !cur.is_empty() && cur.chars().count() + part.chars().count() + 3 > 42 {
                    lines.push(part);
                } else {
                    if !cur.is_empty() {
                        cur.push_str(" · ");
                    }
                    cur.push_str(&part);
                }
            }
            for line in &lines {
                text(
                    out,
                    x + 38.0,
                    y + 2.0,
                    10.0,
                    &format!(r#"fill="{}""#, style::MUTED),
                    line,
                );
                y += 13.0;
            }
        }
        let _ = writeln!(out, "</g>");
    }
    let _ = writeln!(out, "</g>");

    // What the expansions show of their state (titles, neutral figures): nothing here
    // names an expansion. A failing `describe` leaves that part out of the picture.
    let mut shown = Vec::new();
    let _ = game.view().describe(&mut shown);
    let mut groups_done: Vec<&str> = Vec::new();
    for v in &shown {
        let Visible::Title { group, .. } = v else {
            continue;
        };
        if groups_done.contains(&group.as_str()) {
            continue;
        }
        groups_done.push(group);
        y += 6.0;
        text(out, x, y + 16.0, 15.0, r#"font-weight="bold""#, group);
        y += 26.0;
        for t in &shown {
            let Visible::Title {
                group: g,
                name,
                icon,
                holder,
                detail,
            } = t
            else {
                continue;
            };
            if g != group {
                continue;
            }
            let colour = holder.map_or("#dddddd", |h| style::player_colour(h.index()));
            let _ = writeln!(
                out,
                r#"<g class="holder" data-title="{}" data-owner="{}">"#,
                esc(&name.to_lowercase()),
                holder.map_or("none".to_string(), |h| h.0.to_string())
            );
            figure_shape(
                out,
                &style::icon_path(icon),
                x + 14.0,
                y + 9.0,
                10.0,
                0,
                colour,
            );
            let who = holder
                .and_then(|h| st.players().get(h.index()))
                .map_or_else(|| "nobody yet".to_string(), |p| p.name.clone());
            let detail = if detail.is_empty() {
                String::new()
            } else {
                format!(" ({detail})")
            };
            text(
                out,
                x + 32.0,
                y + 14.0,
                13.0,
                "",
                &format!("{name}: {who}{detail}"),
            );
            let _ = writeln!(out, "</g>");
            y += 24.0;
        }
    }

    // Off-board features (the City of Carcassonne's quarters) with their figures.
    let neutral_at = |seg: carcassonne_core::SegmentId| {
        shown.iter().find_map(|v| match v {
            Visible::NeutralFigure {
                name,
                icon,
                segment,
                ..
            } if *segment == seg => Some((name.as_str(), icon.as_str())),
            _ => None,
        })
    };
    let place_of = |seg: carcassonne_core::SegmentId| {
        shown.iter().find_map(|v| match v {
            Visible::Place {
                group,
                name,
                segment,
            } if *segment == seg => Some((group.as_str(), name.as_str())),
            _ => None,
        })
    };
    let mut groups: BTreeMap<u8, Vec<carcassonne_core::SegmentId>> = BTreeMap::new();
    let g = st.graph();
    for n in g.graph().node_indices() {
        let node = g.segment(n);
        if !node.is_virtual() {
            continue;
        }
        let shown = rules.kind(node.kind).shape == Shape::Virtual
            || virtual_figs.contains_key(&(n.index() as u32));
        if shown {
            groups.entry(node.kind.0).or_default().push(n);
        }
    }
    let mut count_drawn = false;
    for (kind, segs) in &groups {
        let def = &rules.kinds()[*kind as usize];
        let look = Look::of(def);
        y += 6.0;
        // Headings and names come from the expansion's `Visible::Place`s.
        let heading = segs
            .iter()
            .find_map(|s| place_of(*s).map(|(group, _)| group.to_string()))
            .unwrap_or_else(|| format!("{} (off the board)", def.name));
        text(out, x, y + 16.0, 15.0, r#"font-weight="bold""#, &heading);
        y += 24.0;
        let (bw, bh) = ((w - 10.0) / 2.0, 56.0);
        for (k, seg) in segs.iter().enumerate() {
            let node = g.segment(*seg);
            let bx = x + (k % 2) as f64 * (bw + 10.0);
            let by = y + (k / 2) as f64 * (bh + 8.0);
            let name = place_of(*seg).map_or_else(
                || format!("{} #{}", def.name, node.local),
                |(_, name)| name.to_string(),
            );
            let _ = writeln!(
                out,
                r#"<path class="seg" data-virtual="true" data-segment="{}" data-local="{}" data-kind="{}" data-location="{}" data-shape="area" d="M{} {} L{} {} L{} {} L{} {} Z" fill="{}" stroke="{}" stroke-width="1.5"/>"#,
                seg.index(),
                node.local,
                esc(&def.name),
                format_args!("#{}", node.local),
                num(bx),
                num(by),
                num(bx + bw),
                num(by),
                num(bx + bw),
                num(by + bh),
                num(bx),
                num(by + bh),
                look.fill(),
                look.edge()
            );
            text(
                out,
                bx + 6.0,
                by + 14.0,
                12.0,
                r#"font-weight="bold""#,
                &name,
            );
            let figs = virtual_figs
                .get(&(seg.index() as u32))
                .cloned()
                .unwrap_or_default();
            let neutral = neutral_at(*seg);
            let slots = figs.len() + usize::from(neutral.is_some());
            let step = if slots > 0 {
                ((bw - 16.0) / slots as f64).min(24.0)
            } else {
                24.0
            };
            let r = (step * 0.45).min(11.0);
            for (j, f) in figs.iter().enumerate() {
                let fx = bx + 14.0 + j as f64 * step;
                let fy = by + 36.0;
                let attrs = format!(
                    r#"data-feature="{}" data-location="{}" data-segment="{}""#,
                    esc(&def.name),
                    format_args!("#{}", node.local),
                    seg.index()
                );
                draw_figure(out, game, *f, fx, fy, r, false, &attrs);
            }
            if let Some((name, icon)) = neutral {
                let fx = bx + bw - 16.0;
                let _ = writeln!(
                    out,
                    r#"<g class="{}" data-quarter="{}" data-x="{}" data-y="{}">"#,
                    esc(name),
                    node.local,
                    num(fx),
                    num(by + 36.0)
                );
                figure_shape(
                    out,
                    &style::icon_path(icon),
                    fx,
                    by + 36.0,
                    12.0,
                    0,
                    style::COUNT,
                );
                let _ = writeln!(out, "</g>");
                count_drawn = true;
            }
        }
        y += (segs.len().div_ceil(2)) as f64 * (bh + 8.0);
        // A neutral figure drawn here gets a caption naming it (`count` → "the Count").
        if let Some(name) = segs
            .iter()
            .find_map(|s| neutral_at(*s).map(|(name, _)| name))
        {
            let mut title = name.to_string();
            if let Some(first) = title.get(..1).map(str::to_ascii_uppercase) {
                title.replace_range(..1, &first);
            }
            text(
                out,
                x,
                y + 10.0,
                10.0,
                &format!(r#"fill="{}""#, style::MUTED),
                &format!("the purple crowned pawn is the {title}"),
            );
            y += 16.0;
        }
    }

    y += 10.0;
    let y = legend(out, rules, x, y, true, count_drawn);
    let _ = writeln!(out, "</g>");
    y
}
