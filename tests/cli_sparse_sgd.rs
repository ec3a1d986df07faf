//! `dpref run sparse-sgd` and `dpref run sparse-boosted-sgd` (\[GGKKM\] Algorithms 6 and 7): the
//! JSON contract, determinism, the same output from LIBSVM (read as CSR) and CSV, the privacy each
//! reports (the approximate-DP accountant's, ≤ the request; the printed selection scale charged
//! above it), equality with the library run ([`SparseRunSpec`]) on the same data and seed, and the
//! refusals (exit 2, one `error:` line) (proofs/run_spec.md § sparse-gradient runs).

mod common;

use common::cli::{dpref, json};
use common::cli_data::{TempDir, assert_usage_error};
use common::sparse_data::sparse_rows_from;
use dpref::data::sparse::SparseDataset;
use dpref::optim::run_spec::{RunLoss, SparseAlgorithm, SparseRunSpec};
use dpref::optim::sparse::SelectionScore;
use dpref::rng::{DpRng, Seeds, Stream};
use rand::RngExt;

const N: usize = 512;
const D: usize = 12;

/// N rows with 2 non-zeros of l2 norm just below 1 (the last feature set in row 0, so that the
/// LIBSVM file's inferred d is D), labels ±1, as (LIBSVM, CSV) files.
fn data_files(dir: &TempDir) -> (String, String) {
    let mut r: DpRng = Seeds::new(17).stream(Stream::Data);
    let (mut rows, _) = sparse_rows_from(&mut r, N, D, 2, 1.0);
    rows[0] = vec![(0, 0.6), (D - 1, -0.8 * (1.0 - 1e-15))];
    let (mut svm, mut csv) = (String::new(), String::new());
    for row in &rows {
        let y = if r.random::<bool>() { 1 } else { -1 };
        let entries: Vec<String> = row.iter().map(|(j, v)| format!("{}:{v}", j + 1)).collect();
        svm += &format!("{y} {}\n", entries.join(" "));
        let mut dense = [0.0; D];
        row.iter().for_each(|&(j, v)| dense[j] = v);
        let cells: Vec<String> = dense.iter().map(|v| v.to_string()).collect();
        csv += &format!("{},{y}\n", cells.join(","));
    }
    (dir.file("s.svm", svm), dir.file("s.csv", csv))
}

fn args<'a>(algorithm: &'a str, data: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["run", algorithm, "--data", data, "--loss", "logistic", "--epsilon", "0.5", "--delta", "1e-5"];
    v.extend(["--l2-bound", "1", "--sparsity", "2", "--neighbouring", "replace-one", "--domain", "l2:2", "--json"]);
    if data.ends_with(".svm") {
        v.extend(["--dimension", "12"]); // D, public
    }
    v.extend(extra);
    v
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

#[test]
fn sparse_sgd_json_contract_determinism_formats_and_library_twin() {
    let dir = TempDir::new("cli-sparse-sgd");
    let (svm, csv) = data_files(&dir);
    let run = args("sparse-sgd", &svm, &["--learning-rate", "0.5", "--seed", "3"]);
    let v = json(&run);
    assert_eq!(v["algorithm"], "sparse-sgd");
    assert_eq!(v["privacy"]["accountant"], "approx-dp");
    assert_eq!(v["privacy"]["neighbouring"], "replace-one");
    assert_eq!(v["stopping"], "lagged");
    assert_eq!(v["step_size"], 0.5);
    let steps = v["steps"].as_u64().unwrap();
    assert!(steps >= 3, "{v}");
    assert_eq!(v["stopping_time"].as_i64().unwrap(), steps as i64 - 1, "T + 1 steps run");
    // the lagged loop runs a filter-valid prefix and exactly two more steps
    assert_eq!(v["filtered_steps"].as_u64().unwrap(), steps - 2);
    let touched = v["examples_touched"].as_u64().unwrap();
    // each step evaluates 2^{N_t+1} + 1 gradients, N_t in 0..=M, M = floor(log2 512) - 1 = 8
    assert!(touched >= 3 * steps && touched <= 513 * steps, "{touched} for {steps} steps");
    let (eps, delta) = (f(&v["privacy"]["epsilon"]), f(&v["privacy"]["delta"]));
    assert!(eps > 0.0 && eps <= 0.5 && delta > 0.0 && delta <= 1e-5, "({eps}, {delta}) <= requested");
    let x: Vec<f64> = v["x"].as_array().unwrap().iter().map(f).collect();
    assert_eq!(x.len(), D);
    assert!(x.iter().map(|v| v * v).sum::<f64>().sqrt() <= 2.0 + 1e-12, "x in l2:2: {x:?}");
    assert!(f(&v["loss"]).is_finite());

    assert_eq!(dpref(&run).stdout, dpref(&run).stdout, "same seed, same bytes");
    let csv_run = args("sparse-sgd", &csv, &["--learning-rate", "0.5", "--seed", "3"]);
    assert_eq!(dpref(&csv_run).stdout, dpref(&run).stdout, "CSV and LIBSVM give the same CSR data, same run");
    let other = args("sparse-sgd", &svm, &["--learning-rate", "0.5", "--seed", "4"]);
    assert_ne!(dpref(&other).stdout, dpref(&run).stdout, "the seed drives the levels and the noise");

    // the library run on the same data and seed reports the same numbers
    let data = SparseDataset::read_libsvm(svm.as_ref(), None).unwrap();
    let mut spec = SparseRunSpec::new(SparseAlgorithm::BiasReducedSgd, RunLoss::Logistic, 0.5, 1e-5, 1.0, 2);
    spec.domain = dpref::geometry::Domain::L2Ball { radius: 2.0 };
    spec.step_size = dpref::optim::run_spec::SparseStepSize::Fixed(0.5);
    spec.seed = 3;
    let lib = spec.run(&data).unwrap();
    assert_eq!(lib.privacy.epsilon, Some(eps));
    assert_eq!(lib.privacy.delta, Some(delta));
    assert_eq!(lib.x, x);
    assert_eq!(lib.runs[0].steps, steps);
    let reread = dpref::optim::sparse::Accounted::approximate_dp(lib.events.clone(), "sparse run").unwrap();
    assert_eq!(reread.privacy, lib.privacy, "the report is re-derived from the run's own events");

    // checked-first: every step under the filter, target (ε/2, δ/2)
    let checked = json(&args("sparse-sgd", &svm, &["--stopping", "checked-first", "--seed", "3"]));
    assert_eq!(checked["stopping"], "checked-first");
    assert_eq!(checked["filtered_steps"], checked["steps"]);
    assert!(f(&checked["privacy"]["epsilon"]) <= 0.25 && f(&checked["privacy"]["delta"]) <= 0.5e-5, "{checked}");

    // Thm. 6.7's step: D/(nu sqrt(tau)) on the bounded domain, a positive number below the given 0.5
    let theorem = json(&args("sparse-sgd", &svm, &["--theorem-step"]));
    let eta = f(&theorem["step_size"]);
    assert!(eta > 0.0 && eta < 0.5, "{eta}");
}

#[test]
fn sparse_boosted_sgd_reports_runs_selection_and_its_true_cost() {
    let dir = TempDir::new("cli-sparse-boost");
    let (svm, _) = data_files(&dir);
    // logistic on l2:1 with rows of norm <= 1: f <= ln(1 + e) < 2 = B
    let boost = |extra: &[&'static str]| {
        let mut a = args("sparse-boosted-sgd", &svm, &["--beta", "0.5"]);
        let i = a.iter().position(|s| *s == "l2:2").unwrap();
        a[i] = "l2:1";
        a.extend(extra);
        a
    };
    let risk = ["--selection-score", "risk", "--loss-range", "2"];
    let v = json(&boost(&risk));
    assert_eq!(v["algorithm"], "sparse-boosted-sgd");
    assert_eq!(v["selection"]["runs_k"], 2, "K = ceil(log2(2/0.5)) = 2");
    assert_eq!(v["runs"].as_array().unwrap().len(), 2);
    assert_eq!(v["selection"]["scores"].as_array().unwrap().len(), 2);
    assert_eq!(v["selection"]["scale"], "corrected");
    let steps: u64 = v["runs"].as_array().unwrap().iter().map(|r| r["steps"].as_u64().unwrap()).sum();
    assert_eq!(v["steps"].as_u64().unwrap(), steps);
    let (eps, delta) = (f(&v["privacy"]["epsilon"]), f(&v["privacy"]["delta"]));
    assert!(eps <= 0.5 && delta <= 2.0 / 3.0 * 1e-5 * (1.0 + 1e-12), "<= (eps, K delta/(K+1)): ({eps}, {delta})");
    // λ = 2B(K+1)/(nε): score range B = 2, K = 2, n = 512, ε = 0.5
    let lambda = dpref::bounds::sparse::theorem71_laplace_scale_corrected(2.0, 2, 512, 0.5).unwrap();
    assert!(
        (f(&v["selection"]["lambda"]) - lambda).abs() <= 1e-15 * lambda,
        "{} vs {lambda}",
        v["selection"]["lambda"]
    );
    assert_eq!(dpref(&boost(&risk)).stdout, dpref(&boost(&risk)).stdout, "same seed, same bytes");

    let data = SparseDataset::read_libsvm(svm.as_ref(), None).unwrap();
    let mut spec = SparseRunSpec::new(SparseAlgorithm::BoostedSgd, RunLoss::Logistic, 0.5, 1e-5, 1.0, 2);
    spec.domain = dpref::geometry::Domain::L2Ball { radius: 1.0 };
    (spec.boosting.beta, spec.boosting.score) = (Some(0.5), Some(SelectionScore::EmpiricalRisk { range_b: 2.0 }));
    let lib = spec.run(&data).unwrap();
    assert_eq!((lib.privacy.epsilon, lib.privacy.delta), (Some(eps), Some(delta)), "the library's report");
    assert_eq!(serde_json::json!(lib.x), v["x"]);
    // the report is re-derived from the run's own events (K runs' filters, then the selection)
    let reread = dpref::optim::sparse::Accounted::approximate_dp(lib.events.clone(), "boosted run").unwrap();
    assert_eq!(reread.privacy, lib.privacy);
    assert_eq!(
        lib.events.as_event().map(|e| matches!(e, dpref::accounting::DpEvent::Composed(ref p) if p.len() == 3)),
        Some(true)
    );

    // the printed scale: opt-in, charged 2ε/(K+1) for the selection, so the total exceeds ε
    let mut printed_args = boost(&risk);
    printed_args.extend(["--selection-scale", "as-printed"]);
    let printed = json(&printed_args);
    assert_eq!(printed["selection"]["scale"], "as-printed");
    let printed_eps = f(&printed["privacy"]["epsilon"]);
    assert!(printed_eps > 0.5, "charged its true cost: {printed_eps}");
    assert!((f(&printed["selection"]["lambda"]) - 6.0 / 256.0).abs() < 1e-15);

    // nonconvex: the gradient-norm score by default
    let nonconvex = json(&boost(&["--objective", "nonconvex"]));
    assert_eq!(nonconvex["selection"]["score"], "gradient-norm");
    assert!(f(&nonconvex["privacy"]["epsilon"]) <= 0.5);
}

#[test]
fn sparse_runs_refuse_what_no_analysis_covers() {
    let dir = TempDir::new("cli-sparse-refuse");
    let (svm, csv) = data_files(&dir);
    let set = |a: &mut Vec<&str>, flag: &str, value: &'static str| {
        let i = a.iter().position(|s| *s == flag).unwrap();
        a[i + 1] = value;
    };
    for (flag, value) in [
        ("--epsilon", "2"),
        ("--epsilon", "0"),
        ("--delta", "0"),
        ("--loss", "squared"),
        ("--domain", "simplex"),
        ("--domain", "ball:1"),
        ("--neighbouring", "add-remove"),
        ("--sparsity", "1"),
        ("--l2-bound", "0.5"),
        ("--l2-bound", "nan"),
    ] {
        let mut a = args("sparse-sgd", &svm, &[]);
        set(&mut a, flag, value);
        assert_usage_error(&a);
    }
    let o = dpref(&{
        let mut a = args("sparse-sgd", &csv, &[]);
        set(&mut a, "--sparsity", "1");
        a
    });
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("row 0 has 2 non-zeros") && err.contains("--sparsity"), "names the row and flag: {err}");
    for extra in [
        &["--sigma", "1"][..],
        &["--steps", "10"],
        &["--batch-size", "8"],
        &["--clip", "2"],
        &["--beta", "0.5"],
        &["--selection-scale", "as-printed"],
        &["--theorem-step", "--learning-rate", "0.2"],
        &["--initial-gap", "1"],
        &["--objective", "nonconvex", "--theorem-step"],
        &["--loss-range", "2"],
    ] {
        assert_usage_error(&args("sparse-sgd", &svm, extra));
    }
    // Thm. 6.7 needs a bounded domain; a convex boosted run needs the risk's range
    let mut unbounded = args("sparse-sgd", &svm, &["--theorem-step"]);
    set(&mut unbounded, "--domain", "none");
    assert_usage_error(&unbounded);
    assert_usage_error(&args("sparse-boosted-sgd", &svm, &[]));
    assert_usage_error(&args("sparse-boosted-sgd", &svm, &["--selection-score", "risk"]));
    assert_usage_error(&args("sparse-boosted-sgd", &svm, &["--beta", "1"]));
    // the sparse flags belong to the sparse algorithms
    let dense = ["run", "dp-sgd", "--data", csv.as_str(), "--loss", "logistic", "--sigma", "1", "--sparsity", "2"];
    assert_usage_error(&dense);
}

/// A `run` flag the sparse family does not read is refused even at its default value (`--clip
/// 1.0`, `--variant minibatch`, `--lambda none`: clap reports them given on the command line), with
/// the message naming the flag; without it, the same run succeeds. Of several such flags, the first
/// in `run --help` order is named, whatever order they were typed in.
#[test]
fn sparse_runs_refuse_dense_flags_given_at_their_defaults() {
    let dir = TempDir::new("cli-sparse-defaults");
    let (svm, _) = data_files(&dir);
    assert_eq!(dpref(&args("sparse-sgd", &svm, &[])).status.code(), Some(0));
    for (extra, named) in [
        (&["--clip", "1.0"][..], "--clip"),
        (&["--variant", "minibatch"], "--variant"),
        (&["--lambda", "none"], "--lambda"),
        (&["--paper-noise", "--ellipsoid", "identity"], "--ellipsoid"),
    ] {
        for algorithm in ["sparse-sgd", "sparse-boosted-sgd"] {
            let a = args(algorithm, &svm, extra);
            assert_usage_error(&a);
            let err = String::from_utf8_lossy(&dpref(&a).stderr).into_owned();
            let expected = format!(
                "error: {named} does not apply to {algorithm} (its steps, batches and noise are [GGKKM] Algorithm \
                 6's own)\n"
            );
            assert_eq!(err, expected, "{extra:?}");
        }
    }
}
