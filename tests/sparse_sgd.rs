//! \[GGKKM\] Algorithm 6 (bias-reduced sparse SGD with a privacy filter): the notes' properties
//! B7 (ledger per step, filter prefix, total; data-independent stopping; iterates in X; average
//! or uniform output), B8 (Props. B.1 and B.2 pathwise along real trajectories with adversarial
//! biased oracles), D5 (Lemma 6.5 on the simulated stopping time), the notes' §2.6 simulated
//! table, a privacy audit of one step with an exact check of the wrong-n twin, and typed
//! refusals (proofs/sparse/bias_reduced_sgd.md §6).

mod common;

use common::sparse_data::{logistic_risk, logistic_risk_lower_bound_on_ball, sparse_data};
use dpref::accounting::approx_dp::ApproxDpAccountant;
use dpref::accounting::composition::ApproxDp;
use dpref::accounting::{DpEvent, Neighbouring, gdp};
use dpref::audit::{AuditSettings, FnMechanism, Mechanism, ThresholdStrategy, epsilon_lower_bound, sample_scores};
use dpref::bounds::sparse::lemma65_expected_stopping_time_printed;
use dpref::data::sparse::SparseDataset;
use dpref::error::{Error, Result};
use dpref::geometry::Domain;
use dpref::loss::Loss;
use dpref::model::SparseGlm;
use dpref::optim::release::epsilon_delta::FilteredSteps;
use dpref::optim::sparse::{
    BiasReducedSgdConfig, Convexity, GaussianRecord, MeanMechanism, ProjectionMechanismConfig, StoppingRule,
    horizon_tau, step_cost_c, stopping_time,
};
use dpref::optim::{PrivateRelease, Trace};
use dpref::rng::{DpRng, Seeds, Stream};
use rand::RngExt;

fn config(convexity: Convexity, domain: Domain) -> BiasReducedSgdConfig {
    BiasReducedSgdConfig::new(1.0, 2, 1.0, 1e-6, 0.05, domain, convexity).unwrap()
}

/// The run's event split into (filter's steps, target, the steps after it).
#[allow(clippy::type_complexity)]
fn split_run_event(event: &DpEvent) -> (Vec<DpEvent>, (f64, f64, f64), Vec<DpEvent>) {
    let (filter, rest) = match event {
        DpEvent::Composed(parts) => (&parts[0], parts[1..].to_vec()),
        other => (other, Vec::new()),
    };
    match filter {
        DpEvent::PrivacyFilter { target_epsilon, delta_prime, delta_double_prime, steps } => {
            (steps.clone(), (*target_epsilon, *delta_prime, *delta_double_prime), rest)
        }
        other => panic!("expected a filter first, found {}", other.describe()),
    }
}

/// B7, the ledger. n = 64, d = 8, s = 2, logistic loss, ε = 1, δ = 1e-6, X = B₂(0, 1). Each
/// recorded step, read by the approximate-DP accountant, costs at most Lemma 6.3's
/// (c(N_t)ε, c(N_t)δ) ≤ (ε/4, δ/4); the filter covers all but the last two steps (the paper's
/// lagged loop) with target (ε/2, δ/4 + δ/4); the total is ≤ (ε, δ). The checked-first variant
/// covers every step and totals ≤ (ε/2, δ/2). Both reports equal the accountant's reading.
#[test]
fn exact_b7_sparse_sgd_ledger_per_step_prefix_and_total_within_budget() {
    let data = sparse_data(64, 8, 2, 1.0, 1);
    let glm = SparseGlm { loss: Loss::Logistic, data: &data };
    let acc = ApproxDpAccountant::new(Neighbouring::ReplaceOne);
    for (rule, seed) in [(StoppingRule::Lagged, 3u64), (StoppingRule::CheckedFirst, 4)] {
        let cfg = config(Convexity::Convex, Domain::L2Ball { radius: 1.0 }).with_stopping(rule);
        let run = cfg.run(glm, &[0.0; 8], Seeds::new(seed), &mut Trace::default()).unwrap();
        let event = run.accounted.events.as_event().unwrap();
        let (filtered, (target, dp, dpp), rest) = split_run_event(&event);
        assert_eq!(filtered.len(), run.filtered_steps);
        assert_eq!(filtered.len() + rest.len(), run.steps as usize);
        assert_eq!((target, dp, dpp), (0.5, 1e-6 / 4.0, 1e-6 / 4.0));
        for (t, step) in filtered.iter().chain(&rest).enumerate() {
            let c = step_cost_c(64, run.levels[t]);
            let cost = acc.cost(step).unwrap();
            assert!(cost.epsilon <= c * 1.0 && cost.delta <= c * 1e-6, "step {t}: {cost:?} vs c = {c}");
            assert!(c <= 0.25, "c(N) = {c} > 1/4");
        }
        let (pe, pd) = (run.accounted.privacy.epsilon.unwrap(), run.accounted.privacy.delta.unwrap());
        let mut whole = ApproxDpAccountant::new(Neighbouring::ReplaceOne);
        whole.compose(&event, 1).unwrap();
        assert_eq!(whole.total(), ApproxDp { epsilon: pe, delta: pd });
        match rule {
            StoppingRule::Lagged => {
                assert_eq!(rest.len(), 2, "the lagged loop runs two steps past the filter");
                assert!(pe <= 1.0 && pd <= 1e-6, "total ({pe}, {pd}) above (1, 1e-6)");
                assert!(pe > 0.5, "the two extra steps are charged: {pe}");
            }
            StoppingRule::CheckedFirst => {
                assert!(rest.is_empty());
                assert!(pe <= 0.5 && pd <= 0.5e-6, "total ({pe}, {pd}) above (1/2, 5e-7)");
                assert_eq!((pe, pd), (0.5, 0.5e-6), "the filter's target, exactly (exact sums are not rounded)");
            }
        }
        eprintln!("{rule:?}: T + 1 = {}, filtered {}, reported ({pe}, {pd:e})", run.steps, run.filtered_steps);
    }
}

/// B7, data independence: the same seed on two different datasets (and on the stopping rule
/// alone, [`stopping_time`]) gives the same levels N_t, so the same T.
#[test]
fn exact_b7_sparse_sgd_stopping_time_is_data_independent() {
    let (a, b) = (sparse_data(128, 6, 2, 1.0, 5), sparse_data(128, 6, 2, 1.0, 6));
    let cfg = config(Convexity::Convex, Domain::Unconstrained);
    for seed in 0..5u64 {
        let ra =
            cfg.run(SparseGlm { loss: Loss::Logistic, data: &a }, &[0.0; 6], Seeds::new(seed), &mut Trace::default());
        let rb =
            cfg.run(SparseGlm { loss: Loss::Logistic, data: &b }, &[0.0; 6], Seeds::new(seed), &mut Trace::default());
        let (ra, rb) = (ra.unwrap(), rb.unwrap());
        assert_eq!(ra.levels, rb.levels, "seed {seed}");
        let alone = stopping_time(128, 1.0, 1e-6, StoppingRule::Lagged, Seeds::new(seed)).unwrap();
        assert_eq!(alone.levels, ra.levels);
        assert_eq!(alone.filtered_steps, ra.filtered_steps);
        let touched: Vec<usize> = ra.levels.iter().map(|&n| (1usize << (n + 1)) + 1).collect();
        assert_eq!(ra.examples_touched, touched);
    }
}

/// B7, outputs: every iterate lies in X = B₂(0, 0.3) (a radius the steps reach); the convex run
/// returns the average of x⁰..x^T (the observer's iterates), the nonconvex one x^{t̂}.
#[test]
fn exact_b7_sparse_sgd_iterates_in_domain_average_or_uniform_output() {
    let data = sparse_data(64, 8, 2, 1.0, 7);
    let glm = SparseGlm { loss: Loss::Logistic, data: &data };
    let domain = Domain::L2Ball { radius: 0.3 };
    let mut cfg = config(Convexity::Convex, domain.clone());
    cfg.step_size_eta = 1.0;
    let mut trace = Trace::default();
    let run = cfg.run(glm, &[0.0; 8], Seeds::new(8), &mut trace).unwrap();
    assert_eq!(trace.iterates.len() as u64, run.steps);
    assert!(trace.iterates.iter().chain([&run.x_last]).all(|x| domain.contains(x)));
    let on_boundary = trace.iterates.iter().filter(|x| dpref::linalg::norm_l2(x) > 0.299).count();
    assert!(on_boundary > 0, "the projection never acted: the test would not see a missing Π_X");
    let t = run.steps as f64;
    for j in 0..8 {
        let mean = trace.iterates.iter().map(|x| x[j]).sum::<f64>() / t;
        assert!((run.x[j] - mean).abs() <= 1e-15, "coordinate {j}: {} vs {mean}", run.x[j]);
    }
    let mut cfg = config(Convexity::Nonconvex, Domain::Unconstrained);
    cfg.step_size_eta = 1.0;
    let mut trace = Trace::default();
    let run = cfg.run(glm, &[0.0; 8], Seeds::new(9), &mut trace).unwrap();
    let hat = run.output_index.unwrap() as usize;
    assert!(hat < run.steps as usize);
    assert_eq!(run.x, trace.iterates[hat]);
}

/// A trajectory: (x^t, g_t) per step.
type Path = Vec<(Vec<f64>, Vec<f64>)>;

/// A risk oracle: x ↦ (F(x), ∇F(x)).
type Risk<'a> = &'a dyn Fn(&[f64]) -> (f64, Vec<f64>);

/// An adversarial biased oracle: φ(v, m) = v + c/m (no noise, a different bias per coordinate,
/// large for small batches). Through Algorithm 5's telescoping, 𝒢 = ∇f(x, z_I) + c(1 − 1/(2C_M)):
/// biased by a fixed vector. It still records one dummy claim per call (a unit Gaussian on a
/// constant), so that `FilteredSteps` can close the step; the path is deterministic given the
/// levels, B and I.
struct Biased {
    bias: Vec<f64>,
}

impl MeanMechanism for Biased {
    fn release_mean(&self, mean: Vec<f64>, m: usize, release: &mut PrivateRelease) -> Result<Vec<f64>> {
        release.release_statistic_epsilon_delta(&mut [0.0], 1.0, 1.0, 1.0)?;
        Ok(mean.iter().zip(&self.bias).map(|(v, c)| v + c / m as f64).collect())
    }
}

/// A trajectory of `steps` Algorithm 6 steps (lines 5–6) with the biased oracle, levels uniform
/// on {0..4}: (x^t, g_t) for t = 0..steps, and x^{steps}.
fn trajectory(cfg: &BiasReducedSgdConfig, glm: SparseGlm<'_>, steps: usize, seed: u64) -> (Path, Vec<f64>) {
    let mech = Biased { bias: vec![60.0, -40.0, 20.0, 10.0, -80.0, 40.0] };
    let mut filtered = FilteredSteps::new(Seeds::new(seed)).unwrap();
    let mut levels = Seeds::new(seed).stream(Stream::Init);
    let mut x = vec![0.0; 6];
    let mut out = Vec::new();
    for _ in 0..steps {
        let level = levels.random_range(0..=4u32);
        let before = x.clone();
        let step = cfg.step_with(&mut x, glm, level, &mech, &mut filtered).unwrap();
        out.push((before, step.g));
    }
    (out, x)
}

/// The linear loss's F_S(x) = (1/n)Σ yᵢ⟨zᵢ, x⟩ and its constant gradient.
fn linear_risk_and_gradient(data: &SparseDataset, x: &[f64]) -> (f64, Vec<f64>) {
    let n = data.n() as f64;
    let mut g = vec![0.0; x.len()];
    for i in 0..data.n() {
        let (idx, val) = data.row(i);
        for (&j, &v) in idx.iter().zip(val) {
            g[j] += data.label(i) * v / n;
        }
    }
    ((0..x.len()).map(|j| g[j] * x[j]).sum(), g)
}

/// The two sides of Prop. B.1 along `path` for comparator u: (Σ[F(x^t) − F(u)], the right side,
/// Σ⟨∇F(x^t) − g_t, x^t − u⟩, the size of the terms).
fn prop_b1_sides(path: &Path, u: &[f64], eta: f64, risk: Risk<'_>) -> (f64, f64, f64, f64) {
    let fu = risk(u).0;
    let d0: f64 = path[0].0.iter().zip(u).map(|(a, b)| (a - b).powi(2)).sum();
    let (mut lhs, mut rhs, mut bias_terms, mut scale) = (0.0, d0 / (2.0 * eta), 0.0, d0 / (2.0 * eta));
    for (x, g) in path {
        let (f, grad) = risk(x);
        lhs += f - fu;
        let g2: f64 = g.iter().map(|v| v * v).sum();
        let inner: f64 = (0..u.len()).map(|j| (grad[j] - g[j]) * (x[j] - u[j])).sum();
        rhs += eta / 2.0 * g2 + inner;
        bias_terms += inner;
        scale += eta / 2.0 * g2 + inner.abs() + f.abs() + fu.abs();
    }
    (lhs, rhs, bias_terms, scale)
}

/// B8, Prop. B.1 (convex, projected, any oracle, any comparator u ∈ X) pathwise along 40 steps
/// with the biased oracle: `Σ[F(x^t) − F(u)] ≤ ‖x⁰ − u‖²/(2η) + Σ[(η/2)‖g_t‖² + ⟨∇F(x^t) − g_t, x^t − u⟩]`.
/// (a) Logistic loss, X = B₂(0, 1), η = 0.07, u = 0 and u = c/(2‖c‖): the inequality, tolerance
/// 1e-9 of the terms' size (sums of 40 terms of size ≤ 1e2). (b) Power: for the linear loss on
/// X = ℝ^d both steps of the proof are equalities, so the right side minus `‖x^T − u‖²/(2η)`
/// equals the left side (to 1e-9 of the size); the twin without the bias terms (an oracle read as
/// unbiased) misses that identity by |Σ bias terms|, measured far above the tolerance.
#[test]
fn exact_b8_prop_b1_pathwise_with_adversarial_biased_oracle() {
    let data = sparse_data(64, 6, 2, 1.0, 11);
    let c = [60.0f64, -40.0, 20.0, 10.0, -80.0, 40.0];
    let norm = c.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut cfg = config(Convexity::Convex, Domain::L2Ball { radius: 1.0 });
    cfg.step_size_eta = 0.07;
    let (path, _) = trajectory(&cfg, SparseGlm { loss: Loss::Logistic, data: &data }, 40, 12);
    assert!(path.iter().all(|(x, _)| Domain::L2Ball { radius: 1.0 }.contains(x)));
    for u in [vec![0.0; 6], c.iter().map(|v| 0.5 * v / norm).collect()] {
        let (lhs, rhs, bias, scale) = prop_b1_sides(&path, &u, cfg.step_size_eta, &|x| logistic_risk(&data, x));
        assert!(lhs <= rhs + 1e-9 * scale, "Prop. B.1: {lhs} > {rhs}");
        eprintln!("B.1 logistic: lhs {lhs:.4}, rhs {rhs:.4} (bias terms {bias:.4})");
    }
    let mut cfg = config(Convexity::Convex, Domain::Unconstrained);
    cfg.step_size_eta = 0.07;
    let (path, last) = trajectory(&cfg, SparseGlm { loss: Loss::Linear, data: &data }, 40, 15);
    let u: Vec<f64> = c.iter().map(|v| 0.5 * v / norm).collect();
    let (lhs, rhs, bias, scale) = prop_b1_sides(&path, &u, cfg.step_size_eta, &|x| linear_risk_and_gradient(&data, x));
    let remainder: f64 = last.iter().zip(&u).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / (2.0 * cfg.step_size_eta);
    let tol = 1e-9 * (scale + remainder);
    assert!(lhs <= rhs + tol);
    assert!((lhs - (rhs - remainder)).abs() <= tol, "identity: {lhs} vs {}", rhs - remainder);
    assert!(bias.abs() > 1e3 * tol, "the twin without the bias terms is not distinguishable: {bias}");
    eprintln!("B.1 linear: lhs {lhs:.6} = rhs - remainder {:.6}; bias terms {bias:.4}", rhs - remainder);
}

/// B8, Prop. B.2 (H-smooth F, unconstrained SGD, any oracle) pathwise along 40 steps with the
/// biased oracle: `Σ‖∇F(x^t)‖² ≤ (F(x⁰) − F(x^T))/η + (ηH/2)Σ‖g_t‖² − Σ⟨∇F(x^t), g_t − ∇F(x^t)⟩`,
/// H = max‖z_i‖²/4 = 1/4 (logistic, ‖z‖ ≤ 1), η = 0.05 ≤ 1/(2H). Twin: the cross term dropped
/// (reading the oracle as unbiased) fails on the same path.
#[test]
fn exact_b8_prop_b2_pathwise_smooth_unconstrained() {
    let data = sparse_data(64, 6, 2, 1.0, 13);
    let glm = SparseGlm { loss: Loss::Logistic, data: &data };
    let mut cfg = config(Convexity::Nonconvex, Domain::Unconstrained);
    cfg.step_size_eta = 0.05;
    let (path, last) = trajectory(&cfg, glm, 40, 14);
    let h = 0.25;
    let (mut lhs, mut sq, mut cross, mut scale) = (0.0, 0.0, 0.0, 0.0);
    for (x, g) in &path {
        let grad = logistic_risk(&data, x).1;
        lhs += grad.iter().map(|v| v * v).sum::<f64>();
        sq += g.iter().map(|v| v * v).sum::<f64>();
        let c: f64 = (0..6).map(|j| grad[j] * (g[j] - grad[j])).sum();
        cross += c;
        scale += c.abs();
    }
    let (f0, ft) = (logistic_risk(&data, &path[0].0).0, logistic_risk(&data, &last).0);
    let eta = cfg.step_size_eta;
    let rhs = (f0 - ft) / eta + eta * h / 2.0 * sq - cross;
    let tol = 1e-9 * (scale + eta * h * sq + (f0.abs() + ft.abs()) / eta);
    assert!(lhs <= rhs + tol, "Prop. B.2: {lhs} > {rhs}");
    assert!(lhs > rhs + cross + tol, "the twin without the cross term passes: {lhs} <= {}", rhs + cross);
    eprintln!("B.2: lhs {lhs:.5}, rhs {rhs:.5}, twin without the cross term {:.5}", rhs + cross);
}

/// The simulated stopping time (ε = 1, the paper's loop) at one row of the notes' table. T is
/// the loop's final t (T + 1 steps).
struct Simulated {
    n: usize,
    delta: f64,
    /// The table's E[T] and P[T ≤ 0.25τ].
    table: (f64, f64),
    /// Our replications.
    reps: u64,
    /// Mean and standard deviation of T.
    mean: f64,
    sd: f64,
    /// P[T ≤ 0.25τ] with τ = n/ln(2/δ), and P[T ≤ τ_{C′=1/4}].
    p_quarter: f64,
    p_tau: f64,
}

/// The notes' §2.6 table (pure Python, ε = 1, 2000 replications of the literal loop):
/// (n, δ, E[T], P[T ≤ 0.25τ]).
const NOTES_TABLE: [(usize, f64, f64, f64); 4] =
    [(64, 1e-6, 12.9, 0.043), (256, 1e-6, 40.9, 0.039), (1024, 9.5e-8, 129.8, 0.049), (4096, 6e-9, 444.5, 0.037)];

/// Our simulation of every row (20 000 seeds, 5 000 at n = 4096), run once for the tests that
/// read it.
fn simulated_table() -> &'static [Simulated] {
    static TABLE: std::sync::OnceLock<Vec<Simulated>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        NOTES_TABLE
            .iter()
            .map(|&(n, delta, table_t, table_p)| {
                let reps = if n == 4096 { 5_000 } else { 20_000 };
                let (tau, tau_c) = (horizon_tau(1.0, n, delta).unwrap(), horizon_tau(0.25, n, delta).unwrap());
                let (mut s, mut s2, mut below, mut below_c) = (0.0, 0.0, 0u64, 0u64);
                for r in 0..reps {
                    let trace = stopping_time(n, 1.0, delta, StoppingRule::Lagged, Seeds::new(1000 + r)).unwrap();
                    let t = (trace.steps() - 1) as f64;
                    s += t;
                    s2 += t * t;
                    below += u64::from(t <= 0.25 * tau);
                    below_c += u64::from(t <= tau_c);
                }
                let mean = s / reps as f64;
                Simulated {
                    n,
                    delta,
                    table: (table_t, table_p),
                    reps,
                    mean,
                    sd: (s2 / reps as f64 - mean * mean).sqrt(),
                    p_quarter: below as f64 / reps as f64,
                    p_tau: below_c as f64 / reps as f64,
                }
            })
            .collect()
    })
}

/// The stopping time matches the notes' simulated table within Monte Carlo error. Margin: both
/// estimates are means of i.i.d. samples; their difference has standard error
/// `se = sd·√(1/2000 + 1/R)` (sd: our sample sd, R our replications; the table's sd is the same
/// law's), and the table rounds to 0.1 (±0.05). Eight comparisons (4 means, 4 proportions), each
/// at z = 5.45 (two-sided normal tail 5e-8): false failure ≤ 8·5e-8 < 1e-6 (the CLT is accurate
/// here: T is bounded by 4n/7 + 2). For the proportions `se = √(p(1−p)(1/2000 + 1/R))` at the
/// pooled p, plus the table's rounding 5e-4. Power: measured sd(T) = 7.0, 19.7, 58, 179 give
/// margins 0.9, 2.4, 7.2, 23 (7 %, 6 %, 5.5 %, 5 % of E[T]): a stopping rule that dropped the
/// lag (one step fewer, the checked-first reading) or the ½Σε² term moves E[T] by more.
#[test]
fn stat_sparse_sgd_stopping_time_matches_notes_table() {
    const Z: f64 = 5.45;
    for row in simulated_table() {
        let (n, delta, (table_t, table_p), r) = (row.n, row.delta, row.table, row.reps);
        let (m, sd, p) = (row.mean, row.sd, row.p_quarter);
        let se = sd * (1.0 / 2000.0 + 1.0 / r as f64).sqrt();
        assert!((m - table_t).abs() <= Z * se + 0.05, "n = {n}: E[T] {m} vs table {table_t} (se {se})");
        let pooled = (p * r as f64 + table_p * 2000.0) / (r as f64 + 2000.0);
        let se_p = (pooled * (1.0 - pooled) * (1.0 / 2000.0 + 1.0 / r as f64)).sqrt();
        assert!((p - table_p).abs() <= Z * se_p + 5e-4, "n = {n}: P[T <= tau/4] {p} vs {table_p}");
        eprintln!(
            "n = {n}, delta = {delta:e}: E[T] = {m:.2} (table {table_t}, margin {:.2}), P = {p:.4} (table {table_p})",
            Z * se + 0.05
        );
    }
}

/// D5, Lemma 6.5 (0 < δ < 1/n², n a power of 2): the simulated E[T] lies in the printed
/// `[n²/((n+1) ln(4/δ)) − 1, 64n/(9 ln(4/δ))]` and `P[T ≤ τ] ≤ 1/4` at C′ = 1/4
/// (τ = n/(4 ln(2/δ))). Margins as in the table test (z = 5.45 per comparison: the interval's
/// ends are ≥ 6 standard errors from the measured means, measured: 12.65 in [3.1, 29.9] ...).
#[test]
fn stat_d5_sparse_sgd_expected_stopping_time_within_lemma_6_5() {
    const Z: f64 = 5.45;
    for row in simulated_table() {
        let (n, delta, r) = (row.n, row.delta, row.reps);
        let (m, sd, p_tau) = (row.mean, row.sd, row.p_tau);
        let (lo, hi) = lemma65_expected_stopping_time_printed(n as u64, delta).unwrap();
        let se = sd / (r as f64).sqrt();
        assert!(m - Z * se >= lo && m + Z * se <= hi, "n = {n}: E[T] {m} ± {} outside [{lo}, {hi}]", Z * se);
        let se_p = (0.25f64 * 0.75 / r as f64).sqrt();
        assert!(p_tau + Z * se_p <= 0.25, "n = {n}: P[T <= tau] = {p_tau}");
        eprintln!("n = {n}: E[T] = {m:.2} in [{lo:.1}, {hi:.1}], P[T <= tau(C' = 1/4)] = {p_tau:.4}");
    }
}

/// One step of Algorithm 6 at level N = 0 on the worst-case neighbours, as a scalar: −(x¹ − x⁰)₀/η
/// = 𝒢(x⁰)₀ with x⁰ = 0, η = 1, X = ℝ².
fn one_step(cfg: BiasReducedSgdConfig) -> impl Mechanism<Input = SparseDataset, Output = f64> {
    FnMechanism::new(move |data: &SparseDataset, rng: &mut DpRng| {
        let glm = SparseGlm { loss: Loss::Linear, data };
        let mut steps = FilteredSteps::new(Seeds::new(rng.random())).expect("valid");
        let mech = Claimed::new(cfg.estimator().unwrap().per_call().unwrap());
        let mut x = vec![0.0; 2];
        cfg.step_with(&mut x, glm, 0, &mech, &mut steps).expect("valid step");
        -x[0]
    })
}

/// Algorithm 1 recording its claims, as Algorithm 6 does (the crate's mechanism is private), and
/// the batch size m of every call it receives (so a test reads the sizes the step really used).
struct Claimed(ProjectionMechanismConfig, std::sync::Mutex<Vec<usize>>);

impl Claimed {
    fn new(per_call: ProjectionMechanismConfig) -> Self {
        Claimed(per_call, std::sync::Mutex::new(Vec::new()))
    }

    fn sizes(&self) -> Vec<usize> {
        self.1.lock().unwrap().clone()
    }
}

impl MeanMechanism for Claimed {
    fn release_mean(&self, mean: Vec<f64>, m: usize, release: &mut PrivateRelease) -> Result<Vec<f64>> {
        self.1.lock().unwrap().push(m);
        Ok(self.0.release_mean_recorded(mean, m, release, GaussianRecord::ClaimedEpsilon)?.z_hat)
    }
}

/// n = 256 records: 255 zero rows and the replaced record e₀ with label +1 (D) or −1 (D′), so
/// its Linear-loss gradient is ±e₀ (‖·‖ = L = 1, s = 1): the worst replace-one pair.
fn worst_pair(label: f64) -> SparseDataset {
    let mut rows = vec![Vec::new(); 256];
    rows[255] = vec![(0usize, 1.0 - 1e-15)];
    let mut labels = vec![1.0; 256];
    labels[255] = label;
    SparseDataset::from_rows(&rows, labels, 2).unwrap()
}

/// Audit of ONE step (N = 0, so B has 2 records of 256, q = 1/128) through the audit engine:
/// 10⁵ draws per side, a threshold fixed in advance, Clopper–Pearson at confidence 1 − 1e-7. The
/// certified ε at the step's accounted δ_t is ≤ the accounted ε_t (false failure ≤ 1e-7: a
/// correct step's true ε at δ_t is ≤ ε_t). Measured: 0 (ε_t = 8.9e-4, δ_t = 1.0e-12: the step is very private,
/// every MeanMech call runs at ε/32).
///
/// The sizes MeanMech receives are recorded and asserted ([2, 1, 1, 1]), and the exact check below
/// is computed from them. The wrong-n twin (every call's noise computed for the dataset size
/// n = 256 instead of its batch size m, recorded with the same claims) is invisible to this many draws (its true loss
/// comes from the 1/128 of draws where the record is sampled), so it is flagged by the exact
/// check: conditionally on the record being in B, the three calls on B are a Gaussian mechanism
/// with μ² = Σ (Δ_m/σ_m)² over the calls the record enters (G⁺ and one of G⁻_O, G⁻_E: Δ_m = 2L/m),
/// and amplification needs that conditional mechanism to meet the inner claim (3ε_c, 3δ_c).
/// Correct σ_m (the crate's `noise_scale(m)`): exact δ(3ε_c; μ) ≤ 3δ_c. Twin σ_n: exact δ far
/// above 3δ_c, flagged.
#[test]
fn audit_sparse_sgd_one_step_below_accounted_and_exact_check_flags_wrong_n() {
    let cfg = BiasReducedSgdConfig::new(1.0, 1, 1.0, 1e-5, 1.0, Domain::Unconstrained, Convexity::Convex).unwrap();
    // the accounted (ε_t, δ_t) of one step at N = 0, read from what it records
    let (d, d_prime) = (worst_pair(1.0), worst_pair(-1.0));
    let mut steps = FilteredSteps::new(Seeds::new(0)).unwrap();
    let per_call = cfg.estimator().unwrap().per_call().unwrap();
    let claimed = Claimed::new(per_call.clone());
    cfg.step_with(&mut [0.0; 2], SparseGlm { loss: Loss::Linear, data: &d }, 0, &claimed, &mut steps).unwrap();
    // the sizes the step passed to MeanMech (Alg. 5, lines 2–5): G⁺ on B (m = 2), G⁻_O and G⁻_E
    // (m = 1 each), then G_0 on the independent 1-sample I (its own block); a step passing n (or
    // any other size) fails here, before the exact check below uses them
    let sizes = claimed.sizes();
    assert_eq!(sizes, [2, 1, 1, 1], "the batch sizes given to MeanMech");
    let step_event = steps.steps()[0].clone();
    let acc = ApproxDpAccountant::new(Neighbouring::ReplaceOne);
    let cost = acc.cost(&step_event).unwrap();
    assert!(cost.epsilon <= step_cost_c(256, 0) && cost.delta <= step_cost_c(256, 0) * 1e-5);

    let n = 100_000;
    let (a, b) = sample_scores(&one_step(cfg.clone()), &d, &d_prime, n, Seeds::new(21), &|x: &f64| *x);
    let settings = AuditSettings {
        delta: cost.delta,
        confidence: 1.0 - 1e-7,
        strategy: ThresholdStrategy::Fixed { threshold: 1.0 },
        seed: 0,
    };
    let certified = epsilon_lower_bound(&a, &b, &settings).unwrap().epsilon;
    eprintln!("one step: accounted ({:e}, {:e}), certified {certified}", cost.epsilon, cost.delta);
    assert!(certified <= cost.epsilon, "SOUNDNESS: certified {certified} > accounted {}", cost.epsilon);

    // the exact check on the B-block
    let (eps_c, l) = (per_call.epsilon, 1.0);
    let recorded_delta = match &step_event {
        DpEvent::Composed(parts) => match &parts[0] {
            DpEvent::SampledWithoutReplacement { event, .. } => match event.as_ref() {
                DpEvent::Composed(calls) => match calls[0] {
                    DpEvent::EpsilonDelta { delta, .. } => delta,
                    _ => panic!("a claim"),
                },
                _ => panic!("three claims"),
            },
            _ => panic!("B's block first"),
        },
        _ => panic!("two blocks"),
    };
    assert!(recorded_delta <= per_call.delta, "the claim's δ {recorded_delta} is above δ_c");
    // the record enters G⁺ (sizes[0]) and one of the halves (sizes[1] = sizes[2])
    let mu = |sigma_of: &dyn Fn(usize) -> f64| -> f64 {
        let call = |m: usize| (2.0 * l / m as f64) / sigma_of(m);
        (call(sizes[0]).powi(2) + call(sizes[1]).powi(2)).sqrt()
    };
    let sigma = |m: usize| per_call.noise_scale(m).unwrap().sigma();
    let exact = gdp::delta_for_epsilon(mu(&sigma), 3.0 * eps_c).unwrap();
    let twin = gdp::delta_for_epsilon(mu(&|_| per_call.noise_scale(256).unwrap().sigma()), 3.0 * eps_c).unwrap();
    eprintln!("B-block: exact delta {exact:e} (claim {:e}); wrong-n twin {twin:e}", 3.0 * recorded_delta);
    assert!(exact <= 3.0 * recorded_delta, "the correct block misses its claim");
    assert!(twin > 3.0 * recorded_delta, "the wrong-n twin is not flagged");
}

/// Typed refusals before any draw: ε > 1 (Lemma 6.3 needs ε ≤ 1), ε NaN, δ = 0 (no filter),
/// δ = 1, η ≤ 0, n < 2, x⁰ outside X, wrong dimension, NaN x⁰, a gradient outside `S_s^d`.
#[test]
fn sparse_sgd_invalid_input_is_a_typed_error() {
    let ok = |e: f64, d: f64, eta: f64| {
        BiasReducedSgdConfig::new(1.0, 2, e, d, eta, Domain::Unconstrained, Convexity::Convex)
    };
    for (e, d, eta) in [(1.5, 1e-6, 0.1), (f64::NAN, 1e-6, 0.1), (1.0, 0.0, 0.1), (1.0, 1.0, 0.1), (1.0, 1e-6, 0.0)] {
        assert!(matches!(ok(e, d, eta), Err(Error::InvalidParameter { .. })), "({e}, {d}, {eta})");
    }
    assert!(matches!(
        stopping_time(64, 2.0, 1e-6, StoppingRule::Lagged, Seeds::new(0)),
        Err(Error::InvalidParameter { .. })
    ));
    let cfg = config(Convexity::Convex, Domain::L2Ball { radius: 1.0 });
    let data = sparse_data(16, 4, 2, 1.0, 1);
    let glm = SparseGlm { loss: Loss::Logistic, data: &data };
    let run = |x0: &[f64]| cfg.run(glm, x0, Seeds::new(0), &mut Trace::default());
    assert!(matches!(run(&[2.0, 0.0, 0.0, 0.0]), Err(Error::InvalidParameter { .. })));
    assert!(matches!(run(&[0.0; 3]), Err(Error::InvalidParameter { .. })));
    assert!(matches!(run(&[f64::NAN, 0.0, 0.0, 0.0]), Err(Error::NonFinite { .. })));
    let one = sparse_data(1, 4, 2, 1.0, 1);
    assert!(matches!(
        cfg.run(SparseGlm { loss: Loss::Logistic, data: &one }, &[0.0; 4], Seeds::new(0), &mut Trace::default()),
        Err(Error::InvalidParameter { .. })
    ));
    let dense = sparse_data(16, 4, 3, 1.0, 1); // 3 non-zeros > s = 2
    assert!(matches!(
        cfg.run(SparseGlm { loss: Loss::Logistic, data: &dense }, &[0.0; 4], Seeds::new(0), &mut Trace::default()),
        Err(Error::InvalidParameter { .. })
    ));
}

/// The smallest power of two n at which `threshold(n, δ_n)` falls below `trivial`, with
/// δ_n = min(1e-6, 1/(4n²)) (Lemma 6.5 needs δ < 1/n²); `None` below 2⁶⁰.
fn first_informative_n(trivial: f64, threshold: impl Fn(u64, f64) -> f64) -> Option<u64> {
    (1..60u32).map(|k| 1u64 << k).find(|&n| {
        let delta = 1e-6f64.min(0.25 / (n as f64 * n as f64));
        threshold(n, delta) < trivial
    })
}

/// D7, Thms. 6.7 (convex) and 6.8 (nonconvex) with every constant explicit: C′ = 0.25
/// (τ = C′n/ln(2/δ), [`horizon_tau`]; P[T ≤ τ] ≤ 1/4 is D5), ν and b from Lemma 6.4's explicit
/// form for Algorithm 1's Gaussian at the per-call (ε/32, δ/16)
/// (`lemma64_alg1_constant_gaussian`, `lemma64_second_moment_bound`, `lemma64_bias_bound`), and C
/// from the proof's Markov step with the derived `E[T + 1] ≤ (7n + 1)/(6C_M(M+1) + 1) + 1`
/// (`theorem67_threshold_explicit`, `theorem68_threshold_explicit`). n = 64, d = 8, s = 2, L = 1,
/// logistic loss, ε = 1, δ = 1e-6. Convex: X = B₂(0, 1) (diameter D = 2), η = D/(ν√τ),
/// x⁰ = 0, event `F_S(x̄) − F* ≤ U/τ` with F* replaced by a certified lower bound (so a success
/// counted is a success). Nonconvex (Thm. 6.8; the loss is smooth, H = 1/4, X = ℝ^d):
/// Γ = F_S(0) = ln 2 ≥ F_S(0) − inf F_S, η = √(Γ/(Hτν²)) ∧ 1/(2H) (the printed "Ht" read τ),
/// event `‖∇F_S(x^{t̂})‖² ≤ U/τ`.
///
/// The frequency is recorded over R = 20 seeded runs each (the theorem would be rejected if the
/// Clopper–Pearson upper bound, α = 1e-6, fell below 1/2), but see below: at these constants it
/// is a record, not a check of Algorithm 6; what this test asserts with power is the vacuity.
///
/// **The explicit thresholds are vacuous at this n, and the test asserts it**: U/τ = 3.9e4 for
/// the convex gap, which is at most LD = 2 (L-Lipschitz on a set of diameter D), and 8.8e3 for
/// ‖∇F_S‖² ≤ L² = 1 (ν = 433, b = 6.2, τ = 1.10). So no broken twin (bias reduction dropped, steps or noise inflated) can
/// drive the frequency below 1/2 here: the event holds for every output in X. The thresholds
/// fall below those trivial bounds only from n = 2³⁹ (Thm. 6.7) and n = 2³⁶ (Thm. 6.8) (computed
/// with the same functions, δ_n = min(1e-6, 1/(4n²)); asserted > 2²⁰): far beyond what a test,
/// or the 2-core `reproduce`, can run. Measured: 20/20 successes in both (CP upper 1).
/// The cause: ν² = 4L² + 4a + 12(M + 1)a with a = 8L²√(s ln(1.25/δ_c) ln 2d)/ε_c and ε_c = ε/32
/// (a ≈ 2.5e3), against τ ≈ n/(4 ln(2/δ)); the Markov constant 4E[T+1]/τ ≈ 90 multiplies it.
/// What can fail: a NaN or an output outside X (counted as failures), or the vacuity assertion if
/// the constants are ever tightened (then this test must gain its power twin).
#[test]
fn exact_d7_sparse_sgd_theorems_6_7_and_6_8_vacuous_thresholds_and_outputs_in_domain() {
    use dpref::audit::binomial::clopper_pearson_upper;
    use dpref::bounds::sparse::{
        lemma64_alg1_constant_gaussian, lemma64_bias_bound, lemma64_second_moment_bound, theorem67_threshold_explicit,
        theorem68_threshold_explicit,
    };
    use dpref::optim::sparse::{convex_step_size, nonconvex_step_size};
    let (n, d, s, l, eps, delta, runs) = (64usize, 8usize, 2usize, 1.0, 1.0, 1e-6, 20u64);
    let nu_b = |n: u64, delta: f64| {
        let a = lemma64_alg1_constant_gaussian(l, s as u64, d as u64, eps / 32.0, delta / 16.0).unwrap();
        (lemma64_second_moment_bound(l, a, n).unwrap().sqrt(), lemma64_bias_bound(a, n).unwrap())
    };
    let (nu, b) = nu_b(n as u64, delta);
    let tau = horizon_tau(0.25, n, delta).unwrap();
    let data = sparse_data(n, d, s, l, 17);
    let glm = SparseGlm { loss: Loss::Logistic, data: &data };
    // Thm. 6.7 (convex)
    let diam = 2.0;
    let eta_c = convex_step_size(diam, nu, tau).unwrap();
    let u_c = theorem67_threshold_explicit(diam, (nu, b), tau, eta_c, n as u64).unwrap();
    let f_low = logistic_risk_lower_bound_on_ball(&data, 1.0);
    let mut cfg = config(Convexity::Convex, Domain::L2Ball { radius: 1.0 });
    cfg.step_size_eta = eta_c;
    let convex_ok = (0..runs)
        .filter(|&seed| {
            let run = cfg.run(glm, &[0.0; 8], Seeds::new(seed), &mut Trace::default()).unwrap();
            let gap = logistic_risk(&data, &run.x).0 - f_low;
            Domain::L2Ball { radius: 1.0 }.contains(&run.x) && gap <= u_c
        })
        .count() as u64;
    // Thm. 6.8 (nonconvex reading, X = ℝ^d)
    let (gamma, h) = (2f64.ln(), 0.25);
    let eta_n = nonconvex_step_size(gamma, h, nu, tau).unwrap();
    let u_n = theorem68_threshold_explicit(gamma, h, l, (nu, b), tau, eta_n, n as u64).unwrap();
    let mut cfg = config(Convexity::Nonconvex, Domain::Unconstrained);
    cfg.step_size_eta = eta_n;
    let nonconvex_ok = (0..runs)
        .filter(|&seed| {
            let run = cfg.run(glm, &[0.0; 8], Seeds::new(100 + seed), &mut Trace::default()).unwrap();
            let g = logistic_risk(&data, &run.x).1;
            g.iter().map(|v| v * v).sum::<f64>() <= u_n
        })
        .count() as u64;
    let (cp_c, cp_n) = (
        clopper_pearson_upper(convex_ok, runs, 1e-6).unwrap(),
        clopper_pearson_upper(nonconvex_ok, runs, 1e-6).unwrap(),
    );
    // where the explicit thresholds stop being vacuous (trivial bounds LD = 2 and L² = 1)
    let k_c = first_informative_n(l * diam, |n, dl| {
        let (nu, b) = nu_b(n, dl);
        let tau = horizon_tau(0.25, n as usize, dl).unwrap();
        theorem67_threshold_explicit(diam, (nu, b), tau, convex_step_size(diam, nu, tau).unwrap(), n).unwrap()
    });
    let k_n = first_informative_n(l * l, |n, dl| {
        let (nu, b) = nu_b(n, dl);
        let tau = horizon_tau(0.25, n as usize, dl).unwrap();
        let eta = nonconvex_step_size(gamma, h, nu, tau).unwrap();
        theorem68_threshold_explicit(gamma, h, l, (nu, b), tau, eta, n).unwrap()
    });
    eprintln!(
        "D7: nu = {nu:.1}, b = {b:.2}, tau = {tau:.3}; Thm 6.7 U/tau = {u_c:.3e} (trivial {}), {convex_ok}/{runs} \
         (CP upper {cp_c:.3}); Thm 6.8 U/tau = {u_n:.3e} (trivial {}), {nonconvex_ok}/{runs} (CP upper {cp_n:.3}); \
         informative from n = {k_c:?} (6.7), {k_n:?} (6.8)",
        l * diam,
        l * l
    );
    assert!(cp_c >= 0.5 && cp_n >= 0.5, "Thm. 6.7 / 6.8 rejected: {convex_ok}/{runs}, {nonconvex_ok}/{runs}");
    assert!(u_c > l * diam && u_n > l * l, "the thresholds became informative: add the power twin");
    // With the thresholds vacuous (just asserted), every finite output in X meets them: one NaN
    // or one output outside X fails here (the Clopper–Pearson line alone let 19 of 20 pass).
    assert_eq!((convex_ok, nonconvex_ok), (runs, runs), "an output that is NaN or outside X");
    assert!(k_c.is_none_or(|n| n > 1 << 20) && k_n.is_none_or(|n| n > 1 << 20), "{k_c:?} {k_n:?}");
}

/// The explicit-constant functions D7 uses, against their formulas written out here, and the
/// derived `E[T + 1] ≤ (7n + 1)/(6C_M(M+1) + 1) + 1` against the simulated stopping time (the
/// table's simulation, 20 000 seeds per n, 5 000 at n = 4096; rejected only if the sample mean
/// exceeds the bound by more than 5.45 standard errors: false failure ≤ 4·5e-8, T bounded by
/// 4n/7 + 2 so the CLT applies). Measured mean T + 1 against the bound: 13.7 ≤ 24.3 (n = 64),
/// 41.1 ≤ 72.5 (256), 132.4 ≤ 232.0 (1024), 442.0 ≤ 775.8 (4096). Power (asserted): a bound 4×
/// too small (6.1, …, 194) is below every simulated mean, so a slip of that size in the
/// derivation fails (Lemma 6.5's lower end n²/((n+1) ln(4/δ)) − 1 = 3.1 at n = 64, read as an
/// upper bound, is one).
#[test]
fn exact_d7_explicit_thresholds_and_expected_steps_bound() {
    use dpref::bounds::sparse::{
        lemma65_expected_steps_upper_bound, theorem67_threshold_explicit, theorem68_threshold_explicit,
    };
    for row in simulated_table() {
        let n = row.n;
        let m = n.trailing_zeros() as i32 - 1;
        let c_m = 1.0 / (2.0 * (1.0 - 0.5f64.powi(m + 1)));
        let formula = (7.0 * n as f64 + 1.0) / (6.0 * c_m * (m as f64 + 1.0) + 1.0) + 1.0;
        let bound = lemma65_expected_steps_upper_bound(n as u64).unwrap();
        assert!((bound - formula).abs() <= 1e-14 * formula, "{bound} vs {formula}");
        let mean = row.mean + 1.0;
        eprintln!("n = {n}: mean T + 1 = {mean:.2} (sd {:.2}), bound {bound:.2}", row.sd);
        assert!(mean - 5.45 * row.sd / (row.reps as f64).sqrt() <= bound, "E[T+1] bound {bound} below {mean}");
        assert!(bound / 4.0 < mean, "the bound is not tight enough for a 4x-too-small twin to fail");
    }
    let (dd, nu, b, tau, eta, n) = (2.0, 30.0, 0.5, 3.0, 0.01, 64u64);
    let e_t = lemma65_expected_steps_upper_bound(n).unwrap();
    let u = 4.0 * (dd * dd / (2.0 * eta) + e_t * (eta * nu * nu / 2.0 + b * dd));
    let got = theorem67_threshold_explicit(dd, (nu, b), tau, eta, n).unwrap();
    assert!((got - u / tau).abs() <= 1e-14 * got);
    let (g, h, l) = (0.7, 0.25, 1.0);
    let u = 4.0 * (g / eta + e_t * (eta * h * nu * nu / 2.0 + l * b));
    let got = theorem68_threshold_explicit(g, h, l, (nu, b), tau, eta, n).unwrap();
    assert!((got - u / tau).abs() <= 1e-14 * got);
    assert!(matches!(theorem67_threshold_explicit(dd, (nu, b), tau, 0.0, n), Err(Error::InvalidParameter { .. })));
    assert!(matches!(
        theorem68_threshold_explicit(g, h, l, (nu, b), tau, eta, 48),
        Err(Error::InvalidParameter { .. })
    ));
}

/// An ε so small that the filter's unit (ε/(16n))² is not a normal float is refused before any
/// step: the check summed squares that underflowed to 0 and admitted every step, and the
/// accountant (each square rounded up) then refused the run's own filter after it ran
/// (ε = 1e-300, n = 64; found by a black-box sweep). The error prints 1e-300, not 300 digits.
#[test]
fn a_filter_unit_below_the_normal_range_is_refused_up_front() {
    for rule in [StoppingRule::Lagged, StoppingRule::CheckedFirst] {
        let e = stopping_time(64, 1e-300, 1e-5, rule, Seeds::new(1)).unwrap_err();
        assert!(
            matches!(e, Error::InvalidParameter { name: "epsilon", .. }) && e.to_string().contains("1e-300"),
            "{e}"
        );
        assert!(stopping_time(64, 1e-140, 1e-5, rule, Seeds::new(1)).is_ok());
    }
    let described = DpEvent::epsilon_delta(1e-300, 1e-20).unwrap().describe();
    assert_eq!(described, "EpsilonDelta(eps=1e-300, delta=1e-20)");
}
