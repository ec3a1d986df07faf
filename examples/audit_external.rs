//! Audit another implementation from its dumped outputs, through the library API.
//!
//! ```sh
//! python3 examples/external/laplace_count.py --out /tmp/audit     # a buggy Python mechanism
//! cargo run --release --example audit_external -- /tmp/audit/a.txt /tmp/audit/b.txt 1.0
//! ```
//!
//! The same audit is `dpref audit samples --a ... --b ... --claimed-epsilon 1` on the command line.

use dpref::audit::samples::read_samples;
use dpref::audit::{AuditSettings, epsilon_lower_bound};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: audit_external <outputs on D> <outputs on D'> <claimed epsilon>");
        return ExitCode::from(2);
    }
    let run = || -> dpref::Result<bool> {
        let claimed: f64 =
            args[3].parse().map_err(|_| dpref::Error::invalid("claimed epsilon", &args[3], "a number"))?;
        let (a, b) = (read_samples(Path::new(&args[1]))?, read_samples(Path::new(&args[2]))?);
        let bound = epsilon_lower_bound(&a, &b, &AuditSettings { delta: 0.0, confidence: 0.95, ..Default::default() })?;
        println!(
            "certified: epsilon >= {:.4} with confidence {} ({} and {} samples)",
            bound.epsilon, bound.confidence, bound.n_a, bound.n_b
        );
        println!("attack threshold {:?} ({:?}, {:?})", bound.threshold, bound.direction, bound.region);
        Ok(bound.epsilon > claimed)
    };
    match run() {
        Ok(true) => {
            println!("VIOLATION: the claimed epsilon {} is refuted", args[3]);
            ExitCode::from(3)
        }
        Ok(false) => {
            println!("no violation of the claimed epsilon {} found", args[3]);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
