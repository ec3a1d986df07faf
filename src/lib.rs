//! # dpref — a reference implementation of differentially private optimization
//!
//! dpref implements the algorithms of five research papers line by line from their pseudocode,
//! accounts for their privacy with accountants that never under-report ε, audits that privacy
//! empirically, and checks convergence against the papers' theorems with explicit constants.
//!
//! Three uses: a correctness oracle inside `cargo test` for other DP code; an auditor of other
//! DP implementations (`dpref audit`); a cross-check of the constants in theorems.
//!
//! ## Start here
//!
//! `use dpref::prelude::*;` brings what a user needs to train, account and audit:
//!
//! ```
//! use dpref::prelude::*;
//!
//! // Train PAGAN on a generated dataset at (1, 1e-5)-DP ...
//! let (data, _x_star) = absolute_regression(500, 10, 0.01, &mut Seeds::new(7).stream(Stream::Sampling))?;
//! let mut spec = RunSpec::new(Algorithm::Pagan, RunLoss::Absolute);
//! (spec.epsilon, spec.delta, spec.batch_size, spec.steps) = (Some(1.0), Some(1e-5), Some(50), Some(100));
//! let outcome = spec.run(&data)?;
//! assert!(outcome.run.privacy.epsilon.is_some_and(|e| e <= 1.0));
//!
//! // ... and audit two sample vectors (outputs of a mechanism on neighbouring datasets).
//! let a: Vec<f64> = (0..2000).map(|i| (i % 100) as f64).collect();
//! let b: Vec<f64> = (0..2000).map(|i| (i % 100) as f64 + 50.0).collect();
//! let bound = epsilon_lower_bound(&a, &b, &AuditSettings::default())?;
//! assert!(bound.epsilon > 0.0); // certified at confidence 0.95
//! # Ok::<(), dpref::Error>(())
//! ```
//!
//! ## Map
//!
//! | module | what |
//! |---|---|
//! | [`prelude`] | one `use` line for training, accounting and auditing |
//! | [`error`] | the typed [`Error`] and [`Result`] |
//! | [`rng`] | seeded reproducible streams, separate for sampling and noise |
//! | [`special`] | log-space arithmetic, `ln erfc`, normal CDF, the bracketed root finder |
//! | [`linalg`] | norms over faer; certified basis pursuit ([`linalg::basis_pursuit`]) |
//! | [`noise`] | Gaussian (isotropic, diagonal), Laplace, report-noisy-max/min, exponential mechanism |
//! | [`geometry`] | clipping, projections onto balls, boxes, the simplex and ellipsoids (radial and Euclidean, weighted); mirror maps and certified Bregman steps ([`geometry::mirror`]) |
//! | [`data`] | datasets (dense and sparse), CSV and LIBSVM readers, the papers' synthetic generators |
//! | [`loss`] | losses with per-example (sub)gradients: absolute, squared, logistic, hinge, linear |
//! | [`sampling`] | batch samplers (Poisson, fixed size with and without replacement, full), each naming its accounting event; the truncated geometric law and uniform ordered subsets of \[GGKKM\] Sec. 6.1 |
//! | [`model`] | models with per-example gradients: GLM adapter, sparse GLM ([`model::SparseGlm`]), MLP (factored norms), \[ZCHWB\]'s non-convex test problem |
//! | [`accounting`] | events, RDP and PLD accountants (one [`accounting::Accountant`] trait), conversions, analytic Gaussian, zCDP, composition, calibration, events from other libraries |
//! | [`optim`] | the algorithms, one file each, and [`optim::RunSpec`], the run rules of `dpref run` |
//! | [`bounds`] | the papers' theorems and lemmas as functions with explicit constants (printed and corrected) |
//! | [`audit`] | ε lower bounds from samples, one-run audits, GDP estimates, canary audits, a catalogue of mechanisms |
//! | [`experiments`] | the papers' settings and experiments behind `dpref reproduce` |
//!
//! ## Papers → modules
//!
//! | key | paper | module |
//! |---|---|---|
//! | `[ADFJT]` | Asi, Duchi, Fallah, Javidi, Talwar — Private Adaptive Gradient Methods for Convex Optimization | `optim::adaptive_noise`, `bounds::adaptive_noise` |
//! | `[ZCHWB]` | Zhou, Chen, Hong, Wu, Banerjee — Private Stochastic Non-Convex Optimization: Adaptive Algorithms and Tighter Generalization Bounds | `optim::dpagd`, `model`, `bounds::dpagd` |
//! | `[GGKKM]` | Ghazi, Guzmán, Kamath, Kumar, Manurangsi — Differentially Private Optimization with Sparse Gradients | `optim::sparse` (Algs. 1–7), `bounds::sparse`, `data::sparse_families` |
//! | `[LZLRMS]` | Li, Zaheer, Liu, Reddi, McMahan, Smith — DP Adaptive Optimization with Delayed Preconditioners (DP²) | `optim::dp2`, `bounds::dp2` |
//! | `[AFKT]` | Asi, Feldman, Koren, Talwar — Private Stochastic Convex Optimization: Optimal Rates in l1 Geometry | `optim::l1`, `geometry::mirror`, `bounds::l1`, `data::l1_problems` (Algs. 1–6, the Sec. 5 reduction; the approximate-DP Frank–Wolfe in the library, the CLI pure-ε only) |
//!
//! Venues, arXiv ids and every other work cited (accounting, auditing): the bibliography of
//! `proofs/README.md`.

#![deny(missing_docs)]
#![warn(clippy::all)]

pub mod accounting;
pub mod audit;
pub mod bounds;
pub mod data;
pub mod error;
pub mod experiments;
pub mod geometry;
pub mod linalg;
pub mod loss;
pub mod model;
pub mod noise;
pub mod optim;
pub mod rng;
pub mod sampling;
pub mod special;

pub use error::{Error, Result};

/// What a user needs in one `use dpref::prelude::*;`: run specifications and datasets to train,
/// the event algebra, the RDP accountant and the [`Accountant`](crate::accounting::Accountant)
/// trait (its `compose`/`supports`) to account, the sample audit to audit.
pub mod prelude {
    pub use crate::accounting::{
        Accountant, Calibration, Conversion, DpEvent, EpsilonBound, Neighbouring, RdpAccountant, RdpSettings,
        SamplingScheme, calibrate_noise_multiplier, dp_sgd_event, per_example_sum_gaussian,
    };
    pub use crate::audit::{AuditSettings, EpsilonLowerBound, ThresholdStrategy, epsilon_lower_bound};
    pub use crate::data::{Dataset, absolute_regression};
    pub use crate::geometry::Domain;
    pub use crate::loss::Loss;
    pub use crate::model::{Glm, Mlp, OnData, SparseGlm};
    pub use crate::optim::dp2::Preconditioner;
    pub use crate::optim::dpagd::{Moments, Update};
    pub use crate::optim::run_spec::{Algorithm, RunLoss, RunOutcome, Sampling};
    pub use crate::optim::{
        AdaptiveNoiseConfig, Algorithm1Config, Dp2Config, DpSgdConfig, MinibatchConfig, NoTrace, Observer, OutputPoint,
        Privacy, PrivacyReport, Run, RunSettings, RunSpec, Trace, dp_minibatch, dp_sgd, dp2, dp2_extra_query, dpagd,
        pagan, pasan,
    };
    pub use crate::rng::{Seeds, Stream};
    pub use crate::sampling::BatchSampler;
    pub use crate::{Error, Result};
}

/// The README's Rust examples, compiled and run as doc tests so that the README cannot drift
/// from the API.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
