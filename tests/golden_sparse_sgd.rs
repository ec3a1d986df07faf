//! Golden snapshots of short seeded runs of \[GGKKM\] Algorithms 6 and 7 (insta, stored under
//! golden/optim/, floats rounded to 10 significant digits as in `golden_optim.rs`): the output,
//! the levels N_t, the steps the filter covers, the event and the reported (ε, δ). A changed
//! trajectory, stopping time, event or accounting fails them.

mod common;

use common::golden::{round, rounded, snapshot};
use common::sparse_data::labelled_sparse_dataset;
use dpref::data::sparse::SparseDataset;
use dpref::geometry::Domain;
use dpref::loss::Loss;
use dpref::model::SparseGlm;
use dpref::optim::NoTrace;
use dpref::optim::sparse::{BiasReducedSgdConfig, BoostedSgdConfig, Convexity, SelectionScore, StoppingRule};
use dpref::rng::Seeds;
use serde_json::json;

fn data() -> SparseDataset {
    labelled_sparse_dataset(31, 64, 6, 2)
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
                "x": rounded(&run.x),
                "x_last": rounded(&run.x_last),
                "steps": run.steps,
                "output_index": run.output_index,
                "levels": run.levels,
                "filtered_steps": run.filtered_steps,
                "events": format!("{:?}", run.accounted.events.as_event()),
                "epsilon": run.accounted.privacy.epsilon.map(round),
                "delta": run.accounted.privacy.delta.map(round),
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
            "x": rounded(&run.x),
            "selected": run.selected,
            "scores": rounded(&run.scores),
            "steps": run.runs.iter().map(|r| r.steps).collect::<Vec<_>>(),
            "scale_lambda": round(run.scale_lambda),
            "epsilon": run.accounted.privacy.epsilon.map(round),
            "delta": run.accounted.privacy.delta.map(round),
        }),
    );
}
