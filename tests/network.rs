//! TCP streams between real tapebuf processes on loopback: byte-exact
//! transfers over IPv4 and IPv6, several receivers, late receivers, killed
//! and stalled peers, `--allow`, senders that would take memory beyond
//! `-m`, framing damage caught in transit, raw streams to and from
//! mbuffer, and `--hash` against coreutils.
//!
//! The cases are grouped by topic in tests/network/, sharing `harness`.

mod common;
#[path = "network/damage.rs"]
mod damage;
#[path = "network/failures.rs"]
mod failures;
#[path = "network/harness.rs"]
mod harness;
#[path = "network/memory.rs"]
mod memory;
#[path = "network/options.rs"]
mod options;
#[path = "network/raw.rs"]
mod raw;
#[path = "network/transfers.rs"]
mod transfers;
