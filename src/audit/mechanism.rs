//! Black-box mechanisms, neighbouring dataset pairs, attack scores, and the parallel sampler.
//!
//! A [`Mechanism`] maps a dataset and a random stream to one output. The sampler draws n
//! outputs on each side of a [`NeighbouringPair`] in shards of [`SHARD`] draws; shard s of side
//! A uses the stream `(Audit, 2s)` and of side B `(Audit, 2s+1)` of the audit's seed, so the
//! samples are the same whatever the number of threads. Outputs are turned into scalar attack
//! scores on the fly ([`Score`]), so 10⁷ draws need no more than 80 MB per side.

use crate::accounting::Neighbouring;
use crate::error::{Error, Result};
use crate::rng::{DpRng, Seeds, Stream};
use rayon::prelude::*;

/// Draws per shard (one random stream each).
pub const SHARD: usize = 1 << 14;

/// A randomized mechanism under audit.
pub trait Mechanism: Sync {
    /// The dataset type (a list of records, a vector of counts, ...).
    type Input: Sync + ?Sized;
    /// One output.
    type Output;
    /// One draw of the mechanism on `input`.
    fn sample(&self, input: &Self::Input, rng: &mut DpRng) -> Self::Output;
}

/// A mechanism given as a function of (dataset, random stream): the closure is the mechanism's
/// `sample`.
pub struct FnMechanism<I: ?Sized, O, F: Fn(&I, &mut DpRng) -> O + Sync> {
    f: F,
    _p: std::marker::PhantomData<fn(&I) -> O>,
}

impl<I: ?Sized, O, F: Fn(&I, &mut DpRng) -> O + Sync> FnMechanism<I, O, F> {
    /// The mechanism whose draw on `input` with stream `rng` is `f(input, rng)`.
    pub fn new(f: F) -> Self {
        FnMechanism { f, _p: std::marker::PhantomData }
    }
}

impl<I: Sync + ?Sized, O, F: Fn(&I, &mut DpRng) -> O + Sync> Mechanism for FnMechanism<I, O, F> {
    type Input = I;
    type Output = O;
    fn sample(&self, input: &I, rng: &mut DpRng) -> O {
        (self.f)(input, rng)
    }
}

/// Turns an output into a real score (large values suggest one of the datasets).
pub trait Score<O>: Sync {
    /// The score of one output.
    fn score(&self, output: &O) -> f64;
}

impl<O, F: Fn(&O) -> f64 + Sync> Score<O> for F {
    fn score(&self, output: &O) -> f64 {
        self(output)
    }
}

/// The identity score on scalar outputs: a threshold attack on the output itself.
pub fn threshold_score(x: &f64) -> f64 {
    *x
}

/// Projection onto a canary direction `c`: `s(o) = ⟨o, c⟩/‖c‖` (vector outputs).
#[derive(Debug, Clone)]
pub struct ProjectionScore {
    direction: Vec<f64>,
}

impl ProjectionScore {
    /// The score `⟨o, c⟩/‖c‖`.
    ///
    /// # Errors
    /// `Empty`, `NonFinite`, or `InvalidParameter` for a zero direction.
    pub fn new(direction: Vec<f64>) -> Result<Self> {
        if direction.is_empty() {
            return Err(Error::Empty { what: "canary direction" });
        }
        crate::error::check::all_finite("canary direction", &direction)?;
        let n = crate::linalg::norm_l2(&direction);
        if n == 0.0 {
            return Err(Error::invalid("canary direction", "0", "non-zero"));
        }
        Ok(ProjectionScore { direction: direction.iter().map(|c| c / n).collect() })
    }
}

impl Score<Vec<f64>> for ProjectionScore {
    fn score(&self, output: &Vec<f64>) -> f64 {
        crate::linalg::dot(output, &self.direction)
    }
}

/// The exact log-likelihood ratio `ln p_A(o) − ln p_B(o)` where both densities are known: the
/// most powerful score (Neyman–Pearson).
pub struct LikelihoodRatioScore<F> {
    log_ratio: F,
}

impl<F> LikelihoodRatioScore<F> {
    /// Wraps `o ↦ ln p_A(o) − ln p_B(o)`.
    pub fn new(log_ratio: F) -> Self {
        LikelihoodRatioScore { log_ratio }
    }
}

impl<O, F: Fn(&O) -> f64 + Sync> Score<O> for LikelihoodRatioScore<F> {
    fn score(&self, output: &O) -> f64 {
        (self.log_ratio)(output)
    }
}

/// Two neighbouring datasets of records, with the relation they satisfy (checked).
#[derive(Debug, Clone, PartialEq)]
pub struct NeighbouringPair<R> {
    /// D (side A).
    pub d: Vec<R>,
    /// D′ (side B).
    pub d_prime: Vec<R>,
    /// The relation between them.
    pub relation: Neighbouring,
}

impl<R: PartialEq> NeighbouringPair<R> {
    /// A pair, after checking the relation: replace-one needs equal sizes and exactly one differing
    /// position; add/remove needs the larger to be the smaller with one record inserted.
    ///
    /// # Errors
    /// `InvalidParameter` if the datasets are not neighbours under `relation`.
    pub fn new(d: Vec<R>, d_prime: Vec<R>, relation: Neighbouring) -> Result<Self> {
        let ok = match relation {
            Neighbouring::ReplaceOne => {
                d.len() == d_prime.len() && d.iter().zip(&d_prime).filter(|(x, y)| x != y).count() == 1
            }
            Neighbouring::AddRemove => {
                let (small, large) = if d.len() < d_prime.len() { (&d, &d_prime) } else { (&d_prime, &d) };
                large.len() == small.len() + 1 && {
                    let i = small.iter().zip(large.iter()).take_while(|(x, y)| x == y).count();
                    small[i..] == large[i + 1..]
                }
            }
        };
        if !ok {
            return Err(Error::invalid("datasets", relation.name(), "neighbours under that relation"));
        }
        Ok(NeighbouringPair { d, d_prime, relation })
    }
}

fn progress_bar(total: u64) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if total >= 1 << 22 && std::io::stderr().is_terminal() {
        let pb = indicatif::ProgressBar::new(total);
        pb.set_style(
            indicatif::ProgressStyle::with_template("audit {bar:40} {pos}/{len} draws ({eta})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    } else {
        indicatif::ProgressBar::hidden()
    }
}

/// `n` scores of `mechanism` on each of `a` and `b` (in that order), sampled in parallel shards
/// with per-shard streams of `seeds`; identical for any thread count.
pub fn sample_scores<M, S>(
    mechanism: &M,
    a: &M::Input,
    b: &M::Input,
    n: usize,
    seeds: Seeds,
    score: &S,
) -> (Vec<f64>, Vec<f64>)
where
    M: Mechanism,
    S: Score<M::Output>,
{
    let shards = n.div_ceil(SHARD);
    let pb = progress_bar(2 * n as u64);
    let run = |side: u64, input: &M::Input| -> Vec<f64> {
        let parts: Vec<Vec<f64>> = (0..shards)
            .into_par_iter()
            .map(|s| {
                let mut rng = seeds.stream_at(Stream::Audit, 2 * s as u64 + side);
                let len = SHARD.min(n - s * SHARD);
                let v: Vec<f64> = (0..len).map(|_| score.score(&mechanism.sample(input, &mut rng))).collect();
                pb.inc(len as u64);
                v
            })
            .collect();
        parts.concat()
    };
    let out = (run(0, a), run(1, b));
    pb.finish_and_clear();
    out
}
