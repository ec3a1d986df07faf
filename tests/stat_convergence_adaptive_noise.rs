//! O7 ([ADFJT] notes §4.6–4.7): the explicit-constant forms of Theorems 8 (PASAN) and 9 (PAGAN)
//! bound the mean excess loss of the real optimisers on the synthetic absolute regression, over
//! R = 200 runs, with the theory's step scales (α = D₂, resp. D∞), the radial projection and the
//! average over k = 0..T−1.
//!
//! Acceptance region. The bounds need `Σ_k E‖g̃ᵏ‖²` (the clipped, not noisy, mean gradients),
//! which the released ĝ only give up to Gaussian noise; instead the right side is evaluated at a
//! deterministic upper bound of it (the bound is non-decreasing in it, so this keeps it a valid
//! upper bound of the expectation): with per-example clipped gradients `gᵢ = ±zᵢ·min(1, B/‖zᵢ‖_C)`
//! (absolute loss, radial clipping in `‖·‖_C`), `|gᵢⱼ| ≤ mᵢⱼ := |zᵢⱼ|·min(1, B/‖zᵢ‖_C)`, and
//! `g̃ = (1/b) Σ_{i∈S} gᵢ` with Poisson S (rate q) and b = qn, so
//! `E(g̃ⱼᵏ)² ≤ (q Σᵢ mᵢⱼ² + q²(Σᵢ mᵢⱼ)²)/b²` per coordinate and step (`energy_bound`). The
//! left side, the excess loss `f(x̄) − f(x*)` of one run, is bounded: x̄ and x* ∈ {±1}^d lie in
//! the box [−1, 1]^d (checked on every run), so `|f(x̄) − f(x*)| ≤ (1/n) Σᵢ |zᵢ·(x̄ − x*)| ≤
//! M := (2/n) Σᵢ ‖zᵢ‖₁`; over R = 200 independent runs, Hoeffding's inequality on the range 2M
//! gives the one-sided margin `2M·√(ln(1/a)/(2R))` at a = 5e-7 per theorem (two theorems,
//! false failure ≤ 1e-6 in total; no normal approximation).
//!
//! What it can catch: only gross errors. Measured: mean excess 0.057 (PASAN) and 0.027 (PAGAN),
//! Hoeffding margin 1.163 (M = 3.05), bounds 2.595 and 2.518 (the deterministic energy bound
//! costs little: the bounds were 2.50 and 2.44 at the measured energies). The noise ×4 (mean
//! excess 0.095, 0.056) and ×¼ (0.053, 0.024) both pass: a noise calibration error is NOT caught
//! here (the noise-calibration tests do that). Power twin (asserted): an optimiser whose
//! projection onto X is missing (the domain ignored, step scale ×1000) leaves the box the bound's
//! diameters assume; its mean excess (38.65 PASAN, 17.93 PAGAN) minus the same margin exceeds
//! the bound.

use dpref::bounds::adaptive_noise::{
    Diameters, ExplicitCommon, PaganExplicitInputs, PasanExplicitInputs, box_diameters, glm_gradient_bounds,
    pagan_bound_explicit, pasan_bound_explicit, radial_clipping_bias,
};
use dpref::data::{Dataset, absolute_regression, absolute_regression_scales};
use dpref::geometry::Domain;
use dpref::loss::Loss;
use dpref::optim::RunSettings;
use dpref::optim::adaptive_noise::{AdaptiveMethod, AdaptiveNoiseConfig};
use dpref::optim::{Privacy, Trace};
use dpref::rng::{Seeds, Stream};

const R: u64 = 200;
/// The false-failure level of each theorem's check (two theorems: ≤ 1e-6 in total).
const LEVEL: f64 = 5e-7;

/// The mean of the runs' excess losses.
fn mean_excess(runs: &[f64]) -> f64 {
    runs.iter().sum::<f64>() / runs.len() as f64
}

/// Hoeffding's one-sided margin at [`LEVEL`] for the mean of R independent values in an interval
/// of width `width`: `width·√(ln(1/LEVEL)/(2R))`.
fn hoeffding_margin(width: f64) -> f64 {
    width * ((1.0 / LEVEL).ln() / (2.0 * R as f64)).sqrt()
}

fn setting() -> (Dataset, Vec<f64>, Vec<f64>) {
    let (data, x_star) = absolute_regression(500, 8, 0.01, &mut Seeds::new(31).stream(Stream::Data)).unwrap();
    let c: Vec<f64> = absolute_regression_scales(8).iter().map(|s| s.powf(-4.0 / 3.0)).collect();
    (data, x_star, c)
}

/// Runs R seeds; returns per run `f(x̄) − f(x*)`. `in_box`: assert x̄ ∈ [−1, 1]^d (the range of
/// the excess relies on it).
fn runs(data: &Dataset, x_star: &[f64], cfg: &AdaptiveNoiseConfig, adagrad: bool, in_box: bool) -> Vec<f64> {
    let f_star = Loss::Absolute.empirical_risk(x_star, data);
    (0..R)
        .map(|r| {
            let mut t = Trace::default();
            let run = if adagrad {
                AdaptiveMethod::Pagan.run(data, Loss::Absolute, cfg, Seeds::new(100 + r), &mut t).unwrap()
            } else {
                AdaptiveMethod::Pasan.run(data, Loss::Absolute, cfg, Seeds::new(100 + r), &mut t).unwrap()
            };
            assert!(!in_box || run.x.iter().all(|v| v.abs() <= 1.0), "x̄ left the box on seed {r}");
            Loss::Absolute.empirical_risk(&run.x, data) - f_star
        })
        .collect()
}

/// Per coordinate j: `T·(q Σᵢ mᵢⱼ² + q²(Σᵢ mᵢⱼ)²)/b² ≥ Σ_k E(g̃ⱼᵏ)²` (module doc), with
/// `mᵢⱼ = |zᵢⱼ|·min(1, B/‖zᵢ‖_C)` from the data alone.
fn energy_bound(data: &Dataset, c: &[f64], t: u64, q: f64, b: f64) -> Vec<f64> {
    let features: Vec<Vec<f64>> = (0..data.n()).map(|i| data.row(i).to_vec()).collect();
    let norms = glm_gradient_bounds(&features, c).unwrap();
    let batch = q * data.n() as f64;
    (0..data.d())
        .map(|j| {
            let m: Vec<f64> = features.iter().zip(&norms).map(|(z, g)| z[j].abs() * (b / g).min(1.0)).collect();
            let (sum, sum_sq) = (m.iter().sum::<f64>(), m.iter().map(|x| x * x).sum::<f64>());
            t as f64 * (q * sum_sq + q * q * sum * sum) / (batch * batch)
        })
        .collect()
}

/// One theorem's check: the optimiser's runs at z = 2 on the box with the theory's step scale
/// (α = D₂ for PASAN, D∞ for PAGAN), and what its bound needs.
struct Check {
    data: Dataset,
    x_star: Vec<f64>,
    c: Vec<f64>,
    cfg: AdaptiveNoiseConfig,
    diam: Diameters,
    adagrad: bool,
    t: u64,
    b: f64,
    /// s = z/(qn), the noise standard deviation on the mean.
    s: f64,
    /// The exact radial clipping bias of the data at B.
    bias: f64,
    /// The runs' excess losses.
    excess: Vec<f64>,
    /// `M`: |excess| ≤ M on every run (module doc).
    range_m: f64,
    /// [`energy_bound`] per coordinate.
    energy: Vec<f64>,
}

fn check(adagrad: bool) -> Check {
    let (data, x_star, c) = setting();
    let d = data.d();
    let (t, q, z, b) = (150u64, 0.1, 2.0, 0.6);
    let diam = box_diameters(&vec![-1.0; d], &vec![1.0; d], &c).unwrap();
    let alpha = if adagrad { diam.diam_inf } else { diam.diam_2 };
    let run_settings = RunSettings::poisson(t, q, Privacy::NoiseMultiplier { sigma: z, report_delta: None }).unwrap();
    let mut cfg = AdaptiveNoiseConfig::new(d, alpha, b, run_settings).unwrap();
    cfg.ellipsoid_c = c.clone();
    cfg.domain = Domain::Box { radius: 1.0 };
    cfg.settings.batch_size_b = Some(q * data.n() as f64);
    let s = z / (q * data.n() as f64);
    let excess = runs(&data, &x_star, &cfg, adagrad, true);
    let features: Vec<Vec<f64>> = (0..data.n()).map(|i| data.row(i).to_vec()).collect();
    let bias = radial_clipping_bias(&glm_gradient_bounds(&features, &c).unwrap(), b).unwrap();
    let range_m = 2.0 * features.iter().map(|z| z.iter().map(|v| v.abs()).sum::<f64>()).sum::<f64>() / data.n() as f64;
    let energy = energy_bound(&data, &c, t, q, b);
    Check { data, x_star, c, cfg, diam, adagrad, t, b, s, bias, excess, range_m, energy }
}

impl Check {
    /// The inputs Thms. 8 and 9 share, at the run's T, s, B, C, D_{C⁻¹} and clipping bias, with
    /// the step scale α (the theorem's diameter).
    fn common(&self, alpha: f64) -> ExplicitCommon<'_> {
        ExplicitCommon {
            steps_t: self.t,
            noise_std_s: self.s,
            clip_radius_b: self.b,
            ellipsoid_c: &self.c,
            diam_c_inv: self.diam.diam_c_inv,
            step_scale_alpha: alpha,
            clipping_bias: self.bias,
        }
    }

    /// The bound `full` holds for the runs' mean excess plus the Hoeffding margin, and the power
    /// twin (no projection onto X, step scale ×1000) breaks it by more than the margin.
    fn assert_holds_and_twin_fails(self, full: f64, name: &str, theorem: &str) {
        let (m, margin) = (mean_excess(&self.excess), hoeffding_margin(2.0 * self.range_m));
        let alpha = 1000.0 * self.cfg.step_scale_alpha;
        let broken = AdaptiveNoiseConfig { domain: Domain::Unconstrained, step_scale_alpha: alpha, ..self.cfg };
        let twin = mean_excess(&runs(&self.data, &self.x_star, &broken, self.adagrad, false));
        eprintln!(
            "{name}: mean excess {m:.4} + margin {margin:.4} (M {:.4}), bound {full:.4}; twin {twin:.4}",
            self.range_m
        );
        // rejected only when the evidence says E[excess] > bound at the margin's level:
        // m − margin > full (requiring m + margin ≤ full would demand certifying the bound)
        assert!(m <= full + margin, "{theorem} violated: {m} - {margin} > {full}");
        assert!(twin - margin > full, "power twin passes: {twin} - {margin} <= {full}");
    }
}

#[test]
fn stat_theorem_8_explicit_bound_holds_for_pasan() {
    let k = check(false);
    let full = pasan_bound_explicit(&PasanExplicitInputs {
        sum_sq_norm_g_tilde: k.energy.iter().sum(),
        diam_2: k.diam.diam_2,
        common: k.common(k.diam.diam_2),
    })
    .unwrap()
    .total();
    k.assert_holds_and_twin_fails(full, "PASAN", "Thm 8");
}

#[test]
fn stat_theorem_9_explicit_bound_holds_for_pagan() {
    let k = check(true);
    let full = pagan_bound_explicit(&PaganExplicitInputs {
        sum_sq_g_tilde_per_coordinate: &k.energy,
        diam_inf: k.diam.diam_inf,
        common: k.common(k.diam.diam_inf),
    })
    .unwrap()
    .total();
    k.assert_holds_and_twin_fails(full, "PAGAN", "Thm 9");
}
