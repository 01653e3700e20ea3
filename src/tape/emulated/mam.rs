//! The emulated cartridge's memory as READ ATTRIBUTE (ATTRIBUTE VALUES)
//! returns it (SPC-4 6.17, 7.4): a 4-byte AVAILABLE DATA length (of what
//! follows, whatever the allocation length cuts), then attributes in
//! ascending identifier order, each a 2-byte identifier, a byte holding
//! READ ONLY (bit 7) and the format (0 binary, 1 ASCII), a 2-byte length
//! and the value.
//!
//! The attributes, their sizes and formats are those of mhvtl's
//! INIT_MAM_ATTR table (`usr/vtllib.c`) that tapebuf reads; as mhvtl, the
//! list starts at the first attribute identifier asked, which must be one
//! the cartridge has. Where mhvtl differs from SPC-4, SPC-4 is followed:
//! the lifetime totals (0220h/0221h) are in megabytes of 2^20 bytes, as
//! the capacities (0000h/0001h) are (mhvtl keeps bytes there), and the
//! manufacture date (0406h) is 8 characters, YYYYMMDD (mhvtl keeps 12).

use super::cartridge::Cartridge;
use super::log_pages::padded;

/// LTO-6's density code, for the formatted and medium density.
const LTO6_DENSITY: u8 = 0x5a;

/// One attribute.
struct Attribute {
    id: u16,
    read_only: bool,
    /// 0 binary, 1 ASCII.
    format: u8,
    value: Vec<u8>,
}

fn binary(id: u16, n: u64, width: usize) -> Attribute {
    Attribute {
        id,
        read_only: true,
        format: 0,
        value: n.to_be_bytes()[8 - width..].to_vec(),
    }
}

fn ascii(id: u16, read_only: bool, text: &str, width: usize) -> Attribute {
    Attribute {
        id,
        read_only,
        format: 1,
        value: padded(text, width),
    }
}

/// The attributes of `cartridge`, whose serial number is `serial`.
fn attributes(cartridge: &Cartridge, serial: &str) -> Vec<Attribute> {
    let mib = |bytes: u64| bytes >> 20;
    let memory = &cartridge.memory;
    let used = cartridge.used_bytes(cartridge.items.len());
    let remaining = cartridge.capacity_bytes.saturating_sub(used);
    vec![
        binary(0x0000, mib(remaining), 8),
        binary(0x0001, mib(cartridge.capacity_bytes), 8),
        binary(0x0002, 0, 8),
        binary(0x0003, memory.load_count, 8),
        ascii(0x0005, true, "LTO-CVE", 8),
        binary(0x0006, u64::from(LTO6_DENSITY), 1),
        binary(0x0220, mib(memory.written_bytes), 8),
        binary(0x0221, mib(memory.read_bytes), 8),
        ascii(0x0400, true, &memory.manufacturer, 8),
        ascii(0x0401, true, serial, 32),
        binary(0x0405, u64::from(LTO6_DENSITY), 1),
        ascii(0x0406, true, &memory.manufactured, 8),
        binary(0x0408, u64::from(cartridge.cleaning), 1),
        ascii(0x0806, false, memory.barcode.as_deref().unwrap_or(""), 32),
    ]
}

/// The ATTRIBUTE VALUES reply from attribute `first` on, in full; None
/// when the cartridge has no attribute `first`.
pub fn attribute_values(cartridge: &Cartridge, serial: &str, first: u16) -> Option<Vec<u8>> {
    let all = attributes(cartridge, serial);
    let start = all.iter().position(|a| a.id == first)?;
    let mut reply = vec![0u8; 4];
    for attribute in &all[start..] {
        reply.extend_from_slice(&attribute.id.to_be_bytes());
        reply.push(u8::from(attribute.read_only) << 7 | attribute.format);
        reply.extend_from_slice(&(attribute.value.len() as u16).to_be_bytes());
        reply.extend_from_slice(&attribute.value);
    }
    let available = (reply.len() - 4) as u32;
    reply[..4].copy_from_slice(&available.to_be_bytes());
    Some(reply)
}
