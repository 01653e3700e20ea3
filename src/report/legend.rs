//! The run picture's legends, drawn by hand in a column of their own to
//! the right of each chart, so that a legend never sits on the data and
//! never stretches an axis to make room (the fill axis ends at 100%).
//!
//! Each entry is a swatch drawn as its series is (a line, a dashed line, a
//! filled band or a marker) and a label; the entries stack from the top of
//! the column in the order they were added.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How a legend entry's swatch is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swatch {
    Line,
    Dashed,
    /// A filled rectangle, for a band.
    Band,
    /// A short vertical stroke, for an event marked at a moment.
    Marker,
}

/// One line of a legend.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub label: String,
    pub color: RGBColor,
    pub swatch: Swatch,
}

impl Entry {
    pub fn new(label: impl Into<String>, color: RGBColor, swatch: Swatch) -> Entry {
        Entry {
            label: label.into(),
            color,
            swatch,
        }
    }
}

/// Pixels per entry, the padding inside the box, the swatch's width and
/// the label's distance from the box's left edge.
const LINE_PX: i32 = 20;
const PAD_PX: i32 = 10;
const SWATCH_PX: i32 = 24;
const LABEL_X_PX: i32 = 40;
/// The label's font size, in pixels.
pub const FONT_PX: u32 = 13;
/// A band's opacity, in the chart and in its swatch alike.
pub const BAND_ALPHA: f64 = 0.55;

pub type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draws `entries` in `area`, a box from its top-left corner.
pub fn draw(area: &DrawingArea<SVGBackend<'_>, Shift>, entries: &[Entry]) -> DrawResult {
    if entries.is_empty() {
        return Ok(());
    }
    let width = area.dim_in_pixel().0 as i32;
    let (left, top) = (4, 12);
    let bottom = top + 2 * PAD_PX + LINE_PX * entries.len() as i32;
    area.draw(&Rectangle::new(
        [(left, top), (width - 6, bottom)],
        BLACK.mix(0.5).stroke_width(1),
    ))?;
    let text = ("sans-serif", FONT_PX)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (i, entry) in entries.iter().enumerate() {
        let y = top + PAD_PX + LINE_PX * i as i32 + LINE_PX / 2;
        let x = left + 10;
        swatch(area, entry, (x, y))?;
        area.draw(&Text::new(
            entry.label.clone(),
            (left + LABEL_X_PX, y),
            text.clone(),
        ))?;
    }
    Ok(())
}

/// The swatch of `entry` with its left end at `(x, y)`.
fn swatch(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    entry: &Entry,
    (x, y): (i32, i32),
) -> DrawResult {
    let color = entry.color;
    let line = vec![(x, y), (x + SWATCH_PX, y)];
    match entry.swatch {
        Swatch::Line => area.draw(&PathElement::new(line, color.stroke_width(2)))?,
        Swatch::Dashed => area.draw(&DashedPathElement::new(line, 6, 4, color.stroke_width(2)))?,
        Swatch::Band => area.draw(&Rectangle::new(
            [(x, y - 6), (x + SWATCH_PX, y + 6)],
            color.mix(BAND_ALPHA).filled(),
        ))?,
        Swatch::Marker => area.draw(&PathElement::new(
            vec![(x + SWATCH_PX / 2, y - 7), (x + SWATCH_PX / 2, y + 7)],
            color.stroke_width(2),
        ))?,
    }
    Ok(())
}
