//! cpio followed member by member: newc (070701) and crc (070702), a
//! 110-byte hex header with the name and the data each padded to 4 bytes,
//! and odc (070707), a 76-byte octal header with no padding at all. A
//! member named TRAILER!!! ends the archive; what follows it is the
//! writer's block padding and is ignored. A symbolic link's target is its
//! data, so that (and only that) is read; crc's data sums are not checked.

use super::member::{Format, Member, MemberKind};
use super::name::Name;
use super::numbers::{hex, octal_exact};
use super::step::Plan;
use super::tar::field;

/// The longest name (NUL included) or symbolic link target read.
pub(super) const MAX_NAME: u64 = 64 << 10;

const TRAILER: &[u8] = b"TRAILER!!!";

/// What the next piece of a cpio stream is.
#[derive(Debug)]
pub(super) enum CpioWant {
    Header,
    Name { fields: Fields, start: u64 },
    Link { member: Member, data: u64 },
}

/// A header's fields that matter here.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fields {
    ino: u64,
    dev: u64,
    mode: u64,
    nlink: u64,
    mtime: u64,
    filesize: u64,
    namesize: u64,
}

pub(super) type CpioPlan = Plan<CpioWant>;

/// The cpio formats, each with the six ASCII digits that open its headers.
const MAGICS: [(Format, &str); 3] = [
    (Format::CpioNewc, "070701"),
    (Format::CpioCrc, "070702"),
    (Format::CpioOdc, "070707"),
];

/// The format cpio's magic names, if these are its first six bytes.
pub(super) fn magic(bytes: &[u8]) -> Option<Format> {
    MAGICS
        .iter()
        .find(|(_, m)| m.as_bytes() == bytes)
        .map(|(f, _)| *f)
}

/// The six digits that open a header of `format`; None for a tar format.
pub fn magic_of(format: Format) -> Option<&'static str> {
    MAGICS.iter().find(|(f, _)| *f == format).map(|(_, m)| *m)
}

/// True for the cpio formats.
pub fn is_cpio(format: Format) -> bool {
    magic_of(format).is_some()
}

/// The fixed header's length in `format`.
pub(super) fn header_len(format: Format) -> usize {
    if format == Format::CpioOdc {
        76
    } else {
        110
    }
}

/// A cpio stream in one format; the trailer's bounds once it is read.
#[derive(Debug)]
pub(super) struct CpioStream {
    pub format: Format,
    pub trailer: Option<(u64, u64)>,
}

impl CpioStream {
    pub fn step(&mut self, want: CpioWant, bytes: &[u8], at: u64) -> Result<CpioPlan, String> {
        match want {
            CpioWant::Header => self.header(bytes, at),
            CpioWant::Name { fields, start } => self.name(fields, start, bytes, at),
            CpioWant::Link { mut member, data } => {
                member.link = Some(Name::from(bytes));
                Ok(self
                    .next_header()
                    .after(data - bytes.len() as u64)
                    .with_member(member))
            }
        }
    }

    fn newc(&self) -> bool {
        self.format != Format::CpioOdc
    }

    fn pad(&self, offset: u64) -> u64 {
        if self.newc() {
            (4 - offset % 4) % 4
        } else {
            0
        }
    }

    pub fn next_header(&self) -> CpioPlan {
        Plan::read(header_len(self.format), CpioWant::Header)
    }

    fn header(&mut self, bytes: &[u8], at: u64) -> Result<CpioPlan, String> {
        if magic(&bytes[..6]) != Some(self.format) {
            let shown = String::from_utf8_lossy(&bytes[..6])
                .escape_debug()
                .to_string();
            return Err(format!(
                "not a {:?} cpio header (magic \"{shown}\")",
                self.format
            ));
        }
        let fields = if self.newc() {
            newc_fields(bytes)
        } else {
            odc_fields(bytes)
        }
        .ok_or("a cpio header with a field that is not a number")?;
        if fields.namesize == 0 || fields.namesize > MAX_NAME {
            return Err(format!("a cpio name size of {} bytes", fields.namesize));
        }
        let end = at + bytes.len() as u64 + fields.namesize;
        let need = fields.namesize + self.pad(end);
        Ok(Plan::read(
            need as usize,
            CpioWant::Name { fields, start: at },
        ))
    }

    fn name(
        &mut self,
        fields: Fields,
        start: u64,
        bytes: &[u8],
        at: u64,
    ) -> Result<CpioPlan, String> {
        let whole = &bytes[..fields.namesize as usize];
        let name = field(whole);
        if name.len() + 1 != whole.len() {
            // GNU cpio reads a name as a C string from a buffer that may
            // hold an earlier, longer name; bsdtar reads namesize - 1
            // bytes: they agree only on a name ended by its one NUL.
            return Err(format!(
                "a cpio name of {} bytes not ended by its one NUL: GNU cpio and bsdtar would list different members",
                whole.len()
            ));
        }
        let data_start = at + bytes.len() as u64;
        let data = fields.filesize + self.pad(data_start + fields.filesize);
        let end_offset = data_start + data;
        if name.is_empty() {
            return Err(
                "a member with an empty name: GNU cpio lists it as '.', bsdtar skips it"
                    .to_string(),
            );
        }
        if name == TRAILER {
            self.trailer = Some((start, end_offset));
            return Ok(Plan::end(CpioWant::Header).after(data));
        }
        let kind = kind_of(fields.mode);
        let linked = self.newc() && fields.nlink > 1 && kind == MemberKind::File;
        let member = Member {
            path: Name::from(name),
            kind,
            size: fields.filesize,
            mtime: fields.mtime as i64,
            link: None,
            header_offset: start,
            end_offset,
            inode: linked.then_some((fields.dev, fields.ino)),
        };
        if kind == MemberKind::Symlink && fields.filesize <= MAX_NAME {
            let need = fields.filesize as usize;
            return Ok(Plan::read(need, CpioWant::Link { member, data }));
        }
        Ok(self.next_header().after(data).with_member(member))
    }
}

fn kind_of(mode: u64) -> MemberKind {
    match mode & 0o170000 {
        0o100000 => MemberKind::File,
        0o040000 => MemberKind::Directory,
        0o120000 => MemberKind::Symlink,
        0o020000 => MemberKind::CharDevice,
        0o060000 => MemberKind::BlockDevice,
        0o010000 => MemberKind::Fifo,
        _ => MemberKind::Other,
    }
}

/// newc/crc: 13 fields of 8 hex digits after the magic. The device is
/// (major << 32) | minor. Every field must be a number, those not kept
/// too: bsdtar refuses a header with one that is not (GNU cpio warns and
/// goes on), so the two would list different members.
fn newc_fields(bytes: &[u8]) -> Option<Fields> {
    let at = |i: usize| hex(&bytes[6 + 8 * i..14 + 8 * i]);
    (0..13).try_for_each(|i| at(i).map(drop))?;
    Some(Fields {
        ino: at(0)?,
        mode: at(1)?,
        nlink: at(4)?,
        mtime: at(5)?,
        filesize: at(6)?,
        dev: at(7)? << 32 | at(8)?,
        namesize: at(11)?,
    })
}

/// odc: octal fields of fixed widths after the magic, every one a number
/// (as newc's).
fn odc_fields(bytes: &[u8]) -> Option<Fields> {
    let at = |from: usize, len: usize| octal_exact(&bytes[from..from + len]);
    bytes[6..76]
        .iter()
        .all(|b| (b'0'..=b'7').contains(b))
        .then_some(())?;
    Some(Fields {
        dev: at(6, 6)?,
        ino: at(12, 6)?,
        mode: at(18, 6)?,
        nlink: at(36, 6)?,
        mtime: at(48, 11)?,
        namesize: at(59, 6)?,
        filesize: at(65, 11)?,
    })
}
/// A TRAILER!!! member in `format` (a cpio format), as GNU cpio writes
/// it: every field zero but a link count of 1 and the name's size.
pub fn trailer(format: Format) -> Vec<u8> {
    const NAME: &[u8] = b"TRAILER!!!\0";
    let magic = magic_of(format).unwrap_or("070701");
    let mut bytes = match format {
        Format::CpioOdc => format!("{magic}{:0>30}000001{:0>6}{:0>11}000013{:0>11}", 0, 0, 0, 0),
        _ => {
            let fields = [0u32, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, NAME.len() as u32, 0];
            let hex: String = fields.iter().map(|f| format!("{f:08X}")).collect();
            format!("{magic}{hex}")
        }
    }
    .into_bytes();
    bytes.extend_from_slice(NAME);
    if format != Format::CpioOdc {
        bytes.resize(bytes.len().next_multiple_of(4), 0);
    }
    bytes
}
