//! The papers' experiments and settings behind `dpref reproduce`.

pub mod privacy_table;
