//! Sparse datasets (compressed sparse rows) and the sparse bag-of-words generator of the shrunk
//! \[LZLRMS\] experiment (Sec. 5.1, shrunk): binary features with Zipf frequencies, a few informative
//! rare words, labels from a logistic model.

use super::Dataset;
use super::sparse_families::{draw_from_cumulative, zipf_cumulative};
use crate::error::{Error, Result, check};
use crate::rng::DpRng;
use rand::RngExt;

/// n records with d features stored as compressed sparse rows, one label each.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseDataset {
    d: usize,
    /// Row i occupies `indices[row_start[i]..row_start[i + 1]]` (strictly increasing).
    row_start: Vec<usize>,
    indices: Vec<usize>,
    values: Vec<f64>,
    labels: Vec<f64>,
}

impl SparseDataset {
    /// A dataset from rows of `(feature index, value)` pairs.
    ///
    /// # Errors
    /// `Empty` for no rows or d = 0; `InvalidParameter` for an index ≥ d or repeated/unsorted
    /// indices in a row, or a label count that differs from the row count; `NonFinite` for NaN/∞.
    pub fn from_rows(rows: &[Vec<(usize, f64)>], labels: Vec<f64>, d: usize) -> Result<Self> {
        if rows.is_empty() {
            return Err(Error::Empty { what: "dataset" });
        }
        if d == 0 {
            return Err(Error::Empty { what: "feature vector" });
        }
        if labels.len() != rows.len() {
            return Err(Error::invalid("labels", labels.len(), "one per row"));
        }
        check::all_finite("labels", &labels)?;
        let mut row_start = Vec::with_capacity(rows.len() + 1);
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        row_start.push(0);
        for row in rows {
            for (k, &(j, v)) in row.iter().enumerate() {
                if j >= d || (k > 0 && row[k - 1].0 >= j) {
                    return Err(Error::invalid("feature index", j, "strictly increasing within a row and < d"));
                }
                if !v.is_finite() {
                    return Err(Error::NonFinite { what: "features", index: indices.len() });
                }
                indices.push(j);
                values.push(v);
            }
            row_start.push(indices.len());
        }
        Ok(SparseDataset { d, row_start, indices, values, labels })
    }

    /// Reads a LIBSVM/SVMlight file into compressed sparse rows, at the cost of its non-zeros
    /// (no dense matrix: the format and its checks are those of [`super::read_libsvm`], without its
    /// dense-size limit).
    ///
    /// # Errors
    /// `Io`; as [`SparseDataset::parse_libsvm`].
    pub fn read_libsvm(path: &std::path::Path, dimension: Option<usize>) -> Result<Self> {
        let text = super::read_text(path)?;
        Self::parse_libsvm(&text, &path.display().to_string(), dimension)
    }

    /// Parses LIBSVM text into compressed sparse rows (see [`SparseDataset::read_libsvm`]);
    /// explicit zeros are kept as entries.
    ///
    /// # Errors
    /// `Data` for malformed lines, non-increasing or zero indices, an index above
    /// [`super::MAX_FEATURES`], non-finite values or no rows; `InvalidParameter` for a `dimension`
    /// below the largest index.
    pub fn parse_libsvm(text: &str, name: &str, dimension: Option<usize>) -> Result<Self> {
        let (rows, d) = super::parse_libsvm_rows(text, name, dimension)?;
        let (labels, rows): (Vec<f64>, Vec<Vec<(usize, f64)>>) = rows.into_iter().unzip();
        SparseDataset::from_rows(&rows, labels, d)
    }

    /// The non-zero entries of a dense dataset.
    pub fn from_dense(data: &Dataset) -> Self {
        let rows: Vec<Vec<(usize, f64)>> = (0..data.n())
            .map(|i| data.row(i).iter().enumerate().filter(|(_, v)| **v != 0.0).map(|(j, &v)| (j, v)).collect())
            .collect();
        SparseDataset::from_rows(&rows, data.labels().to_vec(), data.d()).expect("invariant: a valid dense dataset")
    }

    /// The same records as a dense dataset.
    ///
    /// # Errors
    /// `InvalidParameter` when n·d exceeds [`super::MAX_DENSE_VALUES`].
    pub fn to_dense(&self) -> Result<Dataset> {
        let (n, d) = (self.n(), self.d);
        if n.checked_mul(d).is_none_or(|cells| cells > super::MAX_DENSE_VALUES) {
            return Err(Error::invalid(
                "n x d",
                format!("{n} x {d}"),
                "at most MAX_DENSE_VALUES cells for a dense copy",
            ));
        }
        let mut features = vec![0.0; n * d];
        for i in 0..n {
            let (idx, vals) = self.row(i);
            idx.iter().zip(vals).for_each(|(&j, &v)| features[i * d + j] = v);
        }
        Dataset::new(features, self.labels.clone(), d)
    }

    /// Number of records n.
    pub fn n(&self) -> usize {
        self.labels.len()
    }

    /// Number of features d.
    pub fn d(&self) -> usize {
        self.d
    }

    /// Total number of stored non-zeros.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// Row i as (indices, values).
    pub fn row(&self, i: usize) -> (&[usize], &[f64]) {
        let r = self.row_start[i]..self.row_start[i + 1];
        (&self.indices[r.clone()], &self.values[r])
    }

    /// Label of record i.
    pub fn label(&self, i: usize) -> f64 {
        self.labels[i]
    }

    /// All labels.
    pub fn labels(&self) -> &[f64] {
        &self.labels
    }

    /// The records `range` (e.g. a train/test split).
    pub fn slice(&self, range: std::ops::Range<usize>) -> Result<SparseDataset> {
        let rows: Vec<Vec<(usize, f64)>> = range
            .clone()
            .map(|i| {
                let (idx, val) = self.row(i);
                idx.iter().copied().zip(val.iter().copied()).collect()
            })
            .collect();
        SparseDataset::from_rows(&rows, self.labels[range].to_vec(), self.d)
    }
}

/// A synthetic bag-of-words task and the weights that generated its labels.
#[derive(Debug, Clone)]
pub struct BagOfWords {
    /// Binary features, labels in {0, 1}.
    pub data: SparseDataset,
    /// The logistic model's weights `w*`: non-zero on the informative words only.
    pub w_star: Vec<f64>,
}

/// n documents over a vocabulary of d words, `words_per_doc` distinct words each, drawn with
/// Zipf frequencies `p_j ∝ 1/(j + 1)^{zipf}` (word j has frequency rank j); the words of rank
/// `informative` (a range; words of mid frequency are where a diagonal preconditioner can help:
/// their clipped gradients are small but, averaged, above the noise) carry weights ±`signal`,
/// alternating; the label is Bernoulli(1/(1 + e^{−⟨x, w*⟩})).
///
/// # Errors
/// `InvalidParameter` for n, d = 0, `words_per_doc` ∉ [1, d], an empty `informative` range or
/// one beyond d, or non-finite `zipf`/`signal`.
pub fn bag_of_words(
    n: usize,
    d: usize,
    words_per_doc: usize,
    zipf: f64,
    informative: std::ops::Range<usize>,
    signal: f64,
    rng: &mut DpRng,
) -> Result<BagOfWords> {
    if n == 0 || d == 0 {
        return Err(Error::invalid("n, d", format!("{n}, {d}"), ">= 1"));
    }
    if words_per_doc == 0 || words_per_doc > d {
        return Err(Error::invalid("words per document", words_per_doc, "in [1, d]"));
    }
    if informative.is_empty() || informative.end > d {
        return Err(Error::invalid(
            "informative word ranks",
            format!("{informative:?}"),
            "a non-empty range within 0..d",
        ));
    }
    check::all_finite("zipf exponent and signal", &[zipf, signal])?;
    let cdf = zipf_cumulative(d, zipf);
    let mut w_star = vec![0.0; d];
    for (k, j) in informative.enumerate() {
        w_star[j] = if k % 2 == 0 { signal } else { -signal };
    }
    let mut rows = Vec::with_capacity(n);
    let mut labels = Vec::with_capacity(n);
    let mut seen = vec![false; d];
    for _ in 0..n {
        let mut words = Vec::with_capacity(words_per_doc);
        while words.len() < words_per_doc {
            let j = draw_from_cumulative(&cdf, rng);
            if !seen[j] {
                seen[j] = true;
                words.push(j);
            }
        }
        words.sort_unstable();
        let margin: f64 = words.iter().map(|&j| w_star[j]).sum();
        for &j in &words {
            seen[j] = false;
        }
        labels.push(if rng.random::<f64>() < 1.0 / (1.0 + (-margin).exp()) { 1.0 } else { 0.0 });
        rows.push(words.into_iter().map(|j| (j, 1.0)).collect());
    }
    Ok(BagOfWords { data: SparseDataset::from_rows(&rows, labels, d)?, w_star })
}
