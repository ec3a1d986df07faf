//! Noisy mirror descent in lp geometry, `1 < p ≤ 2` — \[AFKT\] Algorithm 5 (App. B.1, Theorem 12)
//! and its localized version Algorithm 6 (App. B.2, Theorem 13).
//!
//! Algorithm 5 over `X = {‖x‖_p ≤ R}` for losses L-Lipschitz w.r.t. ‖·‖_p (`‖∇f‖_q ≤ L`):
//! ```text
//! 1: q = p/(p − 1)
//! 2: for k = 1..T:
//! 3:   draw the batch S_k (here b records without replacement; printed: i.i.d. with replacement)
//! 4:   ĝ_k = (1/b) Σ ∇f(x_k; z_i) + ζ_k,  ζ_k ~ N(0, σ² I_d)    (one ζ per step; printed ζ_i in the sum)
//!      sensitivity: ‖∇f‖₂ ≤ d^{1/2−1/q}‖∇f‖_q ≤ d^{1/2−1/q} L (the clip C)
//! 5:   x_{k+1} = argmin_{x∈X} ⟨ĝ_k, x − x_k⟩ + (1/η_k) D_h(x, x_k),   h = (1/(2(p−1)))‖·‖_p²
//! 6:   return x̄_T = (1/T) Σ_{k=1}^{T} x_k                      (convex)
//! 7:   return x̂_T = (2/(T(T+1))) Σ_{k=1}^{T} k x_k             (strongly convex, η_k = 2/(λ(k+1)))
//! ```
//! The same loop, `noisy_mirror_descent_core`, is the inner solver of Algorithms 2 and 6: it
//! has the hooks a localized phase needs (a centre a of the map, `h(x) = φ_c(x − a)`; a ball
//! `‖x − a‖_p ≤ r` intersected with the domain; a data-independent regulariser gradient
//! `λ_reg ∇h(x)` added after the release; the strongly convex step; the weighted average). With
//! the l1 ball as domain, a = 0, r = ∞, λ_reg = 0, a constant step and the uniform average it is
//! Algorithm 1's p-norm branch, bit for bit (unit test below).
//!
//! # Privacy
//! As Algorithm 1 (proofs/l1/noisy_mirror_descent.md §3) with the clip `C = d^{1/2−1/q} L`: each
//! step is `WithoutReplacement(n, b) ∘ PerExampleSumGaussian(σ_mult)`, σ_mult given or calibrated
//! by the RDP accountant through [`PrivateRelease`]; the regulariser gradient and line 5 are
//! post-processing. The printed `σ = 100 L√(d^{1−2/q} log(1/δ))/(bε)` is replaced by the
//! accountant, as in Algorithm 1.
//! Proof: proofs/l1/lp_mirror_descent.md.

use crate::accounting::Neighbouring;
use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::geometry::mirror::{PNormMap, bregman_step_l1_lp, bregman_step_lp_lp};
use crate::linalg::norm_lp;
use crate::loss::Loss;
use crate::optim::private_step::PrivateGradientStep;
use crate::optim::{
    Averager, GradientBound, GradientEngine, NoiseForm, NoiseShape, Observer, OutputPoint, Privacy, PrivateRelease,
    ReleasePlan, Run, RunSettings, TraceEvent,
};
use crate::rng::Seeds;
use crate::sampling::BatchSampler;

/// The constraint set X of the inner solver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Domain {
    /// `{‖x‖₁ ≤ R}` (Algorithms 1 and 2).
    L1Ball {
        /// R.
        radius_r: f64,
    },
    /// `{‖x‖_p ≤ R}` with the map's p (Algorithms 5 and 6).
    LpBall {
        /// R.
        radius_r: f64,
    },
}

impl Domain {
    /// R.
    pub fn radius(&self) -> f64 {
        match self {
            Domain::L1Ball { radius_r } | Domain::LpBall { radius_r } => *radius_r,
        }
    }

    /// Whether x lies in the domain (relative slack `1e-12`).
    pub fn contains(&self, x: &[f64], p: f64) -> bool {
        match self {
            Domain::L1Ball { radius_r } => crate::linalg::norm_l1(x) <= radius_r * (1.0 + 1e-12),
            Domain::LpBall { radius_r } => norm_lp(x, p) <= radius_r * (1.0 + 1e-12),
        }
    }
}

/// The step rule of line 5.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepRule {
    /// A constant η (convex case).
    Constant {
        /// η > 0.
        eta: f64,
    },
    /// `η_k = 2/(λ(k+1))`, k = 1..T (f λ-strongly convex relative to h; Lemma 3.2).
    StronglyConvex {
        /// λ > 0.
        lambda: f64,
    },
}

impl StepRule {
    fn eta(&self, k: u64) -> f64 {
        match self {
            StepRule::Constant { eta } => *eta,
            StepRule::StronglyConvex { lambda } => 2.0 / (lambda * (k as f64 + 1.0)),
        }
    }
}

/// Which average line 6/7 returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Average {
    /// `x̄_T = (1/T) Σ_{k=1}^{T} x_k` (line 6).
    Uniform,
    /// `x̂_T = (2/(T(T+1))) Σ_{k=1}^{T} k x_k` (line 7).
    Weighted,
}

/// Everything the inner loop needs (crate-internal: the public configurations build it).
#[derive(Debug, Clone)]
pub(crate) struct CoreSettings<'a> {
    pub steps_t: u64,
    pub sampler: BatchSampler,
    pub privacy: Privacy,
    pub neighbouring: Neighbouring,
    /// b, the declared normaliser (`None`: the sampler's size).
    pub batch_size_b: Option<f64>,
    /// C: the l2 clip of each per-example gradient (the sensitivity bound).
    pub clip: f64,
    /// h(x) = φ_c(x − a).
    pub map: PNormMap,
    /// a.
    pub centre: &'a [f64],
    pub domain: Domain,
    /// r (∞: no ball around a).
    pub lp_radius: f64,
    /// λ_reg ≥ 0: the gradient `λ_reg ∇h(x)` of the regulariser `λ_reg h` is added.
    pub regulariser_lambda: f64,
    pub step: StepRule,
    pub average: Average,
    pub x0: &'a [f64],
    pub tolerance: f64,
}

/// The inner loop (see the module doc): Algorithm 5, or Algorithm 1's p-norm branch on the l1
/// ball, with the localization hooks.
#[allow(non_snake_case)]
pub(crate) fn noisy_mirror_descent_core(
    data: &Dataset,
    loss: Loss,
    s: &CoreSettings<'_>,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    let (n, d, T) = (data.n(), data.d(), s.steps_t);
    let C = s.clip;
    let release = PrivateRelease::new(
        ReleasePlan {
            sampler: s.sampler,
            n,
            steps: T,
            privacy: s.privacy,
            neighbouring: s.neighbouring,
            batch_size_b: s.batch_size_b,
            clipped: true,
            form: NoiseForm::Multiplier,
        },
        seeds,
    )?;
    let noise = NoiseShape::Isotropic { clip: C };
    let mut step =
        PrivateGradientStep::new(release, GradientEngine::Reference, GradientBound::L2 { clip: C }, noise, d);
    let a = s.centre;
    let mut x = s.x0.to_vec();
    let mut avg = Averager::new(d);
    let (mut weighted, mut weight_sum) = (vec![0.0; d], 0.0f64);
    let mut g_hat = vec![0.0; d];
    let (mut theta, mut u, mut reg) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
    let mut x_next = vec![0.0; d];
    // Alg. 5, line 1: q = p/(p - 1) (the map's dual exponent)
    // Alg. 5, line 2: for k = 1..T (x_1 = x_0)
    for k in 0..T {
        observer.observe(TraceEvent::Iterate { step: k, x: &x });
        // Alg. 5, line 3: draw the batch S_k
        // Alg. 5, line 4: g_hat = (1/b) sum grad f(x_k; z_i) + zeta_k (clip C = d^{1/2-1/q} L in l2)
        g_hat.copy_from_slice(step.noisy_gradient(data, loss, &x)?);
        observer.observe(TraceEvent::NoisyGradient { step: k, g_hat: &g_hat });
        // Alg. 5, line 5: x_{k+1} = argmin_X <g_hat + lambda_reg grad h(x_k), x - x_k> + (1/eta_k) D_h(x, x_k)
        for j in 0..d {
            u[j] = x[j] - a[j];
        }
        s.map.gradient(&u, &mut theta);
        if s.regulariser_lambda > 0.0 {
            // the regulariser's gradient: data-independent, added after the release
            for (rj, tj) in reg.iter_mut().zip(&theta) {
                *rj = s.regulariser_lambda * tj;
            }
            for (gj, rj) in g_hat.iter_mut().zip(&reg) {
                *gj += rj;
            }
        }
        let eta = s.step.eta(k + 1);
        for (t, gk) in theta.iter_mut().zip(&g_hat) {
            *t -= eta * gk;
        }
        let step = match s.domain {
            Domain::L1Ball { radius_r } => {
                bregman_step_l1_lp(&s.map, &theta, a, radius_r, s.lp_radius, s.tolerance, 100_000)?
            }
            Domain::LpBall { radius_r } => {
                bregman_step_lp_lp(&s.map, &theta, a, radius_r, s.lp_radius, s.tolerance, 100_000)?
            }
        };
        x_next.copy_from_slice(&step.x);
        avg.add(&x, &x_next);
        let w = (k + 1) as f64;
        for (wj, xj) in weighted.iter_mut().zip(&x) {
            *wj += w * xj;
        }
        weight_sum += w;
        std::mem::swap(&mut x, &mut x_next);
    }
    // Alg. 5, line 6: x_bar_T = (1/T) sum_{k=1}^T x_k (convex)
    // Alg. 5, line 7: x_hat_T = (2/(T(T+1))) sum_{k=1}^T k x_k (strongly convex)
    let out = match s.average {
        Average::Uniform => avg.output(OutputPoint::AverageFromZero, &x),
        Average::Weighted => weighted.iter().map(|v| v / weight_sum).collect(),
    };
    Ok(Run::new(out, x, T, step.finish()?))
}

/// `d^{1/2−1/q} L`: the l2 bound of a gradient with `‖g‖_q ≤ L` (App. B.1: `‖g‖₂ ≤ d^{1/2−1/q}‖g‖_q`
/// for q ≥ 2), the sensitivity constant of Algorithms 5 and 6.
///
/// # Errors
/// `InvalidParameter` if it is not positive and finite (an L so large that the bound overflows
/// would clip nothing).
pub fn lp_l2_sensitivity(d: usize, p: f64, lipschitz_l: f64) -> Result<f64> {
    let q = p / (p - 1.0);
    check::positive("clip d^(1/2-1/q)*L", (d as f64).powf(0.5 - 1.0 / q) * lipschitz_l)
}

/// Settings of Algorithm 5; field names end in the paper's symbols.
#[derive(Debug, Clone, PartialEq)]
pub struct LpMirrorDescentConfig {
    /// p ∈ (1, 2].
    pub p: f64,
    /// R > 0: `X = {‖x‖_p ≤ R}`.
    pub radius_r: f64,
    /// L > 0: `‖∇f‖_q ≤ L` (gradients are clipped in l2 at `d^{1/2−1/q} L`).
    pub lipschitz_l: f64,
    /// The step rule (`None`: Theorem 12's convex step, see [`LpMirrorDescentConfig::theorem_12_step`]).
    pub step: Option<StepRule>,
    /// The average returned.
    pub average: Average,
    /// T, the sampler ([`RunSettings::without_replacement`]: b records per step, replace-one, the
    /// paper's relation), σ_mult or the (ε, δ) it is calibrated to, the normaliser b and x_0
    /// (default 0), in X.
    pub settings: RunSettings,
    /// The duality-gap tolerance of the Bregman step.
    pub step_tolerance: f64,
}

impl LpMirrorDescentConfig {
    /// The lp ball of radius R for losses L-Lipschitz w.r.t. ‖·‖_p, with `settings` (T steps,
    /// sampler, privacy; [`RunSettings::without_replacement`] is the paper's), Theorem 12's convex
    /// step and the uniform average.
    ///
    /// # Errors
    /// `InvalidParameter` for p ∉ (1, 2], R, L not finite and positive, or invalid settings.
    pub fn new(p: f64, radius_r: f64, lipschitz_l: f64, settings: RunSettings) -> Result<Self> {
        crate::optim::checked(
            LpMirrorDescentConfig {
                p,
                radius_r,
                lipschitz_l,
                step: None,
                average: Average::Uniform,
                settings,
                step_tolerance: 1e-10,
            },
            LpMirrorDescentConfig::check_settings,
        )
    }

    fn check_settings(&self) -> Result<()> {
        PNormMap::new(self.p, 1.0)?;
        super::check_ball_settings(self.radius_r, self.lipschitz_l, self.step_tolerance)?;
        match self.step {
            Some(StepRule::Constant { eta }) => {
                check::positive("step size eta", eta)?;
            }
            Some(StepRule::StronglyConvex { lambda }) => {
                check::positive("strong convexity lambda", lambda)?;
            }
            None => {}
        }
        self.settings.validate()
    }

    /// Runs Algorithm 5 on `data`: [`lp_mirror_descent`].
    ///
    /// # Errors
    /// As [`lp_mirror_descent`].
    pub fn run(&self, data: &Dataset, loss: Loss, seeds: Seeds) -> Result<Run> {
        lp_mirror_descent(data, loss, self, seeds)
    }

    /// Theorem 12's convex step `η = D/√(T(L² + 4d^{2/q}σ² ln d))` with the safe
    /// `E‖ζ‖²_∞ ≤ σ²(4 ln d + 2 ln 2)` in place of the printed `4σ² log d` (asymptotic, false at
    /// d = 1), so `η = D/√(T(L² + d^{2/q}σ²(4 ln d + 2 ln 2)))`; D² = `R²/(2(p − 1))` bounds
    /// `D_h(x*, 0)` for `h = (1/(2(p−1)))‖·‖_p²`; σ the noise std on the mean.
    pub fn theorem_12_step(&self, d: usize, sigma_mean: f64) -> f64 {
        let q = self.p / (self.p - 1.0);
        let bregman_radius = self.radius_r / (2.0 * (self.p - 1.0)).sqrt();
        let log_d = (d as f64).ln();
        let noise = (d as f64).powf(2.0 / q) * sigma_mean * sigma_mean * (4.0 * log_d + 2.0 * std::f64::consts::LN_2);
        bregman_radius / (self.settings.steps_t as f64 * (self.lipschitz_l * self.lipschitz_l + noise)).sqrt()
    }
}

/// Checks a dataset for a run: non-empty, finite features and labels.
pub(crate) fn check_data(data: &Dataset) -> Result<()> {
    if data.n() == 0 {
        return Err(Error::Empty { what: "dataset" });
    }
    check::all_finite("features", data.features())?;
    check::all_finite("labels", data.labels())
}

/// Runs Algorithm 5 (see the module doc) with sampling and noise streams from `seeds`.
///
/// # Errors
/// `InvalidParameter` for invalid settings or data (NaN, empty, b > n, x0 outside X) before any
/// randomness; `Unsupported` for an unaccountable request; a Bregman step that fails its tolerance.
pub fn lp_mirror_descent(data: &Dataset, loss: Loss, config: &LpMirrorDescentConfig, seeds: Seeds) -> Result<Run> {
    config.check_settings()?;
    check_data(data)?;
    loss.check_labels(data)?;
    let d = data.d();
    config.settings.validate_on(data.n(), d)?;
    let x0 = config.settings.x0.clone().unwrap_or_else(|| vec![0.0; d]);
    if norm_lp(&x0, config.p) > config.radius_r {
        return Err(Error::invalid("x0", "outside the lp ball", "with ||x0||_p <= R"));
    }
    let clip = lp_l2_sensitivity(d, config.p, config.lipschitz_l)?;
    let step = match config.step {
        Some(step) => step,
        None => {
            // the σ of the run, from a dry set-up of the same release (no randomness drawn)
            let release = PrivateRelease::new(config.settings.release_plan(data.n(), true), seeds)?;
            let sigma_mean = release.noise_multiplier() * clip / release.normaliser();
            StepRule::Constant { eta: config.theorem_12_step(d, sigma_mean) }
        }
    };
    let zero = vec![0.0; d];
    let settings = CoreSettings {
        steps_t: config.settings.steps_t,
        sampler: config.settings.sampler,
        privacy: config.settings.privacy,
        neighbouring: config.settings.neighbouring,
        batch_size_b: config.settings.batch_size_b,
        clip,
        map: PNormMap::unit_modulus(config.p)?,
        centre: &zero,
        domain: Domain::LpBall { radius_r: config.radius_r },
        lp_radius: f64::INFINITY,
        regulariser_lambda: 0.0,
        step,
        average: config.average,
        x0: &x0,
        tolerance: config.step_tolerance,
    };
    noisy_mirror_descent_core(data, loss, &settings, seeds, &mut crate::optim::NoTrace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::mirror::{l1_geometry_exponent, l1_norm_ratio};
    use crate::optim::NoTrace;
    use crate::optim::l1::{MirrorMap, NoisyMirrorDescentConfig, noisy_mirror_descent};

    /// With neutral hooks on the l1 ball the core is Algorithm 1's p-norm branch, bit for bit.
    #[test]
    fn core_with_neutral_hooks_is_algorithm_1() {
        let (n, d) = (60, 6);
        let mut rng = Seeds::new(9).stream(crate::rng::Stream::Data);
        let x_true = vec![0.5, -0.3, 0.0, 0.1, 0.0, 0.0];
        let problem = crate::data::l1_problems::LeastSquaresL1::generate(n, x_true, 0.1, &mut rng).unwrap();
        let p = l1_geometry_exponent(d);
        let privacy = Privacy::NoiseMultiplier { sigma: 1.3, report_delta: Some(1e-5) };
        let settings = crate::optim::RunSettings::without_replacement(25, 10, privacy).unwrap();
        let mut cfg = NoisyMirrorDescentConfig::new(1.0, 3.0, MirrorMap::PNorm { p }, settings).unwrap();
        cfg.step_size_eta = Some(0.05);
        let alg1 = noisy_mirror_descent(&problem.data, Loss::Squared, &cfg, Seeds::new(4), &mut NoTrace).unwrap();
        let cd = l1_norm_ratio(d, p);
        let zero = vec![0.0; d];
        let settings = CoreSettings {
            steps_t: 25,
            sampler: cfg.settings.sampler,
            privacy,
            neighbouring: Neighbouring::ReplaceOne,
            batch_size_b: None,
            clip: 3.0 * (d as f64).sqrt(),
            map: PNormMap::new(p, cd * cd / (p - 1.0)).unwrap(),
            centre: &zero,
            domain: Domain::L1Ball { radius_r: 1.0 },
            lp_radius: f64::INFINITY,
            regulariser_lambda: 0.0,
            step: StepRule::Constant { eta: 0.05 },
            average: Average::Uniform,
            x0: &zero,
            tolerance: 1e-10,
        };
        let core =
            noisy_mirror_descent_core(&problem.data, Loss::Squared, &settings, Seeds::new(4), &mut NoTrace).unwrap();
        assert_eq!(core, alg1);
    }
}
