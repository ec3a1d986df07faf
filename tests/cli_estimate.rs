//! `dpref estimate mean` (\[GGKKM\] Algorithm 1, the projection mechanism): the JSON contract,
//! determinism, the ε it reports (the request for Laplace, ≤ the request for Gaussian), the same
//! numbers as the library, and the usage errors (exit 2, one `error:` line).

mod common;

use common::cli::{dpref, json};

use common::cli_data::{TempDir, assert_usage_error};
use dpref::optim::sparse::projection_mechanism::{ProjectionMechanismConfig, SparseVectors};
use dpref::rng::{Seeds, Stream};
use serde_json::Value;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

const N: usize = 200;
const D: usize = 12;

/// N rows of D features with exactly 3 non-zeros each, l2 norm ≤ 1 (seed 5, data stream), as
/// (CSV with a header and a label column, LIBSVM).
fn sparse_files(dir: &TempDir) -> (String, String) {
    let mut rng = Seeds::new(5).stream(Stream::Data);
    let mut csv = (0..D).map(|j| format!("x{j},")).collect::<String>() + "label\n";
    let mut svm = String::new();
    for i in 0..N {
        let mut row = [0.0f64; D];
        for k in 0..3 {
            row[(i * 5 + k * 4) % D] = dpref::noise::standard_normal(&mut rng);
        }
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        let scale = if norm > 1.0 { 0.999 / norm } else { 1.0 };
        row.iter_mut().for_each(|v| *v *= scale);
        csv += &(row.iter().map(|v| format!("{v},")).collect::<String>() + "1\n");
        svm += "1";
        for (j, v) in row.iter().enumerate().filter(|(_, v)| **v != 0.0) {
            svm += &format!(" {}:{v}", j + 1);
        }
        svm += "\n";
    }
    (dir.file("v.csv", csv), dir.file("v.svm", svm))
}

fn args<'a>(data: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["estimate", "mean", "--data", data, "--l2-bound", "1", "--sparsity", "3", "--json"];
    if data.ends_with(".svm") {
        a.extend(["--dimension", "12"]); // D, public
    }
    a.extend(extra);
    a
}

/// A LIBSVM file's dimension is its largest feature index, which depends on the records: two
/// replace-one neighbours (the last row at index 3 or at index 9) released means of 3 and 9
/// entries (found by a black-box sweep). A private release now needs the public `--dimension`;
/// with it both neighbours release D entries, and an index above it is refused.
#[test]
fn cli_libsvm_dimension_is_public_not_read_from_the_records() {
    let dir = TempDir::new("cli-estimate-dimension");
    let a = dir.file("a.svm", "1 1:0.5\n1 2:0.3\n1 3:0.2\n");
    let b = dir.file("b.svm", "1 1:0.5\n1 2:0.3\n1 9:0.2\n");
    let base = |data: &str| -> Vec<String> {
        ["estimate", "mean", "--data", data, "--l2-bound", "1", "--sparsity", "1", "--epsilon", "1", "--json"]
            .map(String::from)
            .to_vec()
    };
    let run = |v: Vec<String>| dpref(&v.iter().map(String::as_str).collect::<Vec<_>>());
    for data in [&a, &b] {
        let o = run(base(data));
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("--dimension"));
        let v = json(
            &[base(data), vec!["--dimension".into(), "12".into()]]
                .concat()
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        assert_eq!((v["d"].as_u64(), floats(&v["mean"]).len()), (Some(12), 12));
    }
    let low = run([base(&b), vec!["--dimension".into(), "4".into()]].concat());
    assert_eq!(low.status.code(), Some(2), "an index above --dimension is refused");
    let csv = dir.file("c.csv", "0.5,0,1\n0,0.3,1\n");
    let o = run([base(&csv), vec!["--dimension".into(), "2".into()]].concat());
    assert_eq!(o.status.code(), Some(2), "--dimension is for LIBSVM files");
}

#[test]
fn cli_estimate_mean_json_contract_determinism_and_privacy() {
    let dir = TempDir::new("cli-estimate");
    let (csv, svm) = sparse_files(&dir);
    let laplace = args(&csv, &["--epsilon", "0.7", "--seed", "4"]);
    let v = json(&laplace);
    assert_eq!(v["method"], "projection");
    assert_eq!(v["noise"], "laplace");
    assert_eq!(v["n"], N as u64);
    assert_eq!(v["d"], D as u64);
    assert!(v.get("clipped_rows").is_none(), "a count of records is not released");
    assert_eq!(v["delta"].as_f64(), Some(0.0));
    let mean = floats(&v["mean"]);
    assert_eq!(mean.len(), D);
    assert!(mean.iter().map(|x| x.abs()).sum::<f64>() <= 3f64.sqrt() * (1.0 + 1e-12), "in K = B1(0, L√s)");
    // Laplace: pure ε, the request (the accountant rounds 1/z up, so within 1e-14 and never below)
    let eps = v["epsilon"].as_f64().unwrap();
    assert!((0.7..=0.7 * (1.0 + 1e-14)).contains(&eps), "Laplace reports the requested epsilon: {eps}");
    // determinism: same seed, same bytes; another seed, another mean; LIBSVM the same as CSV
    assert_eq!(dpref(&laplace).stdout, dpref(&laplace).stdout, "same seed, same bytes");
    let other = json(&args(&csv, &["--epsilon", "0.7", "--seed", "5"]));
    assert_ne!(floats(&other["mean"]), mean, "another seed, another mean");
    assert_eq!(dpref(&args(&svm, &["--epsilon", "0.7", "--seed", "4"])).stdout, dpref(&laplace).stdout);
    // Gaussian: ε at δ from the exact curve, ≤ the request
    let g = json(&args(&csv, &["--epsilon", "0.5", "--delta", "1e-5", "--seed", "4"]));
    assert_eq!(g["noise"], "gaussian");
    assert_eq!(g["delta"].as_f64(), Some(1e-5));
    let eps_g = g["epsilon"].as_f64().unwrap();
    assert!(eps_g > 0.0 && eps_g <= 0.5, "Gaussian reports at most the requested epsilon: {eps_g}");
    // the text output: the first 8 entries and d
    let t = dpref(&["estimate", "mean", "--data", &csv, "--l2-bound", "1", "--sparsity", "3", "--epsilon", "0.7"]);
    let t = String::from_utf8(t.stdout).unwrap();
    assert!(t.contains(&format!("(d = {D})")) && t.contains("laplace") && t.contains(", ...]"), "{t}");
}

#[test]
fn cli_estimate_mean_equals_the_library() {
    let dir = TempDir::new("cli-estimate-lib");
    let (csv, _) = sparse_files(&dir);
    let data = dpref::data::read_csv(std::path::Path::new(&csv), None).unwrap();
    for (eps, delta, seed) in [(2.0, 0.0, 11u64), (0.9, 1e-6, 12)] {
        let (e, dl, s) = (eps.to_string(), delta.to_string(), seed.to_string());
        let v = json(&args(&csv, &["--epsilon", &e, "--delta", &dl, "--seed", &s]));
        let cfg = ProjectionMechanismConfig::new(1.0, 3, eps, delta).unwrap();
        let run = cfg.run(SparseVectors::Dense(&data), Seeds::new(seed)).unwrap();
        assert_eq!(floats(&v["mean"]), run.z_hat, "eps {eps} delta {delta}");
        assert_eq!(v["epsilon"].as_f64(), run.accounted.privacy.epsilon);
        assert_eq!(v["sigma"].as_f64(), Some(run.noise.sigma()));
    }
    // explicit clipping: s = 2 < 3 non-zeros in every row, all rows clipped, as in the library
    let v = json(&[
        "estimate",
        "mean",
        "--data",
        &csv,
        "--l2-bound",
        "1",
        "--sparsity",
        "2",
        "--epsilon",
        "1",
        "--clip-rows",
        "--json",
    ]);
    let run = ProjectionMechanismConfig::new(1.0, 2, 1.0, 0.0)
        .unwrap()
        .with_clipping()
        .run(SparseVectors::Dense(&data), Seeds::new(0))
        .unwrap();
    // the library counts the clipped rows for diagnostics; the CLI does not release the count
    // (sensitivity 1, no noise: two neighbours differing in one clipped row printed 1 and 0)
    assert!(v.get("clipped_rows").is_none());
    assert_eq!(run.clipped_rows, N);
    assert_eq!(floats(&v["mean"]), run.z_hat);
}

/// `estimate mean --data <data> --l2-bound 1 --sparsity 3 <extra>` is a usage error.
fn full(data: &str, extra: &[&str]) {
    let mut a = vec!["estimate", "mean", "--data", data, "--l2-bound", "1", "--sparsity", "3"];
    a.extend_from_slice(extra);
    assert_usage_error(&a);
}

#[test]
fn cli_estimate_mean_usage_errors() {
    let dir = TempDir::new("cli-estimate-err");
    let (csv, _) = sparse_files(&dir);
    let nan = dir.file("nan.csv", "x,y,label\n0.5,0,1\nNaN,0,1\n");
    let empty = dir.file("empty.csv", "");
    let long = dir.file("long.svm", "1 1:0.1 2:0.1\n1 1:0.1 2:0.1 3:0.1 4:0.1\n");
    // missing flags
    assert_usage_error(&["estimate", "mean", "--data", &csv, "--sparsity", "3", "--epsilon", "1"]);
    assert_usage_error(&["estimate", "mean", "--data", &csv, "--l2-bound", "1", "--epsilon", "1"]);
    assert_usage_error(&["estimate", "mean", "--l2-bound", "1", "--sparsity", "3", "--epsilon", "1"]);
    full(&csv, &[]);
    // epsilon <= 0 (and NaN), delta outside [0, 1), Gaussian with epsilon >= 1
    for bad in ["0", "-1", "NaN"] {
        full(&csv, &["--epsilon", bad]);
    }
    for bad in ["1", "-0.1", "2"] {
        full(&csv, &["--epsilon", "0.5", "--delta", bad]);
    }
    full(&csv, &["--epsilon", "1", "--delta", "1e-5"]);
    assert_usage_error(&["estimate", "mean", "--data", &csv, "--l2-bound", "1", "--sparsity", "0", "--epsilon", "1"]);
    assert_usage_error(&["estimate", "mean", "--data", &csv, "--l2-bound", "0", "--sparsity", "3", "--epsilon", "1"]);
    // a row with more than s non-zeros, without --clip-rows: the message names the row and the fix
    let o = dpref(&[
        "estimate",
        "mean",
        "--data",
        &long,
        "--l2-bound",
        "1",
        "--sparsity",
        "3",
        "--epsilon",
        "1",
        "--dimension",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.starts_with("error: ") && err.trim_end().lines().count() == 1, "{err}");
    assert!(err.contains("row 1") && err.contains("--clip-rows"), "{err}");
    full(&long, &["--epsilon", "1", "--dimension", "4"]);
    // NaN data and an empty file
    full(&nan, &["--epsilon", "1"]);
    full(&empty, &["--epsilon", "1"]);
}

/// `--method`: `projection` prints the same bytes as no flag (text and JSON); `gaussian` and
/// `laplace` print Algorithm 1's noisy mean z̃ before the projection (the library's, bit for bit);
/// `recovery` prints Algorithm 2's ẑ with m, its branch and ρ (the library's, bit for bit), in
/// both branches (ε = 0.02: m = 3 and d = 12 ≥ 3 ln² 3, recovery; ε = 0.5: m = 63, Gaussian);
/// mismatched --delta is a usage error.
#[test]
fn cli_estimate_mean_methods_equal_the_library() {
    use dpref::optim::sparse::{GaussianL1RecoveryConfig, RecoveryBranch};
    let dir = TempDir::new("cli-estimate-methods");
    let (csv, _) = sparse_files(&dir);
    let data = dpref::data::read_csv(std::path::Path::new(&csv), None).unwrap();
    for extra in [&["--epsilon", "0.7"][..], &["--epsilon", "0.5", "--delta", "1e-5"]] {
        for json_flag in [true, false] {
            let mut base =
                vec!["estimate", "mean", "--data", &csv, "--l2-bound", "1", "--sparsity", "3", "--seed", "3"];
            base.extend_from_slice(extra);
            if json_flag {
                base.push("--json");
            }
            let mut with = base.clone();
            with.extend_from_slice(&["--method", "projection"]);
            assert_eq!(dpref(&base).stdout, dpref(&with).stdout, "{with:?}");
        }
    }
    let g = json(&args(&csv, &["--epsilon", "0.5", "--delta", "1e-5", "--seed", "3", "--method", "gaussian"]));
    let run =
        ProjectionMechanismConfig::new(1.0, 3, 0.5, 1e-5).unwrap().run(SparseVectors::Dense(&data), Seeds::new(3));
    let run = run.unwrap();
    assert_eq!((g["method"].as_str(), floats(&g["mean"])), (Some("gaussian"), run.z_tilde));
    let l = json(&args(&csv, &["--epsilon", "0.7", "--seed", "3", "--method", "laplace"]));
    let run = ProjectionMechanismConfig::new(1.0, 3, 0.7, 0.0).unwrap().run(SparseVectors::Dense(&data), Seeds::new(3));
    assert_eq!((l["method"].as_str(), floats(&l["mean"])), (Some("laplace"), run.unwrap().z_tilde));
    for (eps, branch) in [(0.02, "recovery"), (0.5, "gaussian")] {
        let e = eps.to_string();
        let r = json(&args(&csv, &["--epsilon", &e, "--delta", "1e-5", "--seed", "3", "--method", "recovery"]));
        let cfg = GaussianL1RecoveryConfig::new(1.0, 3, eps, 1e-5).unwrap();
        let run = cfg.run(SparseVectors::Dense(&data), Seeds::new(3)).unwrap();
        assert_eq!(r["branch"], branch);
        assert_eq!(r["m"].as_u64(), Some(run.m as u64));
        assert_eq!(floats(&r["mean"]), run.z_hat);
        assert_eq!(r["epsilon"].as_f64(), run.accounted.privacy.epsilon);
        assert!(r["epsilon"].as_f64().unwrap() <= eps && r["delta"].as_f64() == Some(1e-5));
        if let RecoveryBranch::Recovery { rho, .. } = run.branch {
            assert_eq!(r["rho"].as_f64(), Some(rho));
        } else {
            assert!(r["rho"].is_null());
        }
    }
    let t = dpref(&["estimate", "mean", "--data", &csv, "--l2-bound", "1", "--sparsity", "3", "--epsilon", "0.02"]);
    assert_eq!(t.status.code(), Some(0));
    full(&csv, &["--epsilon", "0.5", "--method", "recovery"]);
    full(&csv, &["--epsilon", "0.5", "--method", "gaussian"]);
    full(&csv, &["--epsilon", "0.5", "--delta", "1e-5", "--method", "laplace"]);
    full(&csv, &["--epsilon", "1", "--delta", "1e-5", "--method", "recovery"]);
    full(&csv, &["--epsilon", "0.5", "--delta", "1e-5", "--method", "sparse"]);
}
