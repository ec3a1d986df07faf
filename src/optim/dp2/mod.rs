//! \[LZLRMS\] Li, Zaheer, Liu, Reddi, McMahan, Smith, "Differentially Private Adaptive Optimization
//! with Delayed Preconditioners" (ICLR 2023, arXiv 2212.00309): DP² and its ablations.
//!
//! * [`algorithm1`]: Algorithm 1 (DP²-RMSProp) and its one-line variants of Appendix D
//!   (DP²-AdaGrad, DP²-Yogi with the misprint resolved, the non-private delayed-preconditioner
//!   method as σ = 0 and C = ∞), and ablation variant 2 (noise before preconditioning).
//! * [`extra_query`]: ablation variant 1 (Algorithm 2, a second data query per adaptive step).
//! * The baselines DP-RMSProp, DP-AdaGrad and DP-Adam are the minibatch optimisers of
//!   [`crate::optim::dpagd::minibatch`] (one implementation for both papers).
//!
//! Notation (the paper writes ε for both): `eps_adapt` is the adaptivity constant of `D = √v + ε`; privacy ε
//! is reported by the accountant. The preconditioner is a function of released noisy gradients
//! only ([`replay_preconditioners`] recomputes it from the transcript without the data).

pub mod algorithm1;
pub mod extra_query;

pub use algorithm1::{Dp2Config, NoiseOrder, dp2};
pub use extra_query::dp2_extra_query;

use crate::error::{Error, Result, check};
use serde::Serialize;

/// How the averaged pseudo-gradient `ḡ = G/s1` updates the preconditioner v (Alg. 1, line 5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Preconditioner {
    /// DP²-RMSProp: `v ← β v + (1 − β) ḡ²` (the authors' code: β = 0.9).
    RmsProp {
        /// β ∈ (0, 1).
        beta: f64,
    },
    /// DP²-AdaGrad (App. D): `v ← v + ḡ²`.
    AdaGrad,
    /// DP²-Yogi (App. D, corrected; erratum 6): `v ← v + (1 − β)·sign(ḡ² − v)·ḡ²`. The printed
    /// `sign(G/s1 − v²)` compares a gradient with a squared second moment.
    Yogi {
        /// β ∈ (0, 1).
        beta: f64,
    },
}

impl Preconditioner {
    /// The CLI / report name of the DP² method.
    pub fn name(self) -> &'static str {
        match self {
            Preconditioner::RmsProp { .. } => "dp2-rmsprop",
            Preconditioner::AdaGrad => "dp2-adagrad",
            Preconditioner::Yogi { .. } => "dp2-yogi",
        }
    }

    pub(crate) fn validate(self) -> Result<()> {
        match self {
            Preconditioner::RmsProp { beta } | Preconditioner::Yogi { beta } => {
                check::open_unit("beta", beta).map(|_| ())
            }
            Preconditioner::AdaGrad => Ok(()),
        }
    }

    /// One preconditioner update from the averaged pseudo-gradient `g_bar`, in place.
    pub fn update(self, v: &mut [f64], g_bar: &[f64]) {
        for (vj, &g) in v.iter_mut().zip(g_bar) {
            let g2 = g * g;
            *vj = match self {
                Preconditioner::RmsProp { beta } => beta * *vj + (1.0 - beta) * g2,
                Preconditioner::AdaGrad => *vj + g2,
                Preconditioner::Yogi { beta } => *vj + (1.0 - beta) * crate::special::sign(g2 - *vj) * g2,
            };
        }
    }
}

/// `D = √v + ε` coordinatewise, into `d`.
pub fn preconditioner_diagonal(v: &[f64], eps_adapt: f64, d: &mut [f64]) {
    for (dj, vj) in d.iter_mut().zip(v) {
        *dj = vj.sqrt() + eps_adapt;
    }
}

/// Whether step t (0-indexed) of a cycle of `s1` SGD steps then `s2` adaptive steps is an SGD
/// step: `t mod (s1 + s2) < s1` (P1; Alg. 1's phase rule, not App. B's `t mod 2s ≤ s`, erratum 5).
pub fn is_sgd_step(t: u64, s1: u64, s2: u64) -> bool {
    t % (s1 + s2) < s1
}

/// The preconditioner sequence of Algorithm 1 recomputed from the released transcript alone
/// (P5, the privacy barrier): for each adaptive step t, the `D^t` it used. `released[t]` is g̃^t.
/// No data enters: v is post-processing of the SGD-phase releases.
///
/// # Errors
/// `InvalidParameter` for s1 or s2 = 0, an invalid preconditioner or a ragged transcript.
pub fn replay_preconditioners(
    released: &[Vec<f64>],
    preconditioner: Preconditioner,
    s1: u64,
    s2: u64,
    eps_adapt: f64,
) -> Result<Vec<(u64, Vec<f64>)>> {
    preconditioner.validate()?;
    check::count("delay s1", s1)?;
    check::count("delay s2", s2)?;
    let p = released.first().map_or(0, Vec::len);
    if released.iter().any(|g| g.len() != p) {
        return Err(Error::invalid("transcript", "ragged", "released gradients of one length"));
    }
    let (mut v, mut acc, mut d) = (vec![0.0; p], vec![0.0; p], vec![0.0; p]);
    let mut out = Vec::new();
    for (t, g) in released.iter().enumerate() {
        let t = t as u64;
        let phase = t % (s1 + s2);
        if phase == 0 {
            acc.iter_mut().for_each(|a| *a = 0.0);
        }
        if phase == s1 {
            let g_bar: Vec<f64> = acc.iter().map(|a| a / s1 as f64).collect();
            preconditioner.update(&mut v, &g_bar);
            acc.iter_mut().for_each(|a| *a = 0.0);
        }
        if phase >= s1 {
            preconditioner_diagonal(&v, eps_adapt, &mut d);
            out.push((t, d.clone()));
        }
        crate::linalg::axpy(1.0, g, &mut acc);
    }
    Ok(out)
}
