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
    let lx: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
    let estimate = ols_slope(&lx, &samples.iter().map(|s| mean(s).ln()).collect::<Vec<_>>());
    let mut boot: Vec<f64> = (0..resamples)
        .map(|_| {
            let ly: Vec<f64> = samples
                .iter()
                .map(|s| ((0..s.len()).map(|_| s[rng.random_range(0..s.len())]).sum::<f64>() / s.len() as f64).ln())
                .collect();
            ols_slope(&lx, &ly)
        })
        .collect();
    Slope { estimate, interval: (quantile(&mut boot, 0.025), quantile(&mut boot, 0.975)) }
}

/// The 95% percentile bootstrap interval of the mean of `v`.
pub fn mean_interval(v: &[f64], resamples: usize, rng: &mut DpRng) -> (f64, f64) {
    let k = v.len();
    let mut m: Vec<f64> =
        (0..resamples).map(|_| (0..k).map(|_| v[rng.random_range(0..k)]).sum::<f64>() / k as f64).collect();
    (quantile(&mut m, 0.025), quantile(&mut m, 0.975))
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
        Claim::new(label, observed, format!("{what}, predicted slope in [{lo:.3}, {hi:.3}]; fitted {}", slope.show()))
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
}
