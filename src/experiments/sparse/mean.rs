//! E1, mean estimation (\[GGKKM\] Algorithm 1, Thms. 3.2–3.3): the error ‖ẑ − z̄‖₂ against n at
//! fixed d, s, ε for Laplace (δ = 0) and Gaussian (δ > 0) noise, each with and without the
//! projection onto B₁(0, L√s) (the run's z̃ is the unprojected mechanism on the same noise, so the
//! pairs are exact), on the worst-case data for l1 (uniform support, entries ±L/√s), and against
//! s at fixed n. Claims: slope −1/2 in n where the noise's l1 norm exceeds L√s (the sparse regime,
//! Lemma 3.1), slope −1 where it is far below (the dense regime, the projection idle), the
//! projection's gain in the sparse regime, and slope 1/2 in s.

use super::super::fit::{Claim, Slope, log_log_slope, mean, mean_interval, predicted_slope};
use super::super::plot::{Figure, Panel, Reference, Series, write_figure};
use super::{BOOTSTRAP, DELTA, EPSILON, L, Section, TOLERANCE};
use crate::bounds::sparse::{SparseProblem, theorem32_sparse_term, theorem33_sparse_term};
use crate::data::sparse_families::{SparseFamily, sparse_family};
use crate::error::Result;
use crate::experiments::report::Progress;
use crate::linalg::norm_l2;
use crate::optim::sparse::{ProjectionMechanismConfig, SparseVectors};
use crate::rng::{Seeds, Stream};
use rayon::prelude::*;
use std::path::Path;

/// Grid sizes: the quick ones keep `reproduce --quick` within its budget.
struct Size {
    d: usize,
    s: usize,
    log2_ns: std::ops::RangeInclusive<u32>,
    reps: usize,
    n_for_s: usize,
    s_grid: Vec<usize>,
}

impl Size {
    fn new(quick: bool) -> Self {
        Size {
            d: 2048,
            s: 4,
            log2_ns: 7..=18,
            reps: if quick { 16 } else { 100 },
            n_for_s: 512,
            s_grid: vec![1, 2, 4, 8, 16, 32],
        }
    }
}

/// The four E1 mechanisms, in table order.
const METHODS: [&str; 4] =
    ["Laplace + projection (Alg. 1)", "Laplace alone", "Gaussian + projection (Alg. 1)", "Gaussian alone"];

/// One grid point of E1: the errors of every method over the repetitions.
#[derive(Debug, Clone)]
pub struct Point {
    /// The swept value (n or s).
    pub x: f64,
    /// n.
    pub n: usize,
    /// s.
    pub s: usize,
    /// Errors ‖output − z̄‖₂ per method ([`METHODS`] order), one per repetition.
    pub errors: [Vec<f64>; 4],
}

/// The errors of the four mechanisms at (n, s) over `reps` noise seeds, on one dataset.
fn e1_point(x: f64, n: usize, d: usize, s: usize, reps: usize, seeds: Seeds) -> Result<Point> {
    let data = sparse_family(SparseFamily::UniformSupport, n, d, s, L, &mut seeds.stream(Stream::Data))?;
    let laplace = ProjectionMechanismConfig::new(L, s, EPSILON, 0.0)?;
    let gaussian = ProjectionMechanismConfig::new(L, s, EPSILON, DELTA)?;
    let (z_bar, _) = laplace.mean(SparseVectors::Csr(&data))?;
    let error = |v: &[f64]| norm_l2(&v.iter().zip(&z_bar).map(|(a, b)| a - b).collect::<Vec<_>>());
    let per_rep: Vec<[f64; 4]> = (0..reps)
        .into_par_iter()
        .map(|r| {
            let lap = laplace.run(SparseVectors::Csr(&data), seeds.child(r as u64))?;
            let gau = gaussian.run(SparseVectors::Csr(&data), seeds.child(r as u64))?;
            Ok([error(&lap.z_hat), error(&lap.z_tilde), error(&gau.z_hat), error(&gau.z_tilde)])
        })
        .collect::<Result<_>>()?;
    let errors = std::array::from_fn(|m| per_rep.iter().map(|e| e[m]).collect());
    Ok(Point { x, n, s, errors })
}

/// The n at which the noise's expected l1 norm equals L√s: E‖ξ‖₁ = dσ (Laplace, E|ξ_j| = σ) or
/// dσ√(2/π) (Gaussian), with σ = σ(1)/n the scale Algorithm 1 itself calibrates
/// ([`ProjectionMechanismConfig::noise_scale`]), so n = d·c·σ(1)/(L√s).
///
/// # Errors
/// The config's (ε, δ) errors.
pub fn transition_n(d: usize, s: usize, gaussian: bool) -> Result<f64> {
    let (delta, mean_abs) = if gaussian { (DELTA, (2.0 / std::f64::consts::PI).sqrt()) } else { (0.0, 1.0) };
    let sigma_at_one = ProjectionMechanismConfig::new(L, s, EPSILON, delta)?.noise_scale(1)?.sigma();
    Ok(d as f64 * mean_abs * sigma_at_one / (L * (s as f64).sqrt()))
}

/// The slope of method `m` over the points with `keep(n)`.
fn slope_over(points: &[Point], m: usize, keep: impl Fn(&Point) -> bool, seeds: Seeds) -> (Slope, Vec<f64>) {
    let chosen: Vec<&Point> = points.iter().filter(|p| keep(p)).collect();
    let xs: Vec<f64> = chosen.iter().map(|p| p.x).collect();
    let samples: Vec<&[f64]> = chosen.iter().map(|p| p.errors[m].as_slice()).collect();
    (log_log_slope(&xs, &samples, BOOTSTRAP, &mut seeds.stream(Stream::Other(0x5e1))), xs)
}

fn table(title: &str, points: &[Point]) -> String {
    let mut md = format!("#### {title}\n\n| n | s |");
    METHODS.iter().for_each(|m| md += &format!(" {m} |"));
    md += "\n|---|---|---|---|---|---|\n";
    for p in points {
        md += &format!("| {} | {} |", p.n, p.s);
        p.errors.iter().for_each(|e| md += &format!(" {:.4e} |", mean(e)));
        md += "\n";
    }
    md + "\n"
}

fn figure(points: &[Point], d: usize, x_label: &str, column: &str, seeds: Seeds) -> Figure {
    let mut rng = seeds.stream(Stream::Other(0x5e2));
    let series = (0..4)
        .map(|m| Series {
            label: METHODS[m].into(),
            points: points.iter().map(|p| (p.x.log2(), mean(&p.errors[m]))).collect(),
            band: points.iter().map(|p| mean_interval(&p.errors[m], BOOTSTRAP, &mut rng)).collect(),
        })
        .collect();
    Figure {
        panels: vec![Panel {
            title: format!("d = {d}, epsilon = {EPSILON}, delta = {DELTA:e} (Gaussian)"),
            key: "e1".into(),
            series,
        }],
        x_label: x_label.into(),
        y_label: "mean l2 error".into(),
        columns: ("sweep".into(), column.into(), "mean_error".into()),
        log_y: true,
        shared_y: false,
        references: vec![Reference { label: "L (the norm bound)".into(), y: L }],
        band_label: Some("95% bootstrap interval of the mean".into()),
    }
}

/// E1's sweeps, claims, tables and the plots `sparse-n`, `sparse-s` (`.svg` and `.csv`) under
/// `out`; `root` seeds the data and the noise.
///
/// # Errors
/// Algorithm or I/O errors.
pub(super) fn run(quick: bool, root: Seeds, progress: &Progress, out: &Path) -> Result<Section> {
    let size = Size::new(quick);
    let (d, s) = (size.d, size.s);

    // E1 (a): error against n
    let mut by_n = Vec::new();
    for (j, k) in size.log2_ns.clone().enumerate() {
        let n = 1usize << k;
        progress.say(format!("E1: n = {n}, d = {d}, s = {s}"));
        by_n.push(e1_point(n as f64, n, d, s, size.reps, root.child(1).child(j as u64))?);
    }
    // E1 (b): error against s at fixed n (sparse regime)
    let mut by_s = Vec::new();
    for (j, &sj) in size.s_grid.iter().enumerate() {
        progress.say(format!("E1: s = {sj}, n = {}", size.n_for_s));
        by_s.push(e1_point(sj as f64, size.n_for_s, d, sj, size.reps, root.child(2).child(j as u64))?);
    }
    let boot = root.child(9);
    let (lap_t, gau_t) = (transition_n(d, s, false)?, transition_n(d, s, true)?);
    let sparse_regime = |t: f64| move |p: &Point| (p.n as f64) <= t / 8.0;
    let (lap_sparse, lap_sparse_ns) = slope_over(&by_n, 0, sparse_regime(lap_t), boot.child(1));
    let (lap_dense, _) = slope_over(&by_n, 0, |p| p.n as f64 >= 8.0 * lap_t, boot.child(2));
    let (gau_sparse, gau_sparse_ns) = slope_over(&by_n, 2, sparse_regime(gau_t), boot.child(3));
    let (lap_s, s_xs) = slope_over(&by_s, 0, |_| true, boot.child(4));
    let pred_lap = predicted_slope(&lap_sparse_ns, |n| {
        theorem32_sparse_term(&SparseProblem::new(L, s as u64, d as u64, n as u64, EPSILON)?, 0.1)
    })?;
    let pred_gau = predicted_slope(&gau_sparse_ns, |n| {
        theorem33_sparse_term(&SparseProblem::new(L, s as u64, d as u64, n as u64, EPSILON)?.with_delta(DELTA)?, 0.1)
    })?;
    let pred_s = predicted_slope(&s_xs, |sj| {
        theorem32_sparse_term(&SparseProblem::new(L, sj as u64, d as u64, size.n_for_s as u64, EPSILON)?, 0.1)
    })?;
    let mut claims = vec![
        Claim::slope(
            "E1 Laplace, sparse regime",
            &format!("Algorithm 1 (Laplace) error against n for n <= {:.0} (an eighth of the transition)", lap_t / 8.0),
            &lap_sparse,
            (-0.5, pred_lap),
            TOLERANCE,
        ),
        Claim::slope(
            "E1 Laplace, dense regime",
            &format!(
                "Algorithm 1 (Laplace) error against n for n >= {:.0}: the projection idle, sqrt(2d) sigma",
                8.0 * lap_t
            ),
            &lap_dense,
            (-1.0, -1.0),
            TOLERANCE,
        ),
        Claim::slope(
            "E1 Gaussian, sparse regime",
            &format!("Algorithm 1 (Gaussian) error against n for n <= {:.0}", gau_t / 8.0),
            &gau_sparse,
            (-0.5, pred_gau),
            TOLERANCE,
        ),
        Claim::slope(
            "E1 Laplace against s",
            &format!("Algorithm 1 (Laplace) error against s at n = {} (sparse regime)", size.n_for_s),
            &lap_s,
            (0.5, pred_s),
            TOLERANCE,
        ),
    ];
    // the projection's gain: projected error below the unprojected one at every sparse-regime n
    for (label, m, t) in [("Laplace", 0usize, lap_t), ("Gaussian", 2, gau_t)] {
        let gains: Vec<f64> = by_n
            .iter()
            .filter(|p| p.n as f64 <= t / 8.0)
            .map(|p| mean(&p.errors[m + 1]) / mean(&p.errors[m]))
            .collect();
        let least = crate::experiments::min_or_nan(gains.iter().copied());
        claims.push(Claim::new(
            &format!("E1 {label} projection gain"),
            least > 2.0,
            format!(
                "in the sparse regime the projection cuts the mean error by more than 2x at every n (Lemma 3.1 against \
                 ||xi||_2); smallest ratio unprojected/projected {least:.2}"
            ),
        ));
    }
    let mut intro = format!(
        "E1 data: n rows of dimension d = {d}, each a uniformly random support of size s with entries +-L/sqrt(s), \
         L = {L} (the worst case for the l1 norm, `data::sparse_families`), one dataset per grid point, {} noise seeds \
         per point. Error: ||output - zbar||_2. 'alone' is the same run's noisy mean before the projection (the plain \
         mechanism on the same noise). epsilon = {EPSILON}, delta = {DELTA:e} (Gaussian). The transition where \
         E||xi||_1 = L sqrt(s): n = {lap_t:.0} (Laplace), {gau_t:.0} (Gaussian).\n\n",
        size.reps
    );
    intro += "Plots (log y): `sparse-n.svg`, `sparse-s.svg`, each with its CSV.\n\n";
    let mut data = table("E1 (a): mean error against n", &by_n);
    data += &table(&format!("E1 (b): mean error against s, n = {}", size.n_for_s), &by_s);
    let mut files = write_figure(out, "sparse-n", &figure(&by_n, d, "log2 n", "log2_n", boot.child(5)))?;
    files.extend(write_figure(out, "sparse-s", &figure(&by_s, d, "log2 s", "log2_s", boot.child(6)))?);
    Ok(Section { claims, intro, data, files })
}
