//! \[AFKT\] Algorithm 3 (`optim::l1::frank_wolfe`): the dyadic tree, the per-sample ledger, an
//! exact whole-run audit of the exponential-mechanism selection, and Frank–Wolfe convergence.

mod common;

use common::l1_data::linear_data;

use dpref::Error;
use dpref::data::Dataset;
use dpref::loss::Loss;
use dpref::optim::SelectionMechanism;
use dpref::optim::l1::frank_wolfe::{
    FrankWolfeConfig, FwPrivacy, Polytope, SampleLedger, SensitivityReading, TreePath, dfs_order, printed_step_index,
};
use dpref::rng::{Seeds, Stream};

fn config(t: u32, b: usize, l: f64, r: f64, selection: SelectionMechanism, privacy: FwPrivacy) -> FrankWolfeConfig {
    FrankWolfeConfig::new(t, b, l, Polytope::L1Ball { radius_r: r }, selection, privacy).unwrap()
}

/// Rademacher features, noise-free labels `y = ⟨z, x_true⟩`: the population squared loss is
/// `F(x) = ½‖x − x_true‖₂²` (E zzᵀ = I), `∇F(x) = x − x_true`, β = 1 w.r.t. ‖·‖₁.
fn least_squares_data(n: usize, x_true: &[f64], seed: u64) -> Dataset {
    use rand::RngExt;
    let d = x_true.len();
    let mut rng = Seeds::new(seed).stream(Stream::Data);
    let z: Vec<f64> = (0..n * d).map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 }).collect();
    let y: Vec<f64> = z.chunks(d).map(|row| row.iter().zip(x_true).map(|(a, b)| a * b).sum()).collect();
    Dataset::new(z, y, d).unwrap()
}

/// The tree as it runs: DFS(2) = u0, u00, u01, u1, u10, u11 (the paper's example); for T = 3,
/// K = 2^{T+1} − 2 = 14 leaves numbered k = 1..K with η_k = 2/(k+1); |S_{t,s}| = 2^{−j}b at roots
/// and right children, none at left children; samples b(T + T(T+1)/4) = 48 and gradient
/// evaluations b(T + T(T+1)/2) = 72 at b = 8. The printed step index 2^{t−1} + l(s) gives k = 2
/// to the last leaf of phase 1 and to the first of phase 2 (the erratum the global counter fixes).
#[test]
fn fw_tree_runs_in_dfs_order_with_dyadic_sample_sizes() {
    let names: Vec<String> = dfs_order(2).iter().map(|s| s.to_string()).collect();
    assert_eq!(names, ["u0", "u00", "u01", "u1", "u10", "u11"]);
    let (t, b) = (3u32, 8usize);
    let cfg = config(t, b, 1.0, 1.0, SelectionMechanism::ReportNoisyMin, FwPrivacy::Pure { epsilon: 1.0 });
    assert_eq!(cfg.samples_needed(), b * 6);
    let data = linear_data(60, 3, 1, 0.75);
    let fw = cfg.run(&data, Loss::Linear, Seeds::new(2)).unwrap();
    assert_eq!(fw.leaves.len() as u64, cfg.steps_k());
    assert_eq!(cfg.steps_k(), 14);
    for (i, leaf) in fw.leaves.iter().enumerate() {
        assert_eq!(leaf.step_k, i as u64 + 1);
        assert_eq!(leaf.eta, 2.0 / (leaf.step_k as f64 + 1.0));
        assert_eq!(leaf.path.depth, leaf.phase);
    }
    assert_eq!(fw.samples_used, b * (3 + 3));
    assert_eq!(fw.gradient_evaluations, (b * (3 + 6)) as u64);
    assert_eq!(fw.gradient_evaluations, cfg.gradient_evaluations());
    let mut expected = Vec::new();
    for phase in 1..=t {
        expected.push((phase, TreePath::ROOT));
        expected.extend(dfs_order(phase).into_iter().map(|s| (phase, s)));
    }
    let ran: Vec<(u32, TreePath)> = fw.nodes.iter().map(|n| (n.phase, n.path)).collect();
    assert_eq!(ran, expected);
    for node in &fw.nodes {
        let size = if node.path.depth > 0 && node.path.last_bit() == 0 { 0 } else { b >> node.path.depth };
        assert_eq!(node.samples.len(), size, "{} of phase {}", node.path, node.phase);
    }
    let last_of_phase_1 = printed_step_index(1, TreePath { depth: 1, bits: 1 });
    let first_of_phase_2 = printed_step_index(2, TreePath { depth: 2, bits: 0 });
    assert_eq!(last_of_phase_1, first_of_phase_2, "the printed indices overlap");
}

/// The ledger (P4, P5): every drawn sample is in exactly one node, unused samples in none; each
/// sample's ε is, by hand for the corrected scale λ_t = 8R_cL2^t/(bε): a root sample
/// 2^t · 2(2R_cL/b)/λ_t = ε/2, a right-child sample at depth j 2^{t−j} · 2(4R_cL2^j/b)/λ_t = ε; the
/// run reports the max, ε. A broken twin that puts one sample into two nodes is refused by
/// `verify`, and its doubled use shows in its ε.
#[test]
fn fw_ledger_puts_each_sample_in_exactly_one_vertex() {
    let (t, b, eps) = (3u32, 16usize, 0.8);
    let cfg = config(t, b, 1.5, 2.0, SelectionMechanism::Exponential, FwPrivacy::Pure { epsilon: eps });
    let data = linear_data(100, 4, 3, 0.75);
    let fw = cfg.run(&data, Loss::Linear, Seeds::new(4)).unwrap();
    fw.ledger.verify(fw.samples_used).unwrap();
    let used = fw.ledger.entries.iter().filter(|e| e.len() == 1).count();
    assert_eq!(used, cfg.samples_needed());
    assert!(fw.ledger.entries.iter().all(|e| e.len() <= 1));
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;
    for node in &fw.nodes {
        let want = if node.path.depth == 0 { eps / 2.0 } else { eps };
        for &i in &node.samples {
            assert!(
                close(fw.per_sample_epsilon[i], want),
                "{} phase {}: {}",
                node.path,
                node.phase,
                fw.per_sample_epsilon[i]
            );
        }
    }
    assert!(close(fw.run.privacy.epsilon.unwrap(), eps));
    assert_eq!(fw.run.privacy.delta, Some(0.0));
    assert_eq!(fw.run.events.len(), cfg.steps_k());
    assert_eq!(fw.run.releases, cfg.steps_k());

    let mut broken = fw.nodes.clone();
    let reused = broken[0].samples[0];
    let right = broken.iter().position(|n| n.path.depth == 1 && n.path.last_bit() == 1).unwrap();
    broken[right].samples.push(reused);
    let ledger = SampleLedger::from_nodes(data.n(), &broken).unwrap();
    assert!(matches!(ledger.verify(fw.samples_used), Err(Error::InvalidParameter { .. })));
    let eps_broken = ledger.per_sample_epsilon(&broken, &fw.leaves)[reused];
    assert!(eps_broken > eps, "reuse costs {eps_broken}");
}

/// A pure run's ledger never charges more than the configured ε, as evaluated: each leaf's
/// `2Δ_j/λ_t` (rounded up) is at most ε/2^{t−j} because λ_t is rounded up, and a node's 2^{t−j}
/// leaves are charged as one exact product. With λ_t rounded to nearest and the leaves summed
/// one by one (rounding up), `Pure{ε = 50}` charged 50 + 1.4e-14 (n = 1024, T = 3) and a test
/// asserting `ε ≤ 50` failed; here 5 budgets × 3 depths, each also within 1e-12 of ε (tight).
#[test]
fn fw_pure_ledger_stays_within_the_configured_epsilon() {
    let data = linear_data(200, 4, 3, 0.75);
    for eps in [50.0, 0.8, 0.1, 3.7, 1e-3] {
        for t in [2u32, 3, 4] {
            let cfg = config(t, 16, 1.5, 2.0, SelectionMechanism::Exponential, FwPrivacy::Pure { epsilon: eps });
            let fw = cfg.run(&data, Loss::Linear, Seeds::new(u64::from(t))).unwrap();
            let got = fw.run.privacy.epsilon.unwrap();
            assert!(got <= eps && got >= eps * (1.0 - 1e-12), "T = {t}, epsilon {eps}: charged {got}");
            assert!(fw.per_sample_epsilon.iter().all(|&e| e <= eps), "T = {t}, epsilon {eps}");
        }
    }
}

/// The printed sensitivity (`LD2^j/b` at every depth, so `λ_t = 2LD2^t/(bε)`) is half the true one
/// at right children: the ledger, which uses the true sensitivities, reports 2ε for such a run.
#[test]
fn fw_printed_noise_scale_costs_twice_epsilon() {
    let eps = 1.0;
    let mut cfg = config(2, 8, 1.0, 1.0, SelectionMechanism::ReportNoisyMin, FwPrivacy::Pure { epsilon: eps });
    assert!((cfg.noise_scale(2) - 4.0 * 1.0 * 2.0 * 4.0 / 8.0).abs() < 1e-12, "4LD2^t/(b eps)");
    cfg.reading = SensitivityReading::AsPrinted;
    assert!((cfg.noise_scale(2) - 2.0 * 1.0 * 2.0 * 4.0 / 8.0).abs() < 1e-12, "the printed 2LD2^t/(b eps)");
    let fw = cfg.run(&linear_data(40, 3, 5, 0.75), Loss::Linear, Seeds::new(6)).unwrap();
    let reported = fw.run.privacy.epsilon.unwrap();
    assert!((reported - 2.0 * eps).abs() < 1e-12, "{reported}");
}

/// Exact whole-run audit (P3) of the exponential-mechanism selection, d = 2 (m = 4), T = 2
/// (K = 6), b = 4, n = 14: given the seed (hence the permutation) and the chosen vertices, the
/// iterates are deterministic, so `P(w_1..w_6)` is a product of closed-form softmax
/// probabilities, enumerated over all 4^6 sequences on S and on S′ (one sample replaced).
/// Checked: the probabilities sum to 1, and `max |ln P_S − ln P_S′|` is at most the ledger's
/// ε for the replaced sample, itself ≤ the run's ε. Pairs: the phase-1 and phase-2 roots (linear
/// loss, rows (1, 0) replaced by (−1, 0): the sensitivity is attained) and right children at
/// depths 1 and 2 (squared loss). Broken twin: the scale λ halved (ε doubled in the scale only)
/// makes the root pair's loss exceed the ledger's ε for that sample.
#[test]
fn audit_fw_exponential_selection_exact_whole_run() {
    let (t, b, eps, n) = (2u32, 4usize, 16.0, 14usize);
    let seeds = Seeds::new(11);
    let honest = config(t, b, 1.0, 1.0, SelectionMechanism::Exponential, FwPrivacy::Pure { epsilon: eps });
    let twin = config(t, b, 1.0, 1.0, SelectionMechanism::Exponential, FwPrivacy::Pure { epsilon: 2.0 * eps });
    let sequences: Vec<Vec<usize>> = (0..4usize.pow(6)).map(|c| (0..6).map(|k| (c >> (2 * k)) & 3).collect()).collect();
    let privacy_loss = |cfg: &FrankWolfeConfig, s: &Dataset, s2: &Dataset, loss: Loss| {
        let (mut total, mut total2, mut worst) = (0.0, 0.0, 0.0f64);
        for seq in &sequences {
            let a = cfg.selection_log_probability(s, loss, seeds, seq).unwrap();
            let c = cfg.selection_log_probability(s2, loss, seeds, seq).unwrap();
            total += a.exp();
            total2 += c.exp();
            worst = worst.max((a - c).abs());
        }
        assert!((total - 1.0).abs() < 1e-9 && (total2 - 1.0).abs() < 1e-9, "{total} {total2}");
        worst
    };

    // Roots, linear loss.
    let s = Dataset::new([1.0, 0.0].repeat(n), vec![1.0; n], 2).unwrap();
    let fw = honest.run(&s, Loss::Linear, seeds).unwrap();
    let run_eps = fw.run.privacy.epsilon.unwrap();
    for phase in [1, 2] {
        let root = fw.nodes.iter().find(|x| x.phase == phase && x.path == TreePath::ROOT).unwrap();
        let i = root.samples[0];
        let s2 = s.with_replaced(i, &[-1.0, 0.0], 1.0).unwrap();
        let ledger_eps = fw.per_sample_epsilon[i];
        let loss = privacy_loss(&honest, &s, &s2, Loss::Linear);
        let broken = privacy_loss(&twin, &s, &s2, Loss::Linear);
        println!("root of phase {phase}: exact loss {loss:.4}, ledger {ledger_eps}, run {run_eps}, twin {broken:.4}");
        assert!(loss <= ledger_eps * (1.0 + 1e-9) && ledger_eps <= run_eps * (1.0 + 1e-12));
        assert!(loss > 0.5 * ledger_eps, "the pair is nearly tight: {loss}");
        assert!(broken > ledger_eps, "the twin exceeds: {broken}");
    }

    // Right children at depths 1 and 2, squared loss.
    let mut rng = Seeds::new(12).stream(Stream::Data);
    use rand::RngExt;
    let z: Vec<f64> = (0..2 * n).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect();
    let y: Vec<f64> = (0..n).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect();
    let s = Dataset::new(z, y, 2).unwrap();
    let fw = honest.run(&s, Loss::Squared, seeds).unwrap();
    for (phase, path) in [(1, TreePath { depth: 1, bits: 1 }), (2, TreePath { depth: 2, bits: 1 })] {
        let node = fw.nodes.iter().find(|x| x.phase == phase && x.path == path).unwrap();
        let i = node.samples[0];
        let s2 = s.with_replaced(i, &[-s.row(i)[0], 1.0], -s.label(i)).unwrap();
        let loss = privacy_loss(&honest, &s, &s2, Loss::Squared);
        println!("{path} of phase {phase}: exact loss {loss:.4}, ledger {}", fw.per_sample_epsilon[i]);
        assert!(loss <= fw.per_sample_epsilon[i] * (1.0 + 1e-9));
    }
}

/// Noise off, linear loss (β = 0), l1 ball of radius r over d = 10, T = 4, b = 1024: every leaf
/// selects the optimal vertex −r e_1 iff `‖v − m‖_∞ < 1/4` (the score gap r|m_1| − r max_{j>1}|m_j|
/// is r/2 and each score moves by r‖v − m‖_∞), and x_1 = w_1 (η_1 = 1), so x_K = x* and
/// F(x_K) = F* = −r/2. Margin: a linear loss makes every right-child correction exactly 0, so v is
/// a phase root's mean of b i.i.d. gradients in {±1}^d; Hoeffding gives
/// P(|v_j − m_j| ≥ 1/4) ≤ 2exp(−b/32) = 2e^{−32}, and the union over d·T = 40 coordinates and
/// roots gives a false failure ≤ 80e^{−32} < 1e-12. Power twin: the same run with heavy selection
/// noise (ε = 0.01) does not end at x*.
#[test]
fn stat_fw_linear_reaches_the_optimal_vertex() {
    let (t, b, d, r) = (4u32, 1024usize, 10usize, 1.5);
    let cfg = config(t, b, 1.0, r, SelectionMechanism::ReportNoisyMin, FwPrivacy::NonPrivate);
    let data = linear_data(cfg.samples_needed(), d, 7, 0.75);
    let fw = cfg.run(&data, Loss::Linear, Seeds::new(8)).unwrap();
    assert!(fw.run.events.is_empty() && fw.run.privacy.epsilon.is_none());
    let gap_to_star = |x: &[f64]| (0.5 * x[0] + 0.5 * r).abs() + x[1..].iter().map(|v| v.abs()).sum::<f64>();
    assert!(gap_to_star(&fw.run.x) < 1e-12, "{:?}", fw.run.x);
    for leaf in &fw.leaves {
        assert_eq!(leaf.vertex, d, "-r e_1 at k = {}", leaf.step_k);
    }
    let noisy = config(t, b, 1.0, r, SelectionMechanism::ReportNoisyMin, FwPrivacy::Pure { epsilon: 0.01 });
    let twin = noisy.run(&data, Loss::Linear, Seeds::new(8)).unwrap();
    assert!(gap_to_star(&twin.run.x) > 0.1, "{:?}", twin.run.x);
}

/// The Frank–Wolfe recursion (U9), pathwise, on least squares over the l1 ball (r = 1, D = 2,
/// β = 1, F* = 0 at x_true inside the ball), noise off; ∇F is known exactly, so everything below
/// is measured on the run and holds on every sample path (false failure 0; the slack 1e-12 covers
/// rounding).
/// * Per step: F is quadratic, so `F(x_{k+1}) = F(x_k) + η⟨∇F(x_k), w_k − x_k⟩ + η²‖w_k − x_k‖₂²/2`
///   exactly; convexity and the exact LMO (`⟨v_k, w_k⟩ ≤ ⟨v_k, x*⟩`) give
///   `h_{k+1} ≤ (1 − η_k)h_k + η_k⟨v_k − ∇F(x_k), x* − w_k⟩ + η_k²‖w_k − x_k‖₂²/2`.
/// * Unrolled with `e_k = ‖v_k − ∇F(x_k)‖_∞`, η_1 = 1:
///   `F(x_K) − F* ≤ Σ_k (2η_k D e_k + η_k²βD²/2) Π_{i>k}(1 − η_i) ≤ 2βD²/(K+1) + 2D max_k e_k`
///   (`Σ_k η_k Π = 1`, `Σ_k η_k² Π ≤ 4/(K+1)`): the FW rate plus the estimator's error.
///
/// Checked for T = 2..5 (K = 6..62; the rate term 2βD²/(K+1) falls from 1.14 to 0.13).
/// Power twin: with noisy selections (ε = 0.05) the per-step inequality, which needs the exact
/// LMO, fails on the same seed.
#[test]
fn fw_least_squares_meets_the_frank_wolfe_recursion() {
    let x_true = [0.5, -0.3, 0.0, 0.1];
    let (r, d_diam, beta) = (1.0, 2.0, 1.0);
    let f = |x: &[f64]| 0.5 * x.iter().zip(&x_true).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
    let bound = |leaves: &[dpref::optim::l1::frank_wolfe::LeafRecord]| {
        let mut h = 0.0;
        for leaf in leaves {
            let e =
                leaf.x.iter().zip(&x_true).zip(&leaf.v).map(|((x, xt), v)| (v - (x - xt)).abs()).fold(0.0, f64::max);
            h = (1.0 - leaf.eta) * h + 2.0 * leaf.eta * d_diam * e + leaf.eta * leaf.eta * beta * d_diam * d_diam / 2.0;
        }
        h
    };
    // The per-step inequality at every leaf; returns the largest violation (≤ 0 when it holds).
    let step_violation = |leaves: &[dpref::optim::l1::frank_wolfe::LeafRecord], x_last: &[f64]| {
        let mut worst = f64::NEG_INFINITY;
        for (i, leaf) in leaves.iter().enumerate() {
            let next = leaves.get(i + 1).map_or(x_last, |l| l.x.as_slice());
            let mut w = [0.0; 4];
            if leaf.vertex < 4 {
                w[leaf.vertex] = r
            } else {
                w[leaf.vertex - 4] = -r
            }
            let grad: Vec<f64> = leaf.x.iter().zip(&x_true).map(|(x, xt)| x - xt).collect();
            let cross: f64 =
                leaf.v.iter().zip(&grad).zip(x_true.iter().zip(&w)).map(|((v, g), (xs, wi))| (v - g) * (xs - wi)).sum();
            let step2: f64 = w.iter().zip(&leaf.x).map(|(a, b)| (a - b) * (a - b)).sum();
            let rhs = (1.0 - leaf.eta) * f(&leaf.x) + leaf.eta * cross + leaf.eta * leaf.eta * step2 / 2.0;
            worst = worst.max(f(next) - rhs);
        }
        worst
    };
    for t in 2..=5u32 {
        let b = 1024usize;
        let cfg = config(t, b, 2.0, r, SelectionMechanism::ReportNoisyMin, FwPrivacy::NonPrivate);
        let data = least_squares_data(cfg.samples_needed(), &x_true, 20 + u64::from(t));
        let fw = cfg.run(&data, Loss::Squared, Seeds::new(9)).unwrap();
        let k = cfg.steps_k() as f64;
        let h_k = f(&fw.run.x);
        let path_bound = bound(&fw.leaves);
        let max_e = fw
            .leaves
            .iter()
            .flat_map(|l| l.x.iter().zip(&x_true).zip(&l.v).map(|((x, xt), v)| (v - (x - xt)).abs()))
            .fold(0.0, f64::max);
        let rate = 2.0 * beta * d_diam * d_diam / (k + 1.0);
        let violation = step_violation(&fw.leaves, &fw.run.x);
        println!(
            "T = {t}: F(x_K) - F* = {h_k:.5}, pathwise bound {path_bound:.5}, rate {rate:.4}, max e {max_e:.4}, step slack {violation:.2e}"
        );
        assert!(violation <= 1e-12, "per-step inequality: {violation}");
        assert!(h_k <= path_bound + 1e-12);
        assert!(path_bound <= rate + 2.0 * d_diam * max_e + 1e-12);
        assert!(fw.run.x.iter().map(|v| v.abs()).sum::<f64>() <= r * (1.0 + 1e-12), "feasible");
        if t == 5 {
            let noisy = config(t, b, 2.0, r, SelectionMechanism::ReportNoisyMin, FwPrivacy::Pure { epsilon: 0.05 });
            let twin = noisy.run(&data, Loss::Squared, Seeds::new(9)).unwrap();
            let twin_violation = step_violation(&twin.leaves, &twin.run.x);
            println!("twin: F(x_K) - F* = {:.5}, worst step violation {twin_violation:.4}", f(&twin.run.x));
            assert!(twin_violation > 1e-3, "the noisy selection breaks the exact-LMO step");
        }
    }
}

/// Invalid input is a typed error, never a panic: T = 0, b not a multiple of 2^T, L or ε not
/// finite and positive, an empty vertex list, approximate DP (unsupported), too few samples for
/// one pass, x_0 outside X or NaN, vertices of the wrong dimension; NaN data and empty data are
/// refused by `Dataset`.
#[test]
fn fw_invalid_inputs_are_typed_errors() {
    let rnm = SelectionMechanism::ReportNoisyMin;
    let pure = FwPrivacy::Pure { epsilon: 1.0 };
    let ball = Polytope::L1Ball { radius_r: 1.0 };
    let invalid = |r: dpref::Result<FrankWolfeConfig>| matches!(r, Err(Error::InvalidParameter { .. }));
    assert!(invalid(FrankWolfeConfig::new(0, 8, 1.0, ball.clone(), rnm, pure)));
    assert!(invalid(FrankWolfeConfig::new(3, 12, 1.0, ball.clone(), rnm, pure)));
    assert!(invalid(FrankWolfeConfig::new(2, 8, f64::NAN, ball.clone(), rnm, pure)));
    assert!(invalid(FrankWolfeConfig::new(2, 8, 1.0, ball.clone(), rnm, FwPrivacy::Pure { epsilon: f64::NAN })));
    assert!(invalid(FrankWolfeConfig::new(2, 8, 1.0, ball.clone(), rnm, FwPrivacy::Pure { epsilon: f64::INFINITY })));
    assert!(invalid(FrankWolfeConfig::new(2, 8, 1.0, Polytope::L1Ball { radius_r: -1.0 }, rnm, pure)));
    assert!(matches!(
        FrankWolfeConfig::new(2, 8, 1.0, Polytope::Vertices(vec![]), rnm, pure),
        Err(Error::Empty { .. })
    ));
    for delta in [0.0, 1.0, f64::NAN] {
        assert!(invalid(FrankWolfeConfig::new(
            2,
            8,
            1.0,
            ball.clone(),
            rnm,
            FwPrivacy::Approximate { epsilon: 1.0, delta }
        )));
    }
    assert!(invalid(FrankWolfeConfig::new(
        2,
        8,
        1.0,
        ball.clone(),
        rnm,
        FwPrivacy::Approximate { epsilon: 0.0, delta: 1e-6 }
    )));
    let cfg = FrankWolfeConfig::new(2, 8, 1.0, ball.clone(), rnm, pure).unwrap();
    assert_eq!(cfg.samples_needed(), 28);
    let small = linear_data(27, 3, 1, 0.75);
    assert!(matches!(
        cfg.run(&small, Loss::Linear, Seeds::new(1)),
        Err(Error::InvalidParameter { name: "dataset size n", .. })
    ));
    let data = linear_data(28, 3, 1, 0.75);
    assert!(cfg.run(&data, Loss::Linear, Seeds::new(1)).is_ok());
    let mut outside = cfg.clone();
    outside.x0 = Some(vec![1.0, 1.0, 0.0]);
    assert!(matches!(outside.run(&data, Loss::Linear, Seeds::new(1)), Err(Error::InvalidParameter { .. })));
    let mut nan = cfg.clone();
    nan.x0 = Some(vec![f64::NAN, 0.0, 0.0]);
    assert!(nan.run(&data, Loss::Linear, Seeds::new(1)).is_err());
    let wrong_dim =
        FrankWolfeConfig::new(2, 8, 1.0, Polytope::Vertices(vec![vec![1.0, 0.0], vec![0.0, 1.0]]), rnm, pure).unwrap();
    assert!(matches!(wrong_dim.run(&data, Loss::Linear, Seeds::new(1)), Err(Error::InvalidParameter { .. })));
    assert!(matches!(Dataset::new(vec![f64::NAN, 0.0], vec![1.0], 2), Err(Error::NonFinite { .. })));
    assert!(matches!(Dataset::new(vec![], vec![], 2), Err(Error::Empty { .. })));
    assert!(
        cfg.selection_log_probability(&data, Loss::Linear, Seeds::new(1), &[0; 6]).is_err(),
        "RNM has no closed form here"
    );
}

/// The simplex and an explicit vertex list run the same algorithm: iterates stay in X (convex
/// combinations of vertices), and the same seed gives a bit-identical run.
#[test]
fn fw_simplex_and_vertex_lists_stay_feasible_and_reproducible() {
    let data = linear_data(28, 3, 2, 0.75);
    let simplex = FrankWolfeConfig::new(
        2,
        8,
        1.0,
        Polytope::Simplex,
        SelectionMechanism::Exponential,
        FwPrivacy::Pure { epsilon: 2.0 },
    )
    .unwrap();
    let a = simplex.run(&data, Loss::Linear, Seeds::new(3)).unwrap();
    let b = simplex.run(&data, Loss::Linear, Seeds::new(3)).unwrap();
    assert_eq!(a, b);
    for leaf in &a.leaves {
        assert!(leaf.x.iter().all(|v| *v >= -1e-15) && (leaf.x.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    let listed = Polytope::Vertices(vec![vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]]);
    let mut cfg = simplex.clone();
    cfg.polytope = listed;
    let c = cfg.run(&data, Loss::Linear, Seeds::new(3)).unwrap();
    assert_eq!(c.run.x, a.run.x, "the listed simplex selects as the built-in one");
}
