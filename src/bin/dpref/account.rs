//! `account` and `calibrate`: the shared accounting request, its checks and its printing.

use crate::account_args::{
    AccountArgs, AccountantArg, CalibrateArgs, ConversionArg, MAX_ORDER, MAX_ORDERS, MechanismArgs, NeighbouringArg,
    SamplingArg,
};
use crate::flags::{CliResult, require, require_open_unit, require_positive, usage};
use crate::format::{num, plural};
use dpref::accounting::{
    Conversion, DpEvent, Neighbouring, RdpAccountant, RdpSettings, SamplingScheme, calibrate_noise_multiplier,
    calibrate_noise_multiplier_pld, dp_sgd_event,
};
use dpref::error::{Error, Result};
use serde_json::json;

/// The resolved accounting request shared by `account` and `calibrate`.
pub(crate) struct Request {
    pub(crate) sampling: SamplingScheme,
    pub(crate) neighbouring: Neighbouring,
    pub(crate) settings: RdpSettings,
    pub(crate) steps: u64,
    pub(crate) delta: f64,
}

impl MechanismArgs {
    /// Refuses the flags only the RDP accountant reads (`--orders`, `--conversion`) for a
    /// PLD-only request, instead of ignoring them.
    pub(crate) fn refuse_rdp_only_flags(&self) -> CliResult<()> {
        for (flag, given) in [("--orders", self.orders.is_some()), ("--conversion", self.conversion.is_some())] {
            if given {
                return Err(usage(format!("{flag} applies to the RDP accountant; drop it with --accountant pld")));
            }
        }
        Ok(())
    }

    /// Checks every flag here, naming it, before the library sees it.
    pub(crate) fn resolve(&self) -> CliResult<Request> {
        let (q, b, n) = (self.q, self.batch_size, self.dataset_size);
        let name = match self.sampling {
            SamplingArg::Poisson => "poisson",
            SamplingArg::WithoutReplacement => "without-replacement",
            SamplingArg::WithReplacement => "with-replacement",
            SamplingArg::Full => "full",
        };
        match self.sampling {
            SamplingArg::Full => {
                if q.is_some() || b.is_some() || n.is_some() {
                    return Err(usage(
                        "--sampling full uses the whole dataset at every step: drop --q, --batch-size and \
                         --dataset-size (or choose --sampling poisson)",
                    ));
                }
            }
            SamplingArg::Poisson => match (q, b, n) {
                (Some(_), None, None) | (None, Some(_), Some(_)) => {}
                (Some(_), _, _) => {
                    return Err(usage(
                        "--q was given with --batch-size/--dataset-size: give the Poisson rate either as --q \
                         or as --batch-size with --dataset-size (q = b/n), not both",
                    ));
                }
                (None, Some(_), None) => {
                    return Err(usage(
                        "--batch-size needs --dataset-size under Poisson sampling (q = b/n), or give the rate \
                         --q instead",
                    ));
                }
                (None, None, Some(_)) => {
                    return Err(usage(
                        "--dataset-size needs --batch-size under Poisson sampling (q = b/n), or give the rate \
                         --q instead",
                    ));
                }
                (None, None, None) => {
                    return Err(usage(
                        "Poisson sampling (the default --sampling) needs its rate: --q, or --batch-size with \
                         --dataset-size",
                    ));
                }
            },
            SamplingArg::WithoutReplacement | SamplingArg::WithReplacement => {
                if q.is_some() {
                    return Err(usage(format!(
                        "--q is the Poisson rate; --sampling {name} takes --batch-size and --dataset-size"
                    )));
                }
                if b.is_none() || n.is_none() {
                    return Err(usage(format!("--sampling {name} needs both --batch-size and --dataset-size")));
                }
            }
        }
        if let Some(q) = q {
            require("--q", q, q > 0.0 && q <= 1.0, "in (0, 1]")?;
        }
        if let (Some(b), Some(n)) = (b, n) {
            if n == 0 {
                return Err(usage("--dataset-size must be at least 1, got 0"));
            }
            if b == 0 || b > n {
                return Err(usage(format!("--batch-size must be between 1 and --dataset-size = {n}, got {b}")));
            }
        }
        if let SamplingArg::WithReplacement = self.sampling {
            return Err(usage(
                "unsupported: no accountant covers --sampling with-replacement (a record can appear in a \
                 batch several times); use --sampling poisson, or --sampling without-replacement with \
                 --neighbouring replace-one",
            ));
        }
        if self.steps == 0 {
            return Err(usage("--steps must be at least 1, got 0"));
        }
        require_open_unit("--delta", self.delta)?;
        if let Some(orders) = &self.orders {
            if orders.is_empty() || orders.len() > MAX_ORDERS {
                return Err(usage(format!("--orders takes 1 to {MAX_ORDERS} orders, got {}", orders.len())));
            }
            for &a in orders {
                require(
                    "each of --orders",
                    a,
                    a > 1.0 && a <= MAX_ORDER,
                    "in (1, 10000] (the accountant's work grows with the order)",
                )?;
            }
        }
        let sampling = SamplingScheme::from_flags(name, q, b, n)?;
        let neighbouring = match self.neighbouring {
            NeighbouringArg::AddRemove => Neighbouring::AddRemove,
            NeighbouringArg::ReplaceOne => Neighbouring::ReplaceOne,
        };
        let conversion = match self.conversion {
            None | Some(ConversionArg::Improved) => Conversion::Improved,
            Some(ConversionArg::Classic) => Conversion::Classic,
        };
        if let Some(o) = &self.orders {
            RdpAccountant::with_orders(o.clone(), neighbouring)?; // the library's own check
        }
        Ok(Request {
            sampling,
            neighbouring,
            settings: RdpSettings { orders: self.orders.clone(), neighbouring, conversion },
            steps: self.steps,
            delta: self.delta,
        })
    }
}

impl Request {
    pub(crate) fn event(&self, sigma: f64) -> Result<DpEvent> {
        dp_sgd_event(sigma, self.sampling, self.steps)
    }

    pub(crate) fn describe(&self, sigma: f64) -> String {
        let sampling = match self.sampling {
            SamplingScheme::Poisson { q } => format!("Poisson sampling (q = {})", num(q)),
            SamplingScheme::WithoutReplacement { dataset_size, batch_size } => {
                format!("fixed-size sampling without replacement (b = {batch_size} of n = {dataset_size})")
            }
            SamplingScheme::WithReplacement { dataset_size, batch_size } => {
                format!("sampling with replacement (b = {batch_size} of n = {dataset_size})")
            }
            SamplingScheme::Full => "full batch".to_string(),
        };
        let factor = self.neighbouring.sum_sensitivity_factor();
        let eff = if factor > 1.0 {
            format!(" (effective {} under replace-one)", num(sigma / factor))
        } else {
            String::new()
        };
        format!(
            "{}, {sampling}, noise multiplier {}{eff}, {} neighbouring",
            plural(self.steps, "step"),
            num(sigma),
            self.neighbouring
        )
    }

    pub(crate) fn json_common(&self, sigma: f64) -> serde_json::Value {
        let (batch, n) = match self.sampling {
            SamplingScheme::WithoutReplacement { dataset_size, batch_size }
            | SamplingScheme::WithReplacement { dataset_size, batch_size } => (Some(batch_size), Some(dataset_size)),
            _ => (None, None),
        };
        json!({
            "delta": self.delta,
            "accountant": "rdp",
            "conversion": self.settings.conversion.name(),
            "sampling": self.sampling.name(),
            "q": self.sampling.rate(),
            "batch_size": batch,
            "dataset_size": n,
            "neighbouring": self.neighbouring.name(),
            "steps": self.steps,
            "sigma": sigma,
            "effective_noise_multiplier": sigma / self.neighbouring.sum_sensitivity_factor(),
        })
    }
}

/// ε, or an error saying why there is none: the accountant's bound is +∞ when the noise is too
/// small for any order to give a finite value (an overflow is never reported as ε = 0).
pub(crate) fn finite_epsilon(e: f64, sigma: f64, delta: f64) -> Result<f64> {
    if e.is_finite() {
        Ok(e)
    } else {
        Err(Error::Numerical {
            what: "accounting",
            reason: format!(
                "no finite epsilon at delta = {}: the noise multiplier {} is too small for the accountant to \
                 bound (epsilon = infinity); increase --sigma or --delta",
                num(delta),
                num(sigma)
            ),
        })
    }
}

pub(crate) fn account(args: &AccountArgs) -> CliResult<String> {
    let req = args.mech.resolve()?;
    require_positive("--sigma", args.sigma)?;
    match args.mech.accountant {
        AccountantArg::Rdp => {}
        AccountantArg::Pld => return crate::account_pld::account_pld(args, &req, false),
        AccountantArg::All => return crate::account_pld::account_pld(args, &req, true),
    }
    let event = req.event(args.sigma)?;
    let bound = req.settings.epsilon(&event, req.delta)?;
    let eps = finite_epsilon(bound.epsilon, args.sigma, req.delta)?;
    if args.mech.output.json {
        let mut v = req.json_common(args.sigma);
        v["epsilon"] = json!(eps);
        v["order"] = json!(bound.order);
        return Ok(format!("{v}\n"));
    }
    Ok(format!(
        "epsilon = {}  (delta = {})\n  upper bound from the RDP accountant, {} conversion{}\n  mechanism: {}\n",
        num(eps),
        num(req.delta),
        req.settings.conversion.name(),
        bound.order.map_or(String::new(), |o| format!(", attained at order {}", num(o))),
        req.describe(args.sigma)
    ))
}

pub(crate) fn calibrate(args: &CalibrateArgs) -> CliResult<String> {
    let req = args.mech.resolve()?;
    require_positive("--target-epsilon", args.target_epsilon)?;
    let pld = match args.mech.accountant {
        AccountantArg::Rdp => false,
        AccountantArg::Pld => {
            args.mech.refuse_rdp_only_flags()?;
            true
        }
        AccountantArg::All => return Err(usage("calibrate takes --accountant rdp or pld (all is for account)")),
    };
    let rtol = dpref::accounting::calibrate::CALIBRATION_RTOL;
    let c = if pld {
        let (settings, nb) = (dpref::accounting::pld::PldSettings::default(), req.neighbouring);
        calibrate_noise_multiplier_pld(args.target_epsilon, req.delta, nb, settings, rtol, |s| req.event(s))
            .map_err(crate::flags::name_rdp_flag)?
    } else {
        calibrate_noise_multiplier(args.target_epsilon, req.delta, &req.settings, rtol, |s| req.event(s))?
    };
    let by =
        if pld { "PLD upper bound".to_string() } else { format!("RDP, {} conversion", req.settings.conversion.name()) };
    if args.mech.output.json {
        let mut v = req.json_common(c.noise_multiplier);
        v["epsilon"] = json!(c.epsilon);
        v["target_epsilon"] = json!(args.target_epsilon);
        v["order"] = json!(c.order);
        v["evaluations"] = json!(c.evaluations);
        v["within_tolerance"] = json!(c.epsilon_just_below.is_none());
        if pld {
            (v["accountant"], v["conversion"]) = (json!("pld"), json!(null));
        }
        v["epsilon_just_below"] = json!(c.epsilon_just_below);
        return Ok(format!("{v}\n"));
    }
    let floor = if pld { "" } else { " (its order grid's floor; only the total-variation bound's 0 is lower)" };
    let jump = c.epsilon_just_below.map_or(String::new(), |below| {
        format!(
            "  NOT within 0.1 % of the target (within_tolerance: false): the accountant's bound jumps from {} just \
             below this sigma to {}{floor}, so no sigma gives an epsilon in between; this is the smallest sigma that \
             meets the target\n",
            num(below),
            num(c.epsilon)
        )
    });
    Ok(format!(
        "sigma = {}\n  epsilon = {} <= target {} at delta = {} ({by})\n{jump}  mechanism: {}\n",
        num(c.noise_multiplier),
        num(c.epsilon),
        num(args.target_epsilon),
        num(req.delta),
        req.describe(c.noise_multiplier)
    ))
}
