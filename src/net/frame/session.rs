//! A resumable stream's session record, sent right after a header with
//! the `RESUMABLE` flag: the session's random identity and the first byte
//! the sender still holds. A new stream sends a new identity and 0; a
//! sender back after a dropped connection sends the same identity and the
//! bytes the receiver had acknowledged.
//!
//! ```text
//! session  24 bytes  identity (16 random bytes), first byte held (u64)
//! ```

use std::fmt;

use ring::rand::{SecureRandom, SystemRandom};

pub const SESSION_LEN: usize = 24;

/// A session's identity: 128 random bits, chosen by the sender.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionId([u8; 16]);

impl SessionId {
    /// A new identity from the system's random source.
    pub fn new() -> std::io::Result<SessionId> {
        let mut id = [0u8; 16];
        SystemRandom::new()
            .fill(&mut id)
            .map_err(|_| std::io::Error::other("the system's random source failed"))?;
        Ok(SessionId(id))
    }
}

/// The first 8 hex digits: enough to tell sessions apart in a log line,
/// too few to stand in for one.
impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0[..4].iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SessionId({self})")
    }
}

/// A sender's session record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello {
    pub id: SessionId,
    /// The first byte the sender still holds: 0 for a new stream.
    pub from: u64,
}

impl Hello {
    pub fn encode(&self) -> [u8; SESSION_LEN] {
        let mut r = [0u8; SESSION_LEN];
        r[..16].copy_from_slice(&self.id.0);
        r[16..].copy_from_slice(&self.from.to_be_bytes());
        r
    }

    pub fn decode(r: &[u8; SESSION_LEN]) -> Hello {
        Hello {
            id: SessionId(r[..16].try_into().expect("16 bytes")),
            from: u64::from_be_bytes(r[16..].try_into().expect("8 bytes")),
        }
    }
}
