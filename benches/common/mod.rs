//! Helpers shared by the benches (a folder, so that cargo does not take it for a bench target).

use std::time::{Duration, Instant};

/// The mean wall time of `reps` calls of `f`, after one warm-up call.
pub fn mean_time(mut f: impl FnMut(), reps: u32) -> Duration {
    f(); // warm-up
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed() / reps
}
