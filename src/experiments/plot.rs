//! SVG line plots for the experiment reports (plotters, SVG backend only).

use crate::error::{Error, Result};
use plotters::prelude::*;
use std::path::Path;

/// One curve: a label and its (x, y) points.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points.
    pub points: Vec<(f64, f64)>,
}

/// One panel of a figure.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Panel title.
    pub title: String,
    /// Its curves.
    pub series: Vec<Series>,
}

const COLOURS: [RGBColor; 8] = [
    RGBColor(0, 0, 0),
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
];

/// Writes panels side by side to `path` as SVG, y on a log scale when `log_y`.
///
/// # Errors
/// `Io` if the file cannot be written; `Numerical` if plotting fails or a panel has no finite
/// positive values on a log axis.
pub fn line_panels(path: &Path, panels: &[Panel], x_label: &str, y_label: &str, log_y: bool) -> Result<()> {
    let err = |e: String| Error::Io { path: path.display().to_string(), message: e };
    let width = 460 * panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (width, 380)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let areas = root.split_evenly((1, panels.len().max(1)));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let all: Vec<(f64, f64)> = panel.series.iter().flat_map(|s| s.points.iter().copied()).collect();
        let finite: Vec<(f64, f64)> =
            all.into_iter().filter(|p| p.0.is_finite() && p.1.is_finite() && (!log_y || p.1 > 0.0)).collect();
        if finite.is_empty() {
            return Err(Error::Numerical {
                what: "plot",
                reason: format!("panel '{}' has no plottable points", panel.title),
            });
        }
        let (x0, x1) = finite.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let (y0, y1) = finite.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.1), b.max(p.1)));
        // The legend goes to the right-hand corner the curves end away from: lower right when the
        // series finish in the upper half (rising accuracy), upper right otherwise (falling loss).
        let ends: Vec<f64> =
            panel.series.iter().filter_map(|s| s.points.iter().rev().map(|p| p.1).find(|y| y.is_finite())).collect();
        let scale = |y: f64| if log_y { y.max(f64::MIN_POSITIVE).ln() } else { y };
        let mid = 0.5 * (scale(y0) + scale(y1));
        let end_mean = ends.iter().map(|&y| scale(y)).sum::<f64>() / ends.len().max(1) as f64;
        let corner = if end_mean > mid { SeriesLabelPosition::LowerRight } else { SeriesLabelPosition::UpperRight };
        let mut chart = ChartBuilder::on(area);
        chart.caption(&panel.title, ("sans-serif", 16)).margin(10).x_label_area_size(35).y_label_area_size(55);
        let draw = |result: std::result::Result<(), String>| result.map_err(err);
        if log_y {
            let mut c = chart
                .build_cartesian_2d(x0..x1.max(x0 + 1.0), (y0 * 0.9..y1 * 1.1).log_scale())
                .map_err(|e| err(e.to_string()))?;
            draw(
                c.configure_mesh()
                    .x_desc(x_label)
                    .y_desc(y_label)
                    .x_label_formatter(&|v| format!("{v:.0}"))
                    .y_label_formatter(&|v| format!("{v:.3}"))
                    .draw()
                    .map_err(|e| e.to_string()),
            )?;
            for (i, s) in panel.series.iter().enumerate() {
                let colour = COLOURS[i % COLOURS.len()];
                let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(|p| p.1 > 0.0 && p.1.is_finite()).collect();
                draw(
                    c.draw_series(LineSeries::new(pts, colour.stroke_width(2)))
                        .map(|a| {
                            a.label(s.label.clone()).legend(move |(x, y)| {
                                PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
                            });
                        })
                        .map_err(|e| e.to_string()),
                )?;
            }
            draw(
                c.configure_series_labels()
                    .position(corner)
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .draw()
                    .map_err(|e| e.to_string()),
            )?;
        } else {
            let mut c = chart.build_cartesian_2d(x0..x1.max(x0 + 1.0), y0..y1).map_err(|e| err(e.to_string()))?;
            draw(
                c.configure_mesh()
                    .x_desc(x_label)
                    .y_desc(y_label)
                    .x_label_formatter(&|v| format!("{v:.0}"))
                    .y_label_formatter(&|v| format!("{v:.3}"))
                    .draw()
                    .map_err(|e| e.to_string()),
            )?;
            for (i, s) in panel.series.iter().enumerate() {
                let colour = COLOURS[i % COLOURS.len()];
                draw(
                    c.draw_series(LineSeries::new(s.points.clone(), colour.stroke_width(2)))
                        .map(|a| {
                            a.label(s.label.clone()).legend(move |(x, y)| {
                                PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
                            });
                        })
                        .map_err(|e| e.to_string()),
                )?;
            }
            draw(
                c.configure_series_labels()
                    .position(corner)
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .draw()
                    .map_err(|e| e.to_string()),
            )?;
        }
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}
