//! \[ZCHWB\] Zhou, Chen, Hong, Wu, Banerjee, "Private Stochastic Non-Convex Optimization: Adaptive
//! Algorithms and Tighter Generalization Bounds" (arXiv 2006.13501): DPAGD and the minibatch
//! optimisers its experiments ran.
//!
//! Two readings, kept apart by name (errata Z7–Z8, proofs/dpagd/dp_gd.md §5):
//! * [`algorithm1`]: the paper's Algorithm 1, the object of all its theorems: full-batch gradient
//!   plus `N(0, σ²I)` with σ an *absolute* std on the mean, moments `φ, ψ` without bias
//!   correction, the cap `v = min(ψ, λ)` on the value (not the state), ν outside the square root,
//!   output `w_R` with R uniform on `{1..T}`; instances DP-GD, DP-RMSProp, DP-Adam ([`Moments`]).
//! * [`minibatch`]: what the experiments trained with (pyvacy on PyTorch): Poisson sampling,
//!   per-example clipping at C, noise multiplier σ on the sum, normalised by the public expected
//!   batch size, then a PyTorch-style SGD / RMSprop / AdaGrad / Adam step (bias correction on,
//!   no λ). The same file serves the DP² paper's baselines.
//!
//! The shared moment recursion of Algorithm 1 lines 5–6 is [`MomentState::step`], one
//! implementation for the three instances.

pub mod algorithm1;
pub mod minibatch;

pub use algorithm1::{Algorithm1Config, Algorithm1Output, dpagd};
pub use minibatch::{MinibatchConfig, Update, dp_minibatch, dp_minibatch_on};

use crate::error::{Error, Result, check};
use serde::Serialize;

/// The moment functions `φ_t, ψ_t` of Algorithm 1 (the paper's Table 1, reconstructed from its
/// Sec. 4.2 prose: erratum Z14, proofs/dpagd/dp_rmsprop.md §5), as recursions with `m_0 = 0`, `ψ_0 = 0`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Moments {
    /// DP-GD: `φ_t = g̃_t`, `ψ_t = 1`; requires ν = 0 and λ = 1, so the step is `η g̃_t`.
    Gd,
    /// DP-RMSProp: `φ_t = g̃_t`, `ψ_t = β2 ψ_{t−1} + (1 − β2) g̃_t²`.
    RmsProp {
        /// β2 ∈ (0, 1).
        beta2: f64,
    },
    /// DP-Adam (no bias correction): `m_t = β1 m_{t−1} + (1 − β1) g̃_t`, ψ as RMSProp.
    Adam {
        /// β1 ∈ [0, 1) (β1 = 0 is DP-RMSProp).
        beta1: f64,
        /// β2 ∈ (0, 1).
        beta2: f64,
    },
}

impl Moments {
    /// The CLI / report name.
    pub fn name(self) -> &'static str {
        match self {
            Moments::Gd => "dp-gd",
            Moments::RmsProp { .. } => "dp-rmsprop",
            Moments::Adam { .. } => "dp-adam",
        }
    }

    /// Checks the β's and the (ν, λ) the instance requires.
    ///
    /// # Errors
    /// `InvalidParameter` naming the offending value.
    pub fn validate(self, nu: f64, lambda: f64) -> Result<()> {
        match self {
            Moments::Gd => {
                if nu != 0.0 || lambda != 1.0 {
                    return Err(Error::invalid("nu/lambda", format!("{nu}/{lambda}"), "0/1 for DP-GD (psi = 1)"));
                }
            }
            Moments::RmsProp { beta2 } | Moments::Adam { beta2, .. } => {
                check::open_unit("beta2", beta2)?;
                check::positive("nu", nu)?;
                if lambda.is_nan() || lambda <= 0.0 {
                    return Err(Error::invalid("lambda", lambda, "> 0 (infinite: no cap)"));
                }
                if let Moments::Adam { beta1, .. } = self
                    && !(0.0..1.0).contains(&beta1)
                {
                    return Err(Error::invalid("beta1", beta1, "in [0, 1)"));
                }
            }
        }
        Ok(())
    }
}

/// The running moments of Algorithm 1: `m_t`, the *unclipped* state `ψ_t`, and `v_t = min(ψ_t, λ)`.
#[derive(Debug, Clone, PartialEq)]
pub struct MomentState {
    /// m_t.
    pub m: Vec<f64>,
    /// ψ_t (the λ cap is applied to its value, never to this state: erratum Z6).
    pub psi: Vec<f64>,
    /// v_t = min(ψ_t, λ).
    pub v: Vec<f64>,
}

impl MomentState {
    /// `m_0 = 0`, `ψ_0 = 0`.
    pub fn new(p: usize) -> Self {
        MomentState { m: vec![0.0; p], psi: vec![0.0; p], v: vec![0.0; p] }
    }

    /// Algorithm 1 lines 5–6 for one released `g̃_t`: updates `m_t, ψ_t, v_t` and writes
    /// `w_{t+1} = w_t − η m_t ⊘ (√v_t + ν)` into `w_next`.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        moments: Moments,
        eta: f64,
        nu: f64,
        lambda: f64,
        w: &[f64],
        g_tilde: &[f64],
        w_next: &mut [f64],
    ) {
        for i in 0..w.len() {
            let g = g_tilde[i];
            // line 5: m_t = φ_t(g̃_1..g̃_t); v_t = min(ψ_t(g̃_1..g̃_t), λ)
            let (m, v) = match moments {
                Moments::Gd => (g, 1.0),
                Moments::RmsProp { beta2 } => {
                    self.psi[i] = beta2 * self.psi[i] + (1.0 - beta2) * g * g;
                    (g, self.psi[i].min(lambda))
                }
                Moments::Adam { beta1, beta2 } => {
                    self.psi[i] = beta2 * self.psi[i] + (1.0 - beta2) * g * g;
                    (beta1 * self.m[i] + (1.0 - beta1) * g, self.psi[i].min(lambda))
                }
            };
            self.m[i] = m;
            self.v[i] = v;
            // line 6: w_{t+1} = w_t − η m_t ⊘ (√v_t + ν)
            w_next[i] = w[i] - eta * m / (v.sqrt() + nu);
        }
    }
}
