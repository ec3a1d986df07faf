//! The `model` module: MLP gradients against central finite differences, the factored clipped sum
//! against the materialising default (differential test), the GLM adapter against `Loss`, the
//! non-convex test problem's constants, the synthetic classes, and bad input.

use dpref::data::Dataset;
use dpref::loss::Loss;
use dpref::model::nonconvex::{PHI_PRIME_MAX, SMOOTHNESS_L, SeparableNonConvex, phi, phi_prime};
use dpref::model::synthetic::gaussian_classes;
use dpref::model::{Glm, Mlp, Model};
use dpref::rng::{Seeds, Stream};

fn classes_data(n: usize, d: usize, k: usize, seed: u64) -> Dataset {
    gaussian_classes(n, d, k, 2.0, &mut Seeds::new(seed).stream(Stream::Data)).unwrap().data
}

/// The materialising clipped sum of `Model`'s default method, written out here independently.
fn reference_clipped_sum(model: &impl Model, w: &[f64], data: &Dataset, batch: &[usize], clip: f64) -> Vec<f64> {
    let p = model.num_params();
    let mut out = vec![0.0; p];
    let mut g = vec![0.0; p];
    for &i in batch {
        model.gradient(w, data, i, &mut g);
        let norm = g.iter().map(|v| v * v).sum::<f64>().sqrt();
        let s = if norm > clip { clip / norm } else { 1.0 };
        for (o, v) in out.iter_mut().zip(&g) {
            *o += s * v;
        }
    }
    out
}

/// Backpropagation equals central differences `(ℓ(w + h e_j) − ℓ(w − h e_j))/(2h)` with h = 1e-6
/// on every coordinate of one- and two-hidden-layer networks (error O(h²·ℓ‴) ≈ 1e-10, plus
/// rounding ≈ 1e-16/h = 1e-10; tolerance 1e-6 relative to max(1, |g|)). Kinks of the ReLU are
/// avoided by the random initialisation (a pre-activation within 1e-6 of 0 has probability
/// ≈ 1e-6 per unit). A backward pass that forgot the ReLU mask or the bias gradient fails.
#[test]
fn mlp_gradient_matches_finite_differences() {
    for (hidden, seed) in [(vec![7], 1u64), (vec![6, 5], 2)] {
        let data = classes_data(5, 4, 3, seed);
        let model = Mlp::new(4, &hidden, 3).unwrap();
        let mut w = model.init(&mut Seeds::new(seed).stream(Stream::Init));
        // non-zero biases so their gradients are exercised away from 0
        w.iter_mut().enumerate().for_each(|(j, v)| *v += 0.01 * ((j % 7) as f64 - 3.0));
        let mut g = vec![0.0; model.num_params()];
        for i in 0..data.n() {
            model.gradient(&w, &data, i, &mut g);
            for j in 0..w.len() {
                let h = 1e-6;
                let (mut wp, mut wm) = (w.clone(), w.clone());
                wp[j] += h;
                wm[j] -= h;
                let fd = (model.loss(&wp, &data, i) - model.loss(&wm, &data, i)) / (2.0 * h);
                assert!(
                    (g[j] - fd).abs() <= 1e-6 * g[j].abs().max(1.0),
                    "hidden {hidden:?} record {i} param {j}: {} vs {fd}",
                    g[j]
                );
            }
        }
    }
}

/// The MLP's parameter count is `Σ_l n_l(n_{l−1} + 1)`: 118,282 for the paper's 784-128-128-10
/// (notes §5, computed there independently).
#[test]
fn mlp_parameter_count_of_the_paper_network() {
    assert_eq!(Mlp::new(784, &[128, 128], 10).unwrap().num_params(), 118_282);
    assert_eq!(Mlp::new(2, &[3], 2).unwrap().num_params(), 2 * 3 + 3 + 3 * 2 + 2);
}

/// Differential test: the MLP's factored clipped sum (norms from `‖δ_l‖²(‖a_{l−1}‖² + 1)`, no
/// per-example p-vector) equals the materialising reference to 1e-12 relative, with clipping
/// active on some records and not on others (C at the median norm), and with C = ∞. A factored
/// norm missing the `+1` of the bias, or the wrong clip scale, fails by far more than 1e-12.
#[test]
fn mlp_factored_clipped_sum_equals_the_materialising_reference() {
    let data = classes_data(40, 6, 4, 5);
    let model = Mlp::new(6, &[8, 5], 4).unwrap();
    let w = model.init(&mut Seeds::new(3).stream(Stream::Init));
    let batch: Vec<usize> = (0..40).step_by(2).chain([3, 3, 7]).collect();
    let mut g = vec![0.0; model.num_params()];
    let mut norms: Vec<f64> = batch
        .iter()
        .map(|&i| {
            model.gradient(&w, &data, i, &mut g);
            g.iter().map(|v| v * v).sum::<f64>().sqrt()
        })
        .collect();
    norms.sort_by(f64::total_cmp);
    let median = norms[norms.len() / 2];
    for clip in [median, f64::INFINITY, 1e-3] {
        let expected = reference_clipped_sum(&model, &w, &data, &batch, clip);
        let mut got = vec![0.0; model.num_params()];
        model.clipped_gradient_sum(&w, &data, &batch, clip, &mut got);
        let scale = expected.iter().map(|v| v.abs()).fold(0.0, f64::max);
        for (a, b) in got.iter().zip(&expected) {
            assert!((a - b).abs() <= 1e-12 * scale, "clip {clip}: {a} vs {b}");
        }
    }
}

/// Each clipped per-example contribution has norm ≤ C: the sum over a batch of one record is
/// `clip_C(∇ℓ)` (the bound the accountant relies on: sensitivity C of the sum).
#[test]
fn mlp_single_record_clipped_sum_has_norm_at_most_c() {
    let data = classes_data(30, 3, 3, 8);
    let model = Mlp::new(3, &[4], 3).unwrap();
    let w = model.init(&mut Seeds::new(9).stream(Stream::Init));
    let mut out = vec![0.0; model.num_params()];
    for i in 0..30 {
        for clip in [1e-3, 0.1, 1.0] {
            model.clipped_gradient_sum(&w, &data, &[i], clip, &mut out);
            let norm = out.iter().map(|v| v * v).sum::<f64>().sqrt();
            assert!(norm <= clip * (1.0 + 1e-12), "record {i}: {norm} > {clip}");
        }
    }
}

/// Evaluation: accuracy is the fraction of argmax hits. With all weights zero and the last bias
/// favouring class 2, every record is predicted 2, so accuracy is the share of label 2; the loss
/// is `ln Σ e^{b_k} − b_y` computed by hand.
#[test]
fn mlp_evaluation_by_hand() {
    let data = Dataset::new(vec![0.5, -1.0, 2.0, 0.0], vec![2.0, 0.0, 2.0, 1.0], 1).unwrap();
    let model = Mlp::new(1, &[2], 3).unwrap();
    let mut w = vec![0.0; model.num_params()];
    let p = w.len();
    w[p - 1] = 1.0; // b_L for class 2
    let e = model.evaluate(&w, &data).unwrap();
    assert_eq!(e.accuracy, Some(0.5));
    let lse = (1.0f64 + 1.0 + std::f64::consts::E).ln();
    let expected = ((lse - 1.0) * 2.0 + lse * 2.0) / 4.0;
    assert!((e.mean_loss - expected).abs() < 1e-14, "{} vs {expected}", e.mean_loss);
}

/// The GLM adapter is `Loss` itself: value, gradient and the default clipped sum, and accuracy for
/// the classification losses only.
#[test]
fn glm_adapter_matches_loss() {
    let data = Dataset::new(vec![1.0, 2.0, -3.0, 0.5, 0.0, 4.0], vec![1.0, 0.0, 1.0], 2).unwrap();
    let w = [0.3, -0.2];
    for loss in [Loss::Logistic, Loss::Hinge, Loss::Squared, Loss::Absolute] {
        let m = Glm::new(loss, 2).unwrap();
        let mut g = [0.0; 2];
        let mut h = [0.0; 2];
        for i in 0..3 {
            m.gradient(&w, &data, i, &mut g);
            loss.gradient(&w, data.row(i), data.label(i), &mut h);
            assert_eq!(g, h);
            assert_eq!(m.loss(&w, &data, i), loss.value(&w, data.row(i), data.label(i)));
        }
        let mut sum = [0.0; 2];
        m.clipped_gradient_sum(&w, &data, &[0, 1, 2], 0.5, &mut sum);
        assert_eq!(sum.to_vec(), reference_clipped_sum(&m, &w, &data, &[0, 1, 2], 0.5));
        let e = m.evaluate(&w, &data).unwrap();
        assert_eq!(e.accuracy.is_some(), matches!(loss, Loss::Logistic | Loss::Hinge));
    }
    // margins 0.3·1 − 0.2·2 = −0.1 (y=+1: wrong), −0.9 − 0.1 = −1.0 (y=−1: right), −0.8 (y=+1: wrong)
    let e = Glm::new(Loss::Logistic, 2).unwrap().evaluate(&w, &data).unwrap();
    assert_eq!(e.accuracy, Some(1.0 / 3.0));
}

/// The §6.4 problem's constants: `max|φ′| = 3√3/8` at `u² = 1/3`, `φ″ ∈ [−1/2, 2]` (so L = 2),
/// checked on a grid of 2·10⁵ points against finite differences of φ′.
#[test]
fn nonconvex_problem_constants() {
    assert!((PHI_PRIME_MAX - 3.0 * 3f64.sqrt() / 8.0).abs() < 1e-15);
    assert!((phi_prime(1.0 / 3f64.sqrt()) - PHI_PRIME_MAX).abs() < 1e-15);
    let (mut max_abs_d1, mut max_abs_d2) = (0.0f64, 0.0f64);
    for k in -100_000..100_000 {
        let u = k as f64 * 1e-4;
        max_abs_d1 = max_abs_d1.max(phi_prime(u).abs());
        let h = 1e-5;
        max_abs_d2 = max_abs_d2.max(((phi_prime(u + h) - phi_prime(u - h)) / (2.0 * h)).abs());
        assert!((phi(u) - u * u / (1.0 + u * u)).abs() < 1e-15);
    }
    assert!(max_abs_d1 <= PHI_PRIME_MAX + 1e-15);
    assert!((max_abs_d2 - SMOOTHNESS_L).abs() < 1e-6, "{max_abs_d2}");
    let model = SeparableNonConvex { dim: 4 };
    assert!((model.gradient_bound() - PHI_PRIME_MAX * 2.0).abs() < 1e-15);
    // population gradient on the support {−1, 1} at w = 0: E φ′(−z) = 0 by symmetry
    assert_eq!(model.population_gradient(&[0.0; 4], &[-1.0, 1.0]), vec![0.0; 4]);
}

/// Gaussian classes: labels in 0..K, class means of norm `separation`, same seed same data.
#[test]
fn gaussian_classes_shape_and_determinism() {
    let mut rng = Seeds::new(4).stream(Stream::Data);
    let c = gaussian_classes(1000, 5, 4, 3.0, &mut rng).unwrap();
    assert_eq!((c.data.n(), c.data.d()), (1000, 5));
    assert!(c.data.labels().iter().all(|&y| y.fract() == 0.0 && (0.0..4.0).contains(&y)));
    for m in &c.means {
        assert!((m.iter().map(|v| v * v).sum::<f64>().sqrt() - 3.0).abs() < 1e-12);
    }
    let again = gaussian_classes(1000, 5, 4, 3.0, &mut Seeds::new(4).stream(Stream::Data)).unwrap();
    assert_eq!(c.data, again.data);
}

/// Bad input is a typed error: zero widths, one class, labels that are not class indices, a
/// wrong parameter length, NaN parameters, a dimension mismatch, bad generator settings.
#[test]
fn model_bad_input_is_an_error() {
    assert!(Mlp::new(0, &[3], 2).is_err());
    assert!(Mlp::new(2, &[0], 2).is_err());
    assert!(Mlp::new(2, &[3], 1).is_err());
    assert!(Glm::new(Loss::Squared, 0).is_err());
    let m = Mlp::new(1, &[2], 2).unwrap();
    let w = vec![0.0; m.num_params()];
    for labels in [vec![0.5, 1.0], vec![2.0, 0.0], vec![-1.0, 0.0]] {
        let data = Dataset::new(vec![1.0, 2.0], labels, 1).unwrap();
        assert!(m.evaluate(&w, &data).is_err());
    }
    let data = Dataset::new(vec![1.0, 2.0], vec![0.0, 1.0], 1).unwrap();
    assert!(m.validate(&w[1..], &data).is_err());
    let mut nan = w.clone();
    nan[0] = f64::NAN;
    assert!(m.validate(&nan, &data).is_err());
    assert!(m.validate(&w, &Dataset::new(vec![1.0, 2.0], vec![0.0], 2).unwrap()).is_err());
    let mut rng = Seeds::new(0).stream(Stream::Data);
    assert!(gaussian_classes(0, 2, 2, 1.0, &mut rng).is_err());
    assert!(gaussian_classes(5, 2, 1, 1.0, &mut rng).is_err());
    assert!(gaussian_classes(5, 2, 2, f64::NAN, &mut rng).is_err());
}

/// Notes §6.2 item 18: with clipping at C, replacing one record moves the pre-noise batch sum by
/// at most 2C and adding or removing one by at most C, whatever the records: here adversarial
/// replacements (huge features, every class) on an MLP and a GLM. A clip applied after summing,
/// or a scale computed from a norm without the bias term, breaks these inequalities.
#[test]
fn clipped_sum_sensitivity_is_c_add_remove_and_2c_replace_one() {
    let base = classes_data(12, 3, 3, 21);
    let mlp = Mlp::new(3, &[5], 3).unwrap();
    let w = mlp.init(&mut Seeds::new(22).stream(Stream::Init));
    let glm = Glm::new(Loss::Squared, 3).unwrap();
    let wg = [0.5, -1.0, 2.0];
    let norm = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt();
    let all: Vec<usize> = (0..12).collect();
    for clip in [0.01, 0.5, 3.0] {
        for (x, y) in [([1e6, -1e6, 3.0], 0.0), ([0.0, 0.0, 0.0], 2.0), ([-50.0, 7.0, 1e-3], 1.0)] {
            let replaced = base.with_replaced(11, &x, y).unwrap();
            let added = base.with_added(&x, y).unwrap();
            let with_new: Vec<usize> = (0..13).collect();
            let check = |m: &dyn Model, w: &[f64]| {
                let p = m.num_params();
                let (mut s, mut s_rep, mut s_add) = (vec![0.0; p], vec![0.0; p], vec![0.0; p]);
                m.clipped_gradient_sum(w, &base, &all, clip, &mut s);
                m.clipped_gradient_sum(w, &replaced, &all, clip, &mut s_rep);
                m.clipped_gradient_sum(w, &added, &with_new, clip, &mut s_add);
                assert!(
                    norm(&s, &s_rep) <= 2.0 * clip * (1.0 + 1e-12),
                    "replace-one moved the sum by {}",
                    norm(&s, &s_rep)
                );
                assert!(norm(&s, &s_add) <= clip * (1.0 + 1e-12), "add/remove moved the sum by {}", norm(&s, &s_add));
            };
            check(&mlp, &w);
            check(&glm, &wg);
        }
    }
}

/// A per-example gradient whose factored squared norm underflows is still clipped to C: one
/// hidden unit at a = 1e150 and logits 780 vs 390 leave δ_L = (0, e^{−390}) and δ₁ ≈ 1.7e-317,
/// whose squares are 0, so the factored norm read 0 and the factor 1, while the materialised
/// gradient has norm 4.4e-20; at C = 1e-30 it was added at 4.4e10·C. Now the underflowing layers
/// enter through scaled norms and the clipped term has norm C (to rounding); a normal example is
/// clipped as before.
#[test]
fn mlp_terms_whose_factored_norm_underflows_are_clipped() {
    let model = Mlp::new(1, &[1], 2).unwrap();
    // W1 = 1, b1 = 0, W2 = (7.8e-148, 3.9e-148), b2 = 0
    let w = [1.0, 0.0, 7.8e-148, 3.9e-148, 0.0, 0.0];
    let data = Dataset::new(vec![1e150, 1.0], vec![0.0, 1.0], 1).unwrap();
    let mut gradient = vec![0.0; model.num_params()];
    model.gradient(&w, &data, 0, &mut gradient);
    let true_norm = dpref::linalg::norm_l2(&gradient);
    assert!(true_norm > 1e-20, "the term is not small: {gradient:?}");
    for (example, clip) in [(0usize, 1e-30), (1, 1e-3)] {
        let mut out = vec![0.0; model.num_params()];
        model.clipped_gradient_sum(&w, &data, &[example], clip, &mut out);
        let norm = dpref::linalg::norm_l2(&out);
        assert!(
            norm <= clip * (1.0 + 1e-12) && norm >= clip * (1.0 - 1e-12),
            "example {example}: {norm} vs C = {clip}"
        );
    }
}
