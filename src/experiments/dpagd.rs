//! `dpref reproduce dpagd`: \[ZCHWB\] Sec. 6 (Figure 1), shrunk to two cores.
//!
//! The paper trains a 784-128-128-10 MLP on MNIST for 100 epochs with DP-SGD, DP-RMSProp and
//! DP-Adam (minibatch, Poisson b = 128, clip C = 1, σ ∈ {2, 4, 8}, δ = 1e-5, i.e. ε ∈ {1.22,
//! 0.57, 0.28}), picks the step size from {0.1, 0.01, 0.001} by the lowest final training loss,
//! decays it ×0.1 every 30 epochs, and reports train/test accuracy against epochs. MNIST is not
//! available offline, so this runs the same pipeline on a synthetic 10-class Gaussian
//! mixture ([`gaussian_classes`]) with a smaller MLP, at the same three ε: σ is calibrated by the
//! RDP accountant (improved conversion) for the shrunk run's q and T, so each run is ε-DP at the
//! paper's budget. Step decay ×0.1 every 30% of the run, at 30%, 60% and 90% (the paper's "every
//! 30 epochs" of 100).
//! The step size follows the paper's rule on its grid, extended by factors √10 beyond an edge
//! that wins (at most [`MAX_EXTENSIONS`] values): on the shrunk task DP-SGD's best step size lies
//! above the paper's top value 0.1, and a comparison against an under-tuned DP-SGD would credit
//! the adaptive methods with a lead that is only the grid's. A step size still at the edge is
//! flagged and qualifies the verdict. The plot starts at epoch 1 (as `dp2.svg`), shares one
//! y-range across panels and marks chance level (the test set's most frequent class).
//! The accountant's reproduction of the paper's own ε table is `reproduce privacy`.

use super::plot::{Figure, Panel, Reference, Series, write_figure};
use super::report::{reproduced_or_not, tuning_paragraphs, unfair_caveat, verdict_summary};
use super::{
    EpochCurve, Options, Progress, Written, median_curve, median_over_runs, short as fmt_rate, tune_extending,
};
use crate::error::Result;
use crate::model::synthetic::gaussian_classes;
use crate::model::{Mlp, Model};
use crate::optim::Privacy;
use crate::optim::RunSettings;
use crate::optim::dpagd::minibatch::{MinibatchConfig, Update, dp_minibatch};
use crate::rng::{Seeds, Stream};
use rayon::prelude::*;
use std::path::Path;

/// The paper's budgets (σ = 2, 4, 8 on its MNIST setting).
pub const EPSILONS: [f64; 3] = [1.22, 0.57, 0.28];
/// The paper's step-size grid.
pub const STEP_GRID: [f64; 3] = [0.1, 0.01, 0.001];
/// How many step sizes beyond the paper's grid the tuning may try, in all, per cell (each a factor
/// √10 beyond the edge that won).
pub const MAX_EXTENSIONS: usize = 3;
const DELTA: f64 = 1e-5;
const CLASSES: usize = 10;
const BATCH: usize = 128;

/// The optimisers compared.
pub const METHODS: [Update; 3] = [
    Update::Sgd,
    Update::RmsProp { alpha: 0.99, eps: 1e-8 },
    Update::Adam { beta1: 0.9, beta2: 0.999, eps: 1e-8, bias_correction: true },
];

/// Sizes of the shrunk experiment.
#[derive(Debug, Clone, Copy)]
struct Size {
    n_train: usize,
    n_test: usize,
    d: usize,
    hidden: usize,
    epochs: usize,
    seeds: usize,
}

/// What one seeded run measured.
struct Outcome {
    train_loss: f64,
    train_accuracy: f64,
    test_accuracy: f64,
    sigma: f64,
    /// The accountant's ε of the run (NaN if none).
    epsilon: f64,
    /// The run's certified lower bound on ε ([`super::audited_epsilon`]; NaN where not computed).
    audited: f64,
    curve: Vec<(f64, f64)>,
}

/// One cell of the table.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The optimiser.
    pub method: Update,
    /// ε.
    pub epsilon: f64,
    /// The calibrated noise multiplier.
    pub sigma: f64,
    /// The accountant's ε of the reported runs (the largest).
    pub epsilon_accounted: f64,
    /// The certified lower bound on their ε ([`crate::audit::accountant::audit_claim`] of its events; the reported seeds
    /// share their events, so the first's).
    pub epsilon_audited: f64,
    /// The chosen step size.
    pub learning_rate: f64,
    /// The step sizes searched, lowest and highest (the paper's grid, or beyond it if extended).
    pub searched: (f64, f64),
    /// The search went beyond the paper's grid.
    pub extended: bool,
    /// The chosen step size is still an end of what was searched.
    pub at_edge: bool,
    /// Median final training loss / train accuracy / test accuracy over seeds.
    pub train_loss: f64,
    /// Median train accuracy.
    pub train_accuracy: f64,
    /// Median test accuracy.
    pub test_accuracy: f64,
    /// Median test accuracy per epoch.
    pub curve: Vec<(f64, f64)>,
}

/// The report.
#[derive(Debug, Clone)]
pub struct Report {
    /// All cells.
    pub cells: Vec<Cell>,
    /// Test accuracy of always predicting the test set's most frequent class (chance level).
    pub chance_accuracy: f64,
    /// The verdict line.
    pub verdict: String,
    /// The Markdown, its summary for the index, the files written (report, plot, CSV).
    pub written: Written,
}

use super::median;

/// Runs the experiment; writes `dpagd.md`, `dpagd.svg` and `dpagd.csv` under `out`.
///
/// # Errors
/// Algorithm or I/O errors.
pub fn run(options: &Options, out: &Path) -> Result<Report> {
    let progress = Progress::new("dpagd", options);
    let size = options.pick(
        Size { n_train: 6000, n_test: 2000, d: 20, hidden: 32, epochs: 8, seeds: 3 },
        Size { n_train: 20000, n_test: 5000, d: 40, hidden: 64, epochs: 20, seeds: 5 },
    );
    let seeds = Seeds::new(options.seed);
    let separation = 2.5;
    let all =
        gaussian_classes(size.n_train + size.n_test, size.d, CLASSES, separation, &mut seeds.stream(Stream::Data))?;
    let (train, test) = split(&all.data, size.n_train)?;
    let model = Mlp::new(size.d, &[size.hidden], CLASSES)?;
    let q = BATCH as f64 / size.n_train as f64;
    let steps_per_epoch = size.n_train.div_ceil(BATCH) as u64;
    let steps = steps_per_epoch * size.epochs as u64;
    let decay_every = ((steps as f64) * 0.3).ceil().max(1.0) as u64;
    let run_one = |m: Update, eps: f64, lr: f64, r: u64, curve: bool| -> Result<Outcome> {
        let s = seeds.child(r);
        let w0 = model.init(&mut s.stream(Stream::Init));
        let mut cfg = MinibatchConfig::new(
            m,
            lr,
            1.0,
            RunSettings::poisson(steps, q, Privacy::Target { epsilon: eps, delta: DELTA })?
                .with_batch_size_b(BATCH as f64)?,
        )?;
        cfg.step_decay = Some((decay_every, 0.1));
        cfg.settings.x0 = Some(w0);
        // the plot starts at epoch 1, as `dp2.svg` does
        let mut rec = EpochCurve::new(steps_per_epoch, curve, |x: &[f64]| {
            model.evaluate(x, &test).ok().and_then(|e| e.accuracy).unwrap_or(f64::NAN)
        });
        let run = dp_minibatch(&train, &model, &cfg, s, &mut rec)?;
        let tr = model.evaluate(&run.x, &train)?;
        let te = model.evaluate(&run.x, &test)?;
        let test_acc = te.accuracy.unwrap_or(f64::NAN);
        Ok(Outcome {
            train_loss: tr.mean_loss,
            train_accuracy: tr.accuracy.unwrap_or(f64::NAN),
            test_accuracy: test_acc,
            sigma: run.privacy.sigma,
            epsilon: run.privacy.epsilon.unwrap_or(f64::NAN),
            // audited once per cell: the reported seeds share their events
            audited: if curve && r == 2000 { super::audited_epsilon(&run)? } else { f64::NAN },
            curve: rec.finish(size.epochs as f64, test_acc),
        })
    };
    let mut cells = Vec::new();
    let total = EPSILONS.len() * METHODS.len();
    for &eps in &EPSILONS {
        for m in METHODS {
            progress.say(format!(
                "[{}/{total}] {}, epsilon = {eps}: tuning the step size on {} values x {} runs",
                cells.len() + 1,
                m.name(),
                STEP_GRID.len(),
                size.seeds
            ));
            // step size: lowest median final training loss (the paper's rule), on tuning seeds
            // beyond the paper's grid where its edge wins (an under-tuned method makes an unfair
            // comparison)
            let tuned = tune_extending(&STEP_GRID, 10f64.sqrt(), MAX_EXTENSIONS, |lr| {
                median_over_runs(size.seeds as u64, |r| run_one(m, eps, lr, 1000 + r, false).map(|x| x.train_loss))
            })?;
            let lr = tuned.value;
            progress.say(format!(
                "[{}/{total}] {}, epsilon = {eps}: step size {}{}; {} reported runs",
                cells.len() + 1,
                m.name(),
                fmt_rate(lr),
                if tuned.extended() {
                    format!(" (grid extended to {}..{})", fmt_rate(tuned.searched().0), fmt_rate(tuned.searched().1))
                } else {
                    String::new()
                },
                size.seeds
            ));
            let results: Vec<_> = (0..size.seeds)
                .into_par_iter()
                .map(|r| run_one(m, eps, lr, 2000 + r as u64, true))
                .collect::<Result<_>>()?;
            let col = |f: &dyn Fn(&Outcome) -> f64| {
                let mut v: Vec<f64> = results.iter().map(f).collect();
                median(&mut v)
            };
            let curve = median_curve(&results, |r| &r.curve);
            cells.push(Cell {
                method: m,
                epsilon: eps,
                sigma: results[0].sigma,
                epsilon_accounted: super::max_or_nan(results.iter().map(|r| r.epsilon)),
                epsilon_audited: results[0].audited,
                learning_rate: lr,
                searched: tuned.searched(),
                extended: tuned.extended(),
                at_edge: tuned.at_edge,
                train_loss: col(&|r| r.train_loss),
                train_accuracy: col(&|r| r.train_accuracy),
                test_accuracy: col(&|r| r.test_accuracy),
                curve,
            });
        }
    }
    let acc = |m: &str, e: f64| {
        cells.iter().find(|c| c.method.name() == m && c.epsilon == e).map(|c| c.test_accuracy).unwrap_or(f64::NAN)
    };
    let leads: Vec<f64> = EPSILONS
        .iter()
        .map(|&e| super::max_or_nan([acc("dp-rmsprop", e), acc("dp-adam", e)]) - acc("dp-sgd", e))
        .collect();
    let ahead = leads.iter().all(|&l| l > 0.0);
    let most_at_smallest = leads[2] >= leads[0] && leads[2] >= leads[1];
    let edge_cells: Vec<&Cell> = cells.iter().filter(|c| c.at_edge).collect();
    let mut edge_methods: Vec<&str> = edge_cells.iter().map(|c| c.method.name()).collect();
    edge_methods.sort_unstable();
    edge_methods.dedup();
    let reproduced = ahead && most_at_smallest;
    let verdict = format!(
        "Paper's claim (the adaptive methods ahead of DP-SGD, most at epsilon = 0.28): {}. Best adaptive minus DP-SGD \
         test accuracy at epsilon = 1.22, 0.57, 0.28: {:+.4}, {:+.4}, {:+.4} (ahead at every epsilon: {ahead}; largest at \
         0.28: {most_at_smallest}; medians of {} seeds compared with no margin, so a gap below the seed-to-seed spread is \
         no evidence either way).{}",
        reproduced_or_not(reproduced),
        leads[0],
        leads[1],
        leads[2],
        size.seeds,
        unfair_caveat(&edge_methods)
    );
    let summary = verdict_summary(reproduced, !edge_methods.is_empty());
    let chance_accuracy = majority_share(test.labels());
    // The paper's own privacy table, re-accounted (classic conversion: the paper's numbers).
    let rows = super::privacy_table::account_paper("ZCHWB")?;
    let mut md = format!(
        "## [ZCHWB] Section 5 (DPAGD experiments), shrunk\n\n{}### The paper's privacy table (q = 128/60000, T = \
         46875, delta = 1e-5)\n\n{}\n",
        super::report::settings_block(
            "dpagd",
            options,
            &format!("{DELTA:e}"),
            &format!(
                "{} reported seeds per cell (medians), step size tuned by the median of {} separate seeds",
                size.seeds, size.seeds
            ),
        ),
        super::privacy_table::markdown(&rows)
    );
    md += &format!(
        "### Synthetic 10-class data, MLP {}-{}-10\n\n\
         n = {} train / {} test, separation {separation}, Poisson b = {BATCH} (q = {q}), {} epochs ({steps} steps), \
         clip C = 1, delta = {DELTA:e}, step size from the paper's grid {{0.1, 0.01, 0.001}} by the lowest median final \
         training loss (the paper's rule), the grid extended by factors of sqrt(10) beyond an edge that wins (at most \
         {MAX_EXTENSIONS} values), decayed x0.1 every {decay_every} steps; medians over {} seeds. sigma is calibrated for each epsilon on this \
         run's q and T (the paper's sigma = 2, 4, 8 give these epsilons on MNIST). Chance level (always the most \
         frequent test class): {chance_accuracy:.4}. accounted is the accountant's upper bound on the run's epsilon \
         (rounded up); audited a certified lower bound on the true epsilon of the run's own privacy events (their \
         worst-case neighbouring pair; rounded down).\n\n\
         | epsilon | method | sigma | accounted | audited | step size | step sizes searched | train loss | train acc | test acc |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
        size.d, size.hidden, size.n_train, size.n_test, size.epochs, size.seeds
    );
    for c in &cells {
        md += &format!(
            "| {} | {} | {} | {} | {} | {} | {}..{}{}{} | {:.4} | {:.4} | {:.4} |\n",
            c.epsilon,
            c.method.name(),
            // rounded down: re-accounting the printed sigma gives an epsilon at least the run's
            super::report::decimals_down(c.sigma, 3),
            super::report::decimals_up(c.epsilon_accounted, 3),
            super::report::decimals_down(c.epsilon_audited, 3),
            fmt_rate(c.learning_rate),
            fmt_rate(c.searched.0),
            fmt_rate(c.searched.1),
            if c.extended { " (extended)" } else { "" },
            if c.at_edge { " **edge**" } else { "" },
            c.train_loss,
            c.train_accuracy,
            c.test_accuracy
        );
    }
    let at_edge: Vec<String> = edge_cells
        .iter()
        .map(|c| format!("{} at epsilon = {} (step size {})", c.method.name(), c.epsilon, fmt_rate(c.learning_rate)))
        .collect();
    let extended: Vec<String> = cells
        .iter()
        .filter(|c| c.extended)
        .map(|c| format!("{} at epsilon = {}", c.method.name(), c.epsilon))
        .collect();
    md += &tuning_paragraphs("The paper's grid edge", &extended.join("; "), &at_edge.join("; "));
    md += &format!("\n{verdict}\n");
    let panels = Panel::per_epsilon(&EPSILONS, |e| {
        cells.iter().filter(|c| c.epsilon == e).map(|c| Series::line(c.method.name(), c.curve.clone())).collect()
    });
    let figure = Figure {
        panels,
        x_label: "epoch".into(),
        y_label: "test accuracy (median)".into(),
        columns: ("epsilon".into(), "epoch".into(), "test_accuracy".into()),
        log_y: false,
        shared_y: true,
        references: vec![Reference {
            label: format!("chance: majority class ({chance_accuracy:.3})"),
            y: chance_accuracy,
        }],
        band_label: None,
    };
    let written = Written::report(out, "dpagd", summary, md, write_figure(out, "dpagd", &figure)?)?;
    Ok(Report { cells, chance_accuracy, verdict, written })
}

/// The share of the most frequent label: the accuracy of always predicting it.
fn majority_share(labels: &[f64]) -> f64 {
    let mut counts: Vec<(f64, usize)> = Vec::new();
    for &y in labels {
        match counts.iter_mut().find(|c| c.0 == y) {
            Some(c) => c.1 += 1,
            None => counts.push((y, 1)),
        }
    }
    counts.iter().map(|c| c.1).max().unwrap_or(0) as f64 / labels.len().max(1) as f64
}

/// The first `n_train` records and the rest.
fn split(data: &crate::data::Dataset, n_train: usize) -> Result<(crate::data::Dataset, crate::data::Dataset)> {
    let d = data.d();
    let (f, y) = (data.features(), data.labels());
    let train = crate::data::Dataset::new(f[..n_train * d].to_vec(), y[..n_train].to_vec(), d)?;
    let test = crate::data::Dataset::new(f[n_train * d..].to_vec(), y[n_train..].to_vec(), d)?;
    Ok((train, test))
}
