//! What every picture shares: the canvas size, the colours, plotters' errors as [`PlotError`],
//! and the finishing touch that names the SVG (`<title>`, `<desc>`) for viewers and screen readers.

use crate::plot::PlotError;
use plotters::style::RGBColor;

/// Width and height of every picture, in SVG pixels.
pub(crate) const SIZE: (u32, u32) = (900, 560);

/// Series colours (Okabe-Ito, readable by colour-blind viewers), one per algorithm in
/// `Algorithm::ALL` order, then reused.
pub(crate) const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// The font of every text.
pub(crate) const FONT: &str = "sans-serif";

/// plotters' error as a [`PlotError`] (drawing into a string does no I/O: a bug if it happens).
pub(crate) fn draw_err(e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(e.to_string())
}

/// Text made safe inside an XML element.
pub(crate) fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// `svg` with a `<title>` and a `<desc>` right after its opening `<svg ...>` tag.
pub(crate) fn named(mut svg: String, title: &str, desc: &str) -> String {
    if let Some(start) = svg.find("<svg") {
        if let Some(end) = svg[start..].find('>') {
            let at = start + end + 1;
            let meta = format!(
                "\n<title>{}</title>\n<desc>{}</desc>",
                xml_escape(title),
                xml_escape(desc)
            );
            svg.insert_str(at, &meta);
        }
    }
    if !svg.ends_with('\n') {
        svg.push('\n');
    }
    svg
}

/// `x` with `decimals` decimals and no negative zero: axis labels and titles.
pub(crate) fn fixed(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_svg_after_its_opening_tag() {
        let s = named("<svg a=\"1\">\n<rect/></svg>".into(), "a<b", "c&d");
        assert!(s.starts_with("<svg a=\"1\">\n<title>a&lt;b</title>\n<desc>c&amp;d</desc>"));
        assert!(s.ends_with("</svg>\n"));
    }

    #[test]
    fn fixed_has_no_negative_zero() {
        assert_eq!(fixed(-0.0001, 2), "0.00");
        assert_eq!(fixed(-1.5, 1), "-1.5");
        assert_eq!(fixed(0.125, 2), "0.12");
    }
}
