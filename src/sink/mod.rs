//! Where bytes go. A sink takes whole blocks in order; `finish` flushes and
//! closes it: standard output, files, devices and FIFOs, tape drives,
//! files split into volumes, TCP receivers, and remote tapes and files
//! over rmt. The engine's fan-out (`pipeline/fanout.rs`) drives one or
//! several sinks from the writer thread; `open.rs` opens them from the
//! user's [`spec::OutputSpec`]s. A new kind of output is a new file here,
//! a variant of `OutputSpec`, and a branch in `open.rs`. A sink says what
//! it is in one [`SinkTraits`] value; outputs that span volumes write
//! through the write face of a `tape::Medium` (`medium.rs`).

mod command;
mod file;
mod file_volumes;
mod medium;
pub mod name_template;
mod open;
mod output;
mod preflight;
pub mod read_back;
mod rmt;
mod rmt_failure;
mod rmt_medium;
mod settings;
pub mod spec;
mod tape;
mod tcp;
mod tcp_dial;
mod tcp_reply;
mod tcp_resume;
mod volume_pieces;
mod volumes;
mod write_error;

pub use command::CommandSink;
pub use file::FdSink;
pub use file_volumes::FileMedium;
pub use medium::{Writable, WriteMedium};
pub use open::{open_all, Opened};
pub use output::{Sink, SinkTraits};
pub use preflight::Plan;
pub use rmt::RmtSink;
pub use settings::OutputSettings;
pub use tape::TapeMedium;
pub use tcp::TcpSink;
pub use volumes::{VolumeSettings, VolumeSink, Volumes};
pub use write_error::{describe_write_error, LateFailure, PartialWrite, VolumeChangeFailed};

pub use crate::base::errors::OpenError;
