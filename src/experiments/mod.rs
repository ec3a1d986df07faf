//! The papers' experiments and settings behind `dpref reproduce`.

pub mod adaptive_noise;
pub mod plot;
pub mod privacy_table;
