//! How the outputs are opened and written: the part of the validated
//! command line that the sinks need, and nothing else.

use super::spec::ExistingFile;
use super::VolumeSettings;
use crate::endpoint::EndpointSettings;
use crate::manifest::Recording;
use crate::net::NetSettings;
use crate::volume::VolumeNames;

/// How the outputs are opened and written, from the validated command line.
#[derive(Debug, Clone)]
pub struct OutputSettings {
    /// What the outputs share with the input.
    pub endpoint: EndpointSettings,
    pub existing: ExistingFile,
    pub sync: bool,
    pub direct: bool,
    /// `-D`: end a volume after this many bytes.
    pub volume_size: Option<u64>,
    pub net: NetSettings,
    /// `--manifest`/`--verify`: what to record of each output.
    pub recording: Option<Recording>,
    /// `--catalog`: where the recorded output's catalog is written.
    pub catalog: Option<std::path::PathBuf>,
    /// The input's numbered volumes (`-i v.%02d`), which no output volume
    /// may be: each is checked again before it is written.
    pub input_volumes: Option<VolumeNames>,
}

impl OutputSettings {
    /// What every volume output is given: the volume size, and the change
    /// and the end the input shares.
    pub fn volumes(&self) -> VolumeSettings {
        VolumeSettings {
            policy: self.endpoint.change.clone(),
            volume_size: self.volume_size,
            at_end: self.endpoint.at_end,
        }
    }
}
