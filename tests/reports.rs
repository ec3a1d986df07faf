//! What `dpref reproduce` writes, as a researcher reads it: the output directory is checked
//! before any work, every report carries its settings, every plot has the CSV of exactly the
//! numbers it draws, and `index.md` links this run's files.
//!
//! The experiments themselves take seconds to minutes, so the writers are tested on small
//! synthetic figures and the end-to-end checks use `reproduce privacy` (instantaneous).

mod common;

use common::cli::{dpref, fresh_dir};

use dpref::experiments::plot::{Figure, Panel, Reference, Series, csv_rows, write_figure};
use dpref::experiments::{Options, Outcome, report, write_index};
use std::path::PathBuf;

/// `--out` that cannot be a writable directory: exit 2 with one `error:` line naming the path,
/// and nothing on stdout — the experiment (which prints its table on stdout) never ran. A path
/// under a regular file fails even for root, whom permission bits do not stop; so does an
/// existing directory that refuses new files to everyone (`/proc` on Linux: creating it
/// succeeds, writing in it does not — the case that used to compute first and fail on the
/// write); a read-only directory is tried too when this user is really stopped by its mode.
#[test]
fn an_unwritable_out_fails_before_any_experiment_runs() {
    let dir = fresh_dir("reports-unwritable");
    let file = dir.join("a-regular-file");
    std::fs::write(&file, "not a directory").unwrap();
    let mut outs = vec![file.join("report"), file.clone()];
    if std::path::Path::new("/proc/self").exists() {
        outs.push(PathBuf::from("/proc"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let read_only = dir.join("read-only");
        std::fs::create_dir(&read_only).unwrap();
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(read_only.join("probe"), "x").is_err() {
            outs.push(read_only);
        }
    }
    for out in &outs {
        let out = out.to_str().unwrap();
        let o = dpref(&["reproduce", "adaptive-noise", "--quick", "--out", out]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{out}: {err}");
        assert!(
            o.stdout.is_empty(),
            "{out}: the experiment ran before the check: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{out}: {err}");
        assert!(err.starts_with("error: ") && err.contains(out), "{out}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // the file is untouched and nothing was created beside it
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(names.iter().all(|n| n == "a-regular-file" || n == "read-only"), "{names:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let read_only = dir.join("read-only");
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o755)).unwrap();
        let left: Vec<_> = std::fs::read_dir(&read_only).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.iter().all(|n| n == "probe"), "{left:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// End to end on the instantaneous experiment: the report starts with its settings and the index
/// links it (and only what this run wrote).
#[test]
fn reproduce_privacy_records_its_settings_and_the_index_links_it() {
    let dir = fresh_dir("reports-privacy");
    std::fs::write(dir.join("stale.md"), "from an earlier run").unwrap();
    let o = dpref(&["reproduce", "privacy", "--quick", "--seed", "7", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(dir.join("privacy.md")).expect("privacy.md");
    for needle in [
        "| mode | quick (--quick) |",
        "| seed | 7 |",
        &format!("| dpref version | {} |", env!("CARGO_PKG_VERSION")),
        "| git commit | ",
        "| delta | ",
        "| repetitions | ",
        "`dpref reproduce privacy --quick --seed 7`",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    // stdout carries the report, progress went to stderr
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("| seed | 7 |") && !stdout.contains("[privacy"), "{stdout}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("[privacy"), "no progress line on stderr");
    let index = std::fs::read_to_string(dir.join("index.md")).expect("index.md");
    assert!(index.contains("[privacy.md](privacy.md)"), "{index}");
    assert!(!index.contains("stale.md"), "{index}");
    // the "privacy audited" column: a certified lower bound (rounded down) at most the RDP upper
    // bound (rounded up) beside it, and not trivially 0 on the rows with a claim (a broken audit
    // printing 0 fails)
    let rows: Vec<Vec<&str>> = md
        .lines()
        .skip_while(|l| !l.starts_with("| setting | q |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    assert!(rows.len() >= 7, "{md}");
    for row in &rows {
        let improved: f64 = row[7].split(' ').next().unwrap().parse().expect("RDP improved");
        let audited: f64 = row[8].parse().expect("audited");
        assert!(0.0 <= audited && audited <= improved, "{row:?}");
        assert!(row[5] == "-" || 0.5 * improved < audited, "{row:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `reproduce --json` (shared/CLI.md: every subcommand): stdout is exactly one JSON object, per
/// experiment its name, files written (which exist), verdicts and the table's numbers unrounded
/// (the audited lower bound ≤ the accountant's upper bound in every row); the report is still
/// written, and progress stays on stderr.
#[test]
fn reproduce_json_prints_one_object_with_verdicts_files_and_numbers() {
    let dir = fresh_dir("reports-json");
    let o = dpref(&["reproduce", "privacy", "--seed", "7", "--out", dir.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is one JSON object");
    assert_eq!((v["seed"].as_u64(), v["quick"].as_bool()), (Some(7), Some(false)), "{v}");
    let experiments = v["experiments"].as_array().expect("experiments");
    assert_eq!(experiments.len(), 1, "{v}");
    let e = &experiments[0];
    assert_eq!(e["name"], "privacy");
    for f in e["files"].as_array().expect("files") {
        assert!(std::path::Path::new(f.as_str().unwrap()).exists(), "{f}");
    }
    let verdicts = e["verdicts"].as_array().expect("verdicts");
    assert!(!verdicts.is_empty() && verdicts.iter().all(|x| x["reproduced"].is_boolean()), "{e}");
    let reproduced = verdicts.iter().filter(|x| x["reproduced"] == true).count();
    assert!(e["summary"].as_str().unwrap().starts_with(&format!("{reproduced} of {}", verdicts.len())), "{e}");
    for row in e["rows"].as_array().expect("rows") {
        let (lower, upper) = (row["epsilon_audited"].as_f64().unwrap(), row["epsilon_improved"].as_f64().unwrap());
        assert!(0.0 <= lower && lower <= upper, "{row}");
        assert!(row["setting"]["claimed_epsilon"].is_null() || 0.5 * upper < lower, "{row}");
    }
    assert!(dir.join("privacy.md").exists() && dir.join("index.md").exists());
    assert!(String::from_utf8_lossy(&o.stderr).contains("[privacy"), "no progress line on stderr");
    std::fs::remove_dir_all(&dir).ok();
}

fn synthetic_figure() -> Figure {
    let curve = |a: f64| (0..12).map(|i| (i as f64 * 10.0, a / (1.0 + i as f64))).collect::<Vec<_>>();
    let band = |a: f64| (0..12).map(|i| (0.8 * a / (1.0 + i as f64), 1.2 * a / (1.0 + i as f64))).collect();
    Figure {
        panels: vec![
            Panel {
                title: "epsilon = 1".into(),
                key: "1".into(),
                series: vec![
                    Series { label: "method, with a comma".into(), points: curve(0.9), band: band(0.9) },
                    Series::line("other", curve(0.5)),
                ],
            },
            Panel {
                title: "epsilon = 4".into(),
                key: "4".into(),
                series: vec![Series::line("method, with a comma", curve(0.3)), Series::line("other", curve(0.2))],
            },
        ],
        x_label: "iteration".into(),
        y_label: "loss".into(),
        columns: ("epsilon".into(), "iteration".into(), "loss".into()),
        log_y: true,
        shared_y: true,
        references: vec![Reference { label: "optimum".into(), y: 0.01 }],
        band_label: Some("min-max over 3 runs".into()),
    }
}

/// The CSV beside a plot holds one row per point drawn, with a header, the exact f64 values, the
/// band bounds where there is a band, and each reference line's two ends per panel.
#[test]
fn the_csv_beside_a_plot_holds_exactly_the_plotted_points() {
    let dir = fresh_dir("reports-figure");
    let figure = synthetic_figure();
    let files = write_figure(&dir, "fig", &figure).expect("written");
    assert_eq!(files, vec![dir.join("fig.svg"), dir.join("fig.csv")]);
    let svg = std::fs::read_to_string(&files[0]).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("optimum") && svg.contains("min-max over 3 runs"));
    // the log axis labels the decade the curves reach down into
    let texts: Vec<&str> = svg.lines().map(str::trim).collect();
    for tick in ["0.01", "0.02", "0.05", "0.1"] {
        assert!(texts.contains(&tick), "no tick label {tick}");
    }

    let mut reader = csv::Reader::from_path(&files[1]).expect("csv");
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header, ["epsilon", "series", "iteration", "loss", "loss_low", "loss_high"]);
    let rows: Vec<csv::StringRecord> = reader.records().collect::<Result<_, _>>().unwrap();
    let curve_points: usize = figure.panels.iter().flat_map(|p| &p.series).map(|s| s.points.len()).sum();
    let reference_points = 2 * figure.references.len() * figure.panels.len();
    assert_eq!(rows.len(), curve_points + reference_points);
    assert_eq!(rows.len(), csv_rows(&figure).len());
    // every curve point, in order, with its exact value and band
    let mut i = 0;
    for panel in &figure.panels {
        for s in &panel.series {
            for (j, &(x, y)) in s.points.iter().enumerate() {
                let r = &rows[i];
                assert_eq!((&r[0], &r[1]), (panel.key.as_str(), s.label.as_str()));
                assert_eq!((r[2].parse::<f64>().unwrap(), r[3].parse::<f64>().unwrap()), (x, y));
                match s.band.get(j) {
                    Some(&(lo, hi)) => {
                        assert_eq!((r[4].parse::<f64>().unwrap(), r[5].parse::<f64>().unwrap()), (lo, hi))
                    }
                    None => assert!(r[4].is_empty() && r[5].is_empty()),
                }
                i += 1;
            }
        }
        // then the reference line's ends over the panel's x-range
        for x in [0.0, 110.0] {
            let r = &rows[i];
            assert_eq!(&r[1], "optimum");
            assert_eq!((r[2].parse::<f64>().unwrap(), r[3].parse::<f64>().unwrap()), (x, 0.01));
            i += 1;
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `index.md` links every report, plot and CSV of the outcomes it is given, relative to `--out`,
/// and does not depend on how long the experiments took.
#[test]
fn the_index_links_every_file_of_the_run() {
    let dir = fresh_dir("reports-index");
    let options = Options::new(true, 3);
    let mut files = vec![dir.join("fig.md")];
    files.extend(write_figure(&dir, "fig", &synthetic_figure()).unwrap());
    report::write(&files[0], "## fig\n").unwrap();
    let outcomes = vec![
        Outcome {
            name: "fig",
            markdown: String::new(),
            summary: "REPRODUCED".into(),
            files,
            seconds: 1.5,
            data: serde_json::Value::Null,
        },
        Outcome {
            name: "table",
            markdown: String::new(),
            summary: "1 of 1".into(),
            files: vec![dir.join("table.md")],
            seconds: 0.1,
            data: serde_json::Value::Null,
        },
    ];
    let index = write_index(&dir, &options, &outcomes).unwrap();
    let md = std::fs::read_to_string(index).unwrap();
    for link in ["[fig.md](fig.md)", "[fig.svg](fig.svg)", "[fig.csv](fig.csv)", "[table.md](table.md)"] {
        assert!(md.contains(link), "missing {link} in\n{md}");
    }
    assert!(md.contains("seed 3") && md.contains("Quick") && md.contains(env!("CARGO_PKG_VERSION")), "{md}");
    assert!(!md.contains(dir.to_str().unwrap()), "links must be relative: {md}");
    // Wall-clock time is not in the index: the same seed writes the same bytes.
    let slower: Vec<Outcome> = outcomes.into_iter().map(|o| Outcome { seconds: o.seconds + 7.25, ..o }).collect();
    assert_eq!(std::fs::read_to_string(write_index(&dir, &options, &slower).unwrap()).unwrap(), md);
    std::fs::remove_dir_all(&dir).ok();
}

/// The settings block names everything needed to rerun the report.
#[test]
fn the_settings_block_names_mode_seed_version_commit_delta_and_repetitions() {
    let full = report::settings_block("dp2", &Options::new(false, 42), "1e-5", "5 seeds");
    for needle in [
        "| mode | full |",
        "| seed | 42 |",
        "| delta | 1e-5 |",
        "| repetitions | 5 seeds |",
        "`dpref reproduce dp2 --seed 42`",
    ] {
        assert!(full.contains(needle), "missing {needle:?} in\n{full}");
    }
    assert!(full.contains(env!("CARGO_PKG_VERSION")));
    let commit = report::git_commit();
    assert!(!commit.is_empty() && full.contains(&commit));
}
