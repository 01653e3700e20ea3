//! Opening a private stream: the handshake, the receiver's acceptance and
//! the header, each bounded by the handshake's time limit, and the switch
//! of the records to the kernel where it offers it (`tls::ktls`).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use rustls::{ClientConnection, ServerConnection, StreamOwned};

use super::sock::{Sock, SEND_AHEAD};
use super::stream::{AllowedSender, Link, ACCEPT};
use crate::keys::Fingerprint;
use crate::net::frame::HEADER_LEN;
use crate::net::socket::Timed;
use crate::net::tls::ktls::{self, KernelTls};
use crate::net::tls::{self, Ktls, TlsSettings, Verdict};
use crate::net::NetSettings;

/// Sets both of the socket's timeouts; None waits without limit.
fn time_out(stream: &TcpStream, limit: Option<Duration>) -> io::Result<()> {
    stream.set_read_timeout(limit)?;
    stream.set_write_timeout(limit)
}

/// Why a handshake failed: it stalled past `limit`, or a check refused a
/// key, or the error itself.
fn failed(seen: &tls::Seen, e: io::Error, limit: Duration) -> String {
    if matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    ) {
        return format!(
            "the TLS handshake stood still for {} s (--timeout)",
            limit.as_secs().max(1)
        );
    }
    if certificate_types_differ(&e) {
        return "the TLS handshake failed: one end checks certificates from a CA (--ca) and the \
                other raw keys (--pin, --allow-key): give both ends the same"
            .to_string();
    }
    match seen.verdict() {
        Some(Verdict::Refused { key, why }) => {
            format!("the TLS handshake failed: {why} (it showed {key})")
        }
        _ => format!("the TLS handshake failed: {e}"),
    }
}

/// True when the handshake failed because one end offered certificates
/// and the other raw keys (`--ca` against `--pin` or `--allow-key`).
fn certificate_types_differ(e: &io::Error) -> bool {
    use rustls::PeerIncompatible::{
        IncorrectCertificateTypeExtension, UnsolicitedCertificateTypeExtension,
    };
    matches!(
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>()),
        Some(rustls::Error::PeerIncompatible(
            IncorrectCertificateTypeExtension | UnsolicitedCertificateTypeExtension
        ))
    )
}

/// The sender's side: handshake, then the receiver's [`ACCEPT`]. Each
/// wait is bounded by `limit`; the socket goes back to `stall` after.
/// Returns the link and the key the receiver proved it holds.
pub fn open_as_sender(
    timed: Timed,
    keys: &TlsSettings,
    limit: Duration,
    stall: Option<Duration>,
) -> Result<(Link, Fingerprint), String> {
    let pair = keys.key_pair()?;
    let (config, seen, name) = match &keys.pki {
        Some(pki) => tls::pki::sender_config(pki, &pair)?,
        None => {
            let pin = keys
                .pin
                .ok_or("--pin: the receiver's fingerprint is needed")?;
            let (config, seen) = tls::sender_config(&pair, pin)?;
            (config, seen, tls::receiver_name())
        }
    };
    let mut conn = ClientConnection::new(config, name).map_err(|e| e.to_string())?;
    conn.set_buffer_limit(Some(SEND_AHEAD));
    let mut s = StreamOwned::new(conn, Sock::new(timed));
    let mine = pair.fingerprint();
    time_out(s.sock.tcp(), Some(limit)).map_err(|e| e.to_string())?;
    while s.conn.is_handshaking() {
        s.conn
            .complete_io(&mut s.sock)
            .map_err(|e| failed(&seen, e, limit))?;
    }
    let mut word = [0u8; ACCEPT.len()];
    match s.read_exact(&mut word) {
        Ok(()) if word == ACCEPT => {}
        Ok(()) => return Err("the receiver answered the handshake with something other than tapebuf's acceptance".into()),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            return Err(format!("the receiver closed the connection after the handshake: it did not allow this sender's key {mine}"))
        }
        Err(e) if e.kind() == io::ErrorKind::TimedOut => {
            return Err(format!(
                "the receiver said nothing within {} s of the handshake",
                limit.as_secs()
            ))
        }
        Err(e) => {
            return Err(format!(
                "the receiver did not allow this sender's key {mine}: {e}"
            ))
        }
    }
    time_out(s.sock.tcp(), stall).map_err(|e| e.to_string())?;
    let Some(Verdict::Accepted { key, .. }) = seen.verdict() else {
        return Err("the receiver showed no key".into());
    };
    Ok((to_kernel(s, keys.ktls)?, key))
}

/// Whether the kernel takes the records (`--ktls`): Ok(false) where it
/// cannot and `mode` lets rustls go on; an error where `mode` is `On`.
/// `ready`: nothing is buffered in rustls either way and the suite is
/// AES-128-GCM, which `ktls::works` asked the kernel about.
fn kernel_takes(mode: Ktls, ready: bool, sock: &TcpStream) -> Result<bool, String> {
    let why = match mode {
        Ktls::Off => return Ok(false),
        _ if !ready => "the TLS connection was not at a point the kernel can take over".to_string(),
        _ => match ktls::works()
            .and_then(|()| match mode {
                Ktls::Auto => ktls::fast_enough(),
                _ => Ok(()),
            })
            .and_then(|()| ktls::offer(sock).map_err(|e| e.to_string()))
        {
            Ok(()) => return Ok(true),
            Err(why) => why,
        },
    };
    match mode {
        Ktls::On => Err(format!(
            "--ktls on: the kernel does not make TLS records here: {why} (modprobe tls; or --ktls auto)"
        )),
        Ktls::Auto | Ktls::Off => Ok(false),
    }
}

/// True when `conn` has nothing buffered to send and runs AES-128-GCM.
fn at_rest<D>(conn: &rustls::ConnectionCommon<D>) -> bool {
    let suite = conn.negotiated_cipher_suite().map(|s| s.suite());
    !conn.wants_write() && suite == Some(rustls::CipherSuite::TLS13_AES_128_GCM_SHA256)
}

/// The sender's records handed to the kernel, where `mode` and the kernel
/// allow it and nothing of the receiver's is waiting unread; else rustls
/// goes on.
fn to_kernel(s: StreamOwned<ClientConnection, Sock>, mode: Ktls) -> Result<Link, String> {
    if !kernel_takes(mode, at_rest(&s.conn), s.sock.tcp())? {
        return Ok(Link::Sender(Box::new(s)));
    }
    let StreamOwned { conn, sock } = s;
    let timed = match (sock.into_timed(), mode) {
        (Ok(timed), _) => timed,
        (Err(_), Ktls::On) => {
            return Err("--ktls on: the receiver's bytes were still buffered".into())
        }
        // The ULP without keys passes bytes through unchanged.
        (Err(sock), _) => return Ok(Link::Sender(Box::new(StreamOwned::new(conn, sock)))),
    };
    let secrets = (conn.dangerous_extract_secrets()).map_err(|e| format!("kernel TLS: {e}"))?;
    ktls::install(&timed.stream, secrets).map_err(|e| format!("kernel TLS: {e}"))?;
    Ok(Link::Kernel(Box::new(KernelTls::new(timed))))
}

/// The receiver's side, on a connection whose `first` bytes began a TLS
/// handshake: handshake, [`ACCEPT`] once the key is allowed, then the
/// stream header, which comes back beside the sender. Each wait is
/// bounded by `left`, what remains of the connection's `limit`; the
/// socket leaves with no time limit, for `socket::tune` to set
/// `--timeout`'s, or none.
pub fn open_as_receiver(
    stream: &mut TcpStream,
    first: &[u8],
    keys: &TlsSettings,
    (limit, left): (Duration, Duration),
) -> Result<(AllowedSender, Vec<u8>), String> {
    let pair = keys.key_pair()?;
    let (config, seen) = match &keys.pki {
        Some(pki) => tls::pki::receiver_config(pki, &pair)?,
        None => tls::receiver_config(&pair, keys.allowed()?)?,
    };
    let mut conn = ServerConnection::new(config).map_err(|e| e.to_string())?;
    let mut opening = first;
    while !opening.is_empty() {
        conn.read_tls(&mut opening)
            .map_err(|e| failed(&seen, e, limit))?;
    }
    conn.process_new_packets()
        .map_err(|e| failed(&seen, io::Error::other(e), limit))?;
    stream.set_nonblocking(false).map_err(|e| e.to_string())?;
    time_out(stream, Some(left)).map_err(|e| e.to_string())?;
    while conn.is_handshaking() {
        conn.complete_io(stream)
            .map_err(|e| failed(&seen, e, limit))?;
    }
    let Some(Verdict::Accepted { key, name }) = seen.verdict() else {
        return Err("the sender showed no key".into());
    };
    let mut s = rustls::Stream::new(&mut conn, stream);
    s.write_all(&ACCEPT)
        .and_then(|()| s.flush())
        .map_err(|e| format!("sending the acceptance failed: {e}"))?;
    let mut conn = receiver_to_kernel(conn, stream, keys.ktls)?;
    let mut header = vec![0u8; HEADER_LEN];
    let read = match conn {
        Some(ref mut c) => rustls::Stream::new(c, stream).read_exact(&mut header),
        None => stream.try_clone().and_then(|dup| {
            KernelTls::new(Timed::new(dup, &NetSettings::default())).read_exact(&mut header)
        }),
    };
    read.map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => "it closed before sending a stream header".to_string(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            format!("it sent no stream header within {} s", limit.as_secs())
        }
        _ => format!("reading its stream header failed: {e}"),
    })?;
    // The handshake's limit is not the stream's: a sender may go quiet
    // for as long as its input does, unless --timeout says otherwise.
    time_out(stream, None).map_err(|e| e.to_string())?;
    Ok((AllowedSender { conn, name, key }, header))
}

/// The receiver's records handed to the kernel, where it offers them: None
/// then, else rustls's state to go on with. The sender sends nothing
/// between its handshake and the acceptance, so nothing of its is waiting
/// in rustls unread.
fn receiver_to_kernel(
    conn: ServerConnection,
    stream: &TcpStream,
    mode: Ktls,
) -> Result<Option<ServerConnection>, String> {
    if !kernel_takes(mode, at_rest(&conn), stream)? {
        return Ok(Some(conn));
    }
    let secrets = (conn.dangerous_extract_secrets()).map_err(|e| format!("kernel TLS: {e}"))?;
    ktls::install(stream, secrets).map_err(|e| format!("kernel TLS: {e}"))?;
    Ok(None)
}
