//! Replies as the tape lab's emulator (mhvtl, IBM ULT3580-TD6 personality)
//! builds them, byte for byte in layout, for the health tests: its log
//! pages (usr/mhvtl_log.c, include/mhvtl_log.h), its READ ATTRIBUTE reply
//! (usr/cmd/vtltape.c over vtllib.c's attribute table), and its INQUIRY
//! and VPD 0x80 (usr/spc.c). Test-only.

pub use super::encode::{be, log_page, padded};

/// mhvtl's supported pages reply for the ULT3580-TD6 (page 0x00 first,
/// then its pages in the order they were added).
pub fn supported_pages() -> Vec<u8> {
    let pages = [
        0x00, 0x02, 0x03, 0x0c, 0x0d, 0x10, 0x11, 0x17, 0x2e, 0x30, 0x31, 0x32, 0x37,
    ];
    let mut reply = vec![0, 0, 0, pages.len() as u8];
    reply.extend_from_slice(&pages);
    reply
}

/// mhvtl's write (0x02) or read (0x03) error counter page: 0000h-0006h,
/// then the vendor's 8000h-8003h, all control 60h; 0005h (bytes
/// processed) is 8 bytes, the others 4.
pub fn error_counters(code: u8, counts: [u64; 7]) -> Vec<u8> {
    let mut params: Vec<(u16, u8, Vec<u8>)> = (0..7u16)
        .map(|p| {
            let width = if p == 5 { 8 } else { 4 };
            (p, 0x60, be(counts[usize::from(p)], width))
        })
        .collect();
    for vendor in 0x8000..=0x8003u16 {
        params.push((vendor, 0x60, be(0, 4)));
    }
    log_page(code, &params)
}

/// mhvtl's data compression page: vendor page 0x32 (IBM's), with SSC-4's
/// 0x1B parameters: two 2-byte ratios, then four megabytes/bytes pairs
/// of 4 bytes each, control 40h.
pub fn compression(code: u8, ratios: [u64; 2], pairs: [(u64, u64); 4]) -> Vec<u8> {
    let mut params = vec![
        (0x0000, 0x40, be(ratios[0], 2)),
        (0x0001, 0x40, be(ratios[1], 2)),
    ];
    for (i, (mb, bytes)) in pairs.iter().enumerate() {
        let code = 2 + 2 * i as u16;
        params.push((code, 0x40, be(*mb, 4)));
        params.push((code + 1, 0x40, be(*bytes, 4)));
    }
    log_page(code, &params)
}

/// mhvtl's volume statistics page with one partition: its parameters in
/// order with their widths, control 03h, then the zeros its page length
/// still covers (it is sized for four partitions).
pub fn volume_statistics(mounts: u64, lifetime_mb: [u64; 2], capacity_mb: [u64; 2]) -> Vec<u8> {
    let widths: [(u16, usize, u64); 24] = [
        (0x0000, 1, 1),
        (0x0001, 4, mounts),
        (0x0002, 8, 120),
        (0x0003, 4, 3),
        (0x0004, 2, 0),
        (0x0005, 2, 0),
        (0x0006, 2, 0),
        (0x0007, 8, 40),
        (0x0008, 4, 2),
        (0x0009, 2, 1),
        (0x000c, 2, 0),
        (0x000d, 2, 0),
        (0x000e, 4, 0),
        (0x000f, 4, 0),
        (0x0010, 8, lifetime_mb[0]),
        (0x0011, 8, lifetime_mb[1]),
        (0x0012, 2, 0),
        (0x0013, 2, 0),
        (0x0014, 6, 0),
        (0x0015, 6, 0),
        (0x0016, 4, capacity_mb[0]),
        (0x0017, 4, capacity_mb[1]),
        (0x0018, 4, 0),
        (0x0019, 1, 0),
    ];
    let mut params: Vec<(u16, u8, Vec<u8>)> = widths
        .iter()
        .map(|&(c, w, v)| (c, 0x03, be(v, w)))
        .collect();
    for (code, width) in [
        (0x40, 32),
        (0x41, 8),
        (0x42, 32),
        (0x43, 8),
        (0x44, 4),
        (0x45, 9),
    ] {
        params.push((code, 0x01, vec![0; width]));
    }
    for code in [0x80, 0x81, 0x82] {
        params.push((code, 0x03, vec![0]));
    }
    params.push((0x0101, 0x03, be(0, 4)));
    params.push((0x0102, 0x03, be(0, 4)));
    for (code, width) in [
        (0x0200, 6),
        (0x0201, 6),
        (0x0202, 4),
        (0x0203, 4),
        (0x0204, 4),
    ] {
        let mut record = vec![width as u8 + 3, 0, 0, 0];
        record.extend(vec![0; width]);
        params.push((code, 0x03, record));
    }
    let mut page = log_page(0x17, &params);
    // Three more partitions' records of each of the five, zeroed.
    page.extend(vec![0; 2 * 3 * 10 + 3 * 3 * 8]);
    let length = (page.len() - 4) as u16;
    page[2..4].copy_from_slice(&length.to_be_bytes());
    page
}

/// mhvtl's TapeAlert page: flags 1-64, control C0h, one byte each.
pub fn tape_alerts(raised: &[u8]) -> Vec<u8> {
    let params: Vec<(u16, u8, Vec<u8>)> = (1..=64u8)
        .map(|f| (u16::from(f), 0xc0, vec![u8::from(raised.contains(&f))]))
        .collect();
    log_page(0x2e, &params)
}

/// One attribute: id, read-only bit and format, value.
fn attribute(reply: &mut Vec<u8>, id: u16, read_only: bool, format: u8, value: &[u8]) {
    reply.extend_from_slice(&id.to_be_bytes());
    reply.push(u8::from(read_only) << 7 | format);
    reply.extend_from_slice(&(value.len() as u16).to_be_bytes());
    reply.extend_from_slice(value);
}

/// mhvtl's READ ATTRIBUTE (ATTRIBUTE VALUES) reply for a cartridge made
/// by mktape with barcode "E01001L6", loaded 7 times, 3000 units written
/// and 500 read in its life (mhvtl counts bytes there, SPC-4 mebibytes),
/// capacity and remaining capacity in mebibytes: every attribute of
/// vtllib.c's table in order, lengths and formats as there.
pub fn mam(load_count: u64, life: [u64; 2], capacity_mib: [u64; 2]) -> Vec<u8> {
    let mut r = vec![0u8; 4];
    let date = padded("1764201234", 12, 0);
    let table: Vec<(u16, bool, u8, Vec<u8>)> = vec![
        (0x000, true, 0, be(capacity_mib[1], 8)),
        (0x001, true, 0, be(capacity_mib[0], 8)),
        (0x002, true, 0, be(0, 8)),
        (0x003, true, 0, be(load_count, 8)),
        (0x004, true, 0, be(8000, 8)),
        (0x005, true, 1, padded("LTO-CVE", 8, b' ')),
        (0x006, true, 0, vec![0x5a]),
        (0x007, true, 0, be(1, 2)),
        (0x009, true, 0, be(0, 4)),
        (0x20a, true, 1, padded("IBM     XYZZY_A1", 40, b' ')),
        (0x20b, true, 1, vec![0; 40]),
        (0x20c, true, 1, vec![0; 40]),
        (0x20d, true, 1, vec![0; 40]),
        (0x220, true, 0, be(life[0], 8)),
        (0x221, true, 0, be(life[1], 8)),
        (0x222, true, 0, be(0, 8)),
        (0x223, true, 0, be(0, 8)),
        (0x400, true, 1, padded("linuxVTL", 8, 0)),
        (0x401, true, 1, padded("E01001L6_1764201234", 32, 0)),
        (0x402, true, 0, be(0, 4)),
        (0x403, true, 0, be(0, 4)),
        (0x404, true, 1, padded("LTO-CVE", 8, b' ')),
        (0x405, true, 0, vec![0x5a]),
        (0x406, true, 1, date),
        (0x407, true, 0, be(0, 8)),
        (0x408, false, 0, vec![0]),
        (0x409, true, 0, be(0, 2)),
        (0x800, false, 1, padded("mhvtl", 8, 0)),
        (0x801, false, 1, vec![0; 32]),
        (0x802, false, 1, padded("3", 8, 0)),
        (0x803, false, 2, vec![0; 160]),
        (0x804, false, 1, vec![0; 12]),
        (0x805, false, 0, vec![0]),
        (0x806, false, 1, padded("E01001L6", 32, b' ')),
        (0x807, false, 2, vec![0; 80]),
        (0x808, false, 2, vec![0; 160]),
        (0x80b, false, 1, vec![0; 16]),
        (0x80c, false, 0, vec![0; 0x46]),
        (0x1623, false, 0, vec![0]),
    ];
    for (id, read_only, format, value) in &table {
        attribute(&mut r, *id, *read_only, *format, value);
    }
    let available = (r.len() - 4) as u32;
    r[..4].copy_from_slice(&available.to_be_bytes());
    r
}

/// mhvtl's standard INQUIRY for the lab's drive (64 bytes).
pub fn inquiry() -> Vec<u8> {
    let mut r = vec![0u8; 64];
    r[0] = 0x01;
    r[1] = 0x80;
    r[2] = 0x05;
    r[3] = 0x02;
    r[4] = 59;
    r[8..16].copy_from_slice(&padded("IBM", 8, b' '));
    r[16..32].copy_from_slice(&padded("ULT3580-TD6", 16, b' '));
    r[32..36].copy_from_slice(b"2160");
    r
}

/// mhvtl's VPD page 0x80: the serial, unpadded.
pub fn serial_page(serial: &str) -> Vec<u8> {
    let mut r = vec![0x01, 0x80, 0, serial.len() as u8];
    r.extend_from_slice(serial.as_bytes());
    r
}

/// A simple seeded generator (xorshift64*), for repeatable random bytes.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A buffer of up to `most` bytes, its first byte often a page code
    /// the parsers take.
    pub fn buffer(&mut self, most: usize) -> Vec<u8> {
        let length = (self.next() as usize) % (most + 1);
        let mut b: Vec<u8> = (0..length).map(|_| self.next() as u8).collect();
        if let Some(first) = b.first_mut() {
            *first = [0x02, 0x03, 0x17, 0x1b, 0x32, 0x00, *first][(*first % 7) as usize];
        }
        b
    }
}
