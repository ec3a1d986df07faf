//! Data for the tests of the \[AFKT\] (l1-geometry) algorithms.

use dpref::data::Dataset;
use dpref::rng::{Seeds, Stream};
use rand::RngExt;

/// n rows of Rademacher features (label 1) whose first coordinate is +1 with probability
/// `p_first` (the others 1/2), drawn from the data stream of `seed`: the linear loss `⟨z, x⟩`
/// with mean direction `m = (2p_first − 1, 0, …)` and `L = ‖z‖_∞ = 1`.
pub fn linear_data(n: usize, d: usize, seed: u64, p_first: f64) -> Dataset {
    let mut rng = Seeds::new(seed).stream(Stream::Data);
    let z: Vec<f64> = (0..n * d)
        .map(|k| {
            let p_plus = if k % d == 0 { p_first } else { 0.5 };
            if rng.random::<f64>() < p_plus { 1.0 } else { -1.0 }
        })
        .collect();
    Dataset::new(z, vec![1.0; n], d).unwrap()
}
