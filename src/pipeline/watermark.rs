//! When the writer may start and when the reader may resume.
//!
//! Both rules are expressed in whole blocks, so the threads count blocks
//! they have received instead of sampling a fill level:
//!
//! - high watermark (`-P`): after the ring has run empty, the writer gathers
//!   full blocks until it holds `start_blocks` of them (or input ends), and
//!   only then writes again. A tape drive gets one long burst instead of a
//!   stop for every block.
//! - low watermark (`-p`): after the ring has filled, the reader gathers free
//!   blocks until it holds `resume_free_blocks`, which is the point where the
//!   ring has drained to the low watermark, and only then reads again.
//!
//! Both thresholds are at least 1 and at most the ring size, so neither side
//! can wait for more blocks than exist, and the two rules may be combined.

/// When the output is a tape, the writer waits for the ring to be this
/// full before it starts or restarts: a tape stop costs seconds, so one
/// long burst beats many short ones.
pub const TAPE_HIGH_WATERMARK_PCT: u8 = 90;

/// Block-count thresholds derived from the percentages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watermarks {
    /// Full blocks the writer must hold before it writes after an underrun.
    pub start_blocks: usize,
    /// Free blocks the reader must hold before it reads after an overrun.
    pub resume_free_blocks: usize,
}

impl Watermarks {
    /// `high_pct`: how full the ring must be before writing resumes.
    /// `low_pct`: how empty the ring must get before reading resumes.
    pub fn new(blocks: usize, high_pct: u8, low_pct: u8) -> Watermarks {
        assert!(blocks > 0, "a ring has blocks");
        let high = (blocks * usize::from(high_pct.min(100))).div_ceil(100);
        // Fill may be at most low_pct, so free must be at least the rest.
        let low_fill = blocks * usize::from(low_pct.min(100)) / 100;
        Watermarks {
            start_blocks: high.clamp(1, blocks),
            resume_free_blocks: (blocks - low_fill).clamp(1, blocks),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_start_and_resume_with_one_block() {
        let w = Watermarks::new(512, 0, 100);
        assert_eq!(w.start_blocks, 1);
        assert_eq!(w.resume_free_blocks, 1);
    }

    #[test]
    fn high_watermark_rounds_up_to_whole_blocks() {
        assert_eq!(Watermarks::new(10, 90, 100).start_blocks, 9);
        assert_eq!(Watermarks::new(10, 91, 100).start_blocks, 10);
        assert_eq!(Watermarks::new(3, 50, 100).start_blocks, 2);
        assert_eq!(Watermarks::new(10, 100, 100).start_blocks, 10);
    }

    #[test]
    fn low_watermark_is_free_blocks_needed() {
        // Drained to 20% of 10 blocks: at most 2 full, so 8 free.
        assert_eq!(Watermarks::new(10, 0, 20).resume_free_blocks, 8);
        // Drained completely.
        assert_eq!(Watermarks::new(10, 0, 0).resume_free_blocks, 10);
    }

    #[test]
    fn thresholds_never_exceed_the_ring() {
        for blocks in 1..50 {
            for pct in [0u8, 1, 33, 50, 99, 100] {
                let w = Watermarks::new(blocks, pct, pct);
                assert!((1..=blocks).contains(&w.start_blocks));
                assert!((1..=blocks).contains(&w.resume_free_blocks));
            }
        }
    }
}
