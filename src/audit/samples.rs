//! Reading another implementation's dumped outputs: one real number per line, or one column of a
//! CSV.
//!
//! Format: blank lines are ignored; a UTF-8 byte-order mark is skipped; the first non-blank line
//! is a header when none of its fields is a number (pandas' `to_csv()` writes `,value` or
//! `index,value`, R's `write.csv` writes `"","x"`); fields are separated by commas and a field
//! wrapped in double quotes is unwrapped. Every line must have as many fields as the first.
//!
//! Which column holds the outputs is never guessed: a file with one column is read as is; a file
//! with several needs a [`Column`] (by 0-based index, or by header name when the name occurs
//! exactly once), and is otherwise refused with the list of its columns. Anything else (a
//! non-numeric value in the chosen column, NaN, ±∞, ragged rows, an empty file) is an error
//! naming the file and line.
//!
//! [`row_index_start`] recognises a column that is a row index (0, 1, 2, … or 1, 2, 3, …), which is
//! what a CSV written with its index holds in its first column; the CLI refuses to audit one.

use crate::error::{Error, Result};
use std::path::Path;

/// Which column of a sample file holds the outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    /// The 0-based column index.
    Index(usize),
    /// The column whose header is exactly this name (it must occur once).
    Name(String),
}

impl std::str::FromStr for Column {
    type Err = std::convert::Infallible;

    /// All ASCII digits: an index; anything else: a header name.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        Ok(if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            match s.parse() {
                Ok(i) => Column::Index(i),
                Err(_) => Column::Index(usize::MAX), // out of range for any file
            }
        } else {
            Column::Name(s.to_string())
        })
    }
}

/// One column read from a sample file.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleColumn {
    /// The values, in file order.
    pub values: Vec<f64>,
    /// The 0-based index of the column read.
    pub index: usize,
    /// Its header name, if the file has a header.
    pub name: Option<String>,
    /// The number of columns in the file.
    pub columns: usize,
}

impl SampleColumn {
    /// `column 1 ('value')`, or `column 0` without a header: how messages name the column.
    pub fn describe(&self) -> String {
        match &self.name {
            Some(n) => format!("column {} ('{n}')", self.index),
            None => format!("column {}", self.index),
        }
    }
}

/// The samples in `path`, which must have a single column (see [`read_sample_column`] to choose
/// one of several).
///
/// # Errors
/// `Io` if the file cannot be read; `Data` for a non-numeric or non-finite value, several
/// columns, ragged rows or a file with no values.
pub fn read_samples(path: &Path) -> Result<Vec<f64>> {
    read_sample_column(path, None).map(|c| c.values)
}

/// The column `column` of the sample file `path` (`None`: the file must have one column).
///
/// # Errors
/// As [`parse_sample_column`], plus `Io` if the file cannot be read.
pub fn read_sample_column(path: &Path, column: Option<&Column>) -> Result<SampleColumn> {
    let name = path.display().to_string();
    let text = crate::data::read_text(path)?;
    parse_sample_column(&text, &name, column)
}

/// Parses the text of a single-column sample file (see the module doc); `name` is used in errors.
///
/// # Errors
/// As [`read_samples`].
pub fn parse_samples(text: &str, name: &str) -> Result<Vec<f64>> {
    parse_sample_column(text, name, None).map(|c| c.values)
}

/// Strips one pair of surrounding double quotes (as CSV writers put around names) and spaces.
fn unquote(field: &str) -> &str {
    let f = field.trim();
    f.strip_prefix('"').and_then(|g| g.strip_suffix('"')).map_or(f, str::trim)
}

/// Whether `field` starts as a decimal number would: an optional sign, then a digit or a point
/// followed by a digit.
fn begins_like_a_number(field: &str) -> bool {
    let unsigned = field.strip_prefix(['+', '-']).unwrap_or(field);
    unsigned.strip_prefix('.').unwrap_or(unsigned).starts_with(|c: char| c.is_ascii_digit())
}

/// `'a', 'b'` (an empty header name shows as `''`), or `0..w-1` without a header.
fn list_columns(header: Option<&[String]>, width: usize) -> String {
    match header {
        Some(h) => h.iter().enumerate().map(|(i, n)| format!("{i}: '{n}'")).collect::<Vec<_>>().join(", "),
        None => format!("0 to {} (no header line)", width - 1),
    }
}

/// Parses the text of a sample file and returns column `column` (see the module doc).
///
/// # Errors
/// `Data` naming `name` (and the line where one is at fault) for: no values; several columns and
/// `column = None`; an index beyond the last column; a name that is not in the header, occurs
/// more than once, or is asked of a file without a header; a non-numeric or non-finite value in
/// the chosen column; a line with a different number of fields than the first.
pub fn parse_sample_column(text: &str, name: &str, column: Option<&Column>) -> Result<SampleColumn> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let data_err = |reason: String| Error::Data { path: name.into(), reason };
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).peekable();
    let Some(&(_, first)) = lines.peek() else {
        return Err(data_err("no values".into()));
    };
    let first_fields: Vec<&str> = first.split(',').map(unquote).collect();
    let width = first_fields.len();
    let header: Option<Vec<String>> = if first_fields.iter().all(|f| f.parse::<f64>().is_err()) {
        // A header names columns; a first line that begins like a number but is not one ("0.5x")
        // is a malformed value, and taking it for a header dropped it silently.
        if let Some(bad) = first_fields.iter().find(|f| begins_like_a_number(f)) {
            return Err(data_err(format!(
                "line 1: '{bad}' is not a number (and a header's names do not begin like numbers)"
            )));
        }
        lines.next();
        Some(first_fields.iter().map(|f| f.to_string()).collect())
    } else {
        None
    };
    let columns = list_columns(header.as_deref(), width);
    let index = match column {
        None if width == 1 => 0,
        None => {
            return Err(data_err(format!(
                "{width} columns ({columns}); choose the one holding the outputs by name or 0-based index \
                 (CLI: --column NAME|INDEX)"
            )));
        }
        Some(Column::Index(i)) if *i < width => *i,
        Some(Column::Index(i)) => {
            let shown = if *i == usize::MAX { "beyond the range".to_string() } else { i.to_string() };
            return Err(data_err(format!("no column {shown}: the file has {width} ({columns})")));
        }
        Some(Column::Name(wanted)) => {
            let Some(h) = &header else {
                return Err(data_err(format!(
                    "no header line, so no column is named '{wanted}'; give the 0-based index ({columns})"
                )));
            };
            let hits: Vec<usize> = h.iter().enumerate().filter(|(_, n)| *n == wanted).map(|(i, _)| i).collect();
            match hits[..] {
                [i] => i,
                [] => return Err(data_err(format!("no column named '{wanted}' (columns {columns})"))),
                _ => {
                    let at: Vec<String> = hits.iter().map(usize::to_string).collect();
                    return Err(data_err(format!(
                        "the header name '{wanted}' is ambiguous: it names columns {}; give the 0-based index",
                        at.join(" and ")
                    )));
                }
            }
        }
    };
    let mut values = Vec::new();
    for (i, line) in lines {
        let line_no = i + 1;
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != width {
            return Err(data_err(format!("line {line_no}: {} fields, expected {width} (ragged rows)", fields.len())));
        }
        let field = unquote(fields[index]);
        match field.parse::<f64>() {
            Ok(x) if x.is_finite() => values.push(x),
            Ok(x) => return Err(data_err(format!("line {line_no}: non-finite value {x}"))),
            Err(_) => return Err(data_err(format!("line {line_no}: '{field}' is not a number"))),
        }
    }
    if values.is_empty() {
        return Err(data_err("no values".into()));
    }
    Ok(SampleColumn { values, index, name: header.map(|mut h| h.swap_remove(index)), columns: width })
}

/// `Some(s)` when `values` are exactly `s, s + 1, s + 2, …` with `s` = 0 or 1 and at least three
/// values: a row index (what `to_csv()` writes first), not the outputs of a randomised mechanism,
/// which repeat such a run with negligible probability. Auditing it would compare two identical
/// columns and find nothing, whatever the mechanism.
pub fn row_index_start(values: &[f64]) -> Option<f64> {
    let start = *values.first()?;
    let is_index = values.len() >= 3
        && (start == 0.0 || start == 1.0)
        && values.iter().enumerate().all(|(i, &v)| v == start + i as f64);
    is_index.then_some(start)
}
