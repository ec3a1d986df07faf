//! The (ε, δ) ledger of \[AFKT\] Algorithm 3 (Lemma 4.4): advanced composition per subtree and
//! amplification by shuffling across the nodes of one depth, with every hypothesis checked.
//!
//! A sample held by a node at depth j of phase t (a *group* (t, j): the root, p = 1, or the
//! p = 2^{j−1} right children, each with 2^{−j}b samples) enters the k = 2^{t−j} leaves below its
//! node, each a `2Δ_j/λ_t`-DP selection. Because the dataset is read in the order of one uniform
//! random permutation, conditioned on the replaced record's group the assignment of the group's
//! samples to its p nodes is a uniform partition; it can be drawn as (1) r/p − 1 other samples
//! into each node, then (2) a uniform shuffle of the p remaining ones (the record among them), one
//! per node (every partition has the same number, (r/p)^{p−1}, of such draws). Given (1), node i's
//! leaves are a local randomizer of its stage-(2) sample, adaptive in the earlier outputs: the
//! setting of \[FMT21\] (Feldman, McMillan, Talwar, "Hiding among the clones", arXiv 2012.12803)
//! Theorem 3.8. The group's guarantee is the best of four sound routes (pure composition, advanced
//! composition, shuffled pure randomizers, shuffled approximate randomizers); the run is
//! (max ε, max δ) over the groups (the record lies in one group; a mixture over the same
//! data-independent group law keeps the worst pair).
//!
//! Proof: proofs/l1/frank_wolfe.md (§3 approximate DP, §5 the two readings of Lemma 4.5).

use crate::accounting::composition::advanced;
use crate::error::Result;
use serde::Serialize;

/// How a group's guarantee was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Route {
    /// Basic composition of the k leaves: `(k·ε_leaf, 0)`.
    Pure,
    /// Advanced composition of the k leaves at slack δ (no shuffling).
    Advanced,
    /// \[FMT21\] Thm. 3.8 on p pure `k·ε_leaf`-DP randomizers.
    ShuffledPure,
    /// \[FMT21\] Thm. 3.8 (approximate randomizers) on p advanced-composition randomizers.
    ShuffledAdvanced,
}

/// The guarantee of a record held by a node of group (t, j).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GroupGuarantee {
    /// t.
    pub phase: u32,
    /// j.
    pub depth: u32,
    /// p, the group's sample-holding nodes (1 at the root, 2^{j−1} right children).
    pub nodes_p: u64,
    /// k = 2^{t−j}, the leaves below a node.
    pub leaves_k: u64,
    /// ε_leaf = 2Δ_j/λ_t.
    pub leaf_epsilon: f64,
    /// ε of the group.
    pub epsilon: f64,
    /// δ of the group.
    pub delta: f64,
    /// The route that gave the smallest ε within δ.
    pub route: Route,
}

/// \[FMT21\] Thm. 3.8's closed form for p shuffled ε₀-DP (adaptive) local randomizers at δ_s, in
/// the conservative reading (proofs §5): `None` unless `p ≥ 2` and `ε₀ ≤ ln(p/(16 ln(4/δ_s)))`
/// (the hypothesis, with the stricter `4/δ_s` of the authors' code in place of the printed
/// `2/δ_s`); otherwise `ε = ln(1 + (1 − e^{−ε₀})/(1 + e^{−ε₀−ε_a})·(a + c))`,
/// `a = 8√(e^{ε₀} ln(4/δ_s)/p)`, `c = 8e^{ε₀}/p`, `ε_a = ln(1 + a + c)` (≥ the printed
/// `ln(1 + (e^{ε₀} − 1)/(e^{ε₀} + 1)·(a + c))`), rounded up by 16 ulps.
pub fn shuffle_amplified_epsilon(epsilon0: f64, nodes_p: u64, delta_s: f64) -> Option<f64> {
    let valid = epsilon0 >= 0.0 && delta_s > 0.0 && delta_s < 1.0; // false for NaN
    if nodes_p < 2 || !valid {
        return None;
    }
    let p = nodes_p as f64;
    let log4 = (4.0 / delta_s).ln();
    if epsilon0 > (p / (16.0 * log4)).ln() {
        return None;
    }
    let a = 8.0 * (epsilon0.exp() * log4 / p).sqrt();
    let c = 8.0 * epsilon0.exp() / p;
    let e_a = (a + c).ln_1p();
    let ratio = -(-epsilon0).exp_m1() / (1.0 + (-epsilon0 - e_a).exp());
    Some((ratio * (a + c)).ln_1p() * (1.0 + 16.0 * f64::EPSILON))
}

/// The δ of \[FMT21\]'s approximate-randomizer extension: `δ_s + (e^ε + 1)(1 + e^{−ε₀}/2)·p·δ₀`.
pub fn shuffled_delta(epsilon: f64, epsilon0: f64, nodes_p: u64, delta_s: f64, delta0: f64) -> f64 {
    let extra = (epsilon.exp() + 1.0) * (1.0 + 0.5 * (-epsilon0).exp()) * nodes_p as f64 * delta0;
    (delta_s + extra) * (1.0 + 8.0 * f64::EPSILON)
}

/// The guarantee of group (t, j) at leaf cost ε_leaf (see the module doc), for a run targeting
/// (ε, δ): the smallest ε over the routes whose δ is ≤ δ.
///
/// # Errors
/// `InvalidParameter` from advanced composition for invalid inputs.
pub fn group_guarantee(
    phase: u32,
    depth: u32,
    leaf_epsilon: f64,
    target_epsilon: f64,
    delta: f64,
) -> Result<GroupGuarantee> {
    let nodes_p = if depth == 0 { 1 } else { 1u64 << (depth - 1) };
    let leaves_k = 1u64 << (phase - depth);
    let pure = leaves_k as f64 * leaf_epsilon * (1.0 + 2.0 * f64::EPSILON);
    let mut best = (pure, 0.0, Route::Pure);
    // slack δ′ a hair below δ: `advanced` rounds its δ up
    let adv = advanced(leaf_epsilon, 0.0, leaves_k, delta * (1.0 - 1e-9))?;
    if adv.epsilon < best.0 && adv.delta <= delta {
        best = (adv.epsilon, adv.delta, Route::Advanced);
    }
    if let Some(e) = shuffle_amplified_epsilon(pure, nodes_p, delta)
        && e < best.0
    {
        best = (e, delta, Route::ShuffledPure);
    }
    // half of δ to the shuffle, half to the randomizers' δ₀ (sized for ε ≤ the target)
    let (delta_s, budget) = (0.5 * delta, 0.5 * delta);
    let delta0 = budget / ((target_epsilon.exp() + 1.0) * 1.5 * nodes_p as f64);
    if nodes_p >= 2 && delta0 > 0.0 {
        let local = advanced(leaf_epsilon, 0.0, leaves_k, delta0)?;
        let epsilon0 = local.epsilon.min(pure);
        let delta0 = if local.epsilon < pure { local.delta } else { 0.0 };
        if let Some(e) = shuffle_amplified_epsilon(epsilon0, nodes_p, delta_s) {
            let d = shuffled_delta(e, epsilon0, nodes_p, delta_s, delta0);
            if e < best.0 && d <= delta {
                best = (e, d, Route::ShuffledAdvanced);
            }
        }
    }
    let (epsilon, delta, route) = best;
    Ok(GroupGuarantee { phase, depth, nodes_p, leaves_k, leaf_epsilon, epsilon, delta, route })
}
