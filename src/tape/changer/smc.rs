//! The SCSI Media Changer commands tapebuf sends over SG_IO, as pure
//! functions over bytes (SMC-3): the CDBs of MODE SENSE(6) for the element
//! address assignment page (0x1D), READ ELEMENT STATUS (0xB8) and MOVE
//! MEDIUM (0xA5), and the parsing of their replies into tapebuf's types.
//!
//! SCSI element addresses never leave this file: the address map (page
//! 0x1D) turns them into a kind and a 0-based index, as `ch` numbers its
//! units (mhvtl's STK L700: transport 1, import/export from 10, drives
//! from 500, slots from 1000). Replies are distrusted: every length is
//! checked against the bytes there, a descriptor is stepped over by the
//! length its page header gives (vendors pad), an address outside the map
//! is dropped, and nothing allocates by what a reply claims, so a
//! truncated or hostile reply gives the elements it does hold and never
//! panics.

use super::element::{
    volume_tag, Element, ElementAddress, ElementKind, Exception, MediumType, Params,
};

/// MODE SENSE(6).
const MODE_SENSE_6: u8 = 0x1a;
/// The element address assignment mode page.
pub const ELEMENT_ADDRESS_PAGE: u8 = 0x1d;
const READ_ELEMENT_STATUS: u8 = 0xb8;
const MOVE_MEDIUM: u8 = 0xa5;

/// A volume tag: 32 characters, 2 reserved bytes, a sequence number.
const VOLUME_TAG_BYTES: usize = 36;
/// The common part of an element descriptor.
const DESCRIPTOR_HEAD: usize = 12;
/// Status byte bits (as `ch`'s CESTATUS_*).
const EXCEPT: u8 = 0x04;
/// Byte 9: the source address is valid.
const SVALID: u8 = 0x80;

/// SMC's element type code for `kind` (0 is "all types").
pub fn type_code(kind: ElementKind) -> u8 {
    match kind {
        ElementKind::Transport => 1,
        ElementKind::Slot => 2,
        ElementKind::Portal => 3,
        ElementKind::Drive => 4,
    }
}

/// The kind of element type code `code`, if it is one of the four.
pub fn kind_of_code(code: u8) -> Option<ElementKind> {
    ElementKind::ALL.into_iter().find(|&k| type_code(k) == code)
}

/// MODE SENSE(6) for page 0x1D, current values, no block descriptors
/// (DBD), answering in at most `allocation` bytes.
pub fn mode_sense_addresses_cdb(allocation: u8) -> [u8; 6] {
    [MODE_SENSE_6, 0x08, ELEMENT_ADDRESS_PAGE, 0, allocation, 0]
}

/// What one READ ELEMENT STATUS asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusRequest {
    pub kind: ElementKind,
    /// The SCSI address to start at.
    pub start: u16,
    /// How many elements, at most.
    pub count: u16,
    /// Ask for volume tags (barcodes).
    pub voltag: bool,
    /// Ask for drives' device identifiers.
    pub dvcid: bool,
    /// The reply's most bytes (24 bits).
    pub allocation: u32,
}

/// The READ ELEMENT STATUS CDB for `request`; an allocation length above
/// 24 bits is cut to the largest.
pub fn read_element_status_cdb(request: &StatusRequest) -> [u8; 12] {
    let [_, a0, a1, a2] = request.allocation.min(0x00ff_ffff).to_be_bytes();
    let [s0, s1] = request.start.to_be_bytes();
    let [c0, c1] = request.count.to_be_bytes();
    let voltag = if request.voltag { 0x10 } else { 0 };
    let dvcid = u8::from(request.dvcid);
    [
        READ_ELEMENT_STATUS,
        voltag | type_code(request.kind),
        s0,
        s1,
        c0,
        c1,
        dvcid,
        a0,
        a1,
        a2,
        0,
        0,
    ]
}

/// The MOVE MEDIUM CDB: the robot `transport` carries the medium in
/// `source` to `destination` (SCSI addresses), not inverted.
pub fn move_medium_cdb(transport: u16, source: u16, destination: u16) -> [u8; 12] {
    let [t0, t1] = transport.to_be_bytes();
    let [s0, s1] = source.to_be_bytes();
    let [d0, d1] = destination.to_be_bytes();
    [MOVE_MEDIUM, 0, t0, t1, s0, s1, d0, d1, 0, 0, 0, 0]
}

/// Where each kind's elements sit among SCSI addresses: the first address
/// and the count, per kind, in `ElementKind::ALL`'s order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AddressMap {
    first: [u16; 4],
    count: [u16; 4],
}

fn slot_of(kind: ElementKind) -> usize {
    usize::from(type_code(kind) - 1)
}

impl AddressMap {
    /// A map from `(first, count)` per kind, in `ElementKind::ALL`'s order.
    pub fn new(ranges: [(u16, u16); 4]) -> AddressMap {
        AddressMap {
            first: ranges.map(|r| r.0),
            count: ranges.map(|r| r.1),
        }
    }

    /// The map in a MODE SENSE(6) reply for page 0x1D: a 4-byte header
    /// whose byte 3 is the block descriptors' length, then the page: code,
    /// length, and (first, count) for transports, slots, import/export
    /// slots and drives, each 2+2 bytes big-endian. `None` when the reply
    /// is short or holds another page.
    pub fn parse(reply: &[u8]) -> Option<AddressMap> {
        let page_at = 4 + usize::from(*reply.get(3)?);
        let page = reply.get(page_at..page_at + 18)?;
        if page[0] & 0x3f != ELEMENT_ADDRESS_PAGE || usize::from(page[1]) < 16 {
            return None;
        }
        let word = |i: usize| u16::from_be_bytes([page[i], page[i + 1]]);
        // The page's order: transport, storage, import/export, drive.
        Some(AddressMap::new([
            (word(2), word(4)),
            (word(6), word(8)),
            (word(10), word(12)),
            (word(14), word(16)),
        ]))
    }

    /// The first address of `kind`.
    pub fn first(&self, kind: ElementKind) -> u16 {
        self.first[slot_of(kind)]
    }

    /// How many elements of `kind`, as far as 16-bit addresses reach.
    pub fn count(&self, kind: ElementKind) -> usize {
        let fits = 0x1_0000 - usize::from(self.first(kind));
        usize::from(self.count[slot_of(kind)]).min(fits)
    }

    /// The counts.
    pub fn params(&self) -> Params {
        Params {
            transports: self.count(ElementKind::Transport),
            slots: self.count(ElementKind::Slot),
            portals: self.count(ElementKind::Portal),
            drives: self.count(ElementKind::Drive),
        }
    }

    /// The SCSI address of `element`, if the map has it.
    pub fn address(&self, element: ElementAddress) -> Option<u16> {
        if element.index >= self.count(element.kind) {
            return None;
        }
        u16::try_from(usize::from(self.first(element.kind)) + element.index).ok()
    }

    /// The element at SCSI address `address`: the first kind whose range
    /// holds it.
    pub fn element(&self, address: u16) -> Option<ElementAddress> {
        ElementKind::ALL.into_iter().find_map(|kind| {
            let index = usize::from(address.checked_sub(self.first(kind))?);
            (index < self.count(kind)).then_some(ElementAddress { kind, index })
        })
    }
}

/// Parses a READ ELEMENT STATUS reply: an 8-byte header whose bytes 5-7
/// count the report's bytes after it, then pages of an 8-byte header
/// (type code, PVolTag 0x80 and AVolTag 0x40 in byte 1, descriptor length
/// in bytes 2-3, the page's bytes in 5-7) and descriptors. Gives each
/// whole descriptor whose address the map knows, of the kind its page
/// says, in the reply's order.
pub fn parse_element_status(reply: &[u8], map: &AddressMap) -> Vec<Element> {
    let mut elements = Vec::new();
    let Some(header) = reply.get(..8) else {
        return elements;
    };
    let end = reply.len().min(8 + be24(&header[5..8]));
    let mut at = 8;
    while at + 8 <= end {
        let page = &reply[at..at + 8];
        let page_end = end.min(at + 8 + be24(&page[5..8]));
        let tags = Tags {
            primary: page[1] & 0x80 != 0,
            alternate: page[1] & 0x40 != 0,
        };
        let length = usize::from(u16::from_be_bytes([page[2], page[3]]));
        if length >= DESCRIPTOR_HEAD {
            let descriptors = reply[at + 8..page_end].chunks_exact(length);
            for descriptor in descriptors {
                let address = u16::from_be_bytes([descriptor[0], descriptor[1]]);
                let known = map
                    .element(address)
                    .filter(|e| kind_of_code(page[0] & 0x0f) == Some(e.kind));
                if let Some(element) = known {
                    elements.push(descriptor_element(element, descriptor, tags, map));
                }
            }
        }
        at = page_end.max(at + 8);
    }
    elements
}

/// A 24-bit big-endian count.
fn be24(bytes: &[u8]) -> usize {
    usize::from(bytes[0]) << 16 | usize::from(bytes[1]) << 8 | usize::from(bytes[2])
}

/// Which volume tags a page's descriptors carry.
#[derive(Debug, Clone, Copy)]
struct Tags {
    primary: bool,
    alternate: bool,
}

/// Element `address` from its descriptor (at least 12 bytes): status,
/// exception, source, medium type, barcode and a drive's identifier.
fn descriptor_element(
    address: ElementAddress,
    descriptor: &[u8],
    tags: Tags,
    map: &AddressMap,
) -> Element {
    let status = descriptor[2];
    let mut element = Element::from_status(address, status);
    let (asc, ascq) = (descriptor[4], descriptor[5]);
    if status & EXCEPT != 0 && (asc, ascq) != (0, 0) {
        element.exception = Some(Exception::from_sense(asc, ascq));
    }
    if element.full {
        element.medium_type = MediumType::from_smc(descriptor[9]);
    }
    if descriptor[9] & SVALID != 0 {
        element.source = map.element(u16::from_be_bytes([descriptor[10], descriptor[11]]));
    }
    let mut at = DESCRIPTOR_HEAD;
    if tags.primary {
        element.barcode = descriptor
            .get(at..at + VOLUME_TAG_BYTES)
            .and_then(volume_tag);
        at += VOLUME_TAG_BYTES;
    }
    if address.kind == ElementKind::Drive {
        // Some libraries flag an alternate tag on drives but put the
        // identifier straight after the primary one (mhvtl's HP
        // personality): skip an alternate tag only when one fits.
        if tags.alternate && descriptor.len() >= at + VOLUME_TAG_BYTES + 4 {
            at += VOLUME_TAG_BYTES;
        }
        element.identifier = descriptor.get(at..).and_then(identifier);
    }
    element
}

/// The device identifier in an identification descriptor: code set in
/// byte 0's low nibble (1 binary, 2 ASCII, 3 UTF-8), identifier type in
/// byte 1, length in byte 3, then the identifier. Text is trimmed of
/// blanks and NULs and shows other unprintable bytes as `?`; binary is
/// shown in hex. `None` when it is empty, longer than the bytes there, or
/// of an unknown code set.
fn identifier(bytes: &[u8]) -> Option<String> {
    let length = usize::from(*bytes.get(3)?);
    let body = bytes.get(4..4 + length)?;
    let text = match bytes[0] & 0x0f {
        1 => body.iter().map(|b| format!("{b:02X}")).collect(),
        2 | 3 => body
            .iter()
            .map(|&b| match b {
                0 => ' ',
                b if b.is_ascii_graphic() || b == b' ' => b as char,
                _ => '?',
            })
            .collect::<String>(),
        _ => return None,
    };
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
#[path = "smc_tests.rs"]
mod tests;
