//! The input side of the algorithms: the CSV and LIBSVM readers (strict, typed errors), the
//! losses and their (sub)gradients, the batch samplers (Poisson, without and with replacement,
//! full), and the synthetic absolute-regression generator of [ADFJT] §6.1 (notes §5.1).
//!
//! Error tests match variants with `matches!`, never message text (STYLE b.6). Statistical tests
//! use fixed seeds and exact acceptance regions at ALPHA = 1e-6 from `tests/common/stat.rs`, each
//! with a power twin (STYLE b.11).

mod common;
use common::stat::{
    ALPHA, binomial_interval, binomial_lower_tail, binomial_upper_tail, chi_square_interval, gamma_sum_interval,
};
use dpref::Error;
use dpref::accounting::Neighbouring;
use dpref::data::{
    Dataset, absolute_regression, absolute_regression_scales, parse_csv, parse_libsvm, read_csv, read_libsvm,
};
use dpref::loss::Loss;
use dpref::optim::RunSettings;
use dpref::optim::adaptive_noise::AdaptiveMethod;
use dpref::optim::adaptive_noise::AdaptiveNoiseConfig;
use dpref::optim::dp_sgd::{DpSgdConfig, dp_sgd};
use dpref::optim::{NoTrace, Privacy};
use dpref::rng::{Seeds, Stream};
use dpref::sampling::BatchSampler;
use proptest::prelude::*;

const LOSSES: [Loss; 6] =
    [Loss::Absolute, Loss::Squared, Loss::Logistic, Loss::Hinge, Loss::Linear, Loss::GemanMcClure];

fn is_data_error<T: std::fmt::Debug>(r: &dpref::Result<T>) -> bool {
    matches!(r, Err(Error::Data { .. }))
}

/// Every `(what, text)` of `bad` fails `parse` with `Error::Data`.
fn assert_data_errors(bad: &[(&str, &str)], parse: impl Fn(&str) -> dpref::Result<Dataset>) {
    for (what, text) in bad {
        let r = parse(text);
        assert!(is_data_error(&r), "{what}: {r:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------------

/// The CSV reader rejects NaN and ±∞ values, ragged rows (also against the header's width),
/// malformed numbers, files without rows (empty, blank, header only) and rows without a label
/// column, each with `Error::Data`.
#[test]
fn prop_csv_reader_rejects_bad_input_with_data_errors() {
    let bad = [
        ("empty file", ""),
        ("blank lines only", "\n  \n\t\n"),
        ("header only", "x1,x2,y\n"),
        ("NaN value", "1,2,3\n4,NaN,6\n"),
        ("lower-case nan", "1,2,3\n4,nan,6\n"),
        ("NaN in the first row", "nan,2,3\n4,5,6\n"),
        ("infinite value", "1,2,3\n4,inf,6\n"),
        ("infinite label", "1,2,-inf\n"),
        ("ragged row", "1,2,3\n4,5\n"),
        ("ragged row, longer", "1,2\n3,4,5\n"),
        ("ragged against the header", "a,b\n1,2,3\n"),
        ("malformed number", "1,2,3\n4,5x,6\n"),
        ("empty field", "1,2,3\n4,,6\n"),
        ("single column", "1\n2\n"),
    ];
    assert_data_errors(&bad, |text| parse_csv(text, "mem.csv", None));
    // a label column outside the file is a parameter error, not a data error
    let r = parse_csv("1,2,3\n", "mem.csv", Some(3));
    assert!(matches!(r, Err(Error::InvalidParameter { .. })), "{r:?}");
}

/// An optional header (a first line with a non-numeric field) is skipped; the label is the last
/// column by default or the given 0-based column; fields are trimmed; blank lines are skipped.
#[test]
fn prop_csv_reader_header_and_label_column() {
    for text in ["x1, x2 ,y\n1,2,3\n\n 4 , 5,6\n", "1,2,3\n4,5,6\n"] {
        let d = parse_csv(text, "mem.csv", None).unwrap();
        assert_eq!((d.n(), d.d()), (2, 2));
        assert_eq!(d.features(), &[1.0, 2.0, 4.0, 5.0]);
        assert_eq!(d.labels(), &[3.0, 6.0]);
        let d = parse_csv(text, "mem.csv", Some(0)).unwrap();
        assert_eq!(d.features(), &[2.0, 3.0, 5.0, 6.0]);
        assert_eq!(d.labels(), &[1.0, 4.0]);
        let d = parse_csv(text, "mem.csv", Some(1)).unwrap();
        assert_eq!(d.features(), &[1.0, 3.0, 4.0, 6.0]);
        assert_eq!(d.labels(), &[2.0, 5.0]);
    }
    // scientific notation and signs are numbers, not a header
    let d = parse_csv("1e-3,-2.5E2,+3\n", "mem.csv", None).unwrap();
    assert_eq!(d.features(), &[1e-3, -250.0]);
    assert_eq!(d.labels(), &[3.0]);
}

/// The file readers: a file round-trips; a missing file is `Error::Io`.
#[test]
fn prop_csv_and_libsvm_files_read_like_their_text() {
    let dir = std::env::temp_dir().join(format!("dpref-data-loss-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("a.csv");
    std::fs::write(&csv, "a,b,y\n1,2,0\n3,4,1\n").unwrap();
    assert_eq!(read_csv(&csv, None).unwrap(), parse_csv("1,2,0\n3,4,1\n", "x", None).unwrap());
    let svm = dir.join("a.svm");
    std::fs::write(&svm, "1 2:0.5\n0 1:3\n").unwrap();
    assert_eq!(read_libsvm(&svm, None).unwrap(), parse_libsvm("1 2:0.5\n0 1:3\n", "x", None).unwrap());
    let missing = dir.join("missing.csv");
    assert!(matches!(read_csv(&missing, None), Err(Error::Io { .. })));
    assert!(matches!(read_libsvm(&missing, None), Err(Error::Io { .. })));
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// LIBSVM
// ---------------------------------------------------------------------------------------------

/// LIBSVM: `label index:value …` with 1-based increasing indices, missing entries 0, comments
/// after `#`; the dimension is the largest index or the given one.
#[test]
fn prop_libsvm_reader_parses_sparse_rows() {
    let text = "1 1:0.5 3:2 # comment\n\n-1 2:-1\n0\n";
    let d = parse_libsvm(text, "mem.svm", None).unwrap();
    assert_eq!((d.n(), d.d()), (3, 3));
    assert_eq!(d.features(), &[0.5, 0.0, 2.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(d.labels(), &[1.0, -1.0, 0.0]);
    let d = parse_libsvm(text, "mem.svm", Some(5)).unwrap();
    assert_eq!(d.d(), 5);
    assert_eq!(d.row(0), &[0.5, 0.0, 2.0, 0.0, 0.0]);
    let r = parse_libsvm(text, "mem.svm", Some(2));
    assert!(matches!(r, Err(Error::InvalidParameter { .. })), "dimension below the largest index: {r:?}");
}

/// The sparse LIBSVM reader costs the non-zeros only: 40 rows with an index at 2^24 (the feature
/// limit) read as CSR (2 entries per row), while the dense reader refuses the 6.7·10⁸-cell matrix.
#[test]
fn sparse_libsvm_reader_reads_what_the_dense_one_cannot_hold() {
    let text: String = (0..40).map(|i| format!("{} 1:0.5 {}:-1\n", i % 2, 1 << 24)).collect();
    let sparse = dpref::data::sparse::SparseDataset::parse_libsvm(&text, "wide.svm", None).unwrap();
    assert_eq!((sparse.n(), sparse.d(), sparse.nnz()), (40, 1 << 24, 80));
    assert_eq!(sparse.row(3), (&[0usize, (1 << 24) - 1][..], &[0.5, -1.0][..]));
    assert!(is_data_error(&parse_libsvm(&text, "wide.svm", None)), "the dense reader must refuse");
}

/// The LIBSVM reader rejects empty input, bad labels, zero / decreasing / repeated / non-numeric
/// indices, bad or non-finite values and entries without `:`, each with `Error::Data`.
#[test]
fn prop_libsvm_reader_rejects_bad_input_with_data_errors() {
    let bad = [
        ("empty file", ""),
        ("comments only", "# nothing\n   # more\n"),
        ("non-numeric label", "x 1:1\n"),
        ("NaN label", "nan 1:1\n"),
        ("infinite label", "inf 1:1\n"),
        ("zero index", "1 0:1\n"),
        ("decreasing indices", "1 2:1 1:3\n"),
        ("repeated index", "1 2:1 2:3\n"),
        ("non-numeric index", "1 a:1\n"),
        ("negative index", "1 -1:1\n"),
        ("non-numeric value", "1 1:x\n"),
        ("NaN value", "1 1:NaN\n"),
        ("infinite value", "1 1:inf\n"),
        ("no colon", "1 1\n"),
        ("two colons", "1 1:2:3\n"),
        ("bad second line", "1 1:1\n1 1:nan\n"),
    ];
    assert_data_errors(&bad, |text| parse_libsvm(text, "mem.svm", None));
}

/// `Dataset::new` validates shapes and values with typed errors; neighbours are built by
/// replacing or adding one example.
#[test]
fn prop_dataset_constructors_validate_and_build_neighbours() {
    assert!(matches!(Dataset::new(vec![], vec![], 2), Err(Error::Empty { .. })));
    assert!(matches!(Dataset::new(vec![1.0], vec![1.0], 0), Err(Error::Empty { .. })));
    assert!(matches!(Dataset::new(vec![1.0, 2.0, 3.0], vec![1.0], 2), Err(Error::InvalidParameter { .. })));
    assert!(matches!(Dataset::new(vec![1.0, f64::NAN], vec![1.0], 2), Err(Error::NonFinite { .. })));
    assert!(matches!(Dataset::new(vec![1.0, 2.0], vec![f64::INFINITY], 2), Err(Error::NonFinite { .. })));
    let d = Dataset::new(vec![1.0, 2.0, 3.0, 4.0], vec![0.0, 1.0], 2).unwrap();
    let r = d.with_replaced(1, &[9.0, 9.0], 5.0).unwrap();
    assert_eq!((r.row(0), r.row(1), r.labels()), (&[1.0, 2.0][..], &[9.0, 9.0][..], &[0.0, 5.0][..]));
    let a = d.with_added(&[7.0, 8.0], 2.0).unwrap();
    assert_eq!((a.n(), a.row(2), a.label(2)), (3, &[7.0, 8.0][..], 2.0));
    assert!(matches!(d.with_replaced(2, &[1.0, 1.0], 0.0), Err(Error::InvalidParameter { .. })));
    assert!(matches!(d.with_replaced(0, &[1.0], 0.0), Err(Error::InvalidParameter { .. })));
    assert!(matches!(d.with_added(&[f64::NAN, 0.0], 0.0), Err(Error::NonFinite { .. })));
}

// ---------------------------------------------------------------------------------------------
// Losses
// ---------------------------------------------------------------------------------------------

/// Values at chosen points against the table of `loss/mod.rs`, including the label mapping
/// {0, 1} → {−1, +1} of the logistic and hinge losses and numerically stable logistic tails.
#[test]
fn prop_loss_values_match_their_formulas() {
    let (m, y) = (0.7, 2.0);
    assert_eq!(Loss::Absolute.value_at(m, y), 1.3);
    assert_eq!(Loss::Squared.value_at(m, y), 0.5 * 1.3 * 1.3);
    assert_eq!(Loss::Linear.value_at(m, y), 1.4);
    assert_eq!(Loss::Hinge.value_at(0.25, 1.0), 0.75);
    assert_eq!(Loss::Hinge.value_at(2.0, 1.0), 0.0);
    assert_eq!(Loss::Hinge.value_at(0.25, -1.0), 1.25);
    assert_eq!(Loss::Logistic.value_at(0.0, 1.0), std::f64::consts::LN_2);
    let ln1p_exp = |t: f64| (1.0 + t.exp()).ln();
    for (m, y) in [(0.3, 1.0), (-1.2, -1.0), (2.5, -1.0)] {
        let v = Loss::Logistic.value_at(m, y);
        assert!((v - ln1p_exp(-y * m)).abs() <= 4.0 * f64::EPSILON * v, "logistic({m}, {y}) = {v}");
    }
    // no overflow or cancellation in the tails: ln(1 + e^1000) = 1000, ln(1 + e^-1000) = e^-1000
    assert_eq!(Loss::Logistic.value_at(-1000.0, 1.0), 1000.0);
    assert_eq!(Loss::Logistic.value_at(40.0, 1.0), (-40.0f64).exp().ln_1p());
    assert_eq!(Loss::Logistic.derivative_at(1000.0, 1.0), 0.0);
    assert_eq!(Loss::Logistic.derivative_at(-1000.0, 1.0), -1.0);
    // subgradients at the kinks are the documented choices
    assert_eq!(Loss::Absolute.derivative_at(2.0, 2.0), 0.0);
    assert_eq!(Loss::Hinge.derivative_at(1.0, 1.0), 0.0);
    // labels {0, 1} → {−1, +1} for logistic and hinge only
    for m in [-2.0, -0.3, 0.0, 0.4, 3.0] {
        for loss in [Loss::Logistic, Loss::Hinge] {
            assert_eq!(loss.value_at(m, 0.0), loss.value_at(m, -1.0), "{loss:?} at {m}");
            assert_eq!(loss.derivative_at(m, 0.0), loss.derivative_at(m, -1.0), "{loss:?} at {m}");
            assert_eq!(loss.label(0.0), -1.0);
            assert_eq!(loss.label(1.0), 1.0);
        }
        for loss in [Loss::Absolute, Loss::Squared, Loss::Linear] {
            assert_eq!(loss.label(0.0), 0.0);
        }
    }
    // Geman–McClure: r²/(1 + r²) at r = m − y = −1.3; bounded by 1 with no overflow; its
    // derivative 2r/(1 + r²)² peaks at r = 1/√3 with value 3√3/8 (the documented Lipschitz bound)
    let r2 = 1.3f64 * 1.3;
    assert_eq!(Loss::GemanMcClure.value_at(m, y), r2 / (1.0 + r2));
    assert_eq!(Loss::GemanMcClure.value_at(1e200, 0.0), 1.0);
    assert_eq!(Loss::GemanMcClure.derivative_at(1e200, 0.0), 0.0);
    let peak = Loss::GemanMcClure.derivative_at(1.0 / 3f64.sqrt(), 0.0);
    assert!((peak - 3.0 * 3f64.sqrt() / 8.0).abs() <= 1e-15, "{peak}");
    let grid_max =
        (0..=20_000).map(|k| Loss::GemanMcClure.derivative_at(-5.0 + k as f64 * 5e-4, 0.0).abs()).fold(0.0, f64::max);
    assert!(grid_max <= peak, "{grid_max} > {peak}");
    // ∇F = ℓ′(⟨x, w⟩, y)·x and the empirical risk is the mean
    let data = Dataset::new(vec![1.0, 2.0, -1.0, 0.5], vec![1.0, 0.0], 2).unwrap();
    let w = [0.5, -0.25];
    let mut g = [0.0; 2];
    Loss::Hinge.gradient(&w, data.row(1), data.label(1), &mut g);
    // m = -0.5 - 0.125 = -0.625, y = -1: ym = 0.625 < 1, ℓ′ = +1
    assert_eq!(g, [-1.0, 0.5]);
    let risk = Loss::Squared.empirical_risk(&w, &data);
    let expected = (Loss::Squared.value(&w, data.row(0), 1.0) + Loss::Squared.value(&w, data.row(1), 0.0)) / 2.0;
    assert_eq!(risk, expected);
}

/// `Loss::parse` knows the six names and rejects others; `check_labels` accepts {0, 1} and
/// {−1, +1} for logistic and hinge, anything for the regression losses.
#[test]
fn prop_loss_parse_and_check_labels() {
    for (name, loss) in [
        ("absolute", Loss::Absolute),
        ("squared", Loss::Squared),
        ("logistic", Loss::Logistic),
        ("hinge", Loss::Hinge),
        ("linear", Loss::Linear),
        ("geman-mcclure", Loss::GemanMcClure),
    ] {
        assert_eq!(Loss::parse(name).unwrap(), loss);
    }
    assert!(matches!(Loss::parse("l2"), Err(Error::InvalidParameter { .. })));
    let ok = Dataset::new(vec![1.0; 4], vec![0.0, 1.0, -1.0, 1.0], 1).unwrap();
    let regression = Dataset::new(vec![1.0; 3], vec![0.5, 2.0, -7.0], 1).unwrap();
    for loss in LOSSES {
        assert!(loss.check_labels(&ok).is_ok());
    }
    for loss in [Loss::Logistic, Loss::Hinge] {
        assert!(matches!(loss.check_labels(&regression), Err(Error::InvalidParameter { .. })), "{loss:?}");
        let two = Dataset::new(vec![1.0; 2], vec![1.0, 2.0], 1).unwrap();
        assert!(matches!(loss.check_labels(&two), Err(Error::InvalidParameter { .. })), "{loss:?}");
    }
    for loss in [Loss::Absolute, Loss::Squared, Loss::Linear, Loss::GemanMcClure] {
        assert!(loss.check_labels(&regression).is_ok());
    }
    // the algorithms call it before drawing anything
    let run_settings =
        RunSettings::poisson(1, 1.0, Privacy::NoiseMultiplier { sigma: 1.0, report_delta: None }).unwrap();
    let cfg = AdaptiveNoiseConfig::new(1, 1.0, 1.0, run_settings).unwrap();
    let r = AdaptiveMethod::Pagan.run(&regression, Loss::Logistic, &cfg, Seeds::new(0), &mut NoTrace);
    assert!(matches!(r, Err(Error::InvalidParameter { .. })), "{r:?}");
}

fn loss_case() -> impl Strategy<Value = (Loss, Vec<f64>, Vec<f64>, f64)> {
    (0usize..LOSSES.len(), 1usize..=5).prop_flat_map(|(l, d)| {
        let loss = LOSSES[l];
        let y = match loss {
            Loss::Logistic | Loss::Hinge => prop_oneof![Just(0.0), Just(1.0), Just(-1.0)].boxed(),
            _ => (-3.0..3.0f64).boxed(),
        };
        (Just(loss), proptest::collection::vec(-3.0..3.0f64, d), proptest::collection::vec(-1.0..1.0f64, d), y)
    })
}

proptest! {
    #![proptest_config(common::strategies::fixed_seed_config(512, 0x6c6f_7373))]

    /// Each loss's gradient equals the central finite difference of its value, away from the
    /// kinks (absolute: |m − y| > 1e-3; hinge: |1 − ym| > 1e-3, with the mapped label), with
    /// h = 1e-6: the perturbation moves the margin by ≤ 1e-6 < 1e-3, so no kink is crossed.
    /// Tolerance 1e-7·max(1, |∂ⱼF|): truncation ≤ h²/6·max|ℓ‴|·|xⱼ|³ ≤ 1e-13, rounding ≤
    /// 4ε·max|F|/(2h) ≤ 1e-8 (|F| ≤ 20 here).
    #[test]
    fn prop_loss_gradient_matches_finite_differences((loss, w, x, y) in loss_case()) {
        let m: f64 = x.iter().zip(&w).map(|(a, b)| a * b).sum();
        let yl = loss.label(y);
        match loss {
            Loss::Absolute => prop_assume!((m - y).abs() > 1e-3),
            Loss::Hinge => prop_assume!((1.0 - yl * m).abs() > 1e-3),
            _ => {}
        }
        let mut g = vec![0.0; w.len()];
        loss.gradient(&w, &x, y, &mut g);
        let h = 1e-6;
        for j in 0..w.len() {
            let (mut wp, mut wm) = (w.clone(), w.clone());
            wp[j] += h;
            wm[j] -= h;
            let fd = (loss.value(&wp, &x, y) - loss.value(&wm, &x, y)) / (2.0 * h);
            prop_assert!((fd - g[j]).abs() <= 1e-7 * g[j].abs().max(1.0), "{loss:?}: ∂{j} = {} vs FD {fd}", g[j]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sampling
// ---------------------------------------------------------------------------------------------

fn batch_sizes(sampler: BatchSampler, n: usize, m: usize, seed: u64) -> Vec<u64> {
    let mut rng = Seeds::new(seed).stream(Stream::Sampling);
    let mut batch = Vec::new();
    (0..m)
        .map(|_| {
            sampler.sample(&mut rng, n, &mut batch);
            batch.len() as u64
        })
        .collect()
}

/// Poisson sampling: batch sizes are i.i.d. Binomial(n, q). With n = 200, q = 0.1, m = 20 000
/// batches, three exact consequences are tested, each at ALPHA/3 (union bound: ≤ 1e-6):
/// (1) the total Σ|B| ~ Binomial(nm, q) (each of the nm coin flips is independent);
/// (2) the number of batches of size ≤ 15 ~ Binomial(m, p₋), p₋ = P(Bin(200, 0.1) ≤ 15) = 0.143;
/// (3) the number of size ≥ 25 ~ Binomial(m, p₊), p₊ = P(Bin(200, 0.1) ≥ 25) = 0.145.
/// (2)–(3) see the spread, which the mean alone does not. Power twins: q·1.1 fails (1)
/// (the total moves by 40 000, the region is ±3 200 wide); a fixed size b = qn = 20 (without
/// replacement, "Poisson with the realised size fixed") passes (1) exactly and fails (2)–(3)
/// (no batch is that small or large).
#[test]
fn stat_poisson_batch_sizes_are_binomial() {
    let (n, q, m) = (200usize, 0.1, 20_000usize);
    let (lo_c, hi_c) = (15u64, 25u64);
    let p_lo = binomial_lower_tail(n as u64, q, lo_c);
    let p_hi = binomial_upper_tail(n as u64, q, hi_c);
    let accept = |sizes: &[u64]| -> [bool; 3] {
        let total: u64 = sizes.iter().sum();
        let (a, b) = binomial_interval((n * m) as u64, q, ALPHA / 3.0);
        let small = sizes.iter().filter(|&&s| s <= lo_c).count() as u64;
        let (c, d) = binomial_interval(m as u64, p_lo, ALPHA / 3.0);
        let large = sizes.iter().filter(|&&s| s >= hi_c).count() as u64;
        let (e, f) = binomial_interval(m as u64, p_hi, ALPHA / 3.0);
        [(a..=b).contains(&total), (c..=d).contains(&small), (e..=f).contains(&large)]
    };
    let sizes = batch_sizes(BatchSampler::Poisson { q }, n, m, 31);
    assert_eq!(accept(&sizes), [true; 3], "p₋ = {p_lo}, p₊ = {p_hi}");
    let more = batch_sizes(BatchSampler::Poisson { q: q * 1.1 }, n, m, 31);
    assert!(!accept(&more)[0], "q·1.1 passes the total-count test");
    let fixed = batch_sizes(BatchSampler::WithoutReplacement { batch_size: 20 }, n, m, 31);
    assert_eq!(accept(&fixed), [true, false, false], "fixed-size batches pass the spread tests");
}

/// Poisson sampling, per record: amplification by sampling needs every record included
/// independently with probability q, which the batch sizes alone do not show (a sampler that
/// includes record 0 at rate 2q passed the size test above on 48 of 50 seeds). With n = 200,
/// q = 0.1, m = 20 000 batches: each index's count ~ Binomial(m, q) and each adjacent pair's
/// co-inclusion count ~ Binomial(m, q²) (independence of neighbours in the gap construction),
/// 2n − 1 tests at ALPHA/(2n) each (union bound ≤ 1e-6). Indices are distinct and in [0, n).
/// Power twins, on the same batches: record 0 re-drawn at rate 2q (count ≈ 4000 against the
/// region ≈ 2000 ± 250) and record 1 included exactly when record 0 is (co-inclusion ≈ 2000
/// against ≈ 200 ± 85) both fail.
#[test]
fn stat_poisson_includes_each_record_independently_at_rate_q() {
    let (n, q, m) = (200usize, 0.1, 20_000usize);
    let sampler = BatchSampler::Poisson { q };
    let mut rng = Seeds::new(34).stream(Stream::Sampling);
    let mut twin_rng = Seeds::new(35).stream(Stream::Other(7));
    let mut batch = Vec::new();
    let (mut counts, mut pairs) = (vec![0u64; n], vec![0u64; n - 1]);
    let (mut doubled_rate_0, mut copied_pair) = (0u64, 0u64);
    for _ in 0..m {
        sampler.sample(&mut rng, n, &mut batch);
        let mut inside = vec![false; n];
        for &i in &batch {
            assert!(i < n && !inside[i], "index {i} out of range or repeated in {batch:?}");
            inside[i] = true;
            counts[i] += 1;
        }
        for i in 0..n - 1 {
            pairs[i] += u64::from(inside[i] && inside[i + 1]);
        }
        doubled_rate_0 += u64::from(twin_rng.random::<f64>() < 2.0 * q);
        copied_pair += u64::from(inside[0]);
    }
    let level = ALPHA / (2 * n) as f64;
    let (lo, hi) = binomial_interval(m as u64, q, level);
    let (lo2, hi2) = binomial_interval(m as u64, q * q, level);
    for (i, c) in counts.iter().enumerate() {
        assert!((lo..=hi).contains(c), "index {i}: {c} ∉ [{lo}, {hi}]");
    }
    for (i, c) in pairs.iter().enumerate() {
        assert!((lo2..=hi2).contains(c), "pair ({i}, {}): {c} ∉ [{lo2}, {hi2}]", i + 1);
    }
    assert!(!(lo..=hi).contains(&doubled_rate_0), "record 0 at rate 2q passes: {doubled_rate_0}");
    assert!(!(lo2..=hi2).contains(&copied_pair), "copied neighbour passes: {copied_pair}");
}

/// Without replacement: every batch has exactly b distinct indices in [0, n) (checked on 20 000
/// batches), and each index is included with probability b/n: its count over m batches is
/// Binomial(m, b/n) (exact marginal), tested per index at ALPHA/n. Power twin: "the first b
/// indices" (a shuffle that was never applied) puts index 0 in every batch.
#[test]
fn stat_without_replacement_batches_are_distinct_and_uniform() {
    let (n, b, m) = (10usize, 3usize, 20_000usize);
    let sampler = BatchSampler::WithoutReplacement { batch_size: b };
    let mut rng = Seeds::new(32).stream(Stream::Sampling);
    let mut batch = Vec::new();
    let mut counts = vec![0u64; n];
    for _ in 0..m {
        sampler.sample(&mut rng, n, &mut batch);
        assert_eq!(batch.len(), b);
        let mut sorted = batch.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), b, "repeated index in {batch:?}");
        assert!(batch.iter().all(|&i| i < n));
        for &i in &batch {
            counts[i] += 1;
        }
    }
    let (lo, hi) = binomial_interval(m as u64, b as f64 / n as f64, ALPHA / n as f64);
    for (i, c) in counts.iter().enumerate() {
        assert!((lo..=hi).contains(c), "index {i}: {c} ∉ [{lo}, {hi}]");
    }
    let mutant = m as u64; // index 0 is in every "first b" batch
    assert!(!(lo..=hi).contains(&mutant));
    assert_eq!(sampler.expected_batch_size(n), b as f64);
}

/// Full batch: every step is 0..n, normalised by n; with replacement: b indices in [0, n),
/// normalised by b; Poisson: normalised by q·n. Validation rejects q ∉ (0, 1] and b ∉ [1, n]
/// with `InvalidParameter`.
#[test]
fn prop_samplers_full_batch_and_validation() {
    let mut rng = Seeds::new(33).stream(Stream::Sampling);
    let mut batch = vec![99];
    BatchSampler::Full.sample(&mut rng, 7, &mut batch);
    assert_eq!(batch, (0..7).collect::<Vec<_>>());
    assert_eq!(BatchSampler::Full.expected_batch_size(7), 7.0);
    let wr = BatchSampler::WithReplacement { batch_size: 50 };
    wr.sample(&mut rng, 3, &mut batch);
    assert!(batch.len() == 50 && batch.iter().all(|&i| i < 3));
    assert_eq!(BatchSampler::Poisson { q: 0.25 }.expected_batch_size(40), 10.0);
    assert_eq!(BatchSampler::poisson_expected(10, 40).unwrap(), BatchSampler::Poisson { q: 0.25 });
    for bad in [
        BatchSampler::Poisson { q: 0.0 },
        BatchSampler::Poisson { q: 1.5 },
        BatchSampler::Poisson { q: f64::NAN },
        BatchSampler::WithoutReplacement { batch_size: 0 },
        BatchSampler::WithoutReplacement { batch_size: 11 },
        BatchSampler::WithReplacement { batch_size: 0 },
    ] {
        assert!(matches!(bad.validate(10), Err(Error::InvalidParameter { .. })), "{bad:?}");
    }
    assert!(matches!(BatchSampler::poisson_expected(11, 10), Err(Error::InvalidParameter { .. })));
}

/// Sampling with replacement has no accountant: `require_accountable` refuses it, and so does
/// every run that promises an ε (a `Privacy::Target`) or asks for one (`report_delta`), with
/// `Error::Unsupported`. Without a privacy claim the run goes ahead and reports no ε.
#[test]
fn prop_with_replacement_sampling_is_refused_for_privacy_claims() {
    let wr = BatchSampler::WithReplacement { batch_size: 4 };
    assert!(matches!(wr.require_accountable(Neighbouring::AddRemove), Err(Error::Unsupported { .. })));
    for ok in [BatchSampler::Poisson { q: 0.5 }, BatchSampler::WithoutReplacement { batch_size: 4 }, BatchSampler::Full]
    {
        assert!(ok.require_accountable(Neighbouring::ReplaceOne).is_ok());
    }
    let data = Dataset::new((0..20).map(f64::from).collect(), vec![1.0; 10], 2).unwrap();
    let target = Privacy::Target { epsilon: 1.0, delta: 1e-5 };
    let asks = Privacy::NoiseMultiplier { sigma: 1.0, report_delta: Some(1e-5) };
    let no_claim = Privacy::NoiseMultiplier { sigma: 1.0, report_delta: None };
    for privacy in [target, asks, no_claim] {
        let mut cfg = AdaptiveNoiseConfig::new(2, 0.5, 1.0, RunSettings::poisson(3, 0.5, privacy).unwrap()).unwrap();
        cfg.settings.sampler = wr;
        let mut sgd = DpSgdConfig::new(0.1, 1.0, RunSettings::poisson(3, 0.5, privacy).unwrap()).unwrap();
        sgd.settings.sampler = wr;
        let runs = [
            AdaptiveMethod::Pasan.run(&data, Loss::Squared, &cfg, Seeds::new(1), &mut NoTrace),
            AdaptiveMethod::Pagan.run(&data, Loss::Squared, &cfg, Seeds::new(1), &mut NoTrace),
            dp_sgd(&data, Loss::Squared, &sgd, Seeds::new(1), &mut NoTrace),
        ];
        for r in runs {
            if privacy == no_claim {
                let run = r.expect("a run without a privacy claim is allowed");
                assert_eq!(run.privacy.epsilon, None);
            } else {
                assert!(matches!(r, Err(Error::Unsupported { .. })), "{privacy:?}: {r:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The synthetic absolute regression (notes §5.1)
// ---------------------------------------------------------------------------------------------

/// `absolute_regression(n, d, τ)`: `x* ∈ {±1}^d`, features `aᵢⱼ ~ N(0, σⱼ²)` with
/// `σⱼ = j^{−3/2}`, labels `bᵢ = ⟨aᵢ, x*⟩ + Lap(τ)`. With n = 20 000, d = 4, τ = 0.01:
/// per coordinate `Σᵢ (aᵢⱼ/σⱼ)² ~ χ²_n` (4 tests) and `Σᵢ |bᵢ − ⟨aᵢ, x*⟩| ~ Gamma(n, τ)`
/// (1 test), each at ALPHA/5. Power twins on the same draws: scales `1/j` instead of `j^{−3/2}`
/// (coordinate 2 is off by 2^{1/2}, so its statistic doubles: 40 000 against a region of
/// ±1 100) and τ doubled both fail.
#[test]
fn stat_absolute_regression_has_the_papers_scales() {
    let (n, d, tau) = (20_000usize, 4usize, 0.01);
    let mut rng = Seeds::new(34).stream(Stream::Data);
    let (data, x_star) = absolute_regression(n, d, tau, &mut rng).unwrap();
    assert_eq!((data.n(), data.d(), x_star.len()), (n, d, d));
    assert!(x_star.iter().all(|&v| v == 1.0 || v == -1.0));
    let sigma = absolute_regression_scales(d);
    for (j, s) in sigma.iter().enumerate() {
        assert_eq!(*s, ((j + 1) as f64).powf(-1.5));
    }
    let alpha = ALPHA / 5.0;
    let (lo, hi) = chi_square_interval(n as u64, alpha);
    let stat = |j: usize, s: f64| (0..n).map(|i| (data.row(i)[j] / s).powi(2)).sum::<f64>();
    for (j, s) in sigma.iter().enumerate() {
        let t = stat(j, *s);
        assert!(lo <= t && t <= hi, "coordinate {j}: {lo} <= {t} <= {hi}");
    }
    // mutant generator with σ₂ = 1/2 instead of 2^{-3/2}: its draws are a·(0.5/σ₂)
    let t = stat(1, sigma[1]) * (0.5 / sigma[1]).powi(2);
    assert!(!(lo <= t && t <= hi), "scales 1/j pass: {t}");
    let resid: f64 =
        (0..n).map(|i| (data.label(i) - data.row(i).iter().zip(&x_star).map(|(a, x)| a * x).sum::<f64>()).abs()).sum();
    let (glo, ghi) = gamma_sum_interval(n as u64, tau, alpha);
    assert!(glo <= resid && resid <= ghi, "{glo} <= {resid} <= {ghi}");
    // mutant generator with 2τ: its residuals are twice these
    assert!(!(glo <= 2.0 * resid && 2.0 * resid <= ghi), "τ doubled passes");
    assert!(matches!(absolute_regression(0, 3, 0.1, &mut rng), Err(Error::InvalidParameter { .. })));
    assert!(matches!(absolute_regression(3, 3, -0.1, &mut rng), Err(Error::InvalidParameter { .. })));
}
