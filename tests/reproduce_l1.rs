//! `dpref reproduce l1 --quick` end to end (\[AFKT\] experiment E5): the report's structure (settings,
//! slopes with intervals, one line per claim with its verdict, the data tables), the three plots
//! with their CSVs, the index, and what holds whatever the seed: Frank–Wolfe's ledger ε is the
//! target ε and every mean excess risk is positive (it is ½‖x − x*‖₂², exact). The scientific
//! outcome (which claims are observed) is reported, not asserted.

mod common;

use common::cli::{dpref, fresh_dir};

/// The cells of the Markdown table rows under the heading that starts with `heading`.
fn table_rows(md: &str, heading: &str) -> Vec<Vec<String>> {
    let start = md.find(heading).unwrap_or_else(|| panic!("no {heading:?} in\n{md}"));
    md[start..]
        .lines()
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and separator
        .map(|l| l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

#[test]
fn reproduce_l1_quick_writes_slopes_claims_tables_and_plots() {
    let dir = fresh_dir("reproduce-l1-quick");
    let o = dpref(&["reproduce", "l1", "--quick", "--seed", "3", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(dir.join("l1.md")).expect("l1.md");
    for needle in [
        "| mode | quick (--quick) |",
        "| seed | 3 |",
        "`dpref reproduce l1 --quick --seed 3`",
        "### Slopes",
        "### Claims",
        "### Data",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    // four sweeps, each with two slopes "estimate [low, high]" and low <= estimate <= high
    let slopes = table_rows(&md, "### Slopes");
    assert_eq!(slopes.len(), 4, "{md}");
    for row in &slopes {
        for cell in &row[1..3] {
            let nums: Vec<f64> = cell
                .split(|c: char| c == '[' || c == ']' || c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap_or_else(|_| panic!("not a slope: {cell:?}")))
                .collect();
            assert_eq!(nums.len(), 3, "{cell:?}");
            assert!(nums[1] <= nums[0] && nums[0] <= nums[2], "estimate outside its interval: {cell:?}");
        }
    }
    // one line per claim, each with its verdict and numbers
    let claims: Vec<&str> = md.lines().filter(|l| l.starts_with("- (")).collect();
    assert_eq!(claims.len(), 7, "{md}");
    for label in [
        "(a) MD vs d",
        "(a) FW vs d",
        "(a) FW slower than MD",
        "(b) MD vs n",
        "(b) FW vs n",
        "(c) MD vs epsilon",
        "(c) FW vs epsilon",
    ] {
        assert!(claims.iter().any(|c| c.starts_with(&format!("- {label}"))), "no claim {label:?} in\n{md}");
    }
    for c in &claims {
        assert!(c.ends_with("**observed**") || c.ends_with("**not observed**"), "no verdict: {c}");
        assert!(c.contains('[') && c.contains(']'), "no interval: {c}");
    }
    let observed = claims.iter().filter(|c| c.ends_with("**observed**")).count();
    assert!(md.contains(&format!("{observed} of 7 slope claims observed")), "{md}");
    // the data: FW's ledger epsilon is the target; every mean excess is positive
    let mut rows = 0;
    for heading in ["#### (a)", "#### (b) excess vs n, epsilon = 50", "#### (b) excess vs n, epsilon = 0.5", "#### (c)"]
    {
        for row in table_rows(&md, heading) {
            let num = |i: usize| row[i].trim_end_matches(" **edge**").parse::<f64>().expect("a number");
            let (epsilon, md_excess, fw_excess, ledger) = (num(3), num(4), num(7), num(10));
            assert!(md_excess > 0.0 && fw_excess > 0.0, "{row:?}");
            assert!((ledger - epsilon).abs() <= 1e-3 * epsilon.max(1.0), "ledger epsilon {ledger} vs target {epsilon}");
            rows += 1;
        }
    }
    assert_eq!(rows, 7 + 5 + 5 + 5, "{md}");
    // three plots, each with its CSV (two curves plus the reference line)
    for stem in ["l1-d", "l1-n", "l1-eps"] {
        let svg = std::fs::read_to_string(dir.join(format!("{stem}.svg"))).expect("svg");
        assert!(svg.contains("<svg"), "{stem}.svg");
        let csv = std::fs::read_to_string(dir.join(format!("{stem}.csv"))).expect("csv");
        assert!(csv.contains("mirror descent") && csv.contains("Frank-Wolfe") && csv.contains("F(0) - F*"), "{csv}");
    }
    let index = std::fs::read_to_string(dir.join("index.md")).expect("index.md");
    assert!(index.contains("[l1.md](l1.md)"), "{index}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unknown_experiment_names_l1_among_the_choices() {
    let dir = fresh_dir("reproduce-l1-unknown");
    let o = dpref(&["reproduce", "no-such-experiment", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("privacy, adaptive-noise, dpagd, dp2, l1, sparse"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
