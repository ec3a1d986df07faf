//! Fuzz-style properties of every input path: the readers (CSV and LIBSVM datasets, audit sample
//! files) and the command line (hostile flag values per subcommand, random data files). The claim
//! is the same everywhere: a value or a typed error, never a panic; through the binary, exit code
//! 0, 2 or 3, a single `error:` line on 2, and never "panicked" on stderr. Case counts are small
//! so the file runs in a few seconds (each binary case is one process).

use dpref::audit::samples::{Column, parse_sample_column};
use dpref::data::sparse::SparseDataset;
use dpref::data::{parse_csv, parse_libsvm};
use dpref::error::Error;
use proptest::prelude::*;
use std::process::Command;

mod common;
use common::cli_data::TempDir;

/// Text over the characters the readers treat specially, plus a byte-order mark and a quote.
fn texty() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[0-9.,eE+\\- \n\t:#a-zNI\"\u{feff}]{0,160}").expect("a valid regex")
}

/// Arbitrary bytes, read as text the way a reader would see them (lossily).
fn bytes_as_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<u8>(), 0..256).prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![texty(), bytes_as_text()]
}

/// An error of the kinds a reader may return for bad text.
fn is_reader_error(e: &Error) -> bool {
    matches!(e, Error::Data { .. } | Error::InvalidParameter { .. } | Error::Empty { .. } | Error::NonFinite { .. })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn prop_csv_reader_returns_a_dataset_or_a_typed_error(text in any_text(), label in prop::option::of(0usize..4)) {
        match parse_csv(&text, "fuzz.csv", label) {
            Ok(d) => {
                prop_assert!(d.n() >= 1 && d.d() >= 1);
                prop_assert_eq!(d.features().len(), d.n() * d.d());
                prop_assert!(d.features().iter().chain(d.labels()).all(|v| v.is_finite()));
            }
            Err(e) => prop_assert!(is_reader_error(&e), "{e:?}"),
        }
    }

    #[test]
    fn prop_libsvm_reader_returns_a_dataset_or_a_typed_error(text in any_text(), dim in prop::option::of(0usize..8)) {
        match parse_libsvm(&text, "fuzz.svm", dim) {
            Ok(d) => {
                prop_assert!(d.n() >= 1 && d.d() >= 1 && d.d() <= dpref::data::MAX_FEATURES);
                prop_assert!(d.features().iter().chain(d.labels()).all(|v| v.is_finite()));
            }
            Err(e) => prop_assert!(is_reader_error(&e), "{e:?}"),
        }
    }

    /// The sparse (CSR) LIBSVM reader accepts exactly what the dense one accepts (within the
    /// dense size limit), with the same error, and the same numbers: each CSR row densified is
    /// the dense row.
    #[test]
    fn prop_sparse_libsvm_reader_agrees_with_the_dense_one(text in any_text(), dim in prop::option::of(0usize..8)) {
        match (parse_libsvm(&text, "fuzz.svm", dim), SparseDataset::parse_libsvm(&text, "fuzz.svm", dim)) {
            (Ok(dense), Ok(sparse)) => {
                prop_assert_eq!((dense.n(), dense.d()), (sparse.n(), sparse.d()));
                prop_assert_eq!(dense.labels(), sparse.labels());
                for i in 0..dense.n() {
                    let mut row = vec![0.0; dense.d()];
                    let (idx, vals) = sparse.row(i);
                    idx.iter().zip(vals).for_each(|(&j, &v)| row[j] = v);
                    prop_assert_eq!(dense.row(i), row.as_slice());
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(format!("{a:?}"), format!("{b:?}")),
            (a, b) => prop_assert!(false, "dense {:?} but sparse {:?}", a.map(|_| ()), b.map(|_| ())),
        }
    }

    /// Index-heavy LIBSVM lines, including indices far beyond the limit and beyond u64.
    #[test]
    fn prop_libsvm_huge_indices_are_refused_without_allocating(
        idx in prop_oneof![1u64..64, (1u64 << 24)..(1u64 << 25), any::<u64>()],
        extra in "[0-9]{0,3}",
    ) {
        let text = format!("1 {idx}{extra}:1.5\n0 1:1\n");
        match parse_libsvm(&text, "fuzz.svm", None) {
            Ok(d) => prop_assert!(d.d() <= dpref::data::MAX_FEATURES),
            Err(e) => prop_assert!(is_reader_error(&e), "{e:?}"),
        }
    }

    #[test]
    fn prop_sample_reader_returns_a_column_or_a_typed_error(
        text in any_text(),
        column in prop_oneof![
            Just(None),
            (0usize..4).prop_map(|i| Some(Column::Index(i))),
            prop::sample::select(vec!["value", "", "x", "a"]).prop_map(|n| Some(Column::Name(n.to_string()))),
        ],
    ) {
        match parse_sample_column(&text, "fuzz.txt", column.as_ref()) {
            Ok(c) => {
                prop_assert!(!c.values.is_empty() && c.values.iter().all(|v| v.is_finite()));
                prop_assert!(c.index < c.columns);
                prop_assert!(column.is_some() || c.columns == 1);
            }
            Err(e) => prop_assert!(matches!(e, Error::Data { .. }), "{e:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The binary.

/// Runs the binary and checks the exit-code contract; returns the exit code.
fn check_contract(args: &[String]) -> Result<i32, TestCaseError> {
    let o = Command::new(env!("CARGO_BIN_EXE_dpref")).args(args).output().expect("binary runs");
    let err = String::from_utf8_lossy(&o.stderr);
    let code = o.status.code().unwrap_or(-1);
    prop_assert!(!err.contains("panicked"), "{args:?}: {err}");
    prop_assert!([0, 2, 3].contains(&code), "{args:?}: exit {code}: {err}");
    if code == 2 {
        prop_assert!(err.starts_with("error: ") && err.trim_end().lines().count() == 1, "{args:?}: {err}");
    }
    Ok(code)
}

/// Hostile values for any flag: specials, signs, huge and tiny magnitudes, non-numbers, and
/// ordinary small numbers (so that some cases get past the first check).
fn hostile_value() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "NaN",
            "nan",
            "inf",
            "-inf",
            "-1",
            "-0",
            "0",
            "",
            " ",
            "1e308",
            "1e-320",
            "5e-324",
            "1e400",
            "18446744073709551616",
            "99999999999999999999999",
            "1e12",
            "1.5",
            "0.5",
            "2",
            "1e-5",
            "0x10",
            "1,2",
            ",",
            "abc",
            "none",
            "box:1",
            "l2:-1",
            "power:nan",
            "file:/no/such",
            "\u{feff}1",
            "1e-3",
        ])
        .prop_map(str::to_string),
        (-5.0f64..5.0).prop_map(|x| x.to_string()),
        (0u64..100).prop_map(|x| x.to_string()),
        "[ -~]{0,12}",
    ]
}

const ACCOUNT_FLAGS: &[&str] = &[
    "--sigma",
    "--steps",
    "--delta",
    "--q",
    "--batch-size",
    "--dataset-size",
    "--sampling",
    "--neighbouring",
    "--accountant",
    "--conversion",
    "--orders",
];

/// `run` flags; `--steps` and the DP² delays are left out (a valid huge value would train for a
/// long time, which is what it asks for).
const RUN_FLAGS: &[&str] = &[
    "--sigma",
    "--epsilon",
    "--delta",
    "--batch-size",
    "--sampling",
    "--learning-rate",
    "--clip",
    "--domain",
    "--label-column",
    "--hidden",
    "--beta1",
    "--beta2",
    "--nu",
    "--lambda",
    "--seed",
    "--output",
    "--ellipsoid",
    "--neighbouring",
    "--clip-sgd",
    "--clip-adaptive",
    "--learning-rate-adaptive",
    "--variant",
    "--bias-correction",
    "--projection",
    "--ablation",
];

const AUDIT_FLAGS: &[&str] =
    &["--delta", "--claimed-epsilon", "--confidence", "--column", "--seed", "--threshold-strategy"];

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn prop_binary_account_and_calibrate_survive_hostile_flags(
        flag in prop::sample::select(ACCOUNT_FLAGS),
        value in hostile_value(),
        calibrate in any::<bool>(),
    ) {
        let mut args = if calibrate {
            strings(&["calibrate", "--target-epsilon", "2"])
        } else {
            strings(&["account"])
        };
        // the fuzzed flag first, then defaults for the required ones it did not replace
        args.push(format!("{flag}={value}"));
        for (f, v) in [("--sigma", "1.1"), ("--steps", "100"), ("--delta", "1e-5")] {
            if f != flag && !(calibrate && f == "--sigma") {
                args.extend(strings(&[f, v]));
            }
        }
        if !["--q", "--batch-size", "--dataset-size", "--sampling"].contains(&flag) {
            args.extend(strings(&["--q", "0.01"]));
        }
        check_contract(&args)?;
    }

    #[test]
    fn prop_binary_run_survives_hostile_flags(
        algorithm in prop::sample::select(vec!["dp-sgd", "pasan", "dp-adam", "dp-rmsprop", "dp2-rmsprop"]),
        flag in prop::sample::select(RUN_FLAGS),
        value in hostile_value(),
    ) {
        let files = TempDir::new("fuzz-run");
        let data = files.file("d.csv", b"x1,x2,y\n1,0.5,0\n2,-1,1\n3,0,0\n4,2,1\n");
        let mut args = strings(&["run", algorithm, "--data", &data, "--steps", "3"]);
        args.push(format!("{flag}={value}"));
        if flag != "--hidden" {
            args.extend(strings(&["--loss", "logistic"]));
        } else {
            args.extend(strings(&["--loss", "cross-entropy"]));
        }
        if !["--sigma", "--epsilon", "--delta"].contains(&flag) {
            args.extend(strings(&["--sigma", "1"]));
        }
        check_contract(&args)?;
    }

    #[test]
    fn prop_binary_audit_survives_hostile_flags(flag in prop::sample::select(AUDIT_FLAGS), value in hostile_value()) {
        let files = TempDir::new("fuzz-audit");
        let a = files.file("a.csv", b"score,label\n0.5,1\n1.5,0\n-0.25,1\n2,1\n");
        let b = files.file("b.csv", b"score,label\n0.1,1\n0.3,0\n-1.25,1\n0,1\n");
        let mut args = strings(&["audit", "samples", "--a", &a, "--b", &b]);
        args.push(format!("{flag}={value}"));
        if flag != "--claimed-epsilon" {
            args.extend(strings(&["--claimed-epsilon", "0.1"]));
        }
        if flag != "--column" {
            args.extend(strings(&["--column", "score"]));
        }
        check_contract(&args)?;
    }

    /// Random bytes as the data file of `run` (CSV or LIBSVM by extension) and as audit samples.
    #[test]
    fn prop_binary_survives_random_data_files(content in prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        texty().prop_map(String::into_bytes),
    ]) {
        let files = TempDir::new("fuzz-data");
        for name in ["d.csv", "d.svm"] {
            let data = files.file(name, &content);
            check_contract(&strings(&["run", "dp-sgd", "--data", &data, "--loss", "logistic", "--sigma", "1", "--steps", "2"]))?;
        }
        let s = files.file("s.txt", &content);
        check_contract(&strings(&["audit", "samples", "--a", &s, "--b", &s]))?;
    }
}
