//! Differentiable models with per-example gradients, for the algorithms whose parameters are not
//! a GLM weight vector (\[ZCHWB\]'s non-convex problems and its MLP experiment).
//!
//! A [`Model`] maps parameters `w ∈ R^p` and a record `zᵢ` of a [`Dataset`] to a loss `ℓ(w, zᵢ)`
//! and its gradient. The one shared private step is [`Model::clipped_gradient_sum`]:
//! `Σ_{i∈B} clip_C(∇ℓ(w, zᵢ))` with `clip_C(g) = g·min(1, C/‖g‖₂)` ([`crate::geometry::clip_l2`]).
//! Its default materialises each per-example gradient; [`Mlp`] overrides it with a version that
//! computes each norm from per-layer factors and never forms the p-vector (differentially tested
//! against the default in `tests/model.rs`).
//!
//! | model | ℓ(w, z) | file |
//! |---|---|---|
//! | [`Glm`] | `F(w; (x, y))` of a [`Loss`] | here |
//! | [`Mlp`] | softmax cross-entropy of a ReLU network | [`mlp`] |
//! | [`nonconvex::SeparableNonConvex`] | `Σⱼ φ(wⱼ − zⱼ)`, `φ(u) = u²/(1+u²)` | [`nonconvex`] |

pub mod mlp;
pub mod nonconvex;
pub mod sparse_glm;
pub mod synthetic;

pub use mlp::Mlp;
pub use sparse_glm::SparseGlm;

use crate::data::Dataset;
use crate::error::{Result, check};
use crate::loss::Loss;

/// Mean loss and, for classifiers, accuracy of a parameter vector on a dataset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// `(1/n) Σᵢ ℓ(w, zᵢ)`.
    pub mean_loss: f64,
    /// Fraction of records classified correctly (`None` for non-classifiers).
    pub accuracy: Option<f64>,
}

/// A loss `ℓ(w, z)` over parameters `w ∈ R^p` with per-example gradients.
pub trait Model: Sync + Send {
    /// p, the number of parameters.
    fn num_params(&self) -> usize;

    /// Checks `w` (length p, finite) and that the data suit the model (dimension, labels).
    ///
    /// # Errors
    /// `InvalidParameter` or `NonFinite` naming the problem.
    fn validate(&self, w: &[f64], data: &Dataset) -> Result<()>;

    /// `ℓ(w, zᵢ)`.
    fn loss(&self, w: &[f64], data: &Dataset, i: usize) -> f64;

    /// `out ← ∇ℓ(w, zᵢ)` (`out` has length p).
    fn gradient(&self, w: &[f64], data: &Dataset, i: usize, out: &mut [f64]);

    /// `out ← Σ_{i∈batch} clip_C(∇ℓ(w, zᵢ))`; `C = ∞` adds the gradients unclipped.
    fn clipped_gradient_sum(&self, w: &[f64], data: &Dataset, batch: &[usize], clip: f64, out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = 0.0);
        let mut g = vec![0.0; self.num_params()];
        for &i in batch {
            self.gradient(w, data, i, &mut g);
            crate::geometry::clip_l2(&mut g, clip);
            crate::linalg::axpy(1.0, &g, out);
        }
    }

    /// Mean loss (and accuracy for classifiers) of `w` on `data`.
    ///
    /// # Errors
    /// As [`Model::validate`].
    fn evaluate(&self, w: &[f64], data: &Dataset) -> Result<Evaluation> {
        self.validate(w, data)?;
        let total: f64 = (0..data.n()).map(|i| self.loss(w, data, i)).sum();
        Ok(Evaluation { mean_loss: total / data.n() as f64, accuracy: None })
    }
}

/// The one data access of a private step: the records B of a batch, an optional diagonal
/// preconditioner D and the clip C of `Σ_{i∈B} clip_C(∇ℓ(w, zᵢ) ⊘ D)`
/// ([`GradientOracle::preconditioned_clipped_sum`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClippedSum<'a> {
    /// B, the records summed (indices into the bound data).
    pub batch: &'a [usize],
    /// D, one positive divisor per parameter (`None`: D = 1).
    pub precondition: Option<&'a [f64]>,
    /// C > 0 (`f64::INFINITY`: unclipped).
    pub clip: f64,
}

impl<'a> ClippedSum<'a> {
    /// `Σ_{i∈B} clip_C(∇ℓ(w, zᵢ))`: no preconditioner.
    pub fn new(batch: &'a [usize], clip: f64) -> Self {
        ClippedSum { batch, precondition: None, clip }
    }

    /// The same sum with each gradient divided by D before clipping (DP²'s "precondition, then
    /// clip").
    pub fn preconditioned(self, d: &'a [f64]) -> Self {
        ClippedSum { precondition: Some(d), ..self }
    }
}

/// A model bound to its (private) dataset, as the DP optimisers query it: the one data access
/// of a step is [`GradientOracle::preconditioned_clipped_sum`],
/// `Σ_{i∈B} clip_C(∇ℓ(w, zᵢ) ⊘ D)` with an optional diagonal preconditioner D (DP²'s
/// "precondition, then clip"; D = 1 otherwise). Implemented for a [`Model`] on a dense
/// [`Dataset`] ([`OnData`]) and for sparse GLMs ([`SparseGlm`], cost O(nnz of the batch)).
pub trait GradientOracle: Sync {
    /// p, the number of parameters.
    fn num_params(&self) -> usize;
    /// n, the number of records.
    fn num_records(&self) -> usize;
    /// Checks a parameter vector and that the data suit the model.
    ///
    /// # Errors
    /// `InvalidParameter` or `NonFinite` naming the problem.
    fn validate(&self, w: &[f64]) -> Result<()>;
    /// `out ← Σ_{i∈B} clip_C(∇ℓ(w, zᵢ) ⊘ D)` for the query's batch B, preconditioner D
    /// (`None`: D = 1) and clip C (C = ∞ adds the preconditioned gradients unclipped).
    fn preconditioned_clipped_sum(&self, w: &[f64], query: ClippedSum<'_>, out: &mut [f64]);
    /// Mean loss (and accuracy for classifiers) of `w` on the bound data.
    ///
    /// # Errors
    /// As [`GradientOracle::validate`].
    fn evaluate(&self, w: &[f64]) -> Result<Evaluation>;
}

/// A [`Model`] bound to a dense [`Dataset`].
#[derive(Debug, Clone, Copy)]
pub struct OnData<'a, M: Model> {
    /// The model.
    pub model: &'a M,
    /// Its data.
    pub data: &'a Dataset,
}

impl<M: Model> GradientOracle for OnData<'_, M> {
    fn num_params(&self) -> usize {
        self.model.num_params()
    }

    fn num_records(&self) -> usize {
        self.data.n()
    }

    fn validate(&self, w: &[f64]) -> Result<()> {
        self.model.validate(w, self.data)
    }

    /// Without a preconditioner this is [`Model::clipped_gradient_sum`] (the MLP's factored
    /// version); with one, each gradient is materialised, divided by D, clipped and added.
    fn preconditioned_clipped_sum(&self, w: &[f64], query: ClippedSum<'_>, out: &mut [f64]) {
        let ClippedSum { batch, precondition, clip } = query;
        let Some(d) = precondition else {
            return self.model.clipped_gradient_sum(w, self.data, batch, clip, out);
        };
        out.iter_mut().for_each(|v| *v = 0.0);
        let mut g = vec![0.0; self.model.num_params()];
        for &i in batch {
            self.model.gradient(w, self.data, i, &mut g);
            for (gj, dj) in g.iter_mut().zip(d) {
                *gj /= dj;
            }
            crate::geometry::clip_l2(&mut g, clip);
            crate::linalg::axpy(1.0, &g, out);
        }
    }

    fn evaluate(&self, w: &[f64]) -> Result<Evaluation> {
        self.model.evaluate(w, self.data)
    }
}

/// A GLM loss `F(w; (x, y)) = ℓ(⟨x, w⟩, y)` over d features as a [`Model`] (p = d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Glm {
    /// The loss ℓ.
    pub loss: Loss,
    /// d.
    pub dim: usize,
}

impl Glm {
    /// The GLM of `loss` on `dim` features.
    ///
    /// # Errors
    /// `Empty` for `dim = 0`.
    pub fn new(loss: Loss, dim: usize) -> Result<Self> {
        if dim == 0 {
            return Err(crate::Error::Empty { what: "feature vector" });
        }
        Ok(Glm { loss, dim })
    }
}

/// Checks that `w` has length p and finite entries and that the records have `d` features.
pub(crate) fn check_shapes(w: &[f64], p: usize, data: &Dataset, d: usize) -> Result<()> {
    if w.len() != p {
        return Err(crate::Error::invalid("parameter vector w", w.len(), "of the model's length p"));
    }
    if data.d() != d {
        return Err(crate::Error::invalid("data dimension", data.d(), "equal to the model's input dimension"));
    }
    check::all_finite("w", w)
}

impl Model for Glm {
    fn num_params(&self) -> usize {
        self.dim
    }

    fn validate(&self, w: &[f64], data: &Dataset) -> Result<()> {
        check_shapes(w, self.dim, data, self.dim)?;
        self.loss.check_labels(data)
    }

    fn loss(&self, w: &[f64], data: &Dataset, i: usize) -> f64 {
        self.loss.value(w, data.row(i), data.label(i))
    }

    fn gradient(&self, w: &[f64], data: &Dataset, i: usize, out: &mut [f64]) {
        self.loss.gradient(w, data.row(i), data.label(i), out);
    }

    fn evaluate(&self, w: &[f64], data: &Dataset) -> Result<Evaluation> {
        self.validate(w, data)?;
        let n = data.n() as f64;
        let mean_loss = (0..data.n()).map(|i| self.loss(w, data, i)).sum::<f64>() / n;
        let accuracy = matches!(self.loss, Loss::Logistic | Loss::Hinge).then(|| {
            let correct = (0..data.n())
                .filter(|&i| crate::linalg::dot(data.row(i), w) * self.loss.label(data.label(i)) > 0.0)
                .count();
            correct as f64 / n
        });
        Ok(Evaluation { mean_loss, accuracy })
    }
}
