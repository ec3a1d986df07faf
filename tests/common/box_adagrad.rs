//! A test-only reference of the two update rules of \[ADFJT\] on a box (AdaGrad-norm projected
//! SGD, PASAN's step, and diagonal AdaGrad, PAGAN's step), independent of `dpref::optim`, and the
//! proptest strategies of the `tests/bounds_adaptive_noise*.rs` files. The pathwise regret tests
//! need iterates produced from an arbitrary (even adversarial) gradient sequence, which is what
//! [`run_on_box`] gives.

use proptest::prelude::*;

/// The two update rules of [ADFJT] Algs. 1/4 and 2/5 (lines 7–8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// `x ← Π_X(x − α ĝ/√(Σ_{i≤k} ‖ĝⁱ‖₂²))` (PASAN's step, Alg. 1 lines 7–8).
    AdagradNorm,
    /// `xⱼ ← Π_X(xⱼ − α ĝⱼ/√(Σ_{i≤k} (ĝⱼⁱ)²))` (PAGAN's step on a box, Alg. 2 lines 7–8).
    Diagonal,
}

/// Test-only reference optimiser on the box `Πⱼ [lowerⱼ, upperⱼ]`: runs `steps` iterations of
/// `method` from `x0`, asking `oracle(k, xᵏ)` for `ĝᵏ` (so an adversary can see the iterate), and
/// returns the iterates `x⁰..x^{T−1}` and the gradients `ĝ⁰..ĝ^{T−1}`.
///
/// On a box both projections are coordinatewise clamping: the Euclidean projection decouples,
/// and so does the `‖·‖_{H_k}`-projection for diagonal `H_k` (notes §2.0 (e)). A zero cumulative
/// sum gives a zero step (`0/0 := 0`, notes §2.1–2.2); the current gradient is included.
pub fn run_on_box(
    method: Method,
    lower: &[f64],
    upper: &[f64],
    x0: &[f64],
    alpha: f64,
    steps: usize,
    mut oracle: impl FnMut(usize, &[f64]) -> Vec<f64>,
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let d = x0.len();
    let (mut x, mut cum, mut cum_all) = (x0.to_vec(), vec![0.0; d], 0.0);
    let (mut xs, mut gs) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    for k in 0..steps {
        let g = oracle(k, &x);
        xs.push(x.clone());
        cum_all += g.iter().map(|v| v * v).sum::<f64>();
        for j in 0..d {
            cum[j] += g[j] * g[j];
            let denom = if method == Method::AdagradNorm { cum_all } else { cum[j] };
            let step = if denom > 0.0 { alpha * g[j] / denom.sqrt() } else { 0.0 };
            x[j] = (x[j] - step).clamp(lower[j], upper[j]);
        }
        gs.push(g);
    }
    (xs, gs)
}

/// A fixed gradient sequence as an oracle.
pub fn fixed(gs: &[Vec<f64>]) -> impl FnMut(usize, &[f64]) -> Vec<f64> + '_ {
    move |k, _| gs[k].clone()
}

/// All `2^d` vertices of the box.
pub fn vertices(lower: &[f64], upper: &[f64]) -> Vec<Vec<f64>> {
    let d = lower.len();
    (0..1usize << d).map(|m| (0..d).map(|j| if (m >> j) & 1 == 1 { upper[j] } else { lower[j] }).collect()).collect()
}

pub fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo.ln()..hi.ln()).prop_map(f64::exp)
}

/// A gradient entry: 0 with probability 1/10, else ±10^e with e uniform in [−3, 3].
pub fn gradient_entry() -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => Just(0.0),
        9 => (any::<bool>(), -3.0f64..3.0).prop_map(|(neg, e)| if neg { -(10f64.powf(e)) } else { 10f64.powf(e) }),
    ]
}

/// A small box (d ≤ 3), a start point in it, and T ≤ 25 gradients.
#[allow(clippy::type_complexity)]
pub fn box_run() -> impl Strategy<Value = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<Vec<f64>>)> {
    (1usize..=3, 1usize..=25).prop_flat_map(|(d, t)| {
        (
            prop::collection::vec((-3.0f64..0.0, 0.1f64..5.0), d),
            prop::collection::vec(0.0f64..=1.0, d),
            prop::collection::vec(prop::collection::vec(gradient_entry(), d), t),
        )
            .prop_map(|(lw, frac, gs)| {
                let lower: Vec<f64> = lw.iter().map(|(l, _)| *l).collect();
                let upper: Vec<f64> = lw.iter().map(|(l, w)| l + w).collect();
                let x0 = lw.iter().zip(&frac).map(|((l, w), f)| l + f * w).collect();
                (lower, upper, x0, gs)
            })
    })
}
