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
    /// Print one JSON object instead of the tables: `experiments`, one object per experiment with
    /// its `name`, `summary`, `files` written, verdict(s) (`verdict` or `verdicts` or `claims`) and
    /// the numbers its tables print, unrounded (null for a missing number). The files are written
    /// as without it.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `dpref reproduce`: checks that `--out` is writable before computing anything, runs each
/// experiment (progress on stderr, the report tables on stdout, or with `--json` one JSON object
/// at the end) and links what it wrote in `<out>/index.md` (rewritten after each experiment, so
/// finished results stay linked).
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
        if !args.json {
            write_stdout(&format!("{}\n(written to {})\n\n", outcome.markdown, files.join(", ")))
                .map_err(|e| Error::Io { path: "stdout".into(), message: e.to_string() })?;
        }
        eprintln!("{name}: {:.1} s", outcome.seconds);
        done.push(outcome);
        experiments::write_index(&args.out, &options, &done)?;
    }
    let index = args.out.join("index.md");
    eprintln!("index of this run: {}", index.display());
    if args.json {
        let v = serde_json::json!({
            "quick": args.quick,
            "seed": args.seed,
            "index": index.display().to_string(),
            "experiments": done.iter().map(|o| o.to_json()).collect::<Vec<_>>(),
        });
        write_stdout(&format!("{v}\n")).map_err(|e| Error::Io { path: "stdout".into(), message: e.to_string() })?;
    }
    Ok(())
}
