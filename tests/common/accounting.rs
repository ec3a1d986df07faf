//! Accountant readings shared by the accounting and audit tests.

use dpref::accounting::{Accountant, Conversion, Neighbouring, RdpAccountant, SamplingScheme, dp_sgd_event};

/// ε at `delta` of `steps` DP-SGD steps with Poisson rate `q` and multiplier `sigma`: the RDP
/// accountant under add/remove, improved conversion.
pub fn dp_sgd_poisson_epsilon(q: f64, sigma: f64, steps: u64, delta: f64) -> f64 {
    let ev = dp_sgd_event(sigma, SamplingScheme::Poisson { q }, steps).unwrap();
    let mut acc = RdpAccountant::new(Neighbouring::AddRemove);
    acc.compose(&ev, 1).unwrap();
    acc.epsilon(delta, Conversion::Improved).unwrap().epsilon
}
