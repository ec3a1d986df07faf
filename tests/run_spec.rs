//! `optim::RunSpec` from the library alone: the same settings give the CLI's `--json` output bit
//! for bit, and an incompatible spec is a typed `Error::RunSpec` naming the parameter (not a flag).

mod common;

use common::cli::dpref;

use common::cli_data::{TempDir, logistic_csv};
use dpref::Error;
use dpref::geometry::Domain;
use dpref::optim::RunSpec;
use dpref::optim::run_spec::{Algorithm, RunLoss, Sampling, Variant};

/// A 400-record logistic dataset in a fresh directory.
struct DataFile {
    _dir: TempDir,
    path: String,
}

impl DataFile {
    fn new(tag: &str) -> Self {
        let dir = TempDir::new(&format!("run-spec-{tag}"));
        let path = dir.file("d.csv", logistic_csv());
        DataFile { _dir: dir, path }
    }

    fn path(&self) -> &str {
        &self.path
    }
}

/// `"key":<value>` as serde_json writes it (the shortest text that reads back to the same bits),
/// so that finding it in the CLI's output compares the numbers bit for bit.
fn field(key: &str, value: &impl serde::Serialize) -> String {
    format!("\"{key}\":{}", serde_json::to_string(value).unwrap())
}

/// Runs `spec` through the library and the same settings through `dpref run --json`, and checks
/// x, the steps and the privacy report agree exactly.
/// `flags`: the CLI flags of the same settings, separated by spaces.
fn assert_same_as_cli(spec: &RunSpec, data: &DataFile, flags: &str) {
    let dataset = dpref::data::read_csv(std::path::Path::new(data.path()), None).unwrap();
    let outcome = spec.run(&dataset).unwrap();
    let mut args = vec!["run", spec.algorithm.name(), "--data", data.path(), "--loss", "logistic", "--json"];
    args.extend(flags.split(' '));
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

/// Sets some fields of a spec.
type Setter = fn(&mut RunSpec);

#[test]
fn prop_run_spec_equals_cli_json_dp_sgd_pagan_dp2_rmsprop() {
    let data = DataFile::new("json");
    let cases: [(Algorithm, Setter, &str); 3] = [
        (
            Algorithm::DpSgd,
            |s| {
                (s.epsilon, s.delta, s.steps, s.batch_size) = (Some(2.0), Some(1e-5), Some(50), Some(40));
                s.domain = Domain::Box { radius: 5.0 };
            },
            "--epsilon 2 --delta 1e-5 --steps 50 --batch-size 40 --domain box:5",
        ),
        (
            Algorithm::Pagan,
            |s| {
                (s.epsilon, s.delta, s.paper_noise) = (Some(2.0), Some(1e-5), true);
                (s.steps, s.batch_size, s.seed, s.learning_rate) = (Some(40), Some(32), 7, 0.5);
            },
            "--epsilon 2 --delta 1e-5 --paper-noise --steps 40 --batch-size 32 --seed 7 --learning-rate 0.5",
        ),
        (
            Algorithm::Dp2Rmsprop,
            |s| {
                (s.sigma, s.delta, s.steps, s.batch_size) = (Some(1.0), Some(1e-5), Some(30), Some(40));
                (s.dp2.delay_sgd, s.beta2, s.nu) = (Some(5), Some(0.8), Some(1e-6));
            },
            "--sigma 1 --delta 1e-5 --steps 30 --batch-size 40 --delay-sgd 5 --beta2 0.8 --nu 1e-6",
        ),
    ];
    for (algorithm, set, flags) in cases {
        let mut spec = RunSpec::new(algorithm, RunLoss::Logistic);
        set(&mut spec);
        assert_same_as_cli(&spec, &data, flags);
    }
}

#[test]
fn prop_run_spec_refuses_claims_no_accountant_covers() {
    let mut spec = RunSpec::new(Algorithm::DpSgd, RunLoss::Logistic);
    (spec.epsilon, spec.delta, spec.sampling) = (Some(1.0), Some(1e-5), Some(Sampling::WithReplacement));
    let e = spec.check().unwrap_err();
    assert!(matches!(e, Error::RunSpec { parameter: "sampling", .. }), "{e:?}");
    // Without a claim (no delta to report at) the same sampling is allowed.
    (spec.epsilon, spec.delta, spec.sigma) = (None, None, Some(1.0));
    assert_eq!(spec.check(), Ok(()));
    // Full batch under add-remove needs the public n.
    let mut spec = RunSpec::new(Algorithm::DpGd, RunLoss::Logistic);
    (spec.sigma, spec.sampling) = (Some(1.0), Some(Sampling::Full));
    let e = spec.check().unwrap_err();
    assert!(matches!(e, Error::RunSpec { parameter: "batch_size", .. }), "{e:?}");
    spec.neighbouring = dpref::accounting::Neighbouring::ReplaceOne;
    assert_eq!(spec.check(), Ok(()));
}

/// The [ZCHWB] paper variant converts σ to the paper's std on the mean, σ·C/n; a positive σ whose
/// std underflows to 0 is refused. Before, the run went without noise and without a claim, and
/// exited 0 (found by a black-box sweep: σ = 1e-300, C = 1e-30).
#[test]
fn run_spec_paper_variant_refuses_an_underflowed_std() {
    let data = DataFile::new("paper-underflow");
    let dataset = dpref::data::read_csv(std::path::Path::new(data.path()), None).unwrap();
    let mut spec = RunSpec::new(Algorithm::DpGd, RunLoss::Logistic);
    (spec.sigma, spec.clip, spec.delta, spec.steps) = (Some(1e-300), Some(1e-30), Some(1e-5), Some(2));
    (spec.variant, spec.sampling, spec.neighbouring) =
        (Variant::Paper, Some(Sampling::Full), dpref::accounting::Neighbouring::ReplaceOne);
    let e = spec.plan(&dataset).unwrap_err();
    assert!(matches!(e, Error::RunSpec { parameter: "sigma", .. }), "{e:?}");
    spec.sigma = Some(1e-10);
    assert!(spec.plan(&dataset).is_ok());
}

#[test]
fn prop_run_spec_paper_variant_with_poisson_names_sampling() {
    let data = DataFile::new("paper-poisson");
    let dataset = dpref::data::read_csv(std::path::Path::new(data.path()), None).unwrap();
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
    let cases: [(Algorithm, Setter, &str); 3] = [
        (Algorithm::DpSgd, |s| s.beta2 = Some(0.9), "beta2"),
        (Algorithm::Pagan, |s| s.dp2.learning_rate_adaptive = Some(0.1), "learning_rate_adaptive"),
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

/// A record whose per-example gradient overflows (x = 1e200 under the squared loss: once w ≠ 0,
/// (⟨x, w⟩ − y)·x is ±∞) contributes the zero vector to the clipped sum, a point of the clip
/// ball. Before, its clip factor C/∞ = 0 times ∞ released NaN exactly when the record was in the
/// batch (a perfect distinguisher under a finite reported ε: DP-SGD, DP-GD, DP²-RMSProp and
/// DP-Adam released NaN in 4 of 5 steps), and PASAN/PAGAN's radial ellipsoid projection looped
/// forever on the NaN. Every run now finishes with a finite output and ε.
#[test]
fn an_overflowing_gradient_contributes_zero_and_every_run_finishes() {
    let features = vec![1.0, 0.5, 1e200, -0.3, 0.2, 1.0, -1.0, 0.7];
    let data = dpref::data::Dataset::new(features, vec![1.0, 0.0, 1.0, 0.0], 2).unwrap();
    for algorithm in [Algorithm::DpSgd, Algorithm::DpGd, Algorithm::Pasan, Algorithm::Pagan, Algorithm::Dp2Rmsprop] {
        let mut spec = RunSpec::new(algorithm, RunLoss::Squared);
        (spec.sigma, spec.delta, spec.steps, spec.batch_size) = (Some(2.0), Some(1e-5), Some(5), Some(4));
        let outcome = spec.run(&data).unwrap_or_else(|e| panic!("{algorithm:?}: {e}"));
        assert!(outcome.run.x.iter().all(|v| v.is_finite()), "{algorithm:?}: {:?}", outcome.run.x);
        assert!(outcome.run.privacy.epsilon.is_some_and(f64::is_finite), "{algorithm:?}");
    }
}

/// DP² clips with `clip_sgd` (its adaptive phase defaulting to it), so with `clip` none and a
/// `clip_sgd` the run is private and its `delta` is a claim: it reports a finite ε (the refusal of
/// `delta` without a claim once misjudged it as unclipped); without any DP² clip it is refused.
#[test]
fn dp2_clipped_by_its_own_clips_is_private() {
    let data =
        dpref::data::Dataset::new(vec![1.0, 0.5, -0.3, 0.2, 1.0, -1.0, 0.7, 0.1], vec![1.0, 0.0, 1.0, 0.0], 2).unwrap();
    let mut spec = RunSpec::new(Algorithm::Dp2Rmsprop, RunLoss::Logistic);
    (spec.clip, spec.sigma, spec.delta, spec.steps, spec.batch_size) = (None, Some(1.0), Some(1e-5), Some(6), Some(2));
    (spec.dp2.clip_sgd, spec.dp2.clip_adaptive) = (Some(1.0), Some(3.0));
    assert!(spec.is_private());
    let outcome = spec.run(&data).unwrap();
    assert!(outcome.run.privacy.epsilon.is_some_and(f64::is_finite), "{:?}", outcome.run.privacy);
    (spec.dp2.clip_sgd, spec.dp2.clip_adaptive) = (None, None);
    assert!(!spec.is_private());
    assert!(matches!(spec.check(), Err(dpref::Error::RunSpec { parameter: "delta", .. })));
}
