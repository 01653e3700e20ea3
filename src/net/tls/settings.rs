//! What `--key`, `--pin`, `--allow-key` and `--allow-keys` asked for, as
//! the network settings carry it: paths and fingerprints, not loaded keys,
//! so that the allowed keys' file is read afresh for every connection and
//! an edit to it needs no restart.

use std::path::PathBuf;

use super::pki::Pki;
use crate::keys::{AllowList, Fingerprint, KeyPair};
use crate::net::addr::PeerAddr;

/// The keys of one end of a private stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    /// `--key`: this end's key pair (`tapebuf key new`).
    pub key: PathBuf,
    /// `--pin`: the receiver's key, for every `-O`.
    pub pin: Option<Fingerprint>,
    /// Without `--pin`, each `-O HOST:PORT`'s key from the `receivers`
    /// file, by the `HOST:PORT` as typed (`for_peer` picks one).
    pub pinned: Vec<(String, Fingerprint)>,
    /// `--allow-key FINGERPRINT[=NAME]`: senders allowed by `-I`.
    pub allow: Vec<(Fingerprint, String)>,
    /// `--allow-keys FILE`: more of them, re-read per connection.
    pub allow_file: Option<PathBuf>,
    /// `--ca` and `--cert`: certificates from a site's CA in place of
    /// the pin and the allowed keys.
    pub pki: Option<Pki>,
    /// `--ktls`: who makes the records after the handshake.
    pub ktls: Ktls,
}

/// Who makes and opens the TLS records once the handshake is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ktls {
    /// The kernel where it offers it (a `tls` module), else rustls.
    Auto,
    /// The kernel, or the connection fails saying why.
    On,
    /// rustls, in tapebuf.
    Off,
}

impl TlsSettings {
    /// This end's key pair, read from `--key`.
    pub fn key_pair(&self) -> Result<KeyPair, String> {
        KeyPair::load(&self.key).map_err(|e| format!("--key: {e}"))
    }

    /// These settings for a sender to `peer` (`-O HOST:PORT`): its pin is
    /// `--pin`, else the one the `receivers` file gave that `HOST:PORT`;
    /// with `--ca`, the receiver's certificate must name `HOST`.
    pub fn for_peer(&self, peer: &PeerAddr) -> TlsSettings {
        let typed = peer.to_string();
        let from_file = (self.pinned.iter())
            .find(|(p, _)| *p == typed)
            .map(|(_, f)| *f);
        TlsSettings {
            pin: self.pin.or(from_file),
            pki: (self.pki.clone()).map(|pki| Pki {
                server_name: Some(peer.host.clone()),
                ..pki
            }),
            ..self.clone()
        }
    }

    /// The senders allowed now: the file as it reads at this moment, and
    /// the keys given on the command line.
    pub fn allowed(&self) -> Result<AllowList, String> {
        let mut list = match &self.allow_file {
            Some(path) => AllowList::read(path)?,
            None => AllowList::default(),
        };
        for (print, name) in &self.allow {
            list.add(*print, name.clone(), "--allow-key")?;
        }
        Ok(list)
    }
}
