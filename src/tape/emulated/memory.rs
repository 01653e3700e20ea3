//! What the emulated drive keeps for its SCSI answers (`scsi.rs`): who it
//! says it is and what it refuses (`ScsiFace`, the test's knobs), the
//! drive's counters as records go on and off the tape (`DriveCounters`),
//! and each cartridge's memory chip and volume statistics
//! (`CartridgeMemory`, which travels with the cartridge).
//!
//! Counting follows what a drive reports: bytes processed are the bytes
//! the host moved; the medium's bytes are those divided by the
//! compression ratio; one record is one data set; with `retries_every`,
//! every N records moved cost one rewrite (or reread) that the drive
//! corrected (`records.rs` counts). A load counts on the cartridge's load
//! count, and gives a cartridge without a serial number one derived from
//! its slot (`library.rs`).

use crate::tape::scsi::pages::protection::Method;

/// How the emulated drive answers SCSI commands. The defaults are the
/// tape lab's drive: an IBM ULT3580-TD6 (LTO-6), as mhvtl emulates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScsiFace {
    /// INQUIRY's vendor (8 characters at most).
    pub vendor: String,
    /// INQUIRY's product (16 characters at most).
    pub product: String,
    /// INQUIRY's revision (4 characters at most).
    pub revision: String,
    /// The unit serial number, VPD page 0x80.
    pub serial: String,
    /// Every LOG SENSE is refused with CHECK CONDITION, ILLEGAL REQUEST,
    /// invalid field in the command (05/24/00), as by a drive without log
    /// pages.
    pub no_log_pages: bool,
    /// Every command is refused by the kernel (`ScsiError::Ioctl`, EPERM),
    /// as st refuses SG_IO to a user without CAP_SYS_RAWIO when the drive
    /// has no sg node the user may open.
    pub refused: bool,
    /// One rewrite (and one corrected error) every this many records
    /// written, and one reread every this many read; `None`: a clean
    /// drive, none.
    pub retries_every: Option<u64>,
    /// The compression ratio times 100: the host's bytes per 100 bytes on
    /// the medium (100: none, as for data that does not compress).
    pub compression_percent: u64,
    /// What the drive has counted since it was made.
    pub counters: DriveCounters,
    /// The logical block protection methods it offers (VPD page 0xB5):
    /// an LTO-6's Reed-Solomon CRC; an LTO-7 adds CRC32C; none before
    /// LTO-5 (`emulated::protection`).
    pub lbp_methods: Vec<Method>,
    /// It encrypts (LTO-4 and later, `emulated::encryption`); false: it
    /// refuses SECURITY PROTOCOL IN and OUT, as a drive before LTO-4.
    pub encrypts: bool,
    /// It cannot tell how the block at the position is encrypted until a
    /// read there was tried (next block encryption status 1, "unable to
    /// determine"), as a drive may say after a move.
    pub blind_next_block: bool,
}

impl Default for ScsiFace {
    fn default() -> ScsiFace {
        ScsiFace {
            vendor: "IBM".into(),
            product: "ULT3580-TD6".into(),
            revision: "2160".into(),
            serial: "1068000001".into(),
            no_log_pages: false,
            refused: false,
            retries_every: None,
            compression_percent: 100,
            counters: DriveCounters::default(),
            lbp_methods: vec![Method::ReedSolomon],
            encrypts: true,
            blind_next_block: false,
        }
    }
}

/// The drive's write and read counters (error counter pages 0x02 and
/// 0x03, data compression page 0x1B).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DriveCounters {
    pub write: Direction,
    pub read: Direction,
}

/// What one direction has moved and corrected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Direction {
    /// Bytes the host wrote or read.
    pub host_bytes: u64,
    /// Bytes on the medium, after compression.
    pub medium_bytes: u64,
    pub records: u64,
    /// Rewrites or rereads.
    pub retries: u64,
    /// Errors the drive corrected.
    pub corrected: u64,
}

/// A cartridge's memory chip (MAM) and the statistics the drive keeps on
/// the volume. Defaults are an LTO-6 cartridge fresh from its maker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CartridgeMemory {
    /// MEDIUM SERIAL NUMBER; `None`: "EMU" and the slot, given at its
    /// first load.
    pub serial: Option<String>,
    /// BARCODE, as the host application wrote it; `None`: blank.
    pub barcode: Option<String>,
    pub manufacturer: String,
    /// YYYYMMDD.
    pub manufactured: String,
    /// Loads into a drive.
    pub load_count: u64,
    /// Bytes the host wrote to and read from it, over its life.
    pub written_bytes: u64,
    pub read_bytes: u64,
    /// Data sets (records) written and read, over its life.
    pub datasets_written: u64,
    pub datasets_read: u64,
    /// Rewrites and rereads on it, over its life.
    pub write_retries: u64,
    pub read_retries: u64,
}

impl Default for CartridgeMemory {
    fn default() -> CartridgeMemory {
        CartridgeMemory {
            serial: None,
            barcode: None,
            manufacturer: "FUJIFILM".into(),
            manufactured: "20230614".into(),
            load_count: 0,
            written_bytes: 0,
            read_bytes: 0,
            datasets_written: 0,
            datasets_read: 0,
            write_retries: 0,
            read_retries: 0,
        }
    }
}
