//! Golden snapshots of seeded runs of \[GGKKM\] Algorithms 1 (Laplace and Gaussian), 3, 4 and 5
//! (insta, under golden/optim/, floats rounded to 10 significant digits as in the other golden
//! files): the outputs, the noise scales, the events' privacy. A changed draw order, calibration,
//! projection or accounting fails them. (Algorithms 2, 6 and 7 have their own golden files.)

mod common;

use common::golden::{round, rounded, snapshot};
use common::sparse_data::labelled_sparse_dataset;
use dpref::data::Dataset;
use dpref::data::sparse::SparseDataset;
use dpref::geometry::Domain;
use dpref::loss::Loss;
use dpref::model::SparseGlm;
use dpref::optim::sparse::{
    BiasReducedConfig, OutputPerturbationConfig, ProjectionMechanismConfig, SparseExponentialConfig, SparseVectors,
    TauChoice,
};
use dpref::rng::{Seeds, Stream};
use rand::RngExt;
use serde_json::json;

/// 32 rows, d = 8, s = 2, L = 1, labels ±1.
fn data() -> SparseDataset {
    labelled_sparse_dataset(41, 32, 8, 2)
}

#[test]
fn golden_sparse_projection_mechanism_laplace_and_gaussian() {
    let d = data();
    for (name, delta, eps) in [("sparse_alg1_laplace", 0.0, 1.0), ("sparse_alg1_gaussian", 1e-5, 0.5)] {
        let run = ProjectionMechanismConfig::new(1.0, 2, eps, delta)
            .unwrap()
            .run(SparseVectors::Csr(&d), Seeds::new(3))
            .unwrap();
        snapshot(
            name,
            json!({
                "z_hat": rounded(&run.z_hat),
                "z_tilde": rounded(&run.z_tilde),
                "sigma": round(run.noise.sigma()),
                "epsilon": run.accounted.privacy.epsilon.map(round),
                "delta": run.accounted.privacy.delta,
            }),
        );
    }
}

#[test]
fn golden_sparse_output_perturbation() {
    let d = data();
    let cfg = OutputPerturbationConfig::new(Loss::Logistic, 1.0, 2, 0.5, 0.5, 1e-5)
        .unwrap()
        .with_domain(Domain::L2Ball { radius: 1.0 }, None)
        .unwrap();
    let run = cfg.run(&d, Seeds::new(4)).unwrap();
    snapshot(
        "sparse_alg3_output_perturbation",
        json!({
            "x_hat": rounded(&run.x_hat),
            "x_tilde": rounded(&run.x_tilde),
            "sensitivity": round(run.sensitivity),
            "iterations": run.iterations,
            "linf_shift": round(run.linf_shift),
            "epsilon": run.accounted.privacy.epsilon.map(round),
        }),
    );
}

#[test]
fn golden_sparse_exponential_mechanism() {
    let mut r = Seeds::new(42).stream(Stream::Data);
    let (n, dim) = (6, 4);
    let mut features = vec![0.0; n * dim];
    let labels = (0..n)
        .map(|i| {
            features[i * dim + r.random_range(0..dim)] = 2.0 * r.random::<f64>() - 1.0;
            2.0 * r.random::<f64>() - 1.0
        })
        .collect();
    let data = Dataset::new(features, labels, dim).unwrap();
    let cfg =
        SparseExponentialConfig::new(1.0, 2.0, 1.0, 1, Domain::L2Ball { radius: 1.0 }, TauChoice::Given(0.5)).unwrap();
    let run = cfg.run(&data, Loss::Absolute, Seeds::new(5)).unwrap();
    let (_, pmf) = cfg.exact_pmf(&data, Loss::Absolute).unwrap();
    snapshot(
        "sparse_alg4_exponential",
        json!({
            "x_hat": rounded(&run.x_hat),
            "index": run.index,
            "net_size": run.net.len(),
            "k": run.k,
            "epsilon": round(run.epsilon),
            "pmf_head": rounded(&pmf[..pmf.len().min(8)]),
        }),
    );
}

#[test]
fn golden_sparse_bias_reduced_estimator() {
    let d = data();
    let glm = SparseGlm { loss: Loss::Logistic, data: &d };
    let x: Vec<f64> = (0..8).map(|j| 0.1 * j as f64 - 0.3).collect();
    for (name, delta) in [("sparse_alg5_laplace", 0.0), ("sparse_alg5_gaussian", 1e-5)] {
        let run = BiasReducedConfig::new(1.0, 2, 0.5, delta).unwrap().run(&x, glm, Seeds::new(6)).unwrap();
        let e = &run.estimate;
        snapshot(
            name,
            json!({
                "g": rounded(&e.g),
                "level_n": e.level_n,
                "batch_b": e.batch_b,
                "index_i": e.index_i,
                "inverse_weight": round(e.inverse_weight),
                "epsilon": run.accounted.privacy.epsilon.map(round),
                "delta": run.accounted.privacy.delta,
            }),
        );
    }
}
