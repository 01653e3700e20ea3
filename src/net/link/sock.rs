//! The socket under user-space TLS, read ahead in large pieces.

use std::io::{self, BufReader, Read, Write};
use std::net::TcpStream;

use crate::net::socket::Timed;

/// How much a TLS socket reads at once (`Sock`).
const READ_AHEAD: usize = 256 * 1024;
/// How much ciphertext rustls may hold for the socket. Its default, 64
/// KiB, splits every write of a large block into a write(2) per 64 KiB.
pub const SEND_AHEAD: usize = 1024 * 1024;

/// The socket under TLS. rustls asks its socket for a few KiB at a time,
/// a read(2) each; reading through a buffer of `READ_AHEAD` makes that
/// one per buffer. Writes go straight to the socket.
pub struct Sock(BufReader<Timed>);

impl Sock {
    pub fn new(timed: Timed) -> Sock {
        Sock(BufReader::with_capacity(READ_AHEAD, timed))
    }

    pub fn tcp(&self) -> &TcpStream {
        &self.0.get_ref().stream
    }

    /// True when bytes read ahead from the socket wait in the buffer.
    pub fn buffered(&self) -> bool {
        !self.0.buffer().is_empty()
    }

    /// The socket itself, when nothing read ahead is left in the buffer
    /// (then the kernel can take the stream over); else the buffer back.
    pub fn into_timed(self) -> Result<Timed, Sock> {
        match self.0.buffer().is_empty() {
            true => Ok(self.0.into_inner()),
            false => Err(self),
        }
    }
}

impl Read for Sock {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for Sock {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.get_mut().write(buf)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.0.get_mut().write_vectored(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.get_mut().flush()
    }
}
