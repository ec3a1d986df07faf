//! A non-convex test problem for \[ZCHWB\]'s theorems: `ℓ(w, z) = Σᵢ φ(wᵢ − zᵢ)` with
//! `φ(u) = u²/(1 + u²)`, which satisfies Assumptions A1 and A2 with explicit constants:
//! `φ′(u) = 2u/(1 + u²)²`, `|φ′| ≤ 3√3/8` (at u² = 1/3), `φ″(u) = (2 − 6u²)/(1 + u²)³ ∈ [−1/2, 2]`,
//! so `G = (3√3/8)·√p`, `L = 2`, `ℓ* = 0`. With `zᵢ` i.i.d. uniform on a finite support the
//! population loss and gradient are exact finite sums ([`SeparableNonConvex::population_gradient`]).

use super::Model;
use crate::data::Dataset;
use crate::error::{Error, Result};

/// `φ(u) = u²/(1 + u²)`.
pub fn phi(u: f64) -> f64 {
    let u2 = u * u;
    u2 / (1.0 + u2)
}

/// `φ′(u) = 2u/(1 + u²)²`.
pub fn phi_prime(u: f64) -> f64 {
    let s = 1.0 + u * u;
    2.0 * u / (s * s)
}

/// `max |φ′| = 3√3/8`.
pub const PHI_PRIME_MAX: f64 = 0.649_519_052_838_329;
/// The smoothness constant L = max |φ″| = 2.
pub const SMOOTHNESS_L: f64 = 2.0;

/// `ℓ(w, z) = Σᵢ φ(wᵢ − zᵢ)` on p-dimensional records (labels unused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeparableNonConvex {
    /// p.
    pub dim: usize,
}

impl SeparableNonConvex {
    /// The gradient bound `G = (3√3/8)·√p` of Assumption A1.
    pub fn gradient_bound(&self) -> f64 {
        PHI_PRIME_MAX * (self.dim as f64).sqrt()
    }

    /// `f(w) = E ℓ(w, z)` for `zᵢ` i.i.d. uniform on `support`.
    pub fn population_loss(&self, w: &[f64], support: &[f64]) -> f64 {
        let k = support.len() as f64;
        w.iter().map(|wi| support.iter().map(|s| phi(wi - s)).sum::<f64>() / k).sum()
    }

    /// `∇f(w)ᵢ = E φ′(wᵢ − zᵢ)` for `zᵢ` i.i.d. uniform on `support`.
    pub fn population_gradient(&self, w: &[f64], support: &[f64]) -> Vec<f64> {
        let k = support.len() as f64;
        w.iter().map(|wi| support.iter().map(|s| phi_prime(wi - s)).sum::<f64>() / k).collect()
    }
}

impl Model for SeparableNonConvex {
    fn num_params(&self) -> usize {
        self.dim
    }

    fn validate(&self, w: &[f64], data: &Dataset) -> Result<()> {
        if data.d() != self.dim || w.len() != self.dim {
            return Err(Error::invalid("dimension", format!("data {}, w {}", data.d(), w.len()), "equal to p"));
        }
        crate::error::check::all_finite("w", w)
    }

    fn loss(&self, w: &[f64], data: &Dataset, i: usize) -> f64 {
        w.iter().zip(data.row(i)).map(|(wi, zi)| phi(wi - zi)).sum()
    }

    fn gradient(&self, w: &[f64], data: &Dataset, i: usize, out: &mut [f64]) {
        for ((o, wi), zi) in out.iter_mut().zip(w).zip(data.row(i)) {
            *o = phi_prime(wi - zi);
        }
    }
}
