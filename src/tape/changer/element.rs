//! What a changer holds, in tapebuf's own types: element kinds and
//! addresses, the counts of each kind, and one element's state (full,
//! import/export, exception in words, barcode, source). The decoding of
//! the driver's raw fields lives here as pure functions, so that hostile
//! or truncated data from a driver or library is judged in one place and
//! never panics: a barcode stops at the first NUL or at 32 characters and
//! loses its trailing spaces, a count below zero is zero, a source of a
//! type or unit that cannot be is no source.
//!
//! Indexes are 0-based within a kind, as the `ch` driver numbers units,
//! never SCSI element addresses. Shown to a user they follow mtx: slots and
//! import/export slots from 1, drives and transports from 0.

use std::fmt;

use libc::c_int;

use super::chio;
use crate::tape::scsi::sg_io::asc_words;

/// The most elements of one kind tapebuf believes in: SCSI element
/// addresses are 16 bits.
pub const MAX_ELEMENTS: usize = 1 << 16;

/// The characters of a volume tag; the rest of its 36 bytes are reserved
/// and a sequence number.
const BARCODE_CHARS: usize = 32;

/// What cleaning cartridges' barcodes start with, by convention.
const CLEANING_PREFIX: &str = "CLN";

/// The kinds of element a changer has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementKind {
    /// The robot that carries a medium (medium transport).
    Transport,
    /// A storage slot.
    Slot,
    /// An import/export slot (mailslot, portal).
    Portal,
    /// A drive (data transfer element).
    Drive,
}

impl ElementKind {
    pub const ALL: [ElementKind; 4] = [
        ElementKind::Transport,
        ElementKind::Slot,
        ElementKind::Portal,
        ElementKind::Drive,
    ];

    /// The `ch` driver's type number (`CHET_*`).
    pub fn chet(self) -> c_int {
        match self {
            ElementKind::Transport => chio::CHET_MT,
            ElementKind::Slot => chio::CHET_ST,
            ElementKind::Portal => chio::CHET_IE,
            ElementKind::Drive => chio::CHET_DT,
        }
    }

    /// The kind of `ch` type number `chet`, if it is one of the four.
    pub fn from_chet(chet: c_int) -> Option<ElementKind> {
        ElementKind::ALL.into_iter().find(|k| k.chet() == chet)
    }
}

/// One element: its kind and its 0-based index among that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElementAddress {
    pub kind: ElementKind,
    pub index: usize,
}

impl ElementAddress {
    pub fn slot(index: usize) -> Self {
        ElementAddress {
            kind: ElementKind::Slot,
            index,
        }
    }

    pub fn drive(index: usize) -> Self {
        ElementAddress {
            kind: ElementKind::Drive,
            index,
        }
    }

    pub fn portal(index: usize) -> Self {
        ElementAddress {
            kind: ElementKind::Portal,
            index,
        }
    }
}

/// mtx's numbering: "slot 1" is index 0, "drive 0" is index 0.
impl fmt::Display for ElementAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ElementKind::Transport => write!(f, "transport {}", self.index),
            ElementKind::Slot => write!(f, "slot {}", self.index + 1),
            ElementKind::Portal => write!(f, "import/export slot {}", self.index + 1),
            ElementKind::Drive => write!(f, "drive {}", self.index),
        }
    }
}

/// How many elements of each kind a changer has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Params {
    pub transports: usize,
    pub slots: usize,
    pub portals: usize,
    pub drives: usize,
}

impl Params {
    /// The counts the driver gave, each below zero taken as zero and each
    /// above [`MAX_ELEMENTS`] as that.
    pub fn from_chio(raw: &chio::ChangerParams) -> Params {
        let count = |n: c_int| usize::try_from(n).unwrap_or(0).min(MAX_ELEMENTS);
        Params {
            transports: count(raw.cp_npickers),
            slots: count(raw.cp_nslots),
            portals: count(raw.cp_nportals),
            drives: count(raw.cp_ndrives),
        }
    }

    /// How many elements of `kind`.
    pub fn count(&self, kind: ElementKind) -> usize {
        match kind {
            ElementKind::Transport => self.transports,
            ElementKind::Slot => self.slots,
            ElementKind::Portal => self.portals,
            ElementKind::Drive => self.drives,
        }
    }
}

/// Why an element is in an abnormal state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exception {
    /// The additional sense code and qualifier, when the path told them
    /// (`ch` never does).
    pub sense: Option<(u8, u8)>,
    /// The reason in words.
    pub words: String,
}

impl Exception {
    /// An exception with sense `asc`/`ascq`, in words.
    pub fn from_sense(asc: u8, ascq: u8) -> Exception {
        Exception {
            sense: Some((asc, ascq)),
            words: sense_words(asc, ascq),
        }
    }
}

/// What kind of cartridge a library says an element holds (SMC's medium
/// type, from the cartridge's memory). Not every library fills it in; the
/// barcode's conventions are the fallback (see `Element::is_cleaning`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediumType {
    Data,
    Cleaning,
    Diagnostic,
    Worm,
}

impl MediumType {
    /// The medium type in the low three bits of an element descriptor's
    /// byte 9 (SMC-3); 0 and the reserved values are unknown.
    pub fn from_smc(bits: u8) -> Option<MediumType> {
        match bits & 0x07 {
            1 => Some(MediumType::Data),
            2 => Some(MediumType::Cleaning),
            3 => Some(MediumType::Diagnostic),
            4 => Some(MediumType::Worm),
            _ => None,
        }
    }
}

/// One element's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub address: ElementAddress,
    /// A medium is in it.
    pub full: bool,
    /// The medium was put in by the operator through an import/export slot.
    pub import_export: bool,
    /// The robot can reach it (for a drive: the medium can be taken out).
    pub access: bool,
    pub exception: Option<Exception>,
    /// The primary volume tag, trimmed; `None` when the library gave none.
    pub barcode: Option<String>,
    /// The element the medium was last moved from, when known.
    pub source: Option<ElementAddress>,
    /// The kind of cartridge, when the library says.
    pub medium_type: Option<MediumType>,
    /// A drive's device identifier (SMC's DVCID: often vendor, product and
    /// serial number, blank-filled), when the library gave it. Only READ
    /// ELEMENT STATUS over SG_IO gets it; `ch` never does.
    pub identifier: Option<String>,
}

impl Element {
    /// An element of `address` whose status byte is `status`.
    pub fn from_status(address: ElementAddress, status: u8) -> Element {
        Element {
            address,
            full: status & chio::CESTATUS_FULL != 0,
            import_export: status & chio::CESTATUS_IMPEXP != 0,
            access: status & chio::CESTATUS_ACCESS != 0,
            exception: (status & chio::CESTATUS_EXCEPT != 0).then(|| Exception {
                sense: None,
                words: "the library reports an abnormal state".to_string(),
            }),
            barcode: None,
            source: None,
            medium_type: None,
            identifier: None,
        }
    }

    /// The element `address` as CHIOGELEM described it in `raw`.
    pub fn from_chio(address: ElementAddress, raw: &chio::ChangerGetElement) -> Element {
        // Only the low byte is the SCSI status byte.
        let mut element = Element::from_status(address, (raw.cge_status & 0xff) as u8);
        if let Some(exception) = &mut element.exception {
            if raw.cge_errno > 0 {
                let errno = std::io::Error::from_raw_os_error(raw.cge_errno);
                exception.words = format!("the library reports an abnormal state ({errno})");
            }
        }
        if raw.cge_flags & chio::CGE_PVOLTAG != 0 {
            element.barcode = volume_tag(&raw.cge_pvoltag.map(|c| c as u8));
        }
        if raw.cge_flags & chio::CGE_SRC != 0 {
            element.source = ElementKind::from_chet(raw.cge_srctype).and_then(|kind| {
                let index = usize::try_from(raw.cge_srcunit).ok()?;
                (index < MAX_ELEMENTS).then_some(ElementAddress { kind, index })
            });
        }
        element
    }

    /// The medium in it is a cleaning cartridge: the library says so, or
    /// its barcode starts with `CLN`.
    pub fn is_cleaning(&self) -> bool {
        self.full
            && (self.medium_type == Some(MediumType::Cleaning)
                || self
                    .barcode
                    .as_deref()
                    .is_some_and(|b| b.starts_with(CLEANING_PREFIX)))
    }
}

/// The barcode in a volume tag field: at most its first 32 characters, up
/// to the first NUL, trailing spaces removed, bytes that are not printable
/// ASCII shown as `?`. `None` when nothing is left.
pub fn volume_tag(field: &[u8]) -> Option<String> {
    let field = &field[..field.len().min(BARCODE_CHARS)];
    let field = field.split(|&b| b == 0).next().unwrap_or_default();
    let text: String = field
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '?'
            }
        })
        .collect();
    let text = text.trim_end_matches(' ');
    (!text.is_empty()).then(|| text.to_string())
}

/// An element's additional sense code and qualifier in words (the one
/// table is `sg_io::asc_words`; others by number).
pub fn sense_words(asc: u8, ascq: u8) -> String {
    match asc_words(asc, ascq) {
        Some(known) => format!("{known} (sense {asc:02X}/{ascq:02X})"),
        None => format!("sense {asc:02X}/{ascq:02X}"),
    }
}
