//! `dpref reproduce privacy`: the privacy settings the papers report, re-accounted.
//!
//! Each row is a setting a paper (or a reference library) reports, with the ε it claims, and
//! dpref's RDP upper bounds under the classic and the improved conversion, side by side, plus the
//! same steps with fixed-size sampling without replacement under replace-one (where a replaced
//! record moves a clipped sum by 2C, so the event's multiplier is σ/2). Settings and locations
//! are the papers' own (see each row's `source`; bibliography and the reference vectors G1–G3 in
//! `proofs/README.md`).

use super::report::decimals_up;
use crate::accounting::{Accountant, Conversion, DpEvent, Neighbouring, RdpAccountant, SamplingScheme, dp_sgd_event};
use crate::error::Result;
use serde::Serialize;

/// An order grid to account with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Orders {
    /// [`crate::accounting::rdp::default_orders`].
    Default,
    /// TF Privacy's `compute_dp_sgd_privacy` grid: 1.25..4.5, 5..63, 128, 256, 512.
    TfPrivacy,
    /// Opacus' `DEFAULT_ALPHAS`: 1.1..10.9 step 0.1, 12..63.
    Opacus,
}

impl Orders {
    /// The grid.
    pub fn grid(self) -> Vec<f64> {
        match self {
            Orders::Default => crate::accounting::rdp::default_orders(),
            Orders::TfPrivacy => {
                let mut v = vec![1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 4.5];
                v.extend((5..64).map(|x| x as f64));
                v.extend([128.0, 256.0, 512.0]);
                v
            }
            Orders::Opacus => {
                let mut v: Vec<f64> = (1..100).map(|x| 1.0 + x as f64 / 10.0).collect();
                v.extend((12..64).map(|x| x as f64));
                v
            }
        }
    }
}

/// One reported setting: Poisson-sampled DP-SGD-style steps.
#[derive(Debug, Clone, Serialize)]
pub struct Setting {
    /// Short name.
    pub name: &'static str,
    /// Paper key and location (file line / table / figure).
    pub source: &'static str,
    /// Dataset size n.
    pub dataset_size: u64,
    /// Batch size b (expected batch size under Poisson: q = b/n).
    pub batch_size: u64,
    /// Noise multiplier σ (noise std / clip norm on the sum).
    pub sigma: f64,
    /// Number of steps T.
    pub steps: u64,
    /// δ.
    pub delta: f64,
    /// The ε the source reports, if any.
    pub claimed_epsilon: Option<f64>,
    /// Decimal places of the claim (to judge agreement by rounding).
    pub claimed_decimals: u32,
    /// The order grid the source's computation used.
    pub orders: Orders,
    /// Remark printed under the table.
    pub remark: &'static str,
}

/// The settings, papers first, then reference-library vectors (G1–G3 of `proofs/README.md`).
pub fn settings() -> Vec<Setting> {
    let mut v = Vec::new();
    for (sigma, claim) in [(2.0, 1.22), (4.0, 0.57), (8.0, 0.28)] {
        v.push(Setting {
            name: "ZCHWB MNIST",
            source: "[ZCHWB] Sec. 6, Fig. 1",
            dataset_size: 60_000,
            batch_size: 128,
            sigma,
            steps: 46_875,
            delta: 1e-5,
            claimed_epsilon: Some(claim),
            claimed_decimals: 2,
            orders: Orders::Default,
            remark: "100 epochs x 60000/128 = 46875 steps; the paper cites GDP [6] but its numbers are RDP with the classic conversion",
        });
    }
    v.push(Setting {
        name: "DP2 IMDB",
        source: "[LZLRMS] Sec. 5.1, App. C.1-C.2",
        dataset_size: 25_000,
        batch_size: 64,
        sigma: 1.0,
        steps: 39_000,
        delta: 1e-5,
        claimed_epsilon: Some(3.03),
        claimed_decimals: 2,
        orders: Orders::TfPrivacy,
        remark: "epsilon appears only in the paper's figures; 3.03 is the value under TF Privacy's order grid and the improved conversion",
    });
    v.push(Setting {
        name: "DP2 StackOverflow",
        source: "[LZLRMS] Sec. 5.1, App. C.1-C.2",
        dataset_size: 246_092,
        batch_size: 64,
        sigma: 1.0,
        steps: 192_250,
        delta: 1e-6,
        claimed_epsilon: None,
        claimed_decimals: 2,
        orders: Orders::TfPrivacy,
        remark: "50 epochs x 3845 steps; epsilon only in figures",
    });
    v.push(Setting {
        name: "DP2 MovieLens",
        source: "[LZLRMS] Sec. 5.1, App. C.1-C.2",
        dataset_size: 80_000,
        batch_size: 64,
        sigma: 0.5,
        steps: 62_500,
        delta: 1e-6,
        claimed_epsilon: None,
        claimed_decimals: 2,
        orders: Orders::TfPrivacy,
        remark: "n = 80000 inferred from 1250 steps/epoch; epsilon only in figures",
    });
    // Reference-library vectors (G1–G3 of proofs/README.md).
    v.push(Setting {
        name: "anchor G1 (TF Privacy)",
        source: "G1: TF Privacy compute_dp_sgd_privacy_test",
        dataset_size: 60_000,
        batch_size: 150,
        sigma: 1.3,
        steps: 6_000,
        delta: 1e-5,
        claimed_epsilon: Some(0.7242234026109595),
        claimed_decimals: 9,
        orders: Orders::TfPrivacy,
        remark: "improved conversion; the classic one gives 0.941870567",
    });
    v.push(Setting {
        name: "anchor G2 (TF MNIST tutorial)",
        source: "G2: TF Privacy MNIST tutorial",
        dataset_size: 60_000,
        batch_size: 256,
        sigma: 1.1,
        steps: 14_063,
        delta: 1e-5,
        claimed_epsilon: Some(3.01),
        claimed_decimals: 2,
        orders: Orders::Default,
        remark: "the tutorial's 3.01 is the classic conversion (3.0084); improved 2.59666",
    });
    v.push(Setting {
        name: "anchor G3 (Opacus test)",
        source: "G3: opacus/tests/accountants_test.py",
        dataset_size: 25,
        batch_size: 1,
        sigma: 1.5,
        steps: 2_250,
        delta: 1e-5,
        claimed_epsilon: Some(7.32911117143),
        claimed_decimals: 8,
        orders: Orders::Opacus,
        remark: "q = 0.04 (= 1/25); Opacus' RDP value, 7.4e-12 below the exact 7.329111171484174 (mpmath), compared at 8 decimals",
    });
    v
}

/// One accounted row.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The setting.
    pub setting: Setting,
    /// q = b/n.
    pub q: f64,
    /// ε, Poisson add/remove, classic conversion.
    pub epsilon_classic: f64,
    /// ε, Poisson add/remove, improved conversion.
    pub epsilon_improved: f64,
    /// The order of the improved bound.
    pub order_improved: Option<f64>,
    /// ε, fixed-size without replacement, replace-one, improved conversion.
    pub epsilon_wor_replace_one: f64,
    /// A certified **lower** bound on the true ε of the Poisson add/remove mechanism
    /// ([`crate::audit::accountant::audit_claim`] of its worst-case pair), ≤ `epsilon_improved`.
    pub epsilon_audited: f64,
    /// Which conversion reproduces the claim at its precision, if any.
    pub verdict: String,
}

fn epsilon(
    event: &DpEvent,
    orders: Vec<f64>,
    nb: Neighbouring,
    delta: f64,
    c: Conversion,
) -> Result<crate::accounting::EpsilonBound> {
    let mut acc = RdpAccountant::with_orders(orders, nb)?;
    acc.compose(event, 1)?;
    acc.epsilon(delta, c)
}

/// Accounts the settings of one paper: those whose name starts with `key` (e.g. "DP2").
///
/// # Errors
/// Accountant errors.
pub fn account_paper(key: &str) -> Result<Vec<Row>> {
    settings().iter().filter(|s| s.name.starts_with(key)).map(account).collect()
}

/// Accounts one setting.
///
/// # Errors
/// Propagates accountant errors (none for the built-in settings).
pub fn account(s: &Setting) -> Result<Row> {
    let q = s.batch_size as f64 / s.dataset_size as f64;
    let grid = s.orders.grid();
    let poisson = dp_sgd_event(s.sigma, SamplingScheme::Poisson { q }, s.steps)?;
    let classic = epsilon(&poisson, grid.clone(), Neighbouring::AddRemove, s.delta, Conversion::Classic)?;
    let improved = epsilon(&poisson, grid.clone(), Neighbouring::AddRemove, s.delta, Conversion::Improved)?;
    let wor_scheme = SamplingScheme::WithoutReplacement { dataset_size: s.dataset_size, batch_size: s.batch_size };
    let wor = dp_sgd_event(s.sigma, wor_scheme, s.steps)?;
    let wor_eps = epsilon(&wor, grid, Neighbouring::ReplaceOne, s.delta, Conversion::Improved)?;
    // the audit refuses (Numerical) a lower bound above its own upper bounds
    let audited =
        crate::audit::accountant::audit_claim(&poisson, improved.epsilon, s.delta, Neighbouring::AddRemove)?.lower;
    let verdict = match s.claimed_epsilon {
        None => "no claim in the text".to_string(),
        Some(claim) => {
            let scale = 10f64.powi(s.claimed_decimals as i32);
            let matches = |e: f64| ((e * scale).round() - (claim * scale).round()).abs() < 0.5;
            match (matches(classic.epsilon), matches(improved.epsilon)) {
                (true, true) => "reproduced (both conversions)".into(),
                (true, false) => "reproduced with the classic conversion".into(),
                (false, true) => "reproduced with the improved conversion".into(),
                (false, false) => "NOT reproduced".into(),
            }
        }
    };
    Ok(Row {
        setting: s.clone(),
        q,
        epsilon_classic: classic.epsilon,
        epsilon_improved: improved.epsilon,
        order_improved: improved.order,
        epsilon_wor_replace_one: wor_eps.epsilon,
        epsilon_audited: audited,
        verdict,
    })
}

/// The table as Markdown.
pub fn markdown(rows: &[Row]) -> String {
    let mut s = String::from(
        "| setting | q | sigma | T | delta | claimed eps | RDP classic | RDP improved (order) | audited (lower) | w/o repl., replace-one | verdict |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let st = &r.setting;
        let claim = st.claimed_epsilon.map_or("-".to_string(), |c| format!("{c}"));
        let order = r.order_improved.map_or("-".to_string(), |o| format!("{o}"));
        s += &format!(
            "| {} | {} | {} | {} | {:e} | {} | {} | {} ({}) | {} | {} | {} |\n",
            st.name,
            r.q,
            st.sigma,
            st.steps,
            st.delta,
            claim,
            decimals_up(r.epsilon_classic, 4),
            decimals_up(r.epsilon_improved, 4),
            order,
            super::report::decimals_down(r.epsilon_audited, 4),
            decimals_up(r.epsilon_wor_replace_one, 4),
            r.verdict
        );
    }
    s += "\nAll epsilons are upper bounds from dpref's RDP accountant, rounded up at the last digit shown (Poisson sampling, add/remove, unless stated). \
          The without-replacement column uses fixed-size batches under replace-one neighbouring, where a replaced \
          record moves the clipped sum by 2C (event multiplier sigma/2). The audited column is a certified lower bound on \
          the true epsilon of the Poisson add/remove mechanism (the audit accountant's optimistic PLD of its worst-case \
          pair, rounded down): the true epsilon lies between it and the RDP columns; 0 where the audit certifies no \
          positive bound. The without-replacement column is not \
          audited in this table.\n\n";
    let mut seen = std::collections::HashSet::new();
    for r in rows {
        let line = format!("- {}: {} ({})\n", r.setting.name, r.setting.remark, r.setting.source);
        if seen.insert(line.clone()) {
            s += &line;
        }
    }
    s
}

/// What `reproduce privacy` produced.
#[derive(Debug, Clone)]
pub struct Report {
    /// The accounted rows.
    pub rows: Vec<Row>,
    /// The Markdown report (settings block and table), its summary for the index, the file written
    /// (`privacy.md`).
    pub written: super::Written,
}

/// Accounts every setting and writes `privacy.md` under `out`.
///
/// # Errors
/// Accountant or I/O errors.
pub fn run(options: &super::Options, out: &std::path::Path) -> Result<Report> {
    let progress = super::Progress::new("privacy", options);
    progress.say(format!("accounting {} settings", settings().len()));
    let rows: Vec<Row> = settings().iter().map(account).collect::<Result<_>>()?;
    let claimed = rows.iter().filter(|r| r.setting.claimed_epsilon.is_some()).count();
    let reproduced = rows.iter().filter(|r| r.verdict.starts_with("reproduced")).count();
    let summary = format!("{reproduced} of {claimed} claimed epsilons reproduced");
    let markdown = format!(
        "## Privacy accounting of the papers' settings\n\n{}{}",
        super::report::settings_block(
            "privacy",
            options,
            "per row (the paper's own)",
            "none: deterministic accounting (mode and seed do not change it)"
        ),
        markdown(&rows)
    );
    Ok(Report { rows, written: super::Written::report(out, "privacy", summary, markdown, Vec::new())? })
}
