//! # dpref — a reference implementation of differentially private optimization
//!
//! dpref implements the algorithms of five research papers line by line from their pseudocode,
//! accounts for their privacy with accountants that never under-report ε, audits that privacy
//! empirically, and checks convergence against the papers' theorems with explicit constants.
//!
//! Three uses: a correctness oracle inside `cargo test` for other DP code; an auditor of other
//! DP implementations (`dpref audit`); a cross-check of the constants in theorems.
//!
//! ## Map
//!
//! | module | what |
//! |---|---|
//! | [`error`] | the typed [`Error`] and [`Result`] |
//! | [`rng`] | seeded reproducible streams, separate for sampling and noise |
//! | [`special`] | log-space arithmetic, `ln erfc`, normal CDF, the bracketed root finder |
//! | [`linalg`] | norms over faer |
//! | [`noise`] | Gaussian (isotropic, diagonal), Laplace, report-noisy-max/min, exponential mechanism |
//! | [`model`] | models with per-example gradients: GLM adapter, MLP (factored norms), \[ZCHWB\]'s non-convex test problem |
//! | [`accounting`] | events, RDP accountant, conversions, analytic Gaussian, zCDP, composition, calibration |
//! | [`experiments`] | the papers' settings and experiments behind `dpref reproduce` |
//!
//! ## Papers → modules
//!
//! | key | paper | module |
//! |---|---|---|
//! | `[ADFJT]` | Asi, Duchi, Fallah, Javidi, Talwar — Private Adaptive Gradient Methods for Convex Optimization | `optim::adaptive_noise`, `bounds::adaptive_noise` |
//! | `[ZCHWB]` | Zhou, Chen, Hong, Wu, Banerjee — Private Stochastic Non-Convex Optimization: Adaptive Algorithms and Tighter Generalization Bounds | `optim::dpagd`, `model`, `bounds::dpagd` |
//! | `[GGKKM]` | Ghazi, Guzmán, Kamath, Kumar, Manurangsi — Differentially Private Optimization with Sparse Gradients | `optim::sparse` (planned) |
//! | `[LZLRMS]` | Li, Zaheer, Liu, Reddi, McMahan, Smith — DP Adaptive Optimization with Delayed Preconditioners (DP²) | `optim::dp2`, `bounds::dp2` |
//! | `[AFKT]` | Asi, Feldman, Koren, Talwar — Private Stochastic Convex Optimization: Optimal Rates in l1 Geometry | `optim::l1` (planned) |
//!
//! Accounting references are cited where used, with arXiv id and version.

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

/// The README's Rust examples, compiled and run as doc tests so that the README cannot drift
/// from the API.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
