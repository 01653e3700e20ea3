//! How the outputs are opened and written: the part of the validated
//! command line that the sinks need, and nothing else.

use super::spec::ExistingFile;
use super::VolumeSettings;
use crate::manifest::Recording;
use crate::net::NetSettings;
use crate::rmt::session::RmtSettings;
use crate::tape::VolumeNames;

/// How the outputs are opened and written, from the validated command line.
#[derive(Debug, Clone)]
pub struct OutputSettings {
    pub block_bytes: usize,
    pub existing: ExistingFile,
    /// `--any-device`: take any character device (see `tape::char_devices`).
    pub any_device: bool,
    pub sync: bool,
    pub direct: bool,
    pub quiet: bool,
    /// Volume sizes and changes, and what to do with a tape at the end.
    pub volumes: VolumeSettings,
    pub net: NetSettings,
    pub rmt: RmtSettings,
    /// `--manifest`/`--verify`: what to record of each output.
    pub recording: Option<Recording>,
    /// The input's numbered volumes (`-i v.%02d`), which no output volume
    /// may be: each is checked again before it is written.
    pub input_volumes: Option<VolumeNames>,
}
