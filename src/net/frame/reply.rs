//! The receiver's 16-byte reply to a framed stream: "every byte arrived"
//! with the count, or "damaged" with the offset. Anything else a peer sends
//! back is named as not a tapebuf reply.

const ACK_OK: [u8; 8] = *b"TBUF-OK\0";
const ACK_BAD: [u8; 8] = *b"TBUF-BAD";
pub const REPLY_LEN: usize = 16;

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
}

/// Parses a reply, or says why it is not one.
pub fn parse_reply(r: &[u8; REPLY_LEN]) -> Result<Reply, String> {
    let n = u64::from_be_bytes(r[8..].try_into().expect("8 bytes"));
    if r[..8] == ACK_OK {
        Ok(Reply::Ok(n))
    } else if r[..8] == ACK_BAD {
        Ok(Reply::Bad(n))
    } else {
        Err(format!(
            "the receiver replied {:?}, which is not a tapebuf reply",
            String::from_utf8_lossy(&r[..8])
        ))
    }
}
