//! Privacy audits of [ADFJT]'s algorithms through the audit engine (notes §6, D3 and D4).
//!
//! * D3: a single full-batch step of PAGAN on replace-one neighbours, audited black-box with the
//!   `Mechanism` sampler: the certified ε lower bound is ≤ the accounted ε and ≥ half of it;
//!   reproductions of the step with the noise halved or with covariance A instead of A⁻¹ are
//!   flagged (bound > accounted ε).
//! * D4: white-box canary audits of DP-SGD and PAGAN (`audit::canary`): the certified bound of a
//!   multi-step Poisson-sampled run is ≤ its accounted ε; the same run with the noise halved
//!   (compared with the ε accounted for the full noise) is flagged.
//! * The normaliser under add/remove: a run that would normalise by the private `|D|` is refused;
//!   with the declared public b the audit stays below the accounted ε, and the refused pattern
//!   (b = |D| of each side) is flagged far above it.
//!
//! Thresholds. Every audit here uses a threshold fixed before sampling
//! (`ThresholdStrategy::Fixed`), derived from the known output laws of the mechanism (or of the
//! bug's alternative) by maximising the bound the test is guaranteed to reach: with the counts
//! at their ALPHA-quantiles (exact binomial intervals, `tests/common/stat.rs`), the Clopper–Pearson
//! bound is monotone in the counts, so with probability ≥ 1 − ALPHA the realised bound is at
//! least this "design" bound. A fixed threshold pays β/8 per Clopper–Pearson bound instead of
//! the β/(4N) of a search over all thresholds, which is what makes "≥ half of the accounted ε"
//! reachable with 10⁶ samples per side. Soundness does not depend on the choice: for any fixed
//! threshold, `P(bound > true ε) ≤ β`.
//!
//! Confidence `1 − β = 1 − 1e-7` for every "≤ accounted ε" claim (false failure ≤ 1e-7, as the
//! true ε of a correct run is ≤ the accountant's upper bound); the "≥ half" and "flagged" claims
//! hold on their fixed seeds and, by the design bound, with probability ≥ 1 − ALPHA on any seed.

mod common;
use common::stat::{ALPHA, binomial_interval};
use dpref::accounting::{Neighbouring, gdp};
use dpref::audit::canary::{ObservedAlgorithm, audit_canary};
use dpref::audit::threshold::epsilon_from_counts;
use dpref::audit::{AuditSettings, FnMechanism, Mechanism, ThresholdStrategy, epsilon_lower_bound, sample_scores};
use dpref::data::Dataset;
use dpref::loss::Loss;
use dpref::optim::RunSettings;
use dpref::optim::adaptive_noise::{AdaptiveMethod, AdaptiveNoiseConfig};
use dpref::optim::dp_sgd::{DpSgdConfig, dp_sgd};
use dpref::optim::{Privacy, Trace};
use dpref::rng::{DpRng, Seeds};
use dpref::sampling::BatchSampler;
use dpref::special::normal_cdf;
use rand::Rng;

/// δ of every claim.
const DELTA: f64 = 1e-5;
/// β of every certified bound.
const BETA: f64 = 1e-7;

fn settings(threshold: f64) -> AuditSettings {
    AuditSettings { delta: DELTA, confidence: 1.0 - BETA, strategy: ThresholdStrategy::Fixed { threshold }, seed: 0 }
}

/// The design bound of a fixed-threshold audit with n samples per side of a score whose law on
/// D′ is N(0, 1) and on D has upper tail `tpr(u) = P_D(score ≥ u)`: the best, over thresholds u
/// on a grid of step 0.02 in [0, 6], of the Clopper–Pearson bound (levels β/8, as
/// `ThresholdStrategy::Fixed` uses) at the counts' ALPHA-quantiles (the TPR count at its lower
/// end, the FPR count at its upper end). Returns (bound, u).
fn design(n: u64, tpr: &dyn Fn(f64) -> f64) -> (f64, f64) {
    let mut best = (0.0, 0.0);
    for i in 0..=300 {
        let u = i as f64 * 0.02;
        let (fpr, p) = (normal_cdf(-u), tpr(u));
        let kp = binomial_interval(n, p, ALPHA).0;
        let kq = binomial_interval(n, fpr, ALPHA).1;
        if let Some((e, _, _)) = epsilon_from_counts(kp, n, kq, n, BETA / 8.0, BETA / 8.0, DELTA, 1).unwrap()
            && e > best.0
        {
            best = (e, u);
        }
    }
    best
}

// ---------------------------------------------------------------------------------------------
// D3: one full-batch step of PAGAN
// ---------------------------------------------------------------------------------------------

/// The ellipsoid `C = (1, 4, 9)`, `B = 2`: `a = C/B² = (0.25, 1, 2.25)`. The canary direction is
/// coordinate 0, where the ellipsoid is widest (a₀ = 1/4): the projected gradient reaches
/// `1/√a₀ = 2` there and the noise std on the sum is `z·2`.
const C3: [f64; 3] = [1.0, 4.0, 9.0];
const B3: f64 = 2.0;
/// z = 3: μ = ‖A^{1/2}(π(g) − π(g′))‖/z = 2/3 (replace-one), accounted ε ≈ 2.99 at δ = 1e-5.
const Z3: f64 = 3.0;
const N3: usize = 1_000_000;

/// D and D′ (replace-one, n = 3): record 0 has linear-loss gradient `±100·e₀` (projected to
/// `±2·e₀`, opposite points of the ellipsoid: whitened distance 2); records 1, 2 are zero in
/// coordinate 0 and inside the ellipsoid.
fn d3_pair() -> (Dataset, Dataset) {
    let rest = [0.0, 0.3, -0.2, 0.0, -0.1, 0.4];
    let mk = |s: f64| {
        let mut f = vec![s * 100.0, 0.0, 0.0];
        f.extend_from_slice(&rest);
        Dataset::new(f, vec![1.0; 3], 3).unwrap()
    };
    (mk(1.0), mk(-1.0))
}

fn d3_config(z: f64, report_delta: Option<f64>) -> AdaptiveNoiseConfig {
    let run_settings = RunSettings::poisson(1, 1.0, Privacy::NoiseMultiplier { sigma: z, report_delta }).unwrap();
    let mut cfg = AdaptiveNoiseConfig::new(3, 0.5, B3, run_settings).unwrap();
    cfg.ellipsoid_c = C3.to_vec();
    cfg.settings.sampler = BatchSampler::Full;
    cfg.settings.neighbouring = Neighbouring::ReplaceOne;
    cfg
}

/// One step of PAGAN, released: `ĝ⁰`. Each draw runs the real algorithm with a seed taken from
/// the audit sampler's stream. (`report_delta = None`: the accountant is read once, outside.)
fn one_step_pagan(config: AdaptiveNoiseConfig) -> impl Mechanism<Input = Dataset, Output = Vec<f64>> {
    FnMechanism::new(move |data: &Dataset, rng: &mut DpRng| one_step_pagan_draw(&config, data, rng))
}

/// One draw of [`one_step_pagan`].
fn one_step_pagan_draw(config: &AdaptiveNoiseConfig, data: &Dataset, rng: &mut DpRng) -> Vec<f64> {
    let mut trace = Trace::default();
    AdaptiveMethod::Pagan
        .run(data, Loss::Linear, config, Seeds::new(rng.next_u64()), &mut trace)
        .expect("invariant: valid");
    trace.noisy_gradients.pop().expect("one step")
}

/// A reproduction of the same step with a bug in the noise: the noise-free part `g̃` from PAGAN
/// itself (z = 0), then `ĝ = g̃ + N(0, diag(stds)²)/b` with the bug's per-coordinate stds on the
/// sum (correct: `z·B/√Cⱼ`; halved: half that; covariance A: `z·√Cⱼ/B`).
struct BuggyStep {
    config: AdaptiveNoiseConfig,
    stds_on_sum: Vec<f64>,
}

impl Mechanism for BuggyStep {
    type Input = Dataset;
    type Output = Vec<f64>;
    fn sample(&self, data: &Dataset, rng: &mut DpRng) -> Vec<f64> {
        let mut trace = Trace::default();
        AdaptiveMethod::Pagan
            .run(data, Loss::Linear, &self.config, Seeds::new(rng.next_u64()), &mut trace)
            .expect("invariant: valid");
        let b = data.n() as f64;
        let mut g = trace.noisy_gradients.pop().expect("one step");
        for (gj, s) in g.iter_mut().zip(&self.stds_on_sum) {
            *gj += s * dpref::noise::standard_normal(rng) / b;
        }
        g
    }
}

/// The score: the released coordinate 0, the whitened projection on the difference of the
/// means (`(m − m′)ᵀ(s²A⁻¹)⁻¹ĝ ∝ ĝ₀`), i.e. the likelihood-ratio statistic. On D′ it is
/// `N(−2/3, (2z/3)²)`, on D `N(+2/3, (2z/3)²)` (n = 3).
#[allow(clippy::ptr_arg)] // `Score<Vec<f64>>` is implemented for `Fn(&Vec<f64>) -> f64`
fn score(o: &Vec<f64>) -> f64 {
    o[0]
}

/// Audits `mechanism` on the D3 pair with a threshold designed for a mechanism whose noise std
/// on coordinate 0 (on the sum) is `std0`; returns (certified bound, design bound).
fn run_d3_audit<M: Mechanism<Input = Dataset, Output = Vec<f64>>>(
    mechanism: &M,
    std0: f64,
    n: usize,
    seed: u64,
) -> (f64, f64) {
    let (d, d_prime) = d3_pair();
    let mu = 4.0 / std0; // mean difference 2·2 on the sum over the std
    let (bound, u) = design(n as u64, &|u| normal_cdf(mu - u));
    // back to score units: D′ has mean −2/3 and std std0/3
    let threshold = -2.0 / 3.0 + u * std0 / 3.0;
    let (a, b) = sample_scores(mechanism, &d, &d_prime, n, Seeds::new(seed), &score);
    let r = epsilon_lower_bound(&a, &b, &settings(threshold)).unwrap();
    (r.epsilon, bound)
}

/// D3: one full-batch step of PAGAN (z = 3, replace-one, A = C/B² with C = (1, 4, 9), B = 2) on
/// neighbours whose differing record's projected gradient sits on opposite ends of the ellipsoid
/// along its widest axis (whitened distance 2): the output laws are `N(m, s²A⁻¹)` and
/// `N(m′, s²A⁻¹)`, a Gaussian shift with μ = 2/z = 2/3 along the whitened direction.
///
/// * The accounted ε (`Run.privacy.epsilon`, RDP of `Gaussian(z/2)`) is ≥ the exact ε of
///   μ-GDP at δ (Balle & Wang 2018; `gdp::epsilon_for_delta`): the claim is never optimistic.
/// * With 10⁶ draws per side, the certified bound (confidence 1 − 1e-7) is ≤ the accounted ε
///   and ≥ half of it. Why half is reachable: the best threshold event of a Gaussian shift has
///   ln((TPR − δ)/FPR) → ε_exact = 2.75 only at FPR ~ δ, out of reach of 10⁶ samples; at the
///   designed threshold (≈ 3.05 standard deviations above D′'s mean: FPR ≈ 1.1e-3, TPR ≈
///   8.6e-3, about 1 100 and 8 600 counts) ln(TPR/FPR) = 2.01, and the Clopper–Pearson margins
///   at β/8 plus the counts' 1e-6 quantiles cost ≈ 0.4 of it, leaving the design bound 1.61 ≥
///   2.99/2 (FPR upper bound +17 % + 15 %, TPR lower bound −6 % − 5 %). The test computes this
///   design bound from the exact binomial quantiles and asserts it is ≥ ε/2 too, so the seed is
///   not a lucky one. Measured: certified 1.85, accounted 2.99, exact 2.75.
/// * Power twins (the same step reproduced with the bug, same sample sizes, thresholds designed
///   for the bug's law): noise halved (μ = 4/3) and covariance A instead of A⁻¹ (noise std
///   `z·√C₀/B = z/2` on coordinate 0: μ = 8/3) are both flagged, certified bound > accounted ε.
#[test]
fn audit_pagan_single_step_full_batch_is_tight_and_flags_broken_noise() {
    let (d, _) = d3_pair();
    let run = AdaptiveMethod::Pagan
        .run(&d, Loss::Linear, &d3_config(Z3, Some(DELTA)), Seeds::new(0), &mut Trace::default())
        .unwrap();
    let accounted = run.privacy.epsilon.expect("a private run reports ε");
    let exact = gdp::epsilon_for_delta(2.0 / Z3, DELTA).unwrap();
    assert!(accounted >= exact, "accounted {accounted} below the exact {exact}");
    assert!((1.0..=3.0).contains(&accounted), "moderate ε: {accounted}");

    let correct = one_step_pagan(d3_config(Z3, None));
    let std0 = Z3 * B3 / C3[0].sqrt();
    let (bound, design_bound) = run_d3_audit(&correct, std0, N3, 31);
    eprintln!("D3 PAGAN: certified {bound:.3} (design {design_bound:.3}), accounted {accounted:.3}, exact {exact:.3}");
    assert!(bound <= accounted, "correct PAGAN flagged: {bound} > {accounted}");
    assert!(design_bound >= accounted / 2.0, "the design cannot reach half: {design_bound}");
    assert!(bound >= accounted / 2.0, "audit too weak: {bound} < {accounted}/2");

    let stds = |f: &dyn Fn(usize) -> f64| (0..3).map(f).collect::<Vec<f64>>();
    let halved = BuggyStep { config: d3_config(0.0, None), stds_on_sum: stds(&|j| 0.5 * Z3 * B3 / C3[j].sqrt()) };
    let (bound_h, design_h) = run_d3_audit(&halved, 0.5 * std0, N3, 32);
    let cov_a = BuggyStep { config: d3_config(0.0, None), stds_on_sum: stds(&|j| Z3 * C3[j].sqrt() / B3) };
    let (bound_a, design_a) = run_d3_audit(&cov_a, Z3 * C3[0].sqrt() / B3, 200_000, 33);
    eprintln!("D3 twins: halved {bound_h:.3} (design {design_h:.3}), covariance A {bound_a:.3} (design {design_a:.3})");
    assert!(bound_h > accounted && design_h > accounted, "noise halved not flagged: {bound_h}");
    assert!(bound_a > accounted && design_a > accounted, "covariance A not flagged: {bound_a}");
}

// ---------------------------------------------------------------------------------------------
// D4: multi-step white-box canary audits
// ---------------------------------------------------------------------------------------------

/// D4 setting: Poisson q = 0.5, T = 4 steps, noise multiplier 2, add/remove, δ = 1e-5:
/// accounted ε ≈ 2.81. 5·10⁵ runs per side.
const Q4: f64 = 0.5;
const T4: u64 = 4;
const Z4: f64 = 2.0;
const RUNS4: usize = 500_000;

/// Five ordinary records (absolute loss) with feature 0 equal to 0, so their gradients never
/// touch coordinate 0, and a sixth record: on D the canary `((100, 0), 10⁹)`, whose subgradient
/// is `−100·e₀` at every reachable x (the label is never reached), clipped to `−C·e₀` (DP-SGD)
/// or projected to `−(B/√C₀)·e₀` (PAGAN); on D′ a zero record `((0, 0), 0)`, whose subgradient
/// is 0. Both datasets have n = 6, so both runs normalise by the same `b = qn` (see the ignored
/// normaliser test below for why a true add/remove pair would measure that leak instead): the
/// released updates on D′ are distributed exactly as those of the add/remove neighbour
/// "D without the canary" under a public normaliser, so the add/remove accountant's ε bounds
/// this pair.
fn d4_data(with_canary: bool) -> Dataset {
    let mut f = vec![0.0, 0.5, 0.0, -1.0, 0.0, 0.3, 0.0, 2.0, 0.0, -0.7];
    let mut y = vec![0.4, -0.2, 1.0, 0.1, -0.5];
    if with_canary {
        f.extend_from_slice(&[100.0, 0.0]);
        y.push(1e9);
    } else {
        f.extend_from_slice(&[0.0, 0.0]);
        y.push(0.0);
    }
    Dataset::new(f, y, 2).unwrap()
}

/// The canary direction: the released updates are scored by `⟨ĝ, −e₀⟩` summed over steps.
const CANARY: [f64; 2] = [-1.0, 0.0];

#[derive(Clone)]
enum Algorithm {
    DpSgd(DpSgdConfig),
    Pagan(AdaptiveNoiseConfig),
}

impl ObservedAlgorithm for Algorithm {
    fn run(&self, with_canary: bool, seeds: Seeds) -> dpref::Result<Vec<Vec<f64>>> {
        // the two datasets are fixed: built once, not per run
        static DATA: std::sync::OnceLock<[Dataset; 2]> = std::sync::OnceLock::new();
        let data = &DATA.get_or_init(|| [d4_data(false), d4_data(true)])[usize::from(with_canary)];
        let mut trace = Trace::default();
        match self {
            Algorithm::DpSgd(cfg) => dp_sgd(data, Loss::Absolute, cfg, seeds, &mut trace)?,
            Algorithm::Pagan(cfg) => AdaptiveMethod::Pagan.run(data, Loss::Absolute, cfg, seeds, &mut trace)?,
        };
        Ok(trace.noisy_gradients)
    }
}

fn d4_algorithms(z: f64, report_delta: Option<f64>) -> [(&'static str, Algorithm, f64); 2] {
    let privacy = Privacy::NoiseMultiplier { sigma: z, report_delta };
    // n = 6 on both sides (the canary is replaced, not removed); b = q·6 declared public.
    let sgd =
        DpSgdConfig::new(0.1, 1.0, RunSettings::poisson(T4, Q4, privacy).unwrap().with_batch_size_b(Q4 * 6.0).unwrap())
            .unwrap();
    let run_settings = RunSettings::poisson(T4, Q4, privacy).unwrap().with_batch_size_b(Q4 * 6.0).unwrap();
    let mut pg = AdaptiveNoiseConfig::new(2, 0.5, 1.0, run_settings).unwrap();
    pg.ellipsoid_c = vec![0.25, 4.0]; // canary projected to 2·e₀; noise std 2z on coordinate 0
    let unit = B_OVER_SQRT_C0;
    [("DP-SGD", Algorithm::DpSgd(sgd), 1.0), ("PAGAN", Algorithm::Pagan(pg), unit)]
}

/// `B/√C₀` of the PAGAN canary config (B = 1, C₀ = 1/4).
const B_OVER_SQRT_C0: f64 = 2.0;

/// D4: white-box canary audits of DP-SGD and PAGAN (Poisson q = 0.5, T = 4, z = 2, add/remove,
/// δ = 1e-5) through `audit_canary` with 5·10⁵ runs per side at confidence 1 − 1e-7: the
/// certified bound is ≤ the run's accounted ε (`Run.privacy.epsilon` ≈ 2.81). The score of a run
/// is `S = Σ_t ⟨ĝ_t, −e₀⟩ = (u/b)(K + z√T·Z)`, `K ~ Binomial(T, q)` on D and 0 on D′, `u` the
/// canary's contribution (C = 1 for DP-SGD, B/√C₀ = 2 for PAGAN), Z ~ N(0, 1).
///
/// Power twin: the same runs with the noise multiplier halved (z = 1), compared with the ε
/// accounted for z = 2, are flagged (bound > accounted ε). The threshold is fixed in advance for
/// that alternative: on D′ `S ~ N(0, (u z √T/(2b))²)`, on D the Binomial mixture; the design
/// bound (3.06 > 2.81, computed in the test) shows the flag is not luck. The same threshold
/// serves the correct runs (soundness holds for any fixed threshold). Measured (DP-SGD, PAGAN):
/// correct 0.970, 0.975; noise halved 3.444, 3.389.
#[test]
fn audit_canary_dp_sgd_and_pagan_below_accounted_and_flag_halved_noise() {
    let t = T4 as f64;
    let pmf: Vec<f64> = (0..=T4)
        .map(|k| {
            (1..=k).fold(1.0, |c, i| c * (T4 - k + i) as f64 / i as f64)
                * Q4.powi(k as i32)
                * (1.0 - Q4).powi((T4 - k) as i32)
        })
        .collect();
    let half = Z4 / 2.0;
    // standardised by the halved run's D′ std: S·b/(u·(z/2)·√T)
    let tpr =
        |v: f64| pmf.iter().enumerate().map(|(k, p)| p * normal_cdf(k as f64 / (half * t.sqrt()) - v)).sum::<f64>();
    let (design_bound, v) = design(RUNS4 as u64, &tpr);
    let b = Q4 * 6.0;
    let data = d4_data(true);
    let pairs = d4_algorithms(Z4, None).into_iter().zip(d4_algorithms(half, None));
    for (i, ((name, correct, unit), (_, broken, _))) in pairs.enumerate() {
        let seed = 41 + 2 * i as u64;
        // the accounted ε of the correct run, read once from a run that reports it
        let reported = match d4_algorithms(Z4, Some(DELTA)).into_iter().find(|(n, ..)| *n == name).unwrap().1 {
            Algorithm::DpSgd(cfg) => dp_sgd(&data, Loss::Absolute, &cfg, Seeds::new(0), &mut Trace::default()).unwrap(),
            Algorithm::Pagan(cfg) => {
                AdaptiveMethod::Pagan.run(&data, Loss::Absolute, &cfg, Seeds::new(0), &mut Trace::default()).unwrap()
            }
        };
        let accounted = reported.privacy.epsilon.expect("a private run reports ε");
        assert_eq!(reported.events.len(), T4);
        let threshold = v * unit * half * t.sqrt() / b;
        let ok = audit_canary(&correct, &CANARY, RUNS4, Seeds::new(seed), &settings(threshold)).unwrap();
        let bad = audit_canary(&broken, &CANARY, RUNS4, Seeds::new(seed + 1), &settings(threshold)).unwrap();
        eprintln!(
            "D4 {name}: correct {:.3}, noise halved {:.3} (design {design_bound:.3}), accounted {accounted:.3}; GDP fit ε ≈ {:.3}",
            ok.bound.epsilon,
            bad.bound.epsilon,
            ok.gdp.map_or(f64::NAN, |g| g.epsilon_estimate)
        );
        assert!(ok.bound.epsilon <= accounted, "{name}: correct run flagged: {} > {accounted}", ok.bound.epsilon);
        assert!(design_bound > accounted, "{name}: the design cannot flag the halved noise ({design_bound})");
        assert!(
            bad.bound.epsilon > accounted,
            "{name}: noise halved not flagged: {} <= {accounted}",
            bad.bound.epsilon
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The normaliser under add/remove
// ---------------------------------------------------------------------------------------------

/// The normaliser under add/remove (anchors C7). Normalising the noisy sum by a size read from
/// the dataset (`q·|D|`, or `|D|` for a full batch) leaks `|D|`, which differs between add/remove
/// neighbours: even records whose gradients are 0 are then distinguishable through the scale of
/// the noise. Setting: full batch, one step, z = 20 (accounted ε ≈ 0.18 at δ = 1e-5), d = 20,
/// every record with gradient 0 (linear loss, label 0); D has 1 record, D′ = D plus one more.
///
/// * `pagan` without a declared b refuses this run (`Unsupported`) before drawing anything.
/// * With the declared public b = 1 the two output laws are identical; the certified bound
///   (2·10⁴ runs per side, Bonferroni over all thresholds, confidence 1 − 1e-7) is ≤ the accounted
///   ε (false failure ≤ 1e-7: the true ε is 0 here).
/// * Twin: declaring b = |D| of each side (what the code did before the fix) gives noise std
///   `z·B/√Cⱼ/|D|`, twice as large on D as on D′; the whitened squared norm separates them, and
///   the certified bound was measured at 6.45, far above 0.18: the test flags it.
#[test]
fn audit_pagan_add_remove_normaliser_does_not_leak_the_dataset_size() {
    let d = 20;
    let run_settings =
        RunSettings::poisson(1, 1.0, Privacy::NoiseMultiplier { sigma: 20.0, report_delta: None }).unwrap();
    let mut cfg = AdaptiveNoiseConfig::new(d, 0.5, 1.0, run_settings).unwrap();
    cfg.settings.sampler = BatchSampler::Full;
    let one = Dataset::new(vec![1.0; d], vec![0.0], d).unwrap();
    let two = one.with_added(&vec![-1.0; d], 0.0).unwrap();
    let refused = AdaptiveMethod::Pagan.run(&one, Loss::Linear, &cfg, Seeds::new(0), &mut Trace::default());
    assert!(matches!(refused, Err(dpref::Error::Unsupported { .. })), "{refused:?}");
    let mut declared = cfg.clone();
    declared.settings = declared.settings.with_batch_size_b(1.0).unwrap();
    let mut reporting = declared.clone();
    reporting.settings.privacy = Privacy::NoiseMultiplier { sigma: 20.0, report_delta: Some(DELTA) };
    let accounted = AdaptiveMethod::Pagan
        .run(&one, Loss::Linear, &reporting, Seeds::new(0), &mut Trace::default())
        .unwrap()
        .privacy
        .epsilon
        .unwrap();
    let whitened_norm = |o: &Vec<f64>| o.iter().map(|v| v * v).sum::<f64>();
    let s = AuditSettings { delta: DELTA, confidence: 1.0 - BETA, ..AuditSettings::default() };
    let (a, b) = sample_scores(&one_step_pagan(declared), &one, &two, 20_000, Seeds::new(51), &whitened_norm);
    let r = epsilon_lower_bound(&a, &b, &s).unwrap();
    assert!(r.epsilon <= accounted, "certified {} > accounted {accounted} with a public b", r.epsilon);
    let (a, b) = sample_scores(&data_sized_pagan(cfg), &one, &two, 20_000, Seeds::new(51), &whitened_norm);
    let leak = epsilon_lower_bound(&a, &b, &s).unwrap();
    assert!(leak.epsilon > accounted, "b = |D| not flagged: certified {} <= accounted {accounted}", leak.epsilon);
}

/// The refused pattern, reproduced for the twin: each side normalised by its own `|D|`.
fn data_sized_pagan(config: AdaptiveNoiseConfig) -> impl Mechanism<Input = Dataset, Output = Vec<f64>> {
    FnMechanism::new(move |data: &Dataset, rng: &mut DpRng| {
        let mut cfg = config.clone();
        cfg.settings = cfg.settings.with_batch_size_b(data.n() as f64).unwrap();
        one_step_pagan_draw(&cfg, data, rng)
    })
}
