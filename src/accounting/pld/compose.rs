//! Composition of discretised PLDs: two PLDs by convolution, one PLD with itself `T` times by
//! one powered FFT on a Chernoff window, and the tail truncation both apply.

use super::fft::{complex_powu, convolve, direct_dft, direct_dft_error, fft_plan, twiddles};
use super::interval::U;
use super::pmf::{DiscretePld, FFT_ERROR_CONSTANT, MAX_FFT_SIZE, MAX_INDEX, Side, down, up};
use crate::error::{Error, Result};
use rustfft::num_complex::Complex;
use std::sync::Arc;

impl DiscretePld {
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
        let t = crate::special::count_up(count);
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
