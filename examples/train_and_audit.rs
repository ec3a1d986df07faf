//! The README's "As a library: train and audit" program: train PAGAN on a generated dataset at
//! (1, 1e-5)-DP and audit two sample vectors, with one `use` line.
//!
//! ```sh
//! cargo run --release --example train_and_audit
//! ```

fn main() -> dpref::Result<()> {
    use dpref::prelude::*;

    // Train: a generated dataset, a run specification, the run and its privacy report.
    let (data, _x_star) = absolute_regression(2000, 20, 0.01, &mut Seeds::new(1).stream(Stream::Sampling))?;
    let mut spec = RunSpec::new(Algorithm::Pagan, RunLoss::Absolute);
    (spec.epsilon, spec.delta, spec.batch_size, spec.steps) = (Some(1.0), Some(1e-5), Some(70), Some(200));
    spec.learning_rate = 0.4;
    let outcome = spec.run(&data)?;
    let eps = outcome.run.privacy.epsilon.expect("a private run reports epsilon");
    assert!(eps <= 1.0); // the accountant's upper bound for the events the run executed
    println!("PAGAN: loss {:.4}, ({eps:.4}, 1e-5)-DP", outcome.evaluation.mean_loss);

    // Audit: outputs of a mechanism on neighbouring datasets D and D' (here a Laplace count whose
    // scale is half what epsilon = 1 needs), and the epsilon they certify at confidence 0.95.
    let mut rng = Seeds::new(2).stream(Stream::Noise);
    let mut laplace = |shift: f64| shift + dpref::noise::laplace(&mut rng, 0.5);
    let a: Vec<f64> = (0..100_000).map(|_| laplace(0.0)).collect();
    let b: Vec<f64> = (0..100_000).map(|_| laplace(1.0)).collect();
    let bound = epsilon_lower_bound(&a, &b, &AuditSettings::default())?;
    assert!(bound.epsilon > 1.0); // the claim epsilon = 1 is refuted
    println!("audit: epsilon >= {:.3} at confidence 0.95", bound.epsilon);
    Ok(())
}
