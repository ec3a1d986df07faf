//! `run sparse-sgd` and `run sparse-boosted-sgd`: the flags become a [`SparseRunSpec`]; the data
//! is read as compressed sparse rows (LIBSVM at the cost of its non-zeros; CSV through its dense
//! rows); the library checks, runs and accounts; the outcome is printed.

use crate::flags::{CliResult, usage};
use crate::format::num;
use crate::run_args::RunArgs;
use crate::run_sparse_args::{GivenFlags, ObjectiveArg, ScaleArg, ScoreArg, StoppingArg};
use dpref::data::sparse::SparseDataset;
use dpref::optim::run_spec::{SparseAlgorithm, SparseRunOutcome, SparseRunSpec, SparseStepSize};
use dpref::optim::sparse::{Convexity, SelectionScale, SelectionScore, StoppingRule};
use serde_json::json;

/// The [`SparseRunSpec`] of the flags; `given` are the `run` flags on the command line, and one
/// the sparse family does not read is refused (the first in `run --help` order; see
/// [`GivenFlags::first_foreign_to_sparse`]), even at its default value (`--clip 1.0`).
fn to_spec(args: &RunArgs, given: &GivenFlags, algorithm: SparseAlgorithm) -> CliResult<SparseRunSpec> {
    let name = algorithm.name();
    if let Some(flag) = given.first_foreign_to_sparse() {
        return Err(usage(format!(
            "{flag} does not apply to {name} (its steps, batches and noise are [GGKKM] Algorithm 6's own)"
        )));
    }
    if args.neighbouring != crate::account_args::NeighbouringArg::ReplaceOne {
        return Err(usage(format!(
            "{name} is accounted under --neighbouring replace-one (the paper's relation): give it explicitly"
        )));
    }
    let (Some(epsilon), Some(delta)) = (args.epsilon, args.delta) else {
        return Err(usage(format!("{name} needs --epsilon and --delta (its total budget)")));
    };
    let sparse = &args.sparse;
    let (Some(l2_bound), Some(sparsity)) = (sparse.l2_bound, sparse.sparsity) else {
        return Err(usage(format!("{name} needs --l2-bound L and --sparsity s (every row in S_s^d)")));
    };
    let mut spec = SparseRunSpec::new(algorithm, args.loss.into(), epsilon, delta, l2_bound, sparsity);
    spec.domain = dpref::geometry::Domain::parse(&args.domain)?;
    spec.convexity = match sparse.objective {
        Some(ObjectiveArg::Nonconvex) => Convexity::Nonconvex,
        _ => Convexity::Convex,
    };
    if sparse.stopping == Some(StoppingArg::CheckedFirst) {
        spec.stopping = StoppingRule::CheckedFirst;
    }
    let custom_rate = args.learning_rate != dpref::optim::RunSpec::DEFAULT_LEARNING_RATE;
    spec.step_size = match (sparse.theorem_step, sparse.initial_gap, sparse.smoothness) {
        (true, _, _) if custom_rate => {
            return Err(usage("--theorem-step sets the step size: give it or --learning-rate, not both"));
        }
        (true, None, None) if spec.convexity == Convexity::Convex => SparseStepSize::Theorem67,
        (true, Some(gap_gamma), Some(smoothness_h)) if spec.convexity == Convexity::Nonconvex => {
            SparseStepSize::Theorem68 { gap_gamma, smoothness_h }
        }
        (true, _, _) => {
            return Err(usage(
                "--theorem-step: --objective convex takes no --initial-gap/--smoothness (Thm. 6.7); \
                 --objective nonconvex needs both (Thm. 6.8)",
            ));
        }
        (false, None, None) => SparseStepSize::Fixed(args.learning_rate),
        (false, _, _) => return Err(usage("--initial-gap and --smoothness apply with --theorem-step only")),
    };
    (spec.boosting.beta, spec.seed) = (sparse.beta, args.seed);
    spec.boosting.score = match (sparse.selection_score, sparse.loss_range) {
        (Some(ScoreArg::Risk), Some(range_b)) => Some(SelectionScore::EmpiricalRisk { range_b }),
        (Some(ScoreArg::Risk), None) => return Err(usage("--selection-score risk needs --loss-range B")),
        (_, Some(_)) => return Err(usage("--loss-range applies to --selection-score risk only")),
        (Some(ScoreArg::GradientNorm), None) => Some(SelectionScore::GradientNorm),
        (None, None) => None,
    };
    spec.boosting.scale = sparse.selection_scale.map(|s| match s {
        ScaleArg::Corrected => SelectionScale::Corrected,
        ScaleArg::AsPrinted => SelectionScale::AsPrinted,
    });
    Ok(spec)
}

/// `dpref run sparse-sgd | sparse-boosted-sgd`: checks the flags, reads the data as CSR, runs, prints.
pub(crate) fn run_sparse(args: &RunArgs, given: &GivenFlags, algorithm: SparseAlgorithm) -> CliResult<String> {
    let spec = to_spec(args, given, algorithm)?;
    spec.check()?;
    // (every sparse run makes a privacy claim)
    let dimension = crate::run::data_dimension(&args.data, args.dimension, true)?;
    let data = if crate::run::is_libsvm(&args.data) {
        if args.label_column.is_some() {
            return Err(usage("--label-column applies to CSV files; a LIBSVM file has its label first on each line"));
        }
        SparseDataset::read_libsvm(&args.data, dimension)?
    } else {
        SparseDataset::from_dense(&dpref::data::read_csv(&args.data, args.label_column)?)
    };
    let outcome = spec.run(&data)?;
    Ok(print(args, &spec, &outcome))
}

fn print(args: &RunArgs, spec: &SparseRunSpec, outcome: &SparseRunOutcome) -> String {
    let SparseRunOutcome { x, evaluation, privacy, events: _, step_size, runs, selection, n, d } = outcome;
    let name = spec.algorithm.name();
    let steps: u64 = runs.iter().map(|r| r.steps).sum();
    let touched: usize = runs.iter().map(|r| r.examples_touched).sum();
    let stopping = if spec.stopping == StoppingRule::Lagged { "lagged" } else { "checked-first" };
    if args.json {
        let per_run: Vec<_> = runs
            .iter()
            .map(|r| {
                json!({
                    "stopping_time": r.steps as i64 - 1,
                    "steps": r.steps,
                    "filtered_steps": r.filtered_steps,
                    "examples_touched": r.examples_touched,
                })
            })
            .collect();
        let mut v = json!({
            "algorithm": name,
            "x": x,
            "loss": evaluation.mean_loss,
            "accuracy": evaluation.accuracy,
            "steps": steps,
            "examples_touched": touched,
            "step_size": step_size,
            "objective": if spec.convexity == Convexity::Convex { "convex" } else { "nonconvex" },
            "stopping": stopping,
            "runs": per_run,
            "privacy": {
                "epsilon": privacy.epsilon,
                "delta": privacy.delta,
                "accountant": "approx-dp",
                "neighbouring": "replace-one",
            },
        });
        if let [only] = runs.as_slice() {
            v["stopping_time"] = json!(only.steps as i64 - 1);
            v["filtered_steps"] = json!(only.filtered_steps);
        }
        if let Some(sel) = selection {
            v["selection"] = json!({
                "runs_k": runs.len(),
                "selected": sel.selected,
                "scores": sel.scores,
                "lambda": sel.scale_lambda,
                "score": if matches!(spec.boosting.score, Some(SelectionScore::EmpiricalRisk { .. })) { "risk" } else { "gradient-norm" },
                "scale": if spec.boosting.scale == Some(SelectionScale::AsPrinted) { "as-printed" } else { "corrected" },
            });
        }
        return format!("{v}\n");
    }
    let mut out = format!(
        "{name}: {steps} steps ({} run{}, {stopping} stopping), {touched} per-example gradients, on {n} examples \
         (d = {d}), {} loss {}\n",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        spec.loss.name(),
        num(evaluation.mean_loss)
    );
    let eps = privacy.epsilon.map_or_else(|| "?".to_string(), num);
    let delta = privacy.delta.map_or_else(|| "?".to_string(), num);
    out += &format!("  privacy: ({eps}, {delta})-DP by the approximate-DP accountant (privacy filter), replace-one\n");
    if privacy.epsilon.is_some_and(|e| e > spec.epsilon) {
        out += "  note: the as-printed selection scale costs 2 eps/(K+1), more than requested\n";
    }
    if let Some(sel) = selection {
        out += &format!(
            "  selected run {} of {} (Laplace scale {})\n",
            sel.selected + 1,
            runs.len(),
            num(sel.scale_lambda)
        );
    }
    let shown: Vec<String> = x.iter().take(8).map(|v| format!("{v:.6}")).collect();
    out += &format!(
        "  step size {}, x = [{}{}]\n",
        num(*step_size),
        shown.join(", "),
        if x.len() > 8 { ", ..." } else { "" }
    );
    out
}
