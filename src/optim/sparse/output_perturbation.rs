//! Output perturbation of regularised ERM with an l∞ projection — \[GGKKM\] Algorithm 3 (Sec. 5,
//! Theorem 5.1 and Remark 5.2).
//!
//! Input: a GLM loss on CSR records ([`SparseDataset`]; per-example gradients
//! `∇f(x, z_i) = ℓ′(⟨a_i, x⟩, y_i)·a_i`), [`OutputPerturbationConfig`] (loss, L, s, λ, ε, δ, the
//! domain X, the centre x⁰, the solver tolerance ν). Output: [`OutputPerturbationRun`]: x̂, the
//! released x̃, the noise, the sensitivity it was calibrated on, the solver's (public) iteration
//! count, the event executed and the privacy the accountant reads from it.
//! ```text
//! 1:  x*_λ(S) = argmin_{x ∈ X} F^λ_S(x),  F^λ_S(x) = F_S(x) + (λ/2)‖x − x⁰‖²   (centred at x⁰:
//!     the printed regulariser is centred at 0; see proofs/sparse/output_perturbation.md §5)
//!     solved to a certified ‖x_T − x*_λ‖₂ ≤ ν; the certificate is added to the sensitivity
//! 2:  x̃ = x_T + ξ,
//!       δ = 0: ξ ~ Lap(σ)^{⊗d},  σ = Δ₁/ε,  Δ₁ = (2√(2s)L/(λn))(2H/λ + 1) + 2√d·ν
//!       δ > 0: ξ ~ N(0, σ²I),   σ = Δ₂·√(2 ln(1.25/δ))/ε,  Δ₂ = 2L/(λn) + 2ν
//!       (ν = 0 gives the printed σ's: σ² = 8L² ln(1.25/δ)/(λεn)² for δ > 0)
//! 3:  x̂ = argmin_{x ∈ X} ‖x − x̃‖_∞   (soft(x̃, t*) on a solid X; the identity on ℝ^d)
//!     return x̂
//! ```
//! (The paper displays the algorithm without line numbers; lines are counted from its first
//! displayed step.)
//!
//! Line 1's solver ([`solve_regularised_erm`]) is projected gradient descent with step
//! `η = 1/(H + λ)` run for a **fixed** number of steps T that depends only on (L, H, λ, ν)
//! ([`OutputPerturbationConfig::iterations`]): from `‖x⁰ − x*_λ‖ ≤ L/λ` and the contraction
//! `√(1 − λ/(H + λ))` per step, the a-posteriori certificate below is ≤ ν in exact arithmetic.
//! The certificate: with `x_T = Π_X(x_{T−1} − η∇F^λ(x_{T−1}))` and `G = (x_{T−1} − x_T)/η`,
//! `r = ∇F^λ(x_T) − ∇F^λ(x_{T−1}) + G ∈ ∂(F^λ + ι_X)(x_T)` (the projection's variational
//! inequality), so λ-strong convexity gives `‖x_T − x*_λ‖₂ ≤ ‖r‖₂/λ`; its evaluation is inflated by a
//! rounding allowance. Should the certificate exceed ν (rounding only), the run is refused
//! before any noise is drawn.
//!
//! Losses: the logistic loss (labels in {0, 1} or {±1}: |ℓ′| < 1, ℓ″ ≤ 1/4, so with rows in
//! `S_s^d` each f(·, z) is convex, L-Lipschitz, H = L²/4-smooth with s-sparse gradients on all of
//! ℝ^d) and the linear loss `y·⟨a, x⟩` (labels in [−1, 1]; H = 0; attains the sensitivity bound).
//! Other losses are `Unsupported` (unbounded ℓ′ or no smoothness for the fixed-T solver).
//!
//! # Privacy
//! Replace-one (Def. 2.2). δ > 0: `‖x*_λ(S) − x*_λ(S′)‖₂ ≤ 2L/(λn)` (sum of the two
//! strong-convexity inequalities; the proof of Thm. 5.1 quotes 4L/(λn), the printed σ matches
//! 2L/(λn)), so the released x_T moves by at most `Δ₂ = 2L/(λn) + 2ν`; `Gaussian(σ/Δ₂)` is
//! recorded (Fact 2.3(b), ε < 1). δ = 0 (X = ℝ^d only): the ℓ1 bound of Thm. 5.1's proof plus
//! `2√d·ν` (‖·‖₁ ≤ √d‖·‖₂ on the certificate); `Laplace(σ/Δ₁)` recorded (Fact 2.3(a)). Line 3 is
//! post-processing. Noise and event come from one call of [`PrivateRelease`].
//!
//! # Errors
//! `InvalidParameter` for an invalid config (NaN, ∞, ranges; δ > 0 with ε ≥ 1), a row outside
//! `S_s^d` (named), a label the loss does not accept, x⁰ of the wrong dimension or outside X;
//! `Unsupported` for δ = 0 with a constrained X, a loss other than logistic/linear, the simplex;
//! `Empty` for n = 0 or d = 0; `NonFinite` for NaN/∞; `Numerical` if the certificate exceeds ν.
//!
//! Proof: proofs/sparse/output_perturbation.md.

use super::accounted::Accounted;
use super::projection_mechanism::{NORM_ROUNDING, NoiseScale, check_release_budget, check_sparse_ball};
use crate::data::sparse::SparseDataset;
use crate::error::{Error, Result, check};
use crate::geometry::Domain;
use crate::linalg::{norm_l2, norm_linf};
use crate::loss::Loss;
use crate::optim::PrivateRelease;
use crate::rng::Seeds;
use serde::Serialize;

/// The parameters of Algorithm 3.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputPerturbationConfig {
    /// The GLM loss ℓ (logistic or linear).
    pub loss: Loss,
    /// L > 0: the ℓ2 bound of every record a_i (the Lipschitz constant of f(·, z), |ℓ′| ≤ 1).
    pub lipschitz_l: f64,
    /// s ≥ 1: the sparsity of every record (and so of every per-example gradient).
    pub sparsity_s: usize,
    /// λ > 0: the regularisation parameter.
    pub regularisation_lambda: f64,
    /// ε > 0 (ε < 1 when δ > 0).
    pub epsilon: f64,
    /// δ ∈ [0, 1): 0 selects Laplace noise (X = ℝ^d only), δ > 0 Gaussian noise.
    pub delta: f64,
    /// X: a solid domain (ℝ^d, box, l2 ball, l1 ball).
    pub domain: Domain,
    /// x⁰ ∈ X: the centre of the regulariser (`None`: the origin).
    pub centre_x0: Option<Vec<f64>>,
    /// ν > 0: the certified ℓ2 distance of the solver's output to x*_λ, added to the sensitivity.
    pub solver_tolerance_nu: f64,
}

/// What one run of Algorithm 3 returns (everything here is public or private output).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputPerturbationRun {
    /// x̂ ∈ X (line 3).
    pub x_hat: Vec<f64>,
    /// x̃ = x_T + ξ (line 2; a private release, exposed so tests can check (5) pathwise).
    pub x_tilde: Vec<f64>,
    /// The noise of line 2.
    pub noise: NoiseScale,
    /// The sensitivity the noise is calibrated on (Δ₁ for Laplace, Δ₂ for Gaussian), certificate
    /// included.
    pub sensitivity: f64,
    /// T: the solver's fixed iteration count (a function of the config only).
    pub iterations: usize,
    /// t* = ‖x̂ − x̃‖_∞ (line 3; post-processing of x̃).
    pub linf_shift: f64,
    /// The privacy events executed (one Laplace or Gaussian release) and the privacy the
    /// accountant reads from them.
    #[serde(flatten)]
    pub accounted: Accounted,
}

/// The solver's output with its certificate (not private: tests and the run's check only).
#[derive(Debug, Clone, PartialEq)]
pub struct CertifiedSolution {
    /// x_T.
    pub x: Vec<f64>,
    /// The certified bound `‖x_T − x*_λ‖₂ ≤ certificate` (rounding allowance included).
    pub certificate: f64,
    /// T.
    pub iterations: usize,
}

/// The most iterations the certified solver runs (T is fixed by L, H, λ, ν; a larger T is refused
/// before the data is read).
pub const MAX_SOLVER_ITERATIONS: usize = 10_000_000;

/// The relative allowance per floating-point operation used for the certificate's rounding
/// (2^−53 = u, the unit roundoff).
const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;

impl OutputPerturbationConfig {
    /// Algorithm 3 on ℝ^d with the regulariser centred at the origin and ν = 1e-9·L/λ.
    ///
    /// # Errors
    /// `InvalidParameter` for L, λ not finite and > 0, s = 0, ε not finite and > 0, δ ∉ [0, 1), or
    /// δ > 0 with ε ≥ 1 (the classical Gaussian calibration of Fact 2.3(b) needs it);
    /// `Unsupported` for a loss other than logistic or linear.
    pub fn new(
        loss: Loss,
        lipschitz_l: f64,
        sparsity_s: usize,
        regularisation_lambda: f64,
        epsilon: f64,
        delta: f64,
    ) -> Result<Self> {
        check_sparse_ball("L (Lipschitz constant)", lipschitz_l, sparsity_s)?;
        check::positive("lambda (regularisation)", regularisation_lambda)?;
        check_release_budget(
            epsilon,
            delta,
            "< 1 when delta > 0 (the classical Gaussian calibration of Fact 2.3(b) needs it)",
        )?;
        if !matches!(loss, Loss::Logistic | Loss::Linear) {
            return Err(Error::Unsupported {
                event: format!("output perturbation with the {loss:?} loss"),
                neighbouring: "replace-one".into(),
                accountant: "-",
                reason: "needs |l'| <= 1 and a smoothness bound for the certified fixed-T solver (logistic or linear)"
                    .into(),
            });
        }
        Ok(OutputPerturbationConfig {
            loss,
            lipschitz_l,
            sparsity_s,
            regularisation_lambda,
            epsilon,
            delta,
            domain: Domain::Unconstrained,
            centre_x0: None,
            solver_tolerance_nu: 1e-9 * lipschitz_l / regularisation_lambda,
        })
    }

    /// The same on the domain X with the regulariser centred at x⁰ (`None`: the origin).
    ///
    /// # Errors
    /// `Unsupported` for the simplex (not solid) or a constrained X with δ = 0 (Thm. 5.1's pure
    /// case assumes X = ℝ^d); `NonFinite` for a NaN/∞ entry of x⁰; `InvalidParameter` for x⁰ ∉ X.
    pub fn with_domain(mut self, domain: Domain, centre_x0: Option<Vec<f64>>) -> Result<Self> {
        if domain == Domain::Simplex {
            return Err(Error::Unsupported {
                event: "output perturbation on the simplex".into(),
                neighbouring: "replace-one".into(),
                accountant: "-",
                reason: "line 3's l-infinity projection needs a solid domain".into(),
            });
        }
        if self.delta == 0.0 && domain != Domain::Unconstrained {
            return Err(Error::Unsupported {
                event: "output perturbation with delta = 0 on a constrained domain".into(),
                neighbouring: "replace-one".into(),
                accountant: "-",
                reason: "the l1 sensitivity of Thm. 5.1 (delta = 0) uses the unconstrained first-order condition"
                    .into(),
            });
        }
        if let Some(x0) = &centre_x0 {
            check::all_finite("centre x0", x0)?;
            if x0.is_empty() {
                return Err(Error::Empty { what: "centre x0" });
            }
            if !domain.contains(x0) {
                return Err(Error::invalid("centre x0", "a point outside X", "in the domain X"));
            }
        }
        self.domain = domain;
        self.centre_x0 = centre_x0;
        Ok(self)
    }

    /// The same with solver tolerance ν.
    ///
    /// # Errors
    /// `InvalidParameter` unless `1e-12·L/λ ≤ ν < ∞` (below that the certificate cannot be
    /// evaluated reliably in f64).
    pub fn with_tolerance(mut self, solver_tolerance_nu: f64) -> Result<Self> {
        check::positive("nu (solver tolerance)", solver_tolerance_nu)?;
        if solver_tolerance_nu < 1e-12 * self.lipschitz_l / self.regularisation_lambda {
            return Err(Error::invalid("nu (solver tolerance)", solver_tolerance_nu, ">= 1e-12 L/lambda"));
        }
        self.solver_tolerance_nu = solver_tolerance_nu;
        Ok(self)
    }

    /// L′ = L(1 + NORM_ROUNDING): bounds the exact norm of every row accepted as ‖a_i‖₂ ≤ L when
    /// evaluated (as in Algorithm 1).
    pub fn lipschitz_with_margin(&self) -> f64 {
        self.lipschitz_l * (1.0 + NORM_ROUNDING)
    }

    /// H: the smoothness of f(·, z): L′²/4 (logistic, ℓ″ ≤ 1/4) or 0 (linear).
    pub fn smoothness_h(&self) -> f64 {
        match self.loss {
            Loss::Linear => 0.0,
            _ => 0.25 * self.lipschitz_with_margin().powi(2),
        }
    }

    /// T, fixed by (L, H, λ, ν) only: `1 + ⌈ln(4(H + λ)L/(λ²ν)) / (−ln ρ)⌉` with
    /// `ρ = √(1 − λ/(H + λ))` (1 when H = 0: one step of length 1/λ is exact). Then
    /// `‖x_{T−1} − x*‖ ≤ ρ^{T−1}L/λ` and the certificate `‖r‖/λ ≤ 4(H + λ)ρ^{T−1}L/λ² ≤ ν`.
    pub fn iterations(&self) -> usize {
        let (l, h, lam) = (self.lipschitz_with_margin(), self.smoothness_h(), self.regularisation_lambda);
        if h == 0.0 {
            return 1;
        }
        let rho = (1.0 - lam / (h + lam)).sqrt();
        let need = (4.0 * (h + lam) * l / (lam * lam * self.solver_tolerance_nu)).ln();
        // −ln ρ; for λ ≪ H, 1 − λ/(H + λ) rounds to 1 and −ln ρ to 0 (T once collapsed to 1):
        // then −½ ln(1 − λ/(H + λ)) through ln_1p (T saturates; `run` refuses T above its cap)
        let neg_ln_rho = match -rho.ln() {
            v if v > 0.0 && v.is_finite() => v,
            _ => -0.5 * (-(lam / (h + lam))).ln_1p(),
        };
        1 + (need.max(0.0) / neg_ln_rho).ceil() as usize
    }

    /// Δ₂ = 2L′/(λn) + 2ν (δ > 0) or Δ₁ = (2√(2s)L′/(λn))(2H/λ + 1) + 2√d·ν (δ = 0): the
    /// sensitivity of the certified x_T.
    pub fn sensitivity(&self, n: usize, d: usize) -> f64 {
        let (l, lam, nu) = (self.lipschitz_with_margin(), self.regularisation_lambda, self.solver_tolerance_nu);
        let n = n as f64;
        if self.delta > 0.0 {
            2.0 * l / (lam * n) + 2.0 * nu
        } else {
            let s = self.sparsity_s as f64;
            (2.0 * (2.0 * s).sqrt() * l / (lam * n)) * (2.0 * self.smoothness_h() / lam + 1.0)
                + 2.0 * (d as f64).sqrt() * nu
        }
    }

    /// The noise of line 2 for n records in dimension d.
    ///
    /// # Errors
    /// `Empty` for n = 0 or d = 0.
    pub fn noise_scale(&self, n: usize, d: usize) -> Result<NoiseScale> {
        if n == 0 || d == 0 {
            return Err(Error::Empty { what: "dataset" });
        }
        NoiseScale::calibrated(self.epsilon, self.delta, self.sensitivity(n, d))
    }

    /// Checks every row against `S_s^d` and every label against the loss.
    ///
    /// # Errors
    /// `Empty`, `NonFinite`, `InvalidParameter` (the row or label named).
    pub fn check_data(&self, data: &SparseDataset) -> Result<()> {
        if data.n() == 0 || data.d() == 0 {
            return Err(Error::Empty { what: "dataset" });
        }
        for i in 0..data.n() {
            let (idx, val) = data.row(i);
            if let Some(k) = val.iter().position(|v| !v.is_finite()) {
                return Err(Error::NonFinite { what: "records", index: i * data.d() + idx[k] });
            }
            let nnz = val.iter().filter(|v| **v != 0.0).count();
            if nnz > self.sparsity_s {
                return Err(Error::invalid("row sparsity (non-zeros)", format!("{nnz} in row {i}"), "<= s"));
            }
            let norm = norm_l2(val);
            if norm > self.lipschitz_l {
                return Err(Error::invalid("row l2 norm", format!("{norm} in row {i}"), "<= L"));
            }
            let y = data.label(i);
            let ok = match self.loss {
                Loss::Linear => y.is_finite() && y.abs() <= 1.0,
                _ => y == 0.0 || y == 1.0 || y == -1.0,
            };
            if !ok {
                return Err(Error::invalid(
                    "label",
                    format!("{y} in row {i}"),
                    "in {0, 1, -1} (logistic) or [-1, 1] (linear)",
                ));
            }
        }
        Ok(())
    }

    /// x⁰ in dimension d.
    fn centre(&self, d: usize) -> Result<Vec<f64>> {
        match &self.centre_x0 {
            None => Ok(vec![0.0; d]),
            Some(x0) if x0.len() == d => Ok(x0.clone()),
            Some(x0) => Err(Error::invalid("centre x0", x0.len(), "of the data's dimension d")),
        }
    }

    /// Algorithm 3 on `data`, with the noise stream of `seeds`.
    ///
    /// # Errors
    /// As the module doc.
    pub fn run(&self, data: &SparseDataset, seeds: Seeds) -> Result<OutputPerturbationRun> {
        // The public fields may have been set after construction: the constructors' checks again,
        // and the solver's work cap, all before the data is read.
        Self::new(self.loss, self.lipschitz_l, self.sparsity_s, self.regularisation_lambda, self.epsilon, self.delta)?
            .with_domain(self.domain.clone(), self.centre_x0.clone())?
            .with_tolerance(self.solver_tolerance_nu)?;
        if self.iterations() > MAX_SOLVER_ITERATIONS {
            return Err(Error::invalid(
                "lambda (regularisation)",
                self.regularisation_lambda,
                "large enough that the certified solver needs at most 1e7 iterations (T grows like (H/lambda) ln(1/nu))",
            ));
        }
        self.check_data(data)?;
        let (n, d) = (data.n(), data.d());
        // Alg. 3, line 1: x*_λ(S) = argmin_{x∈X} F_S(x) + (λ/2)‖x − x⁰‖², certified to ν
        let solution = solve_regularised_erm(self, data, self.iterations())?;
        if solution.certificate.is_nan() || solution.certificate > self.solver_tolerance_nu {
            // (the certificate is a statistic of the data: it stays out of the message)
            return Err(Error::Numerical {
                what: "output perturbation solver certificate",
                reason: format!(
                    "the certified distance exceeds nu = {} (rounding; raise nu)",
                    self.solver_tolerance_nu
                ),
            });
        }
        // Alg. 3, line 2: x̃ = x_T + ξ, σ from Δ (certificate 2ν included); noise and event in one call
        let noise = self.noise_scale(n, d)?;
        let sensitivity = self.sensitivity(n, d);
        let mut release = PrivateRelease::statistics(0.0, seeds)?;
        let mut x_tilde = solution.x;
        noise.add_to(&mut x_tilde, sensitivity, &mut release)?;
        let accounted = Accounted::read_release(release, self.delta, "output perturbation accounting")?;
        // Alg. 3, line 3: x̂ = argmin_{x∈X} ‖x − x̃‖_∞ (post-processing of x̃ alone)
        let mut x_hat = x_tilde.clone();
        let linf_shift = self.domain.project_linf(&mut x_hat)?;
        Ok(OutputPerturbationRun {
            x_hat,
            x_tilde,
            noise,
            sensitivity,
            iterations: solution.iterations,
            linf_shift,
            accounted,
        })
    }
}

/// `∇F^λ_S(x) = (1/n) Σ_i ℓ′(⟨a_i, x⟩, y_i)·a_i + λ(x − x⁰)` into `out`.
fn regularised_gradient(cfg: &OutputPerturbationConfig, data: &SparseDataset, x: &[f64], x0: &[f64], out: &mut [f64]) {
    out.iter_mut().for_each(|v| *v = 0.0);
    for i in 0..data.n() {
        let (idx, val) = data.row(i);
        let m: f64 = idx.iter().zip(val).map(|(&j, &a)| a * x[j]).sum();
        let g = cfg.loss.derivative_at(m, data.label(i));
        for (&j, &a) in idx.iter().zip(val) {
            out[j] += g * a;
        }
    }
    let n = data.n() as f64;
    let lam = cfg.regularisation_lambda;
    for ((o, &xj), &cj) in out.iter_mut().zip(x).zip(x0) {
        *o = *o / n + lam * (xj - cj);
    }
}

/// \[GGKKM\] Algorithm 3, line 1: projected gradient descent on `F^λ_S(x) = F_S(x) + (λ/2)‖x − x⁰‖²`
/// over X from x⁰, step `η = 1/(H + λ)`, `iterations` ≥ 1 steps, returning x_T and the certificate
/// `‖r‖₂/λ` (plus a rounding allowance) with `r = ∇F^λ(x_T) − ∇F^λ(x_{T−1}) + (x_{T−1} − x_T)/η`,
/// so that `‖x_T − x*_λ‖₂ ≤ certificate` (proofs/sparse/output_perturbation.md §3). The caller
/// vouches that the data passed [`OutputPerturbationConfig::check_data`].
///
/// # Errors
/// `InvalidParameter` for `iterations = 0` or x⁰ of the wrong dimension.
pub fn solve_regularised_erm(
    cfg: &OutputPerturbationConfig,
    data: &SparseDataset,
    iterations: usize,
) -> Result<CertifiedSolution> {
    if iterations == 0 {
        return Err(Error::invalid("iterations", 0, ">= 1"));
    }
    let d = data.d();
    let x0 = cfg.centre(d)?;
    let lam = cfg.regularisation_lambda;
    let eta = 1.0 / (cfg.smoothness_h() + lam);
    let mut x = x0.clone();
    let mut x_prev = x0.clone();
    let mut grad = vec![0.0; d];
    let mut grad_prev = vec![0.0; d];
    for _ in 0..iterations {
        regularised_gradient(cfg, data, &x, &x0, &mut grad);
        x_prev.copy_from_slice(&x);
        grad_prev.copy_from_slice(&grad);
        for (xj, gj) in x.iter_mut().zip(&grad) {
            *xj -= eta * gj;
        }
        cfg.domain.project(&mut x);
    }
    regularised_gradient(cfg, data, &x, &x0, &mut grad);
    // r = ∇F^λ(x_T) − ∇F^λ(x_{T−1}) + (x_{T−1} − x_T)/η ∈ ∂(F^λ + ι_X)(x_T)
    let r: Vec<f64> = (0..d).map(|j| grad[j] - grad_prev[j] + (x_prev[j] - x[j]) / eta).collect();
    // Rounding allowance: each gradient coordinate is a sum of ≤ n + 2 terms of size ≤ L′ + λ‖x − x⁰‖∞
    // (error ≤ (n + d + 8)·u times the magnitudes, first order), and the difference quotient adds
    // (x_{T−1} − x_T)/η's own rounding; doubled for safety.
    let dist = |v: &[f64]| norm_linf(&v.iter().zip(&x0).map(|(a, b)| a - b).collect::<Vec<_>>());
    let scale = 2.0 * cfg.lipschitz_with_margin() + lam * (dist(&x) + dist(&x_prev)) + norm_l2(&r);
    let allowance = 2.0 * (data.n() + d + 8) as f64 * UNIT_ROUNDOFF * scale * (d as f64).sqrt();
    // x_T and x_{T−1} are themselves rounded relative to their own size (not their distance to
    // x⁰), and enter r through 1/η = H + λ: at x⁰ = 1e12 the certificate once read 6e-15 for a
    // true distance of 2.9e-5
    let iterate_rounding = 2.0 * (x.len() as f64).sqrt() * UNIT_ROUNDOFF * (norm_linf(&x) + norm_linf(&x_prev)) / eta;
    let certificate = ((norm_l2(&r) + allowance + iterate_rounding) / lam).next_up();
    Ok(CertifiedSolution { x, certificate, iterations })
}
