//! What every report shares: the settings block (how the numbers were made), the output-directory
//! check, progress lines on stderr and `index.md`.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

/// How `reproduce` runs an experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `--quick`: the shrunk settings.
    pub quick: bool,
    /// `--seed`: the root of all randomness.
    pub seed: u64,
    /// Print progress lines on stderr.
    pub progress: bool,
}

impl Options {
    /// Quick or full, silent.
    pub fn new(quick: bool, seed: u64) -> Self {
        Options { quick, seed, progress: false }
    }

    /// `quick` under `--quick`, else `full` (a size, a count, a grid).
    pub fn pick<T>(&self, quick: T, full: T) -> T {
        if self.quick { quick } else { full }
    }
}

/// Progress lines on stderr (`[experiment  12.3 s] message`), or nothing when disabled.
///
/// Plain lines rather than a redrawn bar, so that the log reads the same in a terminal, a pipe
/// and a CI log; stdout keeps only the report tables.
#[derive(Debug)]
pub struct Progress {
    experiment: &'static str,
    enabled: bool,
    start: Instant,
}

impl Progress {
    /// Progress of `experiment`, printed when `options.progress`.
    pub fn new(experiment: &'static str, options: &Options) -> Self {
        Progress { experiment, enabled: options.progress, start: Instant::now() }
    }

    /// Prints one line.
    pub fn say(&self, message: impl std::fmt::Display) {
        if self.enabled {
            eprintln!("[{} {:6.1} s] {message}", self.experiment, self.start.elapsed().as_secs_f64());
        }
    }
}

/// The git commit the report comes from: `DPREF_GIT_COMMIT` at compile time if set, else
/// `git rev-parse` on the crate's source directory at run time (marked when that tree has
/// uncommitted changes), else `"unknown"` (no git, or not built from a checkout).
pub fn git_commit() -> String {
    if let Some(c) = option_env!("DPREF_GIT_COMMIT") {
        return c.to_string();
    }
    static COMMIT: OnceLock<String> = OnceLock::new();
    COMMIT
        .get_or_init(|| {
            let dir = env!("CARGO_MANIFEST_DIR");
            let git = |args: &[&str]| -> Option<String> {
                let o = std::process::Command::new("git")
                    .arg("-C")
                    .arg(dir)
                    .args(args)
                    .stdin(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .output()
                    .ok()?;
                o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
            };
            match git(&["rev-parse", "--short=12", "HEAD"]) {
                Some(c) if !c.is_empty() => {
                    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
                    format!("{c}{} (source tree at run time)", if dirty { " with uncommitted changes" } else { "" })
                }
                _ => "unknown".to_string(),
            }
        })
        .clone()
}

/// The command that reproduces a report.
pub fn command(experiment: &str, options: &Options) -> String {
    format!("dpref reproduce {experiment}{} --seed {}", if options.quick { " --quick" } else { "" }, options.seed)
}

/// The settings block at the top of every report: quick or full, seed, crate version, git
/// commit, δ, repetitions, and the command that reproduces it.
pub fn settings_block(experiment: &str, options: &Options, delta: &str, repetitions: &str) -> String {
    format!(
        "| setting | value |\n|---|---|\n\
         | mode | {} |\n\
         | seed | {} |\n\
         | dpref version | {} |\n\
         | git commit | {} |\n\
         | delta | {delta} |\n\
         | repetitions | {repetitions} |\n\
         | command | `{}` |\n\n",
        if options.quick { "quick (--quick)" } else { "full" },
        options.seed,
        env!("CARGO_PKG_VERSION"),
        git_commit(),
        command(experiment, options),
    )
}

/// `x` printed with `decimals` decimals, rounded **up** (an upper bound printed in a table stays an
/// upper bound): the exact binary value's decimal expansion, cut after `decimals` digits and
/// raised by one unit of the last digit when anything non-zero was cut. NaN (a missing or
/// diverged number) prints as "n/a"; infinite and negative values print as `{x}` (no privacy
/// number here is negative).
pub(crate) fn decimals_up(x: f64, decimals: usize) -> String {
    directed_decimals(x, decimals, true)
}

/// `x` with `decimals` decimals, rounded **down** (a lower bound stays a lower bound); as
/// [`decimals_up`].
pub(crate) fn decimals_down(x: f64, decimals: usize) -> String {
    directed_decimals(x, decimals, false)
}

fn directed_decimals(x: f64, decimals: usize, up: bool) -> String {
    if x.is_nan() {
        return "n/a".to_string();
    }
    if !x.is_finite() || x < 0.0 {
        return format!("{x}");
    }
    // 1074 decimals print any f64 exactly (its last bit is ≥ 2⁻¹⁰⁷⁴).
    let exact = format!("{x:.1074}");
    let (whole, fraction) = exact.split_once('.').unwrap_or((&exact, ""));
    let (kept, cut) = fraction.split_at(decimals.min(fraction.len()));
    let mut digits: Vec<u8> = format!("{whole}{kept}").into_bytes();
    if up && cut.bytes().any(|b| b != b'0') {
        // add one unit in the last kept place, carrying left
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let digits = String::from_utf8(digits).unwrap_or_default();
    let (whole, kept) = digits.split_at(digits.len() - kept.len());
    if kept.is_empty() { whole.to_string() } else { format!("{whole}.{kept}") }
}

/// The verdict's first words: "REPRODUCED" or "NOT reproduced".
pub(crate) fn reproduced_or_not(reproduced: bool) -> &'static str {
    if reproduced { "REPRODUCED" } else { "NOT reproduced" }
}

/// The summary for the index: [`reproduced_or_not`], with a caveat when a compared step size is
/// still at an edge of its searched grid.
pub(crate) fn verdict_summary(reproduced: bool, edge_caveat: bool) -> String {
    format!("{}{}", reproduced_or_not(reproduced), if edge_caveat { " (caveat: step size at a grid edge)" } else { "" })
}

/// The sentence ending a verdict when the compared `methods` have a step size still at an edge
/// of the searched grid (listed in the report), or nothing.
pub(crate) fn unfair_caveat(methods: &[&str]) -> String {
    if methods.is_empty() {
        return String::new();
    }
    format!(
        " Caveat: the comparison may be unfair to {}, whose step size sits at an edge of the searched grid even after \
         extending it (listed above).",
        methods.join(", ")
    )
}

/// The step-size search's paragraphs: the grids extended because `edge` (e.g. "The paper's grid
/// edge") won, and the step sizes still at an edge of what was searched (each list joined; empty:
/// none, and no paragraph).
pub(crate) fn tuning_paragraphs(edge: &str, extended: &str, at_edge: &str) -> String {
    let mut md = String::new();
    if !extended.is_empty() {
        md += &format!("\n{edge} won, so the grid was extended, for: {extended}.\n");
    }
    if !at_edge.is_empty() {
        md += &format!(
            "\nStep sizes at an edge of the searched grid even after extending it (the method may be under-tuned \
             there): {at_edge}.\n"
        );
    }
    md
}

/// Checks that `out` is a directory reports can be written to, before any work: creates it (and
/// its parents), then creates and removes a probe file in it.
///
/// # Errors
/// `Io` naming `out` when it cannot be created or written.
pub fn check_output_dir(out: &Path) -> Result<()> {
    let err = |what: &str, e: std::io::Error| Error::Io {
        path: out.display().to_string(),
        message: format!("--out is not a writable directory ({what}: {e})"),
    };
    std::fs::create_dir_all(out).map_err(|e| err("cannot create it", e))?;
    let probe = out.join(format!(".dpref-write-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"probe"))
        .map_err(|e| err("cannot create a file in it", e))?;
    std::fs::remove_file(&probe).map_err(|e| err("cannot remove a file from it", e))
}

/// Writes `text` to `path`.
///
/// # Errors
/// `Io` naming the path.
pub fn write(path: &Path, text: &str) -> Result<PathBuf> {
    std::fs::write(path, text).map_err(|e| Error::Io { path: path.display().to_string(), message: e.to_string() })?;
    Ok(path.to_path_buf())
}

/// What every experiment's report carries for `reproduce` and the index: the Markdown, a
/// one-phrase summary and the files written.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// A one-phrase summary for the index.
    pub summary: String,
    /// The Markdown report (also written to the first of `files`).
    pub markdown: String,
    /// The files written, report first.
    pub files: Vec<PathBuf>,
}

impl Written {
    /// Writes `markdown` to `<out>/<stem>.md`; the files are that report, then `figures` (each plot
    /// and its CSV, already written).
    ///
    /// # Errors
    /// `Io` naming the report's path.
    pub fn report(out: &Path, stem: &str, summary: String, markdown: String, figures: Vec<PathBuf>) -> Result<Self> {
        let mut files = vec![write(&out.join(format!("{stem}.md")), &markdown)?];
        files.extend(figures);
        Ok(Written { summary, markdown, files })
    }

    /// The [`Outcome`] of experiment `name`, which took `seconds`, with its verdicts and headline
    /// numbers `data` as JSON.
    pub fn outcome(self, name: &'static str, seconds: f64, data: serde_json::Value) -> Outcome {
        Outcome { name, markdown: self.markdown, summary: self.summary, files: self.files, seconds, data }
    }
}

/// What one experiment of a `reproduce` run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The experiment's name on the command line.
    pub name: &'static str,
    /// The Markdown report (also written to a file in `files`).
    pub markdown: String,
    /// A one-phrase summary of the verdict for the index.
    pub summary: String,
    /// Every file written, report first.
    pub files: Vec<PathBuf>,
    /// Wall-clock seconds (printed on stderr only: the reports and stdout are the same for the same
    /// seed, byte for byte).
    pub seconds: f64,
    /// The verdict(s) and the headline numbers the report's tables print, unrounded (NaN as
    /// `null`): what `reproduce --json` prints for this experiment, with [`Outcome::to_json`].
    pub data: serde_json::Value,
}

impl Outcome {
    /// This experiment's object in `reproduce --json`: `name`, `summary`, `files` (as written),
    /// then [`Outcome::data`]'s fields.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "name": self.name,
            "summary": self.summary,
            "files": self.files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        });
        if let (Some(obj), Some(data)) = (v.as_object_mut(), self.data.as_object()) {
            obj.extend(data.iter().map(|(k, x)| (k.clone(), x.clone())));
        }
        v
    }
}

/// Writes `<out>/index.md`, linking every report, plot and CSV of `outcomes` (paths relative to
/// `out`), and returns its path.
///
/// # Errors
/// `Io` if it cannot be written.
pub fn write_index(out: &Path, options: &Options, outcomes: &[Outcome]) -> Result<PathBuf> {
    let rel = |p: &Path| p.strip_prefix(out).unwrap_or(p).to_string_lossy().replace('\\', "/");
    let links = |o: &Outcome, ext: &str| {
        let l: Vec<String> = o
            .files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .map(|p| format!("[{0}]({0})", rel(p)))
            .collect();
        if l.is_empty() { "-".to_string() } else { l.join(", ") }
    };
    let mut md = format!(
        "# dpref reproduce\n\n{} mode, seed {}, dpref {}, git commit {}.\n\n\
         | experiment | verdict | report | plot | data (CSV) |\n|---|---|---|---|---|\n",
        if options.quick { "Quick (--quick)" } else { "Full" },
        options.seed,
        env!("CARGO_PKG_VERSION"),
        git_commit()
    );
    for o in outcomes {
        md += &format!(
            "| {} | {} | {} | {} | {} |\n",
            o.name,
            o.summary,
            links(o, "md"),
            links(o, "svg"),
            links(o, "csv"),
        );
    }
    let plots: Vec<String> = outcomes
        .iter()
        .flat_map(|o| o.files.iter().filter(|p| p.extension().is_some_and(|e| e == "svg")))
        .map(|p| format!("![{0}]({0})\n", rel(p)))
        .collect();
    if !plots.is_empty() {
        md += &format!("\n{}", plots.join("\n"));
    }
    write(&out.join("index.md"), &md)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The directed decimals bracket the value (`fl` of a decimal is monotone, so parsing back and
    /// comparing is exact in the direction tested) and sit within one unit of the last digit;
    /// rounding to nearest (`{:.4}`) prints 1.0012 for 1.00123937…, below the value.
    #[test]
    fn directed_decimals_bracket_the_value() {
        assert_eq!(
            (decimals_up(1.0012393716570809, 4), decimals_down(1.0012393716570809, 4)),
            ("1.0013".into(), "1.0012".into())
        );
        assert_eq!(format!("{:.4}", 1.0012393716570809), "1.0012");
        assert_eq!(decimals_up(0.20871206603496986, 4), "0.2088");
        assert_eq!(
            (decimals_up(9.99995, 4), decimals_up(2.0, 4), decimals_up(2.5, 0)),
            ("10.0000".into(), "2.0000".into(), "3".into())
        );
        assert_eq!(
            (decimals_up(0.25, 2), decimals_down(0.25, 1), decimals_up(f64::INFINITY, 3)),
            ("0.25".into(), "0.2".into(), "inf".into())
        );
        let mut x = 1e-6;
        while x < 1e6 {
            for decimals in [0, 3, 4, 6] {
                let (up, down) = (decimals_up(x, decimals), decimals_down(x, decimals));
                let (up_value, down_value) = (up.parse::<f64>().unwrap(), down.parse::<f64>().unwrap());
                let unit = 10f64.powi(-(decimals as i32));
                assert!(
                    down_value <= x && x <= up_value && up_value - down_value <= unit + 8.0 * f64::EPSILON * x.max(1.0),
                    "{x}: {down} {up}"
                );
            }
            x *= 1.37;
        }
    }

    /// Why σ prints rounded down: ε falls as σ grows, so re-accounting a σ printed rounded down
    /// gives an ε at least the run's, while rounding to nearest can round σ up and re-account to
    /// a smaller ε (σ = 1.6538270 prints "1.654" with `{:.3}`).
    #[test]
    fn a_sigma_printed_rounded_down_reaccounts_to_at_least_the_runs_epsilon() {
        use crate::accounting::{Accountant, Neighbouring, RdpAccountant, SamplingScheme, dp_sgd_event};
        let epsilon = |sigma: f64| {
            let mut acc = RdpAccountant::new(Neighbouring::AddRemove);
            acc.compose(&dp_sgd_event(sigma, SamplingScheme::Poisson { q: 0.01 }, 1000).unwrap(), 1).unwrap();
            acc.epsilon_upper(1e-5).unwrap()
        };
        let sigma = 1.6538270;
        let (down, nearest) = (decimals_down(sigma, 3), format!("{sigma:.3}"));
        assert_eq!((down.as_str(), nearest.as_str()), ("1.653", "1.654"));
        assert!(epsilon(down.parse().unwrap()) >= epsilon(sigma));
        assert!(epsilon(nearest.parse().unwrap()) < epsilon(sigma));
    }
}
