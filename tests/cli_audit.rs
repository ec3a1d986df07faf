//! `dpref audit samples` (shared/CLI.md): JSON fields, exit code 3 on a violation, exit code 2 on
//! bad input.

mod common;

use common::cli::dpref;

use common::cli_data::TempDir;

/// Laplace(1) outputs of a count query on D (sum 1) and D′ (sum 0), as another program would dump
/// them: true ε = 1.
fn laplace_files(dir: &TempDir, scale: f64) -> (String, String) {
    let mut rng = dpref::rng::Seeds::new(5).stream(dpref::rng::Stream::Audit);
    let mut side = |shift: f64| -> String {
        (0..200_000).map(|_| format!("{}\n", shift + dpref::noise::laplace(&mut rng, scale))).collect()
    };
    let (a, b) = (side(1.0), side(0.0));
    (dir.file("a.txt", &a), dir.file("b.txt", &b))
}

#[test]
fn cli_audit_samples_json_and_exit_codes() {
    let dir = TempDir::new("cli-audit-json");
    let (a, b) = laplace_files(&dir, 1.0);
    // claimed ε = 1 holds: exit 0, no violation
    let o = dpref(&["audit", "samples", "--a", &a, "--b", &b, "--claimed-epsilon", "1", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for f in [
        "epsilon_lower_bound",
        "confidence",
        "delta",
        "n_a",
        "n_b",
        "threshold",
        "direction",
        "claimed_epsilon",
        "violation",
    ] {
        assert!(v.get(f).is_some(), "missing {f}");
    }
    assert_eq!(v["n_a"], 200_000);
    assert_eq!(v["violation"], false);
    assert_eq!(v["confidence"], 0.95);
    let lb = v["epsilon_lower_bound"].as_f64().unwrap();
    assert!(lb > 0.8 && lb <= 1.0, "{lb}");
    assert!(v["direction"] == "a>b" || v["direction"] == "b>a");
    // claimed ε = 0.5 is refuted: exit 3
    let o = dpref(&["audit", "samples", "--a", &a, "--b", &b, "--claimed-epsilon", "0.5", "--json"]);
    assert_eq!(o.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["violation"], true);
    // no claim: exit 0, claimed_epsilon null
    let o = dpref(&["audit", "samples", "--a", &a, "--b", &b, "--json", "--threshold-strategy", "split"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["claimed_epsilon"].is_null());
}

#[test]
fn cli_audit_samples_bad_input_exits_2() {
    let dir = TempDir::new("cli-audit-bad");
    let good = dir.file("good.txt", "1\n2\n3\n");
    let cases: Vec<Vec<String>> = vec![
        vec!["--a".into(), dir.file("empty.txt", ""), "--b".into(), good.clone()],
        vec!["--a".into(), dir.file("text.txt", "1\nhello\n"), "--b".into(), good.clone()],
        vec!["--a".into(), dir.file("nan.txt", "1\nNaN\n"), "--b".into(), good.clone()],
        vec!["--a".into(), good.clone(), "--b".into(), "/no/such/file".into()],
        vec!["--a".into(), good.clone(), "--b".into(), good.clone(), "--confidence".into(), "1".into()],
        vec!["--a".into(), good.clone(), "--b".into(), good.clone(), "--confidence".into(), "0".into()],
        vec!["--a".into(), good.clone(), "--b".into(), good.clone(), "--delta".into(), "1".into()],
        vec!["--a".into(), good.clone(), "--b".into(), good.clone(), "--delta".into(), "-0.1".into()],
        vec!["--a".into(), good.clone(), "--b".into(), good.clone(), "--claimed-epsilon".into(), "NaN".into()],
    ];
    for extra in cases {
        let mut args = vec!["audit".to_string(), "samples".to_string()];
        args.extend(extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = dpref(&refs);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{refs:?}: {err}");
        assert!(err.starts_with("error: ") && err.trim_end().lines().count() == 1, "{refs:?}: {err}");
    }
}
