//! Loading golden vectors (`golden/**.json`) and comparing against them with the directions of
//! STYLE (b) 13: `two_sided` (|ours − ref| ≤ rtol·|ref|) and `ours_ge_ref` (an upper bound:
//! ref ≤ ours ≤ ref·(1 + rtol)).

use serde_json::Value;

/// Parses `golden/<rel>`.
pub fn load(rel: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("golden").join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A JSON number, or a decimal string (25-digit mpmath values; Rust's parser rounds to nearest),
/// or `"inf"`.
pub fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().expect("f64"),
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) => s.parse().unwrap_or_else(|e| panic!("not a number: {s}: {e}")),
        other => panic!("not a number: {other}"),
    }
}

/// `ours` is an upper bound on `reference` and within `rtol` of it.
pub fn assert_ge_ref(ours: f64, reference: f64, rtol: f64, label: &str) {
    assert_ge_ref_atol(ours, reference, rtol, 0.0, label);
}

/// `reference ≤ ours ≤ reference + rtol·|reference| + atol`.
pub fn assert_ge_ref_atol(ours: f64, reference: f64, rtol: f64, atol: f64, label: &str) {
    assert!(ours >= reference, "{label}: ours {ours:e} is BELOW the reference {reference:e} (under-report)");
    assert!(
        ours <= reference + rtol * reference.abs() + atol,
        "{label}: ours {ours:e} exceeds the reference {reference:e} by more than rtol {rtol:e} + atol {atol:e} (rel {:e})",
        (ours - reference) / reference
    );
}

/// `|ours − reference| ≤ rtol·|reference|`.
pub fn assert_two_sided(ours: f64, reference: f64, rtol: f64, label: &str) {
    assert!(
        (ours - reference).abs() <= rtol * reference.abs(),
        "{label}: ours {ours:e} vs reference {reference:e} (rel {:e} > {rtol:e})",
        (ours - reference) / reference
    );
}

/// `v` rounded to 10 significant digits (the golden snapshots' precision), as JSON; 0 and
/// non-finite values as they are.
pub fn round(v: f64) -> Value {
    if v == 0.0 || !v.is_finite() {
        return serde_json::json!(v);
    }
    serde_json::json!(format!("{v:.9e}").parse::<f64>().unwrap())
}

/// Every entry of `xs` through [`round`], as a JSON array.
pub fn rounded(xs: &[f64]) -> Value {
    Value::Array(xs.iter().map(|&v| round(v)).collect())
}

/// The snapshot of a seeded run: its output and last iterates, steps, events and (ε, σ).
pub fn run_summary(run: &dpref::optim::Run) -> Value {
    serde_json::json!({
        "x": rounded(&run.x),
        "x_last": rounded(&run.x_last),
        "steps": run.steps,
        "events": format!("{:?}", run.events.as_event()),
        "epsilon": run.privacy.epsilon.map(round),
        "sigma": round(run.privacy.sigma),
    })
}

/// Asserts `v` against the insta snapshot `golden/optim/<name>.snap`.
pub fn snapshot(name: &str, v: Value) {
    insta::with_settings!({ snapshot_path => "../../golden/optim", prepend_module_to_snapshot => false }, {
        insta::assert_json_snapshot!(name, v);
    });
}
