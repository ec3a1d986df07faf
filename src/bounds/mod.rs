//! The papers' theorems as functions with explicit constants: each bound is evaluated by a
//! documented function (corrected constants, with the printed ones beside them where they differ),
//! and tests measure the algorithms against them.
//!
//! One folder per paper, one file per theorem group; each paper module's doc is its table of
//! results (theorem, lemma or corollary → the functions evaluating it, corrected and as printed →
//! the file that holds them).

pub mod adaptive_noise;
pub mod dp2;
pub mod dpagd;
pub mod l1;
pub mod sparse;

mod validate;
