//! Small drawing primitives shared by tiles, the board and the panel: tag symbols,
//! pennants, site icons, figure outlines, text and legend swatches. Each writes absolute
//! coordinates, so the same call always gives the same bytes.

use crate::style::{self, esc, num, path_data, Cmd, Look};
use std::fmt::Write as _;

/// A tag symbol centred on (x, y), `h` half high (goods are drawn by [`symbol`], which
/// names the tag; here a diamond without it).
pub(crate) fn tag_symbol(out: &mut String, sym: style::TagSymbol, x: f64, y: f64, h: f64) {
    match sym {
        style::TagSymbol::Goods(colour) => symbol(out, "goods", colour, x, y, h * 0.6),
        style::TagSymbol::Inn => {
            let _ = writeln!(
                out,
                r##"<g class="tag-inn" data-tag="inn"><path d="M{} {} L{} {} L{} {} L{} {} Z" fill="#f3e2c0" stroke="#5a3a1a" stroke-width="0.8"/><path d="M{} {} L{} {} L{} {} Z" fill="#b5452f" stroke="#5a3a1a" stroke-width="0.8"/></g>"##,
                num(x - h * 0.7),
                num(y + h * 0.7),
                num(x - h * 0.7),
                num(y - h * 0.1),
                num(x + h * 0.7),
                num(y - h * 0.1),
                num(x + h * 0.7),
                num(y + h * 0.7),
                num(x - h),
                num(y - h * 0.05),
                num(x),
                num(y - h * 0.9),
                num(x + h),
                num(y - h * 0.05)
            );
        }
        style::TagSymbol::Cathedral => {
            let _ = writeln!(
                out,
                r##"<g class="tag-cathedral" data-tag="cathedral"><path d="M{} {} L{} {} L{} {} L{} {} L{} {} L{} {} L{} {} Z" fill="#efe6d2" stroke="#4a3a5a" stroke-width="0.9"/><path d="M{} {} L{} {}" stroke="#4a3a5a" stroke-width="1"/></g>"##,
                num(x - h),
                num(y + h),
                num(x - h),
                num(y - h * 0.2),
                num(x - h * 0.3),
                num(y - h * 0.2),
                num(x),
                num(y - h * 1.2),
                num(x + h * 0.3),
                num(y - h * 0.2),
                num(x + h),
                num(y - h * 0.2),
                num(x + h),
                num(y + h),
                num(x),
                num(y - h * 1.2),
                num(x),
                num(y - h * 1.6)
            );
        }
    }
}

/// A tile symbol named by a segment tag (`wine`, `grain`, `cloth`): a small diamond in
/// its colour, centred on (x, y), `r` half wide.
pub(crate) fn symbol(out: &mut String, tag: &str, colour: &str, x: f64, y: f64, r: f64) {
    let _ = writeln!(
        out,
        r##"<path class="symbol" data-symbol="{}" d="M{} {} L{} {} L{} {} L{} {} Z" fill="{colour}" stroke="#ffffff" stroke-width="1"/>"##,
        esc(tag),
        num(x),
        num(y - r),
        num(x + r),
        num(y),
        num(x),
        num(y + r),
        num(x - r),
        num(y)
    );
}

/// A pennant centred on (x, y), `r` half wide.
pub(crate) fn pennant(out: &mut String, x: f64, y: f64, r: f64) {
    let _ = writeln!(
        out,
        r##"<path class="pennant" d="{}" fill="{}" stroke="#ffffff" stroke-width="1.2"/>"##,
        path_data(&style::shield_path(), x, y, r, 0),
        style::PENNANT
    );
}

/// The icon of a site kind in a square centred on (cx, cy), `h` half wide.
pub(crate) fn site_icon(out: &mut String, look: &Look, cx: f64, cy: f64, h: f64) {
    match look {
        Look::Cloister => {
            let _ = writeln!(
                out,
                r##"<path d="M{} {} L{} {} L{} {} L{} {} Z" fill="#f9f3e3" stroke="#7b5a33" stroke-width="0.8"/><path d="M{} {} L{} {} L{} {} Z" fill="#b5452f" stroke="#6e2415" stroke-width="0.8"/>"##,
                num(cx - h * 0.6),
                num(cy - h * 0.1),
                num(cx + h * 0.6),
                num(cy - h * 0.1),
                num(cx + h * 0.6),
                num(cy + h * 0.8),
                num(cx - h * 0.6),
                num(cy + h * 0.8),
                num(cx - h * 0.8),
                num(cy - h * 0.05),
                num(cx),
                num(cy - h * 0.85),
                num(cx + h * 0.8),
                num(cy - h * 0.05)
            );
        }
        Look::Shrine => {
            let _ = writeln!(
                out,
                r##"<path d="M{} {} L{} {} L{} {} L{} {} Z" fill="#5b3a70" stroke="#2e1b3b" stroke-width="0.8"/><path d="M{} {} C{} {} {} {} {} {} Z" fill="#8e6aa6" stroke="#2e1b3b" stroke-width="0.8"/>"##,
                num(cx - h * 0.6),
                num(cy - h * 0.1),
                num(cx + h * 0.6),
                num(cy - h * 0.1),
                num(cx + h * 0.6),
                num(cy + h * 0.8),
                num(cx - h * 0.6),
                num(cy + h * 0.8),
                num(cx - h * 0.6),
                num(cy - h * 0.1),
                num(cx - h * 0.6),
                num(cy - h * 0.95),
                num(cx + h * 0.6),
                num(cy - h * 0.95),
                num(cx + h * 0.6),
                num(cy - h * 0.1)
            );
        }
        other => {
            let mut d = String::new();
            for k in 0..8 {
                let a = std::f64::consts::PI * (k as f64 / 4.0 + 0.125);
                let _ = write!(
                    d,
                    "{}{} {} ",
                    if k == 0 { "M" } else { "L" },
                    num(cx + 0.75 * h * a.cos()),
                    num(cy + 0.75 * h * a.sin())
                );
            }
            let _ = writeln!(
                out,
                r#"<path d="{}Z" fill="{}" stroke="{}" stroke-width="0.8" opacity="0.8"/>"#,
                d,
                other.fill(),
                other.edge()
            );
        }
    }
}

/// A figure outline at (cx, cy), `r` = half its height, turned by `quarter`.
pub(crate) fn figure_shape(
    out: &mut String,
    cmds: &[Cmd],
    cx: f64,
    cy: f64,
    r: f64,
    quarter: u8,
    colour: &str,
) {
    let d = path_data(cmds, cx, cy, r, quarter);
    let _ = writeln!(
        out,
        r##"<path d="{d}" fill="none" stroke="#ffffff" stroke-width="{}" stroke-linejoin="round"/><path d="{d}" fill="{colour}" stroke="#111111" stroke-width="1" stroke-linejoin="round"/>"##,
        num((r * 0.3).max(2.0))
    );
}

/// Text at (x, y).
pub(crate) fn text(out: &mut String, x: f64, y: f64, size: f64, attrs: &str, content: &str) {
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" font-size="{}" {attrs}>{}</text>"#,
        num(x),
        num(y),
        num(size),
        esc(content)
    );
}

/// A swatch for a feature kind in the legend, in a 26×16 box at (x, y).
pub(crate) fn kind_swatch(out: &mut String, look: &Look, x: f64, y: f64) {
    let (w, h) = (26.0, 16.0);
    match look {
        Look::Road | Look::River | Look::Line(_) => {
            let _ = writeln!(
                out,
                r##"<rect x="{}" y="{}" width="{w}" height="{h}" fill="{}"/><path d="M{} {} L{} {}" stroke="{}" stroke-width="{}"/><path d="M{} {} L{} {}" stroke="{}" stroke-width="{}"/>"##,
                num(x),
                num(y),
                style::FIELD,
                num(x),
                num(y + h / 2.0),
                num(x + w),
                num(y + h / 2.0),
                look.edge(),
                num(look.width() * 60.0 + 2.5),
                num(x),
                num(y + h / 2.0),
                num(x + w),
                num(y + h / 2.0),
                look.fill(),
                num(look.width() * 60.0)
            );
        }
        Look::Cloister | Look::Shrine | Look::Site(_) => {
            let _ = writeln!(
                out,
                r#"<rect x="{}" y="{}" width="{w}" height="{h}" fill="{}"/>"#,
                num(x),
                num(y),
                style::FIELD
            );
            site_icon(out, look, x + w / 2.0, y + h / 2.0, h / 2.0);
        }
        _ => {
            let _ = writeln!(
                out,
                r#"<rect x="{}" y="{}" width="{w}" height="{h}" fill="{}" stroke="{}" stroke-width="1.5"/>"#,
                num(x),
                num(y),
                look.fill(),
                look.edge()
            );
        }
    }
}
