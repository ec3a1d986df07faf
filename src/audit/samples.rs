//! Reading another implementation's dumped outputs: one real number per line, or the first
//! column of a CSV (an optional header line is skipped). Blank lines are ignored. Anything else
//! (a non-numeric value after the header, NaN, ±∞, an empty file) is an error naming the file and
//! line.

use crate::error::{Error, Result};
use std::path::Path;

/// The samples in `path`.
///
/// # Errors
/// `Io` if the file cannot be read; `Data` for a non-numeric or non-finite value or a file with
/// no values.
pub fn read_samples(path: &Path) -> Result<Vec<f64>> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io { path: name.clone(), message: e.to_string() })?;
    parse_samples(&text, &name)
}

/// Parses the text of a sample file (see the module doc); `name` is used in errors.
///
/// # Errors
/// As [`read_samples`].
pub fn parse_samples(text: &str, name: &str) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    let mut seen_line = false;
    for (i, line) in text.lines().enumerate() {
        let field = line.split(',').next().unwrap_or("").trim();
        if field.is_empty() {
            continue;
        }
        let first = !seen_line;
        seen_line = true;
        match field.parse::<f64>() {
            Ok(x) if x.is_finite() => out.push(x),
            Ok(x) => {
                return Err(Error::Data { path: name.into(), reason: format!("line {}: non-finite value {x}", i + 1) });
            }
            // A header: only on the first non-blank line, and only if it is not number-like.
            Err(_) if first && field.chars().any(|c| c.is_alphabetic()) && !is_special_float(field) => continue,
            Err(_) => {
                return Err(Error::Data {
                    path: name.into(),
                    reason: format!("line {}: '{field}' is not a number", i + 1),
                });
            }
        }
    }
    if out.is_empty() {
        return Err(Error::Data { path: name.into(), reason: "no values".into() });
    }
    Ok(out)
}

fn is_special_float(s: &str) -> bool {
    matches!(s.to_ascii_lowercase().trim_start_matches(['+', '-']), "nan" | "inf" | "infinity")
}
