//! A GLM loss on a [`SparseDataset`]: per-example gradients `ℓ′(⟨x, w⟩, y)·x` touch only the
//! record's non-zeros, so a batch's clipped (and preconditioned) sum costs O(Σ nnz(xᵢ)) plus the
//! O(p) zeroing of the accumulator, never O(b·p) (\[LZLRMS\] issue requirement: sparse gradients
//! handled sparsely).
//!
//! With `uᵢ = ℓ′(mᵢ, yᵢ)·xᵢ ⊘ D`: `‖uᵢ‖ = |ℓ′(mᵢ, yᵢ)|·(Σ_{j∈supp xᵢ} (x_{ij}/D_j)²)^{1/2}`, and the
//! clipped contribution `min(1, C/‖uᵢ‖)·uᵢ` is added on the support only.

use super::{ClippedSum, Evaluation, GradientOracle};
use crate::data::sparse::SparseDataset;
use crate::error::{Error, Result, check};
use crate::loss::Loss;

/// A [`Loss`] on sparse records (p = d).
#[derive(Debug, Clone, Copy)]
pub struct SparseGlm<'a> {
    /// The loss ℓ.
    pub loss: Loss,
    /// The records.
    pub data: &'a SparseDataset,
}

impl SparseGlm<'_> {
    /// `⟨xᵢ, w⟩` over the support of xᵢ.
    fn margin(&self, w: &[f64], i: usize) -> f64 {
        let (idx, val) = self.data.row(i);
        idx.iter().zip(val).map(|(&j, &x)| x * w[j]).sum()
    }

    /// The loss `ℓ(⟨xᵢ, w⟩, yᵢ)` of record i.
    pub fn loss_at(&self, w: &[f64], i: usize) -> f64 {
        self.loss.value_at(self.margin(w, i), self.data.label(i))
    }
}

impl GradientOracle for SparseGlm<'_> {
    fn num_params(&self) -> usize {
        self.data.d()
    }

    fn num_records(&self) -> usize {
        self.data.n()
    }

    fn validate(&self, w: &[f64]) -> Result<()> {
        if w.len() != self.data.d() {
            return Err(Error::invalid("parameter vector w", w.len(), "of the data's dimension d"));
        }
        check::all_finite("w", w)?;
        if matches!(self.loss, Loss::Logistic | Loss::Hinge)
            && let Some(y) = self.data.labels().iter().find(|&&y| !(y == 0.0 || y == 1.0 || y == -1.0))
        {
            return Err(Error::invalid("label", y, "in {0, 1} or {-1, +1} for logistic and hinge losses"));
        }
        Ok(())
    }

    fn preconditioned_clipped_sum(&self, w: &[f64], query: ClippedSum<'_>, out: &mut [f64]) {
        let ClippedSum { batch, precondition, clip } = query;
        out.iter_mut().for_each(|v| *v = 0.0);
        for &i in batch {
            let (idx, val) = self.data.row(i);
            let g = self.loss.derivative_at(self.margin(w, i), self.data.label(i));
            if g == 0.0 {
                continue;
            }
            let d = |j: usize| precondition.map_or(1.0, |d| d[j]);
            let squared = idx.iter().zip(val).map(|(&j, &x)| (x / d(j)).powi(2)).sum::<f64>();
            let scale = crate::geometry::clip_scale_of_squared(g, squared, clip);
            if scale == 0.0 {
                continue; // a term the factor cannot bound contributes 0 (clip_scale)
            }
            for (&j, &x) in idx.iter().zip(val) {
                out[j] += scale * (g * x / d(j));
            }
        }
    }

    fn evaluate(&self, w: &[f64]) -> Result<Evaluation> {
        self.validate(w)?;
        let n = self.data.n() as f64;
        let mean_loss = (0..self.data.n()).map(|i| self.loss_at(w, i)).sum::<f64>() / n;
        let margins: Vec<f64> = (0..self.data.n()).map(|i| self.margin(w, i)).collect();
        let accuracy = matches!(self.loss, Loss::Logistic | Loss::Hinge).then(|| {
            let correct =
                margins.iter().enumerate().filter(|&(i, &m)| m * self.loss.label(self.data.label(i)) > 0.0).count();
            correct as f64 / n
        });
        Ok(Evaluation { mean_loss, accuracy })
    }
}
