//! TCP streams between real tapebuf processes on loopback: byte-exact
//! transfers over IPv4 and IPv6, several receivers, late receivers, killed
//! and stalled peers, `--allow`, senders that would take memory beyond
//! `-m`, framing damage caught in transit, raw streams to and from
//! mbuffer, and `--hash` against coreutils.
//!
//! The cases are grouped by topic in tests/network/, sharing `harness`.

mod ca;
mod damage;
mod default_keys;
mod failures;
pub mod harness;
mod memory;
mod options;
pub mod private;
mod raw;
mod senders;
mod served_resume;
mod service_rig;
mod summaries;
mod transfers;
