//! Golden snapshots of short seeded runs of the \[AFKT\] l1-geometry algorithms (insta, stored
//! under golden/optim/, floats rounded to 10 significant digits as in `golden_optim.rs`): noisy
//! mirror descent with both mirror maps, localized mirror descent (l1 and lp), lp mirror descent,
//! private Frank–Wolfe with both selections and without noise, and entropic mirror descent. A changed trajectory, event list or ε fails them.

mod common;

use common::golden::{round, rounded, run_summary, snapshot};

use dpref::data::l1_problems::{LeastSquaresL1, LinearSigns};
use dpref::loss::Loss;
use dpref::optim::RunSettings;
use dpref::optim::l1::{
    EntropicSmdConfig, FrankWolfeConfig, FwPrivacy, Geometry, LocalizedConfig, LpMirrorDescentConfig, MirrorMap,
    NoisyMirrorDescentConfig, Polytope, entropic_smd, noisy_mirror_descent,
};
use dpref::optim::{NoTrace, Privacy, SelectionMechanism};
use dpref::rng::{Seeds, Stream};
use serde_json::json;

fn least_squares() -> LeastSquaresL1 {
    let x_true = vec![0.6, -0.3, 0.0, 0.1, 0.0, -0.05];
    LeastSquaresL1::generate(256, x_true, 0.2, &mut Seeds::new(21).stream(Stream::Data)).unwrap()
}

#[test]
fn golden_noisy_mirror_descent_pnorm_and_entropic() {
    let problem = least_squares();
    let l = problem.lipschitz_l1(1.0);
    let target = Privacy::Target { epsilon: 2.0, delta: 1e-5 };
    for (name, map) in [("l1_nmd_pnorm", MirrorMap::PNorm { p: 1.5 }), ("l1_nmd_entropic", MirrorMap::Entropic)] {
        let mut cfg =
            NoisyMirrorDescentConfig::new(1.0, l, map, RunSettings::without_replacement(20, 32, target).unwrap())
                .unwrap();
        cfg.step_size_eta = Some(0.05);
        let run = noisy_mirror_descent(&problem.data, Loss::Squared, &cfg, Seeds::new(5), &mut NoTrace).unwrap();
        snapshot(name, run_summary(&run));
    }
}

#[test]
fn golden_private_frank_wolfe() {
    let problem = least_squares();
    let l = problem.lipschitz_l1(1.0);
    for (name, selection, privacy) in [
        ("l1_fw_report_noisy_min", SelectionMechanism::ReportNoisyMin, FwPrivacy::Pure { epsilon: 4.0 }),
        ("l1_fw_exponential", SelectionMechanism::Exponential, FwPrivacy::Pure { epsilon: 4.0 }),
        ("l1_fw_non_private", SelectionMechanism::ReportNoisyMin, FwPrivacy::NonPrivate),
    ] {
        let cfg = FrankWolfeConfig::new(2, 64, l, Polytope::L1Ball { radius_r: 1.0 }, selection, privacy).unwrap();
        let fw = cfg.run(&problem.data, Loss::Squared, Seeds::new(6)).unwrap();
        let mut v = run_summary(&fw.run);
        v["samples_used"] = json!(fw.samples_used);
        v["vertices"] = json!(fw.leaves.iter().map(|leaf| leaf.vertex).collect::<Vec<_>>());
        snapshot(name, v);
    }
}

#[test]
fn golden_entropic_mirror_descent() {
    let problem = LinearSigns::generate(100, vec![0.2, -0.4, 0.1, 0.0], &mut Seeds::new(22).stream(Stream::Data));
    let problem = problem.unwrap();
    let cfg = EntropicSmdConfig::new(2, 0.1).unwrap();
    let run = entropic_smd(&problem.data, Loss::Linear, &cfg, Seeds::new(7), &mut NoTrace).unwrap();
    snapshot("l1_entropic_smd", run_summary(&run));
}

#[test]
fn golden_localized_and_lp_mirror_descent() {
    let problem = least_squares();
    let l = problem.lipschitz_l1(1.0);
    let target = Privacy::Target { epsilon: 2.0, delta: 1e-5 };
    for (name, geometry) in [("l1_localized", Geometry::L1), ("l1_localized_lp", Geometry::Lp { p: 1.5 })] {
        let mut cfg = LocalizedConfig::new(geometry, 1.0, l, target).unwrap();
        cfg.phases_k = Some(3);
        let localized = cfg.run(&problem.data, Loss::Squared, Seeds::new(8)).unwrap();
        let steps: Vec<u64> = localized.phases.iter().map(|record| record.run.steps).collect();
        snapshot(
            name,
            json!({
                "x": rounded(&localized.x),
                "phase_steps": steps,
                "events": format!("{:?}", localized.events.as_event()),
                "epsilon": localized.privacy.epsilon.map(round),
            }),
        );
    }
    let cfg =
        LpMirrorDescentConfig::new(1.5, 1.0, l, RunSettings::without_replacement(20, 32, target).unwrap()).unwrap();
    let run = cfg.run(&problem.data, Loss::Squared, Seeds::new(9)).unwrap();
    snapshot("l1_lp_mirror_descent", run_summary(&run));
}
