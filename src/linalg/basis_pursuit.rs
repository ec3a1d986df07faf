//! Basis pursuit with a duality certificate: `min ‖z‖₁ s.t. Az = b` for a wide matrix A (m ≤ d,
//! full row rank), and the i.i.d. Gaussian measurement matrices of compressed sensing.
//!
//! Solver: ADMM on `min ‖z‖₁ + 1{Ax = b}` subject to x = z (Boyd et al. 2011, Sec. 6.2), with the
//! Cholesky factor `AAᵀ = LLᵀ` (faer) computed once:
//! ```text
//! x ← Π(z − u),   Π(v) = v − Aᵀ(AAᵀ)⁻¹(Av − b)          (projection onto {Ax = b})
//! z ← soft(x + u, 1/ρ)
//! u ← u + x − z                                          (scaled dual; ‖ρu‖_∞ ≤ 1 after every step)
//! ρ ← residual balancing (×2 or ÷2, u rescaled; Π does not depend on ρ, so this costs nothing)
//! ```
//! Certificate (every `check_every` iterations and at the end):
//! ```text
//! primal  p = Π(z), refined once (exactly feasible up to the reported residual ‖Ap − b‖₂)
//! dual    y = (AAᵀ)⁻¹A(ρu) (ADMM) or A_T⁻ᵀs (polish), scaled so that ‖Aᵀy‖_∞ ≤ 1 − 1e-12 as evaluated
//! gap     ‖p‖₁ − bᵀy  ≥ ‖p‖₁ − OPT   (weak duality: ‖z‖₁ ≥ ⟨Az, y⟩ = bᵀy for every feasible z)
//! ```
//! A solution is returned only when `gap ≤ gap_tol·‖p‖₁` and `‖Ap − b‖₂ ≤ residual_tol·‖b‖₂`;
//! otherwise the iteration budget ends with a typed `Numerical` error carrying the gap reached.
//! Exact optimality is never needed for privacy (the solver is post-processing); the certificate
//! says how far from the optimum the returned point is.
//!
//! Proof: proofs/sparse/gaussian_l1_recovery.md (§2, the basis pursuit rows, and §6).

use crate::error::{Error, Result, check};
use crate::geometry::soft_threshold;
use crate::linalg::{dot, norm_l1, norm_l2, norm_linf};
use crate::rng::DpRng;
use faer::linalg::solvers::{Llt, Solve};
use faer::{ColRef, Mat, Side};

/// The dual point is scaled to `‖Aᵀy‖_∞ ≤ 1 − 1e-12` as evaluated.
const DUAL_TARGET: f64 = 1.0 - 1e-12;

/// i.i.d. `N(0, std²)` entries for an m×d matrix, drawn row by row (entry (i, j) is draw
/// `i·d + j` of `rng`), e.g. the measurement matrix `A ~ N(0, 1/m)^{m×d}` of \[GGKKM\]
/// Algorithm 2 with `std = 1/√m`.
///
/// # Errors
/// `InvalidParameter` for m = 0, d = 0 or a std that is not finite and positive.
pub fn gaussian_matrix(rng: &mut DpRng, m: usize, d: usize, std: f64) -> Result<Mat<f64>> {
    if m == 0 || d == 0 {
        return Err(Error::invalid("matrix shape", format!("{m}x{d}"), "m >= 1 and d >= 1"));
    }
    let std = check::positive("entry std", std)?;
    let mut a = Mat::<f64>::zeros(m, d);
    for i in 0..m {
        for j in 0..d {
            a[(i, j)] = std * crate::noise::standard_normal(rng);
        }
    }
    Ok(a)
}

/// How far basis pursuit iterates and what it certifies.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BasisPursuitSettings {
    /// Relative duality gap required: `‖p‖₁ − bᵀy ≤ gap_tol·‖p‖₁`.
    pub gap_tol: f64,
    /// Relative feasibility required: `‖Ap − b‖₂ ≤ residual_tol·‖b‖₂`.
    pub residual_tol: f64,
    /// The iteration budget.
    pub max_iterations: usize,
    /// Iterations between two certificate checks.
    pub check_every: usize,
    /// The pivot budget of one simplex polish.
    pub max_pivots: usize,
}

impl Default for BasisPursuitSettings {
    /// gap 1e-6 (relative), residual 1e-9 (relative), 20 000 iterations, a check every 10,
    /// 2 000 pivots per polish.
    fn default() -> Self {
        BasisPursuitSettings {
            gap_tol: 1e-6,
            residual_tol: 1e-9,
            max_iterations: 20_000,
            check_every: 10,
            max_pivots: 2_000,
        }
    }
}

/// A certified basis pursuit solution (see the module doc).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BasisPursuitSolution {
    /// p: the primal point, feasible up to `residual`.
    pub z: Vec<f64>,
    /// y: the dual point, `‖Aᵀy‖_∞ ≤ 1 − 1e-12` (as evaluated; `dual_linf` reports it).
    pub y: Vec<f64>,
    /// ‖p‖₁.
    pub primal_value: f64,
    /// bᵀy: a lower bound on the optimum (weak duality).
    pub dual_value: f64,
    /// ‖p‖₁ − bᵀy ≥ 0 (clamped at 0 only if rounding makes it negative).
    pub gap: f64,
    /// ‖Ap − b‖₂.
    pub residual: f64,
    /// ‖Aᵀy‖_∞ ≤ 1.
    pub dual_linf: f64,
    /// ADMM iterations run.
    pub iterations: usize,
    /// Simplex pivots of the polish that produced the certificate (0: ADMM's own iterate).
    pub pivots: usize,
}

/// A wide matrix A (m ≤ d) with its Cholesky factor `AAᵀ = LLᵀ`: the constraint of basis pursuit,
/// factored once for any number of right-hand sides.
#[derive(Debug)]
#[allow(non_snake_case)]
pub struct MeasurementSystem {
    A: Mat<f64>,
    llt: Llt<f64>,
}

impl MeasurementSystem {
    /// Factors `AAᵀ`.
    ///
    /// # Errors
    /// `InvalidParameter` for m > d or an empty A; `NonFinite` for a NaN/∞ entry; `Numerical` if
    /// `AAᵀ` is not positive definite as evaluated (A not of full row rank).
    #[allow(non_snake_case)]
    pub fn new(A: Mat<f64>) -> Result<Self> {
        let (m, d) = (A.nrows(), A.ncols());
        if m == 0 || m > d {
            return Err(Error::invalid("measurement matrix shape", format!("{m}x{d}"), "1 <= m <= d"));
        }
        for j in 0..d {
            for i in 0..m {
                if !A[(i, j)].is_finite() {
                    return Err(Error::NonFinite { what: "measurement matrix", index: i * d + j });
                }
            }
        }
        let gram = &A * A.transpose();
        let llt = gram.llt(Side::Lower).map_err(|e| Error::Numerical {
            what: "basis pursuit",
            reason: format!("A·Aᵀ is not positive definite as evaluated ({e:?}): A has no full row rank"),
        })?;
        Ok(MeasurementSystem { A, llt })
    }

    /// m (rows).
    pub fn m(&self) -> usize {
        self.A.nrows()
    }

    /// d (columns).
    pub fn d(&self) -> usize {
        self.A.ncols()
    }

    /// A.
    pub fn matrix(&self) -> &Mat<f64> {
        &self.A
    }

    /// `Ax` (x of length d).
    pub fn apply(&self, x: &[f64]) -> Vec<f64> {
        debug_assert_eq!(x.len(), self.d(), "invariant: x has d entries");
        let r = &self.A * ColRef::from_slice(x);
        r.as_ref().iter().copied().collect()
    }

    /// `Aᵀy` (y of length m).
    pub fn apply_transpose(&self, y: &[f64]) -> Vec<f64> {
        debug_assert_eq!(y.len(), self.m(), "invariant: y has m entries");
        let r = self.A.transpose() * ColRef::from_slice(y);
        r.as_ref().iter().copied().collect()
    }

    /// `(AAᵀ)⁻¹ r`.
    fn solve_gram(&self, r: &[f64]) -> Vec<f64> {
        let mut rhs = Mat::<f64>::from_fn(r.len(), 1, |i, _| r[i]);
        self.llt.solve_in_place(rhs.as_mut());
        (0..r.len()).map(|i| rhs[(i, 0)]).collect()
    }

    /// One correction `v ← v − Aᵀ(AAᵀ)⁻¹(Av − b)`.
    fn correct(&self, v: &mut [f64], b: &[f64]) {
        let mut r = self.apply(v);
        for (ri, bi) in r.iter_mut().zip(b) {
            *ri -= bi;
        }
        let w = self.apply_transpose(&self.solve_gram(&r));
        for (vi, wi) in v.iter_mut().zip(&w) {
            *vi -= wi;
        }
    }

    /// The Euclidean projection of v onto `{x : Ax = b}`.
    pub fn project(&self, v: &[f64], b: &[f64]) -> Vec<f64> {
        let mut x = v.to_vec();
        self.correct(&mut x, b);
        x
    }

    /// The certificate of the primal candidate z and the dual candidate y (see the module doc).
    fn certify(&self, z: &[f64], mut y: Vec<f64>, b: &[f64], iterations: usize, pivots: usize) -> BasisPursuitSolution {
        // primal: Π(z), then one refinement step (iterative refinement of the Cholesky solve)
        let mut p = z.to_vec();
        self.correct(&mut p, b);
        self.correct(&mut p, b);
        let mut r = self.apply(&p);
        for (ri, bi) in r.iter_mut().zip(b) {
            *ri -= bi;
        }
        let residual = norm_l2(&r);
        // dual: y scaled into {‖Aᵀy‖_∞ ≤ 1}
        let dual_linf = norm_linf(&self.apply_transpose(&y));
        if dual_linf > DUAL_TARGET {
            // divide, then re-evaluate: the scaled y is checked as evaluated, not assumed; the
            // target 1 − 1e-12 leaves room for another summation order of Aᵀy (a few ulps)
            let scale = (dual_linf / DUAL_TARGET).next_up();
            y.iter_mut().for_each(|v| *v /= scale);
        }
        let dual_linf = norm_linf(&self.apply_transpose(&y));
        let primal_value = norm_l1(&p);
        let dual_value = dot(b, &y);
        let gap = (primal_value - dual_value).max(0.0);
        BasisPursuitSolution { z: p, y, primal_value, dual_value, gap, residual, dual_linf, iterations, pivots }
    }

    /// Basis pursuit `min ‖z‖₁ s.t. Az = b` by ADMM, certified (see the module doc).
    ///
    /// # Errors
    /// `InvalidParameter` for b of the wrong length or settings out of range (tolerances not
    /// finite and positive, `check_every` = 0); `NonFinite` for a NaN/∞ in b; `Numerical` when the
    /// budget ends before the certificate meets the tolerances (the message gives the gap and
    /// residual reached).
    pub fn basis_pursuit(&self, b: &[f64], settings: &BasisPursuitSettings) -> Result<BasisPursuitSolution> {
        let (m, d) = (self.m(), self.d());
        if b.len() != m {
            return Err(Error::invalid("measurements b", b.len(), "of length m (the rows of A)"));
        }
        check::all_finite("measurements b", b)?;
        check::positive("gap tolerance", settings.gap_tol)?;
        check::positive("residual tolerance", settings.residual_tol)?;
        if settings.check_every == 0 {
            return Err(Error::invalid("check_every", 0, ">= 1"));
        }
        let b_norm = norm_l2(b);
        let accept = |c: &BasisPursuitSolution| {
            c.gap <= settings.gap_tol * c.primal_value
                && c.residual <= settings.residual_tol * b_norm
                && c.dual_linf <= 1.0
        };
        // start: the minimum-norm solution x₀ = Aᵀ(AAᵀ)⁻¹b; ρ on the scale of its entries
        let x0 = self.apply_transpose(&self.solve_gram(b));
        let scale = norm_l1(&x0) / d as f64;
        if scale == 0.0 {
            let c = self.certify(&x0, vec![0.0; m], b, 0, 0);
            return if accept(&c) { Ok(c) } else { Err(not_certified(&c)) };
        }
        let rho = 1.0 / scale;
        let mut earliest_polish = 0;
        let (mut z, mut u) = (x0.clone(), vec![0.0; d]);
        let mut v = vec![0.0; d];
        let mut last = None;
        for k in 1..=settings.max_iterations {
            // x ← Π(z − u)
            for j in 0..d {
                v[j] = z[j] - u[j];
            }
            let x = self.project(&v, b);
            // z ← soft(x + u, 1/ρ)
            z = x.iter().zip(&u).map(|(a, c)| a + c).collect();
            soft_threshold(&mut z, 1.0 / rho)?;
            // u ← u + x − z
            for j in 0..d {
                u[j] += x[j] - z[j];
            }
            if k % settings.check_every == 0 || k == settings.max_iterations {
                let w: Vec<f64> = u.iter().map(|ui| rho * ui).collect();
                let c = self.certify(&z, self.solve_gram(&self.apply(&w)), b, k, 0);
                if accept(&c) {
                    return Ok(c);
                }
                // the vertex polish: when ADMM's gap is below 1e-3 relative or at iteration 500;
                // after an attempt, not again before the iteration count doubled
                if k >= earliest_polish && (c.gap <= 1e-3 * c.primal_value || k >= 500) {
                    earliest_polish = 2 * k;
                    if let Some((p, y, pivots)) = self.simplex_polish(&z, &w, b, settings.max_pivots) {
                        let c = self.certify(&p, y, b, k, pivots);
                        if accept(&c) {
                            return Ok(c);
                        }
                    }
                }
                last = Some(c);
            }
        }
        let c = last.expect("invariant: the last iteration checks");
        Err(not_certified(&c))
    }
}

impl MeasurementSystem {
    /// The columns `T` of A as an m×m matrix, its LU factor, and `x_T = A_T⁻¹ b` (`None` if the
    /// solve is not finite: A_T singular as evaluated).
    fn basis_solve(&self, t: &[usize], b: &[f64]) -> Option<(faer::linalg::solvers::PartialPivLu<f64>, Vec<f64>)> {
        let m = self.m();
        let a_t = Mat::<f64>::from_fn(m, m, |i, k| self.A[(i, t[k])]);
        let lu = a_t.partial_piv_lu();
        let mut rhs = Mat::<f64>::from_fn(m, 1, |i, _| b[i]);
        lu.solve_in_place(rhs.as_mut());
        let x: Vec<f64> = (0..m).map(|i| rhs[(i, 0)]).collect();
        x.iter().all(|v| v.is_finite()).then_some((lu, x))
    }

    /// The vertex polish: the primal simplex method on `min 1ᵀ(u + v) s.t. A(u − v) = b, u, v ≥ 0`
    /// from the basis of the m largest |z_j| (the ADMM iterate; ties, e.g. zeros, broken by the
    /// largest |w_j|, w = ρu ≈ Aᵀy: complementary slackness puts the support where |w_j| = 1),
    /// each basic column `s_i a_{T_i}`
    /// signed so that its value `|x_{T_i}|` is ≥ 0. Per pivot: `y = A_T⁻ᵀ s`; the entering column
    /// is the non-basic j of largest |a_jᵀy| > 1 (reduced cost `1 − |a_jᵀy| < 0`, Dantzig's rule),
    /// the leaving one by the ratio test. Optimal when `‖Aᵀy‖_∞ ≤ 1 + 1e-12`. Returns (primal, y,
    /// pivots), or `None` (singular basis, no leaving column, or the pivot budget spent).
    fn simplex_polish(
        &self,
        z: &[f64],
        w: &[f64],
        b: &[f64],
        max_pivots: usize,
    ) -> Option<(Vec<f64>, Vec<f64>, usize)> {
        let (m, d) = (self.m(), self.d());
        let mut order: Vec<usize> = (0..d).collect();
        let key = |j: usize| (z[j].abs(), w[j].abs());
        order.sort_by(|&i, &j| {
            let (a, c) = (key(i), key(j));
            c.0.total_cmp(&a.0).then(c.1.total_cmp(&a.1)).then(i.cmp(&j))
        });
        let mut t: Vec<usize> = order[..m].to_vec();
        let mut basic = vec![false; d];
        t.iter().for_each(|&j| basic[j] = true);
        for pivots in 0..=max_pivots {
            let (lu, x_t) = self.basis_solve(&t, b)?;
            let s: Vec<f64> = x_t.iter().map(|v| if *v < 0.0 { -1.0 } else { 1.0 }).collect();
            let mut rhs = Mat::<f64>::from_fn(m, 1, |i, _| s[i]);
            lu.solve_transpose_in_place(rhs.as_mut());
            let y: Vec<f64> = (0..m).map(|i| rhs[(i, 0)]).collect();
            let g = self.apply_transpose(&y);
            let entering = (0..d).filter(|&j| !basic[j]).max_by(|&i, &j| g[i].abs().total_cmp(&g[j].abs()));
            let Some(j) = entering.filter(|&j| g[j].abs() > 1.0 + 1e-12) else {
                let mut p = vec![0.0; d];
                t.iter().zip(&x_t).for_each(|(&k, &v)| p[k] = v);
                return y.iter().all(|v| v.is_finite()).then_some((p, y, pivots));
            };
            // w = B⁻¹(σ a_j), B = A_T diag(s): w_i = s_i (A_T⁻¹ σ a_j)_i
            let sigma = g[j].signum();
            let mut col = Mat::<f64>::from_fn(m, 1, |i, _| sigma * self.A[(i, j)]);
            lu.solve_in_place(col.as_mut());
            let leaving = (0..m)
                .filter_map(|i| {
                    let w = s[i] * col[(i, 0)];
                    (w > 1e-12).then(|| ((s[i] * x_t[i]).max(0.0) / w, i))
                })
                .min_by(|a, c| a.0.total_cmp(&c.0).then(a.1.cmp(&c.1)))?;
            basic[t[leaving.1]] = false;
            basic[j] = true;
            t[leaving.1] = j;
        }
        None
    }
}

fn not_certified(c: &BasisPursuitSolution) -> Error {
    Error::Numerical {
        what: "basis pursuit",
        reason: format!(
            "not certified within {} iterations: duality gap {:e} of primal {:e}, residual {:e}",
            c.iterations, c.gap, c.primal_value, c.residual
        ),
    }
}
