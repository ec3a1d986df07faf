//! A multilayer perceptron with ReLU hidden layers and a softmax cross-entropy loss, as in the
//! \[ZCHWB\] experiment (784-128-128-10 on MNIST; Sec. 6), with per-example gradients.
//!
//! Layers l = 1..L map `a_{l−1} ∈ R^{n_{l−1}}` to `z_l = W_l a_{l−1} + b_l`, `a_l = relu(z_l)` for
//! l < L; the logits are `z_L` and `ℓ(w, (x, y)) = ln Σ_k e^{z_{L,k}} − z_{L,y}` with
//! `a_0 = x` and y ∈ {0, …, K−1}. Parameters are stored layer by layer, `W_l` row-major
//! (`n_l × n_{l−1}`) then `b_l`.
//!
//! Backpropagation: `δ_L = softmax(z_L) − e_y`, `δ_l = (W_{l+1}ᵀ δ_{l+1}) ⊙ 1[z_l > 0]`,
//! `∇_{W_l} ℓ = δ_l a_{l−1}ᵀ`, `∇_{b_l} ℓ = δ_l`. Since the weight gradient is an outer product,
//! the per-example norm is
//! `‖∇ℓ‖² = Σ_l ‖δ_l‖²(‖a_{l−1}‖² + 1)`,
//! computed from the factors (O(Σ n_l) per example instead of O(p)); the clipped sum then adds
//! `min(1, C/‖∇ℓ‖)·δ_l a_{l−1}ᵀ` straight into the accumulator, so no per-example p-vector exists.

use super::{Evaluation, Model, check_shapes};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::rng::DpRng;

/// A ReLU network with a softmax cross-entropy loss.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mlp {
    /// `[n_0 = d, n_1, …, n_L = K]`.
    widths: Vec<usize>,
}

/// Per-example activations and backpropagated errors, reused across examples.
struct Workspace {
    /// `a_0, …, a_{L−1}` (inputs of each layer); `a_0` is the record.
    activations: Vec<Vec<f64>>,
    /// `δ_1, …, δ_L`.
    deltas: Vec<Vec<f64>>,
}

/// The largest network [`Mlp::new`] builds: 2^24 = 16 777 216 parameters (128 MiB per parameter
/// vector; an optimiser keeps several). The \[ZCHWB\] MNIST network has about 1.2·10^5.
pub const MAX_PARAMETERS: usize = 1 << 24;

impl Mlp {
    /// The number of parameters `Σ_l (n_{l−1} n_l + n_l)` of the network `d → hidden → classes`,
    /// or `None` if it overflows `usize`.
    pub fn parameter_count(d: usize, hidden: &[usize], classes: usize) -> Option<usize> {
        let widths: Vec<usize> = std::iter::once(d).chain(hidden.iter().copied()).chain([classes]).collect();
        widths.windows(2).try_fold(0usize, |acc, w| w[0].checked_mul(w[1])?.checked_add(w[1])?.checked_add(acc))
    }

    /// The network `d → hidden[0] → … → classes`.
    ///
    /// # Errors
    /// `InvalidParameter` for a zero width, fewer than two classes, or more than
    /// [`MAX_PARAMETERS`] parameters (checked before anything is allocated).
    pub fn new(d: usize, hidden: &[usize], classes: usize) -> Result<Self> {
        if d == 0 || hidden.contains(&0) {
            return Err(Error::invalid("layer width", 0, ">= 1"));
        }
        if classes < 2 {
            return Err(Error::invalid("classes", classes, ">= 2"));
        }
        match Mlp::parameter_count(d, hidden, classes) {
            Some(p) if p <= MAX_PARAMETERS => {}
            count => {
                return Err(Error::invalid(
                    "MLP parameter count",
                    count.map_or_else(|| "beyond usize".to_string(), |p| p.to_string()),
                    "at most 2^24 = 16777216 (model::mlp::MAX_PARAMETERS)",
                ));
            }
        }
        let mut widths = vec![d];
        widths.extend_from_slice(hidden);
        widths.push(classes);
        Ok(Mlp { widths })
    }

    /// Number of classes K.
    pub fn classes(&self) -> usize {
        *self.widths.last().expect("invariant: at least two widths")
    }

    /// Offsets of `W_l` and `b_l` in the parameter vector, for l = 1..L.
    fn offsets(&self) -> impl Iterator<Item = (usize, usize, usize, usize)> + '_ {
        // (W offset, b offset, n_out, n_in)
        let mut at = 0;
        self.widths.windows(2).map(move |w| {
            let (n_in, n_out) = (w[0], w[1]);
            let wo = at;
            at += n_in * n_out + n_out;
            (wo, wo + n_in * n_out, n_out, n_in)
        })
    }

    /// He initialisation: `W_l` entries `N(0, 2/n_{l−1})`, biases 0.
    pub fn init(&self, rng: &mut DpRng) -> Vec<f64> {
        let mut w = vec![0.0; self.num_params()];
        for (wo, _, n_out, n_in) in self.offsets() {
            let s = (2.0 / n_in as f64).sqrt();
            for v in &mut w[wo..wo + n_in * n_out] {
                *v = s * crate::noise::standard_normal(rng);
            }
        }
        w
    }

    fn workspace(&self) -> Workspace {
        let l = self.widths.len() - 1;
        Workspace {
            activations: self.widths[..l].iter().map(|&n| vec![0.0; n]).collect(),
            deltas: self.widths[1..].iter().map(|&n| vec![0.0; n]).collect(),
        }
    }

    /// Forward pass: fills the activations, writes the logits into `ws.deltas[L−1]` and returns
    /// the loss `ln Σ e^z − z_y` (computed stably).
    fn forward(&self, w: &[f64], x: &[f64], y: usize, ws: &mut Workspace) -> f64 {
        ws.activations[0].copy_from_slice(x);
        let layers: Vec<_> = self.offsets().collect();
        let last = layers.len() - 1;
        for (l, &(wo, bo, n_out, n_in)) in layers.iter().enumerate() {
            let (inputs, outputs) = if l < last {
                let (a, b) = ws.activations.split_at_mut(l + 1);
                (&a[l], &mut b[0])
            } else {
                (&ws.activations[l], &mut ws.deltas[last])
            };
            for j in 0..n_out {
                let row = &w[wo + j * n_in..wo + (j + 1) * n_in];
                let z = w[bo + j] + crate::linalg::dot(row, inputs);
                outputs[j] = if l < last { z.max(0.0) } else { z };
            }
        }
        let logits = &ws.deltas[last];
        let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lse = max + logits.iter().map(|z| (z - max).exp()).sum::<f64>().ln();
        lse - logits[y]
    }

    /// Backward pass after [`Mlp::forward`]: turns the logits into `δ_L = softmax − e_y` and fills
    /// `δ_{L−1}, …, δ_1`. Returns `‖∇ℓ‖ = (Σ_l ‖δ_l‖²(‖a_{l−1}‖² + 1))^{1/2}`, a layer whose δ's
    /// squares underflow taken through scaled norms (summed as squares it read 0: at C = 1e-30 a
    /// term of norm 4.4e-20 went in unclipped).
    fn backward(&self, w: &[f64], y: usize, ws: &mut Workspace) -> f64 {
        let layers: Vec<_> = self.offsets().collect();
        let last = layers.len() - 1;
        let logits = &mut ws.deltas[last];
        let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut total = 0.0;
        for z in logits.iter_mut() {
            *z = (*z - max).exp();
            total += *z;
        }
        for z in logits.iter_mut() {
            *z /= total;
        }
        logits[y] -= 1.0;
        for l in (0..last).rev() {
            // δ_l = (W_{l+1}ᵀ δ_{l+1}) ⊙ 1[z_l > 0]; a_l = relu(z_l) > 0 exactly when z_l > 0
            let (wo, _, n_out, n_in) = layers[l + 1];
            let (lower, upper) = ws.deltas.split_at_mut(l + 1);
            let (delta, next) = (&mut lower[l], &upper[0]);
            delta.iter_mut().for_each(|v| *v = 0.0);
            for (j, &dj) in next.iter().enumerate().take(n_out) {
                crate::linalg::axpy(dj, &w[wo + j * n_in..wo + (j + 1) * n_in], delta);
            }
            for (d, a) in delta.iter_mut().zip(&ws.activations[l + 1]) {
                if *a <= 0.0 {
                    *d = 0.0;
                }
            }
        }
        let (mut squared, mut underflowing) = (0.0, 0.0f64);
        for (d, a) in ws.deltas.iter().zip(&ws.activations) {
            let d2 = crate::linalg::norm_l2_squared(d);
            if d2 < crate::geometry::SMALLEST_SUMMED_SQUARED_NORM && d.iter().any(|&v| v != 0.0) {
                // δ_l's squares underflow (its sum of squares would hide the layer's share of the
                // norm): the layer enters through its scaled norms ‖δ_l‖·(‖a_{l−1}‖² + 1)^{1/2}
                let layer = crate::linalg::norm_l2(d) * crate::linalg::norm_l2(a).hypot(1.0);
                underflowing = underflowing.hypot(layer);
            } else {
                squared += d2 * (crate::linalg::norm_l2_squared(a) + 1.0);
            }
        }
        if underflowing == 0.0 { squared.sqrt() } else { squared.sqrt().hypot(underflowing) }
    }

    /// `out += scale · ∇ℓ` from the factors of the last [`Mlp::backward`].
    fn add_gradient(&self, scale: f64, ws: &Workspace, out: &mut [f64]) {
        for (l, (wo, bo, n_out, n_in)) in self.offsets().enumerate() {
            let (delta, a) = (&ws.deltas[l], &ws.activations[l]);
            for j in 0..n_out {
                let s = scale * delta[j];
                if s != 0.0 {
                    crate::linalg::axpy(s, a, &mut out[wo + j * n_in..wo + (j + 1) * n_in]);
                    out[bo + j] += s;
                }
            }
        }
    }

    fn class(&self, y: f64) -> usize {
        y as usize
    }
}

impl Model for Mlp {
    fn num_params(&self) -> usize {
        self.widths.windows(2).map(|w| w[0] * w[1] + w[1]).sum()
    }

    /// Labels must be class indices 0..K−1.
    fn validate(&self, w: &[f64], data: &Dataset) -> Result<()> {
        check_shapes(w, self.num_params(), data, self.widths[0])?;
        let k = self.classes() as f64;
        if let Some(y) = data.labels().iter().find(|&&y| !(y >= 0.0 && y < k && y.fract() == 0.0)) {
            return Err(Error::invalid("label", y, "a class index in 0..K-1 for the softmax loss"));
        }
        Ok(())
    }

    fn loss(&self, w: &[f64], data: &Dataset, i: usize) -> f64 {
        let mut ws = self.workspace();
        self.forward(w, data.row(i), self.class(data.label(i)), &mut ws)
    }

    fn gradient(&self, w: &[f64], data: &Dataset, i: usize, out: &mut [f64]) {
        let mut ws = self.workspace();
        let y = self.class(data.label(i));
        self.forward(w, data.row(i), y, &mut ws);
        self.backward(w, y, &mut ws);
        out.iter_mut().for_each(|v| *v = 0.0);
        self.add_gradient(1.0, &ws, out);
    }

    /// The factored clipped sum of the module doc: `min(1, C/‖∇ℓ‖)` from
    /// `‖∇ℓ‖² = Σ_l ‖δ_l‖²(‖a_{l−1}‖² + 1)`, then the scaled outer products added in place.
    fn clipped_gradient_sum(&self, w: &[f64], data: &Dataset, batch: &[usize], clip: f64, out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = 0.0);
        let mut ws = self.workspace();
        for &i in batch {
            let y = self.class(data.label(i));
            self.forward(w, data.row(i), y, &mut ws);
            let norm = self.backward(w, y, &mut ws);
            let scale = crate::geometry::clip_scale(norm, clip);
            if scale == 0.0 {
                continue; // a term the factor cannot bound contributes 0 (clip_scale)
            }
            self.add_gradient(scale, &ws, out);
        }
    }

    fn evaluate(&self, w: &[f64], data: &Dataset) -> Result<Evaluation> {
        self.validate(w, data)?;
        let mut ws = self.workspace();
        let (mut total, mut correct) = (0.0, 0usize);
        let last = self.widths.len() - 2;
        for i in 0..data.n() {
            let y = self.class(data.label(i));
            total += self.forward(w, data.row(i), y, &mut ws);
            let logits = &ws.deltas[last];
            let argmax = (0..logits.len()).fold(0, |best, k| if logits[k] > logits[best] { k } else { best });
            correct += usize::from(argmax == y);
        }
        let n = data.n() as f64;
        Ok(Evaluation { mean_loss: total / n, accuracy: Some(correct as f64 / n) })
    }
}
