//! Running the `dpref` binary from the CLI tests.

use std::path::PathBuf;
use std::process::{Command, Output};

/// `dpref args`, with its exit status, stdout and stderr captured.
pub fn dpref(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dpref")).args(args).output().expect("binary runs")
}

/// `o`'s stderr as text (invalid UTF-8 replaced).
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `o`'s stdout as text (invalid UTF-8 replaced).
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The usage-error contract of shared/CLI.md: exit 2, exactly one line on stderr starting with
/// `error:` that contains every keyword, nothing on stdout, no panic. Returns the line.
pub fn assert_refused(args: &[&str], keywords: &[&str]) -> String {
    let o = dpref(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}: {}", stdout(&o));
    for k in keywords {
        assert!(err.contains(k), "{args:?}: '{k}' missing from: {err}");
    }
    err
}

/// The one JSON object `dpref args` prints on stdout; asserts exit status 0 (stderr shown if not).
pub fn json(args: &[&str]) -> serde_json::Value {
    let o = dpref(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

/// A fresh, empty directory `dpref-<tag>-<pid>` under the system's temporary directory, left in
/// place after the test (for inspection).
pub fn fresh_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dpref-{tag}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The cells of the Markdown table rows under the heading that starts with `heading` (header
/// and separator rows skipped), as a `reproduce` report writes them.
#[allow(dead_code)] // not every test file reads reports
pub fn table_rows(md: &str, heading: &str) -> Vec<Vec<String>> {
    let start = md.find(heading).unwrap_or_else(|| panic!("no {heading:?} in\n{md}"));
    md[start..]
        .lines()
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}
