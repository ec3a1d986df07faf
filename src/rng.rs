//! Seeded, reproducible random streams.
//!
//! Every random draw in dpref comes from a [`DpRng`] obtained from a [`Seeds`] value; nothing
//! reads OS entropy or a thread-local generator. A run uses *separate* streams for separate
//! purposes ([`Stream::Sampling`] for batch selection, [`Stream::Noise`] for privacy noise, ...),
//! so that, e.g., changing the noise scale does not change which batches are drawn, and a
//! parallel task `i` uses the stream `(purpose, i)`, so results do not depend on the thread count.
//!
//! # Derivation of child streams
//! With SplitMix64's finaliser `mix` (Steele, Lea, Flood 2014) and the 64-bit tag of the purpose,
//! the stream `(purpose, index)` of root seed `s` is the PCG-XSL-RR 128/64 generator
//! (`rand_pcg::Pcg64`, O'Neill 2014) with
//! ```text
//! h0 = mix(mix(s ^ 0x6470_7265_665f_7631) ^ tag(purpose)) ^ index      ("dpref_v1")
//! state = mix(h0 ^ 1) << 64 | mix(h0 ^ 2),   increment = mix(h0 ^ 3) << 64 | mix(h0 ^ 4)
//! ```
//! Every 64-bit word of state and increment goes through the bijective finaliser, so distinct
//! `(s, purpose, index)` give unrelated state *and* increment (PCG streams that share a state but
//! differ only in increment are correlated, hence both are derived). [`Seeds::child`] derives a
//! new root the same way with the purpose [`Stream::Child`], for nested experiments (repetition
//! `r` of a sweep uses `seeds.child(r)`). The derivation is part of the golden files' contract:
//! changing it changes every seeded output and must bump the golden snapshots.

use rand_pcg::Pcg64;

/// The generator every dpref stream uses (PCG-XSL-RR 128/64).
pub type DpRng = Pcg64;

/// What a stream is used for. The tag values are fixed forever (they enter the derivation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    /// Batch selection (Poisson coin flips, index draws).
    Sampling,
    /// Privacy noise (Gaussian, Laplace, noisy max, ...).
    Noise,
    /// Synthetic data generation.
    Data,
    /// Initial points and other non-private algorithm randomness.
    Init,
    /// Audit sampling (mechanism outputs, canary placement, data splits).
    Audit,
    /// Derivation of child seeds ([`Seeds::child`]).
    Child,
    /// A caller-defined purpose: the low 60 bits of the tag are used (bit 60 marks the tag as
    /// caller-defined, so it can never equal a built-in purpose's; `2⁶⁰ ^ t` once made
    /// `Other(2⁶⁰ + 2)` the noise stream).
    Other(u64),
}

impl Stream {
    fn tag(self) -> u64 {
        match self {
            Stream::Sampling => 1,
            Stream::Noise => 2,
            Stream::Data => 3,
            Stream::Init => 4,
            Stream::Audit => 5,
            Stream::Child => 6,
            Stream::Other(t) => 0x1000_0000_0000_0000 | (t & 0x0fff_ffff_ffff_ffff),
        }
    }
}

/// SplitMix64's output function: a bijection on `u64` with full avalanche.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A root seed from which all the streams of one run are derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seeds {
    root: u64,
}

impl Seeds {
    /// The seeds of a run started with the user's `--seed`.
    pub fn new(seed: u64) -> Self {
        Seeds { root: seed }
    }

    /// The root seed.
    pub fn root(&self) -> u64 {
        self.root
    }

    fn h0(&self, purpose: Stream, index: u64) -> u64 {
        mix(mix(self.root ^ 0x6470_7265_665f_7631) ^ purpose.tag()) ^ index
    }

    /// Stream `(purpose, 0)`.
    pub fn stream(&self, purpose: Stream) -> DpRng {
        self.stream_at(purpose, 0)
    }

    /// Stream `(purpose, index)`, e.g. the noise of shard `index` of a parallel audit.
    pub fn stream_at(&self, purpose: Stream, index: u64) -> DpRng {
        let h0 = self.h0(purpose, index);
        let wide = |a: u64, b: u64| ((mix(h0 ^ a) as u128) << 64) | mix(h0 ^ b) as u128;
        Pcg64::new(wide(1, 2), wide(3, 4))
    }

    /// An independent root for sub-experiment `index` (repetition, grid point, ...).
    pub fn child(&self, index: u64) -> Seeds {
        Seeds { root: mix(self.h0(Stream::Child, index)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_seed_same_stream_and_purposes_differ() {
        let s = Seeds::new(42);
        let a: Vec<u64> = (0..4).map(|_| 0).scan(s.stream(Stream::Noise), |r, _| Some(r.next_u64())).collect();
        let b: Vec<u64> = (0..4).map(|_| 0).scan(s.stream(Stream::Noise), |r, _| Some(r.next_u64())).collect();
        assert_eq!(a, b);
        let mut c = s.stream(Stream::Sampling);
        assert_ne!(a[0], c.next_u64());
        let mut d = s.stream_at(Stream::Noise, 1);
        assert_ne!(a[0], d.next_u64());
        assert_ne!(s.child(0), s.child(1));
        assert_ne!(s.child(0).root(), s.root());
    }

    /// No caller-defined tag reaches a built-in purpose's stream (`Other(2⁶⁰ ^ 2)` was the noise
    /// stream), and the tags in use keep their values.
    #[test]
    fn caller_tags_never_alias_built_in_streams() {
        let built_in = [Stream::Sampling, Stream::Noise, Stream::Data, Stream::Init, Stream::Audit, Stream::Child];
        for k in 0..=7u64 {
            for high in [0, 1u64 << 60, 0xf000_0000_0000_0000] {
                let tag = Stream::Other(high ^ k).tag();
                assert!(built_in.iter().all(|b| b.tag() != tag), "Other({:#x}) aliases a built-in", high ^ k);
            }
        }
        assert_eq!(Stream::Other(0x5e1).tag(), 0x1000_0000_0000_05e1);
    }
}
