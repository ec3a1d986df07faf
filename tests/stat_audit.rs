//! Statistical properties of the audit engine (issue 3, "What it must show"): soundness over many
//! repetitions, power at the sample sizes, the catalogue's verdicts, and canary audits.

mod common;
use common::accounting::dp_sgd_poisson_epsilon;
use common::audit_design::design_bound_laws;
use common::stat::{ALPHA, binomial_upper_tail};
use dpref::accounting::gaussian;
use dpref::audit::canary::{NoisyGradientSums, audit_canary};
use dpref::audit::catalogue::catalogue;
use dpref::audit::{AuditSettings, ThresholdStrategy, epsilon_lower_bound};
use dpref::rng::Seeds;
use dpref::special::normal_cdf;

/// The smallest k with P(Binomial(r, p) > k) ≤ `alpha`: the pass threshold of a repetition test
/// whose single-run failure probability is at most p.
fn max_failures(r: u64, p: f64, alpha: f64) -> u64 {
    (0..=r).find(|&k| binomial_upper_tail(r, p, k + 1) <= alpha).expect("exists")
}

/// A deliberately wrong bound for the power twins: the best point estimate ln((TPR − δ)/FPR)
/// over thresholds with at least 5 false positives, no confidence interval, no correction.
fn naive_bound(a: &[f64], b: &[f64], delta: f64) -> f64 {
    let (mut sa, mut sb) = (a.to_vec(), b.to_vec());
    sa.sort_by(f64::total_cmp);
    sb.sort_by(f64::total_cmp);
    let mut best: f64 = 0.0;
    for (p, q) in [(&sa, &sb), (&sb, &sa)] {
        for &t in p.iter().step_by(7) {
            for (kp, kq) in [
                (p.len() - p.partition_point(|&x| x < t), q.len() - q.partition_point(|&x| x < t)),
                (p.partition_point(|&x| x < t), q.partition_point(|&x| x < t)),
            ] {
                if kq >= 5 {
                    let e = ((kp as f64 / p.len() as f64 - delta) / (kq as f64 / q.len() as f64)).ln();
                    if e.is_finite() {
                        best = best.max(e);
                    }
                }
            }
        }
    }
    best
}

/// Soundness: R = 300 audits (confidence 0.95, 2000 samples per side) of mechanisms with a known
/// true ε — Laplace (ε = 1, tight at δ = 0) and the Gaussian (σ = 1, δ = 1e-5, ε = 4.3772 by the
/// analytic curve) — under both threshold strategies. Each audit exceeds the truth with
/// probability ≤ 0.05; four counts are checked (two mechanisms × two strategies), each at
/// ALPHA/4, so more than `max_failures(300, 0.05, ALPHA/4)` = 37 exceedances of any of them has
/// probability ≤ 1e-6 in total for a correct auditor. Power twin: the uncorrected point-estimate
/// bound exceeds the Laplace truth in most runs (far above 37) and is rejected by the same
/// threshold.
#[test]
fn stat_audit_bound_exceeds_true_epsilon_at_most_at_the_stated_rate() {
    let cases = catalogue();
    let laplace = cases.iter().find(|c| c.name == "laplace_count").unwrap();
    let gauss = cases.iter().find(|c| c.name == "gaussian_sum").unwrap();
    let true_gauss = gaussian::epsilon_for_delta(1.0, 1e-5).unwrap();
    let r = 300u64;
    let limit = max_failures(r, 0.05, ALPHA / 4.0);
    assert_eq!(limit, 37);
    for strategy in [ThresholdStrategy::Bonferroni, ThresholdStrategy::Split { fraction: 0.5 }] {
        let (mut fails_lap, mut fails_gauss, mut fails_naive) = (0, 0, 0);
        for i in 0..r {
            let (a, b) = laplace.scores(2000, Seeds::new(1000 + i));
            let s = AuditSettings { delta: 0.0, confidence: 0.95, strategy, seed: i };
            if epsilon_lower_bound(&a, &b, &s).unwrap().epsilon > 1.0 {
                fails_lap += 1;
            }
            if naive_bound(&a, &b, 0.0) > 1.0 {
                fails_naive += 1;
            }
            let (a, b) = gauss.scores(2000, Seeds::new(5000 + i));
            let s = AuditSettings { delta: 1e-5, ..s };
            if epsilon_lower_bound(&a, &b, &s).unwrap().epsilon > true_gauss {
                fails_gauss += 1;
            }
        }
        assert!(fails_lap <= limit && fails_gauss <= limit, "{strategy:?}: {fails_lap} {fails_gauss}");
        assert!(fails_naive > limit, "the naive bound passes the soundness test: {fails_naive}");
        eprintln!(
            "{strategy:?}: exceedances laplace {fails_lap}, gaussian {fails_gauss}, naive {fails_naive} (limit {limit})"
        );
    }
}

/// False-failure budget of each power test: the design bound's two counts (`POWER_ALPHA`) plus
/// the upper-side audit at confidence 1 − 1e-7 (total ≤ 1e-6).
const POWER_ALPHA: f64 = 9e-7;

/// Power (issue 3): Laplace with ε = 1 and 10⁶ samples per side gives a certified bound ≥ 0.95
/// at confidence 0.95.
///
/// The scores are 3 + Lap(1) on D and 4 + Lap(1) on D′ (`count_pair`); the design bound
/// ([`common::audit_design::design_bound_laws`], thresholds 3 + u for the "D′ above u" attack:
/// `fpr(u) = e^{−u}/2`, `tpr(u) = P(Lap ≥ u − 1)`) at β = 0.05 puts both counts at their
/// 9e-7 quantiles: the audit certifies at least the design value (asserted ≥ 0.95) except with
/// probability ≤ 9e-7. Measured: design 0.9676, certified 0.9834. Upper side: the first 10⁵
/// samples per side audited at confidence 1 − 1e-7 exceed the true ε = 1 with probability ≤ 1e-7
/// (measured 0.9392; the full 10⁶ would cost about 2 s more for the same guarantee). The Laplace
/// of scale 1/(2ε) (`laplace_scale_off_by_2`) is flagged by `stat_audit_catalogue_verdicts`.
#[test]
fn stat_audit_power_laplace_one_million() {
    let c = catalogue().into_iter().find(|c| c.name == "laplace_count").unwrap();
    let n = 1_000_000usize;
    let lap_upper = |x: f64| if x >= 0.0 { 0.5 * (-x).exp() } else { 1.0 - 0.5 * x.exp() };
    let design = design_bound_laws(n as u64, &|u| lap_upper(u - 1.0), &|u| lap_upper(u), 0.05, 0.0, POWER_ALPHA);
    let (a, b) = c.scores(n, Seeds::new(2));
    let r = epsilon_lower_bound(&a, &b, &AuditSettings { delta: 0.0, confidence: 0.95, ..Default::default() }).unwrap();
    let m = 100_000;
    let sure = epsilon_lower_bound(
        &a[..m],
        &b[..m],
        &AuditSettings { delta: 0.0, confidence: 1.0 - 1e-7, ..Default::default() },
    )
    .unwrap();
    eprintln!("Laplace 1e6: design {design:.4}, certified {:.4}; 1e5 at 1 - 1e-7 {:.4}", r.epsilon, sure.epsilon);
    assert!(design >= 0.95, "the design cannot reach 0.95: {design}");
    assert!(r.epsilon >= 0.95, "{r:?}");
    assert!(sure.epsilon <= 1.0, "{sure:?}");
}

/// Power (issue 3): the Gaussian mechanism (σ = 1, Δ = 1, δ = 1e-5, true ε ≈ 4.38) with 10⁷
/// samples per side at confidence 0.95. Issue 3 asks for ≥ 3.3; what a derivation supports is
/// less: the design bound ([`common::audit_design::design_bound_laws`], scores N(4, 1) on D′
/// against N(3, 1) on D, β = 0.05, both counts at their 9e-7 quantiles) is 3.127, because the
/// best thresholds sit in the tail where the false-positive count is small and its 9e-7
/// quantile is far above its mean. So the asserted floor is 3.1 (false failure ≤ 9e-7); the
/// issue's 3.3 is met on this seed (measured: certified 3.4568) but is recorded, not asserted.
/// Upper side: the first 10⁵ samples per side audited at confidence 1 − 1e-7 exceed the claimed
/// ε with probability ≤ 1e-7 (measured 2.1854). Noise σ instead of σC with C = 2
/// (`gaussian_not_scaled_by_clip`) is flagged by `stat_audit_catalogue_verdicts`.
#[test]
fn stat_audit_power_gaussian_ten_million() {
    let c = catalogue().into_iter().find(|c| c.name == "gaussian_sum").unwrap();
    let n = 10_000_000usize;
    let design = design_bound_laws(n as u64, &|u| normal_cdf(1.0 - u), &|u| normal_cdf(-u), 0.05, 1e-5, POWER_ALPHA);
    let (a, b) = c.scores(n, Seeds::new(3));
    let r =
        epsilon_lower_bound(&a, &b, &AuditSettings { delta: 1e-5, confidence: 0.95, ..Default::default() }).unwrap();
    let m = 100_000;
    let sure = epsilon_lower_bound(
        &a[..m],
        &b[..m],
        &AuditSettings { delta: 1e-5, confidence: 1.0 - 1e-7, ..Default::default() },
    )
    .unwrap();
    eprintln!("Gaussian 1e7: design {design:.4}, certified {:.4}; 1e5 at 1 - 1e-7 {:.4}", r.epsilon, sure.epsilon);
    assert!(design >= 3.1, "the design cannot reach 3.1: {design}");
    assert!(r.epsilon >= 3.1, "{r:?}");
    assert!(sure.epsilon <= c.claimed_epsilon, "{sure:?}");
}

/// Every broken mechanism of the catalogue is flagged (certified bound > claimed ε) with 10⁵
/// samples per side at confidence 1 − 1e-7, and no correct one is: a correct mechanism is
/// flagged with probability ≤ 1e-7, five of them ≤ 5e-7 ≤ 1e-6.
#[test]
fn stat_audit_catalogue_verdicts() {
    let settings = |delta| AuditSettings { delta, confidence: 1.0 - 1e-7, ..Default::default() };
    for (i, c) in catalogue().iter().enumerate() {
        let (a, b) = c.scores(100_000, Seeds::new(100 + i as u64));
        let r = epsilon_lower_bound(&a, &b, &settings(c.claimed_delta)).unwrap();
        let flagged = r.epsilon > c.claimed_epsilon;
        assert_eq!(flagged, !c.correct, "{}: bound {} vs claimed {} ({})", c.name, r.epsilon, c.claimed_epsilon, c.bug);
    }
}

/// White-box canary audit of noisy clipped gradient sums (DP-SGD's privatisation; q = 0.5,
/// σ = 2, T = 4, δ = 1e-5): the certified bound of the correct run stays below the accountant's
/// ε (failure ≤ 1e-7 at this confidence); with the noise multiplied by 0.25 it exceeds it.
#[test]
fn audit_canary_gradient_sums_correct_below_accounted_broken_above() {
    let base =
        NoisyGradientSums { dimension: 3, others: 5, q: 0.5, sigma: 2.0, clip: 1.0, steps: 4, noise_factor: 1.0 };
    let eps = dp_sgd_poisson_epsilon(base.q, base.sigma, base.steps as u64, 1e-5);
    let settings = AuditSettings { delta: 1e-5, confidence: 1.0 - 1e-7, ..Default::default() };
    let dir = base.canary_direction();
    let ok = audit_canary(&base, &dir, 20_000, Seeds::new(7), &settings).unwrap();
    assert!(ok.bound.epsilon <= eps, "correct run flagged: {} > {eps}", ok.bound.epsilon);
    assert!(ok.bound.epsilon > 0.2, "no power: {:?}", ok.bound);
    let broken = NoisyGradientSums { noise_factor: 0.25, ..base };
    let bad = audit_canary(&broken, &dir, 20_000, Seeds::new(7), &settings).unwrap();
    assert!(bad.bound.epsilon > eps, "broken run not flagged: {} <= {eps}", bad.bound.epsilon);
    // the GDP fit is an estimate: it is reported beside, not instead of, the certified bound
    let gdp = ok.gdp.expect("fitted at confidence 1 - 1e-7");
    assert!(gdp.mu_estimate > 0.0 && gdp.epsilon_estimate > 0.0);
    // at a confidence of 0.5 the fit is skipped, the certified bound still comes (it failed the
    // whole audit with "significance = 0.5")
    let half = AuditSettings { delta: 1e-5, confidence: 0.5, ..Default::default() };
    let at_half = audit_canary(&base, &dir, 2_000, Seeds::new(7), &half).unwrap();
    assert!(at_half.gdp.is_none() && at_half.bound.epsilon <= eps);
}

/// A mechanism that reads one uniform u per draw and outputs d for u ∈ [0, .3) ∪ [.5, 1) and
/// 1 − d for u ∈ [.3, .5): on d = 0 vs d = 1, P(output 1) is 0.2 vs 0.8, exactly (ln 4, 0)-DP.
struct OneUniform;
impl dpref::audit::Mechanism for OneUniform {
    type Input = f64;
    type Output = f64;
    fn sample(&self, d: &f64, rng: &mut dpref::rng::DpRng) -> f64 {
        let u = (rand::Rng::next_u64(rng) >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        if (0.3..0.5).contains(&u) { 1.0 - *d } else { *d }
    }
}

/// Regression (review of the split strategy): the split's random partition once used the stream
/// `(Audit, 0/1)`, which is the sampler's shard-0 stream when the audit seed equals the sampling
/// seed; the partition then correlated with the samples and all 200 of 200 split audits of the
/// ln 4-DP mechanism above exceeded ln 4 (mean bound 5.6). With its own stream, exceedances
/// must stay within the binomial limit max_failures(200, 0.05).
#[test]
fn stat_audit_split_partition_is_independent_of_the_samples() {
    let truth = 4f64.ln();
    let r = 200u64;
    let fails = (0..r)
        .filter(|&i| {
            let s = 9000 + i;
            let (a, b) = dpref::audit::sample_scores(
                &OneUniform,
                &0.0,
                &1.0,
                2000,
                Seeds::new(s),
                &dpref::audit::mechanism::threshold_score,
            );
            let st = AuditSettings {
                delta: 0.0,
                confidence: 0.95,
                strategy: ThresholdStrategy::Split { fraction: 0.5 },
                seed: s,
            };
            epsilon_lower_bound(&a, &b, &st).unwrap().epsilon > truth
        })
        .count() as u64;
    assert!(fails <= max_failures(r, 0.05, ALPHA), "{fails}/{r} split audits exceed the truth");
}

/// The threshold correction matters: at confidence 0.5 (β = 0.5, so a single fixed threshold's
/// bound exceeds the truth in at most half of the runs), R = 300 Laplace(ε = 1) audits with 2000
/// samples per side. The corrected (Bonferroni) bound exceeds ε = 1 at most
/// max_failures(300, 0.5) = 191 times for any correct auditor (measured: 0); the Jagielski-style
/// bound, which
/// picks the best threshold on the same data with Clopper–Pearson at β/2 per side and no
/// correction, exceeds it more often (measured 205 of 300 with every 8th threshold searched) and
/// fails the same limit.
#[test]
fn stat_audit_threshold_search_needs_its_correction() {
    use dpref::audit::threshold::epsilon_from_counts;
    let cases = catalogue();
    let laplace = cases.iter().find(|c| c.name == "laplace_count").unwrap();
    let r = 300u64;
    let limit = max_failures(r, 0.5, ALPHA);
    let (mut ours, mut uncorrected) = (0, 0);
    for i in 0..r {
        let (a, b) = laplace.scores(2000, Seeds::new(20_000 + i));
        let s = AuditSettings { delta: 0.0, confidence: 0.5, ..Default::default() };
        if epsilon_lower_bound(&a, &b, &s).unwrap().epsilon > 1.0 {
            ours += 1;
        }
        let (mut sa, mut sb) = (a.clone(), b.clone());
        sa.sort_by(f64::total_cmp);
        sb.sort_by(f64::total_cmp);
        let mut best: f64 = 0.0;
        for &t in sa.iter().chain(&sb).step_by(8) {
            let ka = sa.len() - sa.partition_point(|&x| x < t);
            let kb = sb.len() - sb.partition_point(|&x| x < t);
            for (kp, np, kq, nq) in [(ka, sa.len(), kb, sb.len()), (kb, sb.len(), ka, sa.len())] {
                if let Some((e, _, _)) =
                    epsilon_from_counts(kp as u64, np as u64, kq as u64, nq as u64, 0.25, 0.25, 0.0, 1).unwrap()
                {
                    best = best.max(e);
                }
            }
        }
        if best > 1.0 {
            uncorrected += 1;
        }
    }
    eprintln!("exceedances at beta = 0.5: corrected {ours}, uncorrected {uncorrected} (limit {limit})");
    assert!(ours <= limit, "{ours}");
    assert!(uncorrected > limit, "the uncorrected search passes: {uncorrected}");
}
