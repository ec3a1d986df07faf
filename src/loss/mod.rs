//! Losses with per-example (sub)gradients. Every loss here is a generalised linear model
//! `F(w; (x, y)) = ℓ(⟨x, w⟩, y)`, so `∇F = ℓ′(⟨x, w⟩, y)·x` and `‖∇F‖_C ≤ |ℓ′|·‖x‖_C`.
//!
//! | loss | ℓ(m, y) | ℓ′(m, y) (a subgradient) |
//! |---|---|---|
//! | absolute | `|m − y|` | `sign(m − y)` (0 at 0) |
//! | squared | `½(m − y)²` | `m − y` |
//! | logistic (y ∈ {±1}) | `ln(1 + e^{−ym})` | `−y/(1 + e^{ym})` |
//! | hinge (y ∈ {±1}) | `max(0, 1 − ym)` | `−y` if `ym < 1`, else 0 |
//! | linear | `y·m` | `y` |
//! | Geman–McClure | `r²/(1 + r²)`, r = m − y | `2r/(1 + r²)²` |
//!
//! Geman–McClure is smooth and non-convex: |ℓ′| ≤ 3√3/8 ≈ 0.6495 (at r² = 1/3) and |ℓ″| ≤ 2
//! (at r = 0), so with ‖x‖₂ ≤ L each F(·; (x, y)) is 0.65L-Lipschitz and 2L²-smooth, and its
//! gradients are as sparse as x (\[GGKKM\]'s non-convex sparse loss, ψ(r) = r²/(1 + r²)).
//!
//! Labels {0, 1} are mapped to {−1, +1} for the logistic and hinge losses (see [`Loss::label`]).

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::linalg::dot;

/// The GLM losses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Loss {
    /// `|m − y|`.
    Absolute,
    /// `½(m − y)²`.
    Squared,
    /// `ln(1 + e^{−ym})`.
    Logistic,
    /// `max(0, 1 − ym)`.
    Hinge,
    /// `y·m` (a linear loss, as in the lower-bound constructions).
    Linear,
    /// `r²/(1 + r²)`, `r = m − y` (smooth, non-convex, bounded in [0, 1)).
    GemanMcClure,
}

impl Loss {
    /// Parses the CLI name.
    ///
    /// # Errors
    /// `InvalidParameter` for an unknown name.
    pub fn parse(s: &str) -> Result<Loss> {
        match s {
            "absolute" => Ok(Loss::Absolute),
            "squared" => Ok(Loss::Squared),
            "logistic" => Ok(Loss::Logistic),
            "hinge" => Ok(Loss::Hinge),
            "linear" => Ok(Loss::Linear),
            "geman-mcclure" => Ok(Loss::GemanMcClure),
            _ => Err(Error::invalid("--loss", s, "absolute, squared, logistic, hinge, linear or geman-mcclure")),
        }
    }

    /// The label as the loss uses it: {0, 1} → {−1, +1} for logistic and hinge.
    pub fn label(self, y: f64) -> f64 {
        match self {
            Loss::Logistic | Loss::Hinge if y == 0.0 => -1.0,
            _ => y,
        }
    }

    /// Checks that the labels suit the loss ({0, 1} or {±1} for logistic and hinge).
    ///
    /// # Errors
    /// `InvalidParameter` naming the first bad label.
    pub fn check_labels(self, data: &Dataset) -> Result<()> {
        if matches!(self, Loss::Logistic | Loss::Hinge)
            && let Some(y) = data.labels().iter().find(|&&y| !(y == 0.0 || y == 1.0 || y == -1.0))
        {
            return Err(Error::invalid("label", y, "in {0, 1} or {-1, +1} for logistic and hinge losses"));
        }
        Ok(())
    }

    /// `ℓ(m, y)` at the margin m.
    pub fn value_at(self, m: f64, y: f64) -> f64 {
        let y = self.label(y);
        match self {
            Loss::Absolute => (m - y).abs(),
            Loss::Squared => 0.5 * (m - y) * (m - y),
            Loss::Logistic => {
                let t = -y * m;
                if t > 0.0 { t + (-t).exp().ln_1p() } else { t.exp().ln_1p() }
            }
            Loss::Hinge => (1.0 - y * m).max(0.0),
            Loss::Linear => y * m,
            Loss::GemanMcClure => {
                let r2 = (m - y) * (m - y);
                if r2.is_finite() { r2 / (1.0 + r2) } else { 1.0 }
            }
        }
    }

    /// `ℓ′(m, y)`, a subgradient in m.
    pub fn derivative_at(self, m: f64, y: f64) -> f64 {
        let y = self.label(y);
        match self {
            Loss::Absolute => {
                if m > y {
                    1.0
                } else if m < y {
                    -1.0
                } else {
                    0.0
                }
            }
            Loss::Squared => m - y,
            Loss::Logistic => -y / (1.0 + (y * m).exp()),
            Loss::Hinge => {
                if y * m < 1.0 {
                    -y
                } else {
                    0.0
                }
            }
            Loss::Linear => y,
            Loss::GemanMcClure => {
                let r = m - y;
                let q = 1.0 + r * r;
                2.0 * r / (q * q)
            }
        }
    }

    /// `F(w; (x, y))`.
    pub fn value(self, w: &[f64], x: &[f64], y: f64) -> f64 {
        self.value_at(dot(x, w), y)
    }

    /// `out ← ∇F(w; (x, y)) = ℓ′(⟨x, w⟩, y)·x`.
    pub fn gradient(self, w: &[f64], x: &[f64], y: f64, out: &mut [f64]) {
        let g = self.derivative_at(dot(x, w), y);
        for (o, xi) in out.iter_mut().zip(x) {
            *o = g * xi;
        }
    }

    /// The empirical risk `(1/n) Σᵢ F(w; zᵢ)`.
    pub fn empirical_risk(self, w: &[f64], data: &Dataset) -> f64 {
        (0..data.n()).map(|i| self.value(w, data.row(i), data.label(i))).sum::<f64>() / data.n() as f64
    }
}
