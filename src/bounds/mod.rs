//! The papers' theorems as functions with explicit constants: each bound is evaluated by a
//! documented function (corrected constants, with the printed ones beside them where they differ),
//! and tests measure the algorithms against them.
//!
//! One folder per paper, one file per theorem group; each paper module's doc is its table of
//! results (theorem, lemma or corollary → the functions evaluating it, corrected and as printed →
//! the file that holds them).
//!
//! Every public function here returns either an `Err` or finite values: a result that overflows
//! f64 (or would be NaN) is a `Numerical` error, in addition to the errors each function's
//! `# Errors` section lists, and never `Ok(∞)` or `Ok(NaN)` (`tests/bounds_*.rs`,
//! `prop_extreme_finite_inputs_never_give_a_non_finite_ok`).

pub mod adaptive_noise;
pub mod dp2;
pub mod dpagd;
pub mod l1;
pub mod sparse;

mod validate;
