//! How `VolumeSink` writes one block across volumes: whole records on a
//! tape, never split to fit `--volume-size`; a volume that is full goes
//! to the next one before the rest of the block; and the bytes each write
//! took counted on the volume, with the tape's first block address and
//! logical block protection at its first record.

use std::io;

use super::volumes::VolumeSink;

impl VolumeSink {
    /// Writes the block across volumes. A failure returns how many of its
    /// bytes went out before it.
    pub(super) fn write_pieces(&mut self, data: &[u8]) -> Result<(), (usize, io::Error)> {
        self.write_pieces_after(data, 0, false)
    }

    /// As `write_pieces`, with the first `done` bytes of `data` written
    /// already and the volume `full` after them.
    pub(super) fn write_pieces_after(
        &mut self,
        data: &[u8],
        mut done: usize,
        mut full: bool,
    ) -> Result<(), (usize, io::Error)> {
        let tape = self.medium.kind().whole_records();
        loop {
            if full && done < data.len() {
                if self.volumes.on_volume() == 0 {
                    let e = self.volumes.full_and_empty(self.medium.as_ref());
                    return Err((done, e));
                }
                self.volumes
                    .next(self.medium.as_mut())
                    .map_err(|e| (done, e))?;
            }
            if done == data.len() {
                return Ok(());
            }
            let rest = &data[done..];
            let room = usize::try_from(self.volumes.room()).unwrap_or(usize::MAX);
            // A record is never split to fit --volume-size.
            let want = if tape && room < rest.len() {
                0
            } else {
                rest.len().min(room)
            };
            if want == 0 {
                full = true;
                continue;
            }
            match self.medium.write(&rest[..want]) {
                Ok(n) => {
                    self.took(&rest[..n]);
                    done += n;
                    full = n == 0 || (tape && n < want);
                }
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => full = true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => full = false,
                Err(e) => return Err((done, e)),
            }
        }
    }

    /// Counts `written`, the bytes the medium just took, on the volume.
    pub(super) fn took(&mut self, written: &[u8]) {
        if self.volumes.on_volume() == 0 && !written.is_empty() {
            let protection = self.medium.drive().map(|d| d.protection());
            self.volumes
                .tape_start(self.medium.first_block(), protection);
        }
        self.volumes.add(written);
    }
}
