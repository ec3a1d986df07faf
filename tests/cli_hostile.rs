//! Hostile and misleading input through the real binary (shared/CLI.md: bad input exits 2 with
//! exactly one `error:` line, never a panic, an allocation failure or a silently wrong number).
//! One test per item of the soundness issue; each names the flag and the fix it expects to read.

mod common;

use common::cli::{assert_refused, dpref, stderr, stdout};

use common::cli_data::TempDir;
use std::process::{Command, Output, Stdio};

fn assert_ok(args: &[&str]) -> String {
    let o = dpref(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// A Laplace count with a scale bug, dumped the way pandas' `DataFrame.to_csv()` writes it: a
/// header (`header`, e.g. `,value`), then `row index,value`. Scale 1/3 on a sensitivity-1 count
/// is ε = 3, so a claimed ε = 1 must be refuted; the index column is identical on both sides.
fn pandas_pair(dir: &TempDir, header: &str) -> (String, String) {
    let mut rng = dpref::rng::Seeds::new(5).stream(dpref::rng::Stream::Audit);
    let mut side = |shift: f64| -> String {
        let mut s = format!("{header}\n");
        for i in 0..20_000 {
            s += &format!("{i},{}\n", shift + dpref::noise::laplace(&mut rng, 1.0 / 3.0));
        }
        s
    };
    let (a, b) = (side(1.0), side(0.0));
    let tag = header.replace(',', "_");
    (dir.file(format!("a{tag}.csv").as_str(), a), dir.file(format!("b{tag}.csv").as_str(), b))
}

// ---------------------------------------------------------------------------------------------
// A. audit samples reads the column the user means, or refuses.

/// Regression: a pandas CSV pair was read as its first column (the row index), so a mechanism
/// with ε = 3 claiming ε = 1 was "not refuted" (exit 0). Now: refused without --column (the
/// message lists the columns), refused on the index column, refuted (exit 3) on the value column.
#[test]
fn hostile_audit_pandas_csv_needs_column_and_then_refutes() {
    let dir = TempDir::new("cli-hostile-pandas");
    for header in [",value", "index,value"] {
        let (a, b) = pandas_pair(&dir, header);
        let base = ["audit", "samples", "--a", &a, "--b", &b, "--claimed-epsilon", "1"];
        assert_refused(&base, &["2 columns", "'value'", "--column"]);
        let with = |extra: &[&'static str]| -> Vec<String> {
            base.iter().chain(extra).map(|s| s.to_string()).collect::<Vec<_>>()
        };
        for col in ["value", "1"] {
            let args = with(&["--column", col, "--json"]);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = dpref(&refs);
            assert_eq!(o.status.code(), Some(3), "{header} --column {col}: {}", stderr(&o));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert!(v["epsilon_lower_bound"].as_f64().unwrap() > 2.0, "{v}");
            assert_eq!(v["n_a"], 20_000);
        }
        let args = with(&["--column", "0"]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(&refs, &["row index", "--column", "0, 1, 2"]);
        if header == "index,value" {
            let args = with(&["--column", "index"]);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_refused(&refs, &["row index"]);
        }
    }
}

/// A single column holding 1, 2, 3, … (an index dumped alone) is refused with the fix; the same
/// values shuffled are audited.
#[test]
fn hostile_audit_single_column_row_index_is_refused() {
    let dir = TempDir::new("cli-hostile-index");
    let idx: String = (1..=50).map(|i| format!("{i}\n")).collect();
    let f = dir.file("idx.txt", &idx);
    assert_refused(&["audit", "samples", "--a", &f, "--b", &f], &["row index", "1, 2, 3", "index=False"]);
    let shuffled: String = (1..=50).rev().map(|i| format!("{i}\n")).collect();
    let g = dir.file("shuffled.txt", &shuffled);
    assert_ok(&["audit", "samples", "--a", &g, "--b", &g]);
}

/// `--delta=-0` is read as 0: the JSON echoes `0.0`, never `-0.0`.
#[test]
fn hostile_negative_zero_delta_is_echoed_as_zero() {
    let dir = TempDir::new("cli-hostile-neg-zero");
    let g = dir.file("values.txt", (1..=50).map(|i| format!("{}\n", (i * 37) % 50)).collect::<String>());
    let out = assert_ok(&["audit", "samples", "--a", &g, "--b", &g, "--delta=-0", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["delta"].as_f64() == Some(0.0) && !out.contains("-0.0"), "{out}");
}

/// A header name that occurs twice, a name that does not occur, a name asked of a file without a
/// header and an index past the last column are refused, naming the columns.
#[test]
fn hostile_audit_ambiguous_or_unknown_column_is_refused() {
    let dir = TempDir::new("cli-hostile-column");
    let dup = dir.file("dup.csv", "x,x\n1.5,2\n0.5,1\n");
    assert_refused(&["audit", "samples", "--a", &dup, "--b", &dup, "--column", "x"], &["ambiguous", "'x'", "0 and 1"]);
    assert_ok(&["audit", "samples", "--a", &dup, "--b", &dup, "--column", "1"]);
    let two = dir.file("two.csv", "score,label\n1.5,1\n0.5,0\n");
    assert_refused(&["audit", "samples", "--a", &two, "--b", &two, "--column", "value"], &["'value'", "'score'"]);
    assert_refused(&["audit", "samples", "--a", &two, "--b", &two, "--column", "2"], &["no column 2"]);
    let bare = dir.file("bare.csv", "1.5,1\n0.5,0\n");
    assert_refused(&["audit", "samples", "--a", &bare, "--b", &bare, "--column", "score"], &["no header"]);
    assert_refused(&["audit", "samples", "--a", &bare, "--b", &bare], &["2 columns", "--column"]);
    let ragged = dir.file("ragged.csv", "score,label\n1.5,1\n0.5\n");
    assert_refused(&["audit", "samples", "--a", &ragged, "--b", &ragged, "--column", "score"], &["line 3", "ragged"]);
}

/// Regression: `--confidence 0.05` (meaning α = 0.05) was accepted and gave a meaningless bound.
#[test]
fn hostile_audit_confidence_below_one_half_is_refused() {
    let dir = TempDir::new("cli-hostile-confidence");
    let f = dir.file("s.txt", "0.3\n1.2\n-0.7\n");
    for c in ["0.05", "0.49", "0", "1", "-0.5", "NaN"] {
        assert_refused(&["audit", "samples", "--a", &f, "--b", &f, "--confidence", c], &["--confidence", "0.95"]);
    }
    assert_ok(&["audit", "samples", "--a", &f, "--b", &f, "--confidence", "0.5"]);
}

// ---------------------------------------------------------------------------------------------
// B. Crashes and hostile input.

const ACCOUNT: &[&str] = &["account", "--sigma", "1", "--q", "0.01", "--steps", "10", "--delta", "1e-5"];

fn account_with(extra: &[&str]) -> Vec<String> {
    ACCOUNT.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Regression: `--orders 1e300` panicked (capacity overflow) and `--orders 1e9` allocated 24 GB.
#[test]
fn hostile_account_huge_orders_are_refused() {
    for orders in ["1e300", "1e9", "2,1e5", "10000.5", "inf"] {
        assert_refused(&refs(&account_with(&["--orders", orders])), &["--orders", "10000"]);
        let mut cal = vec!["calibrate", "--target-epsilon", "1", "--q", "0.01", "--steps", "10", "--delta", "1e-5"];
        cal.extend(["--orders", orders]);
        assert_refused(&cal, &["--orders", "10000"]);
    }
    let many = vec!["2"; 1001].join(",");
    assert_refused(&refs(&account_with(&["--orders", &many])), &["--orders", "1000"]);
    assert_ok(&refs(&account_with(&["--orders", "2,10000"])));
}

/// Regression: `--hidden 4000000000000000000` overflowed and `--hidden 100000000` allocated 10 GB.
#[test]
fn hostile_run_huge_network_is_refused() {
    let dir = TempDir::new("cli-hostile-hidden");
    let data = dir.file("d.csv", "x,y\n1,0\n2,1\n3,0\n4,1\n");
    for hidden in ["4000000000000000000", "100000000", "4000000000,4000000000", "5000,5000"] {
        assert_refused(
            &["run", "dp-adam", "--data", &data, "--loss", "cross-entropy", "--hidden", hidden, "--sigma", "1"],
            &["--hidden", "parameters", "16777216"],
        );
    }
    assert_refused(
        &["run", "dp-adam", "--data", &data, "--loss", "cross-entropy", "--hidden", "0", "--sigma", "1"],
        &["--hidden", "at least 1"],
    );
}

/// Regression: a LIBSVM index of 10^12 (a 16 TB dense matrix) or 2^64 − 1 was allocated.
#[test]
fn hostile_libsvm_huge_feature_index_is_refused() {
    let dir = TempDir::new("cli-hostile-libsvm");
    for row in ["1 1000000000000:1\n", "1 18446744073709551615:1\n", "1 16777217:1\n"] {
        let f = dir.file("big.svm", row);
        assert_refused(
            &["run", "dp-sgd", "--data", &f, "--loss", "logistic", "--sigma", "0"],
            &["feature index", "16777216"],
        );
    }
    // within the index limit, but the dense matrix would exceed 2^27 values
    let rows: String = (0..9).map(|_| "1 16777216:1\n").collect();
    let f = dir.file("wide.svm", rows);
    assert_refused(&["run", "dp-sgd", "--data", &f, "--loss", "logistic", "--sigma", "0"], &["dense matrix"]);
}

/// Runs the binary with a stdout whose reader is already gone: the first write fails with EPIPE.
fn run_with_closed_stdout(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_dpref"))
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("binary runs")
}

/// Regression: `dpref account ... | head -1` panicked on the broken pipe (println!). A reader
/// that goes away is not an error: exit 0, nothing on stderr.
#[test]
fn hostile_broken_pipe_exits_quietly() {
    let dir = TempDir::new("cli-hostile-pipe");
    let data = dir.file("d.csv", "x,y\n1,0\n2,1\n3,0\n4,1\n");
    let cases: Vec<Vec<&str>> = vec![
        ACCOUNT.to_vec(),
        [ACCOUNT, &["--json"]].concat(),
        vec!["calibrate", "--target-epsilon", "1", "--q", "0.01", "--steps", "10", "--delta", "1e-5"],
        vec!["run", "dp-sgd", "--data", &data, "--loss", "logistic", "--sigma", "1", "--steps", "2"],
        vec!["--help"],
        vec!["account", "--help"],
        vec!["--version"],
    ];
    for args in cases {
        let o = run_with_closed_stdout(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{args:?}: {}", stderr(&o));
    }
    // reproduce prints progress on stderr by design; it must still exit 0 without a panic.
    let out = dir.0.join("report");
    let o = run_with_closed_stdout(&["reproduce", "privacy", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "reproduce: {}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

/// Regression: a UTF-8 byte-order mark (spreadsheet exports) made the first value unreadable.
#[test]
fn hostile_byte_order_mark_is_skipped() {
    let dir = TempDir::new("cli-hostile-bom");
    let bom = |text: &str| [&[0xEF, 0xBB, 0xBF][..], text.as_bytes()].concat();
    let csv = dir.file("d.csv", bom("1,0\n2,1\n3,0\n4,1\n"));
    let svm = dir.file("d.svm", bom("1 1:1\n0 2:1\n1 1:0.5\n"));
    for (data, dimension) in [(&csv, &[][..]), (&svm, &["--dimension", "2"][..])] {
        let args = [&["run", "dp-sgd", "--data", data, "--loss", "logistic", "--sigma", "1", "--json"][..], dimension];
        let out = assert_ok(&args.concat());
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["x"].is_array(), "{v}");
    }
    let samples = dir.file("s.txt", bom("0.5\n1.5\n-0.25\n"));
    let with_header = dir.file("h.csv", bom("value\n0.5\n1.5\n-0.25\n"));
    for f in [&samples, &with_header] {
        let out = assert_ok(&["audit", "samples", "--a", f, "--b", f, "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["n_a"], 3, "{v}");
    }
    // not UTF-8 at all: a clear error, not a panic
    let binary = dir.file("bin.csv", [0xFF, 0xFE, 0x00, 0x31]);
    assert_refused(&["run", "dp-sgd", "--data", &binary, "--loss", "logistic", "--sigma", "1"], &["not UTF-8"]);
}

/// Regression: `--steps 1e12` was refused by clap as "invalid digit". Integer flags now take any
/// notation that is exactly a whole number, and refuse fractions, negatives and overflow saying why.
#[test]
fn hostile_integer_flags_in_scientific_notation() {
    let v: serde_json::Value = serde_json::from_str(&assert_ok(&[
        "account",
        "--sigma",
        "1",
        "--batch-size",
        "2.56e2",
        "--dataset-size",
        "6e4",
        "--steps",
        "1e3",
        "--delta",
        "1e-5",
        "--json",
    ]))
    .unwrap();
    assert_eq!(v["steps"], 1000);
    assert_eq!(v["q"], 256.0 / 60000.0);
    let mut args = ACCOUNT.to_vec();
    args[6] = "1e12";
    args.push("--json");
    let v: serde_json::Value = serde_json::from_str(&assert_ok(&args)).unwrap();
    assert_eq!(v["steps"], 1_000_000_000_000u64);
    for (steps, why) in [
        ("1.5", "whole number"),
        ("1e-3", "whole number"),
        ("-3", "non-negative"),
        ("NaN", "whole number"),
        ("1e20", "at most 18446744073709551615"),
        ("1e400", "at most"),
    ] {
        let mut args = ACCOUNT.to_vec();
        args[6] = steps;
        assert_refused(&args, &["--steps", why]);
    }
    // A negative value in scientific notation after a space reaches the flag's own check (clap
    // alone read `-1e-5` as a flag: "unexpected argument '-1'"); `=` and plain forms agree.
    for delta in [["--delta", "-1e-5"].as_slice(), &["--delta=-1e-5"]] {
        let mut args = ACCOUNT[..7].to_vec();
        args.extend_from_slice(delta);
        assert_refused(&args, &["--delta", "(0, 1)"]);
    }
    let mut args = ACCOUNT.to_vec();
    args[2] = "-1e-3";
    assert_refused(&args, &["--sigma", "> 0"]);
    let dir = TempDir::new("cli-hostile-ints");
    let data = dir.file("d.csv", "x,y\n1,0\n2,1\n3,0\n4,1\n");
    let run = |extra: &[&str]| -> Vec<String> {
        ["run", "dp-sgd", "--data", &data, "--loss", "logistic", "--sigma", "1", "--json"]
            .iter()
            .chain(extra)
            .map(|s| s.to_string())
            .collect()
    };
    let v: serde_json::Value =
        serde_json::from_str(&assert_ok(&refs(&run(&["--steps", "2e1", "--batch-size", "2.0", "--seed", "1e3"]))))
            .unwrap();
    assert_eq!(v["steps"], 20);
    for (flag, value) in [("--batch-size", "2.5"), ("--seed", "-1"), ("--steps", "0.5e1.5"), ("--label-column", "1e-1")]
    {
        assert_refused(&refs(&run(&[flag, value])), &[flag]);
    }
}

// ---------------------------------------------------------------------------------------------
// C. Messages name the flag the user gave and the fix.

#[test]
fn messages_name_the_flag_and_the_fix() {
    let dir = TempDir::new("cli-hostile-messages");
    let data = dir.file("d.csv", "x,y\n1,0\n2,1\n3,0\n4,1\n");
    let run = |extra: &[&str]| -> Vec<String> {
        ["run", "--data", &data].iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        // linear is no longer listed, and refused by the value list
        (run(&["dp-sgd", "--loss", "linear", "--sigma", "1"]), vec!["--loss", "possible values"]),
        (run(&["dp-sgd", "--loss", "cross-entropy", "--sigma", "1"]), vec!["--loss cross-entropy", "dp-adam"]),
        (run(&["dp-adam", "--loss", "cross-entropy", "--sigma", "1"]), vec!["--loss cross-entropy needs --hidden"]),
        (run(&["dp-adam", "--loss", "logistic", "--hidden", "4", "--sigma", "1"]), vec!["--loss cross-entropy"]),
        (
            run(&["dp-sgd", "--loss", "logistic", "--sampling", "with-replacement", "--sigma", "1", "--delta", "1e-5"]),
            vec!["no accountant covers --sampling with-replacement", "--sampling poisson", "drop --delta"],
        ),
        (run(&["dp-adam", "--loss", "logistic", "--sigma", "1", "--nu=-1"]), vec!["--nu"]),
        (run(&["dp-adam", "--loss", "logistic", "--sigma", "1", "--beta2", "0"]), vec!["--beta2", "(0, 1)"]),
        (
            run(&["dp-sgd", "--loss", "logistic", "--sigma", "1", "--beta2", "0.5"]),
            vec!["--beta2", "not used by dp-sgd"],
        ),
        (
            run(&["dp-sgd", "--loss", "logistic", "--sigma", "1", "--sampling", "full"]),
            vec!["--sampling full", "--batch-size"],
        ),
        (run(&["pasan", "--loss", "logistic", "--sigma", "1", "--lambda", "2"]), vec!["--lambda", "not used by pasan"]),
        (
            run(&["dp-sgd", "--loss", "logistic", "--sigma", "1", "--bias-correction", "true"]),
            vec!["--bias-correction", "not used by dp-sgd"],
        ),
        (run(&["dp-sgd", "--loss", "logistic", "--sigma", "1", "--batch-size", "63"]), vec!["--batch-size", "n = 4"]),
        (account_with(&["--sampling", "full"]).into_iter().filter(|a| a != "--q" && a != "0.01").collect(), vec![]),
    ];
    for (args, keywords) in &cases[..cases.len() - 1] {
        let line = assert_refused(&refs(args), keywords);
        assert!(!line.contains(" eps ") && !line.contains("anchors"), "{line}");
    }
    assert_ok(&refs(&cases[cases.len() - 1].0));
    let with_b = [
        "account",
        "--sigma",
        "1",
        "--steps",
        "10",
        "--delta",
        "1e-5",
        "--sampling",
        "full",
        "--batch-size",
        "10",
        "--dataset-size",
        "100",
    ];
    assert_refused(&with_b, &["--sampling full", "drop"]);
    let acc = ["account", "--sigma", "1", "--steps", "10", "--delta", "1e-5"];
    assert_refused(&[&acc[..], &["--batch-size", "10"]].concat(), &["--batch-size needs --dataset-size", "--q"]);
    assert_refused(&[&acc[..], &["--dataset-size", "10"]].concat(), &["--dataset-size needs --batch-size"]);
    assert_refused(
        &[&acc[..], &["--sampling", "with-replacement", "--batch-size", "10", "--dataset-size", "100"]].concat(),
        &["unsupported", "no accountant covers --sampling with-replacement", "--sampling poisson"],
    );
    assert_refused(&[&acc[..], &["--batch-size", "0", "--dataset-size", "100"]].concat(), &["--batch-size"]);
    assert_refused(
        &[
            "calibrate",
            "--target-epsilon",
            "1",
            "--q",
            "0.1",
            "--steps",
            "10",
            "--delta",
            "1e-5",
            "--accountant",
            "all",
        ],
        &["calibrate takes --accountant rdp or pld"],
    );
}

/// Flags that a request would ignore are refused, not dropped: `--conversion` (and `--orders`)
/// with the PLD accountant alone, and `--delta` on a run that makes no privacy claim (`--clip
/// none`, `--sigma 0`); both once exited 0 without a word. A private run's clip must be at least
/// 2⁻⁹⁶⁹: `--clip 5e-324` once reported ε = 2.90 for clipped gradients of norm up to √2·C.
#[test]
fn ignored_flags_and_subnormal_clips_are_refused() {
    let dir = TempDir::new("cli-hostile-ignored");
    let data = dir.file("d.csv", "x,y\n1,0\n2,1\n3,0\n4,1\n");
    let acc = ["account", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--q", "0.1", "--accountant", "pld"];
    assert_refused(&[&acc[..], &["--conversion", "classic"]].concat(), &["--conversion", "--accountant pld"]);
    assert_refused(&[&acc[..], &["--conversion", "improved"]].concat(), &["--conversion"]);
    assert_refused(&[&acc[..], &["--orders", "2,4"]].concat(), &["--orders"]);
    let calibrate = ["calibrate", "--target-epsilon", "1", "--steps", "10", "--delta", "1e-5", "--q", "0.1"];
    assert_refused(&[&calibrate[..], &["--accountant", "pld", "--conversion", "classic"]].concat(), &["--conversion"]);
    assert_ok(&acc);
    let all = ["account", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--q", "0.1", "--accountant", "all"];
    assert_ok(&[&all[..], &["--conversion", "classic"]].concat());
    let run = ["run", "dp-sgd", "--loss", "logistic", "--data", &data, "--steps", "2", "--batch-size", "2"];
    for extra in [&["--sigma", "1", "--delta", "1e-5", "--clip", "none"][..], &["--sigma", "0", "--delta", "1e-5"]] {
        assert_refused(&[&run[..], extra].concat(), &["--delta", "makes none", "drop --delta"]);
    }
    for clip in ["5e-324", "1e-300"] {
        assert_refused(
            &[&run[..], &["--sigma", "1", "--delta", "1e-5", "--clip", clip]].concat(),
            &["clip = ", "2^-969"],
        );
    }
    assert_ok(&[&run[..], &["--sigma", "1", "--clip", "none"]].concat());
}

#[test]
fn help_is_plain_grouped_and_lists_exit_codes() {
    let top = assert_ok(&["--help"]);
    assert!(top.contains("Exit codes"), "{top}");
    for sub in [&["account"][..], &["calibrate"], &["run"], &["audit", "samples"], &["reproduce"]] {
        let help = assert_ok(&[sub, &["--help"]].concat());
        assert!(help.contains("Exit codes: 0"), "{sub:?}: {help}");
        assert!(!help.contains('\\'), "{sub:?}: a rustdoc escape shows: {help}");
        for internal in ["anchors", "notes", "§"] {
            assert!(!help.contains(internal), "{sub:?}: '{internal}' in {help}");
        }
    }
    let audit = assert_ok(&["audit", "samples", "--help"]);
    assert!(audit.contains("3 the claimed epsilon is refuted") && audit.contains("--column"), "{audit}");
    let run = assert_ok(&["run", "--help"]);
    assert!(run.contains("PASAN ([ADFJT] Alg. 1)"), "{run}");
    for heading in ["Data and model:", "Privacy:", "PASAN, PAGAN ([ADFJT]):", "([ZCHWB])", "([LZLRMS]):"] {
        assert!(run.contains(heading), "{heading}: {run}");
    }
    let account = assert_ok(&["account", "--help"]);
    assert!(account.contains("- pld: ") && account.contains("- all: "), "{account}");
}

#[test]
fn human_output_pluralises_and_writes_extreme_floats_in_scientific_notation() {
    let out = assert_ok(&["account", "--sigma", "1", "--sampling", "full", "--steps", "1", "--delta", "1e-300"]);
    assert!(out.contains("1 step,") && !out.contains("1 steps"), "{out}");
    assert!(out.contains("delta = 1e-300"), "{out}");
    assert!(out.lines().all(|l| l.len() < 200), "{out}");
    let out = assert_ok(&["account", "--sigma", "1", "--q", "1e-300", "--steps", "2", "--delta", "1e-5"]);
    assert!(out.contains("2 steps") && out.contains("q = 1e-300"), "{out}");
    // a library error's value is shortened too (Rust's `{}` writes -1e-300 with 300 digits)
    let dir = TempDir::new("cli-hostile-floats");
    let data = dir.file("d.csv", "x,y\n1,0\n2,1\n3,0\n4,1\n");
    let line = assert_refused(
        &["run", "dp-rmsprop", "--variant", "paper", "--data", &data, "--loss", "logistic"]
            .into_iter()
            .chain(["--batch-size", "4", "--sigma", "1", "--lambda=-1e-300"])
            .collect::<Vec<_>>(),
        &["--lambda", "-1e-300"],
    );
    assert!(line.len() < 200, "{line}");
}

/// A noise multiplier so small that 1/σ² overflows made the accountant report ε = 0 (a NaN RDP
/// clamped to 0). The accountant now bounds it by +∞, and the CLI says there is no finite ε
/// wherever one would be reported (exit 2), never 0.
#[test]
fn hostile_tiny_sigma_is_refused_not_reported_as_epsilon_zero() {
    for sigma in ["1e-155", "1e-200", "5e-324"] {
        assert_refused(
            &refs(&[&["account".to_string(), "--sigma".into(), sigma.into()][..], &account_with(&[])[3..]].concat()),
            &["no finite epsilon", "--sigma"],
        );
    }
    let dir = TempDir::new("cli-hostile-tiny");
    let data = dir.file("d.csv", "x,y\n1,0\n2,1\n3,0\n4,1\n");
    let run = ["run", "dp-sgd", "--data", &data, "--loss", "logistic", "--batch-size", "2", "--sigma", "1e-155"];
    assert_refused(&[&run[..], &["--delta", "1e-5"]].concat(), &["sigma", "finite epsilon"]);
    assert_ok(&run); // no delta: no epsilon reported, nothing to get wrong
    let pasan = ["run", "pasan", "--data", &data, "--loss", "logistic", "--batch-size", "2", "--paper-noise"];
    assert_refused(&[&pasan[..], &["--epsilon", "1e300", "--delta", "1e-5"]].concat(), &["sigma", "finite epsilon"]);
}
