//! The ring's shape: block size and block count from any two of `-s`, `-m`
//! and `-b`, with the machine's memory (lowered to the control group's
//! limit) for percentages and for the check that the ring fits. The
//! invariants every later stage relies on hold when this returns: at least
//! `MIN_BLOCKS` blocks, at most `MAX_BLOCKS`, blocks of at least
//! `MIN_BLOCK_BYTES`, and a total that fits in memory and in the address
//! space.

use super::ConfigError;
use crate::base::size::{parse_size, parse_size_or_percent, Bytes, SizeOrPercent};
use crate::cli::Cli;

/// The default block size suits modern tape drives (LTO wants 256 KiB or more).
pub const DEFAULT_BLOCK_BYTES: u64 = 256 * 1024;
/// The default ring size when neither -m nor -b is given.
pub const DEFAULT_MEMORY_BYTES: u64 = 128 * 1024 * 1024;
use crate::base::block::DIRECT_ALIGN_BYTES;
/// The ring needs one block being filled and one being drained.
pub const MIN_BLOCKS: u64 = 2;
/// Each block costs about 100 bytes of bookkeeping besides its data, so the
/// count is capped to keep that overhead near 12 MiB.
pub const MAX_BLOCKS: u64 = 128 * 1024;
/// The smallest block: a tape record is never smaller, and tinier blocks
/// would spend more on bookkeeping than on data.
pub const MIN_BLOCK_BYTES: u64 = 512;

/// Facts about the machine that defaults and checks depend on.
#[derive(Debug, Clone, Copy)]
pub struct MachineInfo {
    pub physical_memory_bytes: u64,
}

impl MachineInfo {
    /// Reads the machine's physical memory with sysconf, lowered to the
    /// memory limit of the control group we run in, if that is smaller: in
    /// a container, "25% of RAM" must mean of the RAM we may use.
    pub fn current() -> Self {
        use nix::unistd::{sysconf, SysconfVar};
        let pages = sysconf(SysconfVar::_PHYS_PAGES).ok().flatten().unwrap_or(0);
        let page = sysconf(SysconfVar::PAGE_SIZE)
            .ok()
            .flatten()
            .unwrap_or(4096);
        let physical = (pages.max(0) as u64).saturating_mul(page.max(0) as u64);
        let limit = cgroup_memory_limit().unwrap_or(u64::MAX);
        MachineInfo {
            physical_memory_bytes: if physical == 0 {
                0
            } else {
                physical.min(limit)
            },
        }
    }
}

/// The cgroup v2 or v1 memory limit as seen from inside the namespace.
fn cgroup_memory_limit() -> Option<u64> {
    [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .filter_map(|p| std::fs::read_to_string(p).ok())
    .filter_map(|s| s.trim().parse::<u64>().ok()) // "max" means none
    .min()
}

/// `-s`, `-m` and `-b` as typed.
#[derive(Debug, Clone, Copy)]
pub(super) struct RingFlags<'a> {
    pub block_size: Option<&'a str>,
    pub memory: Option<&'a str>,
    pub blocks: Option<u64>,
}

impl<'a> RingFlags<'a> {
    /// The ring flags of the buffer's command line.
    pub fn of(cli: &'a Cli) -> RingFlags<'a> {
        RingFlags {
            block_size: cli.block_size.as_deref(),
            memory: cli.memory.as_deref(),
            blocks: cli.blocks,
        }
    }
}

/// Works out block size and block count from any two of -s, -m and -b.
pub(super) fn resolve_ring(
    flags: RingFlags,
    machine: MachineInfo,
) -> Result<(u64, u64), ConfigError> {
    let block = block_size(flags.block_size)?;
    let memory = memory_size(flags.memory, machine)?;
    if let Some(0) = flags.blocks {
        return Err(ConfigError::new("-b/--blocks", "must be at least 2"));
    }

    let (block, blocks) = shape(block, memory, flags.blocks)?;
    check_ring(block, blocks, machine)?;
    Ok((block, blocks))
}

/// `-s`, checked: at least `MIN_BLOCK_BYTES`, at most what one write moves.
fn block_size(text: Option<&str>) -> Result<Option<u64>, ConfigError> {
    Ok(match text {
        Some(text) => {
            let b =
                parse_size(text).map_err(|e| ConfigError::new("-s/--block-size", e.to_string()))?;
            if b < MIN_BLOCK_BYTES {
                return Err(ConfigError::new(
                    "-s/--block-size",
                    format!("{b} bytes is too small; a block is at least {MIN_BLOCK_BYTES} bytes"),
                ));
            }
            if b > 1 << 31 {
                return Err(ConfigError::new(
                    "-s/--block-size",
                    format!(
                        "{} is larger than the 2 GiB a single write can move",
                        Bytes(b)
                    ),
                ));
            }
            Some(b)
        }
        None => None,
    })
}

/// `-m`, as bytes (a percentage of the machine's memory), checked against
/// the machine.
fn memory_size(text: Option<&str>, machine: MachineInfo) -> Result<Option<u64>, ConfigError> {
    Ok(match text {
        Some(text) => {
            let m = match parse_size_or_percent(text)
                .map_err(|e| ConfigError::new("-m/--memory", e.to_string()))?
            {
                SizeOrPercent::Bytes(b) => b,
                SizeOrPercent::Percent(p) => {
                    (machine.physical_memory_bytes as f64 * p / 100.0) as u64
                }
            };
            if machine.physical_memory_bytes > 0 && m > machine.physical_memory_bytes {
                return Err(ConfigError::new(
                    "-m/--memory",
                    format!(
                        "{} is more than this machine's {} of physical memory",
                        Bytes(m),
                        Bytes(machine.physical_memory_bytes)
                    ),
                ));
            }
            Some(m)
        }
        None => None,
    })
}

/// Block size and count from the ones given, and the defaults.
fn shape(
    block: Option<u64>,
    memory: Option<u64>,
    count: Option<u64>,
) -> Result<(u64, u64), ConfigError> {
    Ok(match (block, memory, count) {
        (Some(s), Some(m), Some(b)) => {
            if s.checked_mul(b) != Some(m) {
                return Err(ConfigError::new(
                    "-s/--block-size, -m/--memory, -b/--blocks",
                    format!(
                        "{} blocks of {} is not {}; give any two of the three",
                        b,
                        Bytes(s),
                        Bytes(m)
                    ),
                ));
            }
            (s, b)
        }
        (Some(s), Some(m), None) => {
            if s > m {
                return Err(ConfigError::new(
                    "-s/--block-size",
                    format!(
                        "the block size {} is larger than -m/--memory {}",
                        Bytes(s),
                        Bytes(m)
                    ),
                ));
            }
            (s, m / s)
        }
        (Some(s), None, Some(b)) => (s, b),
        (None, Some(m), Some(b)) => {
            let s = (m / b) / DIRECT_ALIGN_BYTES * DIRECT_ALIGN_BYTES;
            if s == 0 {
                return Err(ConfigError::new(
                    "-m/--memory, -b/--blocks",
                    format!(
                        "{} split into {} blocks leaves blocks under 4 KiB",
                        Bytes(m),
                        b
                    ),
                ));
            }
            (s, b)
        }
        (Some(s), None, None) => (s, (DEFAULT_MEMORY_BYTES / s).clamp(MIN_BLOCKS, MAX_BLOCKS)),
        (None, Some(m), None) => {
            if m < DEFAULT_BLOCK_BYTES * MIN_BLOCKS {
                return Err(ConfigError::new(
                    "-m/--memory",
                    format!(
                        "{} holds fewer than {} blocks of the default {}; give a smaller -s/--block-size",
                        Bytes(m),
                        MIN_BLOCKS,
                        Bytes(DEFAULT_BLOCK_BYTES)
                    ),
                ));
            }
            (DEFAULT_BLOCK_BYTES, m / DEFAULT_BLOCK_BYTES)
        }
        (None, None, Some(b)) => (DEFAULT_BLOCK_BYTES, b),
        (None, None, None) => (
            DEFAULT_BLOCK_BYTES,
            DEFAULT_MEMORY_BYTES / DEFAULT_BLOCK_BYTES,
        ),
    })
}

/// The ring's invariants: enough blocks, not too many, and a total that
/// fits in memory and in the address space.
fn check_ring(block: u64, blocks: u64, machine: MachineInfo) -> Result<(), ConfigError> {
    if blocks < MIN_BLOCKS {
        return Err(ConfigError::new(
            "-s/--block-size, -m/--memory, -b/--blocks",
            format!(
                "the ring would have {blocks} block of {}; it needs at least {MIN_BLOCKS}",
                Bytes(block)
            ),
        ));
    }
    if blocks > MAX_BLOCKS {
        return Err(ConfigError::new(
            "-s/--block-size, -m/--memory, -b/--blocks",
            format!(
                "the ring would have {blocks} blocks of {}; at most {MAX_BLOCKS} are allowed, so use larger blocks",
                Bytes(block)
            ),
        ));
    }
    let total = block.saturating_mul(blocks);
    if machine.physical_memory_bytes > 0 && total > machine.physical_memory_bytes {
        return Err(ConfigError::new(
            "-b/--blocks",
            format!(
                "{} blocks of {} is more than this machine's {} of physical memory",
                blocks,
                Bytes(block),
                Bytes(machine.physical_memory_bytes)
            ),
        ));
    }
    if usize::try_from(total).is_err() || usize::try_from(blocks).is_err() {
        return Err(ConfigError::new(
            "-m/--memory",
            "does not fit in this address space",
        ));
    }
    Ok(())
}
