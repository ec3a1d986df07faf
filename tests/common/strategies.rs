//! Proptest strategies shared by the property tests.

use dpref::accounting::{DpEvent, Neighbouring, per_example_sum_gaussian};
use proptest::prelude::*;

/// A proptest configuration with `cases` cases drawn from the fixed `seed` and no failure files:
/// the same inputs on every run and machine.
pub fn fixed_seed_config(cases: u32, seed: u64) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(seed),
        ..ProptestConfig::default()
    }
}

/// `exp(u)` for `u` uniform in `[ln lo, ln hi)`: every order of magnitude between lo and hi
/// equally likely.
pub fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo.ln()..hi.ln()).prop_map(f64::exp)
}

/// The Poisson-sampled (rate `q`) sum of clipped per-example gradients with noise multiplier
/// `sigma` (`per_example_sum_gaussian`), under add-remove neighbouring.
pub fn poisson_sum_gaussian(
    q: impl Strategy<Value = f64>,
    sigma: impl Strategy<Value = f64>,
) -> impl Strategy<Value = (DpEvent, Neighbouring)> {
    (q, sigma).prop_map(|(q, s)| {
        (DpEvent::poisson_sampled(q, per_example_sum_gaussian(s).unwrap()).unwrap(), Neighbouring::AddRemove)
    })
}
