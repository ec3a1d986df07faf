//! `optim::RunSpec` from the library alone: the same settings give the CLI's `--json` output bit
//! for bit, and an incompatible spec is a typed `Error::RunSpec` naming the parameter (not a flag).

use dpref::Error;
use dpref::geometry::Domain;
use dpref::optim::RunSpec;
use dpref::optim::run_spec::{Algorithm, RunLoss, Sampling, Variant};
use std::process::{Command, Output};

fn dpref(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dpref")).args(args).output().expect("binary runs")
}

/// A 400-record logistic dataset, written to a fresh file (removed on drop).
struct DataFile(std::path::PathBuf);

impl DataFile {
    fn new(tag: &str) -> Self {
        let mut rng = dpref::rng::Seeds::new(3).stream(dpref::rng::Stream::Data);
        let mut s = String::from("x1,x2,x3,label\n");
        for _ in 0..400 {
            let x: Vec<f64> = (0..3).map(|_| dpref::noise::standard_normal(&mut rng)).collect();
            let y = if x[0] + x[1] > 0.0 { 1 } else { 0 };
            s += &format!("{},{},{},{y}\n", x[0], x[1], x[2]);
        }
        let p = std::env::temp_dir().join(format!("dpref-run-spec-{tag}-{}.csv", std::process::id()));
        std::fs::write(&p, s).unwrap();
        DataFile(p)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for DataFile {
    fn drop(&mut self) {
        std::fs::remove_file(&self.0).ok();
    }
}

/// `"key":<value>` as serde_json writes it (the shortest text that reads back to the same bits),
/// so that finding it in the CLI's output compares the numbers bit for bit.
fn field(key: &str, value: &impl serde::Serialize) -> String {
    format!("\"{key}\":{}", serde_json::to_string(value).unwrap())
}

/// Runs `spec` through the library and the same settings through `dpref run --json`, and checks
/// x, the steps and the privacy report agree exactly.
fn assert_same_as_cli(spec: &RunSpec, data: &DataFile, flags: &[&str]) {
    let dataset = dpref::data::read_csv(&data.0, None).unwrap();
    let outcome = spec.run(&dataset).unwrap();
    let mut args = vec!["run", spec.algorithm.name(), "--data", data.path(), "--loss", "logistic", "--json"];
    args.extend_from_slice(flags);
    let out = dpref(&args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let run = &outcome.run;
    let privacy = &run.privacy;
    for expected in [
        field("x", &run.x),
        field("steps", &run.steps),
        field("loss", &outcome.evaluation.mean_loss),
        field("epsilon", &privacy.epsilon),
        field("delta", &privacy.delta),
        field("sigma", &privacy.sigma),
        field("sampling", &outcome.sampling.name()),
        field("q", &outcome.sampling.rate()),
    ] {
        assert!(stdout.contains(&expected), "{} --json lacks {expected}: {stdout}", spec.algorithm.name());
    }
    assert!(privacy.epsilon.is_some(), "a private run reports its epsilon");
}

#[test]
fn prop_run_spec_equals_cli_json_dp_sgd() {
    let data = DataFile::new("dp-sgd");
    let mut spec = RunSpec::new(Algorithm::DpSgd, RunLoss::Logistic);
    (spec.epsilon, spec.delta) = (Some(2.0), Some(1e-5));
    (spec.steps, spec.batch_size) = (Some(50), Some(40));
    spec.domain = Domain::Box { radius: 5.0 };
    let flags = ["--epsilon", "2", "--delta", "1e-5", "--steps", "50", "--batch-size", "40", "--domain", "box:5"];
    assert_same_as_cli(&spec, &data, &flags);
}

#[test]
fn prop_run_spec_equals_cli_json_pagan() {
    let data = DataFile::new("pagan");
    let mut spec = RunSpec::new(Algorithm::Pagan, RunLoss::Logistic);
    (spec.epsilon, spec.delta, spec.paper_noise) = (Some(2.0), Some(1e-5), true);
    (spec.steps, spec.batch_size, spec.seed) = (Some(40), Some(32), 7);
    spec.learning_rate = 0.5;
    let flags = [
        "--epsilon",
        "2",
        "--delta",
        "1e-5",
        "--paper-noise",
        "--steps",
        "40",
        "--batch-size",
        "32",
        "--seed",
        "7",
        "--learning-rate",
        "0.5",
    ];
    assert_same_as_cli(&spec, &data, &flags);
}

#[test]
fn prop_run_spec_equals_cli_json_dp2_rmsprop() {
    let data = DataFile::new("dp2");
    let mut spec = RunSpec::new(Algorithm::Dp2Rmsprop, RunLoss::Logistic);
    (spec.sigma, spec.delta) = (Some(1.0), Some(1e-5));
    (spec.steps, spec.batch_size) = (Some(30), Some(40));
    (spec.delay_sgd, spec.beta2, spec.nu) = (Some(5), Some(0.8), Some(1e-6));
    let flags = [
        "--sigma",
        "1",
        "--delta",
        "1e-5",
        "--steps",
        "30",
        "--batch-size",
        "40",
        "--delay-sgd",
        "5",
        "--beta2",
        "0.8",
        "--nu",
        "1e-6",
    ];
    assert_same_as_cli(&spec, &data, &flags);
}

#[test]
fn prop_run_spec_paper_variant_with_poisson_names_sampling() {
    let data = DataFile::new("paper-poisson");
    let dataset = dpref::data::read_csv(&data.0, None).unwrap();
    let mut spec = RunSpec::new(Algorithm::DpAdam, RunLoss::Logistic);
    (spec.sigma, spec.batch_size) = (Some(1.0), Some(400));
    (spec.variant, spec.sampling) = (Variant::Paper, Some(Sampling::Poisson));
    let e = spec.plan(&dataset).unwrap_err();
    assert!(matches!(e, Error::RunSpec { parameter: "sampling", .. }), "{e:?}");
    assert!(!e.to_string().contains("--"), "the library names parameters, not flags: {e}");
}

#[test]
fn prop_run_spec_setting_of_another_family_names_the_parameter() {
    // An Adam/RMSProp/DP² setting on DP-SGD, a DP² setting on PAGAN, a \[ZCHWB\] cap on DP².
    type Setter = fn(&mut RunSpec);
    let cases: [(Algorithm, Setter, &str); 3] = [
        (Algorithm::DpSgd, |s| s.beta2 = Some(0.9), "beta2"),
        (Algorithm::Pagan, |s| s.learning_rate_adaptive = Some(0.1), "learning_rate_adaptive"),
        (Algorithm::Dp2Yogi, |s| s.lambda = Some(1.0), "lambda"),
    ];
    for (algorithm, set, name) in cases {
        let mut spec = RunSpec::new(algorithm, RunLoss::Logistic);
        spec.sigma = Some(1.0);
        set(&mut spec);
        let e = spec.check().unwrap_err();
        assert!(matches!(&e, Error::RunSpec { parameter, .. } if *parameter == name), "{e:?}");
        let message = e.to_string();
        assert!(message.contains(&format!("`{name}` is not used by {}", algorithm.name())), "{message}");
        assert!(!message.contains("--"), "{message}");
    }
    // The CLI writes the same refusal with its flag.
    let data = DataFile::new("family");
    let out = dpref(&["run", "dp-sgd", "--data", data.path(), "--loss", "logistic", "--sigma", "1", "--beta2", "0.9"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("--beta2 is not used by dp-sgd"), "{stderr}");
}
