//! The papers' experiments and settings behind `dpref reproduce`.
//!
//! [`run_named`] runs one experiment by its command-line name and returns what it wrote; every
//! report starts with a settings block ([`report::settings_block`]), every plot has a CSV of the
//! numbers it draws beside it ([`plot::write_figure`]), and [`report::write_index`] links them.

pub mod adaptive_noise;
pub mod dp2;
pub mod dpagd;
pub mod fit;
mod json;
pub mod l1;
pub mod plot;
pub mod privacy_table;
pub mod report;
pub mod sparse;

pub use report::{Options, Outcome, Progress, Written, check_output_dir, write_index};

use crate::error::{Error, Result};
use rayon::prelude::*;
use std::path::Path;

/// The experiments' command-line names, in the order `reproduce` runs them.
pub const NAMES: [&str; 6] = ["privacy", "adaptive-noise", "dpagd", "dp2", "l1", "sparse"];

/// [`NAMES`] as the constraint of an "unknown experiment" error.
pub const NAMES_CONSTRAINT: &str = "one of: privacy, adaptive-noise, dpagd, dp2, l1, sparse";

/// Runs the experiment called `name` (one of [`NAMES`]) with its outputs under `out` (which
/// should have passed [`check_output_dir`]).
///
/// # Errors
/// `InvalidParameter` for an unknown name; the experiment's algorithm or I/O errors.
pub fn run_named(name: &str, options: &Options, out: &Path) -> Result<Outcome> {
    let start = std::time::Instant::now();
    // each report, with its verdicts and headline numbers as JSON (`reproduce --json`)
    macro_rules! with_json {
        ($name:literal, $module:ident) => {{
            let r = $module::run(options, out)?;
            let data = json::$module(&r);
            ($name, r.written, data)
        }};
    }
    let (name, written, data) = match name {
        "privacy" => with_json!("privacy", privacy_table),
        "adaptive-noise" => with_json!("adaptive-noise", adaptive_noise),
        "dpagd" => with_json!("dpagd", dpagd),
        "dp2" => with_json!("dp2", dp2),
        "l1" => with_json!("l1", l1),
        "sparse" => with_json!("sparse", sparse),
        other => return Err(Error::invalid("experiment", other, NAMES_CONSTRAINT)),
    };
    Ok(written.outcome(name, start.elapsed().as_secs_f64(), data))
}

/// Test accuracy `(epoch, accuracy)` at the start of each epoch after the first (epoch 0 is the
/// initialisation, which every method shares), `accuracy` evaluating an iterate.
pub(crate) struct EpochCurve<F> {
    accuracy: F,
    steps_per_epoch: u64,
    curve: Vec<(f64, f64)>,
}

impl<F: FnMut(&[f64]) -> f64> EpochCurve<F> {
    /// Records every `steps_per_epoch` steps if `record`, else nothing.
    pub(crate) fn new(steps_per_epoch: u64, record: bool, accuracy: F) -> Self {
        EpochCurve { accuracy, steps_per_epoch: if record { steps_per_epoch } else { u64::MAX }, curve: Vec::new() }
    }

    /// The curve, ended (if recording) by the final iterate's accuracy at `epochs`.
    pub(crate) fn finish(mut self, epochs: f64, final_accuracy: f64) -> Vec<(f64, f64)> {
        if self.steps_per_epoch != u64::MAX {
            self.curve.push((epochs, final_accuracy));
        }
        self.curve
    }
}

impl<F: FnMut(&[f64]) -> f64> crate::optim::Observer for EpochCurve<F> {
    fn observe(&mut self, event: crate::optim::TraceEvent<'_>) {
        if let crate::optim::TraceEvent::Iterate { step, x } = event
            && step > 0
            && step % self.steps_per_epoch == 0
        {
            let acc = (self.accuracy)(x);
            self.curve.push((step as f64 / self.steps_per_epoch as f64, acc));
        }
    }
}

/// The median of `v` (sorted in place; the mean of the two middle values for even lengths);
/// NaN when `v` holds a NaN (a diverged run is not sorted out of sight: the median, and any
/// verdict comparing it, fails) or is empty.
pub(crate) fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() || v.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { 0.5 * (v[m - 1] + v[m]) }
}

/// The largest of `values`; NaN when any value is NaN or there is none. Unlike
/// `fold(0.0, f64::max)` (which skips a NaN and turns "none" into 0), a missing or diverged
/// number never prints as a number, and a comparison against it fails.
pub(crate) fn max_or_nan(values: impl IntoIterator<Item = f64>) -> f64 {
    extreme_or_nan(values, f64::max)
}

/// The smallest of `values`; NaN when any value is NaN or there is none (as [`max_or_nan`]).
pub(crate) fn min_or_nan(values: impl IntoIterator<Item = f64>) -> f64 {
    extreme_or_nan(values, f64::min)
}

/// The largest ε of some runs, NaN when a run reports none ([`max_or_nan`] of `epsilons`, a
/// missing one read as NaN; the table then prints "n/a").
pub(crate) fn worst_epsilon(epsilons: impl IntoIterator<Item = Option<f64>>) -> f64 {
    max_or_nan(epsilons.into_iter().map(|e| e.unwrap_or(f64::NAN)))
}

fn extreme_or_nan(values: impl IntoIterator<Item = f64>, pick: fn(f64, f64) -> f64) -> f64 {
    let mut extreme: Option<f64> = None;
    for v in values {
        if v.is_nan() {
            return f64::NAN;
        }
        extreme = Some(extreme.map_or(v, |e| pick(e, v)));
    }
    extreme.unwrap_or(f64::NAN)
}

/// The median of `score(r)` over the runs `r = 0..runs` (scored in parallel): a step size's
/// score on its tuning runs.
///
/// # Errors
/// The first run's error, if any.
pub(crate) fn median_over_runs(runs: u64, score: impl Fn(u64) -> Result<f64> + Sync + Send) -> Result<f64> {
    let mut v: Vec<f64> = (0..runs).into_par_iter().map(score).collect::<Result<_>>()?;
    Ok(median(&mut v))
}

/// The pointwise median of the curves `curve(r)` of `results`, which share their x values (the
/// first result's).
pub(crate) fn median_curve<T>(results: &[T], curve: impl Fn(&T) -> &[(f64, f64)]) -> Vec<(f64, f64)> {
    let first = curve(&results[0]);
    (0..first.len())
        .map(|i| {
            let mut v: Vec<f64> = results.iter().map(|r| curve(r)[i].1).collect();
            (first[i].0, median(&mut v))
        })
        .collect()
}

/// The certified lower bound on ε at the run's δ of `run`'s own privacy events (their worst-case
/// neighbouring pair, by [`crate::audit::accountant::audit_claim`]: the true ε of what ran is at
/// least this), the "privacy audited" column beside the accountant's upper bound; NaN for a run
/// without a privacy claim.
///
/// # Errors
/// The audit's errors; `Numerical` if the lower bound exceeds the run's reported ε (the
/// accountant would under-report).
pub(crate) fn audited_epsilon(run: &crate::optim::Run) -> Result<f64> {
    let (Some(event), Some(neighbouring), Some(epsilon), Some(delta)) =
        (run.events.as_event(), run.neighbouring, run.privacy.epsilon, run.privacy.delta)
    else {
        return Ok(f64::NAN);
    };
    let lower = crate::audit::accountant::audit_claim(&event, epsilon, delta, neighbouring)?.lower;
    if lower > epsilon {
        return Err(Error::Numerical {
            what: "audited epsilon",
            reason: format!("the certified lower bound {lower} exceeds the reported epsilon {epsilon}"),
        });
    }
    Ok(lower)
}

/// `v` to 4 significant digits, written shortest (step sizes on a grid extended by √10 factors
/// are irrational).
pub(crate) fn short(v: f64) -> String {
    format!("{}", format!("{v:.3e}").parse::<f64>().unwrap_or(v))
}

/// The outcome of a step-size search.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tuned {
    /// The chosen value (lowest score; the smaller value on ties).
    pub value: f64,
    /// Every value scored, ascending, with its score.
    pub scored: Vec<(f64, f64)>,
    /// The starting grid's ends.
    pub grid_ends: (f64, f64),
    /// The chosen value is an end of what was searched, after every extension allowed.
    pub at_edge: bool,
}

impl Tuned {
    /// Whether the search went beyond the starting grid.
    pub fn extended(&self) -> bool {
        self.scored.first().is_some_and(|s| s.0 < self.grid_ends.0)
            || self.scored.last().is_some_and(|s| s.0 > self.grid_ends.1)
    }

    /// The searched range, `lo..hi`.
    pub fn searched(&self) -> (f64, f64) {
        (self.scored.first().map_or(f64::NAN, |s| s.0), self.scored.last().map_or(f64::NAN, |s| s.0))
    }
}

/// Scores every value of `grid` (in parallel) and, while the best is an end of what has been
/// searched, scores one more value beyond that end (`×factor` above the top, `÷factor` below the
/// bottom), at most `max_extensions` times in all: a step size at the edge of its grid may be
/// under-tuned, and a comparison against it unfair.
pub(crate) fn tune_extending(
    grid: &[f64],
    factor: f64,
    max_extensions: usize,
    score: impl Fn(f64) -> Result<f64> + Sync,
) -> Result<Tuned> {
    let mut scored: Vec<(f64, f64)> = grid.par_iter().map(|&v| score(v).map(|s| (v, s))).collect::<Result<_>>()?;
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    let grid_ends = (scored[0].0, scored[scored.len() - 1].0);
    // A NaN score (a diverged tuning run) ranks last whatever its sign bit (`total_cmp` alone
    // would put a negative NaN, which x86 arithmetic produces, first).
    let rank = |s: f64| if s.is_nan() { f64::INFINITY } else { s };
    let best = |s: &[(f64, f64)]| {
        s.iter()
            .enumerate()
            .min_by(|a, b| rank(a.1.1).total_cmp(&rank(b.1.1)))
            .map(|(i, _)| i)
            .expect("invariant: non-empty grid")
    };
    let mut extensions = 0;
    loop {
        let i = best(&scored);
        let at_top = i + 1 == scored.len();
        let at_bottom = i == 0;
        if !(at_top || at_bottom) || extensions == max_extensions {
            return Ok(Tuned { value: scored[i].0, at_edge: at_top || at_bottom, scored, grid_ends });
        }
        extensions += 1;
        if at_top {
            let v = scored[i].0 * factor;
            scored.push((v, score(v)?));
        } else {
            let v = scored[0].0 / factor;
            scored.insert(0, (v, score(v)?));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A NaN (a diverged run, a missing ε) propagates: the reductions `fold(0.0, f64::max)`,
    /// `fold(INF, f64::min)` and a sort with NaN last returned 2, 1 and 2 here.
    #[test]
    fn reductions_propagate_nan_and_empty_is_nan() {
        assert_eq!((max_or_nan([1.0, 3.0, 2.0]), min_or_nan([1.0, 3.0, 2.0])), (3.0, 1.0));
        assert!(max_or_nan([1.0, f64::NAN, 2.0]).is_nan());
        assert!(max_or_nan([f64::NAN, 2.0]).is_nan());
        assert!(min_or_nan([1.0, -f64::NAN]).is_nan());
        assert!(max_or_nan([]).is_nan() && min_or_nan([]).is_nan());
        assert_eq!(worst_epsilon([Some(0.5), Some(0.7)]), 0.7);
        assert!(worst_epsilon([Some(0.5), None]).is_nan());
        assert!(worst_epsilon([None, None]).is_nan());
        assert_eq!((median(&mut [3.0, 1.0, 2.0]), median(&mut [4.0, 1.0, 2.0, 3.0])), (2.0, 2.5));
        assert!(median(&mut [1.0, f64::NAN, 2.0]).is_nan());
        assert!(median(&mut [1.0, -f64::NAN, 2.0, 5.0]).is_nan());
        assert!(median(&mut []).is_nan());
        assert!(crate::experiments::report::decimals_up(worst_epsilon([None]), 3) == "n/a");
    }

    /// A diverged step size (NaN score, either sign bit) is never the chosen one.
    #[test]
    fn tuning_never_picks_a_nan_score() {
        for nan in [f64::NAN, -f64::NAN] {
            let t = tune_extending(&[0.5, 1.0, 2.0], 2.0, 0, |a| Ok(if a == 0.5 { nan } else { a })).unwrap();
            assert_eq!(t.value, 1.0);
        }
    }

    #[test]
    fn tuning_extends_past_an_edge_until_the_best_is_interior() {
        // minimum at 8: the grid 0.5..2 picks 2, extension tries 4, 8, 16 and stops.
        let t = tune_extending(&[0.5, 1.0, 2.0], 2.0, 5, |a| Ok((a.log2() - 3.0).abs())).unwrap();
        assert_eq!(t.value, 8.0);
        assert!(!t.at_edge && t.extended());
        assert_eq!(t.searched(), (0.5, 16.0));
        // too few extensions allowed: still at the edge, and said so
        let t = tune_extending(&[0.5, 1.0, 2.0], 2.0, 1, |a| Ok((a.log2() - 3.0).abs())).unwrap();
        assert_eq!(t.value, 4.0);
        assert!(t.at_edge);
        // downwards
        let t = tune_extending(&[0.5, 1.0, 2.0], 2.0, 5, |a| Ok((a.log2() + 2.0).abs())).unwrap();
        assert_eq!(t.value, 0.25);
        assert!(!t.at_edge);
        // interior from the start: no extension
        let t = tune_extending(&[0.5, 1.0, 2.0], 2.0, 5, |a| Ok((a - 1.0).abs())).unwrap();
        assert_eq!(t.value, 1.0);
        assert!(!t.extended() && !t.at_edge);
    }
}
