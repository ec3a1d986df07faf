//! `dpref run` (shared/CLI.md): JSON fields, byte-identical output for a seed, exit 2 on bad input.

mod common;

use common::cli::dpref;

use common::cli_data::{TempDir, assert_usage_error, logistic_csv};

/// `run ALG --data DATA --loss logistic --epsilon 2 --delta 1e-5`, then `extra`.
fn run_logistic<'a>(alg: &'a str, data: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", alg, "--data", data, "--loss", "logistic", "--epsilon", "2", "--delta", "1e-5"];
    args.extend(extra);
    args
}

#[test]
fn cli_run_json_contract_and_determinism() {
    let dir = TempDir::new("cli-run-json");
    let data = dir.file("d.csv", logistic_csv());
    for alg in ["dp-sgd", "pasan", "pagan"] {
        let args = run_logistic(
            alg,
            &data,
            &["--steps", "50", "--batch-size", "40", "--domain", "box:5", "--seed", "7", "--json"],
        );
        let o = dpref(&args);
        assert_eq!(o.status.code(), Some(0), "{alg}: {}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["algorithm"], alg);
        assert_eq!(v["steps"], 50);
        assert_eq!(v["x"].as_array().unwrap().len(), 3);
        let eps = v["privacy"]["epsilon"].as_f64().unwrap();
        assert!((1.99..=2.0).contains(&eps), "{eps}");
        assert_eq!(v["privacy"]["sampling"], "poisson");
        assert_eq!(v["privacy"]["q"], 0.1);
        assert!(v["loss"].as_f64().unwrap() < std::f64::consts::LN_2, "learned something");
        // same seed, same bytes; another seed, other bytes
        assert_eq!(dpref(&args).stdout, o.stdout);
        let mut other = args.clone();
        let seed = other.iter().position(|a| *a == "--seed").unwrap() + 1;
        other[seed] = "8";
        assert_ne!(dpref(&other).stdout, o.stdout);
    }
}

#[test]
fn cli_run_bad_input_exits_2() {
    let dir = TempDir::new("cli-run-bad");
    let good = dir.file("good.csv", logistic_csv());
    let nan = dir.file("nan.csv", "1,2,0\nNaN,1,1\n");
    let ragged = dir.file("ragged.csv", "1,2,0\n1,1\n");
    let empty = dir.file("empty.csv", "");
    let base = |data: &str| -> Vec<String> {
        ["run", "dp-sgd", "--data", data, "--loss", "logistic", "--steps", "5"].iter().map(|s| s.to_string()).collect()
    };
    let with = |data: &str, extra: &[&str]| -> Vec<String> {
        let mut v = base(data);
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let cases = vec![
        with(&nan, &["--epsilon", "1", "--delta", "1e-5"]),
        with(&ragged, &["--epsilon", "1", "--delta", "1e-5"]),
        with(&empty, &["--epsilon", "1", "--delta", "1e-5"]),
        with("/no/such.csv", &["--epsilon", "1", "--delta", "1e-5"]),
        with(&good, &["--epsilon", "0", "--delta", "1e-5"]),
        with(&good, &["--epsilon", "-1", "--delta", "1e-5"]),
        with(&good, &["--epsilon", "1", "--delta", "1"]),
        with(&good, &["--epsilon", "1"]),
        with(&good, &[]),
        with(&good, &["--epsilon", "1", "--delta", "1e-5", "--sampling", "with-replacement"]),
        with(&good, &["--epsilon", "1", "--delta", "1e-5", "--clip", "none"]),
        with(&good, &["--sigma", "-1"]),
        with(&good, &["--sigma", "1", "--learning-rate", "0"]),
        with(&good, &["--sigma", "1", "--domain", "ball:1"]),
        with(&good, &["--sigma", "1", "--batch-size", "0"]),
        with(&good, &["--sigma", "1", "--batch-size", "100000"]),
        with(&dir.file("badlabel.csv", "1,2,3\n2,1,0\n"), &["--sigma", "1"]),
    ];
    for args in cases {
        assert_usage_error(&refs_of(&args));
    }
    // with replacement is fine without a privacy claim
    let o = dpref(&refs_of(&with(&good, &["--sigma", "1", "--sampling", "with-replacement"])));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

fn refs_of(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The [ZCHWB] optimisers: both variants keep the JSON contract (plus `variant` and `accuracy`),
/// reach the target ε from below, are byte-identical per seed, and the paper variant is full batch.
#[test]
fn cli_run_dpagd_variants_json_contract_and_determinism() {
    let dir = TempDir::new("cli-run-dpagd");
    let data = dir.file("d.csv", logistic_csv());
    for (alg, variant, extra) in [
        ("dp-gd", "minibatch", vec!["--batch-size", "40"]),
        ("dp-rmsprop", "minibatch", vec!["--batch-size", "40", "--beta2", "0.9", "--nu", "1e-6"]),
        ("dp-adam", "minibatch", vec!["--batch-size", "40", "--bias-correction", "false"]),
        ("dp-adagrad", "minibatch", vec!["--batch-size", "40"]),
        ("dp-gd", "paper", vec!["--batch-size", "400"]),
        ("dp-rmsprop", "paper", vec!["--batch-size", "400", "--nu", "0.01", "--lambda", "1"]),
        ("dp-adam", "paper", vec!["--batch-size", "400", "--nu", "0.01", "--lambda", "1", "--beta1", "0.5"]),
    ] {
        let mut args = vec![
            "run",
            alg,
            "--variant",
            variant,
            "--data",
            &data,
            "--loss",
            "logistic",
            "--epsilon",
            "2",
            "--delta",
            "1e-5",
            "--steps",
            "40",
            "--learning-rate",
            "0.05",
            "--seed",
            "7",
            "--json",
        ];
        args.extend(extra);
        let o = dpref(&args);
        assert_eq!(o.status.code(), Some(0), "{alg} {variant}: {}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["algorithm"], alg);
        assert_eq!(v["variant"], variant);
        assert_eq!(v["steps"], 40);
        let eps = v["privacy"]["epsilon"].as_f64().unwrap();
        assert!((1.98..=2.0).contains(&eps), "{alg} {variant}: {eps}");
        let sampling = if variant == "paper" { "full" } else { "poisson" };
        assert_eq!(v["privacy"]["sampling"], sampling);
        assert!(v["accuracy"].as_f64().unwrap() > 0.6, "{alg} {variant}: learned something: {v}");
        assert_eq!(dpref(&args).stdout, o.stdout, "{alg} {variant}: same seed, same bytes");
    }
    // an MLP through --hidden, labels as class indices
    let o = dpref(&[
        "run",
        "dp-adam",
        "--data",
        &data,
        "--loss",
        "cross-entropy",
        "--hidden",
        "4",
        "--sigma",
        "1",
        "--delta",
        "1e-5",
        "--batch-size",
        "40",
        "--steps",
        "20",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["x"].as_array().unwrap().len(), 3 * 4 + 4 + 4 * 2 + 2);
}

/// Bad [ZCHWB] requests exit 2 with one `error:` line: the paper variant with a sampling scheme
/// other than full, add/remove without a declared n, λ or bias correction where they do not
/// apply, invalid β's and ν, an MLP without cross-entropy (and the reverse), a constrained domain.
#[test]
fn cli_run_dpagd_bad_input_exits_2() {
    let dir = TempDir::new("cli-run-dpagd-bad");
    let data = dir.file("d.csv", logistic_csv());
    let cases: Vec<Vec<&str>> = vec![
        vec!["dp-gd", "--variant", "paper", "--sampling", "poisson", "--batch-size", "400"],
        vec!["dp-gd", "--variant", "paper"],
        vec!["dp-gd", "--variant", "paper", "--batch-size", "400", "--lambda", "2"],
        vec!["dp-adam", "--variant", "paper", "--batch-size", "400", "--bias-correction", "true"],
        vec!["dp-adam", "--variant", "paper", "--batch-size", "400", "--output", "average0"],
        vec!["dp-adam", "--lambda", "1"],
        vec!["dp-adam", "--output", "random"],
        vec!["dp-rmsprop", "--bias-correction", "true"],
        vec!["dp-adam", "--beta1", "1"],
        vec!["dp-adam", "--beta2", "-0.1"],
        vec!["dp-rmsprop", "--variant", "paper", "--batch-size", "400", "--nu", "0"],
        vec!["dp-rmsprop", "--variant", "paper", "--batch-size", "400", "--lambda", "nan"],
        vec!["dp-adagrad", "--variant", "paper", "--batch-size", "400"],
        vec!["dp-sgd", "--variant", "paper"],
        vec!["dp-adam", "--hidden", "4"],
        vec!["dp-sgd", "--hidden", "4", "--loss", "cross-entropy"],
        vec!["dp-adam", "--domain", "box:1"],
    ];
    for extra in cases {
        let mut args = vec!["run"];
        args.extend(&extra[..1]);
        args.extend(["--data", &data, "--epsilon", "1", "--delta", "1e-5", "--steps", "5"]);
        if !extra.contains(&"--hidden") || extra.contains(&"dp-adam") {
            args.extend(["--loss", "logistic"]);
        }
        args.extend(&extra[1..]);
        assert_usage_error(&args);
    }
}

/// The DP² family: JSON contract (plus `ablation`, `accuracy`), the target ε met from below (the
/// extra-query ablation at the same ε with a larger σ), byte-identical output per seed; bad
/// requests exit 2 with one `error:` line.
#[test]
fn cli_run_dp2_json_contract_determinism_and_bad_input() {
    let dir = TempDir::new("cli-run-dp2");
    let data = dir.file("d.csv", logistic_csv());
    let mut sigmas = Vec::new();
    for (alg, ablation) in [
        ("dp2-rmsprop", None),
        ("dp2-adagrad", None),
        ("dp2-yogi", None),
        ("dp2-rmsprop", Some("extra-query")),
        ("dp2-rmsprop", Some("noise-first")),
    ] {
        let mut args = run_logistic(
            alg,
            &data,
            &[
                "--steps",
                "60",
                "--batch-size",
                "40",
                "--learning-rate",
                "0.5",
                "--learning-rate-adaptive",
                "0.05",
                "--delay-sgd",
                "10",
                "--delay-adaptive",
                "5",
                "--clip-sgd",
                "1",
                "--clip-adaptive",
                "3",
                "--seed",
                "3",
                "--json",
            ],
        );
        if let Some(a) = ablation {
            args.extend(["--ablation", a]);
        }
        let o = dpref(&args);
        assert_eq!(o.status.code(), Some(0), "{alg} {ablation:?}: {}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["algorithm"], alg);
        assert_eq!(v["ablation"], ablation.unwrap_or("none"));
        let eps = v["privacy"]["epsilon"].as_f64().unwrap();
        assert!((1.98..=2.0).contains(&eps), "{alg} {ablation:?}: {eps}");
        assert!(v["accuracy"].as_f64().unwrap() > 0.6, "{v}");
        sigmas.push(v["privacy"]["sigma"].as_f64().unwrap());
        assert_eq!(dpref(&args).stdout, o.stdout);
    }
    assert!(sigmas[3] > sigmas[0] && sigmas[4] == sigmas[0], "{sigmas:?}");
    let cases: Vec<Vec<&str>> = vec![
        vec!["dp2-rmsprop", "--delay-sgd", "0"],
        vec!["dp2-rmsprop", "--delay-adaptive", "0"],
        vec!["dp2-rmsprop", "--clip-adaptive", "0"],
        vec!["dp2-rmsprop", "--clip-sgd", "-1"],
        vec!["dp2-rmsprop", "--clip-sgd", "inf"],
        vec!["dp2-rmsprop", "--learning-rate-adaptive", "0"],
        vec!["dp2-rmsprop", "--nu", "0"],
        vec!["dp2-rmsprop", "--beta2", "1"],
        vec!["dp2-rmsprop", "--variant", "paper"],
        vec!["dp2-rmsprop", "--lambda", "1"],
        vec!["dp2-rmsprop", "--output", "average0"],
        vec!["dp2-rmsprop", "--domain", "box:1"],
        vec!["dp2-rmsprop", "--sampling", "with-replacement"],
        vec!["dp2-rmsprop", "--sampling", "without-replacement"],
        vec!["dp-sgd", "--delay-adaptive", "3"],
        vec!["dp-rmsprop", "--ablation", "noise-first"],
    ];
    for extra in cases {
        let mut args = vec!["run"];
        args.extend(&extra[..1]);
        args.extend(["--data", &data, "--loss", "logistic", "--epsilon", "1", "--delta", "1e-5", "--steps", "5"]);
        args.extend(["--batch-size", "40"]);
        args.extend(&extra[1..]);
        assert_usage_error(&args);
    }
}
