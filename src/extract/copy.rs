//! The pieces of the plan, written in order: a stream piece is read
//! record by record from the volumes, each record checked against its
//! checksum before any byte of it is written, and only the wanted bytes
//! written; a made piece (end blocks, padding, a copied trailer) is
//! written as it is. A record that does not match, or cannot be read,
//! ends the copy at once with one line naming the volume, the record and
//! the stream offset, and the archive is left unended: no end blocks
//! follow, so `tar` reading it says it is cut short. The pieces come as
//! the plan makes them (`pieces.rs`); a catalog that cannot be read on
//! the way ends the copy the same way.
//!
//! A record is read once: pieces that share one (members chosen apart
//! within a record) are cut from the record in hand, so the bytes read
//! are never more than the backup's.

use std::io::{self, Write};

use super::plan::Piece;
use super::sums::{RecordSums, SumCache};
use super::volume_reader::VolumeReader;
use super::walk::{RecordAt, Walk};
use crate::manifest::tally::record_checksum;
use crate::manifest::Manifest;

/// What the copy wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Copied {
    pub bytes: u64,
}

/// Writes `pieces` to `out`, reading stream pieces through `reader`.
pub fn copy(
    pieces: impl IntoIterator<Item = io::Result<Piece>>,
    manifest: &Manifest,
    reader: &mut dyn VolumeReader,
    sums: &dyn RecordSums,
    out: &mut dyn Write,
) -> Result<Copied, String> {
    let mut cache = SumCache::new(sums);
    let mut copied = Copied::default();
    let mut buf = Vec::new();
    // The record in `buf`, checked: (volume, record).
    let mut held: Option<(u32, u64)> = None;
    for piece in pieces {
        let piece = piece.map_err(|e| format!("reading the catalog: {e}"))?;
        match &piece {
            Piece::Made(bytes) => {
                write(out, bytes)?;
                copied.bytes += bytes.len() as u64;
            }
            Piece::Stream { start, end } if start >= end => {}
            Piece::Stream { start, end } => {
                let walk = Walk::new(manifest, *start, *end).ok_or_else(|| {
                    format!("stream byte {start} is past the backup's end, by its manifest")
                })?;
                for wanted in walk {
                    let wanted = wanted.map_err(|at| {
                        format!("stream byte {at} is past the backup's end, by its manifest")
                    })?;
                    let at = &wanted.at;
                    if held != Some((at.volume, at.record)) {
                        read_checked(manifest, reader, &mut cache, at, &mut buf)?;
                        held = Some((at.volume, at.record));
                    }
                    write(out, &buf[wanted.from..wanted.to])?;
                    copied.bytes += (wanted.to - wanted.from) as u64;
                }
            }
        }
    }
    out.flush()
        .map_err(|e| format!("writing the output: {e}"))?;
    Ok(copied)
}

/// Reads record `at` into `buf` and checks it.
fn read_checked(
    manifest: &Manifest,
    reader: &mut dyn VolumeReader,
    cache: &mut SumCache<'_>,
    at: &RecordAt,
    buf: &mut Vec<u8>,
) -> Result<(), String> {
    let read = reader.read(at, buf);
    let name = reader.volume_name(at.volume);
    let place = || {
        format!(
            "volume {} ({name}), record {} (stream byte {})",
            at.volume, at.record, at.stream_offset
        )
    };
    if let Err(why) = read {
        return Err(format!("{}: {why}", place()));
    }
    let records = manifest.volume(at.volume).map_or(0, |v| v.record_count());
    let expected = cache
        .get(at.volume, at.record, records)
        .map_err(|e| format!("{}: {e}", place()))?;
    let found = record_checksum(buf);
    if found != expected {
        return Err(format!(
            "{}: the record read back does not match its checksum (read {found:08x}, the catalog has {expected:08x}): the volume is damaged",
            place()
        ));
    }
    Ok(())
}

fn write(out: &mut dyn Write, bytes: &[u8]) -> Result<(), String> {
    out.write_all(bytes)
        .map_err(|e| format!("writing the output: {e}"))
}
