//! Assertions shared by the bounds tests.

use dpref::Error;

/// `|a − b| ≤ tol·max(|a|, |b|)`.
pub fn assert_rel(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol * a.abs().max(b.abs()), "{what}: {a} vs {b} (rel tol {tol})");
}

/// `r` is `InvalidParameter` naming `name`.
pub fn invalid(r: Result<impl std::fmt::Debug, Error>, name: &str) {
    match r {
        Err(Error::InvalidParameter { name: n, .. }) => assert_eq!(n, name, "wrong parameter named"),
        other => panic!("expected InvalidParameter({name}), got {other:?}"),
    }
}

/// For extreme inputs: `Err` is acceptable, `Ok(v)` must have every value `values(&v)` finite
/// (never ∞ or NaN in `Ok`).
pub fn finite_or_err<T: std::fmt::Debug>(r: Result<T, Error>, values: impl Fn(&T) -> Vec<f64>, what: &str) {
    if let Ok(v) = &r {
        assert!(values(v).iter().all(|x| x.is_finite()), "{what}: Ok({v:?}) is not finite");
    }
}

/// Positive magnitudes from 1e-300 to 1e300 for the extreme-input property tests.
pub const EXTREME_POSITIVE: [f64; 5] = [1e-300, 1e-10, 1.0, 1e10, 1e300];

/// The one value of a scalar result, for [`finite_or_err`].
pub fn scalar(v: &f64) -> Vec<f64> {
    vec![*v]
}

/// The two values of a pair result, for [`finite_or_err`].
pub fn pair(v: &(f64, f64)) -> Vec<f64> {
    vec![v.0, v.1]
}

/// Runs `f` on a thread and returns its value, failing if it has not returned within `seconds`:
/// a hang becomes a failure instead of a stalled suite (the thread is left behind). The limit
/// is a guard against non-termination, far above any expected time, not a speed assertion.
pub fn returns_within<T: Send + 'static>(seconds: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(seconds))
        .unwrap_or_else(|_| panic!("{what}: did not return within {seconds} s"))
}
