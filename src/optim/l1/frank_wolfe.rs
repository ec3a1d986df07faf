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
//! (Lemma 4.4, amplification by shuffling) is refused with `Unsupported`.
//!
//! Proof: proofs/l1/frank_wolfe.md.

use crate::accounting::Neighbouring;
use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::loss::Loss;
use crate::optim::release::exponential_selection_probabilities;
use crate::optim::{PrivateSelection, Run, SelectionMechanism};
use crate::rng::{Seeds, Stream};
use rand::seq::SliceRandom;
use serde::Serialize;

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
    /// (ε, δ)-DP by advanced composition and amplification by shuffling (Lemma 4.4): not
    /// implemented; [`FrankWolfeConfig::new`] refuses it with `Unsupported`.
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
        let config = FrankWolfeConfig {
            phases_t,
            batch_size_b,
            lipschitz_l,
            polytope,
            selection,
            privacy,
            reading: SensitivityReading::Corrected,
            x0: None,
        };
        config.check_settings()?;
        Ok(config)
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
            FwPrivacy::Approximate { .. } => {
                return Err(Error::Unsupported {
                    event: "AFKT Algorithm 3, approximate (eps, delta)-DP (Lemma 4.4)".into(),
                    neighbouring: Neighbouring::ReplaceOne.name().into(),
                    accountant: "per-sample ledger",
                    reason: "advanced composition per subtree and amplification by shuffling are not implemented; \
                             use pure epsilon-DP"
                        .into(),
                });
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

    /// λ_t of phase t: `2·2^t·max_{0≤j≤t} Δ_j 2^{−j}/ε` under the config's reading (0 without noise).
    pub fn noise_scale(&self, phase_t: u32) -> f64 {
        let FwPrivacy::Pure { epsilon } = self.privacy else { return 0.0 };
        let per_depth = |j: u32| match self.reading {
            SensitivityReading::Corrected => self.node_sensitivity(j),
            SensitivityReading::AsPrinted => self.printed_sensitivity(j),
        } / 2f64.powi(j as i32);
        let worst = (0..=phase_t).map(per_depth).fold(0.0, f64::max);
        2.0 * 2f64.powi(phase_t as i32) * worst / epsilon
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
        let per_sample_epsilon = ledger.per_sample_epsilon(&tree.nodes, &tree.leaves);
        let epsilon = match self.privacy {
            FwPrivacy::Pure { .. } => Some(per_sample_epsilon.iter().copied().fold(0.0, f64::max)),
            _ => None,
        };
        let summary = selection.finish(epsilon);
        let run = Run::new(tree.x.clone(), tree.x, self.steps_k(), summary);
        Ok(FrankWolfeRun {
            run,
            nodes: tree.nodes,
            leaves: tree.leaves,
            ledger,
            per_sample_epsilon,
            samples_used: tree.samples_used,
            gradient_evaluations: tree.gradient_evaluations,
        })
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
    /// unused sample).
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
                    for leaf in leaves.iter().filter(|l| l.phase == id.phase && id.path.is_prefix_of(l.path)) {
                        eps += if leaf.scale_lambda > 0.0 { 2.0 * delta / leaf.scale_lambda } else { f64::INFINITY };
                    }
                }
                eps
            })
            .collect()
    }
}

/// The result of [`FrankWolfeConfig::run`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrankWolfeRun {
    /// x = x_last = x_K; one `EpsilonDelta(2Δ_leaf/λ_t, 0)` event per noisy leaf; `privacy.epsilon`
    /// the ledger's ε (pure, δ = 0; `sigma` is 0: no Gaussian noise).
    pub run: Run,
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
