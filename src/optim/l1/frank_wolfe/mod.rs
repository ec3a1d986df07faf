//! Private variance-reduced Frank–Wolfe over a polytope — \[AFKT\] Algorithm 3 (Sec. 4, Lemma 4.1,
//! Theorem 6; arXiv 2103.01516v1), pure ε-DP, with the binary-tree ("dyadic") gradient estimator.
//!
//! Input: dataset, loss, [`FrankWolfeConfig`] (T, b, L, X = conv{c_1..c_m}, the selection
//! mechanism, ε). Output: [`FrankWolfeRun`]: the last iterate x_K, the events of the K noisy
//! selections, the tree that ran (nodes, leaves) and the per-sample privacy ledger.
//! ```text
//! 1:  for t = 1..T:
//! 2:    x_{t,∅} = x_{t−1,L_{t−1}}                  (the last iterate; x_0 for t = 1)
//! 3:    S_{t,∅} = the next b samples of ONE random permutation of [n]   (single pass)
//! 4:    v_{t,∅} = ∇f(x_{t,∅}; S_{t,∅})              (mean of per-example gradients, clamped to ‖·‖_∞ ≤ L)
//! 5:    for u_s in DFS(t):                           (pre-order of the depth-t tree, root excluded)
//! 6:      s = s′c, c ∈ {0,1}, j = |s|
//! 7:      if c = 0:
//! 8:        v_{t,s} = v_{t,s′};  x_{t,s} = x_{t,s′}
//! 9:      else:                                      (x_{t,s} = the iterate set by the previous leaf)
//! 10:       S_{t,s} = the next 2^{−j} b samples
//! 11:       v_{t,s} = v_{t,s′} + ∇f(x_{t,s}; S_{t,s}) − ∇f(x_{t,s′}; S_{t,s})   (x_{t,s′}: the parent's stored point)
//! 12:     if j = t:                                  (a leaf: one private FW step)
//! 13:       s₊ = the next DFS vertex (or the next phase's root)
//! 14:       w_{t,s} = argmin_i ⟨c_i, v_{t,s}⟩ + ζ_i,  ζ_i ~ Lap(λ_t)   (or the exponential mechanism)
//! 15:       x_{t,s₊} = (1 − η_k) x_{t,s} + η_k w_{t,s},  η_k = 2/(k+1), k the global leaf count
//!           (corrected; printed η_{t,s} = 2/(2^{t−1} + l(s) + 1), whose ranges overlap across phases)
//! 16: return x_K,  K = 2^{T+1} − 2
//! ```
//! # Privacy
//! Replace-one neighbours (the paper's). Per-example gradients are clamped to `‖∇f‖_∞ ≤ L` (a no-op
//! under the paper's assumption, a guarantee on any data). With `R_c = max_i ‖c_i‖₁`, one replaced
//! sample moves every score `⟨c_i, v⟩` at a leaf below its node by at most `Δ_0 = 2R_c L/b` (root)
//! or `Δ_j = 4R_c L 2^j/b` (right child at depth j ≥ 1: a difference of two clamped gradients,
//! replaced). The printed proof states `LD 2^j/b` for every depth, half the right children's value
//! for the l1 ball (`D = 2R_c`). The scale `λ_t = 2·2^t·max_j(Δ_j 2^{−j})/ε` (corrected: `4LD2^t/(bε)`
//! for the l1 ball; [`SensitivityReading::AsPrinted`] gives the paper's `2LD2^t/(bε)`) makes each
//! leaf `2Δ/λ_t`-DP for a sample of sensitivity Δ. Each leaf records `EpsilonDelta(ε′, 0)` with ε′
//! against its worst sample; the run's ε is computed from the [`SampleLedger`]: for each sample,
//! the sum over the leaves below its node of `2Δ_node/λ_leaf` (basic composition), and the max over
//! samples (parallel composition: the nodes' sample sets are disjoint). The approximate-DP variant
//! (Lemma 4.4) calibrates λ_t so that every group (t, j) of nodes meets (ε, δ) by advanced
//! composition over its subtrees and amplification by shuffling across its nodes (the permutation
//! is uniform; \[FMT21\]'s hypothesis is checked per group, a route that fails it is not used);
//! see [`group_guarantee`].
//!
//! Proof: proofs/l1/frank_wolfe.md.

use crate::accounting::Neighbouring;
use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::loss::Loss;
use crate::optim::release::{exponential_selection_probabilities, selection_epsilon};
use crate::optim::{PrivateSelection, Run, SelectionMechanism};
use crate::rng::{Seeds, Stream};
use rand::seq::SliceRandom;
use serde::Serialize;

mod approximate;
mod tree;
pub use approximate::{GroupGuarantee, Route, group_guarantee, shuffle_amplified_epsilon, shuffled_delta};
pub use tree::{LeafRecord, NodeId, NodeRecord, SampleLedger, TreePath, dfs_order, printed_step_index};

/// The domain `X = conv{c_1, …, c_m}`, given by its vertices.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Polytope {
    /// The l1 ball of radius r: m = 2d vertices, `c_i = +r e_i` for i < d, `c_{d+i} = −r e_i`.
    L1Ball {
        /// r > 0.
        radius_r: f64,
    },
    /// The probability simplex: m = d vertices `c_i = e_i`.
    Simplex,
    /// An explicit list of vertices, each of the data's dimension (the caller vouches that x_0 is
    /// in their hull).
    Vertices(Vec<Vec<f64>>),
}

impl Polytope {
    fn check(&self) -> Result<()> {
        match self {
            Polytope::L1Ball { radius_r } => check::positive("radius r", *radius_r).map(|_| ()),
            Polytope::Simplex => Ok(()),
            Polytope::Vertices(c) => {
                let first = c.first().ok_or(Error::Empty { what: "vertices" })?;
                if first.is_empty() {
                    return Err(Error::Empty { what: "vertex" });
                }
                for ci in c {
                    if ci.len() != first.len() {
                        return Err(Error::invalid("vertices", ci.len(), "all of one dimension"));
                    }
                    check::all_finite("vertices", ci)?;
                }
                Ok(())
            }
        }
    }

    fn check_dimension(&self, d: usize) -> Result<()> {
        match self {
            Polytope::Vertices(c) if c[0].len() != d => {
                Err(Error::invalid("vertices", c[0].len(), "of the data's dimension"))
            }
            _ => Ok(()),
        }
    }

    /// m, the number of vertices in dimension d.
    pub fn vertex_count(&self, d: usize) -> usize {
        match self {
            Polytope::L1Ball { .. } => 2 * d,
            Polytope::Simplex => d,
            Polytope::Vertices(c) => c.len(),
        }
    }

    /// The vertex `c_i` in dimension d, written into `out`.
    pub fn vertex(&self, i: usize, out: &mut [f64]) {
        let d = out.len();
        match self {
            Polytope::L1Ball { radius_r } => {
                out.iter_mut().for_each(|v| *v = 0.0);
                if i < d { out[i] = *radius_r } else { out[i - d] = -radius_r }
            }
            Polytope::Simplex => {
                out.iter_mut().for_each(|v| *v = 0.0);
                out[i] = 1.0;
            }
            Polytope::Vertices(c) => out.copy_from_slice(&c[i]),
        }
    }

    /// The scores `⟨c_i, v⟩`, i = 1..m.
    pub fn scores(&self, v: &[f64], out: &mut Vec<f64>) {
        out.clear();
        match self {
            Polytope::L1Ball { radius_r } => {
                out.extend(v.iter().map(|vj| radius_r * vj));
                out.extend(v.iter().map(|vj| -radius_r * vj));
            }
            Polytope::Simplex => out.extend_from_slice(v),
            Polytope::Vertices(c) => out.extend(c.iter().map(|ci| crate::linalg::dot(ci, v))),
        }
    }

    /// `R_c = max_i ‖c_i‖₁` (r for the l1 ball, 1 for the simplex).
    pub fn vertex_l1_bound(&self) -> f64 {
        match self {
            Polytope::L1Ball { radius_r } => *radius_r,
            Polytope::Simplex => 1.0,
            Polytope::Vertices(c) => c.iter().map(|ci| crate::linalg::norm_l1(ci)).fold(0.0, f64::max),
        }
    }

    /// An upper bound on `D = diam₁(X)`: 2r for the l1 ball, 2 for the simplex, the largest
    /// pairwise l1 distance of the listed vertices.
    pub fn diameter_l1(&self) -> f64 {
        match self {
            Polytope::L1Ball { radius_r } => 2.0 * radius_r,
            Polytope::Simplex => 2.0,
            Polytope::Vertices(c) => {
                let mut best = 0.0f64;
                for a in c {
                    for b in c {
                        best = best.max(a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum());
                    }
                }
                best
            }
        }
    }

    /// The default x_0: the mean of the vertices (0 for the l1 ball, uniform for the simplex).
    fn centre(&self, d: usize) -> Vec<f64> {
        let m = self.vertex_count(d);
        let (mut x, mut c) = (vec![0.0; d], vec![0.0; d]);
        for i in 0..m {
            self.vertex(i, &mut c);
            crate::linalg::axpy(1.0 / m as f64, &c, &mut x);
        }
        x
    }
}

/// The privacy of a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum FwPrivacy {
    /// Pure ε-DP (Lemma 4.1, with the corrected sensitivity unless the reading says otherwise).
    Pure {
        /// ε > 0, finite.
        epsilon: f64,
    },
    /// (ε, δ)-DP by advanced composition per subtree and amplification by shuffling across the
    /// nodes of one depth (Lemma 4.4 with \[FMT21\] Thm. 3.8, [`group_guarantee`]): λ_t is the
    /// smallest scale (bisection below the pure λ_t) at which every group (t, j) of phase t meets
    /// (ε, δ). It never exceeds the pure λ_t, and is smaller only where the routes help: long
    /// phases (k = 2^{t−j} ≳ 2 ln(1/δ) leaves below shallow nodes) and wide depths
    /// (p = 2^{j−1} ≳ 16 ln(4/δ) nodes), e.g. from T ≈ 16 on at δ = 1e-6 (the asymptotic regime of
    /// the paper). Always with the true (corrected) sensitivities.
    Approximate {
        /// ε.
        epsilon: f64,
        /// δ.
        delta: f64,
    },
    /// No noise (λ = 0): the exact LMO at every leaf, no events, no claim.
    NonPrivate,
}

/// Which score sensitivity sets the noise scale λ_t.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum SensitivityReading {
    /// `Δ_0 = 2R_c L/b`, `Δ_j = 4R_c L 2^j/b` (right children): rigorous (default).
    #[default]
    Corrected,
    /// The printed `Δ_j = LD 2^j/b` for every depth, i.e. `λ_t = 2LD2^t/(bε)`. The ledger still
    /// uses the true sensitivities, so the run reports the ε it really has (2ε for the l1 ball).
    AsPrinted,
}

/// Settings of Algorithm 3; field names end in the paper's symbols.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrankWolfeConfig {
    /// T ≥ 1 phases; phase t owns a depth-t tree with 2^t leaves.
    pub phases_t: u32,
    /// b, the root batch size: a multiple of 2^T.
    pub batch_size_b: usize,
    /// L > 0: `‖∇f‖_∞ ≤ L` (per-example gradients are clamped to it).
    pub lipschitz_l: f64,
    /// X = conv{c_1..c_m}.
    pub polytope: Polytope,
    /// Line 14's selection.
    pub selection: SelectionMechanism,
    /// ε (pure DP) or no noise.
    pub privacy: FwPrivacy,
    /// The sensitivity reading behind λ_t (default corrected).
    pub reading: SensitivityReading,
    /// x_0 ∈ X (default: the mean of the vertices).
    pub x0: Option<Vec<f64>>,
}

/// Largest T accepted (2^T must divide b and K = 2^{T+1} − 2 leaves run).
pub const MAX_PHASES: u32 = 40;

impl FrankWolfeConfig {
    /// T phases, root batch b, gradient bound L, over `polytope`, selecting by `selection`.
    ///
    /// # Errors
    /// `InvalidParameter` for T = 0 or T > [`MAX_PHASES`], b not a positive multiple of 2^T, L or ε
    /// not finite and positive, an invalid polytope; `Unsupported` for [`FwPrivacy::Approximate`].
    pub fn new(
        phases_t: u32,
        batch_size_b: usize,
        lipschitz_l: f64,
        polytope: Polytope,
        selection: SelectionMechanism,
        privacy: FwPrivacy,
    ) -> Result<Self> {
        crate::optim::checked(
            FrankWolfeConfig {
                phases_t,
                batch_size_b,
                lipschitz_l,
                polytope,
                selection,
                privacy,
                reading: SensitivityReading::Corrected,
                x0: None,
            },
            FrankWolfeConfig::check_settings,
        )
    }

    fn check_settings(&self) -> Result<()> {
        let t = self.phases_t;
        if t == 0 || t > MAX_PHASES {
            return Err(Error::invalid("phases T", t, "in 1..=40"));
        }
        let b = self.batch_size_b;
        if b == 0 || !b.is_multiple_of(1usize << t) {
            return Err(Error::invalid(
                "batch size b",
                b,
                "a positive multiple of 2^T (every node takes 2^-j b samples)",
            ));
        }
        check::positive("Lipschitz constant L", self.lipschitz_l)?;
        self.polytope.check()?;
        match self.privacy {
            FwPrivacy::Pure { epsilon } => {
                check::positive("epsilon", epsilon)?;
            }
            FwPrivacy::Approximate { epsilon, delta } => {
                check::positive("epsilon", epsilon)?;
                check::open_unit("delta", delta)?;
            }
            FwPrivacy::NonPrivate => {}
        }
        if let Some(x0) = &self.x0 {
            check::all_finite("x0", x0)?;
        }
        Ok(())
    }

    /// K = 2^{T+1} − 2, the number of leaves (FW steps).
    pub fn steps_k(&self) -> u64 {
        (1u64 << (self.phases_t + 1)) - 2
    }

    /// Samples a run uses: `Σ_t (b + t·b/2) = b(T + T(T+1)/4)`.
    pub fn samples_needed(&self) -> usize {
        let b = self.batch_size_b;
        (1..=self.phases_t as usize).map(|t| b + t * (b / 2)).sum()
    }

    /// Gradient evaluations of a run: `b(T + T(T+1)/2)` (two per right-child sample).
    pub fn gradient_evaluations(&self) -> u64 {
        let b = self.batch_size_b as u64;
        (1..=u64::from(self.phases_t)).map(|t| b + t * b).sum()
    }

    /// The true (corrected) score sensitivity of a node holding samples at depth j: `2R_c L/b`
    /// at the root, `4R_c L 2^j/b` at a right child.
    pub fn node_sensitivity(&self, depth_j: u32) -> f64 {
        let (rc, l, b) = (self.polytope.vertex_l1_bound(), self.lipschitz_l, self.batch_size_b as f64);
        if depth_j == 0 { 2.0 * rc * l / b } else { 4.0 * rc * l * 2f64.powi(depth_j as i32) / b }
    }

    /// The printed sensitivity `LD 2^j/b` (\[AFKT\] proof of Lemma 4.1).
    pub fn printed_sensitivity(&self, depth_j: u32) -> f64 {
        self.lipschitz_l * self.polytope.diameter_l1() * 2f64.powi(depth_j as i32) / self.batch_size_b as f64
    }

    /// λ_t of phase t: pure, `2·2^t·max_{0≤j≤t} Δ_j 2^{−j}/ε` under the config's reading;
    /// approximate, the calibrated scale of [`FwPrivacy::Approximate`]; 0 without noise.
    pub fn noise_scale(&self, phase_t: u32) -> f64 {
        match self.privacy {
            FwPrivacy::Pure { epsilon } => self.pure_scale(phase_t, epsilon, self.reading),
            FwPrivacy::Approximate { epsilon, delta } => self.approximate_scale(phase_t, epsilon, delta),
            FwPrivacy::NonPrivate => 0.0,
        }
    }

    fn pure_scale(&self, phase_t: u32, epsilon: f64, reading: SensitivityReading) -> f64 {
        let per_depth = |j: u32| match reading {
            SensitivityReading::Corrected => self.node_sensitivity(j),
            SensitivityReading::AsPrinted => self.printed_sensitivity(j),
        } / 2f64.powi(j as i32);
        let worst = (0..=phase_t).map(per_depth).fold(0.0, f64::max);
        // rounded up, so that each leaf's 2Δ_j/λ_t (rounded up) stays ≤ ε/2^{t−j}, a float, and
        // a sample's 2^{t−j} leaves sum to at most ε as evaluated (to nearest, Pure{ε = 50} once
        // charged 50 + 1.4e-14)
        crate::special::div_up(2.0 * 2f64.powi(phase_t as i32) * worst, epsilon)
    }

    /// The guarantees of the groups (t, j), j = 0..=t, at scale λ (true sensitivities).
    ///
    /// # Errors
    /// `InvalidParameter` for an invalid (ε, δ) or λ.
    pub fn phase_guarantees(&self, phase_t: u32, lambda: f64, epsilon: f64, delta: f64) -> Result<Vec<GroupGuarantee>> {
        check::positive("selection scale lambda", lambda)?;
        (0..=phase_t)
            .map(|j| group_guarantee(phase_t, j, selection_epsilon(self.node_sensitivity(j), lambda), epsilon, delta))
            .collect()
    }

    /// The smallest λ (to 1e-9 relative, bisection on ln λ) at which every group of phase t
    /// meets (ε, δ); the pure λ_t (slightly enlarged, so that the pure route itself passes)
    /// bounds it above, so the result is never worse than pure.
    fn approximate_scale(&self, phase_t: u32, epsilon: f64, delta: f64) -> f64 {
        let meets = |lambda: f64| {
            self.phase_guarantees(phase_t, lambda, epsilon, delta)
                .is_ok_and(|g| g.iter().all(|g| g.epsilon <= epsilon && g.delta <= delta))
        };
        let mut hi = self.pure_scale(phase_t, epsilon, SensitivityReading::Corrected) * (1.0 + 1e-9);
        debug_assert!(meets(hi), "invariant: the pure scale meets the target");
        // ln(1e6)/1e-9 needs 34 halvings of the log-bracket; the cap and the normal-range guards
        // only matter at absurd scales (a clip of 1e-170 made lo·hi underflow to 0, then mid = 0
        // failed, lo = 0 and hi/lo = ∞ looped forever)
        let mut lo = (hi * 1e-6).max(f64::MIN_POSITIVE);
        for _ in 0..200 {
            if hi / lo <= 1.0 + 1e-9 {
                break;
            }
            let product = lo * hi;
            let mid = if product.is_normal() { product.sqrt() } else { lo.sqrt() * hi.sqrt() };
            if meets(mid) { hi = mid } else { lo = mid }
        }
        hi
    }

    fn validate(&self, data: &Dataset) -> Result<()> {
        self.check_settings()?;
        self.polytope.check_dimension(data.d())?;
        let need = self.samples_needed();
        if data.n() < need {
            return Err(Error::invalid(
                "dataset size n",
                format!("{} (b = {}, T = {} need {need})", data.n(), self.batch_size_b, self.phases_t),
                ">= b(T + T(T+1)/4), the samples of one pass",
            ));
        }
        if let Some(x0) = &self.x0 {
            crate::optim::check_start(x0, data.d())?;
            let inside = match &self.polytope {
                Polytope::L1Ball { radius_r } => crate::linalg::norm_l1(x0) <= *radius_r,
                Polytope::Simplex => x0.iter().all(|v| *v >= 0.0) && (x0.iter().sum::<f64>() - 1.0).abs() <= 1e-12,
                Polytope::Vertices(_) => true,
            };
            if !inside {
                return Err(Error::invalid("x0", "outside X", "a point of the polytope"));
            }
        }
        Ok(())
    }

    /// Runs Algorithm 3 (see the module doc): the permutation from the sampling stream of `seeds`,
    /// the selection noise from its noise stream.
    ///
    /// # Errors
    /// `InvalidParameter`, `Empty`, `NonFinite` for invalid settings or data (before any
    /// randomness), including too few samples for one pass; `Unsupported` for approximate DP.
    pub fn run(&self, data: &Dataset, loss: Loss, seeds: Seeds) -> Result<FrankWolfeRun> {
        self.validate(data)?;
        let mut selection = PrivateSelection::new(self.selection, Neighbouring::ReplaceOne, seeds);
        let tree = self.execute(data, loss, seeds, &mut |leaf: &LeafContext, scores: &[f64]| {
            selection.select_min(scores, leaf.scale_lambda, leaf.sensitivity_delta)
        })?;
        let ledger = SampleLedger::from_nodes(data.n(), &tree.nodes)?;
        ledger.verify(tree.samples_used)?;
        let (per_sample_epsilon, groups, delta) = match self.privacy {
            FwPrivacy::Approximate { epsilon, delta } => {
                self.approximate_ledger(&ledger, &tree.nodes, epsilon, delta)?
            }
            _ => (ledger.per_sample_epsilon(&tree.nodes, &tree.leaves), Vec::new(), 0.0),
        };
        let epsilon = match self.privacy {
            FwPrivacy::NonPrivate => None,
            _ => Some(per_sample_epsilon.iter().copied().fold(0.0, f64::max)),
        };
        let mut summary = selection.finish(epsilon);
        if epsilon.is_some() {
            summary.privacy.delta = Some(delta);
        }
        let run = Run::new(tree.x.clone(), tree.x, self.steps_k(), summary);
        Ok(FrankWolfeRun {
            run,
            groups,
            nodes: tree.nodes,
            leaves: tree.leaves,
            ledger,
            per_sample_epsilon,
            samples_used: tree.samples_used,
            gradient_evaluations: tree.gradient_evaluations,
        })
    }

    /// The approximate-DP ledger of a run: each used sample's ε is its node's group's (ledger-checked
    /// single pass: one node per sample), the groups at the λ_t that ran, and the run's δ (the max
    /// over the groups holding a sample).
    fn approximate_ledger(
        &self,
        ledger: &SampleLedger,
        nodes: &[NodeRecord],
        epsilon: f64,
        delta: f64,
    ) -> Result<(Vec<f64>, Vec<GroupGuarantee>, f64)> {
        let mut groups = Vec::new();
        for t in 1..=self.phases_t {
            groups.extend(self.phase_guarantees(t, self.noise_scale(t), epsilon, delta)?);
        }
        let group_of = |id: &NodeId| groups.iter().find(|g| g.phase == id.phase && g.depth == id.path.depth);
        let mut run_delta = 0.0f64;
        let mut per_sample = Vec::with_capacity(ledger.entries.len());
        for ids in &ledger.entries {
            let mut eps = 0.0;
            for id in ids {
                debug_assert!(nodes.iter().any(|n| n.phase == id.phase && n.path == id.path));
                let g = group_of(id).expect("invariant: every node's group was computed");
                eps += g.epsilon;
                run_delta = run_delta.max(g.delta);
            }
            per_sample.push(eps);
        }
        Ok((per_sample, groups, run_delta))
    }

    /// White-box replay for exact audits: `ln P(w_1 = c_{choices[0]}, …, w_K = c_{choices[K−1]})`
    /// for the exponential-mechanism selection, the product of the closed-form probabilities of
    /// each leaf given the earlier choices (the iterates are deterministic given the permutation,
    /// which depends on the seed only, and the choices).
    ///
    /// # Errors
    /// As [`FrankWolfeConfig::run`]; `InvalidParameter` unless `choices` has K entries, each < m,
    /// and the run is pure DP with the exponential mechanism.
    pub fn selection_log_probability(
        &self,
        data: &Dataset,
        loss: Loss,
        seeds: Seeds,
        choices: &[usize],
    ) -> Result<f64> {
        self.validate(data)?;
        if !matches!(self.privacy, FwPrivacy::Pure { .. }) || self.selection != SelectionMechanism::Exponential {
            return Err(Error::invalid("selection", "not the exponential mechanism", "pure DP, exponential mechanism"));
        }
        let m = self.polytope.vertex_count(data.d());
        if choices.len() as u64 != self.steps_k() || choices.iter().any(|&c| c >= m) {
            return Err(Error::invalid("choices", choices.len(), "K vertex indices, each < m"));
        }
        let mut log_p = 0.0;
        self.execute(data, loss, seeds, &mut |leaf: &LeafContext, scores: &[f64]| {
            let choice = choices[(leaf.step_k - 1) as usize];
            let p = exponential_selection_probabilities(scores, leaf.scale_lambda, leaf.sensitivity_delta)?;
            log_p += p[choice].ln();
            Ok(choice)
        })?;
        Ok(log_p)
    }

    /// The tree of Algorithm 3 with a given line-14 selection.
    #[allow(non_snake_case)]
    fn execute(
        &self,
        data: &Dataset,
        loss: Loss,
        seeds: Seeds,
        select: &mut dyn FnMut(&LeafContext, &[f64]) -> Result<usize>,
    ) -> Result<Tree> {
        loss.check_labels(data)?;
        let (n, d, T, b, L) = (data.n(), data.d(), self.phases_t, self.batch_size_b, self.lipschitz_l);
        let depth = T as usize + 1;
        // One random permutation of [n]; nodes take consecutive chunks (single pass).
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut seeds.stream(Stream::Sampling));
        let mut cursor = 0usize;
        let mut take = |size: usize| {
            let chunk = order[cursor..cursor + size].to_vec();
            cursor += size;
            chunk
        };
        let mut x = self.x0.clone().unwrap_or_else(|| self.polytope.centre(d));
        let (mut xs, mut vs) = (vec![vec![0.0; d]; depth], vec![vec![0.0; d]; depth]);
        // deltas[j]: the largest true sensitivity among the sample-holding nodes on the path to depth j.
        let mut deltas = vec![0.0; depth];
        let (mut g, mut g_parent, mut w, mut scores) = (vec![0.0; d], vec![0.0; d], vec![0.0; d], Vec::new());
        let (mut nodes, mut leaves) = (Vec::new(), Vec::new());
        let (mut k, mut evaluations) = (0u64, 0u64);
        // Alg. 3, line 1: for t = 1..T
        for t in 1..=T {
            let lambda = self.noise_scale(t);
            // Alg. 3, line 2: x_{t,root} = x_{t-1,L_{t-1}} (the last iterate)
            xs[0].copy_from_slice(&x);
            // Alg. 3, line 3: S_{t,root} = the next b samples of the permutation
            let samples = take(b);
            // Alg. 3, line 4: v_{t,root} = mean of clamped grad f(x_{t,root}; z), z in S_{t,root}
            vs[0].iter_mut().for_each(|v| *v = 0.0);
            for &i in &samples {
                clamped_gradient(data, loss, &xs[0], i, L, &mut g);
                crate::linalg::axpy(1.0 / b as f64, &g, &mut vs[0]);
            }
            evaluations += b as u64;
            deltas[0] = self.node_sensitivity(0);
            nodes.push(NodeRecord { phase: t, path: TreePath::ROOT, samples, sensitivity_delta: deltas[0] });
            // Alg. 3, line 5: for u_s in DFS(t)
            for s in dfs_order(t) {
                // Alg. 3, line 6: s = s'c, j = |s|
                let (j, c) = (s.depth as usize, s.last_bit());
                // Alg. 3, line 7: if c = 0
                if c == 0 {
                    // Alg. 3, line 8: v_{t,s} = v_{t,s'}; x_{t,s} = x_{t,s'}
                    let (above, below) = vs.split_at_mut(j);
                    below[0].copy_from_slice(&above[j - 1]);
                    let (above, below) = xs.split_at_mut(j);
                    below[0].copy_from_slice(&above[j - 1]);
                    deltas[j] = deltas[j - 1];
                    nodes.push(NodeRecord { phase: t, path: s, samples: Vec::new(), sensitivity_delta: 0.0 });
                } else {
                    // Alg. 3, line 9: else (a right child: x_{t,s} is the iterate set by the previous leaf)
                    xs[j].copy_from_slice(&x);
                    // Alg. 3, line 10: S_{t,s} = the next 2^{-j} b samples
                    let samples = take(b >> j);
                    // Alg. 3, line 11: v_{t,s} = v_{t,s'} + mean over S_{t,s} of [grad f(x_{t,s}; z) - grad f(x_{t,s'}; z)]
                    let size = samples.len() as f64;
                    let (above, below) = vs.split_at_mut(j);
                    below[0].copy_from_slice(&above[j - 1]);
                    for &i in &samples {
                        clamped_gradient(data, loss, &xs[j], i, L, &mut g);
                        clamped_gradient(data, loss, &xs[j - 1], i, L, &mut g_parent);
                        for ((v, a), p) in below[0].iter_mut().zip(&g).zip(&g_parent) {
                            *v += (a - p) / size;
                        }
                    }
                    evaluations += 2 * samples.len() as u64;
                    let delta = self.node_sensitivity(j as u32);
                    deltas[j] = deltas[j - 1].max(delta);
                    nodes.push(NodeRecord { phase: t, path: s, samples, sensitivity_delta: delta });
                }
                // Alg. 3, line 12: if j = t (a leaf)
                if j == t as usize {
                    // Alg. 3, line 13: s_+ = the next DFS vertex; x below carries x_{t,s_+}
                    k += 1;
                    // Alg. 3, line 14: w_{t,s} = argmin_i <c_i, v_{t,s}> + zeta_i (private selection)
                    self.polytope.scores(&vs[j], &mut scores);
                    let leaf = LeafContext { step_k: k, scale_lambda: lambda, sensitivity_delta: deltas[j] };
                    let vertex = select(&leaf, &scores)?;
                    self.polytope.vertex(vertex, &mut w);
                    // Alg. 3, line 15: x_{t,s_+} = (1 - eta_k) x_{t,s} + eta_k w_{t,s}, eta_k = 2/(k+1) (corrected)
                    let eta = 2.0 / (k as f64 + 1.0);
                    for ((xi, xsj), wi) in x.iter_mut().zip(&xs[j]).zip(&w) {
                        *xi = (1.0 - eta) * xsj + eta * wi;
                    }
                    leaves.push(LeafRecord {
                        step_k: k,
                        phase: t,
                        path: s,
                        x: xs[j].clone(),
                        v: vs[j].clone(),
                        vertex,
                        eta,
                        scale_lambda: lambda,
                        sensitivity_delta: deltas[j],
                    });
                }
            }
        }
        // Alg. 3, line 16: return x_K
        Ok(Tree { x, nodes, leaves, samples_used: cursor, gradient_evaluations: evaluations })
    }
}

/// `∇f(x; z_i)` clamped coordinatewise to [−L, L] (the projection onto the l∞ ball of radius L).
fn clamped_gradient(data: &Dataset, loss: Loss, x: &[f64], i: usize, lipschitz: f64, out: &mut [f64]) {
    loss.gradient(x, data.row(i), data.label(i), out);
    for v in out.iter_mut() {
        *v = v.clamp(-lipschitz, lipschitz);
    }
}

/// What line 14 knows at a leaf.
struct LeafContext {
    step_k: u64,
    scale_lambda: f64,
    sensitivity_delta: f64,
}

/// What [`FrankWolfeConfig::execute`] ran.
struct Tree {
    x: Vec<f64>,
    nodes: Vec<NodeRecord>,
    leaves: Vec<LeafRecord>,
    samples_used: usize,
    gradient_evaluations: u64,
}

/// The result of [`FrankWolfeConfig::run`].
///
/// **Only `run` is the private output** (the released vertices' iterate x_K and its privacy). The
/// other fields are the run's internal record, for tests and audits, outside the claim: `leaves`
/// hold the noiseless gradient estimates, and `nodes`/`ledger` name the records each node drew,
/// which voids the shuffle amplification of the approximate-DP routes (a record whose node is
/// known is accounted as p = 1, about 1.5× the reported ε at T = 16, δ = 1e-6). Never publish them
/// with a release.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrankWolfeRun {
    /// x = x_last = x_K; one `EpsilonDelta(2Δ_leaf/λ_t, 0)` event per noisy leaf; `privacy.epsilon`
    /// the ledger's ε (pure, δ = 0; `sigma` is 0: no Gaussian noise).
    pub run: Run,
    /// Approximate DP: the guarantee of every group (t, j) at the λ_t that ran (empty otherwise).
    pub groups: Vec<GroupGuarantee>,
    /// Every node in the order it ran (per phase: the root, then DFS(t)).
    pub nodes: Vec<NodeRecord>,
    /// Every leaf in order, k = 1..K.
    pub leaves: Vec<LeafRecord>,
    /// Sample → nodes, checked (each drawn sample in exactly one node).
    pub ledger: SampleLedger,
    /// Each sample's ε from the ledger; the run's ε is the max.
    pub per_sample_epsilon: Vec<f64>,
    /// Samples drawn from the permutation.
    pub samples_used: usize,
    /// Per-example gradient evaluations.
    pub gradient_evaluations: u64,
}
