//! tar followed header by header: extended headers ('x', 'g', 'L', 'K')
//! gathered for the member they belong to, each member's kind, size and
//! bounds, and the end (two zero blocks; what follows is padding and is
//! ignored). A member's `header_offset` is its first 'x'/'L'/'K' header;
//! 'g' headers belong to no member, and their offsets are kept apart.

use super::gnu::{extension_continues, long_name, sparse_header, MAX_SPARSE_BLOCKS};
use super::member::{Format, Member, MemberKind};
use super::name::Name;
use super::pax::{Attrs, Effective, Key};
use super::step::{Plan, MAX_HEADER_BYTES};
use super::tar::{decode, is_zero, pad512, Header, Magic, BLOCK, BLOCK_U64};
use super::tar_rules::{disputed_names, kind_and_data, refused_type_flag};

/// What the next piece of a tar stream is.
#[derive(Debug)]
pub(super) enum TarWant {
    Header,
    /// The data of an 'x', 'g', 'L' or 'K' header (`size` bytes).
    Extension {
        typeflag: u8,
        size: u64,
    },
    /// An old GNU sparse member's next extension block.
    Sparse {
        member: Member,
        size: u64,
        blocks: u64,
    },
}

/// What a tar stream keeps between headers.
#[derive(Debug, Default)]
pub(super) struct TarStream {
    pub format: Option<Format>,
    /// The pax global ('g') headers, as `[start, end)` stream ranges
    /// (header, records and padding).
    pub globals: Vec<(u64, u64)>,
    global: Attrs,
    /// The extended headers read for the next member.
    pending: Pending,
    /// A first zero block, waiting for its second.
    zero_at: Option<u64>,
}

#[derive(Debug, Default)]
struct Pending {
    start: Option<u64>,
    pax: Attrs,
    /// Why the last 'x' header's records are bad: GNU tar and bsdtar
    /// read only the last extended header before a member, so a bad one
    /// that another replaces is no error.
    pax_error: Option<String>,
    name: Option<Vec<u8>>,
    link: Option<Vec<u8>>,
}

pub(super) type TarPlan = Plan<TarWant>;

impl TarStream {
    /// Whether the stream may end here: no member or extended header is
    /// half read.
    pub fn at_boundary(&self) -> bool {
        self.pending.start.is_none()
    }

    pub fn step(&mut self, want: TarWant, bytes: &[u8], at: u64) -> Result<TarPlan, String> {
        match want {
            TarWant::Header => self.header(bytes, at),
            TarWant::Extension { typeflag, size } => self.extension(typeflag, size, bytes, at),
            TarWant::Sparse {
                member,
                size,
                blocks,
            } => sparse_block(member, size, blocks, bytes, at),
        }
    }

    fn header(&mut self, block: &[u8], at: u64) -> Result<TarPlan, String> {
        if is_zero(block) {
            return self.zero_block(at);
        }
        if let Some(zero) = self.zero_at {
            return Err(format!("a header after a lone zero block (at byte {zero})"));
        }
        let header = decode(block)?;
        self.note_format(&header);
        match header.typeflag {
            b'x' | b'X' | b'g' | b'L' | b'K' => self.extension_header(&header, at),
            b'M' => Err("a GNU multi-volume continuation ('M'), not followed".to_string()),
            b'N' => Err("an old GNU long-names header ('N'), not followed".to_string()),
            b'V' => self.volume_label(&header),
            _ => self.member(&header, at),
        }
    }

    /// GNU's volume label ('V') is no member. GNU tar skips its size
    /// field, bsdtar does not, and an extended header before it applies
    /// to it for one and to the next member for the other: only a plain
    /// label of size 0 is followed.
    fn volume_label(&mut self, header: &Header) -> Result<TarPlan, String> {
        if header.size != 0 {
            return Err(format!(
                "a volume label ('V') with a size of {} bytes: GNU tar skips it, bsdtar does not",
                header.size
            ));
        }
        if self.pending.start.is_some() {
            return Err("a volume label ('V') after an extended header".to_string());
        }
        Ok(next_header())
    }

    fn zero_block(&mut self, at: u64) -> Result<TarPlan, String> {
        if let Some(why) = self.pending.pax_error.take() {
            return Err(why);
        }
        if let Some(start) = self.pending.start {
            return Err(format!(
                "a zero block where the member of the extended header at byte {start} was due"
            ));
        }
        if self.zero_at.is_some() {
            return Ok(Plan::end(TarWant::Header));
        }
        self.zero_at = Some(at);
        Ok(next_header())
    }

    fn note_format(&mut self, header: &Header) {
        let pax = matches!(header.typeflag, b'x' | b'X' | b'g');
        self.format = match (self.format, header.magic) {
            (None, Magic::Gnu) => Some(Format::Gnu),
            (None, _) if pax => Some(Format::Pax),
            (None, _) => Some(Format::Ustar),
            (Some(Format::Ustar), _) if pax => Some(Format::Pax),
            (format, _) => format,
        };
    }

    fn extension_header(&mut self, header: &Header, at: u64) -> Result<TarPlan, String> {
        let typeflag = header.typeflag;
        if header.size > MAX_HEADER_BYTES {
            return Err(format!(
                "a '{}' header of {} bytes, over the {MAX_HEADER_BYTES} the parser holds",
                char::from(typeflag),
                header.size
            ));
        }
        if typeflag == b'g' {
            let records = pad512(header.size).ok_or("a 'g' header too long")?;
            self.globals.push((at, at + BLOCK as u64 + records));
        } else {
            self.pending.start.get_or_insert(at);
        }
        Ok(Plan::read(
            header.size as usize,
            TarWant::Extension {
                typeflag,
                size: header.size,
            },
        ))
    }

    fn extension(
        &mut self,
        typeflag: u8,
        size: u64,
        data: &[u8],
        at: u64,
    ) -> Result<TarPlan, String> {
        match typeflag {
            // 'X': Solaris's older name for 'x', read as 'x' by both
            // GNU tar and bsdtar.
            b'x' | b'X' => {
                // Another extended header is the next header the earlier
                // one applied to: both tools keep only the last one's.
                self.pending.pax = Attrs::default();
                self.pending.pax_error = self
                    .pending
                    .pax
                    .parse(data)
                    .err()
                    .map(|why| format!("{why} in the extended header's records at byte {at}"));
            }
            b'g' => {
                let mut newer = Attrs::default();
                newer.parse(data)?;
                self.global.merge_global(newer);
            }
            b'L' => self.pending.name = Some(long_name(data)),
            _ => self.pending.link = Some(long_name(data)),
        }
        let padding = pad512(size).ok_or("an extended header too long")? - size;
        Ok(next_header().after(padding))
    }

    fn member(&mut self, header: &Header, at: u64) -> Result<TarPlan, String> {
        let pending = std::mem::take(&mut self.pending);
        if let Some(why) = pending.pax_error {
            return Err(why);
        }
        let attrs = Effective {
            local: &pending.pax,
            global: &self.global,
        };
        let name = attrs
            .get(Key::SparseName)
            .or(attrs.get(Key::Path))
            .map(<[u8]>::to_vec);
        let path = name.or(pending.name).unwrap_or_else(|| header.name());
        let link = attrs
            .get(Key::LinkPath)
            .map(<[u8]>::to_vec)
            .or(pending.link);
        let pax_size = attrs.size(Key::Size)?;
        let mtime = attrs.number(Key::Mtime)?.unwrap_or(header.mtime);
        refused_type_flag(header.typeflag, at == 0)?;
        if path.is_empty() {
            return Err(
                "a member with an empty name: GNU tar lists it (and extracts it as '.'), bsdtar skips it"
                    .to_string(),
            );
        }
        let (kind, stored) = kind_and_data(header, &path, pax_size, self.format)?;
        let carries_data = matches!(
            kind,
            MemberKind::File | MemberKind::HardLink | MemberKind::Other
        ) || header.typeflag == b'D'
            || header.magic == Magic::V7 && kind == MemberKind::Directory;
        let link = matches!(kind, MemberKind::HardLink | MemberKind::Symlink)
            .then(|| link.unwrap_or_else(|| header.link()));
        disputed_names(&attrs, kind, link.as_deref())?;
        let mut member = Member {
            path: Name::new(path),
            kind,
            size: if carries_data { stored } else { 0 },
            mtime,
            link: link.map(Name::new),
            header_offset: pending.start.unwrap_or(at),
            end_offset: 0,
            inode: None,
        };
        let after_header = at + BLOCK_U64;
        if header.typeflag == b'S' {
            let (realsize, extended) = sparse_header(header.block)?;
            member.kind = MemberKind::Sparse;
            member.size = realsize;
            if extended {
                return Ok(Plan::read(
                    BLOCK,
                    TarWant::Sparse {
                        member,
                        size: stored,
                        blocks: 1,
                    },
                ));
            }
        } else if attrs.is_sparse() {
            member.kind = MemberKind::Sparse;
            member.size = attrs.size(Key::SparseSize)?.unwrap_or(stored);
        }
        finish_member(member, after_header, data_blocks(stored)?)
    }
}

fn sparse_block(
    member: Member,
    size: u64,
    blocks: u64,
    block: &[u8],
    at: u64,
) -> Result<TarPlan, String> {
    if extension_continues(block) {
        if blocks >= MAX_SPARSE_BLOCKS {
            return Err(format!(
                "a GNU sparse map of more than {MAX_SPARSE_BLOCKS} blocks"
            ));
        }
        return Ok(Plan::read(
            BLOCK,
            TarWant::Sparse {
                member,
                size,
                blocks: blocks + 1,
            },
        ));
    }
    finish_member(member, at + BLOCK_U64, data_blocks(size)?)
}

fn finish_member(mut member: Member, data_start: u64, data: u64) -> Result<TarPlan, String> {
    member.end_offset = data_start
        .checked_add(data)
        .ok_or("a member that ends past 2^64 bytes")?;
    Ok(next_header().after(data).with_member(member))
}

fn data_blocks(size: u64) -> Result<u64, String> {
    pad512(size).ok_or_else(|| format!("a size too large ({size})"))
}

fn next_header() -> TarPlan {
    Plan::read(BLOCK, TarWant::Header)
}
