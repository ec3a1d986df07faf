//! The tree of \[AFKT\] Algorithm 3 and its per-sample ledger: vertex paths, the DFS order, the
//! records of the nodes and leaves that ran, and which samples entered which node.
//!
//! Proof: proofs/l1/frank_wolfe.md (§ privacy: the ledger).

use crate::error::{Error, Result};
use serde::Serialize;

/// A vertex `u_s` of a phase's tree: its depth j = |s| and the bits of s (the first step is the
/// most significant), so that `l(s)` is `bits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct TreePath {
    /// j = |s|.
    pub depth: u32,
    /// s as an integer, l(s).
    pub bits: u64,
}

impl TreePath {
    /// The root u_∅.
    pub const ROOT: TreePath = TreePath { depth: 0, bits: 0 };

    /// The child `s c`.
    pub fn child(self, c: u64) -> TreePath {
        TreePath { depth: self.depth + 1, bits: (self.bits << 1) | (c & 1) }
    }

    /// c, the last step of s (0 for the root).
    pub fn last_bit(self) -> u64 {
        self.bits & 1
    }

    /// Whether `self` is a prefix of `other` (an ancestor or `other` itself).
    pub fn is_prefix_of(self, other: TreePath) -> bool {
        other.depth >= self.depth && (other.bits >> (other.depth - self.depth)) == self.bits
    }
}

impl std::fmt::Display for TreePath {
    /// `u` then the bits of s: `u` (root), `u0`, `u01`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("u")?;
        for i in (0..self.depth).rev() {
            write!(f, "{}", (self.bits >> i) & 1)?;
        }
        Ok(())
    }
}

/// DFS(t): the pre-order of the complete binary tree of depth t, root excluded (for t = 2:
/// u0, u00, u01, u1, u10, u11).
pub fn dfs_order(t: u32) -> Vec<TreePath> {
    fn visit(s: TreePath, t: u32, out: &mut Vec<TreePath>) {
        if s.depth > 0 {
            out.push(s);
        }
        if s.depth < t {
            visit(s.child(0), t, out);
            visit(s.child(1), t, out);
        }
    }
    let mut out = Vec::new();
    visit(TreePath::ROOT, t, &mut out);
    out
}

/// The printed step index `k = 2^{t−1} + l(s)` of a leaf (\[AFKT\] after Alg. 3): for depth-t
/// trees the ranges of consecutive phases overlap (the erratum behind the global counter).
pub fn printed_step_index(phase_t: u32, leaf: TreePath) -> u64 {
    (1u64 << (phase_t - 1)) + leaf.bits
}

/// One node of a phase's tree as it ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeRecord {
    /// t.
    pub phase: u32,
    /// s.
    pub path: TreePath,
    /// The dataset indices of S_{t,s} (empty for left children).
    pub samples: Vec<usize>,
    /// The true score sensitivity of one of its samples (0 without samples).
    pub sensitivity_delta: f64,
}

/// One leaf (FW step) as it ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeafRecord {
    /// k, the global 1-based leaf count.
    pub step_k: u64,
    /// t.
    pub phase: u32,
    /// s (depth t).
    pub path: TreePath,
    /// x_{t,s}, the iterate the step starts from.
    pub x: Vec<f64>,
    /// v_{t,s}, the gradient estimate.
    pub v: Vec<f64>,
    /// The index i of the selected vertex w = c_i.
    pub vertex: usize,
    /// η_k = 2/(k+1).
    pub eta: f64,
    /// λ_t (0 without noise).
    pub scale_lambda: f64,
    /// The largest true sensitivity of a sample on its path (its event is `2Δ/λ`-DP).
    pub sensitivity_delta: f64,
}

/// A tree node's name: (phase, path).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct NodeId {
    /// t.
    pub phase: u32,
    /// s.
    pub path: TreePath,
}

/// For each sample of the dataset, the tree nodes whose gradient estimates it entered, built from
/// the nodes that ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampleLedger {
    /// `entries[i]`: the nodes holding sample i (one for a used sample, none for an unused one).
    pub entries: Vec<Vec<NodeId>>,
}

impl SampleLedger {
    /// The ledger of `nodes` over a dataset of n samples.
    ///
    /// # Errors
    /// `InvalidParameter` for a sample index ≥ n.
    pub fn from_nodes(n: usize, nodes: &[NodeRecord]) -> Result<Self> {
        let mut entries = vec![Vec::new(); n];
        for node in nodes {
            for &i in &node.samples {
                let slot = entries.get_mut(i).ok_or_else(|| Error::invalid("sample index", i, "< n"))?;
                slot.push(NodeId { phase: node.phase, path: node.path });
            }
        }
        Ok(SampleLedger { entries })
    }

    /// Checks the single pass: no sample in two nodes, and `samples_used` samples in one.
    ///
    /// # Errors
    /// `InvalidParameter` naming the first sample in two nodes, or a count mismatch.
    pub fn verify(&self, samples_used: usize) -> Result<()> {
        if let Some(i) = self.entries.iter().position(|e| e.len() > 1) {
            return Err(Error::invalid(
                "sample ledger",
                format!("sample {i} in {} nodes", self.entries[i].len()),
                "each sample in exactly one tree node (single pass)",
            ));
        }
        let used = self.entries.iter().filter(|e| e.len() == 1).count();
        if used != samples_used {
            return Err(Error::invalid(
                "sample ledger",
                format!("{used} samples in a node, {samples_used} drawn"),
                "every drawn sample in exactly one tree node",
            ));
        }
        Ok(())
    }

    /// For each sample, `Σ_{its nodes} Σ_{leaves below the node} 2Δ_node/λ_leaf` (basic
    /// composition over the leaves whose estimate it entered; ∞ at a leaf without noise; 0 for an
    /// unused sample), every term and partial sum rounded up (an upper bound as evaluated).
    pub fn per_sample_epsilon(&self, nodes: &[NodeRecord], leaves: &[LeafRecord]) -> Vec<f64> {
        let delta_of = |id: &NodeId| {
            nodes.iter().find(|n| n.phase == id.phase && n.path == id.path).map_or(0.0, |n| n.sensitivity_delta)
        };
        self.entries
            .iter()
            .map(|ids| {
                let mut eps = 0.0;
                for id in ids {
                    let delta = delta_of(id);
                    // the node's leaves, charged count × the largest term (all equal within a
                    // phase; a power-of-two count makes the product exact, where summing k equal
                    // terms rounded up could pass k·term)
                    let (mut count, mut largest) = (0u64, 0.0f64);
                    for leaf in leaves.iter().filter(|l| l.phase == id.phase && id.path.is_prefix_of(l.path)) {
                        let term = if leaf.scale_lambda > 0.0 {
                            crate::optim::release::selection_epsilon(delta, leaf.scale_lambda)
                        } else {
                            f64::INFINITY
                        };
                        count += 1;
                        largest = largest.max(term);
                    }
                    if count > 0 {
                        eps = crate::special::add_up(
                            eps,
                            crate::special::mul_up(crate::special::count_up(count), largest),
                        );
                    }
                }
                eps
            })
            .collect()
    }
}
