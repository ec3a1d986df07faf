//! The command-line contract (shared/CLI.md), driven through the real binary: JSON fields, exit
//! codes, one-line errors.

mod common;

use common::cli::{assert_refused, dpref, json, stderr};

const G2: &[&str] = &["--batch-size", "256", "--dataset-size", "60000", "--steps", "14063", "--delta", "1e-5"];

#[test]
fn cli_account_json_has_the_contract_fields() {
    let mut args = vec!["account", "--sigma", "1.1", "--json"];
    args.extend_from_slice(G2);
    let v = json(&args);
    for field in ["epsilon", "delta", "accountant", "order", "sampling", "neighbouring", "steps", "sigma"] {
        assert!(v.get(field).is_some(), "missing {field}");
    }
    assert_eq!(v["accountant"], "rdp");
    assert_eq!(v["sampling"], "poisson");
    assert_eq!(v["neighbouring"], "add-remove");
    assert_eq!(v["steps"], 14063);
    assert_eq!(v["order"], 8.1);
    // anchors G2: improved conversion 2.59666 at order 8.1 (dp_accounting 0.6.0, rtol 1e-5 as printed)
    let eps = v["epsilon"].as_f64().unwrap();
    assert!((eps - 2.59666).abs() < 1e-5, "{eps}");
}

#[test]
fn cli_account_classic_conversion_matches_tf_tutorial() {
    let mut args = vec!["account", "--sigma", "1.1", "--json", "--conversion", "classic"];
    args.extend_from_slice(G2);
    let v = json(&args);
    // anchors A.5: the TF tutorial's "3.01" is the classic conversion, 3.0084.
    assert!((v["epsilon"].as_f64().unwrap() - 3.0084).abs() < 1e-4);
}

#[test]
fn cli_account_same_input_same_bytes() {
    let mut args = vec!["account", "--sigma", "0.9", "--json"];
    args.extend_from_slice(G2);
    assert_eq!(dpref(&args).stdout, dpref(&args).stdout);
}

#[test]
fn cli_account_without_replacement_replace_one_uses_sensitivity_2c() {
    // σ = 2.2 under replace-one is the event multiplier 1.1 of anchors A.7 (5.2435 at order 5).
    let v = json(&[
        "account",
        "--sigma",
        "2.2",
        "--sampling",
        "without-replacement",
        "--batch-size",
        "256",
        "--dataset-size",
        "60000",
        "--steps",
        "14063",
        "--delta",
        "1e-5",
        "--neighbouring",
        "replace-one",
        "--json",
    ]);
    assert_eq!(v["effective_noise_multiplier"], 1.1);
    assert!((v["epsilon"].as_f64().unwrap() - 5.2435).abs() < 1e-4, "{v}");
    assert_eq!(v["order"], 5.0);
}

#[test]
fn cli_account_full_batch_is_unsampled_gaussian() {
    // T = 4 full-batch releases at σ = 2: RDP 4α/(2·4) = α/2 per the accountant; the ε must be
    // at least the exact analytic value for μ = √4/2 = 1 (anchors G8 family).
    let v = json(&["account", "--sigma", "2", "--sampling", "full", "--steps", "4", "--delta", "1e-5", "--json"]);
    let exact = dpref::accounting::gdp::epsilon_for_delta(1.0, 1e-5).unwrap();
    let eps = v["epsilon"].as_f64().unwrap();
    assert!(eps >= exact && eps < 1.3 * exact, "{eps} vs exact {exact}");
}

#[test]
fn cli_calibrate_never_overshoots_and_reports_json() {
    let mut args = vec!["calibrate", "--target-epsilon", "2", "--json"];
    args.extend_from_slice(G2);
    let v = json(&args);
    let (sigma, eps) = (v["sigma"].as_f64().unwrap(), v["epsilon"].as_f64().unwrap());
    assert!((0.99 * 2.0..=2.0).contains(&eps), "{eps}");
    // Re-account the returned σ independently through `account`.
    let s = sigma.to_string();
    let mut args = vec!["account", "--sigma", &s, "--json"];
    args.extend_from_slice(G2);
    let w = json(&args);
    assert_eq!(w["epsilon"].as_f64().unwrap(), eps, "sigma {s} calibrate {v} account {w}");
}

/// The PLD's certified ε is +∞ below some σ at a tiny δ (its discretisation's tail mass exceeds
/// δ): calibrating there used to exit 0 with σ = 57320 at δ = 1e-30 (RDP meets ε* = 1 at
/// σ ≈ 11.3: ~5000× too much noise), claiming "the smallest sigma" after a "jump from inf". It
/// is now one `error:` line naming the cause and the RDP accountant, which does calibrate
/// (σ < 12, re-accounted by `account` to ε ≤ 1). At δ = 1e-300 (infinite for every σ ≤ 1e8)
/// the error names the same cause instead of "target not met".
#[test]
fn cli_calibrate_pld_at_a_tiny_delta_is_an_error_naming_the_floor() {
    for delta in ["1e-30", "1e-300"] {
        let args = ["calibrate", "--target-epsilon", "1", "--delta", delta, "--steps", "1", "--q", "1"];
        assert_refused(&[&args[..], &["--accountant", "pld"]].concat(), &["infinite", "--accountant rdp"]);
        let v = json(&[&args[..], &["--json"]].concat());
        let (sigma, eps) = (v["sigma"].as_f64().unwrap(), v["epsilon"].as_f64().unwrap());
        assert!(sigma < 40.0 && (0.999..=1.0).contains(&eps) && v["within_tolerance"] == true, "{v}");
        assert!(v["epsilon_just_below"].is_null(), "{v}");
    }
}

/// A total-variation jump (ε* = 1e-4: the RDP bound cannot go below ~3.5e-3 on its grid, then
/// the TV bound gives 0): exit 0, `within_tolerance` false, `epsilon_just_below` the finite ε
/// above the target, and the human output says plainly it is not within tolerance.
#[test]
fn cli_calibrate_tv_jump_reports_why_it_is_not_within_tolerance() {
    let args = ["calibrate", "--target-epsilon", "1e-4", "--delta", "1e-5", "--steps", "1", "--q", "1"];
    let v = json(&[&args[..], &["--json"]].concat());
    let below = v["epsilon_just_below"].as_f64().expect("a number, not null");
    assert!(below.is_finite() && below > 1e-4, "{v}");
    assert!(v["epsilon"].as_f64().unwrap() <= 1e-4 && v["within_tolerance"] == false, "{v}");
    let o = dpref(&args);
    assert_eq!(o.status.code(), Some(0));
    let text = common::cli::stdout(&o);
    assert!(text.contains("NOT within 0.1 % of the target") && text.contains("jumps from"), "{text}");
    let help = common::cli::stdout(&dpref(&["calibrate", "--help"]));
    assert!(help.contains("within_tolerance") && help.contains("epsilon_just_below"), "{help}");
}

#[test]
fn cli_bad_input_exits_2_with_one_error_line() {
    let base = ["--steps", "100", "--delta", "1e-5"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = vec!["account"];
        v.extend_from_slice(extra);
        v.extend_from_slice(&base);
        v
    };
    // σ ≤ 0, NaN, ∞
    for s in ["0", "-1", "NaN", "inf"] {
        assert_refused(&with(&["--sigma", s, "--q", "0.01"]), &[]);
    }
    // q ∉ (0, 1]
    for q in ["0", "1.5", "-0.1", "NaN"] {
        assert_refused(&with(&["--sigma", "1", "--q", q]), &[]);
    }
    // δ ∉ (0, 1), T = 0
    for d in ["0", "1", "2", "NaN"] {
        assert_refused(&["account", "--sigma", "1", "--q", "0.01", "--steps", "10", "--delta", d], &[]);
    }
    assert_refused(&["account", "--sigma", "1", "--q", "0.01", "--steps", "0", "--delta", "1e-5"], &[]);
    // malformed numbers, missing flags, unknown flags
    assert_refused(&with(&["--sigma", "abc", "--q", "0.01"]), &[]);
    assert_refused(&["account", "--sigma", "1"], &[]);
    assert_refused(&with(&["--sigma", "1", "--q", "0.01", "--frobnicate"]), &[]);
    // sampling flags that do not belong together
    assert_refused(&with(&["--sigma", "1"]), &[]);
    assert_refused(&with(&["--sigma", "1", "--q", "0.01", "--batch-size", "10", "--dataset-size", "100"]), &[]);
    assert_refused(&with(&["--sigma", "1", "--sampling", "full", "--q", "0.01"]), &[]);
    assert_refused(&with(&["--sigma", "1", "--batch-size", "200", "--dataset-size", "100"]), &[]);
    // orders ≤ 1
    assert_refused(&with(&["--sigma", "1", "--q", "0.01", "--orders", "0.5,2"]), &[]);
    // calibrate: target ε ≤ 0
    assert_refused(&["calibrate", "--target-epsilon", "0", "--q", "0.01", "--steps", "10", "--delta", "1e-5"], &[]);
    // no subcommand, unknown experiment
    assert_refused(&[], &[]);
    assert_refused(&["reproduce", "no-such-experiment"], &[]);
}

#[test]
fn cli_unsupported_combinations_exit_2_naming_the_combination() {
    let cases: &[&[&str]] = &[
        // without replacement under add/remove (CLI.md's own example)
        &["--sampling", "without-replacement", "--batch-size", "10", "--dataset-size", "100"],
        // Poisson under replace-one
        &["--q", "0.1", "--neighbouring", "replace-one"],
        // with replacement: no accountant
        &["--sampling", "with-replacement", "--batch-size", "10", "--dataset-size", "100"],
        // the PLD accountant has no bound for sampling without replacement
        &[
            "--sampling",
            "without-replacement",
            "--batch-size",
            "10",
            "--dataset-size",
            "100",
            "--neighbouring",
            "replace-one",
            "--accountant",
            "pld",
        ],
    ];
    for extra in cases {
        let mut args = vec!["account", "--sigma", "1", "--steps", "10", "--delta", "1e-5"];
        args.extend_from_slice(extra);
        assert_refused(&args, &[]);
        let err = stderr(&dpref(&args));
        assert!(err.contains("unsupported"), "{err}");
    }
}

#[test]
fn cli_reproduce_privacy_writes_the_table() {
    let dir = std::env::temp_dir().join(format!("dpref-cli-test-{}", std::process::id()));
    let o = dpref(&["reproduce", "privacy", "--quick", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = std::fs::read_to_string(dir.join("privacy.md")).expect("privacy.md written");
    assert!(table.contains("ZCHWB MNIST") && table.contains("reproduced with the classic conversion"));
    assert!(!table.contains("NOT reproduced"), "{table}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `account --accountant pld|all`: the certified PLD bracket on anchors G2 (q = 256/60000,
/// σ = 1.1, T = 14063, δ = 1e-5) contains dp_accounting 0.6.0's PLD value 2.381691 and lies
/// below the RDP bound 2.5967; with `all`, ε is the smaller upper bound. A bracket that dropped a
/// tail or the composition count would exclude the published value (C20 drops it to ~0.02).
#[test]
fn cli_account_pld_brackets_anchor_g2() {
    let base = ["account", "--sigma", "1.1", "--q", "0.004266666666666667", "--steps", "14063", "--delta", "1e-5"];
    let v = json(&[&base[..], &["--accountant", "pld", "--json"]].concat());
    let (lo, hi) = (v["epsilon_lower"].as_f64().unwrap(), v["epsilon_upper"].as_f64().unwrap());
    assert!(lo <= 2.381691 && 2.381691 <= hi && hi - lo < 1e-3, "[{lo}, {hi}]");
    assert_eq!(v["epsilon"].as_f64(), Some(hi));
    assert_eq!(v["accountant"], "pld");
    let v = json(&[&base[..], &["--accountant", "all", "--json"]].concat());
    let rdp = v["epsilon_rdp"].as_f64().unwrap();
    assert!((rdp - 2.5967).abs() < 1e-4 && v["epsilon"].as_f64() == Some(hi.min(rdp)), "{v}");
}

/// `account --accountant all` at a δ below the PLD's floor (q = 0.01, σ = 1, T = 10, δ = 1e-12):
/// the PLD's upper end is +∞, so ε is the RDP's 2.9242 (the smaller upper bound, as documented)
/// and `epsilon_upper` is null; `--accountant pld` alone exits 2 naming the floor and the RDP
/// flag. Before, `all` exited 2 blaming σ ("too small"), though RDP bounds ε.
#[test]
fn cli_account_all_answers_below_the_pld_floor() {
    let base = ["account", "--sigma", "1", "--q", "0.01", "--steps", "10", "--delta", "1e-12"];
    let rdp = json(&[&base[..], &["--json"]].concat())["epsilon"].as_f64().unwrap();
    let v = json(&[&base[..], &["--accountant", "all", "--json"]].concat());
    assert_eq!(v["epsilon"].as_f64(), Some(rdp), "{v}");
    assert!(v["epsilon_upper"].is_null() && v["epsilon_lower"].as_f64().is_some_and(|l| l <= rdp), "{v}");
    let pld = dpref(&[&base[..], &["--accountant", "pld"]].concat());
    assert_eq!(pld.status.code(), Some(2));
    let err = stderr(&pld);
    assert!(err.lines().count() == 1 && err.contains("floor") && err.contains("--accountant rdp"), "{err}");
}

/// `calibrate --accountant pld`: the σ for ε* = 2 on G2's sampling is below the RDP's (the PLD is
/// tighter), and re-accounting it with the PLD gives an upper end ≤ the target and within 0.1 %.
#[test]
fn cli_calibrate_pld_never_overshoots_and_beats_rdp() {
    let base =
        ["calibrate", "--target-epsilon", "2", "--q", "0.004266666666666667", "--steps", "14063", "--delta", "1e-5"];
    let sigma = |extra: &[&str]| {
        let v = json(&[&base[..], extra, &["--json"]].concat());
        v["sigma"].as_f64().unwrap()
    };
    let (pld, rdp) = (sigma(&["--accountant", "pld"]), sigma(&[]));
    assert!(pld < rdp * 0.97, "pld {pld} vs rdp {rdp}");
    let s = pld.to_string();
    let args = ["account", "--sigma", &s, "--q", "0.004266666666666667", "--steps", "14063", "--delta", "1e-5"];
    let v = json(&[&args[..], &["--accountant", "pld", "--json"]].concat());
    let upper = v["epsilon_upper"].as_f64().unwrap();
    assert!((2.0 * (1.0 - 1e-3)..=2.0).contains(&upper), "{upper}");
    let all = dpref(&[&base[..], &["--accountant", "all"]].concat());
    assert_eq!(all.status.code(), Some(2));
}
