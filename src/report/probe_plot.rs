//! The picture of a `tapebuf probe` sweep: rate (MB/s) against block size
//! on a log2 axis labelled as `-s` takes sizes (16k, 64k, 1M), with the
//! write and read medians as lines through one filled dot per measured
//! size, a bar from the slowest to the fastest run at each dot, and a
//! dashed line at each recommended size. A size whose read-back did not
//! match is ringed in black.
//!
//! The invariant the tests count on: each series draws exactly one filled
//! circle per measured size and nothing else draws a filled circle, so the
//! dots in the SVG can be checked against the results. The read series sits
//! a few hundredths of a doubling to the right of the write series so that
//! their bars do not hide each other.

use std::ops::Range;

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::base::size::size_flag;
use crate::probe::schema::{Measured, ProbeResults};
use crate::probe::table::headline;

const WIDTH: u32 = 900;
const HEIGHT: u32 = 560;
const WRITE: RGBColor = RGBColor(200, 60, 20);
const READ: RGBColor = RGBColor(30, 100, 220);
/// The horizontal offset of each series from its size, in doublings.
const DODGE_LOG2: f64 = 0.03;
/// Half the width of a bar's cap, in doublings.
const CAP_LOG2: f64 = 0.06;
/// The x axis spans at least this many doublings.
const MIN_SPAN_LOG2: f64 = 4.0;
/// At most this many sizes are labelled on the x axis; more are thinned.
const MAX_X_LABELS: usize = 12;

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draws the sweep `p` as an SVG document.
pub fn svg(p: &ProbeResults) -> Result<String, String> {
    let mut out = String::new();
    draw(p, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

fn draw(p: &ProbeResults, out: &mut String) -> DrawResult {
    let root = SVGBackend::with_string(out, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(&format!("tapebuf {}", headline(p)), ("sans-serif", 18))?;
    let axes = Axes::of(p);
    // The root, less the title, the margins and the x labels.
    let plot_px = f64::from(root.dim_in_pixel().1) - 2.0 * 16.0 - 44.0;
    let y_top = above_the_legend(axes.y_max, plot_px, 2 + axes.marked(p));

    let mut chart = ChartBuilder::on(&root)
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(
            Log2Sizes {
                range: axes.x_lo..axes.x_hi,
                ticks: axes.ticks.clone(),
            },
            0f64..y_top,
        )?;
    chart
        .configure_mesh()
        .x_desc("block size")
        .y_desc("rate (MB/s)")
        .light_line_style(WHITE)
        .draw()?;
    draw_rates(&mut chart, p, &axes.logs)?;
    draw_unverified(&mut chart, p, &axes.logs)?;
    draw_recommended(&mut chart, p, &axes)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

/// Pixels a legend line takes, and the box's own padding and border.
const LEGEND_LINE_PX: f64 = 20.0;
const LEGEND_PAD_PX: f64 = 24.0;

/// The top of the y axis that keeps the data below a legend of `entries`
/// lines in the upper corner: the data's top, `y_data_max`, stays under a
/// band as tall as the legend, so the legend never hides a point. `plot_px`
/// is the height of the plotting area.
fn above_the_legend(y_data_max: f64, plot_px: f64, entries: usize) -> f64 {
    let band = LEGEND_PAD_PX + LEGEND_LINE_PX * entries as f64;
    // A plot too small for the band keeps half of itself for the data.
    let data_px = (plot_px - band).max(plot_px / 2.0);
    y_data_max * plot_px / data_px
}

/// Where the sizes sit on the x axis, the axis' ends and ticks, and the
/// top of the data on the y axis.
struct Axes {
    /// log2 of each measured size.
    logs: Vec<f64>,
    x_lo: f64,
    x_hi: f64,
    ticks: Vec<f64>,
    /// The fastest run, in MB/s, with room above it.
    y_max: f64,
}

impl Axes {
    fn of(p: &ProbeResults) -> Axes {
        let logs: Vec<f64> = p
            .results
            .iter()
            .map(|r| (r.block_bytes as f64).log2())
            .collect();
        let (first, last) = (logs[0], logs[logs.len() - 1]);
        // Half a doubling beyond the ends, and at least MIN_SPAN_LOG2 in
        // all, so that the bars' caps and the dodge stay small beside the
        // axis.
        let pad = ((MIN_SPAN_LOG2 - (last - first)) / 2.0).max(0.5);
        let step = logs.len().div_ceil(MAX_X_LABELS);
        let ticks: Vec<f64> = logs.iter().copied().step_by(step).collect();
        let y_max = p
            .results
            .iter()
            .map(|r| r.write.max_bytes_per_s.max(r.read.max_bytes_per_s))
            .fold(0.0, f64::max)
            / 1e6
            * 1.15;
        Axes {
            logs,
            x_lo: first - pad,
            x_hi: last + pad,
            ticks,
            y_max: y_max.max(0.001),
        }
    }

    /// Whether a recommended size of `bytes` is drawn: one was made, and
    /// it lies on the axis.
    fn shows(&self, bytes: u64) -> bool {
        bytes != 0 && (self.x_lo..self.x_hi).contains(&(bytes as f64).log2())
    }

    /// How many recommended sizes are drawn, each a legend line.
    fn marked(&self, p: &ProbeResults) -> usize {
        let rec = &p.recommend;
        [rec.write_block_bytes, rec.read_block_bytes]
            .iter()
            .filter(|&&b| self.shows(b))
            .count()
    }
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Log2Sizes, RangedCoordf64>>;

/// The write and read medians, a line through a dot per size, each dot
/// with a bar from the slowest to the fastest run.
fn draw_rates<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, p: &ProbeResults, logs: &[f64]) -> DrawResult {
    let write: Vec<&Measured> = p.results.iter().map(|r| &r.write).collect();
    let read: Vec<&Measured> = p.results.iter().map(|r| &r.read).collect();
    let runs = match p.runs {
        1 => "1 run".to_string(),
        n => format!("median of {n} runs"),
    };
    for (name, color, dodge, series) in [
        ("write", WRITE, -DODGE_LOG2, &write),
        ("read", READ, DODGE_LOG2, &read),
    ] {
        let points: Vec<(f64, f64)> = logs
            .iter()
            .zip(series.iter())
            .map(|(x, m)| (x + dodge, m.median_bytes_per_s / 1e6))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(format!("{name}: {runs}, bar from slowest to fastest"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
        for ((x, _), m) in points.iter().zip(series.iter()) {
            let (lo, hi) = (m.min_bytes_per_s / 1e6, m.max_bytes_per_s / 1e6);
            let style = color.stroke_width(1);
            chart.draw_series([
                PathElement::new(vec![(*x, lo), (*x, hi)], style),
                PathElement::new(vec![(x - CAP_LOG2, lo), (x + CAP_LOG2, lo)], style),
                PathElement::new(vec![(x - CAP_LOG2, hi), (x + CAP_LOG2, hi)], style),
            ])?;
        }
    }
    Ok(())
}

/// A black ring around each size whose read-back did not match.
fn draw_unverified<'a, 'b: 'a>(
    chart: &mut Chart<'a, 'b>,
    p: &ProbeResults,
    logs: &[f64],
) -> DrawResult {
    let unverified: Vec<(f64, f64)> = p
        .results
        .iter()
        .zip(logs)
        .filter(|(r, _)| !r.verified)
        .map(|(r, x)| (*x, r.read.median_bytes_per_s / 1e6))
        .collect();
    if !unverified.is_empty() {
        chart
            .draw_series(
                unverified
                    .iter()
                    .map(|&p| Circle::new(p, 10, BLACK.stroke_width(2))),
            )?
            .label("read back did not match: rates not to be trusted")
            .legend(|(x, y)| Circle::new((x + 10, y), 5, BLACK.stroke_width(2)));
    }
    Ok(())
}

/// A dashed line at each recommended size that lies on the axis.
fn draw_recommended<'a, 'b: 'a>(
    chart: &mut Chart<'a, 'b>,
    p: &ProbeResults,
    axes: &Axes,
) -> DrawResult {
    let rec = &p.recommend;
    for (what, bytes, color) in [
        ("backups (write)", rec.write_block_bytes, WRITE),
        ("restores (read)", rec.read_block_bytes, READ),
    ] {
        if !axes.shows(bytes) {
            continue;
        }
        let x = (bytes as f64).log2();
        chart
            .draw_series(std::iter::once(DashedPathElement::new(
                vec![(x, 0.0), (x, axes.y_max)],
                6,
                4,
                color.stroke_width(1),
            )))?
            .label(format!("recommended for {what}: -s {}", size_flag(bytes)))
            .legend(move |(x, y)| {
                DashedPathElement::new(vec![(x, y), (x + 20, y)], 4, 3, color.stroke_width(1))
            });
    }
    Ok(())
}

/// The x axis: log2 of the block size, ticked at the measured sizes and
/// labelled as sizes. plotters' key-point combinator loses the f64 label
/// formatter, hence this small axis of our own.
struct Log2Sizes {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for Log2Sizes {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let share = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (share * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

impl ValueFormatter<f64> for Log2Sizes {
    fn format(log2_bytes: &f64) -> String {
        size_flag(log2_bytes.exp2().round() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_stays_below_a_band_as_tall_as_the_legend() {
        // 2 lines: a 64-pixel band on a 264-pixel plot leaves 200 for data.
        let top = above_the_legend(21.0, 264.0, 2);
        assert!((top - 21.0 * 264.0 / 200.0).abs() < 1e-9, "{top}");
        // The highest point sits exactly at the band's lower edge.
        let data_px = 21.0 / top * 264.0;
        assert!((data_px - 200.0).abs() < 1e-9);
        // More legend lines, more room.
        assert!(above_the_legend(21.0, 264.0, 4) > top);
        // A tiny plot still keeps half of itself for the data.
        assert_eq!(above_the_legend(10.0, 40.0, 4), 20.0);
    }
}
