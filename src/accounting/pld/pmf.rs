//! The discretised privacy loss distribution and its composition.
//!
//! A [`DiscretePld`] holds masses `m_i` at the privacy losses `l_i = (offset + i)·h` of a grid
//! with spacing `h`, a mass `m_∞` at loss +∞, its [`Side`], and an ℓ1 error bound `E`. Its
//! hockey-stick curve is
//!
//! ```text
//! δ(ε) = Σ_{l_i > ε} m_i (1 − e^{ε − l_i}) + m_∞ .
//! ```
//!
//! **What the numbers mean.** For each PLD there is an *ideal* vector `m*` (the result of the same
//! operations in exact arithmetic on the masses the constructors returned) with
//! `‖(m, m_∞) − (m*, m*_∞)‖₁ ≤ E`, and
//!
//! * [`Side::Upper`] (pessimistic): the composition of the true mechanisms has, at every ε, a
//!   hockey-stick divergence at most `δ*(ε)` of `m*`, so [`DiscretePld::delta`] returns
//!   `δ(ε) + E` (rounded up) and [`DiscretePld::epsilon`] an ε that provably meets δ;
//! * [`Side::Lower`] (optimistic): the true composition has divergence at least `δ*(ε)`, so
//!   `delta` returns `δ(ε) − E` (rounded down) and `epsilon` an ε the truth cannot be below.
//!
//! Composition convolves the finite parts (directly for small supports, else by FFT with
//! `rustfft`), self-composition raises the FFT to the `T`-th power on a window chosen from
//! Chernoff bounds on the tails of the `T`-fold sum (the approach of dp_accounting's
//! `self_convolve`), and both truncate tails of mass at most τ: to +∞ (pessimistic) or dropped
//! (optimistic). Every floating-point step adds its bound to `E`. Proof: proofs/accounting/pld.md
//! (§3.4, §3.5).

use super::interval::U;
use crate::error::{Error, Result};

pub use super::fft::convolve;

/// Which bound a discretisation is: its ε(δ) is an upper or a lower bound on the truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Side {
    /// Pessimistic: δ(ε) and ε(δ) are upper bounds on the true curve.
    Upper,
    /// Optimistic: δ(ε) and ε(δ) are lower bounds on the true curve.
    Lower,
}

/// The constant `c` of the assumed FFT error `‖fl(Fx) − Fx‖₂ ≤ c·log₂(N)·u·‖Fx‖₂` (Higham 2002,
/// *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Thm. 24.2 proves it for the radix-2
/// Cooley–Tukey FFT with `c ≈ 5√2 + μ/u`; `rustfft` uses mixed radices, so a margin is taken and
/// `tests/pld.rs` measures the actual error against exact convolutions).
pub const FFT_ERROR_CONSTANT: f64 = 16.0;

/// The largest index magnitude of a grid point: with `h` snapped to 20 significant bits
/// ([`snap_interval`]), `i·h` is then exact in f64.
pub const MAX_INDEX: i64 = 1 << 33;

/// The largest FFT size used (2²³ complex numbers, 128 MiB per buffer).
pub const MAX_FFT_SIZE: usize = 1 << 23;

/// `h` rounded to a float with at most 20 significant bits, so that every grid loss `i·h` with
/// `|i| ≤ 2³³` is exactly representable and grid arithmetic (the loss of a sum of grid losses is
/// the grid loss of the sum of the indices) holds exactly.
///
/// # Errors
/// `InvalidParameter` unless `h ∈ [1e-8, 1]`.
pub fn snap_interval(h: f64) -> Result<f64> {
    if !(1e-8..=1.0).contains(&h) {
        return Err(Error::invalid("value_discretization_interval", h, "in [1e-8, 1]"));
    }
    let k = 19 - h.log2().floor() as i32;
    let scale = 2f64.powi(k);
    Ok((h * scale).round() / scale)
}

/// A discretised privacy loss distribution on a grid of spacing `h` (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct DiscretePld {
    pub(super) side: Side,
    pub(super) interval: f64,
    pub(super) offset: i64,
    pub(super) mass: Vec<f64>,
    pub(super) infinity_mass: f64,
    pub(super) error: f64,
}

/// The sums of a segment `[l_{j−1}, l_j]` of a PLD, on which
/// the finite part of δ(ε) is `A − e^{ε − l_j}·C` with `A = Σ_{i≥j} m_i`,
/// `C = Σ_{i≥j} m_i e^{l_j − l_i}`; `terms` counts the roundings accumulated in them.
#[derive(Debug, Clone, Copy)]
struct Segment {
    j: usize,
    a: f64,
    c: f64,
    terms: usize,
}

/// `x` rounded up by `k` relative units of roundoff and one ulp.
pub(super) fn up(x: f64, k: f64) -> f64 {
    if x.is_finite() { (x + k * U * x.abs()).next_up() } else { x }
}

/// `x` rounded down by `k` relative units of roundoff and one ulp.
pub(super) fn down(x: f64, k: f64) -> f64 {
    if x.is_finite() { (x - k * U * x.abs()).next_down() } else { x }
}

impl DiscretePld {
    /// The PLD of a mechanism that reveals nothing: all mass at loss 0.
    pub fn identity(side: Side, interval: f64) -> Self {
        DiscretePld { side, interval, offset: 0, mass: vec![1.0], infinity_mass: 0.0, error: 0.0 }
    }

    /// Builds a PLD from its parts, trimming zero masses at both ends.
    pub(crate) fn from_parts(
        side: Side,
        interval: f64,
        offset: i64,
        mut mass: Vec<f64>,
        infinity_mass: f64,
        error: f64,
    ) -> Result<Self> {
        for m in &mut mass {
            if m.is_nan() {
                return Err(Error::Numerical { what: "PLD", reason: "NaN mass".into() });
            }
            *m = m.max(0.0);
        }
        if infinity_mass.is_nan() || error.is_nan() {
            return Err(Error::Numerical { what: "PLD", reason: "NaN infinity mass or error bound".into() });
        }
        let mut p = DiscretePld { side, interval, offset, mass: Vec::new(), infinity_mass, error };
        let first = mass.iter().position(|&m| m > 0.0);
        if let Some(f) = first {
            let last = mass.iter().rposition(|&m| m > 0.0).expect("invariant: a positive mass exists");
            p.offset = offset + f as i64;
            mass.truncate(last + 1);
            mass.drain(..f);
            p.mass = mass;
        }
        p.check_index(p.offset)?;
        p.check_index(p.offset + p.mass.len() as i64)?;
        Ok(p)
    }

    fn check_index(&self, i: i64) -> Result<()> {
        if i.abs() > MAX_INDEX {
            return Err(Error::Numerical {
                what: "PLD grid",
                reason: format!(
                    "privacy loss {} is beyond 2^33 grid steps; increase value_discretization_interval",
                    i as f64 * self.interval
                ),
            });
        }
        Ok(())
    }

    /// Pessimistic or optimistic.
    pub fn side(&self) -> Side {
        self.side
    }

    /// The grid spacing `h`.
    pub fn interval(&self) -> f64 {
        self.interval
    }

    /// Index of the first stored mass: its loss is `offset·h`.
    pub fn offset(&self) -> i64 {
        self.offset
    }

    /// The finite masses `m_i` at losses `(offset + i)·h`.
    pub fn masses(&self) -> &[f64] {
        &self.mass
    }

    /// The mass at loss +∞.
    pub fn infinity_mass(&self) -> f64 {
        self.infinity_mass
    }

    /// The ℓ1 bound `E` on the distance to the ideal vector (module docs).
    pub fn error_bound(&self) -> f64 {
        self.error
    }

    /// The loss of the `i`-th stored mass, `(offset + i)·h` (exact, see [`snap_interval`]).
    pub fn loss(&self, i: usize) -> f64 {
        (self.offset + i as i64) as f64 * self.interval
    }

    /// `Σ m_i`, rounded up.
    pub(super) fn finite_total(&self) -> f64 {
        let s: f64 = self.mass.iter().sum();
        up(s, self.mass.len() as f64 + 2.0)
    }

    /// `Σ m_i + m_∞`, rounded up: the ℓ1 norm of the vector.
    pub(super) fn l1(&self) -> f64 {
        up(self.finite_total() + self.infinity_mass, 2.0)
    }

    /// `(Σ m_i²)^{1/2}`, rounded up.
    pub(super) fn l2(&self) -> f64 {
        let s: f64 = self.mass.iter().map(|m| m * m).sum();
        up(s.sqrt(), self.mass.len() as f64 + 4.0)
    }

    /// Index of the first mass with loss strictly above `eps` (`len` if none).
    fn first_above(&self, eps: f64) -> usize {
        let n = self.mass.len();
        if eps == f64::INFINITY || n == 0 {
            return n;
        }
        if eps == f64::NEG_INFINITY {
            return 0;
        }
        let guess = (eps / self.interval).floor() - self.offset as f64 + 1.0;
        let mut i = guess.clamp(0.0, n as f64) as usize;
        while i > 0 && self.loss(i - 1) > eps {
            i -= 1;
        }
        while i < n && self.loss(i) <= eps {
            i += 1;
        }
        i
    }

    /// The hockey-stick divergence bound at `epsilon` for this PLD's side: an upper bound on the
    /// ideal δ(ε) plus `E` (pessimistic, capped at 1) or a lower bound minus `E` (optimistic, at
    /// least 0). A NaN ε gives the side's trivial bound (1 or 0).
    ///
    /// Rounding: each term `m_i·(−expm1(ε − l_i))` has relative error ≤ 10u (the subtraction is
    /// exact to u relative and `x ↦ 1 − e^x` has condition number ≤ 1 for x < 0; expm1 adds 8u
    /// (A1), the product u); a sum of n non-negative terms adds (n − 1)u.
    pub fn delta(&self, epsilon: f64) -> f64 {
        if epsilon.is_nan() {
            return match self.side {
                Side::Upper => 1.0,
                Side::Lower => 0.0,
            };
        }
        let start = self.first_above(epsilon);
        let n = self.mass.len() - start;
        let mut s = 0.0;
        for i in start..self.mass.len() {
            let x = epsilon - self.loss(i);
            s += self.mass[i] * (-x.exp_m1());
        }
        let k = (n as f64 + 12.0) * 1.01 + 4.0 * U * (n as f64) * (n as f64);
        match self.side {
            Side::Upper => {
                let v = up(up(s, k) + up(self.infinity_mass, 2.0), 2.0) + self.error;
                up(v, 1.0).min(1.0)
            }
            Side::Lower => {
                let v = down(down(s, k) + down(self.infinity_mass, 2.0), 2.0) - self.error;
                down(v, 1.0).max(0.0)
            }
        }
    }

    /// Approximate δ at every grid loss (`δ(l_j)`, without the error terms), by the suffix
    /// recurrences `A_j = Σ_{i>j} m_i`, `C_j = Σ_{i>j} m_i e^{l_j − l_i} = e^{−h}(m_{j+1} + C_{j+1})`:
    /// `δ(l_j) ≈ A_j − C_j + m_∞`. Used only to locate a segment; every returned ε is verified
    /// with [`DiscretePld::delta`].
    fn approx_grid_deltas(&self) -> Vec<f64> {
        let n = self.mass.len();
        let mut out = vec![0.0; n];
        let decay = (-self.interval).exp();
        let (mut a, mut c) = (0.0f64, 0.0f64);
        for j in (0..n).rev() {
            out[j] = (a - c).max(0.0) + self.infinity_mass;
            c = decay * (c + self.mass[j]);
            a += self.mass[j];
        }
        out
    }

    /// The sums of segment `j` (module [`Segment`]), computed afresh: `O(len − j)`.
    fn segment(&self, j: usize) -> Segment {
        let (mut a, mut c) = (0.0, 0.0);
        for i in j..self.mass.len() {
            a += self.mass[i];
            // l_j − l_i = (j − i)·h is exact (grid arithmetic).
            c += self.mass[i] * (self.loss(j) - self.loss(i)).exp();
        }
        Segment { j, a, c, terms: self.mass.len() - j }
    }

    /// Segment `j − 1` from segment `j`: `A += m_{j−1}`, `C = m_{j−1} + e^{−h}C` (per step: u for
    /// the sum into A; 8u (A1) for `e^{−h}`, u for the product and u for the sum into C, all
    /// relative to C: counted as 11 in `terms`).
    fn segment_down(&self, s: &Segment) -> Segment {
        let j = s.j - 1;
        let m = self.mass[j];
        Segment { j, a: s.a + m, c: m + (-self.interval).exp() * s.c, terms: s.terms + 11 }
    }

    /// The side's rigorous bound on δ(ε) for ε in segment `s` (`[l_{j−1}, l_j]`): the ideal
    /// finite part is exactly `A − e^{ε − l_j}·C` there; `A` and `C` carry relative error
    /// ≤ γ = (terms + 20)·1.01·u, `e^{ε − l_j}` ≤ 12u (one rounded subtraction, exp).
    fn segment_delta(&self, s: &Segment, epsilon: f64) -> f64 {
        let gamma = (s.terms as f64 + 20.0) * 1.01 * U;
        let e = (epsilon - self.loss(s.j)).exp();
        match self.side {
            Side::Upper => {
                let raw = s.a * (1.0 + gamma) - e * (1.0 - 12.0 * U) * s.c * (1.0 - gamma);
                let v = up(up(raw.max(0.0), 4.0) + up(self.infinity_mass, 2.0) + self.error, 2.0);
                v.min(1.0)
            }
            Side::Lower => {
                let raw = s.a * (1.0 - gamma) - e * (1.0 + 12.0 * U) * s.c * (1.0 + gamma);
                let v = down(down(raw.max(0.0), 4.0) + down(self.infinity_mass, 2.0) - self.error, 2.0);
                v.max(0.0)
            }
        }
    }

    /// The ε of this side at `delta` (δ ∈ (0, 1) is not checked here; NaN gives the side's trivial
    /// bound):
    ///
    /// * pessimistic: an ε ≥ 0 at which this side's δ bound is ≤ δ as evaluated (hence the true
    ///   composition is (ε, δ)-DP), the smallest such up to a few ulp; `+∞` if none exists;
    /// * optimistic: an ε at which this side's δ bound is > δ as evaluated (hence the true
    ///   δ(ε′) > δ for every ε′ ≤ ε and the true ε(δ) is ≥ ε), the largest such up to a few ulp;
    ///   0 if the bound at 0 is ≤ δ, `+∞` if it exceeds δ for every ε.
    ///
    /// A segment `[l_{j−1}, l_j]` is located with approximate grid values, then every claim is
    /// checked at the returned point with a rigorous bound on the segment (or [`Self::delta`]).
    pub fn epsilon(&self, delta: f64) -> f64 {
        match self.side {
            Side::Upper => self.epsilon_upper(delta),
            Side::Lower => self.epsilon_lower(delta),
        }
    }

    fn epsilon_upper(&self, delta: f64) -> f64 {
        if delta.is_nan() {
            return f64::INFINITY;
        }
        if self.delta(0.0) <= delta {
            return 0.0;
        }
        let n = self.mass.len();
        if n == 0 || self.delta(self.loss(n - 1)) > delta {
            return f64::INFINITY; // δ(ε) = m_∞ + E for ε ≥ max loss, and that exceeds δ
        }
        let approx = self.approx_grid_deltas();
        let j0 = self.first_above(0.0); // first index with l > 0: segment j0 contains 0
        let j = (j0..n).find(|&j| approx[j] <= delta).unwrap_or(n - 1);
        // Make the right end verified: δ(l_j) ≤ δ (at l_{n−1} it is m_∞ + E ≤ δ).
        let mut j = first_passing(j, n - 1, |j| self.segment_delta(&self.segment(j), self.loss(j)) <= delta);
        let mut seg = self.segment(j);
        // Move left while the left end also meets δ.
        while j > j0 && self.segment_delta(&seg, self.loss(j - 1)) <= delta {
            seg = self.segment_down(&seg);
            j -= 1;
        }
        let lj = self.loss(j);
        let seg_lo = if j > j0 { self.loss(j - 1) } else { 0.0 };
        // Solve A⁺ − e^{ε − l_j}C⁻ + m_∞ + E = δ.
        let gamma = (seg.terms as f64 + 20.0) * 1.01 * U;
        let num = seg.a * (1.0 + gamma) + self.infinity_mass + self.error - delta;
        let den = seg.c * (1.0 - gamma) * (1.0 - 12.0 * U);
        let mut eps = if num > 0.0 && den > 0.0 { lj + (num / den).ln() } else { lj };
        if !(eps >= seg_lo && eps <= lj) {
            eps = lj;
        }
        let mut step = 4.0 * U * eps.abs().max(1e-300);
        while self.segment_delta(&seg, eps) > delta && eps < lj {
            eps = (eps + step).min(lj);
            step *= 2.0;
        }
        if self.segment_delta(&seg, eps) > delta {
            // Fall back to grid points checked with the general bound (l_{n−1} passes).
            eps = lj;
            while self.delta(eps) > delta && j + 1 < n {
                j += 1;
                eps = self.loss(j);
            }
        }
        eps.max(0.0)
    }

    fn epsilon_lower(&self, delta: f64) -> f64 {
        if delta.is_nan() || self.delta(0.0) <= delta {
            return 0.0;
        }
        let n = self.mass.len();
        if self.delta(f64::INFINITY) > delta {
            return f64::INFINITY;
        }
        if n == 0 {
            return 0.0; // unreachable in practice: then δ(0) = δ(∞) ≤ δ was handled above
        }
        let approx = self.approx_grid_deltas();
        let j0 = self.first_above(0.0);
        // The segment s = [l_{s−1}, l_s] where the bound crosses δ.
        let mut s = (j0..n).rev().find(|&j| approx[j] > delta).map_or(j0, |j| j + 1);
        if s >= n {
            s = n - 1;
        }
        let mut seg = self.segment(s);
        let seg_lo = |s: usize| if s > j0 { self.loss(s - 1) } else { 0.0 };
        // The left end must exceed δ (move left otherwise) ...
        while s > j0 && self.segment_delta(&seg, seg_lo(s)) <= delta {
            seg = self.segment_down(&seg);
            s -= 1;
        }
        if self.segment_delta(&seg, seg_lo(s)) <= delta {
            return 0.0;
        }
        // ... and the right end must not (move right otherwise).
        if s + 1 < n && self.segment_delta(&seg, self.loss(s)) > delta {
            s = first_passing(s + 1, n - 1, |s| self.segment_delta(&self.segment(s), self.loss(s)) <= delta);
            seg = self.segment(s);
        }
        let (lo, ls) = (seg_lo(s), self.loss(s));
        if self.segment_delta(&seg, ls) > delta {
            return ls; // beyond the last finite loss the bound is m_∞ − E ≤ δ
        }
        // Solve A⁻ − e^{ε − l_s}C⁺ + m_∞ − E = δ.
        let gamma = (seg.terms as f64 + 20.0) * 1.01 * U;
        let num = seg.a * (1.0 - gamma) + self.infinity_mass - self.error - delta;
        let den = seg.c * (1.0 + gamma) * (1.0 + 12.0 * U);
        let mut eps = if num > 0.0 && den > 0.0 { ls + (num / den).ln() } else { lo };
        if !(eps >= lo && eps <= ls) {
            eps = lo;
        }
        let mut step = 4.0 * U * eps.abs().max(1e-300);
        while eps > lo && self.segment_delta(&seg, eps) <= delta {
            eps = (eps - step).max(lo);
            step *= 2.0;
        }
        eps.max(0.0)
    }
}

/// The first index in `[from, last)` where `passes` holds, else `last` (not evaluated): what a
/// step-by-step walk `while j < last && !passes(j) { j += 1 }` returns when `passes` is monotone
/// (false, then true), found by galloping then bisection in O(log n) evaluations. The walk made
/// O(n) of them, each an O(n) segment: ε(δ) at δ = 1 − 1e-12 took minutes on a 4·10⁵-point grid.
/// Where rounding breaks monotonicity the index found still passes (or is `last`), so a caller
/// that needs a verified end keeps one.
fn first_passing(from: usize, last: usize, mut passes: impl FnMut(usize) -> bool) -> usize {
    let (mut failed, mut probe, mut step) = (None, from, 1usize);
    let pass = loop {
        if probe >= last {
            break last;
        }
        if passes(probe) {
            break probe;
        }
        failed = Some(probe);
        probe = probe.saturating_add(step);
        step = step.saturating_mul(2);
    };
    // the first passing index in (failed, pass]
    let (mut lo, mut hi) = (failed.map_or(from, |f| f + 1), pass);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if passes(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapped_interval_makes_grid_exact() {
        let h = snap_interval(1e-4).unwrap();
        assert!((h - 1e-4).abs() < 1e-4 * 2e-6);
        let i = 123_456_789i64;
        // i·h exact: recovering i from the product is exact.
        assert_eq!(((i as f64) * h / h).round() as i64, i);
        let m = h * 2f64.powi(19 - h.log2().floor() as i32);
        assert_eq!(m.fract(), 0.0);
        assert!(snap_interval(0.0).is_err() && snap_interval(f64::NAN).is_err());
    }
}
