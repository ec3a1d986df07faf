//! The flags of `run` as the library's types.

use crate::account_args::{NeighbouringArg, SamplingArg};
use crate::run_args::{AblationArg, AlgorithmArg, LossArg, MirrorMapArg, OutputArg, SelectionArg, VariantArg};
use dpref::optim::SelectionMechanism;
use dpref::optim::run_spec::{Ablation, Algorithm, L1MirrorMap, Output, RunLoss, Sampling, SparseAlgorithm, Variant};

impl AlgorithmArg {
    /// The dense `run` algorithm, or the \[GGKKM\] sparse-gradient one (run on CSR data by
    /// `run_sparse`).
    pub(crate) fn resolve(self) -> Result<Algorithm, SparseAlgorithm> {
        Ok(match self {
            AlgorithmArg::DpSgd => Algorithm::DpSgd,
            AlgorithmArg::Pasan => Algorithm::Pasan,
            AlgorithmArg::Pagan => Algorithm::Pagan,
            AlgorithmArg::DpGd => Algorithm::DpGd,
            AlgorithmArg::DpRmsprop => Algorithm::DpRmsprop,
            AlgorithmArg::DpAdam => Algorithm::DpAdam,
            AlgorithmArg::DpAdagrad => Algorithm::DpAdagrad,
            AlgorithmArg::Dp2Rmsprop => Algorithm::Dp2Rmsprop,
            AlgorithmArg::Dp2Adagrad => Algorithm::Dp2Adagrad,
            AlgorithmArg::Dp2Yogi => Algorithm::Dp2Yogi,
            AlgorithmArg::NoisyMirrorDescent => Algorithm::NoisyMirrorDescent,
            AlgorithmArg::LocalizedMirrorDescent => Algorithm::LocalizedMirrorDescent,
            AlgorithmArg::PrivateFrankWolfe => Algorithm::PrivateFrankWolfe,
            AlgorithmArg::EntropicMirrorDescent => Algorithm::EntropicMirrorDescent,
            AlgorithmArg::SparseSgd => return Err(SparseAlgorithm::BiasReducedSgd),
            AlgorithmArg::SparseBoostedSgd => return Err(SparseAlgorithm::BoostedSgd),
        })
    }
}

impl From<LossArg> for RunLoss {
    fn from(l: LossArg) -> Self {
        match l {
            LossArg::Absolute => RunLoss::Absolute,
            LossArg::Squared => RunLoss::Squared,
            LossArg::Logistic => RunLoss::Logistic,
            LossArg::Hinge => RunLoss::Hinge,
            LossArg::CrossEntropy => RunLoss::CrossEntropy,
        }
    }
}

impl From<AblationArg> for Ablation {
    fn from(a: AblationArg) -> Self {
        match a {
            AblationArg::ExtraQuery => Ablation::ExtraQuery,
            AblationArg::NoiseFirst => Ablation::NoiseFirst,
        }
    }
}

impl From<VariantArg> for Variant {
    fn from(v: VariantArg) -> Self {
        match v {
            VariantArg::Minibatch => Variant::Minibatch,
            VariantArg::Paper => Variant::Paper,
        }
    }
}

impl From<OutputArg> for Output {
    fn from(o: OutputArg) -> Self {
        match o {
            OutputArg::Average0 => Output::Average0,
            OutputArg::Average1 => Output::Average1,
            OutputArg::Last => Output::Last,
            OutputArg::Random => Output::Random,
        }
    }
}

impl From<SamplingArg> for Sampling {
    fn from(s: SamplingArg) -> Self {
        match s {
            SamplingArg::Poisson => Sampling::Poisson,
            SamplingArg::WithoutReplacement => Sampling::WithoutReplacement,
            SamplingArg::WithReplacement => Sampling::WithReplacement,
            SamplingArg::Full => Sampling::Full,
        }
    }
}

impl From<NeighbouringArg> for dpref::accounting::Neighbouring {
    fn from(n: NeighbouringArg) -> Self {
        match n {
            NeighbouringArg::AddRemove => dpref::accounting::Neighbouring::AddRemove,
            NeighbouringArg::ReplaceOne => dpref::accounting::Neighbouring::ReplaceOne,
        }
    }
}

impl From<MirrorMapArg> for L1MirrorMap {
    fn from(m: MirrorMapArg) -> Self {
        match m {
            MirrorMapArg::Pnorm => L1MirrorMap::PNorm,
            MirrorMapArg::Entropic => L1MirrorMap::Entropic,
        }
    }
}

impl From<SelectionArg> for SelectionMechanism {
    fn from(s: SelectionArg) -> Self {
        match s {
            SelectionArg::ReportNoisyMin => SelectionMechanism::ReportNoisyMin,
            SelectionArg::Exponential => SelectionMechanism::Exponential,
        }
    }
}
