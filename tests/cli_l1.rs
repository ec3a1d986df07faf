//! `dpref run` for the \[AFKT\] l1-geometry algorithms: the JSON contract, determinism, the privacy
//! each reports (the RDP accountant's ε ≤ the target for mirror descent; Frank–Wolfe's pure ε from
//! its ledger, equal to the request), the same numbers as the library, and the usage errors
//! (exit 2, one `error:` line) for every combination no accountant or algorithm covers.

mod common;

use common::cli::{dpref, json};

use common::cli_data::{TempDir, assert_usage_error};
use dpref::data::l1_problems::LeastSquaresL1;
use dpref::rng::{Seeds, Stream};

/// The least-squares problem on an l1 ball as CSV (label last).
fn least_squares_csv(dir: &TempDir) -> String {
    least_squares_csv_of(dir, 1024)
}

/// n examples of the least-squares problem above, as a CSV file in `dir`.
fn least_squares_csv_of(dir: &TempDir, n: usize) -> String {
    let problem =
        LeastSquaresL1::generate(n, vec![0.5, -0.3, 0.0, 0.1, 0.0, 0.0], 0.2, &mut Seeds::new(31).stream(Stream::Data))
            .unwrap();
    let mut s = String::new();
    for i in 0..problem.data.n() {
        let row: Vec<String> = problem.data.row(i).iter().map(|v| v.to_string()).collect();
        s += &format!("{},{}\n", row.join(","), problem.data.label(i));
    }
    dir.file(&format!("ls{n}.csv"), s)
}

/// The text report of approximate-DP Frank–Wolfe prints the δ its ledger reports (the JSON's),
/// not the pure route's 0: n = 6400, T = 5, b = 512 uses all 6400 samples and Lemma 4.4's
/// advanced route (δ > 0); the same run without `--delta` prints `, 0)-DP`.
#[test]
fn cli_frank_wolfe_text_prints_the_reported_delta() {
    let dir = TempDir::new("cli-l1-fw-delta");
    let data = least_squares_csv_of(&dir, 6400);
    let mut fw = vec!["run", "private-frank-wolfe", "--data", data.as_str(), "--loss", "squared", "--domain", "l1:1"];
    fw.extend(["--epsilon", "1", "--neighbouring", "replace-one", "--phases", "5", "--batch-size", "512"]);
    let pure = String::from_utf8(dpref(&fw).stdout).unwrap();
    assert!(pure.contains(", 0)-DP by the per-sample ledger"), "{pure}");
    fw.extend(["--delta", "1e-5"]);
    let text = String::from_utf8(dpref(&fw).stdout).unwrap();
    fw.push("--json");
    let delta = json(&fw)["privacy"]["delta"].as_f64().unwrap();
    assert!(delta > 0.0 && delta <= 1e-5, "{delta}");
    assert!(
        text.contains(&format!(
            ", {})-DP by the guarantees of its node groups (Lemma 4.4)",
            dpref::error::display_number(delta)
        )),
        "{text}"
    );
}

#[test]
fn cli_l1_runs_report_their_privacy_and_are_deterministic() {
    let dir = TempDir::new("cli-l1");
    let data = least_squares_csv(&dir);
    let base = ["--data", data.as_str(), "--loss", "squared", "--json", "--clip", "2"];
    let mut nmd = vec!["run", "noisy-mirror-descent", "--domain", "l1:1", "--epsilon", "1", "--delta", "1e-5"];
    nmd.extend(["--neighbouring", "replace-one", "--batch-size", "64", "--steps", "50"]);
    nmd.extend(base);
    let v = json(&nmd);
    assert_eq!(v["algorithm"], "noisy-mirror-descent");
    assert_eq!(v["steps"], 50);
    assert_eq!(v["privacy"]["sampling"], "without-replacement");
    assert_eq!(v["privacy"]["neighbouring"], "replace-one");
    let eps = v["privacy"]["epsilon"].as_f64().unwrap();
    assert!(eps <= 1.0 && eps > 0.99, "calibrated to within 1% below the target: {eps}");
    assert_eq!(dpref(&nmd).stdout, dpref(&nmd).stdout, "same seed, same bytes");
    let x: Vec<f64> = v["x"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!(x.iter().map(|v| v.abs()).sum::<f64>() <= 1.0 + 1e-9, "the output is in the l1 ball: {x:?}");

    let mut entropic = nmd.clone();
    entropic.extend(["--mirror-map", "entropic"]);
    let v2 = json(&entropic);
    assert_eq!(v2["privacy"]["epsilon"], v["privacy"]["epsilon"], "the map does not change the privacy");
    assert_ne!(v2["x"], v["x"]);

    for selection in ["report-noisy-min", "exponential"] {
        let mut fw = vec!["run", "private-frank-wolfe", "--domain", "l1:1", "--epsilon", "0.5"];
        fw.extend(["--neighbouring", "replace-one", "--phases", "2", "--selection", selection]);
        fw.extend(base);
        let v = json(&fw);
        assert_eq!(v["steps"], 6, "K = 2^(T+1) - 2");
        assert_eq!(v["privacy"]["epsilon"], 0.5, "the ledger's pure epsilon is the request");
        assert_eq!(v["privacy"]["delta"], 0.0);
        assert_eq!(v["privacy"]["sampling"], "permutation");
        assert!(v["privacy"]["q"].is_null());
        let mut other_seed = fw.clone();
        other_seed.extend(["--seed", "9"]);
        assert_ne!(dpref(&fw).stdout, dpref(&other_seed).stdout, "the seed drives the permutation and noise");
    }

    let mut localized = vec!["run", "localized-mirror-descent", "--domain", "l1:1", "--epsilon", "1", "--delta"];
    localized.extend(["1e-5", "--neighbouring", "replace-one", "--phases", "3"]);
    localized.extend(base);
    let v = json(&localized);
    let eps = v["privacy"]["epsilon"].as_f64().unwrap();
    // phases at (ε/2, ε/4, ε/8): their sequential RDP composition is below ε = 1 (and above the
    // first phase's 0.5)
    assert!((0.5..=1.0).contains(&eps), "{eps}");
    assert_eq!(v["privacy"]["sampling"], "phase-blocks");
    let x: Vec<f64> = v["x"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!(x.iter().map(|v| v.abs()).sum::<f64>() <= 1.0 + 1e-9, "{x:?}");
    assert_eq!(dpref(&localized).stdout, dpref(&localized).stdout);

    let mut smd = vec!["run", "entropic-mirror-descent", "--domain", "simplex", "--sigma", "0", "--rounds", "2"];
    smd.extend(base);
    let v = json(&smd);
    assert_eq!(v["steps"], 2048, "T = rounds * n");
    assert!(v["privacy"]["epsilon"].is_null());
    let x: Vec<f64> = v["x"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!(x.iter().all(|v| *v >= 0.0) && (x.iter().sum::<f64>() - 1.0).abs() < 1e-9, "on the simplex: {x:?}");
}

#[test]
fn cli_l1_refuses_what_no_accountant_or_algorithm_covers() {
    let dir = TempDir::new("cli-l1-refuse");
    let data = least_squares_csv(&dir);
    let cases = [
        // mirror descent: add-remove has no accountant for b without replacement here
        "noisy-mirror-descent --domain l1:1 --epsilon 1 --delta 1e-5",
        // mirror descent needs an l1 ball
        "noisy-mirror-descent --domain l2:1 --epsilon 1 --delta 1e-5 --neighbouring replace-one",
        "noisy-mirror-descent --domain l1:1 --epsilon 1 --delta 1e-5 --neighbouring replace-one --sampling with-replacement",
        "noisy-mirror-descent --domain l1:1 --sigma 1 --neighbouring replace-one --clip none",
        // an L whose clip L*sqrt(d) overflows bounds nothing (it once reported its target epsilon)
        "noisy-mirror-descent --domain l1:1 --epsilon 1 --delta 1e-5 --neighbouring replace-one --clip 1e308",
        "localized-mirror-descent --domain l1:1 --epsilon 1 --delta 1e-5 --neighbouring replace-one --clip 1e308",
        // Frank–Wolfe: a sigma is not its noise, steps are its own
        "private-frank-wolfe --domain l1:1 --sigma 1 --neighbouring replace-one",
        "private-frank-wolfe --domain l1:1 --epsilon 1 --neighbouring replace-one --steps 5",
        "private-frank-wolfe --domain l1:1 --epsilon 1 --neighbouring add-remove",
        "private-frank-wolfe --domain box:1 --epsilon 1 --neighbouring replace-one",
        // b not a multiple of 2^T; more samples than n
        "private-frank-wolfe --domain l1:1 --epsilon 1 --neighbouring replace-one --phases 2 --batch-size 30",
        "private-frank-wolfe --domain l1:1 --epsilon 1 --neighbouring replace-one --phases 3 --batch-size 1024",
        "private-frank-wolfe --domain l1:1 --epsilon 1 --neighbouring replace-one --phases 0",
        // localized mirror descent sets its schedule and step itself
        "localized-mirror-descent --domain l1:1 --epsilon 1 --delta 1e-5 --neighbouring replace-one --steps 5",
        "localized-mirror-descent --domain l1:1 --epsilon 1 --delta 1e-5 --neighbouring replace-one --learning-rate 0.3",
        "localized-mirror-descent --domain l1:1 --epsilon 1 --delta 1e-5 --neighbouring replace-one --batch-size 8",
        "localized-mirror-descent --domain l1:1 --epsilon 1 --delta 1e-5",
        "localized-mirror-descent --domain l1:1 --epsilon 1 --delta 1e-5 --neighbouring replace-one --phases 30",
        // entropic mirror descent: non-private, simplex only
        "entropic-mirror-descent --domain simplex --epsilon 1 --delta 1e-5",
        "entropic-mirror-descent --domain l1:1 --sigma 0",
        "entropic-mirror-descent --domain simplex --sigma 0 --steps 10",
        // the family's flags elsewhere
        "dp-sgd --sigma 1 --mirror-map pnorm",
        "dp-sgd --sigma 1 --phases 2",
        "noisy-mirror-descent --domain l1:1 --sigma 1 --neighbouring replace-one --selection exponential",
        "private-frank-wolfe --domain l1:1 --epsilon 1 --neighbouring replace-one --rounds 2",
    ];
    for case in cases {
        let extra: Vec<&str> = case.split_whitespace().collect();
        let mut args = vec!["run", extra[0], "--data", data.as_str(), "--loss", "squared"];
        args.extend(&extra[1..]);
        assert_usage_error(&args);
    }
}

/// The CLI's numbers are the library's: the same spec through `RunSpec` gives the same x.
#[test]
fn cli_l1_matches_the_library() {
    use dpref::optim::run_spec::{Algorithm, RunLoss};
    let dir = TempDir::new("cli-l1-lib");
    let path = least_squares_csv(&dir);
    let mut fw = vec!["run", "private-frank-wolfe", "--data", path.as_str(), "--loss", "squared", "--json"];
    fw.extend(["--domain", "l1:1", "--epsilon", "0.5", "--neighbouring", "replace-one", "--clip", "2", "--seed", "4"]);
    let v = json(&fw);
    let data = dpref::data::read_csv(std::path::Path::new(&path), None).unwrap();
    let mut spec = dpref::optim::RunSpec::new(Algorithm::PrivateFrankWolfe, RunLoss::Squared);
    (spec.domain, spec.epsilon, spec.clip, spec.seed) =
        (dpref::geometry::Domain::L1Ball { radius: 1.0 }, Some(0.5), Some(2.0), 4);
    spec.neighbouring = dpref::accounting::Neighbouring::ReplaceOne;
    let outcome = spec.run(&data).unwrap();
    let x: Vec<f64> = v["x"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert_eq!(x, outcome.run.x);
    assert_eq!(outcome.run.privacy.epsilon, Some(0.5));
}
