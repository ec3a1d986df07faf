//! Datasets: a dense row-major feature matrix with one label per row, the CSV and LIBSVM readers
//! (strict: NaN, ragged rows, empty files and malformed entries are errors naming the line), and
//! the papers' synthetic generators.

pub mod l1_problems;
pub mod sparse;
pub mod sparse_families;

use crate::error::{Error, Result};
use crate::rng::DpRng;
use std::path::Path;

/// n examples with d features each (row-major) and one label each.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    n: usize,
    d: usize,
    features: Vec<f64>,
    labels: Vec<f64>,
}

impl Dataset {
    /// A dataset from row-major features (n·d values) and n labels.
    ///
    /// # Errors
    /// `Empty` for n = 0 or d = 0; `InvalidParameter` for inconsistent lengths; `NonFinite` for
    /// NaN/∞ values.
    pub fn new(features: Vec<f64>, labels: Vec<f64>, d: usize) -> Result<Self> {
        if labels.is_empty() {
            return Err(Error::Empty { what: "dataset" });
        }
        if d == 0 {
            return Err(Error::Empty { what: "feature vector" });
        }
        if features.len() != labels.len() * d {
            return Err(Error::invalid("features", features.len(), "n·d values"));
        }
        crate::error::check::all_finite("features", &features)?;
        crate::error::check::all_finite("labels", &labels)?;
        Ok(Dataset { n: labels.len(), d, features, labels })
    }

    /// Number of examples n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of features d.
    pub fn d(&self) -> usize {
        self.d
    }

    /// Features of example i.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.features[i * self.d..(i + 1) * self.d]
    }

    /// Label of example i.
    pub fn label(&self, i: usize) -> f64 {
        self.labels[i]
    }

    /// All labels.
    pub fn labels(&self) -> &[f64] {
        &self.labels
    }

    /// The row-major feature matrix.
    pub fn features(&self) -> &[f64] {
        &self.features
    }

    /// The dataset with example i replaced by (x, y): a replace-one neighbour.
    ///
    /// # Errors
    /// `InvalidParameter` for i ≥ n or a row of the wrong length; `NonFinite` values.
    pub fn with_replaced(&self, i: usize, x: &[f64], y: f64) -> Result<Dataset> {
        if i >= self.n || x.len() != self.d {
            return Err(Error::invalid("replaced example", i, "an index < n with a row of length d"));
        }
        let mut f = self.features.clone();
        f[i * self.d..(i + 1) * self.d].copy_from_slice(x);
        let mut l = self.labels.clone();
        l[i] = y;
        Dataset::new(f, l, self.d)
    }

    /// The dataset with (x, y) appended: an add/remove neighbour.
    ///
    /// # Errors
    /// As [`Dataset::new`].
    pub fn with_added(&self, x: &[f64], y: f64) -> Result<Dataset> {
        let mut f = self.features.clone();
        f.extend_from_slice(x);
        let mut l = self.labels.clone();
        l.push(y);
        Dataset::new(f, l, self.d)
    }
}

/// The largest feature index a LIBSVM file may use: 2^24 = 16 777 216 features. The readers build
/// a dense matrix, so a larger index (a typo, or a hashed feature id) would be a huge allocation.
pub const MAX_FEATURES: usize = 1 << 24;

/// The largest dense feature matrix a reader builds: n·d ≤ 2^27 = 134 217 728 values (1 GiB of
/// `f64`).
pub const MAX_DENSE_VALUES: usize = 1 << 27;

/// The text of a data file: a UTF-8 byte-order mark is skipped (spreadsheet programs write one).
///
/// # Errors
/// `Io` if the file cannot be read; `Data` if it is not UTF-8 text (naming the line).
pub(crate) fn read_text(path: &Path) -> Result<String> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Error::Io { path: name.clone(), message: e.to_string() })?;
    let mut text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        data_err(&name, line, "not UTF-8 text (is this a binary file?)")
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// `text` without a leading UTF-8 byte-order mark.
fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

fn data_err(path: &str, line: usize, reason: impl std::fmt::Display) -> Error {
    Error::Data { path: path.to_string(), reason: format!("line {line}: {reason}") }
}

/// Reads a CSV of numbers: one example per line, the label in column `label_column` (default: the
/// last), an optional header line (a first line with a non-numeric field). Rows must all have the
/// same number of fields. A leading UTF-8 byte-order mark is skipped.
///
/// # Errors
/// `Io` if unreadable; `Data` for non-numeric or non-finite values, ragged rows, no rows, or a
/// file that is not UTF-8.
pub fn read_csv(path: &Path, label_column: Option<usize>) -> Result<Dataset> {
    let text = read_text(path)?;
    parse_csv(&text, &path.display().to_string(), label_column)
}

/// Parses CSV text (see [`read_csv`]).
///
/// # Errors
/// As [`read_csv`].
pub fn parse_csv(text: &str, name: &str, label_column: Option<usize>) -> Result<Dataset> {
    let text = strip_bom(text);
    let mut width: Option<usize> = None;
    let (mut features, mut labels) = (Vec::new(), Vec::new());
    let mut first = true;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed: std::result::Result<Vec<f64>, _> = fields.iter().map(|f| f.parse::<f64>()).collect();
        let values = match parsed {
            Ok(v) => v,
            Err(_)
                if first && fields.iter().any(|f| f.chars().any(char::is_alphabetic) && f.parse::<f64>().is_err()) =>
            {
                first = false;
                width = Some(fields.len());
                continue; // header
            }
            Err(_) => {
                let bad = fields.iter().find(|f| f.parse::<f64>().is_err()).unwrap_or(&"");
                return Err(data_err(name, line_no, format!("'{bad}' is not a number")));
            }
        };
        first = false;
        if let Some(j) = values.iter().position(|v| !v.is_finite()) {
            return Err(data_err(name, line_no, format!("non-finite value in column {}", j + 1)));
        }
        match width {
            None => width = Some(values.len()),
            Some(w) if w != values.len() => {
                return Err(data_err(name, line_no, format!("{} fields, expected {w} (ragged rows)", values.len())));
            }
            _ => {}
        }
        if values.len() < 2 {
            return Err(data_err(name, line_no, "need at least one feature and a label"));
        }
        let lc = label_column.unwrap_or(values.len() - 1);
        if lc >= values.len() {
            return Err(Error::invalid("--label-column", lc, "a column of the file (0-based)"));
        }
        for (j, v) in values.iter().enumerate() {
            if j == lc {
                labels.push(*v);
            } else {
                features.push(*v);
            }
        }
    }
    let w = width.ok_or_else(|| Error::Data { path: name.to_string(), reason: "no rows".into() })?;
    if labels.is_empty() {
        return Err(Error::Data { path: name.to_string(), reason: "no rows".into() });
    }
    Dataset::new(features, labels, w - 1)
}

/// Reads a LIBSVM/SVMlight file: `label index:value ...` with 1-based increasing indices; the
/// dimension is the largest index (or `dimension` if given and not smaller). The largest index
/// depends on the records: a private release of a vector of length d needs the public d passed
/// as `dimension` (the CLI's `--dimension`). A leading UTF-8
/// byte-order mark is skipped. Indices are at most [`MAX_FEATURES`] and the dense matrix at most
/// [`MAX_DENSE_VALUES`] values.
///
/// # Errors
/// `Io`, or `Data` for malformed lines, non-increasing or zero indices, an index above
/// [`MAX_FEATURES`], non-finite values, no rows, a matrix above [`MAX_DENSE_VALUES`], or a file
/// that is not UTF-8.
pub fn read_libsvm(path: &Path, dimension: Option<usize>) -> Result<Dataset> {
    let text = read_text(path)?;
    parse_libsvm(&text, &path.display().to_string(), dimension)
}

/// Parses LIBSVM text (see [`read_libsvm`]).
///
/// # Errors
/// As [`read_libsvm`].
pub fn parse_libsvm(text: &str, name: &str, dimension: Option<usize>) -> Result<Dataset> {
    let (rows, d) = parse_libsvm_rows(text, name, dimension)?;
    if rows.len().checked_mul(d).is_none_or(|cells| cells > MAX_DENSE_VALUES) {
        return Err(Error::Data {
            path: name.to_string(),
            reason: format!(
                "{} rows of {d} features would need a dense matrix of more than {MAX_DENSE_VALUES} values (2^27, 1 GiB)",
                rows.len()
            ),
        });
    }
    let mut features = vec![0.0; rows.len() * d];
    let mut labels = Vec::with_capacity(rows.len());
    for (r, (label, entries)) in rows.iter().enumerate() {
        labels.push(*label);
        for &(j, v) in entries {
            features[r * d + j] = v;
        }
    }
    Dataset::new(features, labels, d)
}

/// The rows of LIBSVM text as (label, 0-based (index, value) entries in increasing index order),
/// with the dimension: the largest index, or `dimension` if given and not smaller. Shared by the
/// dense ([`parse_libsvm`]) and the sparse ([`sparse::SparseDataset::parse_libsvm`]) readers.
///
/// # Errors
/// `Data` for malformed lines, non-increasing or zero indices, an index above [`MAX_FEATURES`],
/// non-finite values or no rows; `InvalidParameter` for a `dimension` below the largest index or
/// above [`MAX_FEATURES`].
#[allow(clippy::type_complexity)]
pub(crate) fn parse_libsvm_rows(
    text: &str,
    name: &str,
    dimension: Option<usize>,
) -> Result<(Vec<(f64, Vec<(usize, f64)>)>, usize)> {
    let text = strip_bom(text);
    let mut rows: Vec<(f64, Vec<(usize, f64)>)> = Vec::new();
    let mut max_index = 0usize;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let mut parts = content.split_whitespace();
        let label: f64 = parts
            .next()
            .and_then(|l| l.parse().ok())
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| data_err(name, line_no, "missing or non-numeric label"))?;
        let mut entries = Vec::new();
        let mut last = 0usize;
        for p in parts {
            let (idx, val) =
                p.split_once(':').ok_or_else(|| data_err(name, line_no, format!("'{p}' is not index:value")))?;
            let idx: usize = idx.parse().map_err(|_| data_err(name, line_no, format!("bad index '{idx}'")))?;
            let val: f64 = val.parse().map_err(|_| data_err(name, line_no, format!("bad value '{val}'")))?;
            if idx == 0 || idx <= last {
                return Err(data_err(name, line_no, "indices must be 1-based and increasing"));
            }
            if idx > MAX_FEATURES {
                return Err(data_err(
                    name,
                    line_no,
                    format!("feature index {idx} is beyond the limit of {MAX_FEATURES} features (2^24)"),
                ));
            }
            if !val.is_finite() {
                return Err(data_err(name, line_no, format!("non-finite value at index {idx}")));
            }
            last = idx;
            entries.push((idx - 1, val));
        }
        max_index = max_index.max(last);
        rows.push((label, entries));
    }
    if rows.is_empty() {
        return Err(Error::Data { path: name.to_string(), reason: "no rows".into() });
    }
    let d = match dimension {
        Some(d) if d >= max_index => d,
        Some(d) => return Err(Error::invalid("dimension", d, ">= the largest index in the file")),
        None => max_index.max(1),
    };
    if d > MAX_FEATURES {
        return Err(Error::invalid("dimension", d, "at most 2^24 = 16777216 (data::MAX_FEATURES)"));
    }
    Ok((rows, d))
}

/// The synthetic absolute regression of \[ADFJT\] Sec. 6.1: `x* ~ U{−1, 1}^d`,
/// `aᵢ ~ N(0, diag(σ)²)` with `σⱼ = j^{−3/2}`, `bᵢ = ⟨aᵢ, x*⟩ + Lap(τ)`. Returns the data and x*.
///
/// # Errors
/// `InvalidParameter` for n = 0, d = 0 or τ < 0.
pub fn absolute_regression(n: usize, d: usize, tau: f64, rng: &mut DpRng) -> Result<(Dataset, Vec<f64>)> {
    crate::error::check::count("n", n as u64)?;
    crate::error::check::count("d", d as u64)?;
    crate::error::check::non_negative("tau", tau)?;
    let sigma: Vec<f64> = (1..=d).map(|j| (j as f64).powf(-1.5)).collect();
    let x_star: Vec<f64> = (0..d).map(|_| if rand::RngExt::random::<bool>(rng) { 1.0 } else { -1.0 }).collect();
    let mut features = Vec::with_capacity(n * d);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let a: Vec<f64> = sigma.iter().map(|s| s * crate::noise::standard_normal(rng)).collect();
        labels.push(crate::linalg::dot(&a, &x_star) + crate::noise::laplace(rng, tau));
        features.extend(a);
    }
    Ok((Dataset::new(features, labels, d)?, x_star))
}

/// The per-coordinate scales `σⱼ = j^{−3/2}` of [`absolute_regression`].
pub fn absolute_regression_scales(d: usize) -> Vec<f64> {
    (1..=d).map(|j| (j as f64).powf(-1.5)).collect()
}
