//! The flags of `account` and `calibrate`.

use crate::flags::whole_u64;
use clap::{Args, ValueEnum};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum SamplingArg {
    Poisson,
    WithoutReplacement,
    WithReplacement,
    Full,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum NeighbouringArg {
    AddRemove,
    ReplaceOne,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum AccountantArg {
    /// Rényi DP: an upper bound on epsilon.
    Rdp,
    /// Privacy loss distributions: a certified bracket [lower, upper] on the true epsilon
    /// (calibrate: sigma from its upper end).
    Pld,
    /// Both, side by side; epsilon is the smaller upper bound (account only).
    All,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ConversionArg {
    Improved,
    Classic,
}

/// The largest RDP order `--orders` accepts: the accountant's work for one order grows linearly
/// with it (the integer-order sums run to alpha).
pub(crate) const MAX_ORDER: f64 = 1e4;
/// The most RDP orders `--orders` accepts.
pub(crate) const MAX_ORDERS: usize = 1000;

#[derive(Args)]
pub(crate) struct MechanismArgs {
    /// Number of steps T (compositions).
    #[arg(long, value_parser = whole_u64)]
    pub(crate) steps: u64,
    /// delta of the (epsilon, delta) guarantee, in (0, 1).
    #[arg(long)]
    pub(crate) delta: f64,
    /// How each step's batch is drawn (with-replacement: no accountant covers it; full: the whole
    /// dataset at every step, no sampling flags).
    #[arg(long, value_enum, default_value = "poisson")]
    pub(crate) sampling: SamplingArg,
    /// Poisson sampling rate q in (0, 1] (or give --batch-size and --dataset-size).
    #[arg(long)]
    pub(crate) q: Option<f64>,
    /// Batch size b (expected size under Poisson).
    #[arg(long, value_parser = whole_u64)]
    pub(crate) batch_size: Option<u64>,
    /// Dataset size n.
    #[arg(long, value_parser = whole_u64)]
    pub(crate) dataset_size: Option<u64>,
    /// Neighbouring relation. Under replace-one a replaced record moves a clipped sum by 2C, so the
    /// effective noise multiplier is sigma/2.
    #[arg(long, value_enum, default_value = "add-remove")]
    pub(crate) neighbouring: NeighbouringArg,
    /// Accountant.
    #[arg(long, value_enum, default_value = "rdp")]
    pub(crate) accountant: AccountantArg,
    /// RDP to (epsilon, delta) conversion (RDP only; refused with --accountant pld) [default: improved].
    #[arg(long, value_enum)]
    pub(crate) conversion: Option<ConversionArg>,
    /// RDP orders, comma-separated, each in (1, 10000], at most 1000 of them; default: 1.1..10.9
    /// by 0.1, 11..64, 72..1024.
    #[arg(long, value_delimiter = ',')]
    pub(crate) orders: Option<Vec<f64>>,
    #[command(flatten)]
    pub(crate) output: crate::flags::OutputArgs,
}

#[derive(Args)]
pub(crate) struct AccountArgs {
    /// Noise multiplier sigma: noise std divided by the per-example clip norm C.
    #[arg(long)]
    pub(crate) sigma: f64,
    #[command(flatten)]
    pub(crate) mech: MechanismArgs,
}

#[derive(Args)]
pub(crate) struct CalibrateArgs {
    /// Target epsilon (> 0). The sigma returned meets it (epsilon <= target), within 0.1 % unless
    /// the accountant's bound jumps over the target; --json then gives `"within_tolerance": false`
    /// and `"epsilon_just_below"` (the finite epsilon just below that sigma; null when within
    /// tolerance). An infinite epsilon just below (the PLD's floor at a tiny delta) is an error.
    #[arg(long)]
    pub(crate) target_epsilon: f64,
    #[command(flatten)]
    pub(crate) mech: MechanismArgs,
}
