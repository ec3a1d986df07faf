//! Golden snapshots of short seeded runs of \[GGKKM\] Algorithms 6 and 7 (insta, stored under
//! golden/optim/, floats rounded to 10 significant digits as in `golden_optim.rs`): the output,
//! the levels N_t, the steps the filter covers, the event and the reported (ε, δ). A changed
//! trajectory, stopping time, event or accounting fails them.

mod common;

use common::sparse_data::sparse_rows_from;
use dpref::data::sparse::SparseDataset;
use dpref::geometry::Domain;
use dpref::loss::Loss;
use dpref::model::SparseGlm;
use dpref::optim::NoTrace;
use dpref::optim::sparse::{BiasReducedSgdConfig, BoostedSgdConfig, Convexity, SelectionScore, StoppingRule};
use dpref::rng::{Seeds, Stream};
use rand::RngExt;
use serde_json::{Value, json};

fn round(v: f64) -> Value {
    if v == 0.0 || !v.is_finite() {
        return json!(v);
    }
    json!(format!("{v:.9e}").parse::<f64>().unwrap())
}

fn snapshot(name: &str, v: Value) {
    insta::with_settings!({ snapshot_path => "../golden/optim", prepend_module_to_snapshot => false }, {
        insta::assert_json_snapshot!(name, v);
    });
}

fn data() -> SparseDataset {
    let mut r = Seeds::new(31).stream(Stream::Data);
    let (rows, _) = sparse_rows_from(&mut r, 64, 6, 2, 1.0);
    let labels = (0..64).map(|_| if r.random::<bool>() { 1.0 } else { -1.0 }).collect();
    SparseDataset::from_rows(&rows, labels, 6).unwrap()
}

fn config(convexity: Convexity, domain: Domain) -> BiasReducedSgdConfig {
    BiasReducedSgdConfig::new(1.0, 2, 1.0, 1e-6, 0.05, domain, convexity).unwrap()
}

#[test]
fn golden_sparse_bias_reduced_sgd() {
    let d = data();
    let glm = SparseGlm { loss: Loss::Logistic, data: &d };
    for (name, cfg) in [
        ("sparse_alg6_convex_lagged", config(Convexity::Convex, Domain::L2Ball { radius: 1.0 })),
        (
            "sparse_alg6_nonconvex_checked_first",
            config(Convexity::Nonconvex, Domain::Unconstrained).with_stopping(StoppingRule::CheckedFirst),
        ),
    ] {
        let run = cfg.run(glm, &[0.0; 6], Seeds::new(7), &mut NoTrace).unwrap();
        snapshot(
            name,
            json!({
                "x": run.x.iter().map(|&v| round(v)).collect::<Vec<_>>(),
                "x_last": run.x_last.iter().map(|&v| round(v)).collect::<Vec<_>>(),
                "steps": run.steps,
                "output_index": run.output_index,
                "levels": run.levels,
                "filtered_steps": run.filtered_steps,
                "events": format!("{:?}", run.events.as_event()),
                "epsilon": run.privacy.epsilon.map(round),
                "delta": run.privacy.delta.map(round),
            }),
        );
    }
}

#[test]
fn golden_sparse_boosted_sgd() {
    let d = data();
    let glm = SparseGlm { loss: Loss::Logistic, data: &d };
    let base = config(Convexity::Convex, Domain::L2Ball { radius: 1.0 });
    let cfg = BoostedSgdConfig::new(base, 0.5, SelectionScore::EmpiricalRisk { range_b: 2.0 }).unwrap();
    let run = cfg.run(glm, &[0.0; 6], Seeds::new(8)).unwrap();
    snapshot(
        "sparse_alg7_boosted",
        json!({
            "x": run.x.iter().map(|&v| round(v)).collect::<Vec<_>>(),
            "selected": run.selected,
            "scores": run.scores.iter().map(|&v| round(v)).collect::<Vec<_>>(),
            "steps": run.runs.iter().map(|r| r.steps).collect::<Vec<_>>(),
            "scale_lambda": round(run.scale_lambda),
            "epsilon": run.privacy.epsilon.map(round),
            "delta": run.privacy.delta.map(round),
        }),
    );
}
