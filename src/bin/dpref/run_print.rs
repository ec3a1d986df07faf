//! The text and JSON of a `run`'s outcome.

use crate::format::{num, plural};
use crate::run_args::RunArgs;
use dpref::optim::RunSpec;
use dpref::optim::run_spec::{Algorithm, RunOutcome, Variant};
use serde_json::json;

/// The outcome as text, or as one JSON object with `--json`.
pub(crate) fn print(args: &RunArgs, spec: &RunSpec, outcome: &RunOutcome) -> String {
    let RunOutcome { run, evaluation, sampling: scheme, neighbouring, n, d } = outcome;
    let name = spec.algorithm.name();
    let p = run.x.len();
    // Frank–Wolfe and entropic mirror descent make one pass over a random permutation per round:
    // no sampling rate; Frank–Wolfe's (ε, δ) is its own ledger's (pure per-sample, or the node
    // groups' of Lemma 4.4 with δ > 0), not the RDP accountant's.
    // Localized mirror descent samples without replacement inside each phase's own block.
    let (sampling, q) = match spec.algorithm {
        Algorithm::PrivateFrankWolfe | Algorithm::EntropicMirrorDescent => ("permutation", None),
        Algorithm::LocalizedMirrorDescent => ("phase-blocks", None),
        _ => (scheme.name(), Some(scheme.rate())),
    };
    if args.json {
        let mut v = json!({
            "algorithm": name,
            "x": run.x,
            "loss": evaluation.mean_loss,
            "steps": run.steps,
            "privacy": {
                "epsilon": run.privacy.epsilon,
                "delta": run.privacy.delta,
                "sigma": run.privacy.sigma,
                "sampling": sampling,
                "q": q,
                "neighbouring": neighbouring.name(),
            },
        });
        if spec.algorithm.is_dp2() {
            v["ablation"] = json!(spec.dp2.ablation.map_or("none", |a| a.name()));
            v["accuracy"] = json!(evaluation.accuracy);
        }
        if spec.algorithm.is_dpagd() {
            v["variant"] = json!(if spec.variant == Variant::Paper { "paper" } else { "minibatch" });
            v["accuracy"] = json!(evaluation.accuracy);
        }
        return format!("{v}\n");
    }
    let mut out = format!(
        "{name}: {} on {n} examples (d = {d}), {} loss {}\n",
        plural(run.steps, "step"),
        spec.loss.name(),
        num(evaluation.mean_loss)
    );
    if let Some(acc) = evaluation.accuracy {
        out += &format!("  training accuracy {acc:.4}\n");
    }
    out += &match run.privacy.epsilon {
        Some(e) if spec.algorithm == Algorithm::PrivateFrankWolfe => match run.privacy.delta.filter(|d| *d > 0.0) {
            None => format!(
                "  privacy: ({}, 0)-DP by the per-sample ledger of its noisy vertex selections, one pass over a \
                 permutation, {} neighbouring\n",
                num(e),
                neighbouring.name()
            ),
            Some(delta) => format!(
                "  privacy: ({}, {})-DP by the guarantees of its node groups (Lemma 4.4), one pass over a \
                 permutation, {} neighbouring\n",
                num(e),
                num(delta),
                neighbouring.name()
            ),
        },
        Some(e) => format!(
            "  privacy: ({}, {})-DP by the RDP accountant; noise multiplier {}, {} sampling (q = {}), {} neighbouring\n",
            num(e),
            run.privacy.delta.map_or_else(|| "?".to_string(), num),
            num(run.privacy.sigma),
            sampling,
            q.map_or_else(|| "per phase".to_string(), num),
            neighbouring.name()
        ),
        None => format!("  privacy: no claim (noise multiplier {}, clip {})\n", num(run.privacy.sigma), args.clip),
    };
    let shown: Vec<String> =
        run.x.iter().take(8).map(|v| if v.abs() < 1e9 { format!("{v:.6}") } else { format!("{v:.6e}") }).collect();
    out += &format!("  x = [{}{}]\n", shown.join(", "), if p > 8 { ", ..." } else { "" });
    out
}
