//! Noisy stochastic mirror descent for DP-ERM over an l1 ball — \[AFKT\] Algorithm 1 (Sec. 3.1,
//! Theorem 3), with the p-norm map (`φ_c`, `p = 1 + 1/ln d`) or the entropic map on the l1 ball
//! as the image of a simplex.
//!
//! Input: dataset, loss, [`NoisyMirrorDescentConfig`] (T, η, L, R, map, sampler, σ or (ε, δ)).
//! Output: [`Run`] with `x = (1/T) Σ_{k=1}^{T} x_k` (the iterates at which gradients are taken).
//! ```text
//! 1: x_1 = x_0 (default 0)
//! 2: for k = 1..T:
//! 3:   draw the batch S_k (here: b records without replacement, or Poisson; printed: i.i.d. with replacement)
//! 4:   ĝ_k = (1/b) Σ_{i∈S_k} ∇f(x_k; z_i) + ζ_k,   ζ_k ~ N(0, σ² I_d)   (one ζ per step; printed ζ_i in the sum)
//! 5:   x_{k+1} = argmin_{x∈X} ⟨ĝ_k, x − x_k⟩ + (1/η) D_h(x, x_k)
//! 6: return x̄_T = (1/T) Σ_{k=1}^{T} x_k
//! ```
//! # Privacy
//! Line 4 releases a noisy mean of per-example gradients. The paper bounds their l2 norm by
//! `L√d` (`‖∇f‖_∞ ≤ L`) and sets `σ = 100·L√(d log(1/δ))/(bε)`, the 100 standing for an unstated
//! moments-accountant constant, for sampling with replacement that no accountant covers. Here
//! each per-example gradient is clipped in l2 at `C = L√d` (a no-op under the paper's assumption,
//! a guarantee on any data), the noise is `σ_mult·C` on the sum (`σ = σ_mult·C/b` on the mean),
//! and σ_mult is given or calibrated by the RDP accountant for the sampler the run uses, through
//! [`PrivateRelease`]: one `scheme ∘ PerExampleSumGaussian(σ_mult)` per step, under replace-one
//! neighbours as in the paper (add/remove also accepted). Line 5 is post-processing.
//! # Step size
//! `None` takes Theorem 3's step with the safe constant of `E‖ζ‖²_∞ ≤ σ²(4 ln d + 2 ln 2)` (the
//! printed `2σ² log d` fails at d = 1): `η = D/√(T(L² + σ²(4 ln d + 2 ln 2)))`, D² the Bregman
//! radius (`(c/2)R²` for the p-norm map at x_0 = 0, `ln(2d)` for the entropic one, in whose
//! simplex coordinates L and σ scale by R and d by 2).
//! Proof: proofs/l1/noisy_mirror_descent.md.

use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::geometry::mirror::{
    PNormMap, bregman_step_l1_lp, exponentiated_gradient_step, l1_ball_from_simplex, l1_norm_ratio,
};
use crate::loss::Loss;
use crate::optim::private_step::PrivateGradientStep;
use crate::optim::{
    Averager, GradientBound, GradientEngine, NoiseShape, Observer, OutputPoint, PrivateRelease, Run, RunSettings,
    TraceEvent,
};
use crate::rng::Seeds;

/// The mirror map h of line 5.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MirrorMap {
    /// `h = φ_c`, `c = c_d²/(p − 1)` (1-strongly convex w.r.t. ‖·‖₁), the step by the certified
    /// Bregman step over the l1 ball. \[AFKT\] takes `p = 1 + 1/ln d`
    /// (`crate::geometry::mirror::l1_geometry_exponent`).
    PNorm {
        /// p ∈ (1, 2].
        p: f64,
    },
    /// The entropic map on `Δ_{2d−1}`, mapped onto the l1 ball by `x = R(u₊ − u₋)`: the step is
    /// exponentiated gradient, in closed form.
    Entropic,
}

/// Settings of Algorithm 1; field names end in the paper's symbols.
#[derive(Debug, Clone, PartialEq)]
pub struct NoisyMirrorDescentConfig {
    /// η > 0 (`None`: Theorem 3's step, see the module doc).
    pub step_size_eta: Option<f64>,
    /// L > 0: the bound `‖∇f‖_∞ ≤ L` (gradients are clipped in l2 at `L√d`).
    pub lipschitz_l: f64,
    /// R > 0: the domain `X = {‖x‖₁ ≤ R}`.
    pub radius_r: f64,
    /// The mirror map.
    pub map: MirrorMap,
    /// T, the sampler ([`RunSettings::without_replacement`]: b records per step, replace-one, the
    /// paper's relation), σ_mult (on the clipped sum) or the (ε, δ) it is calibrated to, the
    /// normaliser b and x_0 (default 0), in X.
    pub settings: RunSettings,
    /// Which point is returned (default: the average of x_1..x_T).
    pub output: OutputPoint,
    /// The duality-gap tolerance of the p-norm step.
    pub step_tolerance: f64,
}

impl NoisyMirrorDescentConfig {
    /// The map over the l1 ball of radius R for L-Lipschitz (l∞-bounded gradient) losses, with
    /// `settings` (T steps, sampler, privacy; [`RunSettings::without_replacement`] is the paper's).
    ///
    /// # Errors
    /// `InvalidParameter` for R, L not finite and positive, p ∉ (1, 2], or invalid settings.
    pub fn new(radius_r: f64, lipschitz_l: f64, map: MirrorMap, settings: RunSettings) -> Result<Self> {
        crate::optim::checked(
            NoisyMirrorDescentConfig {
                step_size_eta: None,
                lipschitz_l,
                radius_r,
                map,
                settings,
                output: OutputPoint::AverageFromZero,
                step_tolerance: 1e-10,
            },
            NoisyMirrorDescentConfig::check_settings,
        )
    }

    fn check_settings(&self) -> Result<()> {
        super::check_ball_settings(self.radius_r, self.lipschitz_l, self.step_tolerance)?;
        self.settings.validate()?;
        if let Some(eta) = self.step_size_eta {
            check::positive("step size eta", eta)?;
        }
        if let MirrorMap::PNorm { p } = self.map {
            PNormMap::new(p, 1.0)?;
        }
        Ok(())
    }

    fn validate(&self, data: &Dataset) -> Result<()> {
        self.check_settings()?;
        self.settings.validate_on(data.n(), data.d())?;
        if let Some(x0) = &self.settings.x0
            && crate::linalg::norm_l1(x0) > self.radius_r
        {
            return Err(Error::invalid("x0", "outside the l1 ball", "with ||x0||_1 <= R"));
        }
        Ok(())
    }
}

/// The line-5 state: the iterate, in the map's own coordinates.
enum MirrorState {
    PNorm { map: PNormMap, theta: Vec<f64>, zero: Vec<f64> },
    Entropic { u: Vec<f64>, u_next: Vec<f64>, g_u: Vec<f64> },
}

/// Runs Algorithm 1 (see the module doc) with sampling and noise streams from `seeds`.
///
/// # Errors
/// `InvalidParameter` for invalid settings or data (before any randomness); `Unsupported` for a
/// sampler or relation no accountant covers when an ε is asked for; a Bregman step that does not
/// reach its tolerance.
#[allow(non_snake_case)]
pub fn noisy_mirror_descent(
    data: &Dataset,
    loss: Loss,
    config: &NoisyMirrorDescentConfig,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    config.validate(data)?;
    loss.check_labels(data)?;
    let (n, d, T, R, L) = (data.n(), data.d(), config.settings.steps_t, config.radius_r, config.lipschitz_l);
    // Line 4's clip: ‖g‖₂ ≤ √d‖g‖_∞ ≤ L√d, enforced (finite: an L that overflows it is refused).
    let C = check::positive("clip L*sqrt(d)", L * (d as f64).sqrt())?;
    let release = PrivateRelease::new(config.settings.release_plan(n, true), seeds)?;
    let sigma_mean = release.noise_multiplier() * C / release.normaliser();
    let bound = GradientBound::L2 { clip: C };
    let mut step =
        PrivateGradientStep::new(release, GradientEngine::Reference, bound, NoiseShape::Isotropic { clip: C }, d);
    let mut x = config.settings.x0.clone().unwrap_or_else(|| vec![0.0; d]);
    let (mut state, bregman_radius, lipschitz, noise, log_dim) = match config.map {
        MirrorMap::PNorm { p } => {
            let cd = l1_norm_ratio(d, p);
            let map = PNormMap::new(p, cd * cd / (p - 1.0))?;
            let radius = (0.5 * map.c()).sqrt() * R;
            let state = MirrorState::PNorm { map, theta: vec![0.0; d], zero: vec![0.0; d] };
            (state, radius, L, sigma_mean, (d as f64).ln())
        }
        MirrorMap::Entropic => {
            let slack = (1.0 - crate::linalg::norm_l1(&x) / R).max(0.0) / (2 * d) as f64;
            let mut u: Vec<f64> = x.iter().map(|v| v.max(0.0) / R + slack).collect();
            u.extend(x.iter().map(|v| (-v).max(0.0) / R + slack));
            let state = MirrorState::Entropic { u, u_next: vec![0.0; 2 * d], g_u: vec![0.0; 2 * d] };
            (state, ((2 * d) as f64).ln().sqrt(), R * L, R * sigma_mean, ((2 * d) as f64).ln())
        }
    };
    let eta = config.step_size_eta.unwrap_or_else(|| {
        let second_moment = lipschitz * lipschitz + noise * noise * (4.0 * log_dim + 2.0 * std::f64::consts::LN_2);
        bregman_radius / (T as f64 * second_moment).sqrt()
    });
    let mut avg = Averager::new(d);
    let mut x_next = vec![0.0; d];
    // Alg. 1, line 1: x_1 = x_0
    // Alg. 1, line 2: for k = 1..T
    for k in 0..T {
        observer.observe(TraceEvent::Iterate { step: k, x: &x });
        // Alg. 1, line 3: draw the batch S_k
        // Alg. 1, line 4: g_hat = (1/b) sum grad f(x_k; z_i) + zeta_k (clipped at L sqrt(d); noise on the sum, then / b)
        let g_hat = step.noisy_gradient(data, loss, &x)?;
        observer.observe(TraceEvent::NoisyGradient { step: k, g_hat });
        // Alg. 1, line 5: x_{k+1} = argmin_X <g_hat, x - x_k> + (1/eta) D_h(x, x_k)
        match &mut state {
            MirrorState::PNorm { map, theta, zero } => {
                map.gradient(&x, theta);
                for (t, gk) in theta.iter_mut().zip(g_hat) {
                    *t -= eta * gk;
                }
                let step = bregman_step_l1_lp(map, theta, zero, R, f64::INFINITY, config.step_tolerance, 100_000)?;
                x_next.copy_from_slice(&step.x);
            }
            MirrorState::Entropic { u, u_next, g_u } => {
                for j in 0..d {
                    g_u[j] = R * g_hat[j];
                    g_u[d + j] = -R * g_hat[j];
                }
                exponentiated_gradient_step(u, g_u, eta, u_next)?;
                std::mem::swap(u, u_next);
                l1_ball_from_simplex(u, R, &mut x_next)?;
            }
        }
        avg.add(&x, &x_next);
        std::mem::swap(&mut x, &mut x_next);
    }
    // Alg. 1, line 6: the average of x_1..x_T and the privacy of the executed events
    Ok(Run::new(avg.output(config.output, &x), x, T, step.finish()?))
}
