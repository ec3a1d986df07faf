//! `dpref reproduce sparse`: the \[GGKKM\] experiments. The paper has none; these are the synthetic
//! ones its bounds suggest, sized for two cores:
//!
//! - E1 (`mean.rs`): the projection mechanism against plain Laplace/Gaussian noise, error against
//!   n and s, the sparse and dense regimes;
//! - E2 (`erm.rs`): output perturbation (Algorithm 3) on sparse logistic regression, excess
//!   empirical risk against n;
//! - E3 (`exact.rs`): the sparse exponential mechanism (Algorithm 4), exact privacy and utility;
//! - E4 (`sgd.rs`): bias-reduced sparse SGD (Algorithm 6) and boosting (Algorithm 7) against dense
//!   DP-SGD on a non-convex sparse loss, stationarity, stopping time and cost.
//!
//! Slopes carry 95% bootstrap intervals ([`crate::experiments::fit`]); a slope claim is observed
//! when the interval meets the predicted range (the rate's exponent and the slope of the
//! theorem's explicit bound on the same grid, widened by ±[`TOLERANCE`]).

mod erm;
mod exact;
mod mean;
mod sgd;

use super::fit::Claim;
use super::report::{Options, Progress, Written};
use crate::error::Result;
use crate::rng::Seeds;
use std::path::{Path, PathBuf};

/// The ± widening of every predicted slope range ("about").
pub const TOLERANCE: f64 = 0.1;
/// Bootstrap resamples per interval.
pub const BOOTSTRAP: usize = 2000;
/// The l2 bound L of every row.
pub const L: f64 = 1.0;
/// δ of the Gaussian runs.
pub const DELTA: f64 = 1e-6;
/// ε of E1 and E2 (the classical Gaussian calibration needs ε < 1).
pub const EPSILON: f64 = 0.5;

/// What one experiment contributes to the report.
struct Section {
    claims: Vec<Claim>,
    /// Its settings, in prose.
    intro: String,
    /// Its tables.
    data: String,
    /// The plots and CSVs it wrote.
    files: Vec<PathBuf>,
}

/// The report.
#[derive(Debug, Clone)]
pub struct Report {
    /// The claims, in order.
    pub claims: Vec<Claim>,
    /// The Markdown, its summary for the index, the files written (report, then each plot and its CSV).
    pub written: Written,
}

/// Runs E1–E4; writes `sparse.md` and the plots (`.svg` and `.csv`) under `out`.
///
/// # Errors
/// Algorithm or I/O errors.
pub fn run(options: &Options, out: &Path) -> Result<Report> {
    let progress = Progress::new("sparse", options);
    let root = Seeds::new(options.seed);
    let sections = [
        mean::run(options.quick, root.child(1), &progress, out)?,
        erm::run(options.quick, root.child(2), &progress, out)?,
        exact::run(root.child(3), &progress)?,
        sgd::run(options.quick, root.child(4), &progress)?,
    ];
    let claims: Vec<Claim> = sections.iter().flat_map(|s| s.claims.clone()).collect();
    let observed = claims.iter().filter(|c| c.observed).count();
    let summary = format!("{observed} of {} claims observed", claims.len());
    let mut md = format!(
        "## [GGKKM] experiments: sparse mean estimation (E1), output perturbation (E2), the sparse exponential \
         mechanism (E3), bias-reduced sparse SGD (E4)\n\n{}",
        super::report::settings_block(
            "sparse",
            options,
            &format!("{DELTA:e} (Gaussian runs; Laplace and Algorithm 4 are pure epsilon-DP)"),
            &format!("as stated per experiment; {BOOTSTRAP} bootstrap resamples per interval"),
        )
    );
    sections.iter().for_each(|s| md += &s.intro);
    md += &format!(
        "A slope claim is **observed** when the slope's 95% bootstrap interval meets the predicted range (the rate's \
         exponent to the slope of the theorem's explicit term on the same grid), widened by +-{TOLERANCE}.\n\n### Claims\n\n"
    );
    claims.iter().for_each(|c| md += &format!("{}\n", c.line));
    md += &format!("\n{summary}.\n\n### Data\n\n");
    sections.iter().for_each(|s| md += &s.data);
    let figures = sections.into_iter().flat_map(|s| s.files).collect();
    Ok(Report { claims, written: Written::report(out, "sparse", summary, md, figures)? })
}
