//! A catalogue of mechanisms for the auditor's self-tests: correct ones, and broken ones taken
//! from real bug classes (StatDP and CheckDP benchmark mechanisms, floating-point Laplace, Opacus'
//! private batch normaliser and skipped clip, noise not scaled with the clip). Each [`Case`] fixes a claim
//! (ε, δ), a neighbouring pair, the mechanism and the attack score; [`Case::scores`] samples it.
//!
//! | case | correct | bug class |
//! |---|---|---|
//! | `laplace_count` | yes | — |
//! | `gaussian_sum` | yes | — (claim from the analytic curve) |
//! | `randomized_response` | yes | — |
//! | `report_noisy_max` | yes | — (StatDP `noisy_max_v1a`) |
//! | `sparse_vector` | yes | — (StatDP `SVT`, N = 1) |
//! | `noisy_max_releases_unnoised_max` | no | B.3: releases the true maximum with the index |
//! | `svt_no_query_noise` | no | B.3/B.4: StatDP `iSVT1` (Stoddard et al.), CheckDP `badsparsevector` |
//! | `svt_unbounded_outputs` | no | B.3: StatDP `iSVT2` (Chen et al.): no cap on ⊤, noise not scaled |
//! | `svt_lee_clifton` | no | B.3: StatDP `iSVT3` (Lee & Clifton): query noise 4/(3ε) for N = 3 |
//! | `laplace_scale_off_by_2` | no | C9: Laplace scale 1/(2ε) |
//! | `gaussian_not_scaled_by_clip` | no | C9: noise σ instead of σC (SPRINT_gan #5) |
//! | `normalise_by_private_size` | no | C7: normaliser ⌊n·q⌋ from the private n (Opacus) |
//! | `skipped_clip` | no | C10: the clip is not applied (Opacus PR #664) |
//! | `naive_float_laplace` | no | C1: inverse-CDF float Laplace, claimed ε = 0.1 (Mironov 2012) |

use super::mechanism::{FnMechanism, Score, sample_scores};
use crate::accounting::gaussian;
use crate::noise;
use crate::rng::{DpRng, Seeds};
use rand::Rng;

/// One catalogue entry.
pub struct Case {
    /// Short name.
    pub name: &'static str,
    /// Whether the mechanism meets its claim.
    pub correct: bool,
    /// Claimed ε.
    pub claimed_epsilon: f64,
    /// Claimed δ.
    pub claimed_delta: f64,
    /// The bug (or "none"), with its anchor.
    pub bug: &'static str,
    sampler: Sampler,
}

/// Draws n scores per side from a seed.
type Sampler = Box<dyn Fn(usize, Seeds) -> (Vec<f64>, Vec<f64>) + Sync + Send>;

impl Case {
    /// `n` attack scores on each side (D, D′).
    pub fn scores(&self, n: usize, seeds: Seeds) -> (Vec<f64>, Vec<f64>) {
        (self.sampler)(n, seeds)
    }
}

fn case<I, O, F, S>(
    name: &'static str,
    correct: bool,
    claim: (f64, f64),
    bug: &'static str,
    pair: (I, I),
    f: F,
    score: S,
) -> Case
where
    I: Sync + Send + 'static,
    O: 'static,
    F: Fn(&I, &mut DpRng) -> O + Sync + Send + 'static,
    S: Score<O> + Send + 'static,
{
    let mech = FnMechanism::new(f);
    Case {
        name,
        correct,
        claimed_epsilon: claim.0,
        claimed_delta: claim.1,
        bug,
        sampler: Box::new(move |n, seeds| sample_scores(&mech, &pair.0, &pair.1, n, seeds, &score)),
    }
}

fn uniform53(rng: &mut DpRng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The naive inverse-CDF Laplace sample of scale b from u ∈ [0, 1):
/// `−b·sgn(u − ½)·ln(1 − 2|u − ½|)` evaluated in f64, as many libraries did (Mironov 2012; DP-Sniper's naive float Laplace).
pub fn naive_laplace_noise(u: f64, b: f64) -> f64 {
    let c = u - 0.5;
    -b * c.signum() * (1.0 - 2.0 * c.abs()).ln()
}

/// Whether `y` is an output the naive float Laplace mechanism can produce on input `x` with
/// scale `b`: searches the uniform draws `k·2⁻⁵³` around the inverse of the sampler.
pub fn naive_laplace_reachable(y: f64, x: f64, b: f64) -> bool {
    let d = y - x;
    // invert: |d| = −b ln(1 − 2|c|)  ⇒  |c| = (1 − e^{−|d|/b})/2
    let c = 0.5 * -(-d.abs() / b).exp_m1();
    let u = if d >= 0.0 { 0.5 + c } else { 0.5 - c };
    let k0 = (u * (1u64 << 53) as f64).round() as i64;
    (-64..=64).any(|dk| {
        let k = k0 + dk;
        (0..(1i64 << 53)).contains(&k) && x + naive_laplace_noise(k as f64 / (1u64 << 53) as f64, b) == y
    })
}

/// Report-noisy-max at ε = 1 for sensitivity-1 queries (Laplace 2/ε on each, the index
/// released): the correct mechanism of `report_noisy_max`, and the one that
/// `noisy_max_releases_unnoised_max` extends by releasing the true maximum beside it.
fn noisy_argmax(queries: &[f64], rng: &mut DpRng) -> usize {
    noise::Selection::new(1.0, 1.0, noise::Monotonicity::General)
        .expect("invariant: valid parameters")
        .report_noisy_max(rng, queries)
        .expect("invariant: valid queries")
}

fn sum(records: &[f64]) -> f64 {
    records.iter().sum()
}

fn clip(x: f64, c: f64) -> f64 {
    x.clamp(-c, c)
}

/// The catalogue (see the module table).
pub fn catalogue() -> Vec<Case> {
    let count_pair = || (vec![1.0, 1.0, 0.0, 1.0], vec![1.0, 1.0, 0.0, 1.0, 1.0]);
    let gaussian_claim = gaussian::epsilon_for_delta(1.0, 1e-5).expect("invariant: valid parameters");
    let mut v = vec![
        case(
            "laplace_count",
            true,
            (1.0, 0.0),
            "none",
            count_pair(),
            |d: &Vec<f64>, rng| sum(d) + noise::laplace(rng, 1.0),
            |o: &f64| *o,
        ),
        case(
            "gaussian_sum",
            true,
            (gaussian_claim, 1e-5),
            "none (claim from the analytic Gaussian curve at sigma = 1)",
            count_pair(),
            |d: &Vec<f64>, rng| sum(d) + noise::standard_normal(rng),
            |o: &f64| *o,
        ),
        case(
            "randomized_response",
            true,
            (1.0, 0.0),
            "none",
            (vec![0.0], vec![1.0]),
            |d: &Vec<f64>, rng| {
                let truthful = uniform53(rng) < 1f64.exp() / (1.0 + 1f64.exp());
                if truthful { d[0] } else { 1.0 - d[0] }
            },
            |o: &f64| *o,
        ),
        case(
            "report_noisy_max",
            true,
            (1.0, 0.0),
            "none (Laplace 2/eps, index released)",
            (vec![1.0, 1.0, 1.0, 1.0, 1.0], vec![2.0, 0.0, 0.0, 0.0, 0.0]),
            |q: &Vec<f64>, rng| noisy_argmax(q, rng) as f64,
            |o: &f64| if *o == 0.0 { 1.0 } else { 0.0 },
        ),
        case(
            "sparse_vector",
            true,
            (1.0, 0.0),
            "none (threshold noise 2/eps, query noise 4N/eps, N = 1)",
            (vec![1.0, 1.0, 1.0, 1.0, 1.0], vec![2.0, 0.0, 0.0, 0.0, 0.0]),
            |q: &Vec<f64>, rng| svt_statdp(q, rng, 1.0, 1, 1.0) as f64,
            |o: &f64| *o,
        ),
        case(
            "noisy_max_releases_unnoised_max",
            false,
            (1.0, 0.0),
            "releases the unnoised maximum next to the noisy argmax (StatDP benchmark)",
            (vec![1.0, 1.0, 1.0, 1.0, 1.0], vec![2.0, 0.0, 0.0, 0.0, 0.0]),
            |q: &Vec<f64>, rng| {
                let _index = noisy_argmax(q, rng);
                q.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            },
            |o: &f64| *o,
        ),
        case(
            "svt_no_query_noise",
            false,
            (1.0, 0.0),
            "StatDP iSVT1 / CheckDP badsparsevector: no noise on the queries",
            (vec![1.0, 1.0], vec![2.0, 0.0]),
            |q: &Vec<f64>, rng| {
                let t = 1.0 + noise::laplace(rng, 2.0);
                // output pattern as a number: bit i set if query i is above the noisy threshold
                q.iter().enumerate().map(|(i, &x)| if x >= t { (1u32 << i) as f64 } else { 0.0 }).sum::<f64>()
            },
            // pattern (above, below) is impossible on D and possible on D′
            |o: &f64| if *o == 1.0 { 1.0 } else { 0.0 },
        ),
        case(
            "svt_unbounded_outputs",
            false,
            (1.0, 0.0),
            "StatDP iSVT2 (Chen et al.): query noise 2/eps not scaled with N, no cap on outputs",
            svt_pattern_pair(),
            |q: &Vec<f64>, rng| {
                let t = 0.5 + noise::laplace(rng, 2.0);
                let out: Vec<bool> = q.iter().map(|&x| x + noise::laplace(rng, 2.0) >= t).collect();
                statdp_hamming(&out, q.len()) as f64
            },
            |o: &f64| -*o,
        ),
        case(
            "svt_lee_clifton",
            false,
            (1.0, 0.0),
            "StatDP iSVT3 (Lee & Clifton): threshold noise 4/eps, query noise 4/(3 eps), N = 3",
            svt_pattern_pair(),
            |q: &Vec<f64>, rng| {
                let t = 0.5 + noise::laplace(rng, 4.0);
                let mut out = Vec::new();
                for &x in q {
                    let above = x + noise::laplace(rng, 4.0 / 3.0) > t;
                    out.push(above);
                    if above && out.iter().filter(|&&b| b).count() >= 3 {
                        break;
                    }
                }
                statdp_hamming(&out, q.len()) as f64
            },
            |o: &f64| -*o,
        ),
        case(
            "laplace_scale_off_by_2",
            false,
            (1.0, 0.0),
            "Laplace scale 1/(2 eps) instead of 1/eps (noise-scale bug)",
            count_pair(),
            |d: &Vec<f64>, rng| sum(d) + noise::laplace(rng, 0.5),
            |o: &f64| *o,
        ),
        case(
            "gaussian_not_scaled_by_clip",
            false,
            (gaussian_claim, 1e-5),
            "sum of gradients clipped to C = 4 with noise std sigma instead of sigma*C (SPRINT_gan #5)",
            (vec![0.0, 0.0, 0.0], vec![0.0, 0.0, 0.0, 4.0]),
            |g: &Vec<f64>, rng| g.iter().map(|&x| clip(x, 4.0)).sum::<f64>() + noise::standard_normal(rng),
            |o: &f64| *o,
        ),
        case(
            "normalise_by_private_size",
            false,
            (
                1.0, // placeholder, replaced below by the accountant's value
                1e-5,
            ),
            "noisy sum divided by floor(n*q) computed from the private dataset size (Opacus #571)",
            (vec![0.0, 0.0], vec![0.0, 0.0, 0.0]),
            |g: &Vec<f64>, rng| {
                let q = 0.7;
                let batch: f64 = g.iter().filter(|_| uniform53(rng) < q).map(|&x| clip(x, 1.0)).sum();
                let normaliser = (g.len() as f64 * q).floor().max(1.0);
                (batch + 2.0 * noise::standard_normal(rng)) / normaliser
            },
            |o: &f64| -o.abs(),
        ),
        case(
            "skipped_clip",
            false,
            (gaussian_claim, 1e-5),
            "per-example clip to C = 1 skipped for a record of norm 10 (Opacus PR #664)",
            (vec![0.0, 0.0, 0.0], vec![0.0, 0.0, 0.0, 10.0]),
            |g: &Vec<f64>, rng| g.iter().sum::<f64>() + noise::standard_normal(rng),
            |o: &f64| *o,
        ),
        case(
            "naive_float_laplace",
            false,
            (0.1, 0.0),
            "inverse-CDF Laplace in floating point, claimed eps = 0.1 (Mironov 2012, DP-Sniper)",
            (vec![0.0], vec![1.0]),
            |d: &Vec<f64>, rng| d[0] + naive_laplace_noise(uniform53(rng), 10.0),
            // +1: producible from x = 0 only; −1: from x = 1 only; 0: both or neither
            |y: &f64| match (naive_laplace_reachable(*y, 0.0, 10.0), naive_laplace_reachable(*y, 1.0, 10.0)) {
                (true, false) => 1.0,
                (false, true) => -1.0,
                _ => 0.0,
            },
        ),
    ];
    // The C7 case claims what the accountant reports for one Poisson(q = 0.7) step at sigma = 2.
    let ev = crate::accounting::dp_sgd_event(2.0, crate::accounting::SamplingScheme::Poisson { q: 0.7 }, 1)
        .expect("invariant: valid event");
    let claim = crate::accounting::RdpSettings::new(crate::accounting::Neighbouring::AddRemove)
        .epsilon(&ev, 1e-5)
        .expect("invariant: supported event")
        .epsilon;
    for c in v.iter_mut() {
        if c.name == "normalise_by_private_size" {
            c.claimed_epsilon = claim;
        }
    }
    v
}

/// StatDP's query pair for the sparse-vector variants: D answers the first half of 20 queries
/// with 1 and the second half with 0, D′ the reverse (every query moves by its sensitivity 1, in
/// opposite directions, which a shift of the noisy threshold cannot mimic).
fn svt_pattern_pair() -> (Vec<f64>, Vec<f64>) {
    let d: Vec<f64> = (0..20).map(|i| if i < 10 { 1.0 } else { 0.0 }).collect();
    let d_prime: Vec<f64> = d.iter().map(|x| 1.0 - x).collect();
    (d, d_prime)
}

/// StatDP's output statistic: the Hamming distance between the answers and the pattern "first
/// half above, second half below", positions not answered counting as different.
fn statdp_hamming(out: &[bool], n_queries: usize) -> usize {
    (0..n_queries).filter(|&i| out.get(i) != Some(&(i < n_queries / 2))).count()
}

/// StatDP's `SVT` (correct for N outputs): threshold noise Lap(2/ε), query noise Lap(4N/ε),
/// stops after N ⊤; returns the number of ⊥ before stopping.
fn svt_statdp(queries: &[f64], rng: &mut DpRng, epsilon: f64, n: usize, threshold: f64) -> usize {
    let t = threshold + noise::laplace(rng, 2.0 / epsilon);
    let (mut above, mut below) = (0, 0);
    for &q in queries {
        if q + noise::laplace(rng, 4.0 * n as f64 / epsilon) >= t {
            above += 1;
            if above >= n {
                break;
            }
        } else {
            below += 1;
        }
    }
    below
}
