//! Failures of a subcommand, the checks of flag values, the parsers of integer flags, and the
//! one table from a library parameter name to the CLI flag that sets it.

use crate::format::num;
use dpref::error::Error;

/// A failure of a subcommand: a library error, or a message written here that names the flag
/// the user gave and the fix.
pub(crate) enum CliError {
    Lib(Error),
    Usage(String),
}

impl From<Error> for CliError {
    fn from(e: Error) -> Self {
        CliError::Lib(e)
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // (an InvalidParameter built without `Error::invalid` may hold a long `{}` text)
            CliError::Lib(Error::InvalidParameter { name, value, constraint }) => {
                let value = dpref::error::short_value(value.clone());
                write!(f, "{}", Error::InvalidParameter { name, value, constraint })
            }
            CliError::Lib(Error::RunSpec { message, .. }) => f.write_str(&with_flags(message)),
            CliError::Lib(e) => write!(f, "{e}"),
            CliError::Usage(m) => f.write_str(m),
        }
    }
}

pub(crate) type CliResult<T> = std::result::Result<T, CliError>;

pub(crate) fn usage(message: impl Into<String>) -> CliError {
    CliError::Usage(message.into())
}

/// `x` if `ok`, else "`flag` must be `what`, got `x`".
/// `x` when `ok` (−0 read as 0, so that no output echoes "-0.0"), else a usage error naming `flag`.
pub(crate) fn require(flag: &str, x: f64, ok: bool, what: &str) -> CliResult<f64> {
    if ok { Ok(x + 0.0) } else { Err(usage(format!("{flag} must be {what}, got {}", num(x)))) }
}

pub(crate) fn require_positive(flag: &str, x: f64) -> CliResult<f64> {
    require(flag, x, x.is_finite() && x > 0.0, "> 0 and finite")
}

pub(crate) fn require_open_unit(flag: &str, x: f64) -> CliResult<f64> {
    require(flag, x, x > 0.0 && x < 1.0, "in (0, 1)")
}

/// Why an integer flag's text is refused.
pub(crate) enum NotWhole {
    Malformed,
    Negative,
    TooLarge,
}

/// An integer flag: digits, or a decimal or scientific notation that is exactly a whole number
/// (`1e6`, `2.5e3`), parsed exactly (no rounding through `f64`). Refused: fractions (`1.5`,
/// `1e-3`), negatives, NaN, and values beyond `u128`.
pub(crate) fn parse_whole(text: &str) -> std::result::Result<u128, NotWhole> {
    let t = text.trim();
    let unsigned = t.strip_prefix('+').unwrap_or(t);
    if unsigned.starts_with('-') {
        return Err(NotWhole::Negative);
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], &unsigned[i + 1..]),
        None => (unsigned, "0"),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits_only(int) || !digits_only(frac) {
        return Err(NotWhole::Malformed);
    }
    let exponent: i64 = exponent.parse().map_err(|_| {
        let e = exponent.strip_prefix('+').unwrap_or(exponent);
        if !e.is_empty() && digits_only(e) { NotWhole::TooLarge } else { NotWhole::Malformed }
    })?;
    let all = format!("{int}{frac}");
    let significant = all.trim_start_matches('0');
    let kept = significant.trim_end_matches('0');
    if kept.is_empty() {
        return Ok(0);
    }
    // value = kept · 10^shift
    let shift = exponent.saturating_sub(frac.len() as i64).saturating_add((significant.len() - kept.len()) as i64);
    if shift < 0 {
        return Err(NotWhole::Malformed);
    }
    if (kept.len() as i64).saturating_add(shift) > 39 {
        return Err(NotWhole::TooLarge);
    }
    let mut v: u128 = kept.parse().map_err(|_| NotWhole::TooLarge)?;
    for _ in 0..shift {
        v = v.checked_mul(10).ok_or(NotWhole::TooLarge)?;
    }
    Ok(v)
}

/// The clap message for an integer flag's text that is not a whole number in `0..=max`.
pub(crate) fn whole_in_range<T: TryFrom<u128> + std::fmt::Display>(
    text: &str,
    max: T,
) -> std::result::Result<T, String> {
    let t = text.trim();
    match parse_whole(t) {
        Ok(v) => T::try_from(v).map_err(|_| format!("must be at most {max}, got {t}")),
        Err(NotWhole::TooLarge) => Err(format!("must be at most {max}, got {t}")),
        Err(NotWhole::Negative) => Err(format!("must be a non-negative whole number, got {t}")),
        Err(NotWhole::Malformed) => Err(format!("must be a whole number, got '{t}'")),
    }
}

/// clap parser of `u64` flags (see [`parse_whole`]).
pub(crate) fn whole_u64(text: &str) -> std::result::Result<u64, String> {
    whole_in_range(text, u64::MAX)
}

/// clap parser of `usize` flags (see [`parse_whole`]).
pub(crate) fn whole_usize(text: &str) -> std::result::Result<usize, String> {
    whole_in_range(text, usize::MAX)
}

/// `--json`, the output format of every subcommand that prints one result.
#[derive(clap::Args)]
pub(crate) struct OutputArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The flag of `dpref run` that sets each [`dpref::optim::RunSpec`] parameter: the one place where
/// the library's parameter names become the CLI's spelling.
const RUN_FLAGS: &[(&str, &str)] = &[
    ("loss", "--loss"),
    ("hidden", "--hidden"),
    ("epsilon", "--epsilon"),
    ("delta", "--delta"),
    ("sigma", "--sigma"),
    ("paper_noise", "--paper-noise"),
    ("neighbouring", "--neighbouring"),
    ("batch_size", "--batch-size"),
    ("sampling", "--sampling"),
    ("steps", "--steps"),
    ("learning_rate", "--learning-rate"),
    ("clip", "--clip"),
    ("domain", "--domain"),
    ("output", "--output"),
    ("ellipsoid", "--ellipsoid"),
    ("projection", "--projection"),
    ("variant", "--variant"),
    ("beta1", "--beta1"),
    ("beta2", "--beta2"),
    ("nu", "--nu"),
    ("lambda", "--lambda"),
    ("bias_correction", "--bias-correction"),
    ("delay_sgd", "--delay-sgd"),
    ("delay_adaptive", "--delay-adaptive"),
    ("clip_sgd", "--clip-sgd"),
    ("clip_adaptive", "--clip-adaptive"),
    ("learning_rate_adaptive", "--learning-rate-adaptive"),
    ("ablation", "--ablation"),
    ("mirror_map", "--mirror-map"),
    ("selection", "--selection"),
    ("phases", "--phases"),
    ("rounds", "--rounds"),
    ("l2_bound", "--l2-bound"),
    ("sparsity", "--sparsity"),
    ("step_size", "--theorem-step"),
    ("beta", "--beta"),
    ("selection_score", "--selection-score"),
    ("selection_scale", "--selection-scale"),
];

/// The flag that sets `parameter` (the name itself if no flag does).
pub(crate) fn flag(parameter: &str) -> &str {
    RUN_FLAGS.iter().find(|(p, _)| *p == parameter).map_or(parameter, |(_, f)| f)
}

/// A [`Error::RunSpec`] message with each `` `parameter` `` written as its flag.
pub(crate) fn with_flags(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find('`') {
        let Some(len) = rest[start + 1..].find('`') else { break };
        out += &rest[..start];
        out += flag(&rest[start + 1..start + 1 + len]);
        rest = &rest[start + 2 + len..];
    }
    out + rest
}

/// A calibration error that points to the RDP accountant, with the flag that selects it (the
/// library names the accountant, not the CLI's flag).
pub(crate) fn name_rdp_flag(e: Error) -> Error {
    match e {
        Error::Numerical { what, reason } if reason.ends_with(dpref::accounting::PLD_FLOOR) => {
            Error::Numerical { what, reason: format!("{reason} (--accountant rdp)") }
        }
        e => e,
    }
}
