//! The picture half of `tapebuf report`: an SVG, drawn with plotters, with
//! the ring's fill level over time above and the input and output rates
//! below, and in both a red line at every underrun (a tape stop) and a
//! purple one at every volume change. Axes are labelled with their units.
//! A run recorded with `--pace` also gets the writer's pace target in the
//! rates panel, dashed, broken wherever the writer held no target.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::timeline::Timeline;

const WIDTH: u32 = 900;
const HEIGHT: u32 = 640;
const UNDERRUN: RGBColor = RGBColor(220, 30, 30);
const VOLUME: RGBColor = RGBColor(140, 40, 180);
const INPUT: RGBColor = RGBColor(30, 100, 220);
const OUTPUT: RGBColor = RGBColor(20, 150, 60);
/// The fill's range between samples, fainter than the fill itself.
const RANGE: RGBColor = RGBColor(150, 180, 235);
/// The pace target: a colour of its own, drawn dashed.
pub const PACE: RGBColor = RGBColor(230, 120, 0);
/// The pace target's legend label.
pub const PACE_LABEL: &str = "pace target";

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// A named line: its legend label (empty to share the line before's), its
/// colour, whether it is dashed, and its (time, value) points in runs; a
/// gap between two runs is drawn as no line at all.
struct Series<'a> {
    name: &'a str,
    color: RGBColor,
    dashed: bool,
    runs: Vec<Vec<(f64, f64)>>,
}

impl<'a> Series<'a> {
    fn solid(name: &'a str, color: RGBColor, points: Vec<(f64, f64)>) -> Series<'a> {
        Series {
            name,
            color,
            dashed: false,
            runs: vec![points],
        }
    }
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
    let (top, bottom) = root.split_vertically(HEIGHT / 2 - 20);
    let x_max = t.last().t_s.max(0.001);
    let underruns = t.rises(|s| s.underruns);
    let volumes = t.rises(|s| s.volume.saturating_sub(1) as u64);
    panel(
        &top,
        x_max,
        100.0,
        "ring fill (%)",
        &fill_series(t),
        &underruns,
        &volumes,
    )?;
    let (rates, y_max) = rate_series(t);
    panel(
        &bottom,
        x_max,
        y_max,
        "rate (MB/s)",
        &rates,
        &underruns,
        &volumes,
    )?;
    root.present()?;
    Ok(())
}

/// The upper panel's lines: the fill at each sample, and, in files that
/// record it, the range between samples, so that a peak or a drop to empty
/// between two ticks is seen.
fn fill_series(t: &Timeline) -> Vec<Series<'static>> {
    let fill: Vec<(f64, f64)> = t.samples.iter().map(|s| (s.t_s, s.fill_pct)).collect();
    let range = |pick: fn(&crate::observe::record::Sample) -> Option<f64>| -> Vec<(f64, f64)> {
        t.samples
            .iter()
            .filter_map(|s| pick(s).map(|p| (s.t_s, p)))
            .collect()
    };
    let (lows, highs) = (range(|s| s.fill_min_pct), range(|s| s.fill_max_pct));
    let mut fills = vec![Series::solid("ring fill level at each sample", INPUT, fill)];
    if !lows.is_empty() {
        fills.push(Series::solid(
            "lowest and highest fill between samples",
            RANGE,
            highs,
        ));
        fills.push(Series::solid("", RANGE, lows));
    }
    fills
}

/// The lower panel's lines, in MB/s: the input and output rates and the
/// pace target if there was one; and the top of their data.
fn rate_series(t: &Timeline) -> (Vec<Series<'static>>, f64) {
    let mb = |r: f64| r / 1e6;
    let input: Vec<(f64, f64)> = t
        .samples
        .iter()
        .map(|s| (s.t_s, mb(s.in_rate_bytes_per_s)))
        .collect();
    let output: Vec<(f64, f64)> = t
        .samples
        .iter()
        .map(|s| (s.t_s, mb(s.out_rate_bytes_per_s)))
        .collect();
    let pace = pace_runs(t);
    let y_max = input
        .iter()
        .chain(&output)
        .chain(pace.iter().flatten())
        .map(|p| p.1)
        .fold(0.0, f64::max)
        .max(0.001)
        * 1.1;
    let mut rates = vec![
        Series::solid("input rate", INPUT, input),
        Series::solid("output rate", OUTPUT, output),
    ];
    if !pace.is_empty() {
        rates.push(Series {
            name: PACE_LABEL,
            color: PACE,
            dashed: true,
            runs: pace,
        });
    }
    (rates, y_max)
}

/// Pixels a legend line takes, and the box's own padding and border.
const LEGEND_LINE_PX: f64 = 20.0;
const LEGEND_PAD_PX: f64 = 24.0;

/// The top of the y axis that keeps the data below a legend of `entries`
/// lines in the upper corner: the data's top, `y_data_max`, stays under a
/// band as tall as the legend, so the legend never hides a point. `plot_px`
/// is the height of the plotting area.
pub(super) fn above_the_legend(y_data_max: f64, plot_px: f64, entries: usize) -> f64 {
    let band = LEGEND_PAD_PX + LEGEND_LINE_PX * entries as f64;
    // A plot too small for the band keeps half of itself for the data.
    let data_px = (plot_px - band).max(plot_px / 2.0);
    y_data_max * plot_px / data_px
}

/// One chart: the series, then the markers, then the legend, in a band
/// above the data.
fn panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    x_max: f64,
    y_max: f64,
    y_desc: &str,
    series: &[Series<'_>],
    underruns: &[f64],
    volumes: &[f64],
) -> DrawResult {
    let named = series.iter().filter(|s| !s.name.is_empty()).count();
    let entries = named + usize::from(!underruns.is_empty()) + usize::from(!volumes.is_empty());
    // The plotting area: the panel less its margins and the x labels.
    let plot_px = f64::from(area.dim_in_pixel().1) - 2.0 * 12.0 - 40.0;
    let y_top = above_the_legend(y_max, plot_px, entries);
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..x_max, 0f64..y_top)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(y_desc)
        .light_line_style(WHITE)
        .draw()?;
    for s in series {
        draw_series(&mut chart, s)?;
    }
    for (times, color, name) in [
        (underruns, UNDERRUN, "underrun (tape stop)"),
        (volumes, VOLUME, "volume change"),
    ] {
        if times.is_empty() {
            continue;
        }
        chart
            .draw_series(
                times
                    .iter()
                    .map(|&t| PathElement::new(vec![(t, 0.0), (t, y_max)], color.stroke_width(1))),
            )?
            .label(name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws one series and its legend line. A dashed series draws each run
/// on its own, and a run of one point as a dot, so that nothing joins the
/// runs across a gap.
fn draw_series<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, s: &Series<'_>) -> DrawResult {
    let style = s.color.stroke_width(2);
    let mut legend = None;
    for run in &s.runs {
        let drawn = match (s.dashed, run.as_slice()) {
            (false, _) => chart.draw_series(LineSeries::new(run.iter().copied(), style))?,
            (true, [point]) => {
                chart.draw_series(std::iter::once(Circle::new(*point, 3, s.color.filled())))?
            }
            (true, _) => {
                chart.draw_series(DashedLineSeries::new(run.iter().copied(), 6, 4, style))?
            }
        };
        legend = Some(drawn);
    }
    // A series without a name shares the legend line of the one before.
    if let (Some(drawn), false) = (legend, s.name.is_empty()) {
        let (color, dashed) = (s.color, s.dashed);
        drawn.label(s.name).legend(
            move |(x, y)| -> DynElement<'static, SVGBackend<'_>, (i32, i32)> {
                let line = vec![(x, y), (x + 20, y)];
                if dashed {
                    DashedPathElement::new(line, 6, 4, color.stroke_width(2)).into_dyn()
                } else {
                    PathElement::new(line, color.stroke_width(2)).into_dyn()
                }
            },
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analysis::tests::timeline_with_pace;

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

    #[test]
    fn the_pace_target_breaks_into_runs_where_the_writer_held_none() {
        let t = timeline_with_pace(&[
            None,
            Some(20_000_000),
            Some(25_000_000),
            None,
            None,
            Some(30_000_000),
            None,
            Some(40_000_000),
            Some(40_000_000),
            Some(41_000_000),
        ]);
        assert_eq!(
            pace_runs(&t),
            vec![
                vec![(2.0, 20.0), (3.0, 25.0)],
                vec![(6.0, 30.0)],
                vec![(8.0, 40.0), (9.0, 40.0), (10.0, 41.0)],
            ]
        );
        assert!(pace_runs(&timeline_with_pace(&[None, None])).is_empty());
    }
}
