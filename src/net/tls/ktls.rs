//! kTLS: once the handshake is over, the kernel makes and opens the
//! records (Linux's `tls` upper-layer protocol, `Documentation/networking/
//! tls.rst`), so a block goes from the ring to the socket in one copy and
//! is encrypted there, and received records are opened straight into the
//! caller's buffer.
//!
//! `offer` turns the `tls` ULP on: it fails, and nothing is changed, when
//! the kernel has no `tls` module (then rustls goes on in user space). Once
//! it succeeds, `install` takes rustls's traffic secrets and sequence
//! numbers and gives them to the kernel for both directions. From then on
//! `KernelTls` is the connection: writes are application data; reads ask
//! for each record's type, so that the peer's close_notify reads as the
//! end and any other alert or handshake record as an error.
//!
//! The switch is made where nothing of the peer's is in flight (after the
//! receiver's acceptance on both sides: `net::link`), since bytes rustls
//! has read but not opened could not be handed to the kernel.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::OnceLock;

use nix::sys::socket::setsockopt;
use nix::sys::socket::sockopt::{TcpTlsRx, TcpTlsTx, TcpUlp, TlsCryptoInfo};
use rustls::{ConnectionTrafficSecrets, ExtractedSecrets};

use super::Ktls;
use crate::net::socket::Timed;

/// TLS record types (RFC 8446, 5.1).
const ALERT: u8 = 21;
const HANDSHAKE: u8 = 22;
const APPLICATION_DATA: u8 = 23;
/// The close_notify alert: level warning (1), description 0.
const CLOSE_NOTIFY: [u8; 2] = [1, 0];

/// Whether this kernel makes and opens AES-128-GCM TLS 1.3 records, the
/// cipher tapebuf's ends agree on: asked once per process, on a loopback
/// connection of its own with a throwaway key. The `tls` module alone is
/// not enough: it also needs the kernel's `gcm` crypto, which a kernel
/// without a module loader at hand (the tape lab's initramfs) lacks, and
/// a connection whose secrets went to a kernel that then refused them
/// could not go on in rustls. The error is the reason, for the summary.
pub fn works() -> Result<(), String> {
    static ANSWER: OnceLock<Result<(), String>> = OnceLock::new();
    ANSWER
        .get_or_init(|| probe().map_err(|e| e.to_string()))
        .clone()
}

fn probe() -> io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let ours = TcpStream::connect(listener.local_addr()?)?;
    let _theirs = listener.accept()?;
    offer(&ours)?;
    let info = TlsCryptoInfo::Aes128Gcm(libc::tls12_crypto_info_aes_gcm_128 {
        info: libc::tls_crypto_info {
            version: libc::TLS_1_3_VERSION,
            cipher_type: libc::TLS_CIPHER_AES_GCM_128,
        },
        iv: [0; 8],
        key: [0; 16],
        salt: [0; 4],
        rec_seq: [0; 8],
    });
    let refused = |e: nix::errno::Errno| {
        io::Error::other(format!(
            "the kernel's tls module cannot use AES-128-GCM ({e}; modprobe gcm)"
        ))
    };
    setsockopt(&ours, TcpTlsTx, &info).map_err(refused)?;
    setsockopt(&ours, TcpTlsRx, &info).map_err(refused)
}

/// Under `--ktls auto`, whether the kernel's AES-GCM is worth taking:
/// Err with the reason when the one it would use is its generic C code
/// (`gcm_base(ctr(aes-generic),ghash-generic)`), which made records at
/// 0.44 times rustls's speed in the tape lab, where the accelerated one
/// (`aesni_intel`) made them at 1.1 times (tests/tapelab/FINDINGS.md).
/// Asked after `works`, whose probe made the kernel choose one. A kernel
/// that says nothing (no /proc/crypto) is taken at its word.
pub fn fast_enough() -> Result<(), String> {
    let listing = std::fs::read_to_string("/proc/crypto").unwrap_or_default();
    match chosen_driver(&listing, "gcm(aes)") {
        Some(driver) if is_generic(&driver) => Err(format!(
            "the kernel's AES-GCM is its generic C code ({driver}), slower than user space's \
             (modprobe aesni_intel ghash_clmulni_intel; or --ktls on)"
        )),
        _ => Ok(()),
    }
}

/// The driver the kernel uses for algorithm `name` in a /proc/crypto
/// listing: the one of highest priority.
fn chosen_driver(listing: &str, name: &str) -> Option<String> {
    let field = |entry: &str, key: &str| -> Option<String> {
        (entry.lines())
            .find_map(|l| l.split_once(':').filter(|(k, _)| k.trim() == key))
            .map(|(_, v)| v.trim().to_string())
    };
    (listing.split("\n\n"))
        .filter(|e| field(e, "name").as_deref() == Some(name))
        .filter_map(|e| {
            let priority: i64 = field(e, "priority")?.parse().ok()?;
            Some((priority, field(e, "driver")?))
        })
        .max_by_key(|(priority, _)| *priority)
        .map(|(_, driver)| driver)
}

/// A driver built from the kernel's portable C AES or GHASH.
fn is_generic(driver: &str) -> bool {
    driver.contains("aes-generic") || driver.contains("ghash-generic")
}

/// Why a stream under `mode` runs its records in user space: for the
/// summary.
pub fn why_not(mode: Ktls) -> String {
    match (mode, works()) {
        (Ktls::Off, _) => "--ktls off".to_string(),
        (_, Err(why)) => why,
        (mode, Ok(())) => (fast_enough().err())
            .filter(|_| mode == Ktls::Auto)
            .unwrap_or_else(|| "the connection could not be handed to the kernel".to_string()),
    }
}

/// Turns the kernel's `tls` ULP on for `sock`. An error (ENOENT: no `tls`
/// module; EPERM: it is not loaded and this process may not load it)
/// leaves the socket as it was.
pub fn offer(sock: &TcpStream) -> io::Result<()> {
    setsockopt(sock, TcpUlp::default(), b"tls").map_err(|e| match e {
        nix::errno::Errno::ENOENT => io::Error::new(
            io::ErrorKind::NotFound,
            "the kernel has no tls module loaded, and this process could not load it",
        ),
        e => io::Error::from(e),
    })
}

/// `N` bytes of `from` from `at` on.
fn bytes<const N: usize>(from: &[u8], at: usize) -> io::Result<[u8; N]> {
    (from.get(at..at + N))
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| io::Error::other("a TLS secret of the wrong length"))
}

/// The kernel's form of one direction's secret and sequence number.
fn crypto_info((seq, secret): (u64, ConnectionTrafficSecrets)) -> io::Result<TlsCryptoInfo> {
    let version = libc::TLS_1_3_VERSION;
    let rec_seq = seq.to_be_bytes();
    match secret {
        ConnectionTrafficSecrets::Aes128Gcm { key, iv } => {
            let info = libc::tls_crypto_info {
                version,
                cipher_type: libc::TLS_CIPHER_AES_GCM_128,
            };
            Ok(TlsCryptoInfo::Aes128Gcm(
                libc::tls12_crypto_info_aes_gcm_128 {
                    info,
                    iv: bytes(iv.as_ref(), 4)?,
                    key: bytes(key.as_ref(), 0)?,
                    salt: bytes(iv.as_ref(), 0)?,
                    rec_seq,
                },
            ))
        }
        ConnectionTrafficSecrets::Aes256Gcm { key, iv } => {
            let info = libc::tls_crypto_info {
                version,
                cipher_type: libc::TLS_CIPHER_AES_GCM_256,
            };
            Ok(TlsCryptoInfo::Aes256Gcm(
                libc::tls12_crypto_info_aes_gcm_256 {
                    info,
                    iv: bytes(iv.as_ref(), 4)?,
                    key: bytes(key.as_ref(), 0)?,
                    salt: bytes(iv.as_ref(), 0)?,
                    rec_seq,
                },
            ))
        }
        ConnectionTrafficSecrets::Chacha20Poly1305 { key, iv } => {
            let info = libc::tls_crypto_info {
                version,
                cipher_type: libc::TLS_CIPHER_CHACHA20_POLY1305,
            };
            Ok(TlsCryptoInfo::Chacha20Poly1305(
                libc::tls12_crypto_info_chacha20_poly1305 {
                    info,
                    iv: bytes(iv.as_ref(), 0)?,
                    key: bytes(key.as_ref(), 0)?,
                    salt: [],
                    rec_seq,
                },
            ))
        }
        _ => Err(io::Error::other("a TLS cipher the kernel is not given")),
    }
}

/// Gives the kernel both directions' secrets, after `offer` succeeded.
/// Failing here leaves a connection neither side can go on with.
pub fn install(sock: &TcpStream, secrets: ExtractedSecrets) -> io::Result<()> {
    let (tx, rx) = (crypto_info(secrets.tx)?, crypto_info(secrets.rx)?);
    setsockopt(sock, TcpTlsTx, &tx).map_err(|e| io::Error::other(format!("kTLS TX: {e}")))?;
    setsockopt(sock, TcpTlsRx, &rx).map_err(|e| io::Error::other(format!("kTLS RX: {e}")))
}

/// Reads one run of records of a single type into `buf`: the bytes and
/// the type. A clean TCP end reads as 0 bytes of application data.
fn recv_record(fd: RawFd, buf: &mut [u8]) -> io::Result<(usize, u8)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // Room for one cmsg with a byte of data, aligned as cmsghdr wants.
    let mut control = [0u64; 8];
    // SAFETY: an all-zero msghdr is valid; its pointers are set below to
    // live buffers of the lengths given.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: msg points at buffers that outlive the call.
    let n = unsafe { libc::recvmsg(fd, &mut msg, 0) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut kind = APPLICATION_DATA;
    // SAFETY: the CMSG_* walk stays within msg_controllen, as filled in by
    // the kernel.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_TLS && (*c).cmsg_type == libc::TLS_GET_RECORD_TYPE {
                kind = *libc::CMSG_DATA(c);
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok((n as usize, kind))
}

/// Sends one record of `kind` holding `data`.
fn send_record(fd: RawFd, kind: u8, data: &[u8]) -> io::Result<()> {
    let mut iov = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    let mut control = [0u64; 8];
    // SAFETY: as in recv_record; the one cmsg is written within `control`.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(1) as _;
        let c = libc::CMSG_FIRSTHDR(&msg);
        (*c).cmsg_level = libc::SOL_TLS;
        (*c).cmsg_type = libc::TLS_SET_RECORD_TYPE;
        (*c).cmsg_len = libc::CMSG_LEN(1) as _;
        *libc::CMSG_DATA(c) = kind;
        if libc::sendmsg(fd, &msg, 0) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A connection whose records the kernel makes and opens.
pub struct KernelTls {
    timed: Timed,
    /// The peer's close_notify arrived: every later read is the end.
    closed: bool,
}

impl KernelTls {
    pub fn new(timed: Timed) -> KernelTls {
        KernelTls {
            timed,
            closed: false,
        }
    }

    pub fn tcp(&self) -> &TcpStream {
        &self.timed.stream
    }

    /// Sends close_notify, so that the peer can tell the end from a cut.
    pub fn close_notify(&mut self) -> io::Result<()> {
        send_record(self.timed.stream.as_raw_fd(), ALERT, &CLOSE_NOTIFY)
    }
}

impl Read for KernelTls {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.closed || buf.is_empty() {
            return Ok(0);
        }
        let fd = self.timed.stream.as_raw_fd();
        let (n, kind) = recv_record(fd, buf).map_err(|e| match e.raw_os_error() {
            Some(libc::EBADMSG) => io::Error::new(
                io::ErrorKind::InvalidData,
                "a TLS record failed its authentication tag: the stream was damaged or altered in transit",
            ),
            _ => self.timed.explain(e, "sent"),
        })?;
        match kind {
            APPLICATION_DATA => Ok(n),
            ALERT if buf[..n] == CLOSE_NOTIFY[..] => {
                self.closed = true;
                Ok(0)
            }
            ALERT => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the peer sent TLS alert {:?}", &buf[..n]),
            )),
            HANDSHAKE => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the peer sent a TLS handshake message, which kernel TLS does not take here",
            )),
            other => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the peer sent a TLS record of type {other}"),
            )),
        }
    }
}

impl Write for KernelTls {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.timed.write(buf)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.timed.write_vectored(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
#[path = "ktls_tests.rs"]
mod tests;
