//! What the summary says of a network stream once it is connected: the
//! end it is (`-I` or `-O`), the peer, and how private the stream was.
//! `--summary-json` writes these as its `network` list; the summary line
//! says the privacy of every stream, clear text included.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How a stream crossed the network. `Privacy::ALL` lists every kind, so
/// that the tests of how a stream can end run over each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Privacy {
    /// TLS 1.3 between tapebuf keys (`--key`), each end checking the
    /// other's.
    Tls,
    /// tapebuf's checked frames in clear text.
    Plain,
    /// The bytes alone (`--raw`): neither private nor checked.
    Raw,
}

impl Privacy {
    /// Every kind of stream.
    pub const ALL: [Privacy; 3] = [Privacy::Tls, Privacy::Plain, Privacy::Raw];
}

/// Who made and opened a TLS stream's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Records {
    /// rustls, in tapebuf.
    #[serde(rename = "user space")]
    UserSpace,
    /// The kernel (kTLS).
    #[serde(rename = "kernel")]
    Kernel,
}

/// One network stream of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkFacts {
    /// "-I ADDR" or "-O HOST:PORT", as on the command line.
    pub endpoint: String,
    /// The peer's address.
    pub peer: String,
    pub privacy: Privacy,
    /// Under TLS, who makes and opens the records: "user space" (rustls
    /// in tapebuf) or "kernel" (kTLS); null otherwise.
    pub records: Option<Records>,
    /// Under TLS in user space, why the kernel did not make the records:
    /// `--ktls off`, or what the kernel answered. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_space_because: Option<String>,
    /// Under TLS, the key the peer proved it holds.
    pub peer_key: Option<String>,
    /// Under TLS, the sender's name from the receiver's allow list; a
    /// sender knows its receiver only by key, so null there.
    pub peer_name: Option<String>,
    /// The stream could be resumed after a dropped connection
    /// (`--resume-timeout` on both ends).
    #[serde(default)]
    pub resumable: bool,
    /// How many times it was.
    #[serde(default)]
    pub resumes: Resumes,
}

/// How many times a stream was resumed: counted by the end that resumes
/// it while the run goes on, read by the summary at the end (the facts
/// are copied when the stream opens, the count with them).
#[derive(Debug, Clone, Default)]
pub struct Resumes(Arc<AtomicU32>);

impl Resumes {
    pub fn count(&self) -> u32 {
        self.0.load(Relaxed)
    }

    pub fn add(&self) {
        self.0.fetch_add(1, Relaxed);
    }
}

impl PartialEq for Resumes {
    fn eq(&self, other: &Resumes) -> bool {
        self.count() == other.count()
    }
}

impl Eq for Resumes {}

impl Serialize for Resumes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.count())
    }
}

impl<'de> Deserialize<'de> for Resumes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Resumes, D::Error> {
        Ok(Resumes(Arc::new(AtomicU32::new(u32::deserialize(d)?))))
    }
}

impl LinkFacts {
    /// A stream as `endpoint` to `peer`, before anything is known of
    /// its records or its peer's key.
    pub fn new(endpoint: String, peer: String, privacy: Privacy) -> LinkFacts {
        LinkFacts {
            endpoint,
            peer,
            privacy,
            records: None,
            user_space_because: None,
            peer_key: None,
            peer_name: None,
            resumable: false,
            resumes: Resumes::default(),
        }
    }

    /// True for a stream this run sent (`-O`).
    pub fn is_output(&self) -> bool {
        self.endpoint.starts_with("-O")
    }

    /// The summary line's clause for a network stream, e.g. "over TLS 1.3
    /// in user space, resumed 2 times" or "in clear text (--plain)": every
    /// stream says how private it was.
    pub fn clause(&self) -> Option<String> {
        let records = match self.records {
            Some(Records::UserSpace) => "in user space",
            Some(Records::Kernel) => "in the kernel (kTLS)",
            None => "",
        };
        let privacy = match self.privacy {
            Privacy::Tls => Some(format!("over TLS 1.3 {records}")),
            Privacy::Plain => Some("in clear text (--plain)".to_string()),
            Privacy::Raw => Some("in clear text, unframed (--raw)".to_string()),
        };
        let resumed = match self.resumes.count() {
            0 => None,
            1 => Some("resumed once after a dropped connection".to_string()),
            n => Some(format!("resumed {n} times after dropped connections")),
        };
        let parts: Vec<String> = privacy.into_iter().chain(resumed).collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}
