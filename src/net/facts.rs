//! What the summary says of a network stream once it is connected: the
//! end it is (`-I` or `-O`), the peer, and how private the stream was.
//! `--summary-json` writes these as its `network` list; the summary line
//! says the privacy of every private stream.

use serde::{Deserialize, Serialize};

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
        }
    }

    /// True for a stream this run sent (`-O`).
    pub fn is_output(&self) -> bool {
        self.endpoint.starts_with("-O")
    }

    /// The summary line's clause for a private stream, e.g.
    /// "over TLS 1.3 in user space"; None for a plain or raw one, whose
    /// notes say what they need to.
    pub fn clause(&self) -> Option<String> {
        let records = match self.records? {
            Records::UserSpace => "in user space",
            Records::Kernel => "in the kernel (kTLS)",
        };
        match self.privacy {
            Privacy::Tls => Some(format!("over TLS 1.3 {records}")),
            Privacy::Plain | Privacy::Raw => None,
        }
    }
}
