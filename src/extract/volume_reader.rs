//! The volumes of a backup read at random, one record at a time: what
//! extract asks of file volumes (`file_volumes.rs`) and of a tape drive
//! (`tape_volumes.rs`), and what reading them cost.

use super::walk::RecordAt;

/// What reading cost: every byte read from a volume (those not wanted
/// and a volume's first bytes read to know it included), the volumes
/// opened and the seeks made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    pub bytes: u64,
    pub volumes: u32,
    pub seeks: u64,
}

/// A backup's volumes, read by record.
pub trait VolumeReader {
    /// Reads record `at` whole into `buf` (made `at.bytes` long): the
    /// volume got in and recognised first if it is not in use, the reader
    /// positioned there if it is not. The error says why, in words; the
    /// caller adds the volume, record and stream offset.
    fn read(&mut self, at: &RecordAt, buf: &mut Vec<u8>) -> Result<(), String>;

    /// The device or file volume `n` is read from, for messages.
    fn volume_name(&self, n: u32) -> String;

    /// What reading has cost so far.
    fn cost(&self) -> Cost;
}
