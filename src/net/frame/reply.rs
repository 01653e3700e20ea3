//! The receiver's 16-byte messages to a framed sender. At the end, "every
//! byte arrived" with the count, or "damaged" with the offset. In a
//! resumable stream, also the answer to the session record (go on from
//! this byte, or no) and the running acknowledgement of every frame it
//! holds. Anything else a peer sends back is named as not a tapebuf reply.

const ACK_OK: [u8; 8] = *b"TBUF-OK\0";
const ACK_BAD: [u8; 8] = *b"TBUF-BAD";
const HELD: [u8; 8] = *b"TBUF-ACK";
const GO_ON: [u8; 8] = *b"TBUF-AT\0";
const REFUSE: [u8; 8] = *b"TBUF-NO\0";
pub const REPLY_LEN: usize = 16;

/// Why a receiver refused a session record (`Reply::No`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The receiver was started without `--resume-timeout`.
    NotResumable,
    /// The receiver holds no such session: it was restarted, the stream
    /// ended, or the record is a stranger's.
    UnknownSession,
}

impl Refused {
    fn code(self) -> u64 {
        match self {
            Refused::NotResumable => 1,
            Refused::UnknownSession => 2,
        }
    }

    /// The sender's words for it.
    pub fn explain(self) -> &'static str {
        match self {
            Refused::NotResumable => "the receiver takes no resumable streams: start it with --resume-timeout too, or send without it",
            Refused::UnknownSession => "the receiver holds no such session (it was restarted, the stream already ended there, or the session is not this sender's): the stream cannot be resumed",
        }
    }
}

/// The receiver's acknowledgement: it holds every byte before `n`.
pub fn reply_held(n: u64) -> [u8; REPLY_LEN] {
    reply(HELD, n)
}

/// The receiver's answer to a session record: send from byte `n`.
pub fn reply_go_on(n: u64) -> [u8; REPLY_LEN] {
    reply(GO_ON, n)
}

/// The receiver's refusal of a session record.
pub fn reply_refused(why: Refused) -> [u8; REPLY_LEN] {
    reply(REFUSE, why.code())
}

/// The receiver's reply: every byte arrived intact.
pub fn reply_ok(total: u64) -> [u8; REPLY_LEN] {
    reply(ACK_OK, total)
}

/// The receiver's reply: the stream is damaged at this offset.
pub fn reply_bad(at: u64) -> [u8; REPLY_LEN] {
    reply(ACK_BAD, at)
}

fn reply(tag: [u8; 8], n: u64) -> [u8; REPLY_LEN] {
    let mut r = [0u8; REPLY_LEN];
    r[..8].copy_from_slice(&tag);
    r[8..].copy_from_slice(&n.to_be_bytes());
    r
}

/// What the receiver replied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Every byte arrived intact; the receiver counted this many.
    Ok(u64),
    /// The receiver found damage at this offset.
    Bad(u64),
    /// A resumable stream's receiver holds every byte before this one.
    Held(u64),
    /// The answer to a session record: send from this byte.
    GoOn(u64),
    /// The answer to a session record: no.
    Refused(Refused),
}

/// Parses a reply, or says why it is not one.
pub fn parse_reply(r: &[u8; REPLY_LEN]) -> Result<Reply, String> {
    let n = u64::from_be_bytes(r[8..].try_into().expect("8 bytes"));
    let tag: [u8; 8] = r[..8].try_into().expect("8 bytes");
    match tag {
        ACK_OK => Ok(Reply::Ok(n)),
        ACK_BAD => Ok(Reply::Bad(n)),
        HELD => Ok(Reply::Held(n)),
        GO_ON => Ok(Reply::GoOn(n)),
        REFUSE if n == Refused::NotResumable.code() => Ok(Reply::Refused(Refused::NotResumable)),
        REFUSE => Ok(Reply::Refused(Refused::UnknownSession)),
        _ => Err(format!(
            "the receiver replied {:?}, which is not a tapebuf reply",
            String::from_utf8_lossy(&r[..8])
        )),
    }
}
