//! Golden audit vectors: anchors B.6 (Jagielski et al. 2020) and B.10 (one-run audits of shifted
//! normals, jax_privacy), under the conventions stated in golden/audit/*.json.

mod common;
use common::golden::{load, num};
use dpref::audit::threshold::epsilon_from_counts;
use dpref::audit::{OneRunThresholds, epsilon_one_run};
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
