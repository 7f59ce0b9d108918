//! SVG → PNG in pure Rust: resvg (usvg + tiny-skia), with the DejaVu Sans fonts embedded
//! from the `dejavu` crate, so labels and scores render the same on any machine, without
//! system fonts or libraries.

use resvg::{tiny_skia, usvg};

/// The font family the SVG asks for first, and the one embedded.
pub const FONT_FAMILY: &str = "DejaVu Sans";

/// Rasterises SVG text at `scale` (1.0 = one pixel per SVG unit) and encodes it as PNG.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, String> {
    encode(&rasterise(svg, scale)?)
}

/// The most pixels a PNG may have (64 megapixels, 256 MB of pixmap): a hostile record's
/// far-apart tiles would otherwise ask for gigabytes.
pub const MAX_PIXELS: u64 = 64 << 20;

/// Rasterises SVG text at `scale` into a pixmap.
pub fn rasterise(svg: &str, scale: f32) -> Result<tiny_skia::Pixmap, String> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(format!("scale {scale} must be positive"));
    }
    let mut opt = usvg::Options {
        font_family: FONT_FAMILY.to_string(),
        ..usvg::Options::default()
    };
    let db = opt.fontdb_mut();
    db.load_font_data(dejavu::sans::regular().to_vec());
    db.load_font_data(dejavu::sans::bold().to_vec());
    db.set_sans_serif_family(FONT_FAMILY);
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| format!("SVG: {e}"))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(scale)
        .ok_or_else(|| "the image has no size".to_string())?;
    let pixels = u64::from(size.width()) * u64::from(size.height());
    if pixels > MAX_PIXELS {
        return Err(format!(
            "a {}×{} PNG would have {pixels} pixels, more than the limit of {MAX_PIXELS}: \
             use a smaller --tile-size, or write SVG",
            size.width(),
            size.height()
        ));
    }
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).ok_or_else(|| {
        format!(
            "a {}×{} image is too large to rasterise",
            size.width(),
            size.height()
        )
    })?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    Ok(pixmap)
}

fn encode(pixmap: &tiny_skia::Pixmap) -> Result<Vec<u8>, String> {
    pixmap.encode_png().map_err(|e| format!("PNG: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dark pixels in the box (x0..x1, y0..y1).
    fn ink(p: &tiny_skia::Pixmap, x0: u32, y0: u32, x1: u32, y1: u32) -> usize {
        let mut n = 0;
        for y in y0..y1 {
            for x in x0..x1 {
                if let Some(c) = p.pixel(x, y) {
                    if c.alpha() > 200 && c.red() < 100 && c.green() < 100 && c.blue() < 100 {
                        n += 1;
                    }
                }
            }
        }
        n
    }

    #[test]
    fn text_reaches_the_png_with_the_embedded_font() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#fff"/><text x="10" y="30" font-size="24" font-family="DejaVu Sans">42</text></svg>"##;
        let p = rasterise(svg, 1.0).expect("renders");
        assert_eq!((p.width(), p.height()), (120, 40));
        assert!(ink(&p, 8, 8, 50, 34) > 40, "the digits are drawn");
        assert_eq!(ink(&p, 60, 0, 120, 40), 0, "nothing else is");
        // A family the machine does not have falls back to the embedded one through the
        // generic family, as the renderer's SVG lists it.
        let other = svg.replace("DejaVu Sans", "No Such Font, sans-serif");
        assert!(ink(&rasterise(&other, 1.0).expect("renders"), 8, 8, 50, 34) > 40);
    }

    #[test]
    fn a_huge_image_is_refused_before_allocating() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>"#;
        let e = rasterise(svg, 1.0).unwrap_err();
        assert!(e.contains("more than the limit"), "{e}");
    }

    #[test]
    fn bad_svg_is_an_error() {
        assert!(svg_to_png("<svg", 1.0).is_err());
        assert!(svg_to_png("<svg/>", 0.0).is_err());
    }
}
