//! `audit::accountant`: certified lower bounds on the true ε of described mechanisms, the
//! verdict on claimed ε, the catalogue of broken accountants, and the correct accountants that
//! must never be flagged.

use dpref::Error;
use dpref::accounting::{DpEvent, Neighbouring};
use dpref::audit::accountant::broken;
use dpref::audit::accountant::{Verdict, audit_claim};

#[test]
fn zz_scratch_print() {
    for c in broken::catalogue().unwrap() {
        let t = std::time::Instant::now();
        let v = audit_claim(&c.event, c.claimed_epsilon, c.delta, c.neighbouring).unwrap();
        eprintln!(
            "{}: claimed {} lower {} ({:?}, pld {:?}) upper {:?} {:?} {:?} {:?}",
            c.name,
            c.claimed_epsilon,
            v.lower,
            v.lower_source,
            v.lower_pld,
            v.upper,
            v.upper_source,
            v.verdict,
            t.elapsed()
        );
    }
    let _ = (Error::Empty { what: "x" }, DpEvent::gaussian(1.0), Neighbouring::AddRemove, Verdict::Sound);
}
