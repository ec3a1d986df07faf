//! The papers' experiments and settings behind `dpref reproduce`.

pub mod adaptive_noise;
pub mod dp2;
pub mod dpagd;
pub mod plot;
pub mod privacy_table;

/// The median of `v` (sorted in place; the mean of the two middle values for even lengths).
pub(crate) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { 0.5 * (v[m - 1] + v[m]) }
}
