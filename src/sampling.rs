//! Batch samplers. Each names the accounting scheme it implies ([`BatchSampler::scheme`]); a
//! sampler whose batches no accountant covers (with replacement) says so when asked for ε.
//!
//! Under Poisson sampling the batch size is random; algorithms normalise sums by the *expected*
//! size `b = q·n`, a public constant (normalising by the realised size, or by q·|D| under add/remove,
//! publishes a private quantity: proofs/dp_sgd.md §5 D1).
//!
//! Also here, the two random sizes and subsets of \[GGKKM\] Sec. 6.1 (Algorithm 5): the truncated
//! geometric law [`TruncatedGeometric`] (Def. 6.1) and the uniform ordered subset with its
//! (O, E) split ([`uniform_ordered_subset`], [`split_ordered`]). Proof: proofs/sparse/primitives.md.

use crate::accounting::SamplingScheme;
use crate::error::{Error, Result, check};
use crate::rng::DpRng;
use rand::RngExt;

/// The smallest Poisson rate a sampler accepts, 2⁻²⁰ (see [`BatchSampler::validate_settings`]).
pub const SMALLEST_POISSON_RATE: f64 = 1.0 / 1_048_576.0;

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

    /// Checks the sampler's own numbers, before any data is seen: q ∈ [2⁻²⁰, 1], a batch size ≥ 1.
    /// The floor: the gap inversion draws U on a 2⁻⁵³ grid, so the inclusion probability of a
    /// record right after an included one is ⌈q·2⁵³⌉/2⁵³, above q by up to 2⁻⁵³/q relative (at
    /// most 1e-10 from q = 2⁻²⁰; 9e-5 at q = 1e-12, and below 2⁻⁵³ the law breaks: at q = 1e-17
    /// the first record is in with probability 11q). The accountant's q would under-read it.
    ///
    /// # Errors
    /// `InvalidParameter` naming the parameter.
    pub fn validate_settings(&self) -> Result<()> {
        match *self {
            BatchSampler::Poisson { q } => {
                check::rate("q", q)?;
                if q < SMALLEST_POISSON_RATE {
                    return Err(Error::invalid(
                        "q",
                        q,
                        "at least 2^-20 (about 9.5e-7): below, the sampler's floating-point gaps include records \
                         measurably more often than q",
                    ));
                }
                Ok(())
            }
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
                partial_fisher_yates(rng, n, batch_size, out);
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

/// The first m entries of a uniformly random permutation of `0..n`, appended to `out` (callers clear it):
/// a partial Fisher–Yates shuffle, `swap(j, U{j..n})` for j < m. Every ordered m-tuple of distinct
/// indices has probability `(n − m)!/n!` (the j-th draw is uniform over the n − j indices not yet
/// taken). The one implementation of sampling without replacement
/// ([`BatchSampler::WithoutReplacement`] and [`uniform_ordered_subset`] call it). O(n) memory for
/// the index table; m ≤ n is the caller's to check.
fn partial_fisher_yates(rng: &mut DpRng, n: usize, m: usize, out: &mut Vec<usize>) {
    let mut idx: Vec<usize> = (0..n).collect();
    for j in 0..m {
        let k = rng.random_range(j..n);
        idx.swap(j, k);
    }
    out.extend_from_slice(&idx[..m]);
}

/// A uniformly random **ordered** sample of m distinct indices of `0..n` (\[GGKKM\] Algorithm 5,
/// line 2: B of size 2^{N+1}), into `out` (cleared first): every ordered m-tuple of distinct
/// indices has probability `(n − m)!/n!`, so the unordered set is a uniform m-subset and, by
/// symmetry, the first and second halves ([`split_ordered`]) are each uniform m/2-subsets.
///
/// # Errors
/// `InvalidParameter` unless `1 ≤ m ≤ n`.
pub fn uniform_ordered_subset(rng: &mut DpRng, n: usize, m: usize, out: &mut Vec<usize>) -> Result<()> {
    if m == 0 || m > n {
        return Err(Error::invalid("subset size m", m, "in 1..=n"));
    }
    out.clear();
    partial_fisher_yates(rng, n, m, out);
    Ok(())
}

/// The (O, E) split of an ordered sample B (\[GGKKM\] Algorithm 5, line 3): O = the first half,
/// E = the second half; disjoint, of equal size, with union B.
///
/// # Errors
/// `InvalidParameter` for an odd or zero length.
pub fn split_ordered(batch: &[usize]) -> Result<(&[usize], &[usize])> {
    if batch.is_empty() || batch.len() % 2 == 1 {
        return Err(Error::invalid("ordered sample length", batch.len(), "even and >= 2"));
    }
    Ok(batch.split_at(batch.len() / 2))
}

/// The truncated geometric law TGeom(M) of \[GGKKM\] Def. 6.1: `P[N = k] = p_k = C_M·2^{−k}` for
/// k = 0..M, with the normaliser
/// ```text
/// C_M = [2(1 − 2^{−(M+1)})]^{−1} = 2^M/(2^{M+1} − 1) ∈ [1/2, 1],
/// P[N ≤ k] = (1 − 2^{−(k+1)})/(1 − 2^{−(M+1)}) = (2^{M+1} − 2^{M−k})/(2^{M+1} − 1),
/// E[1/p_N] = M + 1,  E[2^{N+1}] = 2C_M(M + 1),  E[2^{2(N+1)}] = 4C_M(2^{M+1} − 1).
/// ```
/// In exact integers, `p_k = 2^{M−k}/(2^{M+1} − 1)`: [`TruncatedGeometric::pmf_rational`].
/// M ≤ 62, so that every numerator and the denominator fit a u64 (M = ⌊log₂ n⌋ − 1 in
/// Algorithm 6, far below).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TruncatedGeometric {
    m: u32,
}

impl TruncatedGeometric {
    /// The largest supported truncation M.
    pub const MAX_M: u32 = 62;

    /// TGeom(M).
    ///
    /// # Errors
    /// `InvalidParameter` for M > 62.
    pub fn new(m: u32) -> Result<Self> {
        if m > Self::MAX_M {
            return Err(Error::invalid("truncation M", m, "<= 62"));
        }
        Ok(TruncatedGeometric { m })
    }

    /// M.
    pub fn truncation(&self) -> u32 {
        self.m
    }

    /// The denominator `2^{M+1} − 1` of every probability.
    fn denominator(&self) -> u64 {
        (1u64 << (self.m + 1)) - 1
    }

    /// `p_k` as the exact fraction `(2^{M−k}, 2^{M+1} − 1)`; `(0, 2^{M+1} − 1)` outside {0..M}.
    pub fn pmf_rational(&self, k: u32) -> (u64, u64) {
        let num = if k <= self.m { 1u64 << (self.m - k) } else { 0 };
        (num, self.denominator())
    }

    /// `C_M = 2^M/(2^{M+1} − 1)` (one rounding).
    pub fn normaliser_c(&self) -> f64 {
        (1u64 << self.m) as f64 / self.denominator() as f64
    }

    /// `p_k = C_M 2^{−k}` for k ≤ M, else 0 (one rounding: the exact fraction, then one division).
    pub fn pmf(&self, k: u32) -> f64 {
        let (num, den) = self.pmf_rational(k);
        num as f64 / den as f64
    }

    /// `P[N ≤ k] = (2^{M+1} − 2^{M−k})/(2^{M+1} − 1)`; 1 for k ≥ M.
    pub fn cdf(&self, k: u32) -> f64 {
        if k >= self.m {
            return 1.0;
        }
        let num = (1u64 << (self.m + 1)) - (1u64 << (self.m - k));
        num as f64 / self.denominator() as f64
    }

    /// `E[1/p_N] = M + 1` (each of the M + 1 support points contributes p_k·(1/p_k) = 1).
    pub fn mean_inverse_pmf(&self) -> f64 {
        f64::from(self.m) + 1.0
    }

    /// `E[2^{N+1}] = Σ_k C_M 2^{−k} 2^{k+1} = 2C_M(M + 1)`.
    pub fn mean_batch_size(&self) -> f64 {
        2.0 * self.normaliser_c() * (f64::from(self.m) + 1.0)
    }

    /// `E[2^{2(N+1)}] = Σ_k C_M 2^{−k} 4^{k+1} = 4C_M(2^{M+1} − 1)` (= `4·2^M` exactly).
    pub fn second_moment_batch_size(&self) -> f64 {
        4.0 * self.normaliser_c() * self.denominator() as f64
    }

    /// One draw by inversion with an integer loop: U uniform on `{0, …, 2^{M+1} − 2}` (exact,
    /// `random_range`), then N = the least k with `U < 2^{M+1} − 2^{M−k}` (the CDF's numerator).
    /// `P[N = k] = 2^{M−k}/(2^{M+1} − 1)` exactly: no float touches the law.
    pub fn sample(&self, rng: &mut DpRng) -> u32 {
        let u = rng.random_range(0..self.denominator());
        let top = 1u64 << (self.m + 1);
        let mut k = 0u32;
        while k < self.m && u >= top - (1u64 << (self.m - k)) {
            k += 1;
        }
        k
    }
}
