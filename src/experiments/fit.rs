//! Slope fits with bootstrap intervals, and the "claim observed or not" lines the experiments
//! print: one implementation for every experiment that checks a predicted rate.
//!
//! A slope is that of ln(mean y) on ln(x) by least squares over the grid points; its 95% interval
//! is the percentile bootstrap with the repetitions resampled within every grid point. A claim is
//! observed when the interval meets the predicted range widened by a stated tolerance.

use crate::rng::DpRng;
use rand::RngExt;

/// The mean of `v`.
pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The least-squares slope of y on x.
pub fn ols_slope(x: &[f64], y: &[f64]) -> f64 {
    let (mx, my) = (mean(x), mean(y));
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    sxy / sxx
}

/// The q-quantile of `v` (sorted in place), linearly interpolated.
pub fn quantile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (i, f) = (pos.floor() as usize, pos - pos.floor());
    if i + 1 < v.len() { v[i] * (1.0 - f) + v[i + 1] * f } else { v[i] }
}

/// A fitted slope with its 95% bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slope {
    /// The slope of ln(mean y) on ln(x).
    pub estimate: f64,
    /// 2.5% and 97.5% bootstrap quantiles.
    pub interval: (f64, f64),
}

impl Slope {
    /// `estimate` with the 95% percentile interval of its bootstrap `resampled` values.
    pub fn from_resamples(estimate: f64, mut resampled: Vec<f64>) -> Slope {
        Slope { estimate, interval: percentile_interval(&mut resampled) }
    }

    /// "estimate [lo, hi]" to 3 decimals.
    pub fn show(&self) -> String {
        format!("{:.3} [{:.3}, {:.3}]", self.estimate, self.interval.0, self.interval.1)
    }

    /// Whether the interval meets `[lo, hi]` (in either order).
    pub fn meets(&self, lo: f64, hi: f64) -> bool {
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        self.interval.0 <= hi && self.interval.1 >= lo
    }
}

/// The log–log slope of the mean of `samples[k]` on `xs[k]`, with a 95% percentile bootstrap
/// interval over `resamples` resamples (each point's repetitions resampled with replacement).
pub fn log_log_slope(xs: &[f64], samples: &[&[f64]], resamples: usize, rng: &mut DpRng) -> Slope {
    let mut fits = joint_log_log_slopes(xs, &[samples], resamples, rng);
    let (estimate, resampled) = fits.pop().expect("invariant: one series in, one fit out");
    Slope::from_resamples(estimate, resampled)
}

/// The log–log slopes of several series measured on the same repetitions (`series[j][k]`: the
/// repetitions of series j at `xs[k]`, repetition r of every series from the same seed), with
/// their bootstrap resampled **jointly**: each resample draws one set of repetition indices per
/// point and uses it for every series, so a difference of two slopes is resampled with its
/// pairing kept. Returns, per series, the slope of the means and its `resamples` resampled slopes.
pub fn joint_log_log_slopes(
    xs: &[f64],
    series: &[&[&[f64]]],
    resamples: usize,
    rng: &mut DpRng,
) -> Vec<(f64, Vec<f64>)> {
    let lx: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
    let mut fits: Vec<(f64, Vec<f64>)> = series
        .iter()
        .map(|s| (ols_slope(&lx, &s.iter().map(|r| mean(r).ln()).collect::<Vec<_>>()), Vec::new()))
        .collect();
    let mut sums = vec![0.0; series.len()];
    let mut ly: Vec<Vec<f64>> = vec![Vec::with_capacity(xs.len()); series.len()];
    for _ in 0..resamples {
        ly.iter_mut().for_each(Vec::clear);
        for k in 0..xs.len() {
            let reps = series[0][k].len();
            debug_assert!(series.iter().all(|s| s[k].len() == reps), "invariant: the series share repetitions");
            sums.fill(0.0);
            for _ in 0..reps {
                let i = rng.random_range(0..reps);
                for (sum, s) in sums.iter_mut().zip(series) {
                    *sum += s[k][i];
                }
            }
            for (y, sum) in ly.iter_mut().zip(&sums) {
                y.push((sum / reps as f64).ln());
            }
        }
        for ((_, resampled), y) in fits.iter_mut().zip(&ly) {
            resampled.push(ols_slope(&lx, y));
        }
    }
    fits
}

/// The 95% percentile bootstrap interval of the mean of `v`.
pub fn mean_interval(v: &[f64], resamples: usize, rng: &mut DpRng) -> (f64, f64) {
    let k = v.len();
    let mut m: Vec<f64> =
        (0..resamples).map(|_| (0..k).map(|_| v[rng.random_range(0..k)]).sum::<f64>() / k as f64).collect();
    percentile_interval(&mut m)
}

/// The 2.5% and 97.5% quantiles of `v` (sorted in place).
fn percentile_interval(v: &mut [f64]) -> (f64, f64) {
    (quantile(v, 0.025), quantile(v, 0.975))
}

/// The slope of `ln f` on `ln x` over the grid `xs` (a theorem's rate with its logarithms).
///
/// # Errors
/// Those of `f`.
pub fn predicted_slope(xs: &[f64], f: impl Fn(f64) -> crate::error::Result<f64>) -> crate::error::Result<f64> {
    let lx: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
    let ly: Vec<f64> = xs.iter().map(|&x| f(x).map(f64::ln)).collect::<crate::error::Result<_>>()?;
    Ok(ols_slope(&lx, &ly))
}

/// One claim of an experiment and whether it was observed.
#[derive(Debug, Clone)]
pub struct Claim {
    /// Its label, e.g. "(a) MD vs d".
    pub label: String,
    /// Observed or not.
    pub observed: bool,
    /// The full Markdown line.
    pub line: String,
}

impl Claim {
    /// A claim that `slope` lies in `[lo, hi]` widened by ±`tolerance`: observed when its
    /// interval meets that range.
    pub fn slope(label: &str, what: &str, slope: &Slope, (lo, hi): (f64, f64), tolerance: f64) -> Claim {
        let (lo, hi) = (lo.min(hi) - tolerance, lo.max(hi) + tolerance);
        let observed = slope.meets(lo, hi);
        // an interval meeting the range is weaker than the estimate inside it: say which held
        let estimate_outside = observed && !(lo..=hi).contains(&slope.estimate);
        let caveat =
            if estimate_outside { " (the estimate lies outside the range; only its interval meets it)" } else { "" };
        Claim::new(
            label,
            observed,
            format!("{what}, predicted slope in [{lo:.3}, {hi:.3}]; fitted {}{caveat}", slope.show()),
        )
    }

    /// A claim with its own test: `detail` says what was measured.
    pub fn new(label: &str, observed: bool, detail: String) -> Claim {
        Claim {
            label: label.into(),
            observed,
            line: format!("- {label}: {detail} — **{}**", if observed { "observed" } else { "not observed" }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Seeds, Stream};

    /// A slope claim passes when its interval meets the range, and then says when the estimate
    /// itself lies outside it (l1's "(c) MD vs epsilon" fitted -0.899 against [-1.1, -0.9]).
    #[test]
    fn a_slope_claim_says_when_only_its_interval_meets_the_range() {
        let outside = Slope { estimate: -0.899, interval: (-0.95, -0.85) };
        let inside = Slope { estimate: -1.0, interval: (-1.05, -0.95) };
        let far = Slope { estimate: -0.5, interval: (-0.6, -0.4) };
        let c = Claim::slope("x", "w", &outside, (-1.0, -1.0), 0.1);
        assert!(c.observed && c.line.contains("only its interval meets it"), "{}", c.line);
        let c = Claim::slope("x", "w", &inside, (-1.0, -1.0), 0.1);
        assert!(c.observed && !c.line.contains("only its interval"), "{}", c.line);
        let c = Claim::slope("x", "w", &far, (-1.0, -1.0), 0.1);
        assert!(!c.observed && !c.line.contains("only its interval"), "{}", c.line);
    }

    #[test]
    fn ols_recovers_an_exact_slope() {
        let x = [0.0, 1.0, 2.0, 3.0];
        let y: Vec<f64> = x.iter().map(|v| 2.0 - 0.5 * v).collect();
        assert!((ols_slope(&x, &y) + 0.5).abs() < 1e-12);
    }

    #[test]
    fn bootstrap_interval_covers_a_noiseless_power_law_exactly() {
        let xs = [1.0, 2.0, 4.0, 8.0];
        let samples: Vec<Vec<f64>> = xs.iter().map(|x: &f64| vec![x.powf(-0.5); 5]).collect();
        let refs: Vec<&[f64]> = samples.iter().map(|s| s.as_slice()).collect();
        let s = log_log_slope(&xs, &refs, 50, &mut Seeds::new(1).stream(Stream::Other(1)));
        assert!((s.estimate + 0.5).abs() < 1e-12 && (s.interval.0 + 0.5).abs() < 1e-12);
        assert!(s.meets(-0.6, -0.4) && !s.meets(-0.4, -0.3));
    }

    /// Joint resampling keeps the pairing: a series fitted against itself has a resampled slope
    /// difference of exactly 0 every time (independent resampling of the two would spread it),
    /// while the single series' resampled slopes do spread.
    #[test]
    fn joint_bootstrap_resamples_the_series_with_the_same_indices() {
        let xs = [1.0, 2.0, 4.0, 8.0];
        let samples: Vec<Vec<f64>> =
            xs.iter().map(|x: &f64| (1..=6).map(|r| x.powf(-0.5) * (1.0 + 0.1 * r as f64)).collect()).collect();
        let refs: Vec<&[f64]> = samples.iter().map(|s| s.as_slice()).collect();
        let fits = joint_log_log_slopes(&xs, &[&refs, &refs], 200, &mut Seeds::new(2).stream(Stream::Other(2)));
        let (a, b) = (&fits[0].1, &fits[1].1);
        assert_eq!(a.len(), 200);
        assert!(a.iter().zip(b).all(|(x, y)| x - y == 0.0));
        let spread =
            a.iter().fold(f64::NEG_INFINITY, |m, v| m.max(*v)) - a.iter().fold(f64::INFINITY, |m, v| m.min(*v));
        assert!(spread > 0.01, "the resampled slopes vary: {spread}");
    }
}
