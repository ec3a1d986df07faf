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
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};
use std::sync::{Arc, Mutex, OnceLock};

/// FFT plans are cached across calls (computing the twiddle factors of a 2¹⁶-point plan costs
/// about as much as running it).
fn fft_plan(size: usize, inverse: bool) -> Arc<dyn Fft<f64>> {
    static PLANNER: OnceLock<Mutex<FftPlanner<f64>>> = OnceLock::new();
    let planner = PLANNER.get_or_init(|| Mutex::new(FftPlanner::new()));
    let mut p = planner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if inverse { p.plan_fft_inverse(size) } else { p.plan_fft_forward(size) }
}

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
    side: Side,
    interval: f64,
    offset: i64,
    mass: Vec<f64>,
    infinity_mass: f64,
    error: f64,
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
/// The table `e^{−2πi r/N}`, r = 0..N, cached per size. Each entry is computed from the angle
/// `2π·(r/N)` (r/N exact, `TAU` and the product rounded: ≤ 2u·2π < 12.6u absolute) with `cos` and
/// `sin` (A1: 8u), so each component is within 20.6u and the entry within 30u of `e^{−2πi r/N}`.
fn twiddles(size: usize) -> Arc<Vec<Complex<f64>>> {
    type Table = Arc<Vec<Complex<f64>>>;
    static CACHE: OnceLock<Mutex<std::collections::HashMap<usize, Table>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(std::collections::HashMap::new()));
    let mut c = cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(t) = c.get(&size) {
        return t.clone();
    }
    if c.len() >= 8 {
        c.clear();
    }
    let cacheable = size <= 1 << 20; // large tables are rebuilt rather than kept
    let t: Arc<Vec<Complex<f64>>> = Arc::new(
        (0..size)
            .map(|r| {
                let th = std::f64::consts::TAU * (r as f64 / size as f64);
                Complex::new(th.cos(), -th.sin())
            })
            .collect(),
    );
    if cacheable {
        c.insert(size, t.clone());
    }
    t
}

/// `A_k = Σ_j a_j e^{−2πi jk/N}` over the non-zero masses `(j, a_j)`, by pairwise summation
/// (blocks of 16 summed in order). N is a power of two, so `jk mod N` is a mask.
fn direct_dft(nonzero: &[(usize, f64)], k: usize, tw: &[Complex<f64>]) -> Complex<f64> {
    let mask = tw.len() as u64 - 1;
    fn rec(a: &[(usize, f64)], k: u64, tw: &[Complex<f64>], mask: u64) -> Complex<f64> {
        if a.len() <= 16 {
            let mut s = Complex::new(0.0, 0.0);
            for &(j, x) in a {
                s += tw[((j as u64).wrapping_mul(k) & mask) as usize] * x;
            }
            return s;
        }
        let mid = a.len() / 2;
        rec(&a[..mid], k, tw, mask) + rec(&a[mid..], k, tw, mask)
    }
    rec(nonzero, k as u64, tw, mask)
}

/// Componentwise error bound of [`direct_dft`]: each term `a_j·w̃` is within `30u·a_j` (twiddle)
/// plus `1.5u·a_j` (the real × complex product) of `a_j·e^{−2πi jk/N}`; summing n terms (blocks of
/// 16 in order, then pairwise) adds at most `(⌈log₂ n⌉ + 16)·u` relative to the sum of the terms'
/// moduli in each component, √2 for the complex modulus. Total
/// `≤ √2·(⌈log₂ n⌉ + 16 + 23)·1.01·u·‖a‖₁` (√2·23 ≥ 31.5).
fn direct_dft_error(n: usize, a1: f64) -> f64 {
    let depth = (n.max(2) as f64).log2().ceil();
    up(std::f64::consts::SQRT_2 * (depth + 16.0 + 23.0) * 1.01 * U * a1, 4.0)
}

/// `z^k` by binary exponentiation (relative error ≤ (6k + 70)u: each complex product adds at most
/// √5·u relative, and the error of the factor `z^{2^j}` is amplified by the remaining exponent).
fn complex_powu(z: Complex<f64>, mut k: u64) -> Complex<f64> {
    let mut base = z;
    let mut acc = Complex::new(1.0, 0.0);
    while k > 0 {
        if k & 1 == 1 {
            acc *= base;
        }
        k >>= 1;
        if k > 0 {
            base = base * base;
        }
    }
    acc
}

fn up(x: f64, k: f64) -> f64 {
    if x.is_finite() { (x + k * U * x.abs()).next_up() } else { x }
}

/// `x` rounded down by `k` relative units of roundoff and one ulp.
fn down(x: f64, k: f64) -> f64 {
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
    fn finite_total(&self) -> f64 {
        let s: f64 = self.mass.iter().sum();
        up(s, self.mass.len() as f64 + 2.0)
    }

    /// `Σ m_i + m_∞`, rounded up: the ℓ1 norm of the vector.
    fn l1(&self) -> f64 {
        up(self.finite_total() + self.infinity_mass, 2.0)
    }

    /// `(Σ m_i²)^{1/2}`, rounded up.
    fn l2(&self) -> f64 {
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
        let mut j = (j0..n).find(|&j| approx[j] <= delta).unwrap_or(n - 1);
        let mut seg = self.segment(j);
        // Make the right end verified: δ(l_j) ≤ δ (at l_{n−1} it is m_∞ + E ≤ δ).
        while j < n - 1 && self.segment_delta(&seg, self.loss(j)) > delta {
            j += 1;
            seg = self.segment(j);
        }
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
        while s + 1 < n && self.segment_delta(&seg, self.loss(s)) > delta {
            s += 1;
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

    fn check_compatible(&self, other: &Self) -> Result<()> {
        if self.side != other.side || self.interval != other.interval {
            return Err(Error::Numerical {
                what: "PLD composition",
                reason: "the two PLDs differ in side or grid spacing".into(),
            });
        }
        Ok(())
    }

    /// The PLD of running both mechanisms (adaptively): finite parts convolved, infinite masses
    /// combined, tails of mass ≤ `tail` truncated on the side's safe side.
    ///
    /// # Errors
    /// `Numerical` for PLDs of different sides or spacings, or a grid beyond [`MAX_INDEX`].
    pub fn compose(&self, other: &Self, tail: f64) -> Result<Self> {
        self.check_compatible(other)?;
        if self.mass == [1.0] && self.offset == 0 && self.infinity_mass == 0.0 && self.error == 0.0 {
            return Ok(other.clone());
        }
        if other.mass == [1.0] && other.offset == 0 && other.infinity_mass == 0.0 && other.error == 0.0 {
            return Ok(self.clone());
        }
        let (mass, conv_err) = convolve(&self.mass, &other.mass)?;
        let (a_fin, b_fin) = (self.finite_total(), other.finite_total());
        let (a_tot, b_tot) = (self.l1(), other.l1());
        // m_∞ = a_∞·(b_fin + b_∞) + a_fin·b_∞: each factor rounded toward the side.
        let inf_raw = self.infinity_mass * (b_fin + other.infinity_mass) + a_fin * other.infinity_mass;
        let inf = match self.side {
            Side::Upper => up(inf_raw, 8.0 + (self.mass.len() + other.mass.len()) as f64).min(1.0),
            Side::Lower => {
                let a_lo = down(a_fin, 2.0 * (self.mass.len() as f64 + 2.0));
                let b_lo = down(b_fin, 2.0 * (other.mass.len() as f64 + 2.0));
                down(self.infinity_mass * (b_lo + other.infinity_mass) + a_lo * other.infinity_mass, 8.0)
            }
        };
        let err = up(conv_err + self.error * b_tot + (a_tot + self.error) * other.error, 8.0);
        let mut out = DiscretePld::from_parts(self.side, self.interval, self.offset + other.offset, mass, inf, err)?;
        out.truncate(tail);
        Ok(out)
    }

    /// The PLD of `count` adaptive runs of this mechanism, by one FFT raised to the power `count`
    /// on a window outside which the `count`-fold sum has mass ≤ `tail` (Chernoff bounds).
    ///
    /// # Errors
    /// `InvalidParameter` for `count = 0`; `Numerical` if the window needs more than
    /// [`MAX_FFT_SIZE`] points or leaves the index range.
    pub fn self_compose(&self, count: u64, tail: f64) -> Result<Self> {
        if count == 0 {
            return Err(Error::invalid("count", count, ">= 1"));
        }
        if count == 1 {
            return Ok(self.clone());
        }
        let t = count as f64;
        let inf = self.power_infinity_mass(t);
        let s1 = self.l1();
        // ‖a^{⊛T} − a*^{⊛T}‖₁ ≤ T·(‖a‖₁ + E)^{T−1}·E.
        let propagated = if self.error > 0.0 { up(t * (s1 + self.error).powf(t - 1.0) * self.error, 8.0) } else { 0.0 };
        if self.mass.is_empty() {
            return DiscretePld::from_parts(self.side, self.interval, 0, Vec::new(), inf, propagated);
        }
        if self.mass.len() == 1 {
            // A point mass: its T-fold sum is the point T·l with mass m^T.
            // m^T = exp(T·ln m): ln within 8u (A1) relative, so T·ln m within (8 + 1)u·T|ln m|,
            // which moves exp by that relative amount, plus exp's own 8u.
            let m = self.mass[0];
            let mt = (t * m.ln()).exp();
            let k = 16.0 + 10.0 * t * (1.0 + m.ln().abs());
            let mt = match self.side {
                Side::Upper => up(mt, k),
                Side::Lower => down(mt, k),
            };
            let off = self.offset.checked_mul(count as i64).filter(|o| o.abs() <= MAX_INDEX);
            let off = off.ok_or_else(|| self.range_error())?;
            return DiscretePld::from_parts(self.side, self.interval, off, vec![mt], inf, propagated);
        }
        let n = self.mass.len() as i64;
        let ci = i64::try_from(count).map_err(|_| self.range_error())?;
        let full_lo = self.offset.checked_mul(ci).ok_or_else(|| self.range_error())?;
        let full_hi = (self.offset + n - 1).checked_mul(ci).ok_or_else(|| self.range_error())?;
        let (lo, hi, tail_lo, tail_hi) = self.chernoff_window(t, tail, full_lo, full_hi);
        if lo.abs() > MAX_INDEX || hi.abs() > MAX_INDEX {
            return Err(self.range_error());
        }
        let w = (hi - lo + 1) as usize;
        let size = w.next_power_of_two().max(2);
        if size > MAX_FFT_SIZE {
            return Err(Error::Numerical {
                what: "PLD self-composition",
                reason: format!(
                    "the {count}-fold PLD needs {w} grid points (more than {MAX_FFT_SIZE}); increase \
                     value_discretization_interval"
                ),
            });
        }
        let mut buf = vec![Complex::new(0.0, 0.0); size];
        for (i, &m) in self.mass.iter().enumerate() {
            buf[i % size].re += m;
        }
        fft_plan(size, false).process(&mut buf);
        // Error budget (ℓ2 of the powered spectrum Z, then ℓ1 over the window). Under A2 the
        // forward error satisfies ‖ΔA‖₂ ≤ d_a = η√N‖a‖₂, hence |ΔA_k| ≤ d_a for each k, and the
        // power amplifies it by g_k = T·(|A_k| + d_a)^{T−1}. Where g_k > 1 (the few low
        // frequencies that carry the T-fold law) A_k is recomputed by a direct, pairwise-summed
        // DFT with a proven componentwise error e_dir, so the T-amplified term does not rest on A2;
        // elsewhere the amplified error is ≤ ‖ΔA‖₂. The input is real, so the exact spectrum is
        // conjugate-symmetric: the first half is powered and mirrored (each error counted twice).
        let nn = size as f64;
        let eta = FFT_ERROR_CONSTANT * nn.log2() * U;
        let a1 = self.finite_total();
        let d_a = eta * nn.sqrt() * self.l2();
        let e_dir = direct_dft_error(self.mass.len(), a1); // n ≥ the number of non-zero terms
        let gain = |r: f64| t * r.powf(t - 1.0);
        // The band: the coefficients with the largest gains, as many as a work budget of about
        // four transforms allows (all with g > 1 in the long compositions that need it).
        let half = size / 2 + 1;
        let mut by_gain: Vec<(f64, usize)> =
            buf[..half].iter().enumerate().map(|(k, z)| (gain(z.norm() + d_a), k)).filter(|g| g.0 > 1.0).collect();
        let nonzero: Vec<(usize, f64)> = self.mass.iter().copied().enumerate().filter(|(_, m)| *m > 0.0).collect();
        let budget = (4.0 * nn * nn.log2() / nonzero.len().max(1) as f64) as usize;
        if by_gain.len() > budget {
            by_gain.sort_unstable_by(|x, y| y.0.total_cmp(&x.0));
            by_gain.truncate(budget);
        }
        let mut in_band = vec![false; half];
        for &(_, k) in &by_gain {
            in_band[k] = true;
        }
        let (mut in_band2, mut out_gain) = (0.0f64, 0.0f64);
        let mut table: Option<Arc<Vec<Complex<f64>>>> = None;
        // Coefficients with |z|^T < 1e-300 are set to 0 (absolute error ≤ 1e-300 each, within
        // the u·√N term below).
        let r2_min = (-1380.0 / t).exp();
        let mut z_norm2 = 0.0;
        for (k, z) in buf.iter_mut().enumerate().take(size / 2 + 1) {
            let mult = if k == 0 || 2 * k == size { 1.0 } else { 2.0 };
            if in_band[k] {
                let tw = table.get_or_insert_with(|| twiddles(size));
                *z = direct_dft(&nonzero, k, tw);
                let ge = gain(z.norm() + e_dir) * e_dir;
                in_band2 += mult * ge * ge;
            } else {
                out_gain = out_gain.max(gain(z.norm() + d_a));
            }
            if z.norm_sqr() < r2_min {
                *z = Complex::new(0.0, 0.0);
                continue;
            }
            let zt = complex_powu(*z, count);
            *z = zt;
            z_norm2 += mult * zt.norm_sqr();
        }
        for k in size / 2 + 1..size {
            buf[k] = buf[size - k].conj();
        }
        fft_plan(size, true).process(&mut buf);
        let scale = 1.0 / size as f64; // exact: size is a power of two
        let base = full_lo; // index of buf[0] in the linear T-fold result
        let mut mass = Vec::with_capacity(w);
        for idx in lo..=hi {
            let j = (idx - base) as usize % size;
            mass.push((buf[j].re * scale).max(0.0));
        }
        // e1: forward errors after the power (in band: proven; out of band: ≤ √2·max g·d_a);
        // e2: binary exponentiation, relative (6T + 70)u, plus underflow (u absolute each);
        // e3: the inverse transform (A2); F⁻¹ divides ℓ2 norms by √N.
        let e1 = up(in_band2.sqrt(), 8.0) + std::f64::consts::SQRT_2 * out_gain * d_a;
        let zn = up(z_norm2.sqrt(), nn + 4.0);
        let e2 = (6.0 * t + 70.0) * U * zn + U * nn.sqrt();
        let e3 = (eta + 2.0 * U) * zn;
        let l2_err = (e1 + e2 + e3) / nn.sqrt();
        let fft_l1 = (w as f64).sqrt() * l2_err;
        let tails = match self.side {
            Side::Upper => 2.0 * (tail_lo + tail_hi),
            Side::Lower => tail_lo + tail_hi,
        };
        let err = up(up(fft_l1 * 1.01, 4.0) + propagated + tails, 8.0);
        let mut out = DiscretePld::from_parts(self.side, self.interval, lo, mass, inf, err)?;
        out.truncate(tail);
        Ok(out)
    }

    fn range_error(&self) -> Error {
        Error::Numerical {
            what: "PLD grid",
            reason: "the composed privacy losses leave the grid's index range (2^33 steps); increase \
                     value_discretization_interval"
                .into(),
        }
    }

    /// `1 − (1 − m_∞)^T`, rounded toward the side.
    fn power_infinity_mass(&self, t: f64) -> f64 {
        let p = self.infinity_mass;
        if p == 0.0 {
            return 0.0;
        }
        if p >= 1.0 {
            return 1.0;
        }
        let v = -(t * (-p).ln_1p()).exp_m1();
        match self.side {
            Side::Upper => up(v, 16.0 + 4.0 * t).min(1.0),
            Side::Lower => down(v, 16.0 + 4.0 * t).max(0.0),
        }
    }

    /// The index window `[lo, hi]` of the `T`-fold sum outside which each tail has mass ≤ τ/2 by
    /// the Chernoff bound `P(S ≥ u) ≤ e^{−tu}M(t)^T` (t > 0) and `P(S ≤ u) ≤ e^{−tu}M(t)^T`
    /// (t < 0), `M(t) = Σ m_i e^{t l_i}`, optimised over a geometric grid of t. Returns the window
    /// and the tail masses it leaves out (τ/2 each, or 0 where the window reaches the support).
    fn chernoff_window(&self, t_count: f64, tau: f64, full_lo: i64, full_hi: i64) -> (i64, i64, f64, f64) {
        let h = self.interval;
        let target = (tau / 2.0).ln();
        let n = self.mass.len();
        // ln M(t) by Horner from the end where e^{t·l} is largest (factors e^{−|t|h} ≤ 1, no
        // overflow), rounded up: it only sets a window, but the tail bound it implies must be an
        // upper bound.
        let log_mgf = |t: f64| -> f64 {
            let rho = (-(t.abs()) * h).exp();
            let mut acc = 0.0f64;
            // t ≥ 0: Σ m_i e^{t(l_i − l_{n−1})} = Σ m_i ρ^{n−1−i} (forward Horner); t < 0:
            // Σ m_i e^{t(l_i − l_0)} = Σ m_i ρ^i (backward Horner).
            let (anchor, s) = if t >= 0.0 {
                for m in self.mass.iter() {
                    acc = acc * rho + m;
                }
                (t * self.loss(n - 1), acc)
            } else {
                for m in self.mass.iter().rev() {
                    acc = acc * rho + m;
                }
                (t * self.loss(0), acc)
            };
            // Horner: each step multiplies by ρ (within 8u, A1) and adds (u): S within 10n·u
            // relative; ln adds 8u, the anchor's product and the sum u each.
            let ls = s.ln();
            let v = anchor + ls;
            v + 11.0 * (n as f64) * U + 10.0 * U * (1.0 + anchor.abs() + ls.abs() + v.abs())
        };
        // The bound u(t) = (T·ln M(t) − ln(τ/2))/t is quasi-convex in t (ln M is convex); search
        // t = 2^k on a coarse grid, then refine around the best by factors 2^{±1/2}.
        let h_idx = |t: f64| -> Option<f64> {
            let u = (t_count * log_mgf(t) - target) / t;
            u.is_finite().then_some(u / h)
        };
        let best = |sign: f64| -> f64 {
            let mut best_t = 1.0;
            let mut best_v = f64::INFINITY;
            let try_t = |t: f64, best_t: &mut f64, best_v: &mut f64| {
                if let Some(v) = h_idx(sign * t).map(|v| sign * v)
                    && v < *best_v
                {
                    *best_v = v;
                    *best_t = t;
                }
            };
            for k in (-12..=30).step_by(2) {
                try_t(2f64.powi(k), &mut best_t, &mut best_v);
            }
            let t = best_t;
            for f in [0.5, std::f64::consts::FRAC_1_SQRT_2, std::f64::consts::SQRT_2, 2.0] {
                try_t(t * f, &mut best_t, &mut best_v);
            }
            sign * best_v
        };
        let (up_idx, down_idx) = (best(1.0), best(-1.0));
        let mut hi = full_hi;
        let mut lo = full_lo;
        if up_idx.is_finite() && up_idx.ceil() < hi as f64 {
            hi = up_idx.ceil() as i64;
        }
        if down_idx.is_finite() && down_idx.floor() > lo as f64 {
            lo = down_idx.floor() as i64;
        }
        if lo > hi {
            return (full_lo, full_hi, 0.0, 0.0);
        }
        let tail_hi = if hi < full_hi { tau / 2.0 } else { 0.0 };
        let tail_lo = if lo > full_lo { tau / 2.0 } else { 0.0 };
        (lo, hi, tail_lo, tail_hi)
    }

    /// Truncates tails of mass ≤ `tail` at each end: pessimistic: the upper tail goes to +∞ and
    /// the lower tail joins the lowest kept point (both move mass to larger losses); optimistic:
    /// both are dropped. The ideal vector undergoes the same index operations, which do not
    /// increase ℓ1 distances, so `E` is unchanged.
    pub(crate) fn truncate(&mut self, tail: f64) {
        let n = self.mass.len();
        if n <= 1 || tail <= 0.0 {
            return;
        }
        let mut top = n;
        let mut cum = 0.0;
        while top > 1 && cum + self.mass[top - 1] <= tail {
            cum += self.mass[top - 1];
            top -= 1;
        }
        if self.side == Side::Upper && cum > 0.0 {
            self.infinity_mass = up(self.infinity_mass + cum, 2.0 + (n - top) as f64).min(1.0);
        }
        self.mass.truncate(top);
        let mut bottom = 0;
        let mut cum = 0.0;
        while bottom + 1 < self.mass.len() && cum + self.mass[bottom] <= tail {
            cum += self.mass[bottom];
            bottom += 1;
        }
        if bottom > 0 {
            if self.side == Side::Upper {
                self.mass[bottom] = up(self.mass[bottom] + cum, 2.0 + bottom as f64);
            }
            self.mass.drain(..bottom);
            self.offset += bottom as i64;
        }
    }
}

/// The linear convolution of two non-negative vectors and an ℓ1 bound on its rounding error.
///
/// Direct summation for small supports: each output is a sum of at most `k = min(len)` products,
/// so the ℓ1 error is ≤ γ_{k+1}·‖a‖₁‖b‖₁. Otherwise by FFT of size `N ≥ len_a + len_b − 1` (no
/// wrap-around), both inputs packed into one complex transform: with `η = c·log₂N·u`
/// ([`FFT_ERROR_CONSTANT`]), the ℓ2 error is at most `(3η + 8u)(‖a‖₁ + ‖b‖₁)(‖a‖₂ + ‖b‖₂)`
/// (proofs/accounting/pld.md §3.5), and ℓ1 ≤ √len·ℓ2.
///
/// # Errors
/// `Numerical` if the FFT would exceed [`MAX_FFT_SIZE`].
pub fn convolve(a: &[f64], b: &[f64]) -> Result<(Vec<f64>, f64)> {
    if a.is_empty() || b.is_empty() {
        return Ok((Vec::new(), 0.0));
    }
    let len = a.len() + b.len() - 1;
    let a1: f64 = a.iter().sum();
    let b1: f64 = b.iter().sum();
    let size = len.next_power_of_two().max(2);
    let direct_cost = a.len() as f64 * b.len() as f64;
    let fft_cost = 12.0 * size as f64 * (size as f64).log2();
    if direct_cost <= fft_cost {
        let mut c = vec![0.0; len];
        for (i, &x) in a.iter().enumerate() {
            if x == 0.0 {
                continue;
            }
            for (j, &y) in b.iter().enumerate() {
                c[i + j] += x * y;
            }
        }
        let k = a.len().min(b.len()) as f64 + 1.0;
        let gamma = k * U / (1.0 - k * U);
        return Ok((c, up(gamma * up(a1 * b1, 4.0 + len as f64), 4.0)));
    }
    if size > MAX_FFT_SIZE {
        return Err(Error::Numerical {
            what: "PLD composition",
            reason: format!(
                "convolution of {len} points exceeds {MAX_FFT_SIZE}; increase value_discretization_interval"
            ),
        });
    }
    let fwd = fft_plan(size, false);
    // Pack a + i·b into one transform: X = A + iB, A_k = (X_k + conj X_{N−k})/2,
    // B_k = (X_k − conj X_{N−k})/(2i); the product A_k B_k = (X_k² − conj(X_{N−k})²)/(4i).
    let mut x = vec![Complex::new(0.0, 0.0); size];
    for (i, &v) in a.iter().enumerate() {
        x[i].re = v;
    }
    for (i, &v) in b.iter().enumerate() {
        x[i].im = v;
    }
    fwd.process(&mut x);
    let mut prod = vec![Complex::new(0.0, 0.0); size];
    for k in 0..size {
        let xk = x[k];
        let xn = x[(size - k) % size].conj();
        prod[k] = (xk * xk - xn * xn) * Complex::new(0.0, -0.25);
    }
    fft_plan(size, true).process(&mut prod);
    let scale = 1.0 / size as f64;
    let c: Vec<f64> = prod[..len].iter().map(|z| z.re * scale).collect();
    let nn = size as f64;
    let eta = FFT_ERROR_CONSTANT * nn.log2() * U;
    let a2 = a.iter().map(|v| v * v).sum::<f64>().sqrt();
    let b2 = b.iter().map(|v| v * v).sum::<f64>().sqrt();
    // One forward transform of a + ib: ‖ΔX‖₂ ≤ η√N(‖a‖₂ + ‖b‖₂); the product moves by
    // ≤ (|X_k||ΔX_k| + |X_{N−k}||ΔX_{N−k}|)/2 with |X| ≤ ‖a‖₁ + ‖b‖₁; the two squares and their
    // difference round by ≤ 8u|X|²; the inverse adds η‖c‖₂ ≤ η‖a‖₁‖b‖₂; F⁻¹ divides by √N.
    let l2 = (3.0 * eta + 8.0 * U) * (a1 + b1) * (a2 + b2);
    Ok((c, up((len as f64).sqrt() * l2 * 1.01, 8.0)))
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

    #[test]
    fn fft_convolution_matches_direct_within_its_bound() {
        let a: Vec<f64> = (0..3000).map(|i| ((i as f64) * 0.37).sin().abs() * 1e-3).collect();
        let b: Vec<f64> = (0..2500).map(|i| ((i as f64) * 0.11).cos().abs() * 1e-3).collect();
        let (fft, bound) = convolve(&a, &b).unwrap();
        let mut direct = vec![0.0; a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                direct[i + j] += x * y;
            }
        }
        let err: f64 = fft.iter().zip(&direct).map(|(x, y)| (x - y).abs()).sum();
        assert!(err <= bound, "{err} > {bound}");
        assert!(bound < 1e-9, "bound {bound} uselessly loose");
    }
}
