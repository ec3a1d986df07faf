//! [ZCHWB] empirical-risk theorems 4–6 (notes §4.7, §4.9) and the rate sanity checks of notes
//! §6.3 item 23, on the real Algorithm 1 code (`optim::dpagd::algorithm1::dpagd`) and the
//! non-convex problem of notes §6.4: `ℓ(w, z) = Σᵢ φ(wᵢ − zᵢ)`, `φ(u) = u²/(1 + u²)`
//! (`SeparableNonConvex`: `G_∞ = 3√3/8`, `G = G_∞√p`, `L = 2`, `ℓ* = 0`, so `f* = 0` is a valid
//! lower bound of the empirical loss f̂). `∇f̂(w_t)` is the exact full-batch gradient
//! (`Model::clipped_gradient_sum` with clip ∞, divided by n) at the iterates `w_1..w_T` recorded
//! by a `Trace`; every right side comes from `dpref::bounds::dpagd`, never from the optimiser.
//!
//! Acceptance regions. Theorems 4 and 5 bound an expectation, `(1/T) Σ_t E‖∇f̂(w_t)‖²`, so the
//! empirical mean of i.i.d. per-run (or per-coordinate, see below) values `X ∈ [0, c]` gets a
//! one-sided margin from the empirical Bernstein bound of Maurer & Pontil (2009, Thm. 4): with
//! probability ≥ 1 − a, `|X̄ − E X| ≤ √(2 V ln(2/a)/N) + 7c ln(2/a)/(3(N − 1))` in the direction
//! asked (`V` the unbiased sample variance, N samples; applied to `X` or to `c − X`). A plain
//! Hoeffding margin `c√(ln(1/a)/(2N))` is 3–10× wider here, because the a-priori range `c = G²`
//! is far above the typical values. Budgets `a` are stated per test and sum to ≤ 1e-6.
//!
//! Per-coordinate samples. On a dataset whose p columns are identical (every record is the
//! zero vector) and with `w_1` constant across coordinates, the problem is separable and the noise
//! has independent coordinates, and DP-GD and DP-RMSProp update each coordinate from its own
//! gradient coordinate only: the p coordinate trajectories of one run are i.i.d. So a run gives p
//! i.i.d. samples `X_i = (1/T) Σ_t (∂ᵢ f̂(w_t))² ∈ [0, G_∞²]`, whose mean is the per-coordinate
//! share `1/p` of the theorem's left side; the right sides are divided by p. (This uses the
//! correct implementation's structure, as any acceptance region does; a broken implementation
//! that coupled coordinates could only change the power, not the false-failure probability.)

mod common;

use common::stat::{binomial_lower_tail, binomial_upper_tail};
use dpref::accounting::Neighbouring;
use dpref::audit::binomial::clopper_pearson_lower;
use dpref::bounds::dpagd::*;
use dpref::data::Dataset;
use dpref::model::Model;
use dpref::model::nonconvex::{PHI_PRIME_MAX, SMOOTHNESS_L, SeparableNonConvex};
use dpref::optim::Privacy;
use dpref::optim::RunSettings;
use dpref::optim::Trace;
use dpref::optim::dpagd::algorithm1::{Algorithm1Config, dpagd};
use dpref::optim::dpagd::{MomentState, Moments};
use dpref::rng::{Seeds, Stream};
use rand::RngExt;
use rayon::prelude::*;

const L: f64 = SMOOTHNESS_L;
/// `G_∞² = (3√3/8)²`: the range of one coordinate's squared gradient.
const G_INF_SQ: f64 = PHI_PRIME_MAX * PHI_PRIME_MAX;

fn std_noise(sigma: f64) -> Privacy {
    Privacy::StdOnMean { std: sigma, report_delta: None }
}

fn sq(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum()
}

/// `∇f̂(w) = (1/n) Σ_j ∇ℓ(w, z_j)`, computed from the data (clip ∞).
fn empirical_gradient(model: &SeparableNonConvex, data: &Dataset, w: &[f64]) -> Vec<f64> {
    let n = data.n();
    let mut g = vec![0.0; model.dim];
    model.clipped_gradient_sum(w, data, &(0..n).collect::<Vec<_>>(), f64::INFINITY, &mut g);
    g.iter_mut().for_each(|v| *v /= n as f64);
    g
}

/// `f̂(w) = (1/n) Σ_j ℓ(w, z_j)`.
fn empirical_loss(model: &SeparableNonConvex, data: &Dataset, w: &[f64]) -> f64 {
    model.evaluate(w, data).expect("valid point").mean_loss
}

/// `n` records equal to the zero vector of dimension p (one-point support {0}: identical columns).
fn zero_data(n: usize, p: usize) -> Dataset {
    Dataset::new(vec![0.0; n * p], vec![0.0; n], p).expect("valid dataset")
}

/// n records with coordinates i.i.d. uniform on {−1, 0, 2} (notes §6.4).
fn random_data(n: usize, p: usize, seed: u64) -> Dataset {
    let support = [-1.0, 0.0, 2.0];
    let mut rng = Seeds::new(seed).stream(Stream::Data);
    let z: Vec<f64> = (0..n * p).map(|_| support[rng.random_range(0..3)]).collect();
    Dataset::new(z, vec![0.0; n], p).expect("valid dataset")
}

/// Runs Algorithm 1 and returns the trace and `w_{T+1}`.
fn run(model: &SeparableNonConvex, data: &Dataset, cfg: &Algorithm1Config, seed: u64) -> (Trace, Vec<f64>) {
    let mut trace = Trace::default();
    let r = dpagd(data, model, cfg, Seeds::new(seed), &mut trace).expect("valid run");
    assert_eq!(trace.iterates.len() as u64, cfg.settings.steps_t);
    (trace, r.x_last)
}

/// Per coordinate i: `(1/T) Σ_t (∂ᵢ f̂(w_t))²` of one run.
fn per_coordinate_lhs(model: &SeparableNonConvex, data: &Dataset, trace: &Trace) -> Vec<f64> {
    let t = trace.iterates.len() as f64;
    let mut out = vec![0.0; model.dim];
    for w in &trace.iterates {
        for (o, g) in out.iter_mut().zip(empirical_gradient(model, data, w)) {
            *o += g * g / t;
        }
    }
    out
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// The empirical Bernstein margin (Maurer & Pontil 2009, Thm. 4) of i.i.d. samples in
/// `[0, range]` at level `a`: `√(2V ln(2/a)/N) + 7·range·ln(2/a)/(3(N − 1))`.
fn bernstein_margin(xs: &[f64], range: f64, a: f64) -> f64 {
    let n = xs.len() as f64;
    let m = mean(xs);
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    let l = (2.0 / a).ln();
    (2.0 * v * l / n).sqrt() + 7.0 * range * l / (3.0 * (n - 1.0))
}

// ---------------------------------------------------------------------------------------------
// Theorem 4 (DP-GD, η = 1/L)
// ---------------------------------------------------------------------------------------------

/// Theorem 4, corrected (erratum 4): `(1/T) Σ_t E‖∇f̂(w_t)‖² ≤ 2L(f̂(w_1) − f*)/T + pσ²`
/// (`dp_gd_empirical_bound`, f* = 0), η = 1/L, on two instances; four assertions at level
/// a = 2.5e-7 each (total false failure ≤ 1e-6).
///
/// * Tight instance: 3 zero records, p = 50, w_1 = 0.3·𝟙, T = 10, σ = 0.12, 200 seeds →
///   N = 10⁴ per-coordinate samples in `[0, G_∞²]` (module doc). Near its minimiser 0 the loss has
///   curvature exactly L (`φ″(0) = 2`), where both terms of the bound are nearly attained: a
///   gradient step at η = 1/L decreases f̂ by about `‖∇f̂‖²/(2L)` and the noise-driven stationary
///   `E‖∇f̂‖²` is about pσ². Measured per coordinate: mean 0.0389, corrected bound 0.0474,
///   margin 0.0019 → holds (ratio 0.82).
///   - Printed eq. (56) (`L` instead of `2L`): 0.0309. The test asserts it FAILS in expectation:
///     `X̄ − margin > printed` (a level-2.5e-7 certificate that `E X` exceeds it).
///   - Broken implementation, noise doubled (σ' = 2σ, e.g. a replace-one factor applied twice),
///     judged against the bound for σ: mean 0.0710, `X̄ − margin > bound`, flagged.
/// * Generic instance: n = 200 records uniform on {−1, 0, 2}, p = 4, w_1 = (1, −1.5, 0.5, 2.5),
///   T = 20, σ = 0.1, 400 seeds, per-run samples in `[0, G²]` (`G² = 1.69`). Measured: mean
///   0.0562, corrected bound 0.5116 (ratio 0.11), margin 0.159. The printed form also holds here
///   (0.2758; ratio 0.20): the gap `f̂(w_1) − f*` contains `min f̂ ≈ 0.42p`, which DP-GD cannot
///   remove, so the bound is loose wherever `min f̂ > f*`.
#[test]
fn stat_dpagd_theorem4_dp_gd_empirical_bound_holds_and_printed_constant_fails() {
    let a = 2.5e-7;
    // tight instance
    let (p, t, u, sigma, runs) = (50usize, 10u64, 0.3, 0.12, 200u64);
    let data = zero_data(3, p);
    let model = SeparableNonConvex { dim: p };
    let w1 = vec![u; p];
    let settings = RunSettings::full_batch(t, std_noise(sigma)).unwrap().with_x0(w1.clone()).unwrap();
    let cfg = Algorithm1Config::new(Moments::Gd, dp_gd_empirical_step(), model.gradient_bound(), settings).unwrap();
    let inputs = EmpiricalInputs { steps_t: t, loss_gap: empirical_loss(&model, &data, &w1), dim_p: p as u64, sigma };
    let corrected = dp_gd_empirical_bound(L, &inputs).unwrap() / p as f64;
    let printed = dp_gd_empirical_bound_printed(L, &inputs).unwrap() / p as f64;
    let xs: Vec<f64> =
        (0..runs).flat_map(|r| per_coordinate_lhs(&model, &data, &run(&model, &data, &cfg, 100 + r).0)).collect();
    let (m, margin) = (mean(&xs), bernstein_margin(&xs, G_INF_SQ, a));
    let doubled = Algorithm1Config {
        settings: RunSettings { privacy: std_noise(2.0 * sigma), ..cfg.settings.clone() },
        ..cfg.clone()
    };
    let xs2: Vec<f64> =
        (0..runs).flat_map(|r| per_coordinate_lhs(&model, &data, &run(&model, &data, &doubled, 100 + r).0)).collect();
    let (m2, margin2) = (mean(&xs2), bernstein_margin(&xs2, G_INF_SQ, a));
    eprintln!(
        "Thm 4 tight (per coordinate): mean {m:.5} ± {margin:.5}, corrected {corrected:.5} (ratio {:.3}), \
         printed {printed:.5}; noise x2 mean {m2:.5} ± {margin2:.5}",
        m / corrected
    );
    assert!(m <= corrected + margin, "Theorem 4 fails: mean {m} > {corrected} + {margin}");
    assert!(m - margin > printed, "printed eq. (56) not violated: mean {m} - {margin} <= {printed}");
    assert!(m2 - margin2 > corrected, "noise x2 not flagged: {m2} - {margin2} <= {corrected}");

    // generic instance
    let (n, p, t, sigma, runs) = (200usize, 4usize, 20u64, 0.1, 400u64);
    let data = random_data(n, p, 5);
    let model = SeparableNonConvex { dim: p };
    let w1 = vec![1.0, -1.5, 0.5, 2.5];
    let settings = RunSettings::full_batch(t, std_noise(sigma)).unwrap().with_x0(w1.clone()).unwrap();
    let cfg = Algorithm1Config::new(Moments::Gd, dp_gd_empirical_step(), model.gradient_bound(), settings).unwrap();
    let inputs = EmpiricalInputs { steps_t: t, loss_gap: empirical_loss(&model, &data, &w1), dim_p: p as u64, sigma };
    let corrected = dp_gd_empirical_bound(L, &inputs).unwrap();
    let printed = dp_gd_empirical_bound_printed(L, &inputs).unwrap();
    let xs: Vec<f64> = (0..runs)
        .map(|r| per_coordinate_lhs(&model, &data, &run(&model, &data, &cfg, 500 + r).0).iter().sum())
        .collect();
    let g2 = model.gradient_bound().powi(2);
    let (m, margin) = (mean(&xs), bernstein_margin(&xs, g2, a));
    eprintln!(
        "Thm 4 generic: mean {m:.5} ± {margin:.5}, corrected {corrected:.5} (ratio {:.3}), printed {printed:.5} \
         (ratio {:.3})",
        m / corrected,
        m / printed
    );
    assert!(m <= corrected + margin, "Theorem 4 fails (generic): mean {m} > {corrected} + {margin}");
}

/// η = 1/L of Theorem 4.
fn dp_gd_empirical_step() -> f64 {
    1.0 / L
}

// ---------------------------------------------------------------------------------------------
// Theorem 5 (DP-RMSProp)
// ---------------------------------------------------------------------------------------------

/// Theorem 5, corrected (notes §4.7): under `η ≤ ν/(2L)`, `1 − β2 ≤ ν²/(16G²)` and an inactive
/// cap, `(1/T) Σ_t E‖∇f̂(w_t)‖² ≤ 4(√(β2λ) + ν)[(f̂(w_1) − f*)/(ηT) + pσ²/(2ν)]`
/// (`rmsprop_empirical_bound`, which refuses parameters violating the hypotheses).
///
/// Instance: 10 zero records, p = 50 (G² = 21.1), ν = 0.5, β2 = 1 − ν²/(16G²) = 0.99926,
/// η = ν/(2L), T = 100, σ = 0.05, w_1 = 0.3·𝟙, 200 seeds → 10⁴ per-coordinate samples.
/// The cap: `ψ_{t,i} = (1 − β2)Σ_j β2^{t−j} g̃_{j,i}² ≤ (1 − β2^T)·max_j g̃_{j,i}²` and
/// `|g̃_{j,i}| ≤ G_∞ + |b_{j,i}|`, so λ := `(1 − β2^T)(G_∞ + 8σ)²` = 0.079 is never reached
/// unless some `|b_{j,i}| > 8σ`: probability ≤ 200·100·50·P(|Z| > 8) = 1.2e-9. The test checks
/// `max_t ψ_t ≤ λ` on every run (recomputed from the released `g̃_t`), so the theorem applies.
/// Mean margin at a = 4e-7, twin margin at a = 4e-7 (total ≤ 1e-6 with the cap event).
///
/// Measured per coordinate: mean 0.00493, corrected bound 0.0284 (ratio 0.17), margin 0.0015.
/// The printed eq. (63) (`2pσ²` in place of `pσ²/(2ν)`) is larger here (0.0362, ν > 1/4) and
/// holds; with ν < 1/4 it is smaller but still held in exploration (ν = 0.2: mean 0.0091 vs
/// printed 0.0421). Broken implementation: the noise put on the sum and never divided by n
/// (σ' = nσ = 10σ), judged against the bound for σ: mean 0.0613, `X̄ − margin > bound`, flagged.
#[test]
fn stat_dpagd_theorem5_dp_rmsprop_empirical_bound_holds_in_expectation() {
    let a = 4e-7;
    let (n, p, t, u, sigma, nu, runs) = (10usize, 50usize, 100u64, 0.3, 0.05, 0.5, 200u64);
    let data = zero_data(n, p);
    let model = SeparableNonConvex { dim: p };
    let g = model.gradient_bound();
    let beta2 = 1.0 - nu * nu / (16.0 * g * g);
    let eta = nu / (2.0 * L);
    let lambda = (1.0 - beta2.powi(t as i32)) * (PHI_PRIME_MAX + 8.0 * sigma).powi(2);
    let w1 = vec![u; p];
    let mut cfg = Algorithm1Config::new(
        Moments::RmsProp { beta2 },
        eta,
        g,
        RunSettings::full_batch(t, std_noise(sigma)).unwrap(),
    )
    .unwrap();
    cfg.nu = nu;
    cfg.lambda = lambda;
    cfg.settings.x0 = Some(w1.clone());
    let inputs = EmpiricalInputs { steps_t: t, loss_gap: empirical_loss(&model, &data, &w1), dim_p: p as u64, sigma };
    let step = AdaptiveStep { step_size_eta: eta, nu, lambda, smoothness_l: L };
    let corrected = rmsprop_empirical_bound(&step, beta2, g, &inputs).unwrap() / p as f64;
    let printed = rmsprop_empirical_bound_printed(&step, beta2, g, &inputs).unwrap() / p as f64;
    let collect = |cfg: &Algorithm1Config, check_cap: bool| -> Vec<f64> {
        (0..runs)
            .flat_map(|r| {
                let (trace, _) = run(&model, &data, cfg, 2000 + r);
                if check_cap {
                    let mut psi = vec![0.0; p];
                    for gt in &trace.noisy_gradients {
                        for (s, x) in psi.iter_mut().zip(gt) {
                            *s = beta2 * *s + (1.0 - beta2) * x * x;
                            assert!(*s <= lambda, "the cap is active (psi {s} > lambda {lambda}), seed {r}");
                        }
                    }
                }
                per_coordinate_lhs(&model, &data, &trace)
            })
            .collect()
    };
    let xs = collect(&cfg, true);
    let (m, margin) = (mean(&xs), bernstein_margin(&xs, G_INF_SQ, a));
    let on_sum = Algorithm1Config {
        settings: RunSettings { privacy: std_noise(n as f64 * sigma), ..cfg.settings.clone() },
        ..cfg.clone()
    };
    let xs2 = collect(&on_sum, false);
    let (m2, margin2) = (mean(&xs2), bernstein_margin(&xs2, G_INF_SQ, a));
    eprintln!(
        "Thm 5 (per coordinate): mean {m:.5} ± {margin:.5}, corrected {corrected:.5} (ratio {:.3}), printed \
         {printed:.5}; noise on the sum (x{n}) mean {m2:.5} ± {margin2:.5}",
        m / corrected
    );
    assert!(m <= corrected + margin, "Theorem 5 fails: mean {m} > {corrected} + {margin}");
    assert!(m2 - margin2 > corrected, "noise x n not flagged: {m2} - {margin2} <= {corrected}");
}

// ---------------------------------------------------------------------------------------------
// Theorem 6 (DP-Adam)
// ---------------------------------------------------------------------------------------------

/// Theorem 6, explicit form (67) with the corrected `2α²` (notes §4.7): with probability ≥ 1 − β
/// over the noise, `(1/T) Σ_t ‖∇f̂(w_t)‖² ≤ ((√λ+ν)/(1−β1))[2(f̂(w_1) − f̂(w_{T+1}))/(ηT) +
/// 2α²/((1−β1)ν)]`, `α = √p μσ`, `μ = √(2 ln(2pT/β))` (`mu_for_failure_probability_empirical`).
/// `bounds::dpagd` has no separate Theorem 6 function; (67) is the DP-Adam descent bound
/// `adam_descent_bound` with f → f̂ and Δ_t → b_t (the proof is the same, deterministic given
/// `max_t ‖b_t‖ ≤ α`, whose probability is ≥ 1 − β by Lemma 3 and a union over t).
///
/// Instance: n = 200 records uniform on {−1, 0, 2}, p = 4, w_1 = (1, −1.5, 0.5, 2.5), β1 = 0.5,
/// β2 = 0.99, ν = 0.5, λ = 1, η at the corrected cap, T = 50, σ = 0.01, β = 0.1, 300 seeds.
/// * High-probability form: the number of runs violating the bound must stay below the smallest
///   c with `P(Bin(300, 0.1) ≥ c) ≤ 1e-6` (c = 58; false failure ≤ 1e-6). Measured: 0
///   violations, max ratio 0.081: the bound is loose, its noise term `2α²(√λ+ν)/((1−β1)²ν)`
///   uses `α² = pμ²σ²` with μ² = 2 ln(2pT/β) = 16.6 (σ = 0.05 made the noise term dominate so
///   much that even the sign-error twin below stayed under it; σ = 0.01 keeps the gap term in
///   play).
/// * Deterministic form: with `α² = max_t ‖b_t‖²` measured on the run (b_t = g̃_t − ∇f̂(w_t)),
///   the bound holds on every run (measured max ratio 0.098). The printed `α²` form also held
///   (max ratio 0.090).
/// * Broken implementation: a sign error in line 6 (`w_{t+1} = w_t + η m_t ⊘ (√v_t + ν)`),
///   reproduced with the optimiser's own `MomentState::step` at −η and driven by the same noise
///   draws b_t (the noise stream does not depend on the data or the iterates): f̂ increases, the
///   gap term turns negative, and the bound is violated on at least the binomial limit of runs
///   (measured: 300 of 300).
#[test]
fn stat_dpagd_theorem6_dp_adam_empirical_bound_with_high_probability() {
    let (n, p, t, sigma, runs, beta) = (200usize, 4usize, 50u64, 0.01, 300u64, 0.1);
    let (beta1, beta2, nu, lambda) = (0.5, 0.99, 0.5, 1.0);
    let data = random_data(n, p, 6);
    let model = SeparableNonConvex { dim: p };
    let eta = adam_step_size_cap(beta1, nu, L).unwrap();
    let moments = Moments::Adam { beta1, beta2 };
    let mut cfg = Algorithm1Config::new(
        moments,
        eta,
        model.gradient_bound(),
        RunSettings::full_batch(t, std_noise(sigma)).unwrap(),
    )
    .unwrap();
    cfg.nu = nu;
    cfg.lambda = lambda;
    let w1 = vec![1.0, -1.5, 0.5, 2.5];
    cfg.settings.x0 = Some(w1.clone());
    let mu = mu_for_failure_probability_empirical(p as u64, t, beta).unwrap();
    let alpha_sq = p as f64 * mu * mu * sigma * sigma;
    let step = AdaptiveStep { step_size_eta: eta, nu, lambda, smoothness_l: L };
    let f1 = empirical_loss(&model, &data, &w1);
    let bound = |decrease: f64, noise_sq: f64| {
        adam_descent_bound(&step, beta1, &DescentInputs { steps_t: t, loss_decrease: decrease, noise_sq }).unwrap()
    };
    let (mut violations, mut twin_violations) = (0u64, 0u64);
    let (mut worst, mut worst_measured, mut worst_printed) = (0.0f64, 0.0f64, 0.0f64);
    for r in 0..runs {
        let (trace, w_last) = run(&model, &data, &cfg, 3000 + r);
        let (mut lhs, mut max_b, mut noise) = (0.0, 0.0f64, Vec::new());
        for (w, gt) in trace.iterates.iter().zip(&trace.noisy_gradients) {
            let g = empirical_gradient(&model, &data, w);
            lhs += sq(&g) / t as f64;
            let b: Vec<f64> = gt.iter().zip(&g).map(|(x, y)| x - y).collect();
            max_b = max_b.max(sq(&b));
            noise.push(b);
        }
        let decrease = f1 - empirical_loss(&model, &data, &w_last);
        let rhs = bound(decrease, alpha_sq);
        violations += u64::from(lhs > rhs);
        worst = worst.max(lhs / rhs);
        let measured = bound(decrease, max_b);
        assert!(lhs <= measured * (1.0 + 1e-9), "deterministic (67) fails on seed {r}: {lhs} > {measured}");
        worst_measured = worst_measured.max(lhs / measured);
        let printed = adam_descent_bound_printed(
            &step,
            beta1,
            &DescentInputs { steps_t: t, loss_decrease: decrease, noise_sq: alpha_sq },
        )
        .unwrap();
        worst_printed = worst_printed.max(lhs / printed);
        // the sign-error twin, driven by the same noise draws
        let mut state = MomentState::new(p);
        let (mut w, mut w_next, mut twin_lhs) = (w1.clone(), vec![0.0; p], 0.0);
        for b in &noise {
            let g = empirical_gradient(&model, &data, &w);
            twin_lhs += sq(&g) / t as f64;
            let g_tilde: Vec<f64> = g.iter().zip(b).map(|(x, y)| x + y).collect();
            state.step(moments, -eta, nu, lambda, &w, &g_tilde, &mut w_next);
            std::mem::swap(&mut w, &mut w_next);
        }
        twin_violations += u64::from(twin_lhs > bound(f1 - empirical_loss(&model, &data, &w), alpha_sq));
    }
    let limit = (0..=runs).find(|&c| binomial_upper_tail(runs, beta, c) <= 1e-6).unwrap();
    eprintln!(
        "Thm 6: violations {violations}/{runs} (limit {limit}), max ratio {worst:.4}, with measured max noise \
         {worst_measured:.4}, printed alpha^2 {worst_printed:.4}; sign-error twin violations {twin_violations}"
    );
    assert!(violations < limit, "Theorem 6 violated on {violations} of {runs} runs (limit {limit})");
    assert!(twin_violations >= limit, "sign-error twin not flagged: {twin_violations} < {limit}");
}

// ---------------------------------------------------------------------------------------------
// Item 23: rate sanity
// ---------------------------------------------------------------------------------------------

/// Notes §6.3 item 23, DP-GD with the §2.3 population parameters: η = 1/(4L), n = 1000 records
/// uniform on {−1, 0, 2}, p = 4, δ = 1e-5, T = nε√L/(G√(p ln(1/δ))) at ε = 2 (T = 321), fixed for
/// all ε; σ from the zCDP calibration (`zcdp_sufficient_sigma`, replace-one Δ = 2G/n) for
/// ε ∈ {0.5, 2, 8}; w_1 = (1, −1.5, 0.5, 2.5), `‖∇f(w_1)‖² = 0.218` (population gradient,
/// exact). 200 paired seeds: seed r runs all three ε with the same noise draws (scaled by σ).
///
/// Claims, each a one-sided sign test against "no effect" (win probability ≤ 1/2): the count of
/// seeds with `Y(ε_small) > Y(ε_large)`, `Y = (1/T) Σ_t ‖∇f(w_t)‖²`, must be ≥ c = the smallest
/// count with `P(Bin(200, 1/2) ≥ c) ≤ 1e-6` (c = 134), for (0.5, 2) and (2, 8); and at ε = 8 the
/// count of seeds with `‖∇f(w_{T+1})‖² < ‖∇f(w_1)‖²` must be ≥ c. Measured: 200/200, 189/200
/// and 200/200; means of Y 0.0288, 0.0160, 0.0150 (ε = 0.5, 2, 8). The (2, 8) effect is the
/// weakest because Y averages the whole trajectory and its transient from w_1 is the same at
/// both ε; at n = 500 (T = 160) only 71/100 seeds won, so n = 1000 with 200 seeds is used.
///
/// False failure. Each count is Bin(200, π) for its true win rate π (seeds independent), and
/// fails with probability `P(Bin(200, π) < c)`, which is ≤ (1e-6 − p_twin)/3 for every π ≥ π0
/// (computed on a 0.001 grid and printed: π0 = 0.825, with p_twin = 8.7e-7 below). π itself is
/// not known a priori; it is bounded from 400 independent seeds, the test's 200 and a pilot on
/// seeds 5000..5199 (run once with this code, not part of the test): the weakest claim, (2, 8),
/// won 189/200 and 186/200, i.e. 375/400, whose one-sided Clopper–Pearson lower bound at level
/// 1e-6 is π ≥ 0.861 ≥ π0 (mpmath; the other two claims won 400/400, bound 0.966). The
/// printed Clopper–Pearson bounds (`audit::binomial::clopper_pearson_lower`) are those of the
/// test's 200 seeds alone (0.933, 0.830, 0.933). The total is ≤ 1e-6 given π ≥ π0.
///
/// Broken calibration twin: σ fixed at the ε = 2 calibration for every ε. With the paired
/// seeds its three runs of a seed are bit-identical (no strict win, 0 < c); the twin asserted
/// here is the harder case for the test, where the "other ε" run of the broken calibration
/// draws independent noise (seeds 1100..1299, σ(ε = 2)) and is compared with the ε = 2 runs:
/// each pair is exchangeable, so its win count is exactly Bin(200, 1/2) and reaches c with
/// probability `p_twin = P(Bin(200, 1/2) ≥ c)` ≤ 1e-6 (printed). Asserted: the twin's count is
/// below c, i.e. the sign test rejects a calibration that ignores ε (measured: 95 of 200; the
/// pilot's twin, seeds 5000.. against 1100.., 88). The twin's 200 extra runs cost 1.6–2.7 s
/// (this file: 5.0 s before, 6.6–7.7 s now, warm, on 2 shared cores).
#[test]
fn stat_dpagd_rates_gradient_decreases_with_epsilon_and_falls_below_the_start() {
    let (n, p, delta, runs) = (1000usize, 4usize, 1e-5, 200u64);
    let data = random_data(n, p, 23);
    let model = SeparableNonConvex { dim: p };
    let support = [-1.0, 0.0, 2.0];
    let g = model.gradient_bound();
    let t = (n as f64 * 2.0 * L.sqrt() / (g * (p as f64 * (1.0f64 / delta).ln()).sqrt())).round() as u64;
    let w1 = vec![1.0, -1.5, 0.5, 2.5];
    let pop_sq = |w: &[f64]| sq(&model.population_gradient(w, &support));
    let start = pop_sq(&w1);
    let sensitivity = full_batch_sensitivity(g, n as u64, Neighbouring::ReplaceOne).unwrap();
    // σ(ε), or σ(ε = 2) for every ε (the broken calibration); runs of the seeds `first..first + runs`
    let run_all = |eps: f64, first: u64| -> Vec<(f64, f64)> {
        let sigma = zcdp_sufficient_sigma(t, sensitivity, eps, delta).unwrap();
        let mut cfg = Algorithm1Config::new(
            Moments::Gd,
            dp_gd_step_size(L).unwrap(),
            g,
            RunSettings::full_batch(t, std_noise(sigma)).unwrap(),
        )
        .unwrap();
        cfg.settings.x0 = Some(w1.clone());
        // the seeds' runs are independent: run them in parallel (collected in seed order)
        (0..runs)
            .into_par_iter()
            .map(|r| {
                let (trace, last) = run(&model, &data, &cfg, first + r);
                (trace.iterates.iter().map(|w| pop_sq(w)).sum::<f64>() / t as f64, pop_sq(&last))
            })
            .collect()
    };
    let results: Vec<Vec<(f64, f64)>> = [0.5, 2.0, 8.0].iter().map(|&eps| run_all(eps, 900)).collect();
    // the broken calibration's "other ε" run: σ(ε = 2) on independent seeds
    let twin = run_all(2.0, 1100);
    let c = (0..=runs).find(|&k| binomial_upper_tail(runs, 0.5, k) <= 1e-6).unwrap();
    let p_twin = binomial_upper_tail(runs, 0.5, c);
    let budget = (1e-6 - p_twin) / 3.0;
    // the smallest win rate (on a 0.001 grid) at which a claim fails with probability ≤ budget
    let pi0 =
        (500..=1000).map(|i| f64::from(i) / 1000.0).find(|&pi| binomial_lower_tail(runs, pi, c - 1) <= budget).unwrap();
    let wins = |a: &[(f64, f64)], b: &[(f64, f64)]| a.iter().zip(b).filter(|(x, y)| x.0 > y.0).count() as u64;
    let (w_low, w_high) = (wins(&results[0], &results[1]), wins(&results[1], &results[2]));
    let w_twin = wins(&twin, &results[1]);
    let below = results[2].iter().filter(|x| x.1 < start).count() as u64;
    let means: Vec<f64> = results.iter().map(|r| r.iter().map(|x| x.0).sum::<f64>() / runs as f64).collect();
    let cp = |k: u64| clopper_pearson_lower(k, runs, 1e-6).unwrap();
    eprintln!(
        "item 23: T = {t}, |grad f(w_1)|^2 = {start:.4}, means {means:.5?}; wins (0.5,2) {w_low}, (2,8) {w_high}, \
         last < start at eps 8: {below} of {runs}; c = {c}, pi0 = {pi0}, Clopper-Pearson lower bounds {:.4} {:.4} \
         {:.4}; broken calibration twin wins {w_twin} (p_twin {p_twin:.2e})",
        cp(w_low),
        cp(w_high),
        cp(below)
    );
    // π ≥ 0.861 (Clopper–Pearson, 400 seeds; see the doc) must cover the π0 the budget needs
    assert!(pi0 <= 0.861, "the documented lower bound on the win rate does not reach pi0 = {pi0}");
    assert!(w_low >= c, "eps 0.5 -> 2 did not reduce the gradient: {w_low} < {c}");
    assert!(w_high >= c, "eps 2 -> 8 did not reduce the gradient: {w_high} < {c}");
    assert!(below >= c, "DP-GD at eps 8 did not end below the start: {below} < {c}");
    assert!(w_twin < c, "the sign test passes a calibration that ignores eps: {w_twin} >= {c}");
}
