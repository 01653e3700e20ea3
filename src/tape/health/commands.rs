//! A drive as a place SCSI commands go: `Drive::scsi_command` behind the
//! `Commands` trait that the health readers take, so that the same reader
//! asks a real drive (SG_IO), the emulated drive, or a test's recorded
//! pages.

use std::time::Duration;

use crate::tape::scsi::sg_io::{Commands, Data, ScsiError};
use crate::tape::Drive;

/// `drive`, sent SCSI commands through `Drive::scsi_command`.
pub struct DriveCommands<'a>(pub &'a mut dyn Drive);

impl Commands for DriveCommands<'_> {
    fn command(
        &mut self,
        cdb: &[u8],
        data: Data<'_>,
        timeout: Duration,
    ) -> Result<usize, ScsiError> {
        self.0.scsi_command(cdb, data, timeout)
    }
}
