//! The README's console examples, run: every ```` ```console ```` block of `README.md` is a
//! transcript, and this test replays it and compares what it prints with what the README shows.
//!
//! A transcript is a sequence of `$ command` lines (continued by a trailing `\`), each followed by
//! the lines it prints on stdout and stderr. Commands:
//! * `dpref …` runs the binary under test; `cargo run --release --example NAME -- …` runs the
//!   example binary that `cargo test` built beside it; `python3 …` runs Python (the machine's);
//!   `echo $?` prints the previous command's exit code.
//! * Paths under `/tmp/` are mapped into a fresh temporary directory per block.
//!
//! Matching: each shown line must equal the printed line, except that a shown line containing
//! `...` matches any printed line that starts with the text before the `...` and ends with the
//! text after it (for digits a reader need not see). The number of lines must agree. A README
//! whose figures drift from what the code prints fails here.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Step {
    command: String,
    expected: Vec<String>,
}

/// The console blocks of the README, each as its list of steps.
fn console_blocks(readme: &str) -> Vec<Vec<Step>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Step>> = None;
    let mut continuing = false;
    for raw in readme.lines() {
        let line = raw.trim_start();
        if let Some(steps) = current.as_mut() {
            if line.starts_with("```") {
                blocks.push(current.take().unwrap_or_default());
                continue;
            }
            if continuing {
                let last = steps.last_mut().expect("a continued command");
                last.command.push(' ');
                last.command.push_str(line.trim_end_matches('\\').trim());
                continuing = line.ends_with('\\');
            } else if let Some(cmd) = line.strip_prefix("$ ") {
                // a trailing "# comment" is not part of the command
                let cmd = cmd.split("  #").next().unwrap_or(cmd);
                continuing = cmd.trim_end().ends_with('\\');
                steps.push(Step { command: cmd.trim_end_matches('\\').trim().to_string(), expected: Vec::new() });
            } else {
                let last = steps.last_mut().expect("output follows a command");
                last.expected.push(raw.trim_end().to_string());
            }
        } else if line.starts_with("```console") {
            current = Some(Vec::new());
        }
    }
    blocks
}

/// Shell-like split on whitespace (the README's commands use no quoting).
fn words(command: &str) -> Vec<String> {
    command.split_whitespace().map(str::to_string).collect()
}

fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_dpref")).parent().expect("target dir").to_path_buf()
}

/// Runs one command with `/tmp/` mapped into `tmp`; returns (stdout + stderr lines, exit code).
fn run(command: &str, tmp: &Path, repo: &Path, last_code: i32) -> (Vec<String>, i32) {
    let mapped = command.replace("/tmp/", &format!("{}/", tmp.display()));
    let w = words(&mapped);
    let mut cmd = match w[0].as_str() {
        "dpref" => {
            let mut c = Command::new(env!("CARGO_BIN_EXE_dpref"));
            c.args(&w[1..]);
            c
        }
        "cargo" => {
            // cargo run --release --example NAME -- args...
            let name = &w[w.iter().position(|a| a == "--example").expect("--example") + 1];
            let args = w.iter().position(|a| a == "--").map_or(&[][..], |i| &w[i + 1..]);
            let mut c = Command::new(bin_dir().join("examples").join(name));
            c.args(args);
            c
        }
        "python3" => {
            let mut c = Command::new("python3");
            c.args(&w[1..]);
            c
        }
        "echo" if w.get(1).map(String::as_str) == Some("$?") => return (vec![last_code.to_string()], 0),
        other => panic!("README console command {other:?} is not one this test can replay"),
    };
    let out = cmd.current_dir(repo).output().unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
    lines.extend(String::from_utf8_lossy(&out.stderr).lines().map(str::to_string));
    let lines = lines.into_iter().map(|l| l.replace(&format!("{}/", tmp.display()), "/tmp/")).collect();
    (lines, out.status.code().unwrap_or(-1))
}

fn matches(shown: &str, printed: &str) -> bool {
    match shown.split_once("...") {
        Some((head, tail)) => printed.starts_with(head.trim_end_matches(' ')) && printed.ends_with(tail),
        None => shown.trim_end() == printed.trim_end(),
    }
}

#[test]
fn readme_console_examples_print_what_they_show() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(repo.join("README.md")).expect("README.md");
    let blocks = console_blocks(&readme);
    assert!(blocks.len() >= 4, "the README's console examples were not found ({})", blocks.len());
    let mut failures = Vec::new();
    for (k, block) in blocks.iter().enumerate() {
        let tmp = std::env::temp_dir().join(format!("dpref-readme-{}-{k}", std::process::id()));
        std::fs::create_dir_all(&tmp).expect("temp dir");
        let mut code = 0;
        for step in block {
            let (printed, c) = run(&step.command, &tmp, &repo, code);
            code = c;
            let same =
                printed.len() == step.expected.len() && step.expected.iter().zip(&printed).all(|(s, p)| matches(s, p));
            if !same {
                failures.push(format!(
                    "$ {}\n--- README shows:\n{}\n--- dpref printed:\n{}",
                    step.command,
                    step.expected.join("\n"),
                    printed.join("\n")
                ));
            }
        }
        let _ = std::fs::remove_dir_all(&tmp);
    }
    assert!(failures.is_empty(), "README examples that drifted:\n\n{}", failures.join("\n\n"));
}
