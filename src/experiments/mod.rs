//! The papers' experiments and settings behind `dpref reproduce`.

pub mod adaptive_noise;
pub mod dp2;
pub mod dpagd;
pub mod plot;
pub mod privacy_table;
