//! The checks of a [`RunSpec`] that need no data: ranges, settings the algorithm would ignore,
//! and the privacy claims no accountant covers.
//!
//! Proof: proofs/run_spec.md.

use super::{Algorithm, RunSpec, Sampling, Variant, refuse, require};
use crate::accounting::Neighbouring;
use crate::error::Result;

impl RunSpec {
    /// Checks everything that does not depend on the data, naming the parameter at fault.
    ///
    /// # Errors
    /// [`crate::Error::RunSpec`] for a value out of range, a setting `algorithm` does not use,
    /// with-replacement sampling with a privacy claim, or a private full-batch run under
    /// add-remove without a public `batch_size`.
    pub fn check(&self) -> Result<()> {
        if let Some(c) = self.clip {
            require("clip", c, c.is_finite() && c > 0.0, "> 0 and finite")?;
        }
        self.check_family()?;
        self.check_ranges()?;
        if self.delta.is_some() && self.epsilon.is_none() && !self.is_private() {
            return Err(refuse(
                "delta",
                "`delta` is the delta of a privacy claim, but this run makes none (`clip` none or `sigma` 0): \
                 drop `delta`",
            ));
        }
        let reports_epsilon = self.epsilon.is_some() || (self.is_private() && self.delta.is_some());
        if self.sampling == Some(Sampling::WithReplacement) && reports_epsilon {
            let fix = if self.epsilon.is_some() {
                "give `sigma` without `delta` to train without a privacy claim"
            } else {
                "drop `delta` to train with `sigma` and no privacy claim"
            };
            return Err(refuse(
                "sampling",
                format!(
                    "unsupported: no accountant covers `sampling` with-replacement (a record can appear in a batch \
                     several times), so no epsilon can be given: use `sampling` poisson (or without-replacement \
                     with `neighbouring` replace-one), or {fix}"
                ),
            ));
        }
        let full = self.sampling == Some(Sampling::Full) || self.variant == Variant::Paper;
        if full && self.is_private() && self.batch_size.is_none() && self.neighbouring == Neighbouring::AddRemove {
            return Err(refuse(
                "batch_size",
                "`sampling` full under add-remove neighbouring needs `batch_size` n, the dataset size declared \
                 public: dividing the noisy sum by a size read from the data would reveal whether a record is \
                 present (or use `neighbouring` replace-one)",
            ));
        }
        Ok(())
    }

    /// Refuses settings the algorithm would ignore: the first parameter of the table that is set
    /// but not used by the algorithm.
    fn check_family(&self) -> Result<()> {
        use Algorithm::*;
        let alg = self.algorithm;
        const DP2: &str = "dp2-rmsprop, dp2-adagrad and dp2-yogi";
        const ADAPTIVE_NOISE: &str = "pasan and pagan";
        // (parameter, set, used by `alg`, the algorithms that use it)
        let rules: [(&'static str, bool, bool, &str); 18] = [
            ("beta1", self.beta1.is_some(), alg == DpAdam, "dp-adam"),
            (
                "beta2",
                self.beta2.is_some(),
                matches!(alg, DpRmsprop | DpAdam | Dp2Rmsprop | Dp2Yogi),
                "dp-rmsprop, dp-adam, dp2-rmsprop and dp2-yogi",
            ),
            (
                "nu",
                self.nu.is_some(),
                matches!(alg, DpRmsprop | DpAdam | DpAdagrad) || alg.is_dp2(),
                "dp-rmsprop, dp-adam, dp-adagrad and dp2-*",
            ),
            ("ellipsoid", self.ellipsoid.is_some(), alg.is_adaptive_noise(), ADAPTIVE_NOISE),
            ("projection", self.projection.is_some(), alg.is_adaptive_noise(), ADAPTIVE_NOISE),
            ("lambda", self.lambda.is_some(), alg.is_dpagd(), "dp-rmsprop and dp-adam with `variant` paper"),
            ("bias_correction", self.bias_correction.is_some(), alg == DpAdam, "dp-adam"),
            ("delay_sgd", self.dp2.delay_sgd.is_some(), alg.is_dp2(), DP2),
            ("delay_adaptive", self.dp2.delay_adaptive.is_some(), alg.is_dp2(), DP2),
            ("clip_sgd", self.dp2.clip_sgd.is_some(), alg.is_dp2(), DP2),
            ("clip_adaptive", self.dp2.clip_adaptive.is_some(), alg.is_dp2(), DP2),
            ("learning_rate_adaptive", self.dp2.learning_rate_adaptive.is_some(), alg.is_dp2(), DP2),
            ("ablation", self.dp2.ablation.is_some(), alg.is_dp2(), DP2),
            ("mirror_map", self.mirror_map.is_some(), alg == NoisyMirrorDescent, "noisy-mirror-descent"),
            ("selection", self.selection.is_some(), alg == PrivateFrankWolfe, "private-frank-wolfe"),
            (
                "phases",
                self.phases.is_some(),
                matches!(alg, PrivateFrankWolfe | LocalizedMirrorDescent),
                "private-frank-wolfe and localized-mirror-descent",
            ),
            ("rounds", self.rounds.is_some(), alg == EntropicMirrorDescent, "entropic-mirror-descent"),
            ("paper_noise", self.paper_noise, alg.is_adaptive_noise(), ADAPTIVE_NOISE),
        ];
        let unused = rules.iter().find(|(_, set, used, _)| *set && !*used);
        if let Some(&(parameter, _, _, users)) = unused {
            return Err(refuse(
                parameter,
                format!("`{parameter}` is not used by {}; it applies to {users}", alg.name()),
            ));
        }
        Ok(())
    }

    /// Refuses values outside their documented ranges.
    fn check_ranges(&self) -> Result<()> {
        let positive =
            |parameter: &'static str, x: f64| require(parameter, x, x.is_finite() && x > 0.0, "> 0 and finite");
        if let Some(b) = self.beta1 {
            require("beta1", b, (0.0..1.0).contains(&b), "in [0, 1)")?;
        }
        if let Some(b) = self.beta2 {
            require("beta2", b, b > 0.0 && b < 1.0, "in (0, 1)")?;
        }
        if let Some(nu) = self.nu {
            if self.algorithm.is_dp2() || self.variant == Variant::Paper {
                positive("nu", nu)?;
            } else {
                require("nu", nu, nu.is_finite() && nu >= 0.0, ">= 0 and finite")?;
            }
        }
        positive("learning_rate", self.learning_rate)?;
        if let Some(a) = self.dp2.learning_rate_adaptive {
            positive("learning_rate_adaptive", a)?;
        }
        for (parameter, c) in [("clip_sgd", self.dp2.clip_sgd), ("clip_adaptive", self.dp2.clip_adaptive)] {
            if let Some(c) = c {
                require(parameter, c, c.is_finite() && c > 0.0, "> 0 and finite")?;
            }
        }
        if self.phases == Some(0) {
            return Err(refuse("phases", "`phases` must be at least 1, got 0"));
        }
        for (parameter, s) in [
            ("delay_sgd", self.dp2.delay_sgd),
            ("delay_adaptive", self.dp2.delay_adaptive),
            ("steps", self.steps),
            ("rounds", self.rounds),
        ] {
            if s == Some(0) {
                return Err(refuse(parameter, format!("`{parameter}` must be at least 1, got 0")));
            }
        }
        if let Some(e) = self.epsilon {
            positive("epsilon", e)?;
        }
        if let Some(d) = self.delta {
            require("delta", d, d > 0.0 && d < 1.0, "in (0, 1)")?;
        }
        if let Some(s) = self.sigma {
            require("sigma", s, s.is_finite() && s >= 0.0, ">= 0 and finite")?;
        }
        if let Some(l) = self.lambda
            && !(l.is_finite() && l > 0.0)
        {
            return Err(super::invalid("lambda", super::value_text(l), "> 0 and finite"));
        }
        Ok(())
    }
}
