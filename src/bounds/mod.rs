//! The papers' theorems as functions with explicit constants: each bound is evaluated by a
//! documented function (corrected constants, with the printed ones beside them where they differ),
//! and tests measure the algorithms against them.

pub mod adaptive_noise;
pub mod dp2;
pub mod dpagd;
