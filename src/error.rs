//! Typed errors. Every fallible public function returns [`Result`]; the CLI prints
//! `error: <Display>` on one line and exits with code 2.
//!
//! Conventions: validate everything before any randomness is drawn or any state is
//! changed; tests match variants with `matches!`, never message text.

use thiserror::Error;

/// The crate's error type. `Display` is the full one-line message the CLI prints.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter is outside its documented domain (NaN and ±∞ included).
    #[error("invalid parameter {name} = {value}: must be {constraint}")]
    InvalidParameter {
        /// The parameter's name as the user wrote it (`sigma`, `delta`, `--q`, ...).
        name: &'static str,
        /// The offending value, formatted.
        value: String,
        /// The constraint it violates, in words (`in (0, 1)`, `> 0 and finite`).
        constraint: &'static str,
    },
    /// A combination of mechanism, sampling scheme and neighbouring relation that no implemented
    /// accountant covers. Never approximated.
    #[error("unsupported: {event} under {neighbouring} neighbouring with the {accountant} accountant: {reason}")]
    Unsupported {
        /// The event (or sub-event) that cannot be accounted, as `Debug`-like text.
        event: String,
        /// The neighbouring relation in force.
        neighbouring: String,
        /// The accountant asked.
        accountant: &'static str,
        /// Why it is not supported, and what to use instead.
        reason: String,
    },
    /// A mechanism description from another library (a dp_accounting event) that dpref cannot
    /// bound: refused by its class name, never approximated.
    #[error("unsupported event {class_name} at {location}: {reason}")]
    UnsupportedEvent {
        /// The other library's class name (`ZCDpEvent`, `NonPrivateDpEvent`, ...).
        class_name: String,
        /// Where it sits in the description (`$.events[2].event`).
        location: String,
        /// Why it cannot be bounded, and what to do instead.
        reason: String,
    },
    /// A data value is NaN or infinite.
    #[error("non-finite value in {what} at index {index}")]
    NonFinite {
        /// Which input holds the value.
        what: &'static str,
        /// Its position (row-major for matrices).
        index: usize,
    },
    /// A dataset or list that must not be empty is empty.
    #[error("{what} is empty")]
    Empty {
        /// Which input.
        what: &'static str,
    },
    /// Input data that cannot be parsed (file, line and reason).
    #[error("cannot read {path}: {reason}")]
    Data {
        /// The file or stream.
        path: String,
        /// Line number and what is wrong.
        reason: String,
    },
    /// A numerical procedure could not reach its guarantee (e.g. a root bracket could not be
    /// found). Reported instead of returning a number that might violate the guarantee.
    #[error("numerical failure in {what}: {reason}")]
    Numerical {
        /// The procedure.
        what: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// A run specification ([`crate::optim::RunSpec`]) whose settings are out of range or do not
    /// fit together. The message names each parameter in backticks (`` `beta2` ``), so that a
    /// front end can substitute its own spelling (the CLI writes `--beta2`).
    #[error("{message}")]
    RunSpec {
        /// The parameter at fault (a [`crate::optim::RunSpec`] field name).
        parameter: &'static str,
        /// The one-line message, parameter names in backticks.
        message: String,
    },
    /// An I/O error (message only, so that `Error` stays `Clone + PartialEq`).
    #[error("i/o error on {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's message.
        message: String,
    },
}

/// `Result` with the crate's [`enum@Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Shorthand for [`Error::InvalidParameter`].
    pub fn invalid(name: &'static str, value: impl std::fmt::Display, constraint: &'static str) -> Self {
        Error::InvalidParameter { name, value: short_value(value.to_string()), constraint }
    }
}

/// A value as an error shows it: its `{}` text, or, for a number whose text runs past 20
/// characters, [`display_number`]'s short form (`{}` writes 1e-300 with 300 digits).
pub fn short_value(text: String) -> String {
    match text.parse::<f64>() {
        Ok(x) if text.len() > 20 => display_number(x),
        _ => text,
    }
}

/// A float for people: the shortest decimal that reads back to `x`, in scientific notation when
/// `|x|` is below 1e-5 or at least 1e16 (`1e-300`, not 300 digits).
pub fn display_number(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 || !x.is_finite() || (1e-5..1e16).contains(&a) { format!("{x}") } else { format!("{x:e}") }
}

/// Parameter checks shared by every module. Each returns the value on success so that a
/// constructor can read `let delta = check::open_unit("delta", delta)?;`.
pub mod check {
    use super::{Error, Result};

    /// `x` finite and `> 0`.
    pub fn positive(name: &'static str, x: f64) -> Result<f64> {
        if x.is_finite() && x > 0.0 { Ok(x) } else { Err(Error::invalid(name, x, "> 0 and finite")) }
    }

    /// `x` finite and `>= 0` (−0 returned as 0).
    pub fn non_negative(name: &'static str, x: f64) -> Result<f64> {
        if x.is_finite() && x >= 0.0 { Ok(x + 0.0) } else { Err(Error::invalid(name, x, ">= 0 and finite")) }
    }

    /// `x` in the open interval (0, 1).
    pub fn open_unit(name: &'static str, x: f64) -> Result<f64> {
        if x > 0.0 && x < 1.0 { Ok(x) } else { Err(Error::invalid(name, x, "in (0, 1)")) }
    }

    /// `x` in the half-open interval (0, 1].
    pub fn rate(name: &'static str, x: f64) -> Result<f64> {
        if x > 0.0 && x <= 1.0 { Ok(x) } else { Err(Error::invalid(name, x, "in (0, 1]")) }
    }

    /// `x` in [0, 1) (−0 returned as 0).
    pub fn probability_below_one(name: &'static str, x: f64) -> Result<f64> {
        if (0.0..1.0).contains(&x) { Ok(x + 0.0) } else { Err(Error::invalid(name, x, "in [0, 1)")) }
    }

    /// An integer count `>= 1`.
    pub fn count(name: &'static str, n: u64) -> Result<u64> {
        if n >= 1 { Ok(n) } else { Err(Error::invalid(name, n, ">= 1")) }
    }

    /// Every entry of `xs` finite.
    pub fn all_finite(what: &'static str, xs: &[f64]) -> Result<()> {
        match xs.iter().position(|x| !x.is_finite()) {
            Some(index) => Err(Error::NonFinite { what, index }),
            None => Ok(()),
        }
    }
}
