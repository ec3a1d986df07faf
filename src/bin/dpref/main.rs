//! The `dpref` command line (contract: the README's "Quick start" section). Thin: parse, call the library, print.
//! Exit codes: 0 success, 2 bad input or unsupported request (one `error:` line on stderr),
//! 3 an audit found a violation.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;

use account_args::{AccountArgs, CalibrateArgs};
use audit::AuditCommand;
use estimate::EstimateCommand;
use flags::CliResult;
use format::write_stdout;
use reproduce::ReproduceArgs;
use run_args::RunArgs;
use run_sparse_args::GivenFlags;

mod account;
mod account_args;
mod account_pld;
mod audit;
mod audit_accountant;
mod estimate;
mod flags;
mod format;
mod reproduce;
mod run;
mod run_args;
mod run_convert;
mod run_print;
mod run_sparse;
mod run_sparse_args;

/// The exit codes, shown at the end of every subcommand's `--help`.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 success; 2 bad input or an unsupported request (one line on stderr \
                          starting with 'error:').";
/// The exit codes of `audit`, which adds 3.
pub(crate) const EXIT_CODES_AUDIT: &str = "Exit codes: 0 no violation found; 3 the claimed epsilon is refuted (the certified \
                                lower bound exceeds it); 2 bad input or an unsupported request (one line on stderr \
                                starting with 'error:').";

#[derive(Parser)]
#[command(
    name = "dpref",
    version,
    about = "Reference implementation of differentially private optimization: accounting, audits, algorithms.",
    color = clap::ColorChoice::Never,
    after_help = EXIT_CODES_AUDIT
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Privacy (epsilon at delta) of T steps of a subsampled Gaussian mechanism.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Account(AccountArgs),
    /// The smallest noise multiplier that meets a target (epsilon, delta).
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Calibrate(CalibrateArgs),
    /// Re-run the papers' experiments (shrunk to two cores) and print their tables.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Reproduce(ReproduceArgs),
    /// Audit a mechanism or an accountant: a certified lower bound on the true epsilon.
    #[command(subcommand, after_help = EXIT_CODES_AUDIT)]
    Audit(AuditCommand),
    /// Train with one algorithm on a dataset and report the output point and its privacy.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Run(Box<RunArgs>),
    /// Release a private estimate of a statistic of a dataset (mean: [GGKKM] projection mechanism).
    #[command(subcommand, after_help = EXIT_CODES)]
    Estimate(EstimateCommand),
}

/// The one `error:` line on stderr (ignoring a closed stderr) and exit code 2.
fn fail(message: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr().lock(), "error: {message}");
    ExitCode::from(2)
}

/// The exit of a clap failure: help and version on stdout (success), else the one `error:` line.
fn clap_failure(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return match write_stdout(&e.to_string()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&format!("cannot write to stdout: {e}")),
        };
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        return fail(
            "a subcommand is required: account, calibrate, run, estimate, audit or reproduce (see dpref --help)",
        );
    }
    // clap renders several lines (usage, hints); the contract is one line.
    let text = e.to_string();
    let message: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
    let line = message.join(" ");
    fail(line.strip_prefix("error: ").unwrap_or(&line))
}

/// The command line parsed: the typed [`Cli`] and clap's matches it was read from (which tell
/// which flags were given, see [`GivenFlags`]).
fn parse() -> Result<(Cli, clap::ArgMatches), clap::Error> {
    let matches = Cli::command().try_get_matches_from(join_negative_values(std::env::args_os()))?;
    // as `Cli::try_parse`: an error here is rendered against the command
    let cli = Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut Cli::command()))?;
    Ok((cli, matches))
}

/// `--flag -1e-5` → `--flag=-1e-5`: clap takes a negative number in scientific notation after a
/// space for a flag (its number test stops at `e-`: "unexpected argument '-1'"); joined, the value
/// reaches the flag's own check, which names the flag and its range.
fn join_negative_values(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut out: Vec<std::ffi::OsString> = Vec::new();
    for arg in args {
        let negative_number = arg.to_str().is_some_and(|v| v.starts_with('-') && v.parse::<f64>().is_ok());
        match out.last_mut() {
            Some(flag)
                if negative_number
                    && flag.to_str().is_some_and(|f| f.starts_with("--") && f.len() > 2 && !f.contains('=')) =>
            {
                flag.push("=");
                flag.push(&arg);
            }
            _ => out.push(arg),
        }
    }
    out
}

/// The `run` flags given on the command line, from the matches of `run`.
fn run_flags(matches: &clap::ArgMatches) -> CliResult<GivenFlags> {
    match (Cli::command().find_subcommand("run"), matches.subcommand_matches("run")) {
        (Some(run), Some(run_matches)) => Ok(GivenFlags::new(run, run_matches)),
        _ => Err(flags::usage("internal: the matches of `run` are missing")),
    }
}

fn main() -> ExitCode {
    let (cli, matches) = match parse() {
        Ok(parsed) => parsed,
        Err(e) => return clap_failure(e),
    };
    let result: CliResult<(String, bool)> = match &cli.command {
        Command::Account(a) => account::account(a).map(|s| (s, false)),
        Command::Calibrate(a) => account::calibrate(a).map(|s| (s, false)),
        Command::Reproduce(a) => {
            reproduce::reproduce(a).map(|()| (String::new(), false)).map_err(flags::CliError::from)
        }
        Command::Audit(AuditCommand::Samples(a)) => audit::audit_samples(a),
        Command::Audit(AuditCommand::Accountant(a)) => audit_accountant::audit_accountant(a),
        Command::Run(a) => run_flags(&matches).and_then(|given| run::run_algorithm(a, &given)).map(|s| (s, false)),
        Command::Estimate(EstimateCommand::Mean(a)) => estimate::estimate_mean(a).map(|s| (s, false)),
    };
    match result {
        Ok((text, violation)) => {
            if let Err(e) = write_stdout(&text) {
                return fail(&format!("cannot write to stdout: {e}"));
            }
            if violation { ExitCode::from(audit::EXIT_VIOLATION) } else { ExitCode::SUCCESS }
        }
        Err(e) => fail(&e.to_string()),
    }
}
