//! Reading until a buffer is full or the input ends: a short read(2) is
//! not the end of a file, and EINTR is tried again. One loop, for reading
//! from where a file is and for reading at an offset.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

/// Reads into `buf` until it is full or `input` ends; the bytes read.
pub fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    fill_with(buf, |part, _| input.read(part))
}

/// Reads into `buf` from `offset` of `file` until it is full or the file
/// ends; the bytes read. The file's own position is not moved.
pub fn read_full_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    fill_with(buf, |part, got| file.read_at(part, offset + got as u64))
}

fn fill_with(
    buf: &mut [u8],
    mut read: impl FnMut(&mut [u8], usize) -> io::Result<usize>,
) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match read(&mut buf[got..], got) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Gives at most 3 bytes a read, and EINTR before each.
    struct Dribble<'a>(&'a [u8], bool);
    impl Read for Dribble<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.1 = !self.1;
            if self.1 {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = buf.len().min(3).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn short_reads_and_eintr_are_read_past_until_full_or_the_end() {
        let mut buf = [0u8; 8];
        assert_eq!(
            read_full(&mut Dribble(b"0123456789", false), &mut buf).unwrap(),
            8
        );
        assert_eq!(&buf, b"01234567");
        assert_eq!(read_full(&mut Dribble(b"abc", false), &mut buf).unwrap(), 3);
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"0123456789").unwrap();
        assert_eq!(read_full_at(&file, &mut buf, 6).unwrap(), 4);
        assert_eq!(&buf[..4], b"6789");
    }
}
