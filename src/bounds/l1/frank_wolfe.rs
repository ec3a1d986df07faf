//! \[AFKT\] Sec. 4 (Algorithm 3, private variance-reduced Frank–Wolfe): sample and gradient
//! counts (exact, and the printed `T²b`), the T = 1 regime, the Laplace scales of Lemmas 4.1 and
//! 4.4 (corrected and as printed), the tree variance lemma (Lemmas 4.2–4.3) with an explicit
//! constant, an explicit-constant bound from the Frank–Wolfe recursion of the proofs of Thms. 6–7,
//! and the printed parameters and rates of Thms. 6, 7 and 2 with `O(1) = 1`.

use super::L1Setting;
use super::selection::report_noisy_min_error_bound;
use super::validate::{finite_result, ln_dim, ln_inv_delta, ln_n};
use crate::error::{Error, Result, check};

fn check_tree(batch_b: u64, phases_t: u32) -> Result<(u64, u32)> {
    if !(1..=40).contains(&phases_t) {
        return Err(Error::invalid("phases_t", phases_t, "in 1..=40"));
    }
    let b = check::count("batch_b", batch_b)?;
    if b % (1u64 << phases_t) != 0 {
        return Err(Error::invalid("batch_b", b, "a multiple of 2^T (every node's 2^{-j} b is an integer)"));
    }
    Ok((b, phases_t))
}

fn to_u64(what: &'static str, x: u128) -> Result<u64> {
    u64::try_from(x).map_err(|_| Error::Numerical { what, reason: format!("{x} exceeds u64") })
}

/// The samples \[AFKT\] Alg. 3 consumes, **exact**: phase t uses `b(1 + t/2)` (root b, and
/// `2^{j−1}` right children of `2^{−j}b` samples at each depth j ≤ t), in all
/// `b(T + T(T+1)/4)`. At T = 1 this is `1.5b`, more than the printed bound `T²b = b`
/// ([`alg3_samples_printed_bound`]); for `T ≥ 2` it is at most `T²b`.
///
/// # Errors
/// `InvalidParameter` unless `1 ≤ T ≤ 40` and b is a positive multiple of `2^T`.
pub fn alg3_samples_used(batch_b: u64, phases_t: u32) -> Result<u64> {
    let (b, t) = check_tree(batch_b, phases_t)?;
    let (b, t) = (b as u128, t as u128);
    to_u64("alg3_samples_used", b * (4 * t + t * (t + 1)) / 4)
}

/// The sample bound **as printed** in the proofs of Thms. 6–7: `T²b`.
///
/// # Errors
/// As [`alg3_samples_used`].
pub fn alg3_samples_printed_bound(batch_b: u64, phases_t: u32) -> Result<u64> {
    let (b, t) = check_tree(batch_b, phases_t)?;
    to_u64("alg3_samples_printed_bound", b as u128 * (t as u128).pow(2))
}

/// Gradient evaluations of \[AFKT\] Alg. 3, exact: `b(T + T(T+1)/2)` (a right child evaluates
/// two gradients per sample).
///
/// # Errors
/// As [`alg3_samples_used`].
pub fn alg3_gradient_evaluations(batch_b: u64, phases_t: u32) -> Result<u64> {
    let (b, t) = check_tree(batch_b, phases_t)?;
    let (b, t) = (b as u128, t as u128);
    to_u64("alg3_gradient_evaluations", b * (2 * t + t * (t + 1)) / 2)
}

/// Frank–Wolfe steps (leaves) of \[AFKT\] Alg. 3: `K = Σ_{t=1}^{T} 2^t = 2^{T+1} − 2`.
///
/// # Errors
/// `InvalidParameter` unless `1 ≤ T ≤ 40`.
pub fn alg3_fw_steps(phases_t: u32) -> Result<u64> {
    if !(1..=40).contains(&phases_t) {
        return Err(Error::invalid("phases_t", phases_t, "in 1..=40"));
    }
    Ok((1u64 << (phases_t + 1)) - 2)
}

/// The root batch for \[AFKT\] Thm. 6's small-β regime (T = 1), **corrected**: the largest even
/// b with `1.5b ≤ n` (the printed `b = n` needs 1.5n samples).
///
/// # Errors
/// `InvalidParameter` for `n < 3`.
pub fn theorem6_t1_batch_corrected(n: u64) -> Result<u64> {
    if n < 3 {
        return Err(Error::invalid("n", n, ">= 3 (T = 1 needs 1.5 b samples, b >= 2 even)"));
    }
    let b = (2 * n as u128 / 3) as u64;
    Ok(b - b % 2)
}

/// Which step indexing the tree-variance constant assumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FwStepIndexing {
    /// A global 1-based leaf counter, `η_k = 2/(k+1)` (corrected): in phase t, `η_k ≤ 2^{1−t}`,
    /// so a depth-j right child is at most `2^{t−j}·2^{1−t}D = 2^{1−j}D` from its parent.
    GlobalCounter,
    /// The paper's `η_{t,s} = 2/(2^{t−1} + l(s) + 1) ≤ 2^{2−t}`: distance `≤ 2^{2−j}D`.
    Printed,
}

/// The variance proxy of \[AFKT\] Lemma 4.3 with an explicit constant:
/// `σ² = (L² + cβ²D²)/b`, `c = 4` ([`FwStepIndexing::GlobalCounter`]) or 16 (printed indexing).
/// Derivation: by Hoeffding's lemma, the root's coordinate (mean of b terms in `[−L, L]`) is
/// `L²/b`-sub-Gaussian; a depth-j right child adds the mean of `2^{−j}b` differences bounded by
/// `β‖x_s − x_{s′}‖₁ ≤ βD·2^{1−j}` (resp. `2^{2−j}`), i.e. `4β²D²2^{−j}/b` (resp. 16·); fresh
/// samples make the sum over the path a martingale, and `Σ_{j≥1} 2^{−j} ≤ 1`. The paper prints
/// `σ² = (L² + β²D²)/b` with an unstated `O(1)`.
///
/// # Errors
/// `InvalidParameter` for `L < 0`, `β < 0`, `D ≤ 0` or `b = 0`.
pub fn lemma43_variance_proxy(l: f64, beta: f64, diam_d: f64, batch_b: u64, indexing: FwStepIndexing) -> Result<f64> {
    let l = check::non_negative("l", l)?;
    let beta = check::non_negative("beta", beta)?;
    let dd = check::positive("diam_d", diam_d)?;
    let b = check::count("batch_b", batch_b)? as f64;
    let c = match indexing {
        FwStepIndexing::GlobalCounter => 4.0,
        FwStepIndexing::Printed => 16.0,
    };
    finite_result("lemma43_variance_proxy", (l * l + c * beta * beta * dd * dd) / b)
}

/// \[AFKT\] Lemma 4.2 with an explicit constant: `E‖v_{t,s} − ∇F(x_{t,s})‖_∞ ≤ √(2σ² ln(2d))`,
/// σ² of [`lemma43_variance_proxy`] (the maximum of the 2d σ²-sub-Gaussian variables `±X_i`).
///
/// # Errors
/// As [`lemma43_variance_proxy`], and `d = 0`.
pub fn lemma42_tree_error_bound(
    l: f64,
    beta: f64,
    diam_d: f64,
    batch_b: u64,
    d: u64,
    indexing: FwStepIndexing,
) -> Result<f64> {
    let s2 = lemma43_variance_proxy(l, beta, diam_d, batch_b, indexing)?;
    let d = check::count("d", d)? as f64;
    finite_result("lemma42_tree_error_bound", (2.0 * s2 * (2.0 * d).ln()).sqrt())
}

/// \[AFKT\] Lemma 4.2 as printed, `O(1) = 1` — **trend use only**: `(L + βD)√(ln d/b)`.
///
/// # Errors
/// `InvalidParameter` for `L < 0`, `β < 0`, `D ≤ 0`, `b = 0` or `d < 2`.
pub fn lemma42_tree_error_unit_constant(l: f64, beta: f64, diam_d: f64, batch_b: u64, d: u64) -> Result<f64> {
    let l = check::non_negative("l", l)?;
    let beta = check::non_negative("beta", beta)?;
    let dd = check::positive("diam_d", diam_d)?;
    let b = check::count("batch_b", batch_b)? as f64;
    let ln_d = ln_dim("d", d)?;
    finite_result("lemma42_tree_error_unit_constant", (l + beta * dd) * (ln_d / b).sqrt())
}

/// The Laplace scales of \[AFKT\] Alg. 3.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FwNoise {
    /// No noise (the non-private limit).
    None,
    /// Lemma 4.1 as printed, pure ε-DP: `λ_t = 2LD2^t/(bε)`.
    PurePrinted {
        /// ε > 0.
        epsilon: f64,
    },
    /// Lemma 4.1 corrected, pure ε-DP: `λ_t = 4LD2^t/(bε)` (a right child's score sensitivity is
    /// up to `2LD2^j/b`, twice the printed `LD2^j/b`; report-noisy-min needs scale `2Δ/ε′`).
    PureCorrected {
        /// ε > 0.
        epsilon: f64,
    },
    /// Lemma 4.4 as printed, `(O(ε), 21δ)`-DP: `λ = LD2^{T/2} ln(n/δ)/(bε)` in every phase.
    ApproxPrinted {
        /// ε > 0.
        epsilon: f64,
        /// δ ∈ (0, 1).
        delta: f64,
        /// n ≥ 1, the dataset size.
        n: u64,
    },
}

/// The Laplace scale of phase t (`1 ≤ t ≤ T`) under `noise`, with Lipschitz L, l1 diameter D,
/// root batch b and T phases.
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `D ≤ 0`, `b = 0`, `t ∉ [1, T]`, ε ≤ 0, δ ∉ (0, 1), n = 0.
pub fn alg3_laplace_scale(
    l: f64,
    diam_d: f64,
    batch_b: u64,
    phase_t: u32,
    phases_t: u32,
    noise: FwNoise,
) -> Result<f64> {
    let l = check::positive("l", l)?;
    let dd = check::positive("diam_d", diam_d)?;
    let b = check::count("batch_b", batch_b)? as f64;
    if phase_t == 0 || phase_t > phases_t || phases_t > 40 {
        return Err(Error::invalid("phase_t", phase_t, "in 1..=T, T <= 40"));
    }
    let two_t = 2f64.powi(phase_t as i32);
    let v = match noise {
        FwNoise::None => 0.0,
        FwNoise::PurePrinted { epsilon } => 2.0 * l * dd * two_t / (b * check::positive("epsilon", epsilon)?),
        FwNoise::PureCorrected { epsilon } => 4.0 * l * dd * two_t / (b * check::positive("epsilon", epsilon)?),
        FwNoise::ApproxPrinted { epsilon, delta, n } => {
            let e = check::positive("epsilon", epsilon)?;
            let ld = ln_inv_delta(delta)?;
            let n = check::count("n", n)? as f64;
            l * dd * 2f64.powf(phases_t as f64 / 2.0) * (n.ln() + ld) / (b * e)
        }
    };
    finite_result("alg3_laplace_scale", v)
}

/// The setting of [`alg3_explicit_bound`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FwSetting {
    /// L ≥ 0: Lipschitz constant w.r.t. ‖·‖₁ (`‖∇f‖_∞ ≤ L`).
    pub lipschitz_l: f64,
    /// β ≥ 0: smoothness w.r.t. ‖·‖₁.
    pub smoothness_beta: f64,
    /// D > 0: the l1 diameter of X.
    pub diameter_d: f64,
    /// d ≥ 1: the dimension.
    pub dim_d: u64,
    /// m ≥ 1: the number of vertices (2d for the l1 ball).
    pub vertices_m: u64,
    /// b: the root batch, a multiple of `2^T`.
    pub root_batch_b: u64,
    /// T ∈ 1..=40: the number of phases.
    pub phases_t: u32,
}

/// An explicit-constant bound on `E[F(x_K) − F*]` for \[AFKT\] Alg. 3 with `η_k = 2/(k+1)` on a
/// global leaf counter, from the recursion of the proofs of Thms. 6–7 (derived here, every
/// constant explicit):
///
/// ```text
/// h_{k+1} ≤ (1 − η_k) h_k + α_k,   α_k = η_k(2D·e + λ_{t(k)} H_m) + η_k² βD²/2
/// E[F(x_K) − F*] ≤ Σ_{k=1}^{K} α_k · k(k+1)/(K(K+1)),   K = 2^{T+1} − 2
/// ```
///
/// with `e` = [`lemma42_tree_error_bound`] (global counter), `λ_{t(k)} H_m` =
/// [`report_noisy_min_error_bound`] at the scale of the leaf's phase ([`alg3_laplace_scale`]),
/// `Π_{i=k+1}^{K}(1 − η_i) = k(k+1)/(K(K+1))`. The 2D·e term: `⟨∇F, w − x⟩ ≤ ⟨v, w − x⟩ + De`
/// and `⟨v, x* − x⟩ ≤ −h + De`. In the non-private, exact-gradient limit it is
/// `(2βD²/(K(K+1)))Σ_k k/(k+1) ≤ 2βD²/(K+1)`, the classical Frank–Wolfe bound.
/// `exact_gradients = true` sets e = 0 (a population-gradient oracle).
///
/// # Errors
/// `InvalidParameter` for an invalid setting (as the functions above).
pub fn alg3_explicit_bound(setting: &FwSetting, noise: FwNoise, exact_gradients: bool) -> Result<f64> {
    let s = setting;
    let (b, t_max) = check_tree(s.root_batch_b, s.phases_t)?;
    let beta = check::non_negative("smoothness_beta", s.smoothness_beta)?;
    let dd = check::positive("diameter_d", s.diameter_d)?;
    let m = check::count("vertices_m", s.vertices_m)?;
    let e = if exact_gradients {
        check::non_negative("lipschitz_l", s.lipschitz_l)?;
        check::count("dim_d", s.dim_d)?;
        0.0
    } else {
        lemma42_tree_error_bound(s.lipschitz_l, beta, dd, b, s.dim_d, FwStepIndexing::GlobalCounter)?
    };
    let k_total = alg3_fw_steps(t_max)? as f64;
    let mut sum = 0.0;
    let mut k = 0u64;
    for t in 1..=t_max {
        let sel = match noise {
            FwNoise::None => 0.0,
            _ => report_noisy_min_error_bound(alg3_laplace_scale(s.lipschitz_l, dd, b, t, t_max, noise)?, m)?,
        };
        for _ in 0..(1u64 << t) {
            k += 1;
            let kf = k as f64;
            let eta = 2.0 / (kf + 1.0);
            let alpha = eta * (2.0 * dd * e + sel) + eta * eta * beta * dd * dd / 2.0;
            sum += alpha * kf * (kf + 1.0);
        }
    }
    finite_result("alg3_explicit_bound", sum / (k_total * (k_total + 1.0)))
}

/// \[AFKT\] Thm. 6's printed parameters: `b = n/ln²n` and `T = ½ log₂(bεβD/(L ln m))` (real
/// valued; base 2 since `2^T` appears), returned as `(b, T)`. β must lie in the theorem's range
/// ([`theorem6_beta_range`], where `1 ≤ 2^T ≤ b`); outside it the parameters are not the theorem's
/// (below, its small-β regime T = 1 applies).
///
/// # Errors
/// `InvalidParameter` for `n < 2`, `ε, β, L, D ≤ 0`, `m < 2`, β outside the range.
pub fn theorem6_parameters(n: u64, epsilon: f64, beta: f64, l: f64, diam_d: f64, m: u64) -> Result<(f64, f64)> {
    let (low, high) = theorem6_beta_range(n, epsilon, l, diam_d, m)?;
    if !(low..=high).contains(&beta) {
        return Err(Error::invalid(
            "beta",
            beta,
            "in Thm. 6's range L ln m ln^2 n/(n eps D) <= beta <= n L ln m/(eps D ln^2 n)",
        ));
    }
    batch_and_log_ratio(n, epsilon, beta, l, diam_d, m)
}

/// `(b, ½ log₂(bεβD/(L ln m)))` with `b = n/ln²n`: Thm. 6's T, and the start of Thm. 7's.
fn batch_and_log_ratio(n: u64, epsilon: f64, beta: f64, l: f64, diam_d: f64, m: u64) -> Result<(f64, f64)> {
    let ln_n = ln_n("n", n)?;
    let e = check::positive("epsilon", epsilon)?;
    let beta = check::positive("beta", beta)?;
    let l = check::positive("l", l)?;
    let dd = check::positive("diam_d", diam_d)?;
    let ln_m = ln_dim("m", m)?;
    let b = n as f64 / (ln_n * ln_n);
    Ok((b, finite_result("theorem6_parameters", 0.5 * (b * e * beta * dd / (l * ln_m)).log2())?))
}

/// \[AFKT\] Thm. 6's β range `L ln m ln²n/(nεD) ≤ β ≤ nL ln m/(εD ln²n)`, as `(low, high)`.
///
/// # Errors
/// As [`theorem6_parameters`] (without β).
pub fn theorem6_beta_range(n: u64, epsilon: f64, l: f64, diam_d: f64, m: u64) -> Result<(f64, f64)> {
    let ln_n = ln_n("n", n)?;
    let e = check::positive("epsilon", epsilon)?;
    let l = check::positive("l", l)?;
    let dd = check::positive("diam_d", diam_d)?;
    let ln_m = ln_dim("m", m)?;
    let nf = n as f64;
    Ok((
        finite_result("theorem6_beta_range", l * ln_m * ln_n * ln_n / (nf * e * dd))?,
        finite_result("theorem6_beta_range", nf * l * ln_m / (e * dd * ln_n * ln_n))?,
    ))
}

/// \[AFKT\] Thm. 6 rate as printed, `O(1) = 1` — **trend use only**:
/// `D(L + βD)√(ln d) ln n/√n + √(βLD³ ln d) ln n/√(nε)`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`, `β < 0`, `n, d < 2`, `ε ≤ 0`.
pub fn theorem6_rate_unit_constant(l: f64, beta: f64, diam_d: f64, n: u64, d: u64, epsilon: f64) -> Result<f64> {
    let (l, beta, dd) =
        (check::positive("l", l)?, check::non_negative("beta", beta)?, check::positive("diam_d", diam_d)?);
    let ln_n = ln_n("n", n)?;
    let ln_d = ln_dim("d", d)?;
    let e = check::positive("epsilon", epsilon)?;
    let nf = n as f64;
    let v = dd * (l + beta * dd) * ln_d.sqrt() * ln_n / nf.sqrt()
        + (beta * l * dd.powi(3) * ln_d).sqrt() * ln_n / (nf * e).sqrt();
    finite_result("theorem6_rate_unit_constant", v)
}

/// \[AFKT\] Thm. 6, small-β regime (T = 1), as printed, `O(1) = 1` — **trend use only**:
/// `DL(√(ln d/n) + ln d/(nε)) + βD²`.
///
/// # Errors
/// As [`theorem6_rate_unit_constant`] (n ≥ 1 suffices).
pub fn theorem6_small_beta_rate_unit_constant(
    l: f64,
    beta: f64,
    diam_d: f64,
    n: u64,
    d: u64,
    epsilon: f64,
) -> Result<f64> {
    let (l, beta, dd) =
        (check::positive("l", l)?, check::non_negative("beta", beta)?, check::positive("diam_d", diam_d)?);
    let nf = check::count("n", n)? as f64;
    let ln_d = ln_dim("d", d)?;
    let e = check::positive("epsilon", epsilon)?;
    finite_result(
        "theorem6_small_beta_rate_unit_constant",
        dd * l * ((ln_d / nf).sqrt() + ln_d / (nf * e)) + beta * dd * dd,
    )
}

/// \[AFKT\] Thm. 7's printed parameters: `b = n/ln²n`, `T = (2/3) log₂(bεβD/(L ln(n/δ) ln m))`,
/// as `(b, T)`, under the theorem's `δ ≤ 1/n`, with `1 ≤ 2^T ≤ b` (Lemma 4.1's batch rule) and
/// `ε ≤ 2^{−T/2}√ln(1/δ)` (Lemma 4.4; the theorem's ε range is its sufficient condition up to
/// constants, so the exact form is checked).
///
/// # Errors
/// As [`theorem6_parameters`], and `δ ∉ (0, 1/n]`, T outside `[0, log₂ b]`, or
/// `ε > 2^{−T/2}√ln(1/δ)`.
pub fn theorem7_parameters(
    n: u64,
    epsilon: f64,
    delta: f64,
    beta: f64,
    l: f64,
    diam_d: f64,
    m: u64,
) -> Result<(f64, f64)> {
    let ld = ln_inv_delta(delta)?;
    if delta > 1.0 / n as f64 {
        return Err(Error::invalid("delta", delta, "<= 1/n (Thm. 7)"));
    }
    let (b, t_pure) = batch_and_log_ratio(n, epsilon, beta, l, diam_d, m)?;
    let ln_n_delta = (n as f64).ln() + ld;
    let t = (2.0 / 3.0) * (2.0 * t_pure - ln_n_delta.log2());
    if !(0.0..=b.log2()).contains(&t) {
        return Err(Error::invalid("beta", beta, "such that Thm. 7's 1 <= 2^T <= b"));
    }
    // Lemma 4.4's hypothesis, which Thm. 7's ε range is there to ensure: ε ≤ 2^{−T/2}√ln(1/δ).
    if epsilon > (-t / 2.0).exp2() * ld.sqrt() {
        return Err(Error::invalid("epsilon", epsilon, "<= 2^(-T/2) sqrt(ln(1/delta)) (Lemma 4.4, as Thm. 7 assumes)"));
    }
    Ok((b, t))
}

/// \[AFKT\] Thm. 7 rate as printed, `O(1) = 1` — **trend use only**:
/// `D(L + βD)√(ln d) ln n/√n + (√β L D² ln(1/δ) ln m ln²n/(nε))^{2/3}`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`, `β < 0`, `n, m < 2`.
pub fn theorem7_rate_unit_constant(l: f64, beta: f64, diam_d: f64, m: u64, setting: &L1Setting) -> Result<f64> {
    let (l, beta, dd) =
        (check::positive("l", l)?, check::non_negative("beta", beta)?, check::positive("diam_d", diam_d)?);
    let s = setting;
    let (nf, e, ln_n, ln_d) = (s.n(), s.epsilon(), s.ln_n()?, s.ln_d());
    let ln_m = ln_dim("m", m)?;
    let v = dd * (l + beta * dd) * ln_d.sqrt() * ln_n / nf.sqrt()
        + (beta.sqrt() * l * dd * dd * s.ln_inv_delta() * ln_m * ln_n * ln_n / (nf * e)).powf(2.0 / 3.0);
    finite_result("theorem7_rate_unit_constant", v)
}
