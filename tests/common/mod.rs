//! Shared test helpers. Each integration test file includes what it needs with `mod common;`.
#![allow(dead_code)]

pub mod accounting;
pub mod adaptive_runs;
pub mod audit_design;
pub mod box_adagrad;
pub mod check;
pub mod cli;
pub mod cli_data;
pub mod golden;
pub mod l1_data;
pub mod sparse_data;
pub mod stat;
pub mod strategies;
