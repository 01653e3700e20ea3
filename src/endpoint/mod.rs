//! What every endpoint is opened with, input and outputs alike: the block
//! size, whether any character device is taken, `-q`, how a remote tape is
//! reached, how a volume change is made, a tape library's robot
//! (`library.rs`), a local tape's logical block protection and encryption, and what is done with a tape at the end. The input's `InputSettings` and the outputs' `OutputSettings`
//! each hold one of these beside what is theirs alone, so that each of
//! these settings is declared once; `config/` fills it once.

pub mod library;

pub use library::LibrarySettings;

use crate::rmt::session::RmtSettings;
use crate::tape::AtEnd;
use crate::volume::{ChangePolicy, Safeguards};

/// The settings the input and the outputs share.
#[derive(Debug, Clone)]
pub struct EndpointSettings {
    /// Every block is this long (`-s`); a tape record is one block.
    pub block_bytes: usize,
    /// `--any-device`: take any character device (see `tape::char_devices`).
    pub any_device: bool,
    /// `-q`: say nothing but errors.
    pub quiet: bool,
    /// How a remote tape (`host:/dev/nst0`) is reached.
    pub rmt: RmtSettings,
    /// How a volume change is made: the command, the prompt, the timeout.
    pub change: ChangePolicy,
    /// What to do with a tape at the very end.
    pub at_end: AtEnd,
    /// `--changer`: a tape library's robot changes volumes.
    pub library: Option<LibrarySettings>,
    /// `--no-lbp`, `--encrypt-key`, `--key-dir`: a local tape's logical
    /// block protection and encryption.
    pub guards: Safeguards,
}
