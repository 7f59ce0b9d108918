//! # carcassonne-raster
//!
//! SVG → PNG in pure Rust: resvg (usvg + tiny-skia), with the DejaVu Sans fonts embedded
//! from the `dejavu` crate, so labels and scores render the same on any machine, without
//! system fonts or libraries; and [`write_image`], which writes SVG text as SVG or PNG by
//! the output's extension.
//!
//! The only crate of the workspace that depends on resvg and the fonts. It must not know
//! games at all (not even core): it turns SVG text into pixels, so crates that draw games
//! (`carcassonne-render`) or test them stay free of it.

use resvg::{tiny_skia, usvg};
use std::path::{Path, PathBuf};

/// Why an image could not be written.
#[derive(Debug, thiserror::Error)]
pub enum RasterError {
    /// The output path ends in neither `.svg` nor `.png`.
    #[error("{}: the output must end in .svg or .png", path.display())]
    Format {
        /// The output file.
        path: PathBuf,
    },
    /// The SVG could not be rasterised (too large, malformed).
    #[error("{path}: cannot render: {message}")]
    Render {
        /// The output file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The file could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The output file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// The image format of an output path, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// `.svg`
    Svg,
    /// `.png`
    Png,
}

impl ImageFormat {
    /// The format `path` asks for; an error for any other extension.
    pub fn of(path: &Path) -> Result<ImageFormat, RasterError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("svg") => Ok(ImageFormat::Svg),
            Some("png") => Ok(ImageFormat::Png),
            _ => Err(RasterError::Format {
                path: path.to_path_buf(),
            }),
        }
    }
}

/// Writes SVG text to `path` as SVG or PNG (by its extension).
pub fn write_image(path: &Path, svg: &str) -> Result<(), RasterError> {
    let bytes = match ImageFormat::of(path)? {
        ImageFormat::Svg => svg.as_bytes().to_vec(),
        ImageFormat::Png => svg_to_png(svg, 1.0).map_err(|message| RasterError::Render {
            path: path.to_path_buf(),
            message,
        })?,
    };
    std::fs::write(path, bytes).map_err(|source| RasterError::Io {
        path: path.to_path_buf(),
        source,
    })
}

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

/// The embedded sans-serif font (DejaVu Sans), for other drawing code that must measure
/// text the same way on every machine (the balance report's charts).
pub fn sans_font() -> &'static [u8] {
    dejavu::sans::regular()
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
