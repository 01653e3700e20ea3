//! The picture half of `tapebuf report`: an SVG, drawn with plotters, with
//! the ring's fill level over time above and the input and output rates
//! below, both on one time axis. Axes are labelled with their units, and
//! each chart's legend stands in a column to its right (`legend.rs`).
//!
//! The fill chart's axis runs from 0 to 100%, as a fill does. The lowest
//! to highest fill within each interval is a band, one step per interval,
//! under the fill at each sample; the start (`-P`) and resume (`-p`)
//! watermarks are dashed lines, tagged with their values right of the
//! chart. Both charts mark every underrun in red and every volume change in
//! purple. An underrun is called a tape stop only when an output was a
//! tape (local or remote); on any other output the writer merely waited.
//! A run recorded with `--pace` also gets the writer's pace target in the
//! rates chart, dashed, broken wherever the writer held no target.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::legend::{self, DrawResult, Entry, Swatch, BAND_ALPHA};
use super::timeline::Timeline;
use crate::observe::record::Sample;

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 680;
/// The legend column right of each chart.
const LEGEND_PX: u32 = 250;
/// Room right of each chart for the watermarks' tags.
const TAG_PX: u32 = 60;
const UNDERRUN: RGBColor = RGBColor(220, 30, 30);
const VOLUME: RGBColor = RGBColor(140, 40, 180);
const INPUT: RGBColor = RGBColor(30, 100, 220);
const OUTPUT: RGBColor = RGBColor(20, 150, 60);
/// The fill's range within each interval, fainter than the fill itself.
const RANGE: RGBColor = RGBColor(130, 170, 235);
const START: RGBColor = RGBColor(0, 120, 120);
const RESUME: RGBColor = RGBColor(120, 120, 120);
/// The pace target: a colour of its own, drawn dashed.
pub const PACE: RGBColor = RGBColor(230, 120, 0);
/// The pace target's legend label.
pub const PACE_LABEL: &str = "pace target";
/// The least distance between two watermark tags, in pixels.
const TAG_GAP_PX: i32 = 14;

/// A named line: its legend label (empty for none), its colour, whether
/// it is dashed, and its (time, value) points in runs; a gap between two
/// runs is drawn as no line at all.
struct Series {
    name: &'static str,
    color: RGBColor,
    dashed: bool,
    runs: Vec<Vec<(f64, f64)>>,
}

/// A watermark: a dashed level across the fill chart.
struct Level {
    pct: f64,
    color: RGBColor,
    /// Right of the chart, at the line: "-P 90%".
    tag: String,
    /// In the legend: "start watermark, -P 90%".
    label: String,
}

/// What one chart draws, bottom layer first.
struct Panel {
    y_max: f64,
    y_desc: &'static str,
    /// The y axis' labels: whole percent, or rates to a tenth.
    y_label: fn(&f64) -> String,
    /// Closed outlines, filled.
    bands: Vec<Vec<(f64, f64)>>,
    levels: Vec<Level>,
    series: Vec<Series>,
}

/// The moments marked in both charts.
struct Marks {
    underruns: Vec<f64>,
    volumes: Vec<f64>,
    underrun_label: &'static str,
}

/// What an underrun is called: a tape stop only on a tape; None is a file
/// from before the stats said.
pub fn underrun_label(tape_output: Option<bool>) -> &'static str {
    match tape_output {
        Some(true) => "underrun (tape stop)",
        Some(false) => "underrun (writer waited)",
        None => "underrun",
    }
}

/// Draws `t` as an SVG document.
pub fn svg(t: &Timeline, title: &str) -> Result<String, String> {
    let mut out = String::new();
    draw(t, title, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

fn draw(t: &Timeline, title: &str, out: &mut String) -> DrawResult {
    let root = SVGBackend::with_string(out, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 20))?;
    let (top, bottom) = root.split_vertically(root.dim_in_pixel().1 / 2);
    let x_max = t.last().t_s.max(0.001);
    let marks = Marks {
        underruns: t.rises(|s| s.underruns),
        volumes: t.rises(|s| s.volume.saturating_sub(1) as u64),
        underrun_label: underrun_label(t.start.tape_output),
    };
    panel(&top, x_max, &fill_panel(t), &marks)?;
    panel(&bottom, x_max, &rate_panel(t), &marks)?;
    root.present()?;
    Ok(())
}

/// The fill chart: the band, the watermarks, the fill at each sample.
fn fill_panel(t: &Timeline) -> Panel {
    let fill: Vec<(f64, f64)> = t.samples.iter().map(|s| (s.t_s, s.fill_pct)).collect();
    let (high, low) = (f64::from(t.start.high_pct), f64::from(t.start.low_pct));
    Panel {
        y_max: 100.0,
        y_desc: "ring fill (%)",
        y_label: |pct| format!("{pct:.0}"),
        bands: fill_bands(&t.samples),
        levels: vec![
            Level {
                pct: high.min(100.0),
                color: START,
                tag: format!("-P {high}%"),
                label: format!("start watermark, -P {high}%"),
            },
            Level {
                pct: low.min(100.0),
                color: RESUME,
                tag: format!("-p {low}%"),
                label: format!("resume watermark, -p {low}%"),
            },
        ],
        series: vec![Series {
            name: "fill at each sample",
            color: INPUT,
            dashed: false,
            runs: vec![fill],
        }],
    }
}

/// The fill's range as bands: for each stretch of samples that record
/// it, one outline along the highs, one step per interval (from the
/// sample before to this one), and back along the lows.
pub fn fill_bands(samples: &[Sample]) -> Vec<Vec<(f64, f64)>> {
    let mut bands = Vec::new();
    let mut highs: Vec<(f64, f64)> = Vec::new();
    let mut lows: Vec<(f64, f64)> = Vec::new();
    let mut since = 0.0;
    for s in samples {
        if let (Some(lo), Some(hi)) = (s.fill_min_pct, s.fill_max_pct) {
            highs.extend([(since, hi), (s.t_s, hi)]);
            lows.extend([(since, lo), (s.t_s, lo)]);
        } else if !highs.is_empty() {
            bands.push(outline(&mut highs, &mut lows));
        }
        since = s.t_s;
    }
    if !highs.is_empty() {
        bands.push(outline(&mut highs, &mut lows));
    }
    bands
}

/// The highs forward then the lows back; empties both.
fn outline(highs: &mut Vec<(f64, f64)>, lows: &mut Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let mut band = std::mem::take(highs);
    band.extend(lows.drain(..).rev());
    band
}

/// The pace target in MB/s, one run of (time, target) points per stretch
/// of samples that carry one; empty for a run without pacing.
pub fn pace_runs(t: &Timeline) -> Vec<Vec<(f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut open = false;
    for s in &t.samples {
        match s.pace_bps {
            Some(bps) => {
                let point = (s.t_s, bps as f64 / 1e6);
                match runs.last_mut() {
                    Some(run) if open => run.push(point),
                    _ => runs.push(vec![point]),
                }
                open = true;
            }
            None => open = false,
        }
    }
    runs
}

/// The rates chart, in MB/s: the input and output rates and the pace
/// target if there was one, under a tenth of headroom.
fn rate_panel(t: &Timeline) -> Panel {
    let line = |rate: fn(&Sample) -> f64| -> Vec<(f64, f64)> {
        t.samples.iter().map(|s| (s.t_s, rate(s) / 1e6)).collect()
    };
    let input = line(|s| s.in_rate_bytes_per_s);
    let output = line(|s| s.out_rate_bytes_per_s);
    let pace = pace_runs(t);
    let y_max = input
        .iter()
        .chain(&output)
        .chain(pace.iter().flatten())
        .map(|p| p.1)
        .fold(0.0, f64::max)
        .max(0.001)
        * 1.1;
    let solid = |name, color, points| Series {
        name,
        color,
        dashed: false,
        runs: vec![points],
    };
    let mut series = vec![
        solid("input rate", INPUT, input),
        solid("output rate", OUTPUT, output),
    ];
    if !pace.is_empty() {
        series.push(Series {
            name: PACE_LABEL,
            color: PACE,
            dashed: true,
            runs: pace,
        });
    }
    Panel {
        y_max,
        y_desc: "rate (MB/s)",
        y_label: |mb| format!("{mb:.1}"),
        bands: Vec::new(),
        levels: Vec::new(),
        series,
    }
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;
type Area<'b> = DrawingArea<SVGBackend<'b>, Shift>;

/// One chart and its legend: the band, then the markers and watermarks,
/// then the lines on top.
fn panel(area: &Area<'_>, x_max: f64, p: &Panel, marks: &Marks) -> DrawResult {
    let (plot, side) = area.split_horizontally(area.dim_in_pixel().0 - LEGEND_PX);
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .margin_right(TAG_PX)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..x_max, 0f64..p.y_max)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(p.y_desc)
        .y_label_formatter(&p.y_label)
        .light_line_style(WHITE)
        .draw()?;
    let mut legend: Vec<Entry> = p
        .series
        .iter()
        .filter(|s| !s.name.is_empty())
        .map(|s| {
            let swatch = if s.dashed {
                Swatch::Dashed
            } else {
                Swatch::Line
            };
            Entry::new(s.name, s.color, swatch)
        })
        .collect();
    for band in &p.bands {
        let fill = RANGE.mix(BAND_ALPHA).filled();
        chart.draw_series(std::iter::once(Polygon::new(band.clone(), fill)))?;
    }
    if !p.bands.is_empty() {
        legend.push(Entry::new(
            "fill range within each interval",
            RANGE,
            Swatch::Band,
        ));
    }
    for (times, color, name) in [
        (&marks.underruns, UNDERRUN, marks.underrun_label),
        (&marks.volumes, VOLUME, "volume change"),
    ] {
        let line = |&t: &f64| PathElement::new(vec![(t, 0.0), (t, p.y_max)], color.stroke_width(1));
        chart.draw_series(times.iter().map(line))?;
        if !times.is_empty() {
            legend.push(Entry::new(name, color, Swatch::Marker));
        }
    }
    draw_levels(&chart, &plot, x_max, &p.levels)?;
    legend.extend(
        p.levels
            .iter()
            .map(|l| Entry::new(l.label.clone(), l.color, Swatch::Dashed)),
    );
    for s in &p.series {
        draw_series(&mut chart, s)?;
    }
    legend::draw(&side, &legend)
}

/// The watermarks: a dashed line across the chart, and its tag right of
/// it, the tags kept apart when the lines are close.
fn draw_levels(chart: &Chart<'_, '_>, plot: &Area<'_>, x_max: f64, levels: &[Level]) -> DrawResult {
    let (x0, y0) = plot.get_base_pixel();
    let ends: Vec<(i32, i32)> = levels
        .iter()
        .map(|l| chart.backend_coord(&(x_max, l.pct)))
        .collect();
    let tag_ys = apart(&ends.iter().map(|e| e.1).collect::<Vec<_>>(), TAG_GAP_PX);
    for ((level, end), tag_y) in levels.iter().zip(&ends).zip(tag_ys) {
        chart.plotting_area().draw(&DashedPathElement::new(
            vec![(0.0, level.pct), (x_max, level.pct)],
            8,
            5,
            level.color.stroke_width(2),
        ))?;
        let style = ("sans-serif", legend::FONT_PX)
            .into_font()
            .color(&level.color)
            .pos(Pos::new(HPos::Left, VPos::Center));
        plot.draw(&Text::new(
            level.tag.clone(),
            (end.0 - x0 + 6, tag_y - y0),
            style,
        ))?;
    }
    Ok(())
}

/// `ys` moved the least so that no two are closer than `gap`, keeping
/// their order (ties in the order given), centred on where they were.
pub fn apart(ys: &[i32], gap: i32) -> Vec<i32> {
    let mut order: Vec<usize> = (0..ys.len()).collect();
    order.sort_by_key(|&i| ys[i]);
    let mut out = ys.to_vec();
    let mut i = 0;
    while i < order.len() {
        // A cluster: each tag within `gap` of the one before.
        let mut j = i + 1;
        while j < order.len() && ys[order[j]] - ys[order[j - 1]] < gap {
            j += 1;
        }
        let cluster = &order[i..j];
        let mean = cluster.iter().map(|&k| ys[k]).sum::<i32>() / cluster.len() as i32;
        let first = mean - gap * (cluster.len() as i32 - 1) / 2;
        for (n, &k) in cluster.iter().enumerate() {
            out[k] = first + gap * n as i32;
        }
        i = j;
    }
    out
}

/// Draws one series. A dashed series draws each run on its own, and a
/// run of one point as a dot, so that nothing joins the runs across a gap.
fn draw_series(chart: &mut Chart<'_, '_>, s: &Series) -> DrawResult {
    let style = s.color.stroke_width(2);
    for run in &s.runs {
        match (s.dashed, run.as_slice()) {
            (false, _) => chart.draw_series(LineSeries::new(run.iter().copied(), style))?,
            (true, [point]) => {
                chart.draw_series(std::iter::once(Circle::new(*point, 3, s.color.filled())))?
            }
            (true, _) => {
                chart.draw_series(DashedLineSeries::new(run.iter().copied(), 6, 4, style))?
            }
        };
    }
    Ok(())
}

#[cfg(test)]
#[path = "plot_tests.rs"]
mod tests;
