//! `run`: the flags become a [`RunSpec`]; the library resolves, checks and runs it.

use crate::flags::{CliError, CliResult, usage};
use crate::run_args::RunArgs;
use crate::run_sparse_args::GivenFlags;
use dpref::error::Error;
use dpref::optim::RunSpec;
use dpref::optim::run_spec::{Algorithm, Ellipsoid};

/// The [`RunSpec`] of the flags. The error of a `--lambda` or `--ellipsoid` text that does not
/// parse is returned second, to be reported only if the spec's own checks pass (a flag the
/// algorithm does not use is reported as such, whatever its value).
fn to_spec(args: &RunArgs, algorithm: Algorithm) -> CliResult<(RunSpec, Option<CliError>)> {
    let domain = dpref::geometry::Domain::parse(&args.domain)?;
    let clip = if args.clip == "none" {
        None
    } else {
        let c: f64 = args
            .clip
            .parse()
            .map_err(|_| usage(format!("--clip must be a positive number or none, got '{}'", args.clip)))?;
        Some(c)
    };
    let mut deferred = None;
    let lambda = match args.lambda.as_str() {
        "none" => None,
        text => Some(text.parse().unwrap_or_else(|_| {
            deferred = Some(Error::invalid("--lambda", text, "a positive number or none").into());
            1.0
        })),
    };
    let ellipsoid = args.ellipsoid.as_deref().map(|spec| {
        let parsed = match spec {
            "identity" => Some(Ellipsoid::Identity),
            _ => match (spec.strip_prefix("power:"), spec.strip_prefix("file:")) {
                (Some(p), _) => p.parse().ok().map(Ellipsoid::Power),
                (_, Some(path)) => Some(Ellipsoid::File(path.into())),
                _ => None,
            },
        };
        parsed.unwrap_or_else(|| {
            let bad = format!("--ellipsoid must be identity, power:<p> or file:<path>, got '{spec}'");
            deferred = deferred.take().or(Some(usage(bad)));
            Ellipsoid::Identity
        })
    });
    let mut spec = RunSpec::new(algorithm, args.loss.into());
    spec.hidden = args.hidden.clone();
    (spec.epsilon, spec.delta, spec.sigma, spec.paper_noise) = (args.epsilon, args.delta, args.sigma, args.paper_noise);
    spec.neighbouring = args.neighbouring.into();
    (spec.batch_size, spec.sampling, spec.steps) = (args.batch_size, args.sampling.map(Into::into), args.steps);
    (spec.learning_rate, spec.clip, spec.domain) = (args.learning_rate, clip, domain);
    (spec.output, spec.seed) = (args.output.map(Into::into), args.seed);
    spec.ellipsoid = ellipsoid;
    spec.projection = args.projection.map(|p| match p {
        crate::run_args::ProjectionArg::Radial => dpref::geometry::EllipsoidProjection::Radial,
        crate::run_args::ProjectionArg::Euclidean => dpref::geometry::EllipsoidProjection::Euclidean,
    });
    spec.variant = args.variant.into();
    (spec.beta1, spec.beta2, spec.nu, spec.lambda) = (args.beta1, args.beta2, args.nu, lambda);
    spec.bias_correction = args.bias_correction;
    spec.dp2 = args.dp2.options();
    (spec.mirror_map, spec.selection) = (args.mirror_map.map(Into::into), args.selection.map(Into::into));
    spec.phases = match args.phases {
        Some(t) => Some(u32::try_from(t).map_err(|_| usage(format!("--phases must be at most 40, got {t}")))?),
        None => None,
    };
    spec.rounds = args.rounds;
    Ok((spec, deferred))
}

/// `dpref run`: checks the spec, reads the data, runs, prints. `given` are the flags on the
/// command line: a sparse-only one (the first in `run --help` order) is refused here.
pub(crate) fn run_algorithm(args: &RunArgs, given: &GivenFlags) -> CliResult<String> {
    let algorithm = match args.algorithm.resolve() {
        Ok(algorithm) => algorithm,
        Err(sparse) => return crate::run_sparse::run_sparse(args, given, sparse),
    };
    if let Some(flag) = given.first_sparse_only() {
        return Err(usage(format!("{flag} applies to sparse-sgd and sparse-boosted-sgd only")));
    }
    let (spec, deferred) = to_spec(args, algorithm)?;
    spec.check()?;
    if let Some(e) = deferred {
        return Err(e);
    }
    let libsvm = is_libsvm(&args.data);
    if libsvm && args.label_column.is_some() {
        return Err(usage("--label-column applies to CSV files; a LIBSVM file has its label first on each line"));
    }
    let dimension = data_dimension(&args.data, args.dimension, spec.is_private())?;
    let data = if libsvm {
        dpref::data::read_libsvm(&args.data, dimension)?
    } else {
        dpref::data::read_csv(&args.data, args.label_column)?
    };
    let plan = spec.plan(&data)?;
    let mut progress = Progress::new(plan.steps);
    let outcome = plan.execute(&mut progress);
    progress.finish();
    Ok(crate::run_print::print(args, &spec, &outcome?))
}

/// Progress of a `run` on stderr, drawn only when stderr is a terminal and the run has lasted
/// more than a second; stdout (text or JSON) is unchanged.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    start: std::time::Instant,
    shown: bool,
}

impl Progress {
    fn new(steps: u64) -> Self {
        use std::io::IsTerminal;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(Some(steps), indicatif::ProgressDrawTarget::hidden());
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {elapsed} (eta {eta})")
            {
                bar.set_style(style);
            }
            bar
        });
        Progress { bar, start: std::time::Instant::now(), shown: false }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl dpref::optim::Observer for Progress {
    fn observe(&mut self, event: dpref::optim::TraceEvent<'_>) {
        let (Some(bar), dpref::optim::TraceEvent::Iterate { step, .. }) = (&self.bar, event) else {
            return;
        };
        if !self.shown && self.start.elapsed() > std::time::Duration::from_secs(1) {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(4));
            self.shown = true;
        }
        bar.set_position((step + 1).max(bar.position()));
    }
}

/// Whether `path` is read as LIBSVM (by its extension) rather than CSV.
pub(crate) fn is_libsvm(path: &std::path::Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("svm" | "libsvm"))
}

/// The dimension to read `path` at: for a LIBSVM file, `--dimension` (public), or without it the
/// file's largest feature index, which only a run without a privacy claim may use (it depends on
/// the records: under replace-one, one record with index 9 instead of 3 turned a released x of 3
/// entries into 9); `None` for a CSV, whose columns fix d (`--dimension` refused there).
pub(crate) fn data_dimension(
    path: &std::path::Path,
    dimension: Option<usize>,
    private: bool,
) -> CliResult<Option<usize>> {
    match (is_libsvm(path), dimension) {
        (false, Some(_)) => Err(usage("--dimension applies to LIBSVM files (a CSV's columns fix the dimension)")),
        (false, None) => Ok(None),
        (true, Some(d)) => Ok(Some(d)),
        (true, None) if private => Err(usage(
            "a LIBSVM file's dimension is its largest feature index, which depends on the records (a released \
             vector of that length would reveal it): give the public dimension with --dimension <d>",
        )),
        (true, None) => Ok(None),
    }
}
