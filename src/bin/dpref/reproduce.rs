//! `reproduce`: the papers' experiments.

use crate::flags::whole_u64;
use crate::format::write_stdout;
use clap::Args;
use dpref::error::{Error, Result};
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct ReproduceArgs {
    /// Experiments to run (default: all). Available: privacy, adaptive-noise, dpagd, dp2, l1, sparse.
    pub(crate) experiments: Vec<String>,
    /// Shrink every experiment to finish in a few minutes on two cores.
    #[arg(long)]
    pub(crate) quick: bool,
    /// Output directory for the Markdown reports, SVG plots, their CSV data and index.md (checked
    /// writable before any computing).
    #[arg(long, default_value = "report")]
    pub(crate) out: PathBuf,
    /// Seed of all randomness.
    #[arg(long, default_value_t = 0, value_parser = whole_u64)]
    pub(crate) seed: u64,
}

/// `dpref reproduce`: checks that `--out` is writable before computing anything, runs each
/// experiment (progress on stderr, the report tables on stdout) and links what it wrote in
/// `<out>/index.md` (rewritten after each experiment, so finished results stay linked).
pub(crate) fn reproduce(args: &ReproduceArgs) -> Result<()> {
    use dpref::experiments;
    let selected: Vec<String> = if args.experiments.is_empty() {
        experiments::NAMES.iter().map(|s| s.to_string()).collect()
    } else {
        args.experiments.clone()
    };
    for name in &selected {
        if !experiments::NAMES.contains(&name.as_str()) {
            return Err(Error::invalid("experiment", name, experiments::NAMES_CONSTRAINT));
        }
    }
    experiments::check_output_dir(&args.out)?;
    let options = experiments::Options { quick: args.quick, seed: args.seed, progress: true };
    let mut done = Vec::new();
    for name in &selected {
        let outcome = experiments::run_named(name, &options, &args.out)?;
        let files: Vec<String> = outcome.files.iter().map(|p| p.display().to_string()).collect();
        // A closed stdout (`| head`) is not an error: the files are still written.
        // The timing goes to stderr: stdout is the same for the same seed, byte for byte.
        write_stdout(&format!("{}\n(written to {})\n\n", outcome.markdown, files.join(", ")))
            .map_err(|e| Error::Io { path: "stdout".into(), message: e.to_string() })?;
        eprintln!("{name}: {:.1} s", outcome.seconds);
        done.push(outcome);
        experiments::write_index(&args.out, &options, &done)?;
    }
    eprintln!("index of this run: {}", args.out.join("index.md").display());
    Ok(())
}
