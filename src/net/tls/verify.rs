//! The two checks of a peer's key, one per side, for TLS 1.3 with raw
//! public keys (RFC 7250): the sender pins the receiver's fingerprint, and
//! the receiver allows senders by an [`AllowList`]. Each also checks the
//! handshake's signature against the very key it accepted, so holding the
//! key, not just showing it, is what passes.
//!
//! Each records what it saw in a [`Seen`], which the caller reads when the
//! handshake has ended either way: a refusal line names the key that was
//! shown, and an accepted sender is named by its list entry.

use std::sync::{Arc, Mutex};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls13_signature_with_raw_key, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, ServerName, SubjectPublicKeyInfoDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{
    CertificateError, DigitallySignedStruct, DistinguishedName, Error, PeerIncompatible,
    SignatureScheme,
};

use crate::base::sync::lock;
use crate::keys::{AllowList, Fingerprint};

/// What a check saw of the peer's key, and what it made of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The key passed; `name` is what the peer goes by.
    Accepted { key: Fingerprint, name: String },
    /// The key was shown and refused; `why` in words.
    Refused { key: Fingerprint, why: String },
}

/// The slot a check writes its verdict into; None until a key was shown.
#[derive(Debug, Default)]
pub struct Seen(Mutex<Option<Verdict>>);

impl Seen {
    pub fn verdict(&self) -> Option<Verdict> {
        lock(&self.0).clone()
    }

    pub(super) fn record(&self, verdict: Verdict) {
        *lock(&self.0) = Some(verdict);
    }
}

/// The sender's check: the receiver's key must be the pinned one.
#[derive(Debug)]
pub struct PinnedReceiver {
    pub pin: Fingerprint,
    pub seen: Arc<Seen>,
    pub algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for PinnedReceiver {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        let key = Fingerprint::of_spki(end_entity);
        if key != self.pin {
            self.seen.record(Verdict::Refused {
                key,
                why: format!("the receiver's key is not the pinned {}", self.pin),
            });
            return Err(Error::InvalidCertificate(
                CertificateError::ApplicationVerificationFailure,
            ));
        }
        self.seen.record(Verdict::Accepted {
            key,
            name: "receiver".into(),
        });
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        no_tls12()
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        signed_by(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }

    fn requires_raw_public_keys(&self) -> bool {
        true
    }
}

/// The receiver's check: the sender's key must be on the list.
#[derive(Debug)]
pub struct AllowedSenders {
    pub allowed: AllowList,
    pub seen: Arc<Seen>,
    pub algorithms: WebPkiSupportedAlgorithms,
}

impl ClientCertVerifier for AllowedSenders {
    fn offer_client_auth(&self) -> bool {
        true
    }

    fn client_auth_mandatory(&self) -> bool {
        true
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, Error> {
        let key = Fingerprint::of_spki(end_entity);
        match self.allowed.name_of(&key) {
            Some(name) => {
                self.seen.record(Verdict::Accepted {
                    key,
                    name: name.to_string(),
                });
                Ok(ClientCertVerified::assertion())
            }
            None => {
                self.seen.record(Verdict::Refused {
                    key,
                    why: "the sender's key is not allowed".into(),
                });
                Err(Error::InvalidCertificate(
                    CertificateError::ApplicationVerificationFailure,
                ))
            }
        }
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        no_tls12()
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        signed_by(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }

    fn requires_raw_public_keys(&self) -> bool {
        true
    }
}

/// TLS 1.2 is never offered (both configurations are TLS 1.3 only).
fn no_tls12() -> Result<HandshakeSignatureValid, Error> {
    Err(Error::PeerIncompatible(PeerIncompatible::Tls12NotOffered))
}

/// Whether `dss` is the signature of `message` by the raw public key
/// `cert` (a SubjectPublicKeyInfo): the proof that the peer holds the key
/// it showed.
fn signed_by(
    message: &[u8],
    cert: &CertificateDer<'_>,
    dss: &DigitallySignedStruct,
    algorithms: &WebPkiSupportedAlgorithms,
) -> Result<HandshakeSignatureValid, Error> {
    let spki = SubjectPublicKeyInfoDer::from(cert.as_ref());
    verify_tls13_signature_with_raw_key(message, &spki, dss, algorithms)
}
