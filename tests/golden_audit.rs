//! Golden audit vectors: anchors B.6 (Jagielski et al. 2020) and B.10 (one-run audits of shifted
//! normals, jax_privacy), under the conventions stated in golden/audit/*.json.

mod common;
use common::golden::{load, num};
use dpref::audit::threshold::epsilon_from_counts;
use dpref::audit::{AuditSettings, OneRunThresholds, ThresholdStrategy, epsilon_lower_bound, epsilon_one_run};
use dpref::special::normal_quantile;

#[test]
fn golden_b6_jagielski_perfect_separation() {
    let g = load("audit/b6_jagielski.json");
    let rtol = num(&g["tol"]["rtol"]);
    for c in g["cases"].as_array().unwrap() {
        let k = c["group_size"].as_u64().unwrap();
        let want = num(&c["expected"]);
        let (eps, _, _) = epsilon_from_counts(500, 500, 0, 500, 0.005, 0.005, 0.0, k).unwrap().unwrap();
        assert!((eps - want).abs() <= rtol * want, "k={k}: {eps} vs {want}");
        // a lower bound: never above the closed form ln(p1/p0)/k, p1 = 0.005^(1/500), p0 = 1 − p1
        let p1 = (0.005f64.ln() / 500.0).exp();
        let closed = (p1 / -(0.005f64.ln() / 500.0).exp_m1()).ln() / k as f64;
        assert!(eps <= closed * (1.0 + 4.0 * f64::EPSILON), "k={k}: {eps} > {closed}");
    }
}

fn shifted_normals(n: usize, shift: f64) -> (Vec<f64>, Vec<f64>) {
    let out: Vec<f64> = (0..n).map(|i| normal_quantile((i as f64 + 0.5) / n as f64)).collect();
    let ins = out.iter().map(|x| x + shift).collect();
    (ins, out)
}

#[test]
fn golden_b10_one_run_shifted_normals() {
    let g = load("audit/b10_one_run.json");
    let n = g["n"].as_u64().unwrap() as usize;
    let (sig, delta, atol) = (num(&g["significance"]), num(&g["delta"]), num(&g["tol"]["atol"]));
    for c in g["cases"].as_array().unwrap() {
        let shift = num(&c["shift"]);
        let (ins, outs) = shifted_normals(n, shift);
        let jax = epsilon_one_run(&ins, &outs, sig, delta, OneRunThresholds::JaxPrivacyFrontier).unwrap();
        let want = num(&c["expected"]);
        // two-sided: jax_privacy's value is a root found by brentq (xtol 1e-6), not a bound in a
        // known direction; ours is within 4.4e-7 (measured: −4.37e-7, +2.80e-7, −3.03e-7)
        assert!((jax.epsilon - want).abs() <= atol, "shift {shift}: {} vs {want}", jax.epsilon);
        // The rigorous count (m + 1 rules) is larger. With δ = 1e-6 and m = 20 000 its δ term
        // alone keeps the bound at 0 here; at δ = 0 it is positive and below the jax count's.
        let rigorous = epsilon_one_run(&ins, &outs, sig, delta, OneRunThresholds::AllScores).unwrap();
        assert_eq!(rigorous.bonferroni_count, 2 * n as u64 + 1);
        assert!(rigorous.bonferroni_count > jax.bonferroni_count);
        assert_eq!(rigorous.epsilon, 0.0);
        let r0 = epsilon_one_run(&ins, &outs, sig, 0.0, OneRunThresholds::AllScores).unwrap();
        let j0 = epsilon_one_run(&ins, &outs, sig, 0.0, OneRunThresholds::JaxPrivacyFrontier).unwrap();
        assert!(r0.epsilon > 0.0 && r0.epsilon <= j0.epsilon, "{} vs {}", r0.epsilon, j0.epsilon);
        // and dropping the δ term (anchors C19) overstates the jax-count bound
        assert!(j0.epsilon > jax.epsilon);
    }
}

/// The δ subtraction of `ln((P̲ − δ)/Q̄)` (anchors B.11, arXiv 2101.04535): 500 of 500 above the
/// threshold on one side, 0 of 500 on the other, Clopper–Pearson at 0.005 per side, so
/// P̲ = p₁ = 0.005^{1/500} and Q̄ = 1 − p₁ (both sides closed form), and the bound is
/// `ln((p₁ − δ)/(1 − p₁))`: mpmath (50 digits) 3.838058502552729867 at δ = 0.5,
/// 4.435370929270582961 at δ = 0.1, 4.541915810224076214 at δ = 0. An auditor that drops δ
/// returns 4.5419 at δ = 0.5 (18 % above the closed form) and fails the upper side; one that
/// subtracts it twice gives no bound at δ = 0.5 and ln((p₁ − 0.2)/(1 − p₁)) = 4.316 at δ = 0.1,
/// failing the lower side. Ours must be a lower bound (≤ the closed form) within 1e-12.
#[test]
fn golden_delta_is_subtracted_from_the_tpr_bound() {
    for (delta, closed) in
        [(0.5, "3.838058502552729866706687"), (0.1, "4.435370929270582961249051"), (0.0, "4.541915810224076214135953")]
    {
        let closed: f64 = closed.parse().unwrap();
        let (eps, p_lo, q_hi) = epsilon_from_counts(500, 500, 0, 500, 0.005, 0.005, delta, 1).unwrap().unwrap();
        assert!(eps <= closed, "delta {delta}: {eps} above the closed form {closed}");
        assert!(eps >= closed * (1.0 - 1e-12), "delta {delta}: {eps} vs closed form {closed}");
        let p1 = (0.005f64.ln() / 500.0).exp();
        assert!((p_lo - p1).abs() <= 1e-15 && (q_hi - (1.0 - p1)).abs() <= 1e-14, "{p_lo} {q_hi}");
    }
}

/// Threshold auditor (`epsilon_lower_bound`, Bonferroni over every order statistic) on anchors
/// B.10's scores (in = Φ⁻¹((i + ½)/n) + s, out = Φ⁻¹((i + ½)/n), n = 10 000), δ = 1e-6,
/// confidence 0.95. anchors B.10 (V) gives jax_privacy's multi-run Clopper–Pearson bounds
/// `epsilon_clopper_pearson(0.05, 1e-6, Bonferroni)` on the same scores: 1.7872, 3.8280, 6.4125.
/// jax divides the significance by its number of candidate thresholds; ours pays β/(4n) per
/// order statistic and side for all four attacks (threshold.rs), a stricter correction, so ours
/// must be below jax's: ≤ ref·(1 + 1e-6). Measured (2026-11): 1.65064, 3.60405, 5.94767.
/// Dropping the threshold correction (the best threshold certified at β/2 per side, anchors
/// C19) gives 2.1955, 4.4904, 7.2774 — above every reference, so that bug fails here. The lower
/// side (ours ≥ 0.9·ref; measured ratios 0.924, 0.941, 0.928) catches a bound that collapses,
/// e.g. a Clopper–Pearson pair with its sides swapped or a correction squared.
#[test]
fn golden_b10_threshold_auditor_below_jax_multi_run_clopper_pearson() {
    let settings = AuditSettings { delta: 1e-6, confidence: 0.95, strategy: ThresholdStrategy::Bonferroni, seed: 0 };
    for (shift, jax) in [(1.0, 1.7872), (2.0, 3.8280), (4.0, 6.4125)] {
        let (ins, outs) = shifted_normals(10_000, shift);
        let ours = epsilon_lower_bound(&ins, &outs, &settings).unwrap().epsilon;
        assert!(ours <= jax * (1.0 + 1e-6), "shift {shift}: ours {ours} above jax's {jax}");
        assert!(ours >= 0.9 * jax, "shift {shift}: ours {ours} far below jax's {jax}");
    }
}

/// anchors B.11 / jax_privacy `test_epsilon_clopper_pearson_tight`: 2 000 000 deterministic
/// in-scores N(μ, 1) and out-scores N(0, 1) (quantiles (i + ½)/n), significance 0.2, δ = 0.1; the
/// bound must be below the true ε of the Gaussian mechanism with multiplier 1/μ at δ = 0.1
/// (mpmath, 50 digits: 2.3450609241526271 at μ = 1.5) and within rtol
/// 0.2 of it. Ported at μ = 1.5, out/in ratio 1 (0.9 s in debug): ours 2.29385 (2.2 % below).
/// An auditor that reports the point estimate ln(TPR/FPR) at the best threshold exceeds the
/// true ε (the lower side fails); one whose correction is far too strict fails the rtol side.
/// Not ported: μ = 1 (1.8 s in debug; ours 1.13271 vs 1.16033, also passes) and μ = 0.3, where
/// ours, 0.03619, is 21 % below the true 0.04581 — our stricter correction (β/(4n) per order
/// statistic for four attacks against jax's per-threshold Bonferroni) costs more than jax's
/// rtol 0.2 allows at such a small ε; it is still a valid lower bound.
#[test]
fn golden_b11_clopper_pearson_tight_at_two_million_samples() {
    let n = 2_000_000;
    let (ins, outs) = shifted_normals(n, 1.5);
    let settings = AuditSettings { delta: 0.1, confidence: 0.8, strategy: ThresholdStrategy::Bonferroni, seed: 0 };
    let ours = epsilon_lower_bound(&ins, &outs, &settings).unwrap().epsilon;
    let truth: f64 = "2.3450609241526270952".parse().unwrap();
    assert!(ours < truth, "{ours} not below the true epsilon {truth}");
    assert!(ours >= truth * 0.8, "{ours} not within rtol 0.2 of {truth}");
}
