//! Non-private stochastic mirror descent with KL on the simplex — \[AFKT\] Algorithm 4 (App. A),
//! the reference the private algorithms are compared with.
//!
//! Input: dataset, loss, [`EntropicSmdConfig`] (rounds, η, x_0). Output: [`Run`] (no privacy
//! claim, no events).
//! ```text
//! 1: k = 0
//! 2: for r = 1..R:
//! 3:   draw a uniformly random permutation π of [n]
//! 4:   for i = 1..n:
//! 5:     g_k = ∇f(x_k; z_{π(i)})
//! 6:     x_{k+1} = argmin_{x∈Δ} ⟨g_k, x − x_k⟩ + (1/η) KL(x, x_k)     (= the EG update)
//! 7:     k = k + 1
//! 8: return x̄_T = (1/T) Σ_{k=1}^{T} x_k,   T = R n   (Lemma A.2 is about the last iterate x_T)
//! ```
//! Proof: proofs/l1/noisy_mirror_descent.md (§7).

use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::geometry::mirror::exponentiated_gradient_step;
use crate::loss::Loss;
use crate::optim::{Averager, Observer, OutputPoint, PrivacyReport, ReleaseSummary, Run, TraceEvent};
use crate::rng::{Seeds, Stream};
use rand::seq::SliceRandom;

/// Settings of Algorithm 4.
#[derive(Debug, Clone, PartialEq)]
pub struct EntropicSmdConfig {
    /// R ≥ 1: passes over the data.
    pub rounds: u64,
    /// η > 0.
    pub step_size_eta: f64,
    /// x_0 in the simplex (default uniform, the point Lemma A.2 uses).
    pub x0: Option<Vec<f64>>,
    /// Which point is returned (default the average of x_1..x_T).
    pub output: OutputPoint,
}

impl EntropicSmdConfig {
    /// R rounds at step η from the uniform point.
    ///
    /// # Errors
    /// `InvalidParameter` for R = 0 or η not finite and positive.
    pub fn new(rounds: u64, step_size_eta: f64) -> Result<Self> {
        check::count("rounds R", rounds)?;
        check::positive("step size eta", step_size_eta)?;
        Ok(EntropicSmdConfig { rounds, step_size_eta, x0: None, output: OutputPoint::AverageFromZero })
    }
}

/// Runs Algorithm 4 (see the module doc); the permutations come from the sampling stream.
///
/// # Errors
/// `InvalidParameter` for invalid settings, an x_0 off the simplex, or T = R·n overflowing.
pub fn entropic_smd(
    data: &Dataset,
    loss: Loss,
    config: &EntropicSmdConfig,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    check::count("rounds R", config.rounds)?;
    check::positive("step size eta", config.step_size_eta)?;
    loss.check_labels(data)?;
    let (n, d) = (data.n(), data.d());
    let total = config
        .rounds
        .checked_mul(n as u64)
        .ok_or_else(|| Error::invalid("rounds R", config.rounds, "with R*n < 2^64"))?;
    let mut x = config.x0.clone().unwrap_or_else(|| vec![1.0 / d as f64; d]);
    if x.len() != d || x.iter().any(|v| !(v.is_finite() && *v >= 0.0)) || (x.iter().sum::<f64>() - 1.0).abs() > 1e-9 {
        return Err(Error::invalid("x0", "not a point of the simplex", "nonnegative entries summing to 1"));
    }
    let mut rng = seeds.stream(Stream::Sampling);
    let mut order: Vec<usize> = (0..n).collect();
    let (mut g, mut x_next, mut avg) = (vec![0.0; d], vec![0.0; d], Averager::new(d));
    // Alg. 4, line 1: k = 0
    let mut k = 0u64;
    // Alg. 4, line 2: for r = 1..R
    for _ in 0..config.rounds {
        // Alg. 4, line 3: a uniformly random permutation of [n]
        order.shuffle(&mut rng);
        // Alg. 4, line 4: for i = 1..n
        for &i in &order {
            observer.observe(TraceEvent::Iterate { step: k, x: &x });
            // Alg. 4, line 5: g_k = grad f(x_k; z_pi(i))
            loss.gradient(&x, data.row(i), data.label(i), &mut g);
            observer.observe(TraceEvent::NoisyGradient { step: k, g_hat: &g });
            // Alg. 4, line 6: the EG update
            exponentiated_gradient_step(&x, &g, config.step_size_eta, &mut x_next)?;
            avg.add(&x, &x_next);
            std::mem::swap(&mut x, &mut x_next);
            // Alg. 4, line 7: k = k + 1
            k += 1;
        }
    }
    // Alg. 4, line 8: the average of x_1..x_T (non-private: no events, no claim)
    let released = ReleaseSummary {
        events: Default::default(),
        privacy: PrivacyReport { epsilon: None, delta: None, sigma: 0.0 },
        releases: 0,
        neighbouring: None,
    };
    Ok(Run::new(avg.output(config.output, &x), x, total, released))
}
