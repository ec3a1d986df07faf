//! Accounting speed (issue 2): ε for anchors G2 (q = 256/60000, σ = 1.1, T = 14063, δ = 1e-5,
//! default orders; goal ≤ 0.5 ms) and the calibration of σ for ε = 2 in that setting (goal
//! ≤ 20 ms). For comparison, Python dp_accounting takes about 50 ms per ε and 0.7 s per
//! calibration on this machine. Inputs are built outside the timed closures.
//!
//! PLD (issue 12): the certified bracket for G2 at a grid fine enough for a width ≤ 1 % of ε
//! (h = 2e-4 gives ≈ 0.11 %; goal ≤ 25 ms; measured ≈ 10 ms), and at dp_accounting's default
//! h = 1e-4 (width ≈ 0.013 %, ≈ 22 ms; dp_accounting takes ≈ 260 ms for its pessimistic value
//! alone there).
//!
//! PLD ε(δ) next to δ = 1 (a sweep found it quadratic in the grid size): h = 0.1, 2⁴⁰ Gaussians of
//! z = 1e4 (3.8·10⁵ grid points), the query at δ = 1 − 2⁻⁵³ on a composed accountant. Before the
//! galloping search it took 50 s (debug build) and over 10 minutes in one release run; goal
//! ≤ 100 ms; measured 83 ms.

use criterion::{Criterion, criterion_group, criterion_main};
use dpref::accounting::{
    Accountant, Conversion, Neighbouring, PldAccountant, PldSettings, RdpAccountant, RdpSettings, SamplingScheme,
    calibrate::CALIBRATION_RTOL, calibrate_noise_multiplier, dp_sgd_event,
};
use std::hint::black_box;

const Q: f64 = 256.0 / 60000.0;

fn g2(c: &mut Criterion) {
    let mut group = c.benchmark_group("accounting");
    let event = dp_sgd_event(1.1, SamplingScheme::Poisson { q: Q }, 14063).unwrap();
    group.bench_function("epsilon_g2_default_orders", |b| {
        b.iter(|| {
            let mut acc = RdpAccountant::new(Neighbouring::AddRemove);
            acc.compose(black_box(&event), 1).unwrap();
            acc.epsilon(1e-5, Conversion::Improved).unwrap()
        })
    });
    let settings = RdpSettings::new(Neighbouring::AddRemove);
    group.bench_function("calibrate_sigma_eps2_g2", |b| {
        b.iter(|| {
            calibrate_noise_multiplier(black_box(2.0), 1e-5, &settings, CALIBRATION_RTOL, |s| {
                dp_sgd_event(s, SamplingScheme::Poisson { q: Q }, 14063)
            })
            .unwrap()
        })
    });
    for (name, h) in [("pld_bracket_g2_h2e-4", 2e-4), ("pld_bracket_g2_h1e-4", 1e-4)] {
        let settings = PldSettings { value_discretization_interval: h, ..PldSettings::default() };
        let b = {
            let mut acc = PldAccountant::with_settings(Neighbouring::AddRemove, settings).unwrap();
            acc.compose(&event, 1).unwrap();
            acc.epsilon(1e-5).unwrap()
        };
        eprintln!(
            "{name}: bracket [{}, {}], width {:.3e} ({:.3} % of the upper end)",
            b.lower,
            b.upper,
            b.width(),
            100.0 * b.width() / b.upper
        );
        group.bench_function(name, |bch| {
            bch.iter(|| {
                let mut acc = PldAccountant::with_settings(Neighbouring::AddRemove, settings).unwrap();
                acc.compose(black_box(&event), 1).unwrap();
                acc.epsilon(1e-5).unwrap()
            })
        });
    }
    let near_one = {
        let settings = PldSettings { value_discretization_interval: 0.1, ..PldSettings::default() };
        let mut acc = PldAccountant::with_settings(Neighbouring::AddRemove, settings).unwrap();
        acc.compose(&dpref::accounting::DpEvent::gaussian(1e4).unwrap(), 1 << 40).unwrap();
        acc
    };
    group.bench_function("pld_epsilon_next_to_delta_one", |b| {
        b.iter(|| near_one.epsilon(black_box(1.0 - f64::EPSILON / 2.0)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, g2);
criterion_main!(benches);
