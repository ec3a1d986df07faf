//! Batch samplers. Each names the accounting scheme it implies ([`BatchSampler::scheme`]); a
//! sampler whose batches no accountant covers (with replacement) says so when asked for ε.
//!
//! Under Poisson sampling the batch size is random; algorithms normalise sums by the *expected*
//! size `b = q·n`, a public constant (normalising by the realised size, or by q·|D| under add/remove,
//! publishes a private quantity: proofs/dp_sgd.md §5 D1).

use crate::accounting::SamplingScheme;
use crate::error::{Error, Result, check};
use crate::rng::DpRng;
use rand::RngExt;

/// How each step's batch is drawn from n examples.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum BatchSampler {
    /// Each example independently with probability q (the default of every private algorithm).
    Poisson {
        /// q ∈ (0, 1].
        q: f64,
    },
    /// b indices i.i.d. uniform on {0, …, n − 1} (the printed \[ADFJT\] algorithms; no accountant).
    WithReplacement {
        /// b ≥ 1.
        batch_size: usize,
    },
    /// A uniform subset of size b.
    WithoutReplacement {
        /// 1 ≤ b ≤ n.
        batch_size: usize,
    },
    /// All n examples every step.
    Full,
}

impl BatchSampler {
    /// Poisson sampling with expected batch size b: q = b/n.
    ///
    /// # Errors
    /// `InvalidParameter` unless 1 ≤ b ≤ n.
    pub fn poisson_expected(b: usize, n: usize) -> Result<Self> {
        crate::accounting::event::check_sizes(n as u64, b as u64)?;
        Ok(BatchSampler::Poisson { q: b as f64 / n as f64 })
    }

    /// Checks the sampler's own numbers, before any data is seen: q ∈ (0, 1], a batch size ≥ 1.
    ///
    /// # Errors
    /// `InvalidParameter` naming the parameter.
    pub fn validate_settings(&self) -> Result<()> {
        match *self {
            BatchSampler::Poisson { q } => check::rate("q", q).map(|_| ()),
            BatchSampler::WithReplacement { batch_size } | BatchSampler::WithoutReplacement { batch_size } => {
                check::count("batch size", batch_size as u64).map(|_| ())
            }
            BatchSampler::Full => Ok(()),
        }
    }

    /// Validates the sampler against the dataset size.
    ///
    /// # Errors
    /// `InvalidParameter` for q ∉ (0, 1] or b ∉ [1, n] (b ≥ 1 with replacement).
    pub fn validate(&self, n: usize) -> Result<()> {
        self.validate_settings()?;
        match *self {
            BatchSampler::Poisson { .. } | BatchSampler::WithReplacement { .. } => Ok(()),
            BatchSampler::WithoutReplacement { batch_size } => {
                crate::accounting::event::check_sizes(n as u64, batch_size as u64)
            }
            BatchSampler::Full => check::count("dataset size", n as u64).map(|_| ()),
        }
    }

    /// The normaliser of batch sums: the expected batch size (q·n, b, or n).
    pub fn expected_batch_size(&self, n: usize) -> f64 {
        match *self {
            BatchSampler::Poisson { q } => q * n as f64,
            BatchSampler::WithReplacement { batch_size } | BatchSampler::WithoutReplacement { batch_size } => {
                batch_size as f64
            }
            BatchSampler::Full => n as f64,
        }
    }

    /// The accounting scheme of this sampler on n examples.
    pub fn scheme(&self, n: usize) -> SamplingScheme {
        match *self {
            BatchSampler::Poisson { q } => SamplingScheme::Poisson { q },
            BatchSampler::WithReplacement { batch_size } => {
                SamplingScheme::WithReplacement { dataset_size: n as u64, batch_size: batch_size as u64 }
            }
            BatchSampler::WithoutReplacement { batch_size } => {
                SamplingScheme::WithoutReplacement { dataset_size: n as u64, batch_size: batch_size as u64 }
            }
            BatchSampler::Full => SamplingScheme::Full,
        }
    }

    /// Draws one batch of indices into `out` (cleared first), in increasing order for Poisson.
    ///
    /// Poisson: the gaps between included indices are i.i.d. Geometric(q) (failures before a
    /// success), drawn by inversion `⌊ln U / ln(1 − q)⌋`, U uniform on (0, 1]; this is the same
    /// law as one Bernoulli(q) per example and costs O(qn) draws instead of n. With replacement: b
    /// uniform indices; without: a partial Fisher–Yates shuffle.
    pub fn sample(&self, rng: &mut DpRng, n: usize, out: &mut Vec<usize>) {
        out.clear();
        match *self {
            BatchSampler::Poisson { q } => {
                if q >= 1.0 {
                    out.extend(0..n);
                    return;
                }
                let ln_1mq = (-q).ln_1p();
                let mut i = 0usize;
                loop {
                    let u = 1.0 - rng.random::<f64>(); // (0, 1]
                    let gap = (u.ln() / ln_1mq).floor();
                    if gap.is_nan() || gap >= (n - i) as f64 {
                        break;
                    }
                    i += gap as usize;
                    out.push(i);
                    i += 1;
                    if i >= n {
                        break;
                    }
                }
            }
            BatchSampler::WithReplacement { batch_size } => {
                for _ in 0..batch_size {
                    out.push(rng.random_range(0..n));
                }
            }
            BatchSampler::WithoutReplacement { batch_size } => {
                let mut idx: Vec<usize> = (0..n).collect();
                for j in 0..batch_size {
                    let k = rng.random_range(j..n);
                    idx.swap(j, k);
                }
                out.extend_from_slice(&idx[..batch_size]);
            }
            BatchSampler::Full => out.extend(0..n),
        }
    }

    /// Refuses samplers no accountant covers, for runs that promise an ε.
    ///
    /// # Errors
    /// `Unsupported` for sampling with replacement.
    pub fn require_accountable(&self, neighbouring: crate::accounting::Neighbouring) -> Result<()> {
        if let BatchSampler::WithReplacement { .. } = self {
            return Err(Error::Unsupported {
                event: "sampling with replacement".into(),
                neighbouring: neighbouring.name().into(),
                accountant: "RDP",
                reason: "no accountant covers batches drawn with replacement (a record can appear several \
                         times); use Poisson or fixed-size sampling without replacement, or give a noise multiplier without \
                         delta for a run without a privacy claim"
                    .into(),
            });
        }
        Ok(())
    }
}
