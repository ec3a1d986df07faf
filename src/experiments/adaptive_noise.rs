//! `dpref reproduce adaptive-noise`: \[ADFJT\] §6.1 (Figure 1), the synthetic absolute regression
//! `min (1/n) Σ |⟨aᵢ, x⟩ − bᵢ|` with n = 5000, d = 100, `σⱼ = j^{−3/2}`, τ = 0.01, b = 70, at
//! ε ∈ {0.1, 1, 4}.
//!
//! Methods: non-private AdaGrad; DP-SGD (clip 1); PASAN and PAGAN with A = I/B² (B = 1) and with
//! the paper's `Cⱼⱼ = σⱼ^{−4/3}` (B = the median of `‖a‖_C` on a *public* sample drawn from the
//! generative model with another seed: the paper leaves B and the scale of C unspecified).
//! Unspecified in the paper and fixed here (Sec. 6.1 leaves them open): X = [−1, 1]^d, x⁰ = 0, δ = 1e-5,
//! Poisson sampling with q = b/n and the noise multiplier calibrated by the RDP accountant for the
//! run's T steps, T = 20 epochs (10 with `--quick`). Step sizes are tuned on the paper's grid
//! {0.005, 0.01, 0.05, 0.1, 0.15, 0.2, 0.4, 0.5, 1.0} by the median final loss of tuning runs
//! whose seeds are disjoint from the reported runs; where the grid's edge wins, the grid is
//! extended (×2 above 1.0, ÷2 below 0.005, at most [`MAX_EXTENSIONS`] values) so that no method is
//! compared at an under-tuned step size, and a step size still at the edge is flagged in the
//! report and qualifies the verdict. The report gives medians over the reported runs (30, or 8
//! with `--quick`) of the loss of the running average x̄_k, and the plot their min–max band and
//! the loss at the planted x* (x* minimises the population loss, whose minimum is E|Lap(τ)| = τ;
//! the sample's minimum lies at or below f(x*)).

use super::plot::{Figure, Panel, Reference, Series, write_figure};
use super::report::{reproduced_or_not, tuning_paragraphs, verdict_summary};
use super::{Options, Progress, Written, median, median_curve, median_over_runs, tune_extending};
use crate::data::{Dataset, absolute_regression, absolute_regression_scales};
use crate::error::Result;
use crate::geometry::Domain;
use crate::loss::Loss;
use crate::optim::RunSettings;
use crate::optim::adaptive_noise::{AdaptiveMethod, AdaptiveNoiseConfig};
use crate::optim::dp_sgd::{DpSgdConfig, dp_sgd};
use crate::optim::{Observer, Privacy, TraceEvent};
use crate::rng::{Seeds, Stream};
use rayon::prelude::*;
use std::path::Path;

/// The paper's step-size grid (§6.1).
pub const STEP_GRID: [f64; 9] = [0.005, 0.01, 0.05, 0.1, 0.15, 0.2, 0.4, 0.5, 1.0];
/// The privacy levels of Figure 1.
pub const EPSILONS: [f64; 3] = [0.1, 1.0, 4.0];
const DELTA: f64 = 1e-5;
const N: usize = 5000;
const D: usize = 100;
const BATCH: usize = 70;
/// How many step sizes beyond the paper's grid the tuning may try, in all, per cell.
pub const MAX_EXTENSIONS: usize = 3;

/// One method of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Non-private diagonal AdaGrad (PAGAN with σ = 0, no clipping).
    AdaGrad,
    /// DP-SGD with clip 1.
    DpSgd,
    /// PASAN with A = I.
    PasanIdentity,
    /// PAGAN with A = I.
    PaganIdentity,
    /// PASAN with Cⱼⱼ = σⱼ^{−4/3}.
    PasanAdapted,
    /// PAGAN with Cⱼⱼ = σⱼ^{−4/3}.
    PaganAdapted,
}

impl Method {
    /// All methods, in report order.
    pub const ALL: [Method; 6] = [
        Method::AdaGrad,
        Method::DpSgd,
        Method::PasanIdentity,
        Method::PaganIdentity,
        Method::PasanAdapted,
        Method::PaganAdapted,
    ];

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Method::AdaGrad => "AdaGrad (non-private)",
            Method::DpSgd => "DP-SGD",
            Method::PasanIdentity => "PASAN (A = I)",
            Method::PaganIdentity => "PAGAN (A = I)",
            Method::PasanAdapted => "PASAN (C = sigma^-4/3)",
            Method::PaganAdapted => "PAGAN (C = sigma^-4/3)",
        }
    }
}

/// Records f(x̄_k) of the running average at checkpoints.
struct CurveRecorder<'a> {
    data: &'a Dataset,
    every: u64,
    sum: Vec<f64>,
    count: u64,
    curve: Vec<(f64, f64)>,
}

impl Observer for CurveRecorder<'_> {
    fn observe(&mut self, event: TraceEvent<'_>) {
        if let TraceEvent::Iterate { step, x } = event {
            for (s, v) in self.sum.iter_mut().zip(x) {
                *s += v;
            }
            self.count += 1;
            if step % self.every == 0 {
                let avg: Vec<f64> = self.sum.iter().map(|s| s / self.count as f64).collect();
                self.curve.push((step as f64, Loss::Absolute.empirical_risk(&avg, self.data)));
            }
        }
    }
}

struct Setting<'a> {
    data: &'a Dataset,
    steps: u64,
    adapted_c: Vec<f64>,
    adapted_b: f64,
}

/// One run; returns the final loss of the output and the curve.
fn run_once(
    s: &Setting<'_>,
    m: Method,
    epsilon: f64,
    alpha: f64,
    seed: Seeds,
    curve: bool,
) -> Result<(f64, Vec<(f64, f64)>)> {
    let q = BATCH as f64 / N as f64;
    let privacy = match m {
        Method::AdaGrad => Privacy::NoiseMultiplier { sigma: 0.0, report_delta: None },
        _ => Privacy::Target { epsilon, delta: DELTA },
    };
    let every = if curve { (s.steps / 25).max(1) } else { u64::MAX };
    let mut rec = CurveRecorder { data: s.data, every, sum: vec![0.0; D], count: 0, curve: Vec::new() };
    let run = match m {
        Method::DpSgd => {
            let run_settings = RunSettings::poisson(s.steps, q, privacy)?.with_batch_size_b(BATCH as f64)?;
            let mut cfg = DpSgdConfig::new(alpha, 1.0, run_settings)?;
            cfg.domain = Domain::Box { radius: 1.0 };
            dp_sgd(s.data, Loss::Absolute, &cfg, seed, &mut rec)?
        }
        _ => {
            let (b, adapted) = match m {
                Method::AdaGrad => (f64::INFINITY, false),
                Method::PasanAdapted | Method::PaganAdapted => (s.adapted_b, true),
                _ => (1.0, false),
            };
            let run_settings = RunSettings::poisson(s.steps, q, privacy)?.with_batch_size_b(BATCH as f64)?;
            let mut cfg = AdaptiveNoiseConfig::new(D, alpha, b, run_settings)?;
            cfg.domain = Domain::Box { radius: 1.0 };
            if adapted {
                cfg.ellipsoid_c = s.adapted_c.clone();
            }
            match m {
                Method::PasanIdentity | Method::PasanAdapted => {
                    AdaptiveMethod::Pasan.run(s.data, Loss::Absolute, &cfg, seed, &mut rec)?
                }
                _ => AdaptiveMethod::Pagan.run(s.data, Loss::Absolute, &cfg, seed, &mut rec)?,
            }
        }
    };
    let final_loss = Loss::Absolute.empirical_risk(&run.x, s.data);
    if curve {
        rec.curve.push((s.steps as f64, final_loss));
    }
    Ok((final_loss, rec.curve))
}

/// The result of one (method, ε) cell.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The method.
    pub method: Method,
    /// ε (NaN for AdaGrad).
    pub epsilon: f64,
    /// The tuned step size.
    pub alpha: f64,
    /// The step sizes searched, lowest and highest (the paper's grid, or beyond it if extended).
    pub searched: (f64, f64),
    /// The search went beyond the paper's grid.
    pub extended: bool,
    /// The tuned step size is still an end of what was searched.
    pub at_edge: bool,
    /// Median final loss over the reported runs.
    pub median_loss: f64,
    /// Lowest and highest final loss over the reported runs.
    pub loss_range: (f64, f64),
    /// Median loss curve (iteration, loss).
    pub curve: Vec<(f64, f64)>,
    /// Min and max over the reported runs at each point of `curve`.
    pub band: Vec<(f64, f64)>,
}

impl Cell {
    fn describe(&self) -> String {
        if self.method == Method::AdaGrad {
            self.method.name().to_string()
        } else {
            format!("{} at epsilon = {}", self.method.name(), self.epsilon)
        }
    }
}

/// The whole report.
#[derive(Debug, Clone)]
pub struct Report {
    /// All cells.
    pub cells: Vec<Cell>,
    /// Loss at the planted x*.
    pub loss_at_x_star: f64,
    /// Steps per run.
    pub steps: u64,
    /// Reported runs per cell.
    pub runs: usize,
    /// The verdict line.
    pub verdict: String,
    /// The Markdown, its summary for the index, the files written (report, plot, CSV).
    pub written: Written,
}

/// Runs the experiment and writes `adaptive_noise.md`, `adaptive_noise.svg` and
/// `adaptive_noise.csv` under `out`.
///
/// # Errors
/// Algorithm or I/O errors.
pub fn run(options: &Options, out: &Path) -> Result<Report> {
    let progress = Progress::new("adaptive-noise", options);
    let seeds = Seeds::new(options.seed);
    let (data, x_star) = absolute_regression(N, D, 0.01, &mut seeds.child(0).stream(Stream::Data))?;
    let sigma = absolute_regression_scales(D);
    let adapted_c: Vec<f64> = sigma.iter().map(|s| s.powf(-4.0 / 3.0)).collect();
    // B for the adapted ellipsoid: median of ‖a‖_C on a public sample (different seed).
    let (public, _) = absolute_regression(2000, D, 0.01, &mut seeds.child(1).stream(Stream::Data))?;
    let mut norms: Vec<f64> = (0..public.n())
        .map(|i| public.row(i).iter().zip(&adapted_c).map(|(a, c)| c * a * a).sum::<f64>().sqrt())
        .collect();
    let adapted_b = median(&mut norms);
    let epochs = options.pick(10, 20);
    let steps = (epochs * N).div_ceil(BATCH) as u64;
    let (tune_runs, runs) = options.pick((3, 8), (5, 30));
    let setting = Setting { data: &data, steps, adapted_c, adapted_b };
    let mut cells = Vec::new();
    let total = 1 + 5 * EPSILONS.len();
    for m in Method::ALL {
        let eps_list: &[f64] = if m == Method::AdaGrad { &[f64::NAN] } else { &EPSILONS };
        for &eps in eps_list {
            let what =
                if m == Method::AdaGrad { m.name().to_string() } else { format!("{}, epsilon = {eps}", m.name()) };
            progress.say(format!(
                "[{}/{total}] {what}: tuning alpha on {} step sizes x {tune_runs} runs",
                cells.len() + 1,
                STEP_GRID.len()
            ));
            // tuning: median final loss over tune_runs seeds (children 1000+…)
            let tuned = tune_extending(&STEP_GRID, 2.0, MAX_EXTENSIONS, |alpha| {
                median_over_runs(tune_runs, |r| {
                    run_once(&setting, m, eps, alpha, seeds.child(1000 + r), false).map(|x| x.0)
                })
            })?;
            let alpha = tuned.value;
            progress.say(format!(
                "[{}/{total}] {what}: alpha = {alpha}{}; {runs} reported runs",
                cells.len() + 1,
                if tuned.extended() {
                    format!(" (grid extended to {}..{})", tuned.searched().0, tuned.searched().1)
                } else {
                    String::new()
                }
            ));
            // reported runs: seeds children 2000+…
            let results: Vec<(f64, Vec<(f64, f64)>)> = (0..runs)
                .into_par_iter()
                .map(|r| run_once(&setting, m, eps, alpha, seeds.child(2000 + r as u64), true))
                .collect::<Result<_>>()?;
            let mut finals: Vec<f64> = results.iter().map(|r| r.0).collect();
            let npts = results[0].1.len();
            let at = |i: usize| results.iter().map(|r| r.1[i].1).collect::<Vec<f64>>();
            let curve = median_curve(&results, |r| &r.1);
            let band: Vec<(f64, f64)> = (0..npts).map(|i| min_max(&at(i))).collect();
            cells.push(Cell {
                method: m,
                epsilon: eps,
                alpha,
                searched: tuned.searched(),
                extended: tuned.extended(),
                at_edge: tuned.at_edge,
                median_loss: median(&mut finals),
                loss_range: min_max(&finals),
                curve,
                band,
            });
        }
    }
    let loss_at_x_star = Loss::Absolute.empirical_risk(&x_star, &data);
    let cell = |m: Method, e: f64| {
        cells
            .iter()
            .find(|c| c.method == m && (c.epsilon == e || m == Method::AdaGrad))
            .expect("invariant: every cell ran")
    };
    let get = |m: Method, e: f64| cell(m, e).median_loss;
    let ada = get(Method::AdaGrad, 0.0);
    let mut beats = true;
    let mut gaps = Vec::new();
    for &e in &EPSILONS {
        let best_iso =
            super::min_or_nan([Method::DpSgd, Method::PasanIdentity, Method::PaganIdentity].iter().map(|&m| get(m, e)));
        beats &= get(Method::PaganAdapted, e) < best_iso;
        gaps.push(get(Method::PaganAdapted, e) - ada);
    }
    let approaching = gaps.windows(2).all(|w| w[1] <= w[0]);
    // Every cell enters the verdict (PAGAN(C) against each isotropic method, and AdaGrad); one
    // whose step size is still at an edge of what was searched may be under-tuned.
    let at_edge: Vec<String> = cells
        .iter()
        .filter(|c| c.at_edge && c.method != Method::PasanAdapted)
        .map(|c| format!("{} (alpha = {})", c.describe(), c.alpha))
        .collect();
    let reproduced = beats && approaching;
    let qualifier = if at_edge.is_empty() {
        String::new()
    } else {
        format!(
            " Caveat: the comparison may be unfair to {}, whose step size sits at the edge of the searched grid even \
             after extending it.",
            at_edge.join(", ")
        )
    };
    let verdict = format!(
        "Paper's claim (PAGAN with adapted noise beats the isotropic methods at every epsilon, and approaches non-private \
         AdaGrad as epsilon grows): {}. PAGAN(C) beats the best isotropic method at every epsilon: {beats}; its gap to \
         AdaGrad at epsilon = 0.1, 1, 4: {:.4}, {:.4}, {:.4} (shrinking: {approaching}).{qualifier}",
        reproduced_or_not(reproduced),
        gaps[0],
        gaps[1],
        gaps[2]
    );
    let summary = verdict_summary(reproduced, !at_edge.is_empty());
    let mut md = format!(
        "## [ADFJT] Section 6.1: synthetic absolute regression\n\n{}",
        super::report::settings_block(
            "adaptive-noise",
            options,
            &format!("{DELTA:e}"),
            &format!(
                "{runs} reported runs per cell (medians; the plot's band is their min-max), step size tuned by the median \
                 of {tune_runs} separate runs"
            ),
        )
    );
    md += &format!(
        "n = {N}, d = {D}, b = {BATCH} (Poisson, q = {}), {steps} steps ({epochs} epochs), delta = {DELTA:e}, X = \
         [-1, 1]^d, {runs} reported runs per cell (medians), step size tuned on the paper's grid {STEP_GRID:?} with \
         {tune_runs} separate runs, the grid extended (x2 above, /2 below, at most {MAX_EXTENSIONS} values) where its \
         edge won. B for the adapted ellipsoid: {adapted_b:.4} (median of ||a||_C on public data). Loss at the planted \
         x*: {loss_at_x_star:.5} (x* minimises the population loss, whose minimum is tau = 0.01; the sample's minimum \
         is at most this).\n\n\
         | method | epsilon | tuned alpha | alphas searched | median final loss | min - max over runs |\n\
         |---|---|---|---|---|---|\n",
        BATCH as f64 / N as f64
    );
    for c in &cells {
        let e = if c.method == Method::AdaGrad { "-".to_string() } else { format!("{}", c.epsilon) };
        let searched = format!(
            "{}..{}{}{}",
            c.searched.0,
            c.searched.1,
            if c.extended { " (extended)" } else { "" },
            if c.at_edge { " **edge**" } else { "" }
        );
        md += &format!(
            "| {} | {} | {} | {} | {:.5} | {:.5} - {:.5} |\n",
            c.method.name(),
            e,
            c.alpha,
            searched,
            c.median_loss,
            c.loss_range.0,
            c.loss_range.1
        );
    }
    let extended: Vec<String> = cells.iter().filter(|c| c.extended).map(|c| c.describe()).collect();
    let still: Vec<String> =
        cells.iter().filter(|c| c.at_edge).map(|c| format!("{} (alpha = {})", c.describe(), c.alpha)).collect();
    md += &tuning_paragraphs("The paper's grid edge", &extended.join("; "), &still.join("; "));
    md += &format!("\n{verdict}\n");
    let panels = Panel::per_epsilon(&EPSILONS, |e| {
        cells
            .iter()
            .filter(|c| c.method == Method::AdaGrad || c.epsilon == e)
            .map(|c| Series { label: c.method.name().to_string(), points: c.curve.clone(), band: c.band.clone() })
            .collect()
    });
    let figure = Figure {
        panels,
        x_label: "iteration".into(),
        y_label: "loss of the average iterate (median)".into(),
        columns: ("epsilon".into(), "iteration".into(), "loss".into()),
        log_y: true,
        shared_y: true,
        references: vec![Reference { label: format!("loss at planted x* ({loss_at_x_star:.4})"), y: loss_at_x_star }],
        band_label: Some(format!("min-max over {runs} runs")),
    };
    let written = Written::report(out, "adaptive_noise", summary, md, write_figure(out, "adaptive_noise", &figure)?)?;
    Ok(Report { cells, loss_at_x_star, steps, runs, verdict, written })
}

/// The least and the greatest of `v` (NaN when `v` holds a NaN or is empty).
fn min_max(v: &[f64]) -> (f64, f64) {
    (super::min_or_nan(v.iter().copied()), super::max_or_nan(v.iter().copied()))
}
