//! The legend: what each feature kind, figure kind and symbol of the ruleset looks like,
//! built from what the ruleset declares.

use super::marks::{figure_shape, kind_swatch, pennant, symbol, tag_symbol, text};
use super::tile::class_of;
use crate::geometry::Class;
use crate::style::{self, num, FigureShape, Look};
use carcassonne_core::{Ruleset, Shape};
use std::fmt::Write as _;

/// Draws the legend at (x, y) in `width`; returns the y below it.
pub(crate) fn legend(
    out: &mut String,
    rules: &Ruleset,
    x: f64,
    mut y: f64,
    with_figures: bool,
    count: bool,
) -> f64 {
    let _ = writeln!(out, r#"<g id="legend">"#);
    text(out, x, y + 14.0, 15.0, r#"font-weight="bold""#, "Legend");
    y += 24.0;
    let row = |out: &mut String, y: &mut f64, label: &str| {
        text(out, x + 34.0, *y + 12.5, 12.0, "", label);
        *y += 20.0;
    };
    for def in rules.kinds() {
        let look = Look::of(def);
        kind_swatch(out, &look, x, y);
        let label = match look {
            Look::City => "city (walls)".to_string(),
            Look::Road => "road".to_string(),
            Look::River => "river".to_string(),
            Look::Field => "field".to_string(),
            Look::Cloister => "cloister".to_string(),
            Look::Shrine => "shrine".to_string(),
            _ => format!("{} ({})", def.name, shape_word(def.shape)),
        };
        row(out, &mut y, &label);
    }
    pennant(out, x + 13.0, y + 8.0, 6.5);
    row(out, &mut y, "pennant");
    // Tag symbols, for the tags some loaded tile carries.
    for (tag, sym) in style::TAG_SYMBOLS {
        let used = rules
            .tiles()
            .iter()
            .any(|(_, k)| k.segments.iter().any(|s| s.tags.iter().any(|t| t == tag)));
        if !used {
            continue;
        }
        if let style::TagSymbol::Goods(colour) = sym {
            symbol(out, tag, colour, x + 13.0, y + 8.0, 6.0);
            row(out, &mut y, &format!("{tag} (goods symbol)"));
        } else {
            tag_symbol(out, *sym, x + 13.0, y + 8.0, 7.0);
            row(out, &mut y, tag);
        }
    }
    let v = crate::geometry::VILLAGE_HALF * 60.0;
    let _ = writeln!(
        out,
        r##"<rect x="{}" y="{}" width="26" height="16" fill="{}"/><path d="M{} {} L{} {} L{} {} L{} {} L{} {} Z" fill="{}" stroke="#3b2a1e" stroke-width="1"/>"##,
        num(x),
        num(y),
        style::FIELD,
        num(x + 13.0 - v),
        num(y + 8.0 + v),
        num(x + 13.0 - v),
        num(y + 8.0 - v * 0.3),
        num(x + 13.0),
        num(y + 8.0 - v * 1.2),
        num(x + 13.0 + v),
        num(y + 8.0 - v * 0.3),
        num(x + 13.0 + v),
        num(y + 8.0 + v),
        style::VILLAGE
    );
    row(out, &mut y, "village (roads end here)");
    let _ = writeln!(
        out,
        r#"<rect x="{}" y="{}" width="26" height="16" fill="{}"/><path d="M{} {} L{} {}" stroke="{}" stroke-width="1.2" stroke-dasharray="3 2"/>"#,
        num(x),
        num(y),
        style::FIELD,
        num(x + 2.0),
        num(y + 14.0),
        num(x + 24.0),
        num(y + 2.0),
        style::FIELD_LINE
    );
    row(out, &mut y, "border between two fields");
    let stone = rules.tiles().iter().any(|(_, k)| {
        let (walled, fields) =
            k.segments
                .iter()
                .fold((0u8, 0u8), |(w, f), s| match class_of(rules.kind(s.kind)) {
                    Class::Walled => (w | s.sides.0, f),
                    Class::Field => (w, f | s.halves.0),
                    _ => (w, f),
                });
        !k.barrier
            && (k.segments.is_empty()
                || (0..8).any(|h| walled & (1 << (h / 2)) == 0 && fields & (1 << h) == 0))
    });
    if stone {
        let _ = writeln!(
            out,
            r##"<rect x="{}" y="{}" width="26" height="16" fill="{}" stroke="#9a9284" stroke-width="1"/>"##,
            num(x),
            num(y),
            style::STONE
        );
        row(out, &mut y, "no feature (City of Carcassonne)");
    }
    if rules.tiles().iter().any(|(_, k)| k.barrier) {
        let _ = writeln!(
            out,
            r#"<rect x="{}" y="{}" width="26" height="16" fill="{}" stroke="{}" stroke-width="3"/>"#,
            num(x + 1.5),
            num(y + 1.5),
            style::ABBEY_GROUND,
            style::ABBEY_WALL
        );
        row(out, &mut y, "abbey (closes every edge)");
    }
    if with_figures {
        for (k, def) in rules.figure_kinds().iter().enumerate() {
            let (outline, scale) = style::figure_outline(k, def);
            // A kind without a colour of its own in grey (each seat has its colour); a
            // neutral figure in the colour it is drawn in, named as nobody's.
            let colour = style::kind_colour(def).unwrap_or("#bbbbbb");
            let label = if def.is_neutral() {
                format!("{} (neutral)", def.name)
            } else {
                def.name.clone()
            };
            figure_shape(out, &outline, x + 13.0, y + 8.0, 8.0 * scale, 0, colour);
            row(out, &mut y, &label);
        }
        figure_shape(
            out,
            &FigureShape::Meeple.path(),
            x + 13.0,
            y + 8.0,
            8.0,
            1,
            "#bbbbbb",
        );
        row(out, &mut y, "lying: a farmer (on a field)");
        if count {
            figure_shape(
                out,
                &style::count_path(),
                x + 13.0,
                y + 8.0,
                8.0,
                0,
                style::COUNT,
            );
            row(out, &mut y, "the Count");
        }
        let _ = writeln!(
            out,
            r#"<rect x="{}" y="{}" width="26" height="16" fill="none" stroke="{}" stroke-width="3"/>"#,
            num(x),
            num(y),
            style::LAST
        );
        row(out, &mut y, "tile placed last");
        text(out, x + 2.0, y + 12.0, 10.0, r##"fill="#333""##, "12");
        row(out, &mut y, "placement order of a tile");
    }
    let _ = writeln!(out, "</g>");
    y
}

fn shape_word(s: Shape) -> &'static str {
    match s {
        Shape::Edge {
            fields_alongside: false,
            ..
        } => "walled edge",
        Shape::Edge { .. } => "edge",
        Shape::Field => "field",
        Shape::Site => "site",
        Shape::Virtual => "off-board",
    }
}
