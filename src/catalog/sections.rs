//! The catalog's tail (`layout.rs` draws it): what an archive holds
//! besides its members (tar's pax global headers, cpio's trailer, where
//! the archive ended) and the volume table of the record checksums. A
//! reader checks every count against the bytes left before allocating,
//! every range for order, and the table against the sums' length.

use super::varint::Cursor;

/// What a catalog keeps beside its members.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatalogExtras {
    /// The pax global ('g') headers, `[start, end)` stream ranges in order.
    pub globals: Vec<(u64, u64)>,
    /// cpio's TRAILER!!! member, `[start, end)`.
    pub trailer: Option<(u64, u64)>,
    /// The stream offset where the archive ended.
    pub end: Option<u64>,
    /// Per volume with record checksums: its number and its records, in
    /// the order their checksums lie in the file.
    pub volumes: Vec<(u32, u64)>,
    /// Per volume the drive encrypted: its number and the fingerprint of
    /// its key (`keys::tape_key`), volume numbers rising.
    pub keys: Vec<(u32, String)>,
}

/// The longest fingerprint a catalog holds.
const MAX_KEY_TEXT: usize = 64;

/// Bytes a checksum takes in the sums.
pub(crate) const SUM_BYTES: u64 = 4;

impl CatalogExtras {
    /// The version a catalog with these extras is written as: 3 when it
    /// holds keys, else 2, which earlier tapebufs read.
    pub(crate) fn version(&self) -> u16 {
        match self.keys.is_empty() {
            true => super::layout::PLAIN_VERSION,
            false => super::layout::VERSION,
        }
    }

    /// The sums' bytes the volume table accounts for (None past u64).
    pub(crate) fn sums_bytes(&self) -> Option<u64> {
        self.volumes
            .iter()
            .try_fold(0u64, |all, (_, records)| all.checked_add(*records))?
            .checked_mul(SUM_BYTES)
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.globals.len() * 16 + self.volumes.len() * 12);
        out.extend_from_slice(&(self.globals.len() as u32).to_le_bytes());
        for (start, end) in &self.globals {
            out.extend_from_slice(&start.to_le_bytes());
            out.extend_from_slice(&end.to_le_bytes());
        }
        put_range(&mut out, self.trailer);
        match self.end {
            Some(end) => {
                out.push(1);
                out.extend_from_slice(&end.to_le_bytes());
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(self.volumes.len() as u32).to_le_bytes());
        for (volume, records) in &self.volumes {
            out.extend_from_slice(&volume.to_le_bytes());
            out.extend_from_slice(&records.to_le_bytes());
        }
        if !self.keys.is_empty() {
            out.extend_from_slice(&(self.keys.len() as u32).to_le_bytes());
            for (volume, print) in &self.keys {
                let text = &print.as_bytes()[..print.len().min(MAX_KEY_TEXT)];
                out.extend_from_slice(&volume.to_le_bytes());
                out.push(text.len() as u8);
                out.extend_from_slice(text);
            }
        }
        out
    }

    /// Reads a tail of a catalog of `version`, whole: every byte accounted
    /// for, ranges in order, volume numbers rising, and the table matching
    /// `sums_bytes`.
    pub(crate) fn decode(
        bytes: &[u8],
        sums_bytes: u64,
        version: u16,
    ) -> Result<CatalogExtras, String> {
        let mut c = Cursor::new(bytes);
        let count = c.u32_le("the global header count")? as usize;
        if count > c.remaining() / 16 {
            return Err(format!("{count} global headers cannot fit its bytes"));
        }
        let mut globals = Vec::with_capacity(count);
        let mut after = 0;
        for i in 0..count {
            let range = (c.u64_le("a global header")?, c.u64_le("a global header")?);
            if range.0 < after || range.1 <= range.0 {
                return Err(format!(
                    "global header {i}: [{}, {}) out of order",
                    range.0, range.1
                ));
            }
            after = range.1;
            globals.push(range);
        }
        let trailer = take_range(&mut c)?;
        let end = match c.byte("the end flag")? {
            0 => None,
            1 => Some(c.u64_le("the archive's end")?),
            other => return Err(format!("end flag {other}")),
        };
        let volumes = take_volumes(&mut c)?;
        let keys = match version >= super::layout::VERSION {
            true => take_keys(&mut c)?,
            false => Vec::new(),
        };
        if c.remaining() != 0 {
            return Err(format!("{} bytes after the volume table", c.remaining()));
        }
        let extras = CatalogExtras {
            globals,
            trailer,
            end,
            volumes,
            keys,
        };
        if extras.sums_bytes() != Some(sums_bytes) {
            return Err(format!(
                "the volume table counts {} checksum bytes, the footer {sums_bytes}",
                extras
                    .sums_bytes()
                    .map_or("too many".into(), |n| n.to_string())
            ));
        }
        Ok(extras)
    }
}

fn put_range(out: &mut Vec<u8>, range: Option<(u64, u64)>) {
    match range {
        Some((start, end)) => {
            out.push(1);
            out.extend_from_slice(&start.to_le_bytes());
            out.extend_from_slice(&end.to_le_bytes());
        }
        None => out.push(0),
    }
}

fn take_range(c: &mut Cursor) -> Result<Option<(u64, u64)>, String> {
    match c.byte("the trailer flag")? {
        0 => Ok(None),
        1 => {
            let range = (c.u64_le("the trailer")?, c.u64_le("the trailer")?);
            if range.1 <= range.0 {
                return Err(format!("trailer [{}, {}) is empty", range.0, range.1));
            }
            Ok(Some(range))
        }
        other => Err(format!("trailer flag {other}")),
    }
}

fn take_volumes(c: &mut Cursor) -> Result<Vec<(u32, u64)>, String> {
    let count = c.u32_le("the volume count")? as usize;
    if count > c.remaining() / 12 {
        return Err(format!("{count} volumes cannot fit its bytes"));
    }
    let mut volumes: Vec<(u32, u64)> = Vec::with_capacity(count);
    for _ in 0..count {
        let volume = c.u32_le("a volume number")?;
        let records = c.u64_le("a volume's records")?;
        if volumes.last().is_some_and(|(before, _)| *before >= volume) {
            return Err(format!("volume {volume} out of order in the volume table"));
        }
        volumes.push((volume, records));
    }
    Ok(volumes)
}

fn take_keys(c: &mut Cursor) -> Result<Vec<(u32, String)>, String> {
    let count = c.u32_le("the key count")? as usize;
    if count > c.remaining() / 5 {
        return Err(format!("{count} keys cannot fit its bytes"));
    }
    let mut keys: Vec<(u32, String)> = Vec::with_capacity(count);
    for _ in 0..count {
        let volume = c.u32_le("a key's volume")?;
        let len = usize::from(c.byte("a key's length")?);
        if len > MAX_KEY_TEXT {
            return Err(format!("volume {volume}'s key fingerprint of {len} bytes"));
        }
        let text = c.take(len, "a key's fingerprint")?;
        let text = std::str::from_utf8(text)
            .map_err(|_| format!("volume {volume}'s key fingerprint is not text"))?;
        if keys.last().is_some_and(|(before, _)| *before >= volume) {
            return Err(format!("volume {volume} out of order in the keys"));
        }
        keys.push((volume, text.to_string()));
    }
    Ok(keys)
}
