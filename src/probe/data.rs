//! The test stream: bytes that are a pure function of (seed, offset), so a
//! read-back is checked against the same bytes made again, and nothing
//! larger than a block is ever held in memory.
//!
//! `random` is a counter-based generator: the 8-byte word at index i is
//! splitmix64's xorshift-multiply finaliser applied to `seed + i * golden`,
//! so any offset can be regenerated without replaying the stream. `zeros`
//! is all zero bytes, which a compressing drive takes at many times its
//! real rate. `mix` alternates 1 MiB regions of each, starting with random.
//! The invariant: `fill(offset, buf)` gives the same bytes whatever the
//! block boundaries, so every block size writes the same stream.

use crate::probe::schema::DataKind;

/// The length of each region of `mix` data.
pub const MIX_REGION_BYTES: u64 = 1 << 20;

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// splitmix64's output function: xorshifts and multiplies.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The test stream of one pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    pub kind: DataKind,
    pub seed: u64,
}

/// The first byte at which a read-back differs from what was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Difference {
    /// Byte offset from the start of the pass.
    pub offset: u64,
    pub expected: u8,
    pub got: u8,
}

impl Pattern {
    pub fn new(kind: DataKind, seed: u64) -> Pattern {
        Pattern { kind, seed }
    }

    /// Fills `buf` with the stream's bytes from `offset` on.
    pub fn fill(&self, offset: u64, buf: &mut [u8]) {
        match self.kind {
            DataKind::Zeros => buf.fill(0),
            DataKind::Random => fill_random(self.seed, offset, buf),
            DataKind::Mix => {
                let mut at = 0usize;
                while at < buf.len() {
                    let here = offset + at as u64;
                    let region_end = (here / MIX_REGION_BYTES + 1) * MIX_REGION_BYTES;
                    let len = ((region_end - here) as usize).min(buf.len() - at);
                    let piece = &mut buf[at..at + len];
                    if (here / MIX_REGION_BYTES).is_multiple_of(2) {
                        fill_random(self.seed, here, piece);
                    } else {
                        piece.fill(0);
                    }
                    at += len;
                }
            }
        }
    }

    /// Compares `got`, read from `offset`, with the stream; `scratch` must
    /// be at least as long as `got`.
    pub fn first_difference(
        &self,
        offset: u64,
        got: &[u8],
        scratch: &mut [u8],
    ) -> Option<Difference> {
        let expected = &mut scratch[..got.len()];
        self.fill(offset, expected);
        if expected == got {
            return None;
        }
        let i = expected
            .iter()
            .zip(got)
            .position(|(e, g)| e != g)
            .expect("the slices differ");
        Some(Difference {
            offset: offset + i as u64,
            expected: expected[i],
            got: got[i],
        })
    }
}

fn word(seed: u64, index: u64) -> [u8; 8] {
    mix64(seed.wrapping_add(index.wrapping_mul(GOLDEN))).to_le_bytes()
}

fn fill_random(seed: u64, offset: u64, buf: &mut [u8]) {
    let mut at = 0usize;
    let mut here = offset;
    // An unaligned head, byte by byte.
    while !here.is_multiple_of(8) && at < buf.len() {
        buf[at] = word(seed, here / 8)[(here % 8) as usize];
        at += 1;
        here += 1;
    }
    let mut index = here / 8;
    // The counter advances by adding, as splitmix64 does; whole words are
    // stored at once.
    let mut state = seed.wrapping_add(index.wrapping_mul(GOLDEN));
    let mut words = buf[at..].chunks_exact_mut(8);
    for w in &mut words {
        let bytes: &mut [u8; 8] = w.try_into().expect("chunks of 8");
        *bytes = mix64(state).to_le_bytes();
        state = state.wrapping_add(GOLDEN);
        index += 1;
    }
    let tail = words.into_remainder();
    if !tail.is_empty() {
        let len = tail.len();
        tail.copy_from_slice(&word(seed, index)[..len]);
    }
}

/// A seed for each (block size, run), so that no pass can be satisfied by
/// the bytes an earlier pass left behind.
pub fn pass_seed(block_bytes: u64, run: u32) -> u64 {
    mix64(block_bytes ^ ((run as u64) << 48) ^ 0x7461_7065_6275_6621)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(p: Pattern, len: usize) -> Vec<u8> {
        let mut v = vec![0xAA; len];
        p.fill(0, &mut v);
        v
    }

    #[test]
    fn the_stream_is_the_same_whatever_the_block_boundaries() {
        for kind in [DataKind::Random, DataKind::Mix, DataKind::Zeros] {
            let p = Pattern::new(kind, 42);
            let whole = stream(p, 3 << 20);
            for block in [1usize, 7, 4096, 65536 + 3, 1 << 20] {
                let mut pieced = vec![0x55; whole.len()];
                for (i, chunk) in pieced.chunks_mut(block).enumerate() {
                    p.fill((i * block) as u64, chunk);
                }
                assert!(pieced == whole, "{kind:?} differs in blocks of {block}");
            }
        }
    }

    #[test]
    fn mix_alternates_random_and_zero_regions() {
        let v = stream(Pattern::new(DataKind::Mix, 1), 3 << 20);
        let region = MIX_REGION_BYTES as usize;
        assert!(v[..region].iter().filter(|&&b| b == 0).count() < region / 100);
        assert!(v[region..2 * region].iter().all(|&b| b == 0));
        assert!(v[2 * region..].iter().any(|&b| b != 0));
    }

    #[test]
    fn random_data_does_not_compress_and_seeds_differ() {
        let a = stream(Pattern::new(DataKind::Random, 1), 1 << 16);
        let b = stream(Pattern::new(DataKind::Random, 2), 1 << 16);
        assert_ne!(a, b);
        let mut counts = [0usize; 256];
        for &x in &a {
            counts[x as usize] += 1;
        }
        // 256 bytes per value on average; a flat histogram.
        assert!(
            counts.iter().all(|&c| (150..370).contains(&c)),
            "{counts:?}"
        );
        assert_ne!(pass_seed(65536, 1), pass_seed(65536, 2));
        assert_ne!(pass_seed(65536, 1), pass_seed(131072, 1));
    }

    #[test]
    fn a_difference_is_reported_at_its_offset() {
        let p = Pattern::new(DataKind::Random, 9);
        let mut got = vec![0; 1000];
        p.fill(5000, &mut got);
        let mut scratch = vec![0; 1000];
        assert_eq!(p.first_difference(5000, &got, &mut scratch), None);
        got[321] ^= 0x10;
        let d = p.first_difference(5000, &got, &mut scratch).unwrap();
        assert_eq!(d.offset, 5321);
        assert_eq!(d.expected ^ 0x10, d.got);
    }
}
