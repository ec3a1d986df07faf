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
