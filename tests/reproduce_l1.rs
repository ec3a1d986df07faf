//! `dpref reproduce l1 --quick` end to end (\[AFKT\] experiment E5): the report's structure (settings,
//! slopes with intervals, one line per claim with its verdict, the data tables), the three plots
//! with their CSVs, the index, and what holds whatever the seed: Frank–Wolfe's ledger ε is the
//! target ε and every mean excess risk is positive (it is ½‖x − x*‖₂², exact); and O5 of the notes
//! (§6, "scaling tests (E5), with fitted slopes within tolerance bands"), asserted on seed 3 by
//! [`o5_e5_slopes_within_bands_and_fw_slower_in_d`] from the same run (one run, shared).

mod common;

use common::cli::{dpref, fresh_dir, table_rows};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The one `dpref reproduce l1 --quick --seed 3` run of this file (≈ 30 s), shared by its tests:
/// the output directory and its `l1.md`.
fn quick_run() -> &'static (PathBuf, String) {
    static RUN: OnceLock<(PathBuf, String)> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = fresh_dir("reproduce-l1-quick");
        let o = dpref(&["reproduce", "l1", "--quick", "--seed", "3", "--out", dir.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let md = std::fs::read_to_string(dir.join("l1.md")).expect("l1.md");
        (dir, md)
    })
}

#[test]
fn reproduce_l1_quick_writes_slopes_claims_tables_and_plots() {
    let (dir, md) = quick_run();
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
    let slopes = table_rows(md, "### Slopes");
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
        for row in table_rows(md, heading) {
            let num = |i: usize| row[i].trim_end_matches(" **edge**").parse::<f64>().expect("a number");
            // the swept variable prints exactly: n = 16384 as "16384" (4 significant digits
            // printed "16380"), d likewise
            let swept = if heading.starts_with("#### (a)") {
                Some(&row[2])
            } else if heading.starts_with("#### (b)") {
                Some(&row[1])
            } else {
                None
            };
            if let Some(whole) = swept {
                assert_eq!(&row[0], whole, "swept value printed inexactly: {row:?}");
            }
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
    // the O5 test reads only `md`, kept in memory
    std::fs::remove_dir_all(dir).ok();
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

/// The least-squares slope of y on x (the test's own; the experiment fits with its `ols_slope`).
fn slope(x: &[f64], y: &[f64]) -> f64 {
    let k = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / k, y.iter().sum::<f64>() / k);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    sxy / sxx
}

/// The slope of `ln f(x)` on `ln x` over `grid`.
fn log_log_slope(grid: &[f64], f: impl Fn(f64) -> f64) -> f64 {
    let lx: Vec<f64> = grid.iter().map(|x| x.ln()).collect();
    let ly: Vec<f64> = grid.iter().map(|&x| f(x).ln()).collect();
    slope(&lx, &ly)
}

/// The numbers of `line` after `after`: the first `k` numbers of the text that follows it.
fn numbers_after(line: &str, after: &str, k: usize) -> Vec<f64> {
    let start = line.find(after).unwrap_or_else(|| panic!("no {after:?} in {line}")) + after.len();
    let nums: Vec<f64> = line[start..]
        .split(|c: char| c == '[' || c == ']' || c == ',' || c == ';' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map_while(|s| s.parse().ok())
        .take(k)
        .collect();
    assert_eq!(nums.len(), k, "{line}");
    nums
}

/// O5 (notes §6): E5's fitted slopes within their tolerance bands, and the issue's "Frank–Wolfe's
/// excess at fixed n grows more slowly in d than mirror descent's", on the quick run of seed 3.
///
/// **Bands.** Each is recomputed here from the paper's rates (not read from the report), then
/// compared with the band the report prints (to its 3 decimals): from the rate's polynomial
/// exponent to the log–log slope, on the quick grid, of the rate with its logarithms (unit
/// constants), widened by ±0.1:
/// - (a) MD vs d (n = 2¹³, ε = ½, d = 8..512): √d·(ln d)^{3/2}/(nε) (Thm. 4's private term) →
///   [0.5, 0.888] ± 0.1;
/// - (a) FW vs d: Thm. 6's two terms both scale as √(ln d), Thm. 2's private term as
///   (ln d)^{2/3} → [0, (2/3)·slope(ln ln d)] = [0, 0.172] ± 0.1;
/// - (b) MD vs n at ε = 50 (privacy meant negligible): n^{−1/2} → [−0.5, −0.5] ± 0.1;
/// - (b) FW vs n at ε = ½: Thm. 6's two terms both scale as ln n/√n → [−0.5, −0.379] ± 0.1;
/// - (c) MD vs ε: ε^{−1} → [−1, −1] ± 0.1;
/// - (c) FW vs ε: Thm. 6 is `c₁ + c₂/√ε` with `c₂/c₁ = √(βLD³)/(D(L + βD))` (L = 2.3, β = 1,
///   D = 2) → [−0.5, −0.169] ± 0.1.
///
/// **Why ±0.1.** A slope error s over a grid spanning a factor X in the parameter is a drift of
/// the excess by X^s between the grid's ends. The d grid spans 64 (ln 64 = 4.16), the n and ε
/// grids 16 (2.77), so ±0.1 admits constants or lower-order terms omitted from the unit-constant
/// rates that change the excess by up to ×1.52 across the d grid and ×1.32 across the n and ε
/// grids — "about" the predicted power, and no wider: a band of ±0.3 would already accept
/// MD's √d (slope 0.5) as FW's log d.
///
/// **Criterion.** A claim is observed when its 95% bootstrap interval (2000 resamples of the 8
/// seeds per point) meets the band; the ordering claim when the interval of slope(MD) − slope(FW)
/// (bootstrapped jointly) lies above 0. The run is deterministic (fixed seed 3), so the test's
/// outcome is fixed; its margins on this seed (measured): MD vs d overlaps the band by 0.067
/// (interval [0.921, 1.026]); FW vs d [0.100, 0.279] inside; slope(MD) − slope(FW) =
/// 0.783 [0.683, 0.881], 0.68 above 0; FW vs n [−0.579, −0.439] inside; MD vs ε [−1.087, −0.857]
/// inside; FW vs ε [−0.767, −0.457] overlaps by 0.143.
///
/// **Not observed: (b) MD vs n at ε = 50**, fitted −1.283 [−1.391, −1.158], entirely below the
/// band (faster than n^{−1/2}); asserted as such, not hidden. Why: n^{−1/2} is the worst-case
/// rate of convex Lipschitz SCO, but this problem's population loss is 1-strongly convex in l2
/// (E[aaᵀ] = I) and the excess is the squared error ½‖x − x*‖₂², so its statistical part falls
/// like n^{−1} and a private part like (√d/(nε))² ∝ n^{−2}; and ε = 50 does not make privacy
/// negligible (the report's noise multiplier is 0.72–0.75 at every n, so the noise is ~0.7 of the
/// per-step sensitivity). A mix of n^{−1} and n^{−2} gives a slope in [−2, −1], which the fitted
/// interval meets (asserted with the same ±0.1).
///
/// A broken implementation fails: e.g. MD's noise not growing with d (σ independent of d) flattens
/// MD's d-slope towards FW's (ordering claim and MD vs d fail); FW's noise halved at small ε
/// changes its ε-slope; a report printing bands computed with a wrong rate fails the band
/// comparison.
#[test]
fn o5_e5_slopes_within_bands_and_fw_slower_in_d() {
    let (_, md) = quick_run();
    const TOL: f64 = 0.1;
    let dims: Vec<f64> = (3..=9).map(|k| f64::from(1u32 << k)).collect();
    let ns: Vec<f64> = (10..=14).map(|k| f64::from(1u32 << k)).collect();
    let epsilons = [0.25, 0.5, 1.0, 2.0, 4.0];
    let md_d = log_log_slope(&dims, |d| d.sqrt() * d.ln().powf(1.5));
    let fw_d = log_log_slope(&dims, |d| d.ln().powf(2.0 / 3.0));
    let fw_n = log_log_slope(&ns, |n| n.ln() / n.sqrt());
    let (l, beta, diam) = (2.3f64, 1.0f64, 2.0f64);
    let ratio = (beta * l * diam.powi(3)).sqrt() / (diam * (l + beta * diam));
    let fw_e = log_log_slope(&epsilons, |e| 1.0 + ratio / e.sqrt());
    // (label, band before widening, observed on seed 3)
    let expected: [(&str, f64, f64, bool); 6] = [
        ("(a) MD vs d", 0.5, md_d, true),
        ("(a) FW vs d", 0.0, fw_d, true),
        ("(b) MD vs n, privacy negligible", -0.5, -0.5, false),
        ("(b) FW vs n, privacy dominated", -0.5, fw_n, true),
        ("(c) MD vs epsilon", -1.0, -1.0, true),
        ("(c) FW vs epsilon", -0.5, fw_e, true),
    ];
    let claims: Vec<&str> = md.lines().filter(|l| l.starts_with("- (")).collect();
    for (label, a, b, observed) in expected {
        let line = claims
            .iter()
            .find(|c| c.starts_with(&format!("- {label}:")))
            .unwrap_or_else(|| panic!("no claim {label:?} in\n{md}"));
        let (lo, hi) = (a.min(b) - TOL, a.max(b) + TOL);
        let band = numbers_after(line, "predicted slope in ", 2);
        assert!((band[0] - lo).abs() <= 6e-4 && (band[1] - hi).abs() <= 6e-4, "{label}: band {band:?} vs [{lo}, {hi}]");
        let fitted = numbers_after(line, "fitted ", 3);
        let meets = fitted[1] <= hi && fitted[2] >= lo;
        assert_eq!(meets, observed, "{label}: interval [{}, {}] vs band [{lo:.3}, {hi:.3}]", fitted[1], fitted[2]);
        let verdict = if observed { "**observed**" } else { "**not observed**" };
        assert!(line.ends_with(verdict), "{line}");
        if !observed {
            // below the band (faster than n^{-1/2}) and within the strongly convex band [-2, -1] ± 0.1
            assert!(fitted[2] < lo && fitted[2] >= -2.0 - TOL && fitted[1] <= -1.0 + TOL, "{line}");
        }
    }
    // the ordering claim: FW's slope in d below MD's, the joint interval above 0
    let slower = claims.iter().find(|c| c.starts_with("- (a) FW slower than MD:")).expect("ordering claim");
    let diff = numbers_after(slower, "slope(MD) - slope(FW) = ", 3);
    assert!(diff[1] > 0.0 && slower.ends_with("**observed**"), "{slower}");
    assert!(md.contains("6 of 7 slope claims observed"), "{md}");
}
