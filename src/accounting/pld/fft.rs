//! The FFT machinery behind PLD composition: cached plans and twiddle tables, a direct DFT
//! with a proven error, and the linear convolution of two mass vectors.

use super::interval::U;
use super::pmf::{FFT_ERROR_CONSTANT, MAX_FFT_SIZE, up};
use crate::error::{Error, Result};
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};
use std::sync::{Arc, Mutex, OnceLock};

/// FFT plans are cached across calls (computing the twiddle factors of a 2¹⁶-point plan costs
/// about as much as running it).
pub(super) fn fft_plan(size: usize, inverse: bool) -> Arc<dyn Fft<f64>> {
    static PLANNER: OnceLock<Mutex<FftPlanner<f64>>> = OnceLock::new();
    let planner = PLANNER.get_or_init(|| Mutex::new(FftPlanner::new()));
    let mut p = planner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if inverse { p.plan_fft_inverse(size) } else { p.plan_fft_forward(size) }
}

/// The table `e^{−2πi r/N}`, r = 0..N, cached per size. Each entry is computed from the angle
/// `2π·(r/N)` (r/N exact, `TAU` and the product rounded: ≤ 2u·2π < 12.6u absolute) with `cos` and
/// `sin` (A1: 8u), so each component is within 20.6u and the entry within 30u of `e^{−2πi r/N}`.
pub(super) fn twiddles(size: usize) -> Arc<Vec<Complex<f64>>> {
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
pub(super) fn direct_dft(nonzero: &[(usize, f64)], k: usize, tw: &[Complex<f64>]) -> Complex<f64> {
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
pub(super) fn direct_dft_error(n: usize, a1: f64) -> f64 {
    let depth = (n.max(2) as f64).log2().ceil();
    up(std::f64::consts::SQRT_2 * (depth + 16.0 + 23.0) * 1.01 * U * a1, 4.0)
}

/// `z^k` by binary exponentiation (relative error ≤ (6k + 70)u: each complex product adds at most
/// √5·u relative, and the error of the factor `z^{2^j}` is amplified by the remaining exponent).
pub(super) fn complex_powu(z: Complex<f64>, mut k: u64) -> Complex<f64> {
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
