//! Where bytes come from. A source fills whole blocks: it joins the short
//! reads that pipes and sockets give, so that a block is short only at the
//! end of the input, or where a tape's next record would not fit. Today:
//! standard input, files, tape drives, input volumes, a TCP sender,
//! remote tapes and files over rmt, and a producer command (`-- CMD`). `open.rs` opens the source the user's
//! [`spec::InputSpec`] names; a new kind of input is a new file here, a
//! variant of `InputSpec`, and a branch in `open.rs`. Inputs that span
//! volumes read through the read face of a `tape::Medium`
//! ([`ReadMedium`], `volumes.rs`).

mod command;
mod file;
mod file_volumes;
mod fill;
mod input;
mod manifest_check;
mod open;
mod rmt;
mod sequence;
#[cfg(test)]
mod sequence_tests;
pub mod spec;
mod tape;
mod tcp;
mod tcp_resume;
mod volumes;

pub use command::{CommandSource, EXIT_WAIT};
pub use file::FdSource;
pub use file_volumes::FileVolumesIn;
pub use fill::{fill_from, records_note};
pub use input::{End, Filled, Source};
pub use manifest_check::{checked_source, Check, CheckedMedium, Outcome, Report};
pub use open::{open, open_verified, InputSettings};
pub use rmt::{Overrun, RmtReader};
pub use tape::TapeReader;
pub use tcp::{bind, TcpSource};
pub use tcp_resume::{asks_resume, returning, Returning};
pub use volumes::{Got, ReadMedium, ReadVolumes, VolumeSource};
