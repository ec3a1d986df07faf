//! Audit speed (issue 3): a certified bound from 10⁷ samples per side of a scalar mechanism
//! (the Gaussian sum of the catalogue), all thresholds searched with the Bonferroni strategy.
//! Goal: ≤ 2 s on this 2-core machine. Samples are drawn outside the timed closure.

use criterion::{Criterion, criterion_group, criterion_main};
use dpref::audit::catalogue::catalogue;
use dpref::audit::{AuditSettings, epsilon_lower_bound};
use dpref::rng::Seeds;
use std::hint::black_box;

fn audit(c: &mut Criterion) {
    let case = catalogue().into_iter().find(|c| c.name == "gaussian_sum").expect("in the catalogue");
    let (a, b) = case.scores(10_000_000, Seeds::new(3));
    let settings = AuditSettings { delta: 1e-5, confidence: 0.95, ..Default::default() };
    let mut group = c.benchmark_group("audit");
    group.sample_size(10);
    group.bench_function("bonferroni_1e7_per_side", |bch| {
        bch.iter(|| epsilon_lower_bound(black_box(&a), black_box(&b), &settings).expect("valid"))
    });
    group.finish();
}

criterion_group!(benches, audit);
criterion_main!(benches);
