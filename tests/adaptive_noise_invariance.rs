//! Symmetries of PASAN and PAGAN ([ADFJT] Algs. 1, 2; notes §6): the iterates are invariant to
//! scaling the loss (O3), and PAGAN on a box is equivariant under a permutation of the
//! coordinates (O4). Tolerances are justified at each test (STYLE b.12).

mod common;

use common::adaptive_runs::{ALGS, KINDS, bits2, config, noise, regression, run};
use dpref::data::Dataset;
use dpref::geometry::Domain;
use dpref::loss::Loss;

// ---------------------------------------------------------------------------------------------
// O3, O4
// ---------------------------------------------------------------------------------------------

/// O3: multiplying every loss by c > 0 (absolute loss: features and labels times c, so
/// `|c⟨a, x⟩ − cb| = c|⟨a, x⟩ − b|` and every subgradient scales by c) with `B → cB` (A → A/c²)
/// and the same seeds scales every ĝ by c and leaves the iterates unchanged, with noise.
/// For c = 4 and c = 1/4 every operation scales exactly (powers of two), so the runs agree bit
/// for bit; for c = 3 within a relative 1e-10: each step adds a few ulps of relative error,
/// summed over T = 30 steps ≤ 30·10·2.2e-16 ≈ 7e-14 (the absolute loss's sign cannot flip:
/// |⟨a, x⟩ − b| is never within 1e-13 of 0 on this data).
#[test]
fn prop_adaptive_noise_iterates_are_invariant_to_loss_scaling() {
    let data = regression(60, 4, 16);
    let scaled = |c: f64| {
        let f: Vec<f64> = data.features().iter().map(|v| v * c).collect();
        let l: Vec<f64> = data.labels().iter().map(|v| v * c).collect();
        Dataset::new(f, l, 4).unwrap()
    };
    for alg in ALGS {
        for kind in KINDS {
            let mut cfg = config(4, 30, 0.4, 0.3, noise(1.5));
            cfg.projection = kind;
            let (r, t) = run(alg, &data, Loss::Absolute, &cfg, 17);
            for c in [4.0, 0.25, 3.0] {
                let mut cc = cfg.clone();
                cc.clip_radius_b = cfg.clip_radius_b * c;
                let (rc, tc) = run(alg, &scaled(c), Loss::Absolute, &cc, 17);
                if c == 3.0 {
                    for (x, y) in t.iterates.iter().zip(&tc.iterates).chain([(&r.x_last, &rc.x_last)]) {
                        for (p, q) in x.iter().zip(y) {
                            assert!((p - q).abs() <= 1e-10 * p.abs().max(1e-3), "{alg:?} {kind:?} c = 3: {p} vs {q}");
                        }
                    }
                    for (g, gc) in t.noisy_gradients.iter().zip(&tc.noisy_gradients) {
                        for (p, q) in g.iter().zip(gc) {
                            assert!((c * p - q).abs() <= 1e-10 * q.abs().max(1e-3), "ĝ does not scale: {p} vs {q}");
                        }
                    }
                } else {
                    assert_eq!(bits2(&t.iterates), bits2(&tc.iterates), "{alg:?} {kind:?} c = {c}");
                    let g: Vec<Vec<f64>> =
                        t.noisy_gradients.iter().map(|v| v.iter().map(|p| c * p).collect()).collect();
                    assert_eq!(bits2(&g), bits2(&tc.noisy_gradients));
                }
                assert_eq!(r.events, rc.events);
            }
        }
    }
}

/// O4: PAGAN on a box is equivariant under a permutation P of the coordinates: permuting the
/// features, C (and x^0 = 0) permutes every iterate. Noise is drawn coordinate by coordinate,
/// so its order is not permuted: the test runs with σ = 0 (clipping on, both projections).
/// Logistic loss (smooth, so that reassociated sums cannot flip a subgradient). Tolerance: the
/// permutation reassociates ⟨a, x⟩ and ‖g‖_A (d = 5 terms): ≤ 5ε relative per step, ≤
/// 40·5·2.2e-16 ≈ 5e-14 after T = 40 steps; 1e-10 relative to max(|x|, 1e-3).
#[test]
fn prop_pagan_is_permutation_equivariant_on_a_box() {
    let d = 5;
    let data = regression(60, d, 18);
    let labels: Vec<f64> = data.labels().iter().map(|b| if *b > 0.0 { 1.0 } else { 0.0 }).collect();
    let data = Dataset::new(data.features().to_vec(), labels, d).unwrap();
    let perm = [3usize, 0, 4, 1, 2]; // new coordinate j is old coordinate perm[j]
    let pf: Vec<f64> = (0..data.n()).flat_map(|i| perm.iter().map(|&p| data.row(i)[p]).collect::<Vec<_>>()).collect();
    let pdata = Dataset::new(pf, data.labels().to_vec(), d).unwrap();
    for alg in ALGS {
        for kind in KINDS {
            let mut cfg = config(d, 40, 0.3, 0.3, noise(0.0));
            cfg.domain = Domain::Box { radius: 0.5 };
            cfg.projection = kind;
            cfg.step_scale_alpha = 0.3;
            let mut pcfg = cfg.clone();
            pcfg.ellipsoid_c = perm.iter().map(|&p| cfg.ellipsoid_c[p]).collect();
            let (_, t) = run(alg, &data, Loss::Logistic, &cfg, 19);
            let (_, pt) = run(alg, &pdata, Loss::Logistic, &pcfg, 19);
            for (x, px) in t.iterates.iter().zip(&pt.iterates) {
                for (j, &p) in perm.iter().enumerate() {
                    assert!((px[j] - x[p]).abs() <= 1e-10 * x[p].abs().max(1e-3), "{alg:?} {kind:?}: {px:?} vs {x:?}");
                }
            }
        }
    }
}
