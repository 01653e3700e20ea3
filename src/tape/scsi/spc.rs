//! The SCSI primary commands that the drive, the changer and drive health
//! send, each built in this one place, with the parser the emulated
//! devices read them back with: INQUIRY (standard and VPD pages), LOG
//! SENSE, MODE SENSE (10) and MODE SELECT (10) (for logical block
//! protection), SECURITY PROTOCOL IN and OUT (for encryption), READ
//! ATTRIBUTE and TEST UNIT READY; how long each may take; and
//! the resend after UNIT ATTENTION (SPC-4, the commands' field layouts).
//!
//! `Command::parse` reads every field a device answers on, so that no
//! device reads CDB bytes by hand. A CDB it cannot read is a `Refusal`
//! carrying the sense a device answers with: no or an unknown operation
//! code (05/20/00), fewer bytes than the command's CDB has, INQUIRY's
//! obsolete CmdDt bit or a page code without EVPD (05/24/00).

use std::time::Duration;

use super::sg_io::{ScsiError, Sense, ILLEGAL_REQUEST};

pub const TEST_UNIT_READY: u8 = 0x00;
pub const INQUIRY: u8 = 0x12;
pub const LOG_SENSE: u8 = 0x4d;
pub const READ_ATTRIBUTE: u8 = 0x8c;
pub const MODE_SENSE_10: u8 = 0x5a;
pub const MODE_SELECT_10: u8 = 0x55;
pub const SECURITY_PROTOCOL_IN: u8 = 0xa2;
pub const SECURITY_PROTOCOL_OUT: u8 = 0xb5;

/// READ ATTRIBUTE's service action ATTRIBUTE VALUES.
pub const ATTRIBUTE_VALUES: u8 = 0x00;

/// The most bytes asked of INQUIRY and of a VPD page.
pub const INQUIRY_BYTES: u8 = 255;
/// How long a device may take to answer INQUIRY.
pub const INQUIRY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a drive may take to answer LOG SENSE.
pub const LOG_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a drive may take to read its cartridge's memory.
pub const ATTRIBUTE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long MODE SENSE or MODE SELECT may take.
pub const MODE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long SECURITY PROTOCOL IN or OUT may take.
pub const SECURITY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long TEST UNIT READY may take.
pub const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// Sense key 6: the device's state changed since it was last asked (a
/// cartridge loaded, a door opened, a reset); the command was not run.
pub const UNIT_ATTENTION: u8 = 0x06;

/// TEST UNIT READY.
pub fn test_unit_ready() -> [u8; 6] {
    [TEST_UNIT_READY, 0, 0, 0, 0, 0]
}

/// The standard INQUIRY, for up to `bytes` bytes.
pub fn inquiry(bytes: u8) -> [u8; 6] {
    [INQUIRY, 0, 0, 0, bytes, 0]
}

/// INQUIRY with EVPD for VPD page `page`, for up to `bytes` bytes.
pub fn inquiry_vpd(page: u8, bytes: u8) -> [u8; 6] {
    [INQUIRY, 0x01, page, 0, bytes, 0]
}

/// LOG SENSE (10) for page `page`, cumulative values (PC 01b), for up to
/// `bytes` bytes.
pub fn log_sense(page: u8, bytes: u16) -> [u8; 10] {
    let mut cdb = [0u8; 10];
    cdb[0] = LOG_SENSE;
    cdb[2] = PageControl::Cumulative.bits() << 6 | (page & 0x3f);
    cdb[7..9].copy_from_slice(&bytes.to_be_bytes());
    cdb
}

/// MODE SENSE (10) for the current values of `page` and `subpage`, with
/// no block descriptors (DBD), for up to `bytes` bytes.
pub fn mode_sense(page: u8, subpage: u8, bytes: u16) -> [u8; 10] {
    const DBD: u8 = 0x08;
    let mut cdb = [0u8; 10];
    cdb[0] = MODE_SENSE_10;
    cdb[1] = DBD;
    cdb[2] = page & 0x3f;
    cdb[3] = subpage;
    cdb[7..9].copy_from_slice(&bytes.to_be_bytes());
    cdb
}

/// MODE SELECT (10) of a `bytes`-long parameter list in SPC's page
/// format (PF), saving nothing (SP 0).
pub fn mode_select(bytes: u16) -> [u8; 10] {
    const PF: u8 = 0x10;
    let mut cdb = [0u8; 10];
    cdb[0] = MODE_SELECT_10;
    cdb[1] = PF;
    cdb[7..9].copy_from_slice(&bytes.to_be_bytes());
    cdb
}

/// SECURITY PROTOCOL IN of `protocol`'s page `specific`, for up to
/// `bytes` bytes (INC_512 clear: the length counts bytes).
pub fn security_in(protocol: u8, specific: u16, bytes: u32) -> [u8; 12] {
    security(SECURITY_PROTOCOL_IN, protocol, specific, bytes)
}

/// SECURITY PROTOCOL OUT of a `bytes`-long page `specific` of `protocol`.
pub fn security_out(protocol: u8, specific: u16, bytes: u32) -> [u8; 12] {
    security(SECURITY_PROTOCOL_OUT, protocol, specific, bytes)
}

fn security(operation: u8, protocol: u8, specific: u16, bytes: u32) -> [u8; 12] {
    let mut cdb = [0u8; 12];
    cdb[0] = operation;
    cdb[1] = protocol;
    cdb[2..4].copy_from_slice(&specific.to_be_bytes());
    cdb[6..10].copy_from_slice(&bytes.to_be_bytes());
    cdb
}

/// READ ATTRIBUTE (16), ATTRIBUTE VALUES (service action 00h) of
/// partition 0 from the first attribute on, for up to `bytes` bytes.
pub fn read_attribute(bytes: u32) -> [u8; 16] {
    let mut cdb = [0u8; 16];
    cdb[0] = READ_ATTRIBUTE;
    cdb[1] = ATTRIBUTE_VALUES;
    cdb[10..14].copy_from_slice(&bytes.to_be_bytes());
    cdb
}

/// LOG SENSE's page control (PC, bits 7-6 of CDB byte 2): which values of
/// the page's parameters are asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageControl {
    Threshold = 0b00,
    /// What tapebuf asks for.
    Cumulative = 0b01,
    DefaultThreshold = 0b10,
    DefaultCumulative = 0b11,
}

impl PageControl {
    /// Every page control, in the order of its bits.
    pub const ALL: [PageControl; 4] = [
        PageControl::Threshold,
        PageControl::Cumulative,
        PageControl::DefaultThreshold,
        PageControl::DefaultCumulative,
    ];

    /// The field's two bits.
    pub fn bits(self) -> u8 {
        self as u8
    }

    fn from_bits(bits: u8) -> PageControl {
        PageControl::ALL[usize::from(bits & 0x03)]
    }
}

/// One of the commands above, read back from its CDB the way a device
/// reads it (the emulated drive answers with this), with every field a
/// device answers on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    TestUnitReady,
    /// `page` is None for the standard INQUIRY, the VPD page asked for
    /// when EVPD is set.
    Inquiry {
        page: Option<u8>,
        bytes: usize,
    },
    LogSense {
        page: u8,
        control: PageControl,
        bytes: usize,
    },
    /// The current values of `page` and `subpage`; `block_descriptors`
    /// is false when DBD asks for none.
    ModeSense {
        page: u8,
        subpage: u8,
        block_descriptors: bool,
        bytes: usize,
    },
    /// A parameter list of `bytes` follows; `page_format` is PF, `save`
    /// is SP.
    ModeSelect {
        page_format: bool,
        save: bool,
        bytes: usize,
    },
    /// SECURITY PROTOCOL IN: `protocol`'s page `specific`, up to `bytes`
    /// (`bytes` counts 512-byte units when `inc_512`).
    SecurityIn {
        protocol: u8,
        specific: u16,
        inc_512: bool,
        bytes: usize,
    },
    /// SECURITY PROTOCOL OUT: a `bytes`-long page follows.
    SecurityOut {
        protocol: u8,
        specific: u16,
        inc_512: bool,
        bytes: usize,
    },
    /// `service_action` (5 bits; [`ATTRIBUTE_VALUES`] is the one built
    /// here) for `partition`, from the attribute identified `first` on.
    ReadAttribute {
        service_action: u8,
        partition: u8,
        first: u16,
        bytes: usize,
    },
}

/// Why a CDB is none of the commands above as a device reads them: the
/// device refuses it before it looks at anything else, with `sense()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("an empty CDB")]
    Empty,
    #[error("operation code {0:#04x} is none of the commands built here")]
    UnknownOperation(u8),
    #[error("a CDB of {bytes} bytes for operation code {operation:#04x}, which has {needs}")]
    Short {
        operation: u8,
        bytes: usize,
        needs: usize,
    },
    /// A field SPC-4 makes invalid, in byte `byte` of the CDB: INQUIRY's
    /// CmdDt (obsolete since SPC-3), or a page code without EVPD.
    #[error("byte {byte} of the CDB holds an invalid field")]
    InvalidField { byte: usize },
}

impl Refusal {
    /// ILLEGAL REQUEST: invalid command operation code (20/00) when there
    /// is none or it is unknown, invalid field in CDB (24/00) otherwise (a
    /// short CDB lacks fields its command has).
    pub fn sense(self) -> Sense {
        let asc = match self {
            Refusal::Empty | Refusal::UnknownOperation(_) => 0x20,
            Refusal::Short { .. } | Refusal::InvalidField { .. } => 0x24,
        };
        Sense {
            key: ILLEGAL_REQUEST,
            asc,
            ascq: 0,
        }
    }
}

impl Command {
    /// The command in `cdb`, which must hold every byte of its operation
    /// code's CDB (more are ignored); the refusal otherwise.
    pub fn parse(cdb: &[u8]) -> Result<Command, Refusal> {
        Ok(match *cdb.first().ok_or(Refusal::Empty)? {
            TEST_UNIT_READY => {
                whole::<6>(cdb)?;
                Command::TestUnitReady
            }
            INQUIRY => {
                let cdb = whole::<6>(cdb)?;
                Command::Inquiry {
                    page: inquiry_page(cdb[1], cdb[2])?,
                    bytes: number(&cdb[3..5]),
                }
            }
            LOG_SENSE => {
                let cdb = whole::<10>(cdb)?;
                Command::LogSense {
                    page: cdb[2] & 0x3f,
                    control: PageControl::from_bits(cdb[2] >> 6),
                    bytes: number(&cdb[7..9]),
                }
            }
            MODE_SENSE_10 => {
                let cdb = whole::<10>(cdb)?;
                Command::ModeSense {
                    page: cdb[2] & 0x3f,
                    subpage: cdb[3],
                    block_descriptors: cdb[1] & 0x08 == 0,
                    bytes: number(&cdb[7..9]),
                }
            }
            MODE_SELECT_10 => {
                let cdb = whole::<10>(cdb)?;
                Command::ModeSelect {
                    page_format: cdb[1] & 0x10 != 0,
                    save: cdb[1] & 0x01 != 0,
                    bytes: number(&cdb[7..9]),
                }
            }
            SECURITY_PROTOCOL_IN | SECURITY_PROTOCOL_OUT => {
                let cdb = whole::<12>(cdb)?;
                let (protocol, specific) = (cdb[1], u16::from_be_bytes([cdb[2], cdb[3]]));
                let (inc_512, bytes) = (cdb[4] & 0x80 != 0, number(&cdb[6..10]));
                match cdb[0] {
                    SECURITY_PROTOCOL_IN => Command::SecurityIn {
                        protocol,
                        specific,
                        inc_512,
                        bytes,
                    },
                    _ => Command::SecurityOut {
                        protocol,
                        specific,
                        inc_512,
                        bytes,
                    },
                }
            }
            READ_ATTRIBUTE => {
                let cdb = whole::<16>(cdb)?;
                Command::ReadAttribute {
                    service_action: cdb[1] & 0x1f,
                    partition: cdb[7],
                    first: u16::from_be_bytes([cdb[8], cdb[9]]),
                    bytes: number(&cdb[10..14]),
                }
            }
            other => return Err(Refusal::UnknownOperation(other)),
        })
    }

    /// The allocation length: the most bytes the reply may have (none for
    /// TEST UNIT READY, MODE SELECT and SECURITY PROTOCOL OUT, which send
    /// data instead).
    pub fn allocation(&self) -> usize {
        match *self {
            Command::TestUnitReady | Command::ModeSelect { .. } | Command::SecurityOut { .. } => 0,
            Command::SecurityIn { inc_512, bytes, .. } => match inc_512 {
                true => bytes.saturating_mul(512),
                false => bytes,
            },
            Command::Inquiry { bytes, .. }
            | Command::ModeSense { bytes, .. }
            | Command::LogSense { bytes, .. }
            | Command::ReadAttribute { bytes, .. } => bytes,
        }
    }
}

/// The first `N` bytes of the non-empty `cdb`, the whole CDB of its
/// command; Short when it has fewer.
fn whole<const N: usize>(cdb: &[u8]) -> Result<&[u8; N], Refusal> {
    cdb.first_chunk::<N>().ok_or(Refusal::Short {
        operation: cdb[0],
        bytes: cdb.len(),
        needs: N,
    })
}

/// The big-endian number in `bytes`.
fn number(bytes: &[u8]) -> usize {
    bytes.iter().fold(0, |n, &b| n << 8 | usize::from(b))
}

/// INQUIRY's page from its byte 1 (EVPD bit 0, CmdDt bit 1) and page code.
fn inquiry_page(flags: u8, page: u8) -> Result<Option<u8>, Refusal> {
    const EVPD: u8 = 0x01;
    const CMDDT: u8 = 0x02;
    match (flags & (CMDDT | EVPD), page) {
        (0, 0) => Ok(None),
        (EVPD, page) => Ok(Some(page)),
        (0, _) => Err(Refusal::InvalidField { byte: 2 }),
        _ => Err(Refusal::InvalidField { byte: 1 }),
    }
}

/// True when `e` is UNIT ATTENTION.
pub fn is_unit_attention(e: &ScsiError) -> bool {
    e.sense().is_some_and(|s| s.key == UNIT_ATTENTION)
}

/// `send`, and again up to `times` more times while it meets UNIT
/// ATTENTION; the last outcome.
pub fn resent_after_unit_attention<T>(
    times: usize,
    mut send: impl FnMut() -> Result<T, ScsiError>,
) -> Result<T, ScsiError> {
    for _ in 0..times {
        match send() {
            Err(e) if is_unit_attention(&e) => continue,
            other => return other,
        }
    }
    send()
}

#[cfg(test)]
#[path = "spc_tests.rs"]
mod tests;
