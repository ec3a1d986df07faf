//! SVG line plots for the experiment reports (plotters, SVG backend only), and the CSV of exactly
//! the numbers each plot draws.
//!
//! A [`Figure`] is a row of panels sharing one legend, drawn outside the plot areas (to the
//! right). Every curve has its own colour *and* dash pattern (the colours are the Okabe–Ito
//! colour-blind-safe palette), so near-identical curves stay tellable apart in print and in
//! greyscale. A curve may carry a band (e.g. the min–max over repetitions), drawn as a light
//! fill of the curve's colour; horizontal reference lines (an optimum, chance level) are drawn
//! grey and dashed in every panel. On a log axis the ticks are 1-2-3-5 per decade and labelled,
//! so the reader sees the values in every decade the curves cross.
//!
//! [`write_figure`] writes the SVG and a CSV beside it from the same [`Figure`], so the CSV holds
//! one row per point drawn (curves, band ends and reference-line ends), nothing more or less.

use crate::error::{Error, Result};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// One curve: a label, its (x, y) points and optionally a band around it.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label (also the `series` column of the CSV).
    pub label: String,
    /// Points.
    pub points: Vec<(f64, f64)>,
    /// A band (low, high) at each point's x, the same length as `points`, or empty for none.
    pub band: Vec<(f64, f64)>,
}

impl Series {
    /// A curve without a band.
    pub fn line(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series { label: label.into(), points, band: Vec::new() }
    }
}

/// One panel of a figure.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Panel title.
    pub title: String,
    /// The panel's value in the CSV's first column (e.g. "0.1" for the panel ε = 0.1).
    pub key: String,
    /// Its curves.
    pub series: Vec<Series>,
}

impl Panel {
    /// The panel of privacy level ε: titled "epsilon = ε", keyed "ε" in the CSV.
    pub fn at_epsilon(epsilon: f64, series: Vec<Series>) -> Self {
        Panel { title: format!("epsilon = {epsilon}"), key: format!("{epsilon}"), series }
    }

    /// One [`Panel::at_epsilon`] per ε of `epsilons`, with the curves `series(ε)`.
    pub fn per_epsilon(epsilons: &[f64], series: impl Fn(f64) -> Vec<Series>) -> Vec<Panel> {
        epsilons.iter().map(|&e| Panel::at_epsilon(e, series(e))).collect()
    }
}

/// A horizontal reference line drawn across every panel.
#[derive(Debug, Clone)]
pub struct Reference {
    /// Legend label.
    pub label: String,
    /// Its height.
    pub y: f64,
}

/// A row of panels with one legend.
#[derive(Debug, Clone)]
pub struct Figure {
    /// The panels, left to right.
    pub panels: Vec<Panel>,
    /// x-axis description.
    pub x_label: String,
    /// y-axis description.
    pub y_label: String,
    /// CSV column names: (panel key, x, y), e.g. ("epsilon", "iteration", "loss").
    pub columns: (String, String, String),
    /// y on a log scale.
    pub log_y: bool,
    /// One y-range for all panels (so panels compare at a glance).
    pub shared_y: bool,
    /// Horizontal reference lines.
    pub references: Vec<Reference>,
    /// Legend text describing the bands, if any series has one.
    pub band_label: Option<String>,
}

/// A point marker's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Circle.
    Circle,
    /// Upward triangle.
    Triangle,
    /// Square.
    Square,
    /// Diagonal cross.
    Cross,
}

/// A curve's look: colour, dash pattern ((dash length, gap) in pixels, `None` for solid) and the
/// marker drawn at its points when a curve has few enough of them ([`MARKERS_UP_TO`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// Colour.
    pub colour: RGBColor,
    /// Dash pattern.
    pub dash: Option<(u32, u32)>,
    /// Marker shape and whether it is filled.
    pub marker: (Shape, bool),
}

/// The styles of curves 0, 1, 2, … (cycled): Okabe–Ito colours, each with its own dash pattern
/// and marker, so that even curves drawn on top of each other stay tellable apart.
pub const STYLES: [Style; 8] = [
    Style { colour: RGBColor(0, 0, 0), dash: None, marker: (Shape::Circle, true) },
    Style { colour: RGBColor(213, 94, 0), dash: Some((10, 5)), marker: (Shape::Triangle, true) },
    Style { colour: RGBColor(0, 114, 178), dash: Some((2, 4)), marker: (Shape::Square, false) },
    Style { colour: RGBColor(0, 158, 115), dash: Some((7, 7)), marker: (Shape::Cross, false) },
    Style { colour: RGBColor(204, 121, 167), dash: Some((16, 4)), marker: (Shape::Circle, false) },
    Style { colour: RGBColor(86, 180, 233), dash: Some((12, 3)), marker: (Shape::Triangle, false) },
    Style { colour: RGBColor(230, 159, 0), dash: Some((24, 6)), marker: (Shape::Square, true) },
    Style { colour: RGBColor(120, 120, 120), dash: Some((5, 2)), marker: (Shape::Cross, true) },
];

/// Markers are drawn when every curve of a figure has at most this many points (more would
/// clutter).
pub const MARKERS_UP_TO: usize = 20;

const REFERENCE: Style = Style { colour: RGBColor(90, 90, 90), dash: Some((4, 4)), marker: (Shape::Cross, false) };
const PANEL_W: u32 = 430;
const LEGEND_W: u32 = 240;
const HEIGHT: u32 = 380;

/// Writes `figure` to `<out>/<stem>.svg` and the numbers it draws to `<out>/<stem>.csv`; returns
/// both paths (SVG first).
///
/// # Errors
/// As [`line_panels`] and [`write_csv`].
pub fn write_figure(out: &Path, stem: &str, figure: &Figure) -> Result<Vec<PathBuf>> {
    let svg = out.join(format!("{stem}.svg"));
    let csv = out.join(format!("{stem}.csv"));
    line_panels(&svg, figure)?;
    write_csv(&csv, figure)?;
    Ok(vec![svg, csv])
}

/// The CSV rows of `figure`: `[panel key, series, x, y, y_low, y_high]`, one per point drawn
/// (band bounds empty for a curve without a band; each reference line contributes its two ends
/// in every panel, at the panel's x-range).
pub fn csv_rows(figure: &Figure) -> Vec<[String; 6]> {
    let mut rows = Vec::new();
    for panel in &figure.panels {
        for s in &panel.series {
            for (i, &(x, y)) in s.points.iter().enumerate() {
                let (lo, hi) = s.band.get(i).map_or((String::new(), String::new()), |b| (num(b.0), num(b.1)));
                rows.push([panel.key.clone(), s.label.clone(), num(x), num(y), lo, hi]);
            }
        }
        if let Some((x0, x1)) = x_range(panel) {
            for r in &figure.references {
                for x in [x0, x1] {
                    rows.push([panel.key.clone(), r.label.clone(), num(x), num(r.y), String::new(), String::new()]);
                }
            }
        }
    }
    rows
}

/// The shortest decimal that reads back as the same f64 (the exact number plotted).
fn num(v: f64) -> String {
    format!("{v}")
}

/// Writes [`csv_rows`] with a header `<key>,series,<x>,<y>,<y>_low,<y>_high`.
///
/// # Errors
/// `Io` if the file cannot be written.
pub fn write_csv(path: &Path, figure: &Figure) -> Result<()> {
    let err = |e: String| Error::Io { path: path.display().to_string(), message: e };
    let mut w = csv::Writer::from_path(path).map_err(|e| err(e.to_string()))?;
    let (k, x, y) = &figure.columns;
    w.write_record([k.as_str(), "series", x.as_str(), y.as_str(), &format!("{y}_low"), &format!("{y}_high")])
        .map_err(|e| err(e.to_string()))?;
    for row in csv_rows(figure) {
        w.write_record(&row).map_err(|e| err(e.to_string()))?;
    }
    w.flush().map_err(|e| err(e.to_string()))
}

fn x_range(panel: &Panel) -> Option<(f64, f64)> {
    let xs = panel.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).filter(|x| x.is_finite());
    xs.fold(None, |acc, x| match acc {
        None => Some((x, x)),
        Some((a, b)) => Some((f64::min(a, x), f64::max(b, x))),
    })
}

/// The y values a panel draws (points, band ends, references), finite and positive on a log axis.
fn y_values(panel: &Panel, figure: &Figure) -> Vec<f64> {
    let mut v: Vec<f64> = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1).chain(s.band.iter().flat_map(|b| [b.0, b.1])))
        .chain(figure.references.iter().map(|r| r.y))
        .collect();
    v.retain(|y| y.is_finite() && (!figure.log_y || *y > 0.0));
    v
}

/// The y-range of a panel in plot coordinates (log10 of y on a log axis), padded.
fn y_range(values: &[f64], log_y: bool) -> Option<(f64, f64)> {
    let t: Vec<f64> = values.iter().map(|&y| if log_y { y.log10() } else { y }).collect();
    let lo = t.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return None;
    }
    let span = if hi > lo {
        hi - lo
    } else if log_y {
        0.5
    } else {
        lo.abs().max(1.0) * 0.1
    };
    Some((lo - 0.04 * span, hi + 0.04 * span))
}

/// Ticks (bold, labelled) and minor grid lines (light) for the range, in plot coordinates.
fn ticks(lo: f64, hi: f64, log_y: bool) -> (Vec<f64>, Vec<f64>) {
    if log_y {
        let (mut bold, mut light) = (Vec::new(), Vec::new());
        for decade in (lo.floor() as i32)..=(hi.ceil() as i32) {
            for m in 1..10 {
                let t = (m as f64).log10() + decade as f64;
                if t < lo || t > hi {
                    continue;
                }
                if matches!(m, 1 | 2 | 3 | 5) { bold.push(t) } else { light.push(t) }
            }
        }
        (bold, light)
    } else {
        let raw = (hi - lo) / 8.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
        let first = (lo / step).ceil() as i64;
        let last = (hi / step).floor() as i64;
        let bold: Vec<f64> = (first..=last).map(|i| i as f64 * step).collect();
        let light: Vec<f64> =
            (2 * first - 1..=2 * last + 1).map(|i| i as f64 * step / 2.0).filter(|t| *t >= lo && *t <= hi).collect();
        (bold, light)
    }
}

/// A tick label: a 1-2-3-5 value on a log axis (given as its log10, written with its own
/// significant digit), or a linear tick with the decimals its tick spacing needs.
fn tick_label(t: f64, log_y: bool, linear_decimals: usize) -> String {
    if !log_y {
        return format!("{t:.linear_decimals$}");
    }
    let v = 10f64.powf(t);
    let decimals = (-(v.log10().floor()) as i32).max(0) as usize;
    format!("{v:.decimals$}")
}

/// The decimals that write every multiple of the tick spacing exactly (at most 6).
fn spacing_decimals(bold: &[f64]) -> usize {
    let step = if bold.len() >= 2 { bold[1] - bold[0] } else { 0.1 };
    (0..6)
        .find(|&d| {
            let scaled = step * 10f64.powi(d as i32);
            (scaled - scaled.round()).abs() < 1e-6 * scaled.abs().max(1.0)
        })
        .unwrap_or(6)
}

/// Writes the figure to `path` as SVG.
///
/// # Errors
/// `Io` if the file cannot be written; `Numerical` if plotting fails or a panel has no finite
/// (positive, on a log axis) values.
pub fn line_panels(path: &Path, figure: &Figure) -> Result<()> {
    let err = |e: String| Error::Io { path: path.display().to_string(), message: e };
    let n = figure.panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (PANEL_W * n + LEGEND_W, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (plots, legend) = root.split_horizontally(PANEL_W * n);
    let areas = plots.split_evenly((1, n as usize));
    let no_points =
        |title: &str| Error::Numerical { what: "plot", reason: format!("panel '{title}' has no plottable points") };
    let shared = if figure.shared_y {
        let all: Vec<f64> = figure.panels.iter().flat_map(|p| y_values(p, figure)).collect();
        Some(y_range(&all, figure.log_y).ok_or_else(|| no_points("all"))?)
    } else {
        None
    };
    let log_y = figure.log_y;
    let map_y = |y: f64| if log_y { y.log10() } else { y };
    let keep = |p: &(f64, f64)| p.0.is_finite() && p.1.is_finite() && (!log_y || p.1 > 0.0);
    let draw = |r: std::result::Result<(), String>| r.map_err(err);
    let markers = with_markers(figure);
    for (panel, area) in figure.panels.iter().zip(areas.iter()) {
        let (x0, x1) = x_range(panel).ok_or_else(|| no_points(&panel.title))?;
        let (y0, y1) = match shared {
            Some(r) => r,
            None => y_range(&y_values(panel, figure), log_y).ok_or_else(|| no_points(&panel.title))?,
        };
        let (bold, light) = ticks(y0, y1, log_y);
        let decimals = spacing_decimals(&bold);
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(x0..x1.max(x0 + 1.0), Ticked { lo: y0, hi: y1, bold, light })
            .map_err(|e| err(e.to_string()))?;
        draw(
            chart
                .configure_mesh()
                .x_desc(figure.x_label.as_str())
                .y_desc(figure.y_label.as_str())
                .x_label_formatter(&|v| format!("{v:.0}"))
                .y_label_formatter(&|v| tick_label(*v, log_y, decimals))
                .draw()
                .map_err(|e| e.to_string()),
        )?;
        for (i, s) in panel.series.iter().enumerate() {
            let style = STYLES[i % STYLES.len()];
            if s.band.len() == s.points.len() && !s.band.is_empty() {
                let upper = s.points.iter().zip(&s.band).map(|(p, b)| (p.0, b.1));
                let lower = s.points.iter().zip(&s.band).rev().map(|(p, b)| (p.0, b.0));
                let poly: Vec<(f64, f64)> = upper.chain(lower).filter(keep).map(|(x, y)| (x, map_y(y))).collect();
                draw(
                    chart
                        .draw_series(std::iter::once(Polygon::new(poly, style.colour.mix(0.15).filled())))
                        .map(|_| ())
                        .map_err(|e| e.to_string()),
                )?;
            }
        }
        for r in &figure.references {
            let pts = vec![(x0, map_y(r.y)), (x1.max(x0 + 1.0), map_y(r.y))];
            draw(draw_line(&mut chart, pts, REFERENCE))?;
        }
        for (i, s) in panel.series.iter().enumerate() {
            let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(keep).map(|(x, y)| (x, map_y(y))).collect();
            let style = STYLES[i % STYLES.len()];
            if markers {
                for &p in &pts {
                    draw(chart.plotting_area().draw(&marker(p, style)).map_err(|e| e.to_string()))?;
                }
            }
            draw(draw_line(&mut chart, pts, style))?;
        }
    }
    draw(draw_legend(&legend, figure).map_err(|e| e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

/// A linear axis with given ticks (bold: labelled grid lines; light: minor grid lines).
/// (plotters' `with_key_points` loses the default label formatting, hence this.)
#[derive(Debug, Clone)]
struct Ticked {
    lo: f64,
    hi: f64,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let t = if self.hi > self.lo { (v - self.lo) / (self.hi - self.lo) } else { 0.5 };
        let len = f64::from(limit.1 - limit.0);
        limit.0 + (len * t).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() { self.light.clone() } else { self.bold.clone() }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<plotters::coord::types::RangedCoordf64, Ticked>>;

fn with_markers(figure: &Figure) -> bool {
    figure.panels.iter().flat_map(|p| &p.series).all(|s| s.points.len() <= MARKERS_UP_TO)
}

/// The marker of `style` at `at`, as one element.
fn marker<'b, C: Clone + 'static>(at: C, style: Style) -> plotters::element::DynElement<'b, SVGBackend<'b>, C> {
    let (shape, filled) = style.marker;
    let s = if filled { style.colour.filled() } else { style.colour.stroke_width(2) };
    match shape {
        Shape::Circle => (EmptyElement::at(at) + Circle::new((0, 0), 4, s)).into_dyn(),
        Shape::Triangle => (EmptyElement::at(at) + TriangleMarker::new((0, 0), 5, s)).into_dyn(),
        Shape::Square => (EmptyElement::at(at) + Rectangle::new([(-4, -4), (4, 4)], s)).into_dyn(),
        Shape::Cross => (EmptyElement::at(at) + Cross::new((0, 0), 4, style.colour.stroke_width(2))).into_dyn(),
    }
}

fn draw_line(chart: &mut Chart<'_, '_>, pts: Vec<(f64, f64)>, style: Style) -> std::result::Result<(), String> {
    let stroke = style.colour.stroke_width(2);
    match style.dash {
        None => chart.draw_series(LineSeries::new(pts, stroke)).map(|_| ()),
        Some((size, gap)) => chart.draw_series(DashedLineSeries::new(pts, size, gap, stroke)).map(|_| ()),
    }
    .map_err(|e| e.to_string())
}

/// The legend, in its own area right of the panels: one entry per distinct series label (in
/// order of first appearance), then the band and the reference lines.
fn draw_legend(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    figure: &Figure,
) -> std::result::Result<(), String> {
    let mut entries: Vec<(String, Style)> = Vec::new();
    for panel in &figure.panels {
        for (i, s) in panel.series.iter().enumerate() {
            if !entries.iter().any(|e| e.0 == s.label) {
                entries.push((s.label.clone(), STYLES[i % STYLES.len()]));
            }
        }
    }
    let text = ("sans-serif", 13).into_font().color(&BLACK);
    let line_h = 20;
    let total = (entries.len() + figure.references.len() + usize::from(figure.band_label.is_some())) as i32 * line_h;
    let mut y = ((HEIGHT as i32 - total) / 2).max(10);
    let (x, len) = (8, 34);
    let e = |r: std::result::Result<(), DrawingAreaErrorKind<std::io::Error>>| r.map_err(|e| e.to_string());
    let sample = |y: i32, style: Style| -> std::result::Result<(), String> {
        let pts = vec![(x, y), (x + len, y)];
        let stroke = style.colour.stroke_width(2);
        match style.dash {
            None => e(area.draw(&PathElement::new(pts, stroke))),
            Some((size, gap)) => e(area.draw(&DashedPathElement::new(pts, size, gap, stroke))),
        }
    };
    for (label, style) in &entries {
        sample(y, *style)?;
        if with_markers(figure) {
            e(area.draw(&marker((x + len / 2, y), *style)))?;
        }
        e(area.draw_text(label, &text, (x + len + 8, y - 7)))?;
        y += line_h;
    }
    if let Some(band) = &figure.band_label {
        e(area.draw(&Rectangle::new([(x, y - 6), (x + len, y + 6)], RGBColor(90, 90, 90).mix(0.2).filled())))?;
        e(area.draw_text(band, &text, (x + len + 8, y - 7)))?;
        y += line_h;
    }
    for r in &figure.references {
        sample(y, REFERENCE)?;
        e(area.draw_text(&r.label, &text, (x + len + 8, y - 7)))?;
        y += line_h;
    }
    Ok(())
}
