//! [`MuxTree`]: an `N`:1 read multiplexer (`N = 2^L` entries of `W` bits) as a binary tree of
//! 2:1 selects on successive index bits: level 1 picks between entry pairs on `sel[0]`, level
//! 2 between the level-1 results on `sel[1]`, ..., the root on `sel[L-1]`. Purely
//! combinational: `out = leaf[sel]` at all times.
//!
//! Why a tree and not a compare per entry: `if sel == k { out = leaf[k] }` for every `k` is a
//! priority chain that Yosys 0.23 does not rebuild into a multiplexer (measured on the packet
//! formatter's 16-entry GID select: 5,456 -> 1,999 ECP5 LUT4 with the tree). Entries that are
//! constants (0 for reserved register words) fold away after flattening, as in a hand-written
//! tree.
//!
//! Ports: `leaf` (the `N` entries), `sel` (the index, `L` bits), `out`.
//!
//! Layout (how it is written in the rust-hdl subset): the `N - 1` tree nodes are one array,
//! level by level from the leaves: level 1 is `node[0 .. N/2]`, and every node `q >= N/2`
//! selects between `node[2q - N]` and `node[2q - N + 1]`, so the children of a node always
//! come before it (a `Local` is never read before it is written) and the root is
//! `node[N - 2]`, copied to `node[N - 1]` and `out`. Level `k` selects on `sel[k-1]`, a literal
//! bit index in its own loop; the loops of the levels a tree does not have are empty, so up
//! to [`MAX_LEVELS`] levels are written out. The Verilog emitter resolves only loop variables
//! inside `[...]`, so the constant `N` in an index is the variable of a one-pass loop
//! (`for n in N..N + 1`).
use rust_hdl::prelude::*;

/// The deepest tree the kernel is written for (`N <= 1024` entries).
pub const MAX_LEVELS: usize = 10;

#[derive(LogicBlock)]
pub struct MuxTree<const W: usize, const N: usize, const L: usize> {
    /// The entries: `out` is `leaf[sel]`.
    pub leaf: [Signal<In, Bits<W>>; N],
    pub sel: Signal<In, Bits<L>>,
    pub out: Signal<Out, Bits<W>>,
    node: [Signal<Local, Bits<W>>; N],
}

impl<const W: usize, const N: usize, const L: usize> MuxTree<W, N, L> {
    /// The first node of level `k` (1-based; level 1 selects between entry pairs).
    pub const fn level_start(k: usize) -> usize {
        N - (N >> (k - 1))
    }

    /// One past the last node of level `k` (`level_start(k)` if the tree has no level `k`).
    pub const fn level_end(k: usize) -> usize {
        if k > L {
            Self::level_start(k)
        } else {
            N - (N >> k)
        }
    }
}

impl<const W: usize, const N: usize, const L: usize> Default for MuxTree<W, N, L> {
    fn default() -> Self {
        assert!(
            (1..=MAX_LEVELS).contains(&L) && N == 1 << L,
            "MuxTree: {N} entries are not 2^{L} (1 <= L <= {MAX_LEVELS})"
        );
        Self {
            leaf: core::array::from_fn(|_| Default::default()),
            sel: Default::default(),
            out: Default::default(),
            node: core::array::from_fn(|_| Default::default()),
        }
    }
}

impl<const W: usize, const N: usize, const L: usize> Logic for MuxTree<W, N, L> {
    #[hdl_gen]
    fn update(&mut self) {
        // level 1: the entry pairs, on sel[0]
        for i in 0..(N / 2) {
            self.node[i].next = self.leaf[2 * i].val();
            if self.sel.val().get_bit(0) {
                self.node[i].next = self.leaf[2 * i + 1].val();
            }
        }
        // levels 2 .. L, on sel[1] .. sel[L-1] (n is N: see the module comment)
        for n in N..(N + 1) {
            for q in (Self::level_start(2))..(Self::level_end(2)) {
                self.node[q].next = self.node[2 * q - n].val();
                if self.sel.val().get_bit(1) {
                    self.node[q].next = self.node[2 * q - n + 1].val();
                }
            }
            for q in (Self::level_start(3))..(Self::level_end(3)) {
                self.node[q].next = self.node[2 * q - n].val();
                if self.sel.val().get_bit(2) {
                    self.node[q].next = self.node[2 * q - n + 1].val();
                }
            }
            for q in (Self::level_start(4))..(Self::level_end(4)) {
                self.node[q].next = self.node[2 * q - n].val();
                if self.sel.val().get_bit(3) {
                    self.node[q].next = self.node[2 * q - n + 1].val();
                }
            }
            for q in (Self::level_start(5))..(Self::level_end(5)) {
                self.node[q].next = self.node[2 * q - n].val();
                if self.sel.val().get_bit(4) {
                    self.node[q].next = self.node[2 * q - n + 1].val();
                }
            }
            for q in (Self::level_start(6))..(Self::level_end(6)) {
                self.node[q].next = self.node[2 * q - n].val();
                if self.sel.val().get_bit(5) {
                    self.node[q].next = self.node[2 * q - n + 1].val();
                }
            }
            for q in (Self::level_start(7))..(Self::level_end(7)) {
                self.node[q].next = self.node[2 * q - n].val();
                if self.sel.val().get_bit(6) {
                    self.node[q].next = self.node[2 * q - n + 1].val();
                }
            }
            for q in (Self::level_start(8))..(Self::level_end(8)) {
                self.node[q].next = self.node[2 * q - n].val();
                if self.sel.val().get_bit(7) {
                    self.node[q].next = self.node[2 * q - n + 1].val();
                }
            }
            for q in (Self::level_start(9))..(Self::level_end(9)) {
                self.node[q].next = self.node[2 * q - n].val();
                if self.sel.val().get_bit(8) {
                    self.node[q].next = self.node[2 * q - n + 1].val();
                }
            }
            for q in (Self::level_start(10))..(Self::level_end(10)) {
                self.node[q].next = self.node[2 * q - n].val();
                if self.sel.val().get_bit(9) {
                    self.node[q].next = self.node[2 * q - n + 1].val();
                }
            }
            self.node[n - 1].next = self.node[n - 2].val();
            self.out.next = self.node[n - 1].val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbench::{settle_block, Rng};

    fn random_bits<const W: usize>(rng: &mut Rng) -> Bits<W> {
        let mut v = Bits::<W>::default();
        for k in 0..W {
            if rng.percent(50) {
                v = v.replace_bit(k, true);
            }
        }
        v
    }

    /// `out` against `leaf[sel]` (the plain-Rust model) for random entries and indices.
    fn matches_the_model<const W: usize, const N: usize, const L: usize>(seed: u64, rounds: usize) {
        let mut uut = MuxTree::<W, N, L>::default();
        uut.connect_all();
        let mut rng = Rng::new(seed);
        for round in 0..rounds {
            let leaves: Vec<Bits<W>> = (0..N).map(|_| random_bits::<W>(&mut rng)).collect();
            for (k, v) in leaves.iter().enumerate() {
                uut.leaf[k].next = *v;
            }
            // every index once, then random ones
            for t in 0..(N + 8) {
                let s = if t < N {
                    t
                } else {
                    rng.below(N as u64) as usize
                };
                uut.sel.next = (s as u64).into();
                settle_block(&mut uut);
                assert_eq!(uut.out.val(), leaves[s], "round {round}, sel {s}");
            }
        }
    }

    #[test]
    fn mux_tree_matches_a_plain_index() {
        matches_the_model::<8, 2, 1>(1, 20);
        matches_the_model::<5, 4, 2>(2, 20);
        matches_the_model::<128, 16, 4>(3, 10);
        matches_the_model::<32, 64, 6>(4, 4);
        matches_the_model::<32, 128, 7>(5, 3);
    }

    #[test]
    fn mux_tree_levels() {
        // 8 entries: level 1 is nodes 0..4, level 2 nodes 4..6, the root node 6
        type T = MuxTree<1, 8, 3>;
        let levels: Vec<(usize, usize)> = (1..=MAX_LEVELS)
            .map(|k| (T::level_start(k), T::level_end(k)))
            .collect();
        assert_eq!(levels[..3], [(0, 4), (4, 6), (6, 7)]);
        assert!(levels[3..].iter().all(|(a, b)| a == b));
        assert_eq!(MuxTree::<1, 2, 1>::level_end(1), 1);
    }

    /// Synthesis check (the emitted Verilog through Yosys, as the other widgets).
    #[test]
    fn mux_tree_synthesises() {
        crate::csr::synth_check(&mut MuxTree::<32, 64, 6>::default(), "mux_tree");
        crate::csr::synth_check(&mut MuxTree::<128, 16, 4>::default(), "mux_tree_gid");
    }

    /// The emitted Verilog names every node by a literal index (no unresolved `N` or `n`).
    #[test]
    fn mux_tree_verilog_indices_are_literals() {
        let v = crate::verilog::block_verilog(&mut MuxTree::<4, 8, 3>::default(), "top");
        assert!(v.contains("node$6 = node$4;"), "{v}");
        assert!(v.contains("if (sel[32'h2])"), "{v}");
        assert!(!v.contains("sel[32'h3]"), "{v}");
        assert!(v.contains("node$7 = node$6;"), "{v}");
        assert!(v.contains("out = node$7;"), "{v}");
        assert!(!v.contains(" n ") && !v.contains("- n"), "{v}");
    }
}
