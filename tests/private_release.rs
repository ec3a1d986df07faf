//! [`PrivateRelease`]: an algorithm cannot record a privacy event without drawing its noise, nor
//! draw noise without recording its event.
//!
//! Two kinds of check:
//! * behaviour: for every private algorithm, the noisy releases a run's observer sees, the
//!   releases the run counts (one per noise draw) and the privacy events it reports agree step by
//!   step; DP² variant 1's two releases of one batch are one joint event, the same composition
//!   its calibration assumed;
//! * structure: under `src/optim/`, only `release.rs` draws Gaussian noise or records an event,
//!   so a new algorithm cannot bypass the pairing. A broken implementation (an algorithm that
//!   calls `noise::add_gaussian` itself, or pushes an event outside the release) fails
//!   `only_the_release_draws_noise_or_records_events`; one that releases a sum without its event
//!   fails the per-algorithm counts (events ≠ observed releases).

use dpref::accounting::{Accountant, DpEvent, Neighbouring, SamplingScheme, per_example_sum_gaussian};
use dpref::data::{Dataset, absolute_regression};
use dpref::loss::Loss;
use dpref::model::nonconvex::SeparableNonConvex;
use dpref::model::{Glm, SparseGlm};
use dpref::optim::RunSettings;
use dpref::optim::adaptive_noise::AdaptiveMethod;
use dpref::optim::adaptive_noise::AdaptiveNoiseConfig;
use dpref::optim::dp_sgd::{DpSgdConfig, dp_sgd};
use dpref::optim::dp2::Preconditioner;
use dpref::optim::dp2::algorithm1::{Dp2Config, dp2};
use dpref::optim::dp2::extra_query::{dp2_extra_query, extra_query_event};
use dpref::optim::dpagd::Moments;
use dpref::optim::dpagd::algorithm1::{Algorithm1Config, dpagd};
use dpref::optim::dpagd::minibatch::{MinibatchConfig, Update, dp_minibatch};
use dpref::optim::{NoiseForm, NoiseShape, Observer, Privacy, PrivateRelease, ReleasePlan, Run, TraceEvent};
use dpref::rng::{Seeds, Stream};
use dpref::sampling::BatchSampler;

/// Counts what a run released, as a white-box observer sees it.
#[derive(Default)]
struct Counter {
    noisy: u64,
    preconditioned: u64,
}

impl Observer for Counter {
    fn observe(&mut self, event: TraceEvent<'_>) {
        match event {
            TraceEvent::NoisyGradient { .. } => self.noisy += 1,
            TraceEvent::Preconditioner { .. } => self.preconditioned += 1,
            TraceEvent::Iterate { .. } => {}
        }
    }
}

const T: u64 = 12;

fn data() -> Dataset {
    absolute_regression(120, 4, 0.01, &mut Seeds::new(3).stream(Stream::Data)).unwrap().0
}

fn sigma(s: f64) -> Privacy {
    Privacy::NoiseMultiplier { sigma: s, report_delta: Some(1e-5) }
}

/// One release per step: T observed, T counted, T events, and ε reported.
fn assert_one_release_per_step(name: &str, run: &Run, seen: &Counter) {
    assert_eq!(seen.noisy, T, "{name}: observed releases");
    assert_eq!(run.releases, T, "{name}: counted releases (noise draws)");
    assert_eq!(run.events.len(), T, "{name}: events");
    assert!(run.privacy.epsilon.is_some_and(|e| e.is_finite() && e > 0.0), "{name}: {:?}", run.privacy);
}

#[test]
fn every_private_algorithm_records_one_event_per_noisy_release() {
    let d = data();
    let mut seen = Counter::default();
    let cfg =
        DpSgdConfig::new(0.1, 1.0, RunSettings::poisson(T, 0.2, sigma(1.5)).unwrap().with_batch_size_b(24.0).unwrap())
            .unwrap();
    let run = dp_sgd(&d, Loss::Absolute, &cfg, Seeds::new(1), &mut seen).unwrap();
    assert_one_release_per_step("dp-sgd", &run, &seen);

    let run_settings = RunSettings::poisson(T, 0.2, sigma(1.5)).unwrap().with_batch_size_b(24.0).unwrap();
    let cfg = AdaptiveNoiseConfig::new(4, 0.5, 1.0, run_settings).unwrap();
    for (name, method) in [("pasan", AdaptiveMethod::Pasan), ("pagan", AdaptiveMethod::Pagan)] {
        let mut seen = Counter::default();
        let run = method.run(&d, Loss::Absolute, &cfg, Seeds::new(2), &mut seen).unwrap();
        assert_one_release_per_step(name, &run, &seen);
    }

    let mut seen = Counter::default();
    let run_settings = RunSettings::poisson(T, 0.2, sigma(1.5)).unwrap().with_batch_size_b(24.0).unwrap();
    let cfg = MinibatchConfig::new(Update::adam(), 0.05, 1.0, run_settings).unwrap();
    let run = dp_minibatch(&d, &Glm { loss: Loss::Absolute, dim: 4 }, &cfg, Seeds::new(3), &mut seen).unwrap();
    assert_one_release_per_step("minibatch", &run, &seen);

    let mut seen = Counter::default();
    let model = SeparableNonConvex { dim: 4 };
    let noise = Privacy::StdOnMean { std: 0.05, report_delta: Some(1e-5) };
    let mut cfg =
        Algorithm1Config::new(Moments::Gd, 0.1, model.gradient_bound(), RunSettings::full_batch(T, noise).unwrap())
            .unwrap();
    cfg.settings.batch_size_b = Some(120.0);
    let run = dpagd(&d, &model, &cfg, Seeds::new(4), &mut seen).unwrap();
    assert_one_release_per_step("dpagd", &run, &seen);

    let task = dpref::experiments::dp2::synthetic_task(100, 20, 4, 5).unwrap();
    let oracle = SparseGlm { loss: Loss::Logistic, data: &task };
    let run_settings = RunSettings::poisson(T, 0.1, sigma(1.5)).unwrap().with_batch_size_b(10.0).unwrap();
    let cfg =
        Dp2Config::new(Preconditioner::RmsProp { beta: 0.9 }, (3, 3), (0.5, 0.05), (0.5, 2.0), run_settings).unwrap();
    let mut seen = Counter::default();
    let run = dp2(&oracle, &cfg, Seeds::new(5), &mut seen).unwrap();
    assert_one_release_per_step("dp2", &run, &seen);
    assert_eq!(run.preconditioner_updates, 2, "updates at t = 3 and t = 9");
}

/// DP² variant 1: steps 1, 1+s, … release once; the others release twice on one batch (the
/// second after observing the preconditioner). Every draw is counted, each step is one event, and
/// the executed events compose exactly to the event the calibration used.
#[test]
fn extra_query_releases_are_counted_and_jointly_accounted() {
    let task = dpref::experiments::dp2::synthetic_task(100, 20, 4, 5).unwrap();
    let oracle = SparseGlm { loss: Loss::Logistic, data: &task };
    let s = 4;
    let run_settings = RunSettings::poisson(T, 0.1, sigma(1.5)).unwrap().with_batch_size_b(10.0).unwrap();
    let cfg =
        Dp2Config::new(Preconditioner::RmsProp { beta: 0.9 }, (s, 1), (0.5, 0.05), (0.5, 2.0), run_settings).unwrap();
    let mut seen = Counter::default();
    let run = dp2_extra_query(&oracle, &cfg, Seeds::new(6), &mut seen).unwrap();
    let single = T.div_ceil(s);
    assert_eq!(seen.noisy, T);
    assert_eq!(seen.preconditioned, T - single, "second queries");
    assert_eq!(run.releases, T + (T - single), "every noise draw counted");
    assert_eq!(run.events.len(), T, "one (possibly joint) event per step");
    let planned = extra_query_event(&cfg, task.n(), 1.5).unwrap();
    let eps = |event: &DpEvent| {
        let mut acc = dpref::accounting::RdpAccountant::new(Neighbouring::AddRemove);
        acc.compose(event, 1).unwrap();
        acc.epsilon(1e-5, dpref::accounting::Conversion::Improved).unwrap().epsilon
    };
    // The same events in another order of summation: equal up to rounding.
    let (executed, planned) = (eps(&run.events.as_event().unwrap()), eps(&planned));
    assert!((executed - planned).abs() <= 1e-12 * planned, "executed {executed} = planned {planned}");
    assert_eq!(run.privacy.epsilon, Some(executed));
}

fn plan(privacy: Privacy, clipped: bool) -> ReleasePlan {
    ReleasePlan {
        sampler: BatchSampler::Poisson { q: 0.1 },
        n: 100,
        steps: 3,
        privacy,
        neighbouring: Neighbouring::AddRemove,
        batch_size_b: Some(10.0),
        clipped,
        form: NoiseForm::Multiplier,
    }
}

/// The release on its own: the k-th release on one batch turns the step's event into the joint
/// one (σ/√k); a new batch starts a new event; the noise std is σ·C and the sum is divided by b.
#[test]
fn releases_on_one_batch_are_one_joint_event() {
    let mut release = PrivateRelease::new(plan(sigma(2.0), true), Seeds::new(7)).unwrap();
    let mut batch = Vec::new();
    release.sample(&mut batch);
    let mut sum = vec![0.0; 3];
    release.release(&mut sum, NoiseShape::Isotropic { clip: 1.0 }).unwrap();
    release.release(&mut sum, NoiseShape::Isotropic { clip: 5.0 }).unwrap();
    release.sample(&mut batch);
    release.release(&mut sum, NoiseShape::Isotropic { clip: 1.0 }).unwrap();
    let done = release.finish().unwrap();
    let step = |s: f64| SamplingScheme::Poisson { q: 0.1 }.wrap(per_example_sum_gaussian(s).unwrap()).unwrap();
    let expected = DpEvent::Composed(vec![step(2.0 / 2f64.sqrt()), step(2.0)]);
    assert_eq!(done.events.as_event(), Some(expected));
    assert_eq!(done.releases, 3);
    assert_eq!(done.events.len(), 2);
}

/// The noise is `N(0, (σC)²)` on the sum, then divided by b: with a zero sum, the released mean
/// over 20 000 coordinates has sample std within 3 % of σC/b = 0.3 (its relative standard error
/// is 1/√(2·20000) = 0.5 %, so 3 % is 6 standard errors: false failure < 1e-8); a halved noise
/// (std 0.15) fails.
#[test]
fn release_noise_has_the_planned_std() {
    let mut release = PrivateRelease::new(plan(sigma(1.5), true), Seeds::new(8)).unwrap();
    let mut sum = vec![0.0; 20_000];
    release.release(&mut sum, NoiseShape::Isotropic { clip: 2.0 }).unwrap();
    let sd = (sum.iter().map(|v| v * v).sum::<f64>() / sum.len() as f64).sqrt();
    assert!((sd / 0.3 - 1.0).abs() < 0.03, "std {sd}");
}

/// Without a clip (no sensitivity bound) or with σ = 0 the run releases but records nothing and
/// claims nothing; the one rule "private = clipped ∧ σ > 0" decides.
#[test]
fn unclipped_or_noiseless_runs_record_no_event() {
    for (privacy, clipped) in [(sigma(1.0), false), (sigma(0.0), true)] {
        let mut release = PrivateRelease::new(plan(privacy, clipped), Seeds::new(9)).unwrap();
        assert!(!release.is_private());
        let mut batch = Vec::new();
        release.sample(&mut batch);
        release.release(&mut [1.0; 2], NoiseShape::Isotropic { clip: f64::INFINITY }).unwrap();
        let done = release.finish().unwrap();
        assert!(done.events.is_empty());
        assert_eq!(done.releases, 1);
        assert_eq!(done.privacy.epsilon, None);
    }
}

/// A private run's clip must bound something: an infinite (or NaN) clip in a private run is
/// refused before any noise is drawn or event recorded, for both shapes (it would draw std σ
/// instead of σ·C while recording the event of a clip-1 sum: [AFKT] Alg. 1 with an L whose
/// clip L√d overflowed once reported (1, 1e-5)-DP on unclipped gradients). A clip below 2⁻⁹⁶⁹
/// is refused too: at C = 5e-324, (0.6, 0.6) clips to (5e-324, 5e-324), of norm √2·C, and a
/// DP-SGD run at `--clip 5e-324` once reported ε = 2.90 for it.
#[test]
fn a_private_run_refuses_an_infinite_or_subnormal_clip() {
    // (0.6, 0.6)·fl(C/‖x‖) on the subnormal grid: norm √2·C (clip_l2 now maps such a subnormal
    // factor to the zero vector; the release refuses the clip itself).
    let factor = 5e-324 / 0.72f64.sqrt();
    assert_eq!([0.6 * factor, 0.6 * factor], [5e-324, 5e-324], "the subnormal grid breaks the clip");
    for clip in [f64::INFINITY, f64::NAN, 5e-324, 1e-300, dpref::optim::SMALLEST_PRIVATE_CLIP.next_down()] {
        let mut release = PrivateRelease::new(plan(sigma(1.0), true), Seeds::new(10)).unwrap();
        assert!(release.is_private());
        let mut batch = Vec::new();
        release.sample(&mut batch);
        let mut sum = [0.0; 2];
        let err = release.release(&mut sum, NoiseShape::Isotropic { clip }).unwrap_err().to_string();
        assert!(err.contains("clip"), "{err}");
        let c = [1.0, 4.0];
        let ellipsoid = NoiseShape::Ellipsoid { clip_radius_b: clip, ellipsoid_c: &c };
        assert!(release.release(&mut sum, ellipsoid).is_err());
        assert_eq!(sum, [0.0; 2], "no noise drawn");
        let done = release.finish().unwrap();
        assert!(done.events.is_empty() && done.releases == 0, "no event recorded");
    }
    let mut release = PrivateRelease::new(plan(sigma(1.0), true), Seeds::new(10)).unwrap();
    let mut batch = Vec::new();
    release.sample(&mut batch);
    release.release(&mut [0.0], NoiseShape::Isotropic { clip: dpref::optim::SMALLEST_PRIVATE_CLIP }).unwrap();
}

/// An absolute std on the mean belongs to [ZCHWB] Algorithm 1's form only: a DP-SGD-style run
/// refuses it instead of reading it as a noise multiplier.
#[test]
fn an_absolute_std_is_not_taken_for_a_multiplier() {
    let err = PrivateRelease::new(plan(Privacy::StdOnMean { std: 0.1, report_delta: None }, true), Seeds::new(1))
        .unwrap_err()
        .to_string();
    assert!(err.contains("noise multiplier"), "{err}");
}

/// Statistics releases ([ADFJT] Alg. 3): an empty statistic releases nothing (no draw, no
/// event); a non-empty one records Gaussian(σ) with std σ·Δ.
#[test]
fn empty_statistics_release_nothing() {
    let mut release = PrivateRelease::statistics(3.0, Seeds::new(1)).unwrap();
    assert_eq!(release.release_statistic(&mut [], 0.0).unwrap(), 0.0);
    let std = release.release_statistic(&mut [0.0, 0.0], 0.5).unwrap();
    assert_eq!(std, 1.5);
    let done = release.finish().unwrap();
    assert_eq!(done.releases, 1);
    assert_eq!(done.events.as_event(), Some(DpEvent::gaussian(3.0).unwrap()));
}

/// A statistic of positive sensitivity is never released with zero noise under a claim: σ·Δ that
/// underflows (σ = 1e-300, Δ = 1e-30) and a given std of 0 are refused before anything is drawn
/// or recorded. Before, the value went out unchanged with no event and the run reported ε = 0.
#[test]
fn a_zero_std_on_a_private_statistic_is_refused() {
    let mut release = PrivateRelease::statistics(1e-300, Seeds::new(1)).unwrap();
    let mut values = [0.123456789];
    assert!(release.release_statistic(&mut values, 1e-30).is_err());
    assert!(release.release_statistic_given_std(&mut values, 0.0, 1.0).is_err());
    assert_eq!(values, [0.123456789], "nothing drawn");
    assert_eq!(release.release_statistic(&mut values, 0.0).unwrap(), 0.0, "a constant statistic needs no noise");
    let done = release.finish().unwrap();
    assert!(done.events.is_empty() && done.releases == 1, "{done:?}");
}

/// A batch sum cannot be released through a private statistics release: it has no step event,
/// so its noise would go out unrecorded. Before the fix, `release` drew the noise, recorded
/// nothing, and `finish` reported ε = 0 with one release (found by a black-box sweep).
#[test]
fn a_batch_sum_on_a_statistics_release_is_refused() {
    let mut release = PrivateRelease::statistics(1.0, Seeds::new(1)).unwrap();
    let mut sum = [0.25, -0.5];
    assert!(release.release(&mut sum, NoiseShape::Isotropic { clip: 1.0 }).is_err());
    assert_eq!(sum, [0.25, -0.5], "nothing drawn");
    let done = release.finish().unwrap();
    assert_eq!((done.releases, done.privacy.epsilon), (0, Some(0.0)), "{done:?}");
    // without a claim (σ = 0) the sum goes out with no noise and no event, as for any non-private run
    let mut public = PrivateRelease::statistics(0.0, Seeds::new(1)).unwrap();
    public.release(&mut sum, NoiseShape::Isotropic { clip: 1.0 }).unwrap();
    assert_eq!(public.finish().unwrap().privacy.epsilon, None);
}

/// The multiplier an event records never exceeds the one that ran (a larger z would read a
/// smaller ε): for a given std and sensitivity Δ, the recorded z satisfies z·Δ ≤ std exactly (the
/// sign of the fused residual), for the Gaussian and the Laplace statistic releases. Over the 400
/// pairs below, the quotient rounded to nearest lies above std/Δ in about half; recording it (as
/// before) fails this test.
#[test]
fn recorded_multipliers_never_exceed_the_drawn_noise() {
    let mut rounded_up = 0;
    for i in 1..=20u32 {
        for j in 1..=20u32 {
            let (std, sensitivity) = (f64::from(i) * 0.37, f64::from(j) * 0.11);
            rounded_up += usize::from((std / sensitivity).mul_add(sensitivity, -std) > 0.0);
            let mut release = PrivateRelease::statistics(1.0, Seeds::new(3)).unwrap();
            release.release_statistic_given_std(&mut [0.0], std, sensitivity).unwrap();
            release.release_statistic_laplace(&mut [0.0], std, sensitivity).unwrap();
            let events = release.finish().unwrap().events;
            let Some(DpEvent::Composed(parts)) = events.as_event() else { panic!("two events: {events:?}") };
            for part in parts {
                let z = match part {
                    DpEvent::Gaussian { noise_multiplier } | DpEvent::Laplace { noise_multiplier } => noise_multiplier,
                    other => panic!("{other:?}"),
                };
                assert!(z.mul_add(sensitivity, -std) <= 0.0, "z = {z} above {std}/{sensitivity}");
            }
        }
    }
    assert!(rounded_up > 100, "the direction mattered: {rounded_up} of 400");
}

/// A selection records an ε that bounds the selection that ran: the draw is at exactly λ and the
/// event's ε = 2Δ/λ is rounded up. At λ = 0.9460613448891213, Δ = 0.5114203493916067 the old path
/// re-derived the scale from the rounded ε, `2Δ/fl(2Δ/λ)` = 0.9460613448891212 < λ: a draw with
/// less noise than the event claimed.
#[test]
fn a_selection_records_the_epsilon_of_its_own_scale() {
    use dpref::noise::Selection;
    use dpref::optim::release::selection_epsilon;
    let (lambda, delta) = (0.946_061_344_889_121_3, 0.511_420_349_391_606_7);
    let rounded = 2.0 * delta / lambda;
    assert!(2.0 * delta / rounded < lambda, "the old re-derived scale is below lambda");
    assert_eq!(Selection::at_scale(lambda).unwrap().scale_b(), lambda);
    let epsilon = selection_epsilon(delta, lambda);
    assert!(epsilon.mul_add(lambda, -2.0 * delta) >= 0.0 && epsilon <= rounded.next_up());
    let mut selection = dpref::optim::PrivateSelection::new(
        dpref::optim::SelectionMechanism::ReportNoisyMin,
        Neighbouring::ReplaceOne,
        Seeds::new(4),
    );
    selection.select_min(&[0.0, 1.0, 2.0], lambda, delta).unwrap();
    let summary = selection.finish(Some(epsilon));
    assert_eq!(summary.events.as_event(), Some(DpEvent::epsilon_delta(epsilon, 0.0).unwrap()));
}

/// Under `src/optim/`, noise (Gaussian, Laplace, noisy selections) is drawn and events are
/// recorded only in `release.rs`.
#[test]
fn only_the_release_draws_noise_or_records_events() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/optim");
    let mut offenders = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            // release.rs and its submodules (src/optim/release/) are the one place allowed
            if path.file_name().is_some_and(|f| f == "release.rs")
                || path.parent().is_some_and(|p| p.ends_with("release"))
            {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                let draws =
                    ["add_gaussian", "standard_normal", "add_laplace", "report_noisy_m", "exponential_mechanism("]
                        .iter()
                        .any(|f| code.contains(f));
                let records = code.contains("events.push(") || code.contains(".replace_last(");
                if draws || records {
                    offenders.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(offenders.is_empty(), "noise or events outside PrivateRelease:\n{}", offenders.join("\n"));
}

/// A run is reported by either accountant (the shared `Accountant` trait): the RDP reading equals
/// the run's own report, the PLD upper end is tighter, and an accountant built for the other
/// relation is refused (it could under-report ε).
#[test]
fn a_run_is_reported_by_either_accountant() {
    use dpref::accounting::PldAccountant;
    let d = data();
    let cfg =
        DpSgdConfig::new(0.1, 1.0, RunSettings::poisson(T, 0.2, sigma(1.0)).unwrap().with_batch_size_b(24.0).unwrap())
            .unwrap();
    let run = dp_sgd(&d, Loss::Absolute, &cfg, Seeds::new(1), &mut Counter::default()).unwrap();
    let rdp = run.epsilon_with(&mut dpref::accounting::RdpAccountant::new(Neighbouring::AddRemove), 1e-5).unwrap();
    assert_eq!(rdp, run.privacy.epsilon);
    let pld = run.epsilon_with(&mut PldAccountant::new(Neighbouring::AddRemove), 1e-5).unwrap().unwrap();
    assert!(pld <= rdp.unwrap() && pld > 0.0, "pld {pld} rdp {rdp:?}");
    let err = run.epsilon_with(&mut PldAccountant::new(Neighbouring::ReplaceOne), 1e-5).unwrap_err().to_string();
    assert!(err.contains("add/remove") || err.contains("add-remove"), "{err}");
    let run_settings = RunSettings::poisson(T, 0.2, sigma(1.0)).unwrap().with_batch_size_b(24.0).unwrap();
    let silent = DpSgdConfig::new(0.1, f64::INFINITY, run_settings).unwrap();
    let run = dp_sgd(&d, Loss::Absolute, &silent, Seeds::new(1), &mut Counter::default()).unwrap();
    assert_eq!(run.epsilon_with(&mut PldAccountant::new(Neighbouring::AddRemove), 1e-5).unwrap(), None);
}

/// [AFKT] Alg. 3's noisy selections go through `PrivateSelection`: one noise draw and one pure
/// `EpsilonDelta(2Δ/λ, 0)` event per leaf, K of each; the non-private run draws and records nothing.
#[test]
fn frank_wolfe_records_one_event_per_noisy_selection() {
    use dpref::optim::SelectionMechanism;
    use dpref::optim::l1::{FrankWolfeConfig, FwPrivacy, Polytope};
    let d = data();
    for selection in [SelectionMechanism::ReportNoisyMin, SelectionMechanism::Exponential] {
        let ball = Polytope::L1Ball { radius_r: 1.0 };
        let cfg = FrankWolfeConfig::new(2, 16, 1.0, ball.clone(), selection, FwPrivacy::Pure { epsilon: 1.0 }).unwrap();
        let fw = cfg.run(&d, Loss::Absolute, Seeds::new(1)).unwrap();
        assert_eq!(fw.run.releases, cfg.steps_k());
        assert_eq!(fw.run.events.len(), cfg.steps_k());
        let silent = FrankWolfeConfig::new(2, 16, 1.0, ball, selection, FwPrivacy::NonPrivate).unwrap();
        let fw = silent.run(&d, Loss::Absolute, Seeds::new(1)).unwrap();
        assert_eq!((fw.run.releases, fw.run.events.len()), (0, 0));
        assert_eq!(fw.run.privacy.epsilon, None);
    }
}
