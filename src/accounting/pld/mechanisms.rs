//! Privacy losses of the supported mechanisms, as pairs (P, Q) of output laws.
//!
//! Every mechanism is normalised to sensitivity 1 (the event's noise multiplier z is the noise
//! scale over the sensitivity under the accountant's relation). "Remove" is the pair
//! (P, Q) = (law with the record, law without it), "add" the reverse; for the symmetric mechanisms
//! both give the same privacy loss distribution.
//!
//! | mechanism | P | Q | loss L(x) |
//! |---|---|---|---|
//! | Gaussian z | N(0, z²) | N(1, z²) | `(1 − 2x)/(2z²)`, i.e. L ~ N(μ, 2μ), μ = 1/(2z²) |
//! | Laplace z | Lap(0, z) | Lap(1, z) | `(\|x − 1\| − \|x\|)/z` ∈ [−1/z, 1/z] |
//! | Poisson q, Gaussian z, remove | (1−q)N(0, z²) + qN(−1, z²) | N(0, z²) | `ln(1 − q + q e^{−(2x+1)/(2z²)})` |
//! | Poisson q, Gaussian z, add | N(0, z²) | (1−q)N(0, z²) + qN(1, z²) | `−ln(1 − q + q e^{(2x−1)/(2z²)})` |
//! | (ε, δ) | KOV pair | | δ at +∞, ±ε with (1−δ)e^{±ε}/(1+e^ε) |
//! | randomized response p, k | | | ±ln(1 + k(1−p)/p), 0 (replace-one) |
//!
//! Each loss is non-increasing in x, so `L > ε ⇔ x < x_ε` and the tails are normal (or Laplace)
//! CDFs at `x_ε`. The Poisson pairs are the tight dominating pairs of the subsampled Gaussian
//! under add/remove (Mironov, Talwar, Zhang 2019, arXiv 1908.10530; Zhu, Dong, Wang 2022,
//! arXiv 2106.08567, the dominating pairs of Poisson subsampling), the (ε, δ) pair is the one of
//! Kairouz, Oh, Viswanath 2015 (arXiv 1311.0776v4, Thm. 2.1). Proof: proofs/accounting/pld.md
//! (§1, §3.1).

use super::discretise::{Atom, Discretised, LossTails, Tails, discretise_atoms, discretise_tails};
use super::interval::Iv;
use super::pmf::{DiscretePld, Side};
use crate::accounting::event::{check_randomized_response, check_sampling_probability};
use crate::error::{Result, check};
use serde::{Deserialize, Serialize};

/// Which ordered pair of neighbouring datasets a PLD describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    /// P = the output law with the record, Q = without it (or: before the replacement).
    Remove,
    /// P = the output law without the record, Q = with it.
    Add,
}

/// A mechanism whose privacy loss distribution the PLD accountant can discretise. Events map to
/// these (`DpEvent::Gaussian { z }` → [`MechanismLoss::Gaussian`] etc.); randomized response has
/// no `DpEvent` yet and is built with [`randomized_response`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum MechanismLoss {
    /// Gaussian noise of std z times the ℓ2-sensitivity.
    Gaussian {
        /// z > 0.
        noise_multiplier: f64,
    },
    /// Laplace noise of scale z times the ℓ1-sensitivity.
    Laplace {
        /// z > 0.
        noise_multiplier: f64,
    },
    /// Poisson subsampling with rate q of the Gaussian mechanism (add/remove only).
    PoissonGaussian {
        /// q ∈ [0, 1].
        sampling_probability: f64,
        /// z > 0.
        noise_multiplier: f64,
    },
    /// A mechanism known only to be (ε, δ)-DP.
    EpsilonDelta {
        /// ε ≥ 0.
        epsilon: f64,
        /// δ ∈ [0, 1).
        delta: f64,
    },
    /// k-ary randomized response (replace-one): outputs the true bucket with probability
    /// `1 − p + p/k`, each other bucket with probability `p/k` (dp_accounting's
    /// `RandomizedResponseDpEvent` semantics).
    RandomizedResponse {
        /// p ∈ [0, 1]: the probability of answering a uniformly random bucket.
        noise_parameter: f64,
        /// k ≥ 2 buckets.
        num_buckets: u64,
    },
}

/// k-ary randomized response with noise parameter p (probability of a uniformly random answer),
/// validated. Under replace-one its privacy loss is `±ln(1 + k(1 − p)/p)` with probabilities
/// `1 − p + p/k` and `p/k`, and 0 with probability `(k − 2)p/k`.
///
/// # Errors
/// `InvalidParameter` for p ∉ [0, 1] (NaN included) or k < 2.
pub fn randomized_response(noise_parameter: f64, num_buckets: u64) -> Result<MechanismLoss> {
    let m = MechanismLoss::RandomizedResponse { noise_parameter, num_buckets };
    m.validate()?;
    Ok(m)
}

impl MechanismLoss {
    /// Checks every parameter's range.
    ///
    /// # Errors
    /// `InvalidParameter` naming the parameter.
    pub fn validate(&self) -> Result<()> {
        match *self {
            MechanismLoss::Gaussian { noise_multiplier } => check::positive("sigma", noise_multiplier).map(|_| ()),
            MechanismLoss::Laplace { noise_multiplier } => {
                check::positive("laplace noise multiplier", noise_multiplier).map(|_| ())
            }
            MechanismLoss::PoissonGaussian { sampling_probability, noise_multiplier } => {
                check_sampling_probability(sampling_probability)?;
                check::positive("sigma", noise_multiplier).map(|_| ())
            }
            MechanismLoss::EpsilonDelta { epsilon, delta } => {
                check::non_negative("epsilon", epsilon)?;
                check::probability_below_one("delta", delta).map(|_| ())
            }
            MechanismLoss::RandomizedResponse { noise_parameter, num_buckets } => {
                check_randomized_response(noise_parameter, num_buckets)
            }
        }
    }

    /// Whether the remove and add directions have the same privacy loss distribution.
    pub fn is_symmetric(&self) -> bool {
        match *self {
            MechanismLoss::PoissonGaussian { sampling_probability, .. } => {
                sampling_probability == 0.0 || sampling_probability == 1.0
            }
            _ => true,
        }
    }

    /// A one-line description for error messages.
    pub fn describe(&self) -> String {
        match self {
            MechanismLoss::Gaussian { noise_multiplier } => format!("Gaussian(z={noise_multiplier})"),
            MechanismLoss::Laplace { noise_multiplier } => format!("Laplace(z={noise_multiplier})"),
            MechanismLoss::PoissonGaussian { sampling_probability, noise_multiplier } => {
                format!("PoissonSampled(q={sampling_probability}, Gaussian(z={noise_multiplier}))")
            }
            MechanismLoss::EpsilonDelta { epsilon, delta } => format!("EpsilonDelta(eps={epsilon}, delta={delta})"),
            MechanismLoss::RandomizedResponse { noise_parameter, num_buckets } => {
                format!("RandomizedResponse(p={noise_parameter}, k={num_buckets})")
            }
        }
    }

    /// The pessimistic and optimistic discretisations of one run of the mechanism in `direction`,
    /// on the grid of (snapped) spacing `h`, cutting tails of mass ≤ `tau`.
    ///
    /// # Errors
    /// `InvalidParameter` for invalid parameters; `Numerical` if the loss needs more than
    /// `max_points` grid points.
    pub fn discretise(&self, direction: Direction, h: f64, tau: f64, max_points: usize) -> Result<Discretised> {
        self.validate()?;
        match *self {
            MechanismLoss::Gaussian { noise_multiplier: z } => {
                discretise_tails(&GaussianTails { z }, h, tau, max_points)
            }
            MechanismLoss::Laplace { noise_multiplier: z } => {
                discretise_tails(&LaplaceTails { b: z }, h, tau, max_points)
            }
            MechanismLoss::PoissonGaussian { sampling_probability: q, noise_multiplier: z } => {
                if q == 0.0 {
                    Ok(Discretised {
                        upper: DiscretePld::identity(Side::Upper, h),
                        lower: DiscretePld::identity(Side::Lower, h),
                    })
                } else if q == 1.0 {
                    discretise_tails(&GaussianTails { z }, h, tau, max_points)
                } else {
                    discretise_tails(&PoissonTails { q, z, direction }, h, tau, max_points)
                }
            }
            MechanismLoss::EpsilonDelta { epsilon, delta } => {
                let (atoms, inf) = epsilon_delta_atoms(epsilon, delta);
                discretise_atoms(&atoms, inf, h, max_points)
            }
            MechanismLoss::RandomizedResponse { noise_parameter, num_buckets } => {
                let (atoms, inf) = randomized_response_atoms(noise_parameter, num_buckets);
                discretise_atoms(&atoms, inf, h, max_points)
            }
        }
    }
}

/// The (ε, δ) pair of Kairouz, Oh, Viswanath (any (ε, δ)-DP mechanism is a post-processing of
/// it): loss +∞ with P-mass δ, +ε with `(1 − δ)e^ε/(1 + e^ε)`, −ε with `(1 − δ)/(1 + e^ε)`.
pub(crate) fn epsilon_delta_atoms(epsilon: f64, delta: f64) -> (Vec<Atom>, Iv) {
    let one_minus_delta = Iv::point(1.0).minus(Iv::point(delta));
    // e^ε/(1+e^ε) = 1/(1 + e^{−ε}), 1/(1+e^ε) = 1/(1 + e^{ε}).
    let p_plus = Iv::point(1.0).div_pos(Iv::point(1.0).plus(Iv::point(-epsilon).exp()));
    let p_minus = Iv::point(1.0).div_pos(Iv::point(1.0).plus(Iv::point(epsilon).exp()));
    let atoms = vec![
        Atom { loss: Iv::point(epsilon), mass: one_minus_delta.times(p_plus).clamp(0.0, 1.0) },
        Atom { loss: Iv::point(-epsilon), mass: one_minus_delta.times(p_minus).clamp(0.0, 1.0) },
    ];
    (atoms, Iv::point(delta))
}

/// Randomized response under replace-one: P = RR(x), Q = RR(x′): loss `l = ln(1 + k(1 − p)/p)`
/// with P-mass `1 − p + p/k` (output x), `−l` with `p/k` (output x′), 0 with `(k − 2)p/k`. p = 0
/// reveals the input: all mass at +∞.
pub(crate) fn randomized_response_atoms(p: f64, k: u64) -> (Vec<Atom>, Iv) {
    if p == 0.0 {
        return (Vec::new(), Iv::point(1.0));
    }
    let kf = Iv::point(k as f64);
    let pk = Iv::point(p).div_pos(kf); // p/k
    let top = Iv::point(1.0).minus(Iv::point(p)).plus(pk); // 1 − p + p/k
    let l = kf.times(Iv::point(1.0).minus(Iv::point(p))).div_pos(Iv::point(p)).ln_1p();
    let mut atoms =
        vec![Atom { loss: l, mass: top.clamp(0.0, 1.0) }, Atom { loss: l.negate(), mass: pk.clamp(0.0, 1.0) }];
    if k > 2 {
        atoms.push(Atom { loss: Iv::point(0.0), mass: pk.times(Iv::point((k - 2) as f64)).clamp(0.0, 1.0) });
    }
    (atoms, Iv::point(0.0))
}

/// Complementary enclosures: `1 − x` for an enclosure of x.
fn complement(x: Iv) -> Iv {
    Iv::point(1.0).minus(x).clamp(0.0, 1.0)
}

/// Gaussian with multiplier z: `P(L > ε) = Φ(1/(2z) − εz)`, `Q(L > ε) = Φ(−1/(2z) − εz)`.
struct GaussianTails {
    z: f64,
}

impl LossTails for GaussianTails {
    fn tails(&self, epsilon: f64) -> Tails {
        let z = Iv::point(self.z);
        let half_inv = Iv::point(0.5).div_pos(z);
        let ez = Iv::point(epsilon).times(z);
        let a = half_inv.minus(ez); // P: Φ(a)
        let b = half_inv.negate().minus(ez); // Q: Φ(b)
        let (p_gt, p_le) = a.normal_cdf_pair();
        let (q_gt, q_le) = b.normal_cdf_pair();
        Tails { p_gt, p_le, q_gt, q_le }
    }

    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
}

/// Laplace with scale b (sensitivity 1): `L > ε ⇔ x < x_ε = (1 − bε)/2` for |ε| < 1/b;
/// `P(X < x) = 1 − e^{−x/b}/2`, `Q(X < x) = e^{(x−1)/b}/2` for x ∈ [0, 1]. The atoms at ±1/b are
/// located exactly by the sign of `fma(b, ε, ∓1)`.
struct LaplaceTails {
    b: f64,
}

impl LossTails for LaplaceTails {
    fn tails(&self, epsilon: f64) -> Tails {
        let zero = Iv::point(0.0);
        let one = Iv::point(1.0);
        if self.b.mul_add(epsilon, -1.0) >= 0.0 {
            // ε ≥ 1/b: L ≤ 1/b ≤ ε always.
            return Tails { p_gt: zero, p_le: one, q_gt: zero, q_le: one };
        }
        if self.b.mul_add(epsilon, 1.0) < 0.0 {
            // ε < −1/b: L ≥ −1/b > ε always.
            return Tails { p_gt: one, p_le: zero, q_gt: one, q_le: zero };
        }
        let b = Iv::point(self.b);
        // x_ε = (1 − bε)/2 = −fma(b, ε, −1)/2: one rounding.
        let v = -self.b.mul_add(epsilon, -1.0) / 2.0;
        let x = Iv::new(v.next_down(), v.next_up()).clamp(0.0, 1.0);
        let p_le = x.negate().div_pos(b).exp().scale(0.5).clamp(0.0, 1.0); // e^{−x/b}/2
        let q_gt = x.minus(one).div_pos(b).exp().scale(0.5).clamp(0.0, 1.0); // e^{(x−1)/b}/2
        Tails { p_gt: complement(p_le), p_le, q_gt, q_le: complement(q_gt) }
    }

    fn support(&self) -> (f64, f64) {
        let s = 1.0 / self.b;
        (-s.next_up(), s.next_up())
    }
}

/// Poisson-subsampled Gaussian (sampling probability q, noise multiplier z) in one direction.
/// Remove: `L > ε ⇔ x < x_ε = −z²·ln1p(expm1(ε)/q) − 1/2` (for ε > ln(1 − q); below, L > ε
/// always), `P(L > ε) = (1 − q)Φ(x_ε/z) + qΦ((x_ε + 1)/z)`, `Q(L > ε) = Φ(x_ε/z)`.
/// Add: `L > ε ⇔ x < x_ε = z²·ln1p(expm1(−ε)/q) + 1/2` (for ε < −ln(1 − q); above, never),
/// `P(L > ε) = Φ(x_ε/z)`, `Q(L > ε) = (1 − q)Φ(x_ε/z) + qΦ((x_ε − 1)/z)`.
/// With `s = +1` (remove) or `−1` (add): `x_ε = −s(z²·ln1p(expm1(sε)/q) + 1/2)`, the mixture's
/// second component is at `(x_ε + s)/z`, and the mixture is the law of the dataset with the record.
struct PoissonTails {
    q: f64,
    z: f64,
    direction: Direction,
}

impl LossTails for PoissonTails {
    fn tails(&self, epsilon: f64) -> Tails {
        let remove = self.direction == Direction::Remove;
        let s = if remove { 1.0 } else { -1.0 };
        let q = Iv::point(self.q);
        let w = Iv::point(s * epsilon).exp_m1().div_pos(q); // e^{sε} − 1 over q; L's range needs w > −1
        if w.hi <= -1.0 {
            // remove: L > ε always; add: never
            let (zero, one) = (Iv::point(0.0), Iv::point(1.0));
            let (gt, le) = if remove { (one, zero) } else { (zero, one) };
            return Tails { p_gt: gt, p_le: le, q_gt: gt, q_le: le };
        }
        let y = Iv::new(w.lo.max(-1.0), w.hi).ln_1p();
        let z = Iv::point(self.z);
        let yzz = y.times(z.times(z));
        let x = if remove { yzz.negate().minus(Iv::point(0.5)) } else { yzz.plus(Iv::point(0.5)) };
        let a1 = x.div_pos(z);
        let a2 = x.plus(Iv::point(s)).div_pos(z);
        let one_q = Iv::point(1.0).minus(q);
        let mix = |u: Iv, v: Iv| one_q.times(u).plus(q.times(v)).clamp(0.0, 1.0);
        let ((s1, c1), (s2, c2)) = (a1.normal_cdf_pair(), a2.normal_cdf_pair());
        let (mixed, single) = ((mix(s1, s2), mix(c1, c2)), (s1, c1));
        let ((p_gt, p_le), (q_gt, q_le)) = if remove { (mixed, single) } else { (single, mixed) };
        Tails { p_gt, p_le, q_gt, q_le }
    }

    fn support(&self) -> (f64, f64) {
        let ln_1_q = (-self.q).ln_1p(); // ln(1 − q)
        match self.direction {
            Direction::Remove => (ln_1_q.next_down(), f64::INFINITY),
            Direction::Add => (f64::NEG_INFINITY, (-ln_1_q).next_up()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tails of every continuous model are consistent: P(L > ε) + P(L ≤ ε) ∋ 1, and the
    /// Q-tails agree with ∫ e^{−l} dP numerically for the Gaussian (Q(L > ε) = Φ(−1/(2z) − εz)).
    #[test]
    fn tails_are_complementary() {
        let models: Vec<Box<dyn LossTails>> = vec![
            Box::new(GaussianTails { z: 1.3 }),
            Box::new(LaplaceTails { b: 0.7 }),
            Box::new(PoissonTails { q: 0.01, z: 1.1, direction: Direction::Remove }),
            Box::new(PoissonTails { q: 0.01, z: 1.1, direction: Direction::Add }),
        ];
        for m in &models {
            for &e in &[-2.0, -0.01, -0.004, 0.0, 1e-3, 0.5, 1.42, 3.0] {
                let t = m.tails(e);
                assert!(t.p_gt.lo + t.p_le.lo <= 1.0 + 1e-15 && t.p_gt.hi + t.p_le.hi >= 1.0 - 1e-15);
                assert!(t.q_gt.lo + t.q_le.lo <= 1.0 + 1e-15 && t.q_gt.hi + t.q_le.hi >= 1.0 - 1e-15);
                // Q(L > ε) ≤ e^{−ε} P(L > ε) since dQ = e^{−L} dP.
                assert!(t.q_gt.lo <= (-e).exp() * t.p_gt.hi * (1.0 + 1e-12) + 1e-300, "eps {e}");
            }
        }
    }
}
