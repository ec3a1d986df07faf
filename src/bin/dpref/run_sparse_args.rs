//! The flags of `run sparse-sgd` and `run sparse-boosted-sgd` ([GGKKM] Algorithms 6 and 7),
//! flattened into `run`'s flags under their own heading.

use crate::flags::whole_usize;
use clap::{Args, ValueEnum};

pub(crate) const GGKKM_HEADING: &str = "Sparse gradients: sparse-sgd, sparse-boosted-sgd ([GGKKM])";

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum StoppingArg {
    #[value(help = "The paper's loop: the filter check lags one step (a filter-valid prefix plus two steps; total \
                    <= (eps, delta))")]
    Lagged,
    #[value(help = "N_t drawn first, the step run only if the filter still holds with it (every step under the \
                    filter; total <= (eps/2, delta/2), fewer steps)")]
    CheckedFirst,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ObjectiveArg {
    #[value(help = "Convex: return the average of the iterates (Thm. 6.7)")]
    Convex,
    #[value(help = "Smooth nonconvex: return a uniformly drawn iterate (Thm. 6.8)")]
    Nonconvex,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ScoreArg {
    /// The empirical risk F_S (sensitivity B/n; needs --loss-range B, every loss value in [0, B]).
    Risk,
    /// The empirical gradient norm (sensitivity 2L/n).
    GradientNorm,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ScaleArg {
    /// lambda = 2*Delta*(K+1)/(n*eps): eps/(K+1) for non-monotone scores (default).
    Corrected,
    #[value(help = "lambda = Delta*(K+1)/(n*eps) as printed in [GGKKM] Alg. 7: charged its true cost 2*eps/(K+1), \
                    so the reported epsilon exceeds --epsilon")]
    AsPrinted,
}

#[derive(Args, Default)]
pub(crate) struct SparseArgs {
    /// L > 0: the l2 bound of every row (and so of every per-example gradient).
    #[arg(long, help_heading = GGKKM_HEADING)]
    pub(crate) l2_bound: Option<f64>,
    /// s >= 1: the most non-zeros in a row (and so in a per-example gradient).
    #[arg(long, value_parser = whole_usize, help_heading = GGKKM_HEADING)]
    pub(crate) sparsity: Option<usize>,
    /// When the privacy filter is checked (default: lagged).
    #[arg(long, value_enum, help_heading = GGKKM_HEADING)]
    pub(crate) stopping: Option<StoppingArg>,
    /// Convex or nonconvex objective: which point is returned (default: convex).
    #[arg(long, value_enum, help_heading = GGKKM_HEADING)]
    pub(crate) objective: Option<ObjectiveArg>,
    #[arg(
        long,
        help_heading = GGKKM_HEADING,
        help = "The step size of Thm. 6.7 (convex: D/(nu*sqrt(tau)), a bounded --domain) or Thm. 6.8 (nonconvex: \
                sqrt(Gamma/(H*tau*nu^2)), needs --initial-gap and --smoothness) instead of --learning-rate; \
                tau = 0.25 n/ln(2/delta), nu from Lemma 6.4"
    )]
    pub(crate) theorem_step: bool,
    /// Thm. 6.8's Gamma >= F_S(x0) - min F_S.
    #[arg(long, help_heading = GGKKM_HEADING)]
    pub(crate) initial_gap: Option<f64>,
    /// Thm. 6.8's H, the smoothness of the loss.
    #[arg(long, help_heading = GGKKM_HEADING)]
    pub(crate) smoothness: Option<f64>,
    /// sparse-boosted-sgd: the failure probability beta in (0, 1); K = ceil(log2(2/beta)) runs (default 0.5).
    #[arg(long, help_heading = GGKKM_HEADING)]
    pub(crate) beta: Option<f64>,
    /// sparse-boosted-sgd: the selection score (default: risk for convex, gradient-norm for nonconvex).
    #[arg(long, value_enum, help_heading = GGKKM_HEADING)]
    pub(crate) selection_score: Option<ScoreArg>,
    /// sparse-boosted-sgd with --selection-score risk: B, the range [0, B] of every loss value.
    #[arg(long, help_heading = GGKKM_HEADING)]
    pub(crate) loss_range: Option<f64>,
    /// sparse-boosted-sgd: the Laplace scale of the selection (default: corrected).
    #[arg(long, value_enum, help_heading = GGKKM_HEADING)]
    pub(crate) selection_scale: Option<ScaleArg>,
}

/// The `run` arguments, besides [`SparseArgs`], that the sparse family reads (by clap id): the
/// data (`--data`, `--label-column`, `--dimension`), the loss, the budget `--epsilon`/`--delta` under
/// `--neighbouring replace-one`, `--learning-rate` (or its refusal with `--theorem-step`),
/// `--domain`, `--seed` and `--json` (`run_sparse.rs`: `to_spec`, `run_sparse`, `print`). Every other
/// `run` flag given on the command line is refused by a sparse run: a flag added to `run` later is
/// refused until it is listed here (the safe side).
pub(crate) const SPARSE_RUN_USES: &[&str] = &[
    "algorithm",
    "data",
    "label_column",
    "dimension",
    "loss",
    "epsilon",
    "delta",
    "neighbouring",
    "learning_rate",
    "domain",
    "seed",
    "json",
];

/// One `run` argument given on the command line.
struct GivenFlag {
    /// clap's id of the argument (the field name).
    id: String,
    /// How the user spells it: `--long-name`.
    flag: String,
    /// Whether it is a member of the group clap derives for [`SparseArgs`].
    sparse_only: bool,
}

/// The `run` arguments given on the command line (clap's [`ValueSource::CommandLine`](clap::parser::ValueSource),
/// so a flag given at its default value, e.g. `--clip 1.0`, counts as given), in the order `run
/// --help` lists them; with several misplaced flags, the first in that order is the one named.
pub(crate) struct GivenFlags(Vec<GivenFlag>);

impl GivenFlags {
    /// The arguments of `run` (the command) given in `matches` (its matches). The sparse-only ones
    /// are the members of the [`clap::ArgGroup`] that `derive(Args)` makes for [`SparseArgs`].
    pub(crate) fn new(run: &clap::Command, matches: &clap::ArgMatches) -> Self {
        let group = <SparseArgs as Args>::group_id();
        let sparse: Vec<&clap::Id> =
            run.get_groups().filter(|g| Some(g.get_id()) == group.as_ref()).flat_map(|g| g.get_args()).collect();
        let given = run.get_arguments().filter(|arg| {
            matches.try_contains_id(arg.get_id().as_str()).unwrap_or(false)
                && matches.value_source(arg.get_id().as_str()) == Some(clap::parser::ValueSource::CommandLine)
        });
        GivenFlags(
            given
                .map(|arg| GivenFlag {
                    id: arg.get_id().to_string(),
                    flag: arg.get_long().map_or_else(|| arg.get_id().to_string(), |long| format!("--{long}")),
                    sparse_only: sparse.contains(&arg.get_id()),
                })
                .collect(),
        )
    }

    /// The first sparse-only flag given (refused by the dense algorithms).
    pub(crate) fn first_sparse_only(&self) -> Option<&str> {
        self.0.iter().find(|g| g.sparse_only).map(|g| g.flag.as_str())
    }

    /// The first flag given that the sparse family does not read: neither a [`SparseArgs`] member
    /// nor one of [`SPARSE_RUN_USES`].
    pub(crate) fn first_foreign_to_sparse(&self) -> Option<&str> {
        let foreign = |g: &&GivenFlag| !g.sparse_only && !SPARSE_RUN_USES.contains(&g.id.as_str());
        self.0.iter().find(foreign).map(|g| g.flag.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::{GivenFlags, SPARSE_RUN_USES, SparseArgs};
    use clap::{Args, CommandFactory, FromArgMatches};

    fn run_command() -> clap::Command {
        crate::Cli::command().find_subcommand("run").expect("`run` is a subcommand").clone()
    }

    /// The sparse-only flags are exactly the fields of [`SparseArgs`]: the group clap derives for
    /// it in `run` has the same ids as `SparseArgs` alone augments a bare command with (11 flags).
    #[test]
    fn the_sparse_args_group_is_the_sparse_args_struct() {
        let run = run_command();
        let id = SparseArgs::group_id().expect("derive(Args) names a group");
        let group: Vec<String> =
            run.get_groups().filter(|g| g.get_id() == &id).flat_map(|g| g.get_args()).map(|a| a.to_string()).collect();
        let own = SparseArgs::augment_args(clap::Command::new("alone"));
        let fields: Vec<String> = own.get_arguments().map(|a| a.get_id().to_string()).collect();
        assert_eq!(group, fields);
        assert_eq!(fields.len(), 11, "{fields:?}");
        for id in SPARSE_RUN_USES {
            assert!(run.get_arguments().any(|a| a.get_id() == id), "{id} is not a `run` argument");
            assert!(!fields.iter().any(|f| f == id), "{id} is both sparse-only and shared");
        }
    }

    /// The outcome of `dpref run <algorithm> --data <missing> --loss logistic <extra>`.
    fn run(algorithm: &str, extra: &[&str]) -> Result<String, String> {
        let mut line = vec!["dpref", "run", algorithm, "--data", "/nonexistent/dpref-flags.csv", "--loss", "logistic"];
        line.extend(extra);
        let matches = crate::Cli::command().try_get_matches_from(&line).map_err(|e| format!("{line:?}: {e}"))?;
        let Ok(crate::Cli { command: crate::Command::Run(args) }) = crate::Cli::from_arg_matches(&matches) else {
            return Err(format!("{line:?} is not a run"));
        };
        let given = GivenFlags::new(&run_command(), matches.subcommand_matches("run").expect("run"));
        crate::run::run_algorithm(&args, &given).map_err(|e| e.to_string())
    }

    /// Every `run` flag, given on the command line with a valid value (its first possible value, else
    /// "1"), is refused by sparse-sgd unless the sparse family reads it, and refused by dp-sgd if it
    /// is a [`SparseArgs`] flag — with the message naming it. A flag added to `run` is covered
    /// without editing this test; a forgotten list entry (the old hand-kept lists) fails it.
    #[test]
    fn every_run_flag_is_refused_where_it_does_not_apply() {
        let run_cmd = run_command();
        let sparse_id = SparseArgs::group_id().expect("derive(Args) names a group");
        let sparse: Vec<&clap::Id> =
            run_cmd.get_groups().filter(|g| g.get_id() == &sparse_id).flat_map(|g| g.get_args()).collect();
        let (mut foreign, mut sparse_only) = (0, 0);
        for arg in run_cmd.get_arguments().filter(|a| a.get_long().is_some()) {
            let (id, long) = (arg.get_id().as_str(), format!("--{}", arg.get_long().unwrap_or_default()));
            if id == "data" || id == "loss" {
                continue; // always given (required)
            }
            let value = arg.get_possible_values().first().map_or("1".to_string(), |v| v.get_name().to_string());
            let extra: Vec<&str> =
                if arg.get_action().takes_values() { vec![long.as_str(), value.as_str()] } else { vec![long.as_str()] };
            let on_sparse = run("sparse-sgd", &extra);
            let on_dense = run("dp-sgd", &extra);
            let refused_by_sparse = format!("{long} does not apply to sparse-sgd (its steps, batches and noise");
            let refused_by_dense = format!("{long} applies to sparse-sgd and sparse-boosted-sgd only");
            let names = |r: &Result<String, String>, m: &str| matches!(r, Err(e) if e.starts_with(m));
            if sparse.contains(&arg.get_id()) {
                sparse_only += 1;
                assert!(names(&on_dense, &refused_by_dense), "{long}: {on_dense:?}");
                assert!(!matches!(&on_sparse, Err(e) if e.contains("does not apply")), "{long}: {on_sparse:?}");
            } else if SPARSE_RUN_USES.contains(&id) {
                assert!(!matches!(&on_sparse, Err(e) if e.contains("does not apply")), "{long}: {on_sparse:?}");
                assert!(!matches!(&on_dense, Err(e) if e.contains("applies to sparse")), "{long}: {on_dense:?}");
            } else {
                foreign += 1;
                assert!(names(&on_sparse, &refused_by_sparse), "{long}: {on_sparse:?}");
                assert!(!matches!(&on_dense, Err(e) if e.contains("applies to sparse")), "{long}: {on_dense:?}");
            }
        }
        // the 26 flags of the old hand-kept list and its 11 sparse-only flags
        assert_eq!((foreign, sparse_only), (26, 11));
    }

    /// A flag given at its default value counts as given; of several, the first in `run --help`
    /// order is named (--ellipsoid before --paper-noise; --sparsity before --beta), whatever
    /// order they were typed in.
    #[test]
    fn defaults_given_count_and_the_first_in_help_order_is_named() {
        for (extra, named) in [
            (&["--clip", "1.0"][..], "--clip"),
            (&["--variant", "minibatch"], "--variant"),
            (&["--lambda", "none"], "--lambda"),
            (&["--paper-noise", "--ellipsoid", "identity"], "--ellipsoid"),
            (&["--rounds", "2", "--hidden", "3", "--sigma", "1"], "--hidden"),
        ] {
            let e = run("sparse-sgd", extra).expect_err("refused");
            assert!(e.starts_with(&format!("{named} does not apply to sparse-sgd")), "{extra:?}: {e}");
        }
        let e = run("dp-sgd", &["--beta", "0.3", "--sparsity", "2"]).expect_err("refused");
        assert_eq!(e, "--sparsity applies to sparse-sgd and sparse-boosted-sgd only");
    }
}
