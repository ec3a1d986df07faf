//! The fast path of the bounded gradient sum for generalised linear models, beside the reference
//! `super::bounded_gradient_sum` (the reference stays readable; a differential
//! test proves the two agree, `prop_fast_path_matches_reference`).
//!
//! For a GLM, `∇F(w; (x, y)) = ℓ′(⟨x, w⟩, y)·x`, so the norms the clip needs are
//! `‖∇F‖₂ = |ℓ′|·‖x‖₂` and `‖∇F‖_A = |ℓ′|·‖x‖_A`: one fused pass over each row computes the margin
//! and the row norm, a second adds `cᵢ·xᵢ` with `cᵢ = ℓ′·(clip factor)`, and no per-example
//! gradient is materialised. Rows are processed in fixed chunks of [`CHUNK`] in parallel and the
//! chunk sums added in chunk order, so the result does not depend on the thread count. The
//! Euclidean ellipsoid projection has no such closed form and falls back to the reference per row.
//!
//! Differences from the reference are reassociations: `(ℓ′·f)·xⱼ` for `(ℓ′·xⱼ)·f`, chunked sums,
//! and the radial factor `1/‖g‖_A` taken one relative `4u` smaller so that `‖f·g‖_A ≤ 1` holds
//! without the reference's check loop.
//!
//! Proof: proofs/fast_path.md.

use super::GradientBound;
use crate::data::Dataset;
use crate::geometry::{EllipsoidProjection, clip_scale_of_squared};
use crate::loss::Loss;
use rayon::prelude::*;

/// Rows per parallel chunk.
pub const CHUNK: usize = 32;

/// `(⟨x, w⟩, Σ aⱼxⱼ²)` in one pass (`a = None`: `Σ xⱼ²`), with 8 independent accumulators.
fn margin_and_norm2(x: &[f64], w: &[f64], a: Option<&[f64]>) -> (f64, f64) {
    let (mut m, mut s) = ([0.0f64; 8], [0.0f64; 8]);
    let (xc, wc) = (x.chunks_exact(8), w.chunks_exact(8));
    let (xr, wr) = (xc.remainder(), wc.remainder());
    match a {
        None => {
            for (xs, ws) in xc.zip(wc) {
                for l in 0..8 {
                    m[l] += xs[l] * ws[l];
                    s[l] += xs[l] * xs[l];
                }
            }
        }
        Some(a) => {
            let ac = a.chunks_exact(8);
            for ((xs, ws), as_) in xc.zip(wc).zip(ac) {
                for l in 0..8 {
                    m[l] += xs[l] * ws[l];
                    s[l] += as_[l] * xs[l] * xs[l];
                }
            }
        }
    }
    let (mut mm, mut ss) = (m.iter().sum::<f64>(), s.iter().sum::<f64>());
    let tail = x.len() - xr.len();
    for (j, (xv, wv)) in xr.iter().zip(wr).enumerate() {
        mm += xv * wv;
        ss += a.map_or(1.0, |a| a[tail + j]) * xv * xv;
    }
    (mm, ss)
}

/// `acc ← acc + c·row`, 8 lanes at a time.
fn add_scaled(acc: &mut [f64], c: f64, row: &[f64]) {
    let mut ac = acc.chunks_exact_mut(8);
    let mut rc = row.chunks_exact(8);
    for (o, v) in (&mut ac).zip(&mut rc) {
        for l in 0..8 {
            o[l] += c * v[l];
        }
    }
    for (o, v) in ac.into_remainder().iter_mut().zip(rc.remainder()) {
        *o += c * v;
    }
}

/// The coefficient `cᵢ` of row i: `ℓ′` times the clip factor ([`clip_scale_of_squared`]: 0 for a
/// term the factor cannot bound, e.g. an overflowed ℓ′ or a row whose squares underflow).
fn coefficient(loss: Loss, bound: GradientBound<'_>, m: f64, y: f64, norm2: f64) -> f64 {
    let l = loss.derivative_at(m, y);
    let factor = match bound {
        GradientBound::None => return l,
        GradientBound::L2 { clip } => clip_scale_of_squared(l, norm2, clip),
        GradientBound::Ellipsoid { .. } => {
            let f = clip_scale_of_squared(l, norm2, 1.0);
            if f < 1.0 { f * (1.0 - 4.0 * f64::EPSILON) } else { f }
        }
    };
    if factor == 0.0 {
        0.0
    } else if factor == 1.0 {
        l
    } else {
        l * factor
    }
}

/// Same contract as `super::bounded_gradient_sum`.
pub(crate) fn bounded_gradient_sum_glm(
    data: &Dataset,
    loss: Loss,
    x: &[f64],
    batch: &[usize],
    bound: GradientBound<'_>,
    g: &mut [f64],
    out: &mut [f64],
) {
    if let GradientBound::Ellipsoid { kind: EllipsoidProjection::Euclidean, .. } = bound {
        return super::bounded_gradient_sum(data, loss, x, batch, bound, g, out);
    }
    let d = x.len();
    let a = match bound {
        GradientBound::Ellipsoid { a, .. } => Some(a),
        _ => None,
    };
    let partials: Vec<Vec<f64>> = batch
        .par_chunks(CHUNK)
        .map(|rows| {
            let mut acc = vec![0.0; d];
            for &i in rows {
                let row = data.row(i);
                let (m, norm2) = margin_and_norm2(row, x, a);
                let c = coefficient(loss, bound, m, data.label(i), norm2);
                if c != 0.0 {
                    add_scaled(&mut acc, c, row);
                }
            }
            acc
        })
        .collect();
    out.iter_mut().for_each(|v| *v = 0.0);
    for p in &partials {
        for (o, v) in out.iter_mut().zip(p) {
            *o += v;
        }
    }
}
