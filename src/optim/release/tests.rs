//! White-box checks of the release's rounding directions (the stds it draws, the joint
//! multipliers it records). Proof: proofs/private_release.md §3 (floating point).

use super::*;
use crate::rng::Seeds;

/// `a·b ≤ c·d` exactly: each product as its rounded value and exact error (fused multiply-add),
/// compared lexicographically (rounding to nearest is monotone, so unequal rounded products
/// order the exact ones).
fn product_at_most(a: f64, b: f64, c: f64, d: f64) -> bool {
    let (p, q) = (a * b, c * d);
    if p != q { p < q } else { a.mul_add(b, -p) <= c.mul_add(d, -q) }
}

fn multiplier_run(sigma: f64, form: NoiseForm) -> PrivateRelease {
    let plan = ReleasePlan {
        sampler: BatchSampler::Poisson { q: 0.1 },
        n: 100,
        steps: 1,
        privacy: Privacy::NoiseMultiplier { sigma, report_delta: Some(1e-5) },
        neighbouring: Neighbouring::AddRemove,
        batch_size_b: Some(10.0),
        clipped: true,
        form,
    };
    PrivateRelease::new(plan, Seeds::new(1)).unwrap()
}

/// The noise drawn is never below the recorded multiplier's: for 300 pairs (σ, C) with
/// random 53-bit mantissas, the isotropic std s satisfies σ·C ≤ s, the ellipsoid's
/// σ·B ≤ sⱼ·√Cⱼ (Cⱼ = rⱼ² exactly), the std-on-mean form's σ·G ≤ s, and a statistic's
/// σ·Δ ≤ s, all exactly. `fl(σ·C)` falls below σ·C in about half the pairs (`below` counts
/// them), so drawing the rounded-to-nearest products, as before, fails this test.
#[test]
fn drawn_stds_are_never_below_the_recorded_multiplier() {
    let mut rng = Seeds::new(7).stream(crate::rng::Stream::Noise);
    let mut uniform = || 1.0 + (rand::Rng::next_u64(&mut rng) >> 12) as f64 / 2f64.powi(52);
    let mut below = 0;
    for _ in 0..300 {
        let (sigma, clip, r) = (uniform(), uniform() * 3.0, (uniform() * 2f64.powi(20)).floor() / 2f64.powi(20));
        below += usize::from(!product_at_most(sigma, clip, sigma * clip, 1.0));
        let mut run = multiplier_run(sigma, NoiseForm::Multiplier);
        run.release(&mut [0.0], NoiseShape::Isotropic { clip }).unwrap();
        assert!(product_at_most(sigma, clip, run.stds[0], 1.0), "σ = {sigma}, C = {clip}");
        run.release(&mut [0.0, 0.0], NoiseShape::Ellipsoid { clip_radius_b: clip, ellipsoid_c: &[r * r, 1.0] })
            .unwrap();
        assert!(product_at_most(sigma, clip, run.stds[0], r) && product_at_most(sigma, clip, run.stds[1], 1.0));
        let gradient_bound = clip;
        let mut on_mean = multiplier_run(sigma, NoiseForm::StdOnMean { gradient_bound });
        on_mean.release(&mut [0.0], NoiseShape::Isotropic { clip: 1.0 }).unwrap();
        assert!(product_at_most(sigma, gradient_bound, on_mean.stds[0], 1.0));
        let mut statistics = PrivateRelease::statistics(sigma, Seeds::new(2)).unwrap();
        let std = statistics.release_statistic(&mut [0.0], clip).unwrap();
        assert!(product_at_most(sigma, clip, std, 1.0));
    }
    assert!(below > 100, "rounding to nearest fell below σ·C in {below} of 300 pairs");
}

/// `z²·k ≤ num/den` exactly, for 2⁻³ ≤ z < 2 (then z·2⁵⁵ is an integer m < 2⁵⁶, and
/// m²·k·den ≤ num·2¹¹⁰ is compared in u128).
fn square_times_at_most(z: f64, k: u128, num: u128, den: u128) -> bool {
    assert!((0.125..2.0).contains(&z), "{z}");
    let m = (z * 2f64.powi(55)) as u128;
    m * m * k * den <= num << 110
}

/// The k-th release on one batch records σ/√k rounded down: z²·k ≤ σ² exactly for
/// σ = 5/4 and k = 2..=64 (σ/√k rounded to nearest, as before, lies above in `above` of
/// them, so the old formula fails); a closed subsample's joint z = (Σ 1/zᵢ²)^(−1/2) is not
/// above the exact 8/√21 for zᵢ = 2, 4, 8 (Σ 1/zᵢ² = 21/64).
#[test]
fn joint_multipliers_are_rounded_down() {
    let sigma = 1.25;
    let mut run = multiplier_run(sigma, NoiseForm::Multiplier);
    let mut above = 0;
    run.release(&mut [0.0], NoiseShape::Isotropic { clip: 1.0 }).unwrap();
    for k in 2..=64u32 {
        run.release(&mut [0.0], NoiseShape::Isotropic { clip: 1.0 }).unwrap();
        let Some(DpEvent::PoissonSampled { event, .. }) = run.events.as_event() else { panic!("{:?}", run.events) };
        let DpEvent::PerExampleSumGaussian { noise_multiplier: z } = *event else { panic!("{event:?}") };
        assert!(square_times_at_most(z, k.into(), 25, 16), "k = {k}: z = {z}");
        above += usize::from(!square_times_at_most(sigma / f64::from(k).sqrt(), k.into(), 25, 16));
    }
    assert!(above > 0, "the direction mattered for some k");
    let mut statistics = PrivateRelease::statistics(1.0, Seeds::new(2)).unwrap();
    let mut subset = Vec::new();
    statistics.sample_ordered_subset(10, 3, &mut subset).unwrap();
    for std in [2.0, 4.0, 8.0] {
        statistics.release_statistic_given_std(&mut [0.0], std, 1.0).unwrap();
    }
    statistics.close_subsample().unwrap();
    let Some(DpEvent::SampledWithoutReplacement { event, .. }) = statistics.events.as_event() else { panic!() };
    let DpEvent::Gaussian { noise_multiplier: z } = *event else { panic!("{event:?}") };
    assert!(square_times_at_most(z, 1, 64, 21), "z = {z} above 8/√21");
    let nearest = 8.0 / 21f64.sqrt(); // within an ulp of 8/√21
    assert!(z >= nearest.next_down().next_down().next_down(), "rounded down by at most a few ulps: {z}");
}
