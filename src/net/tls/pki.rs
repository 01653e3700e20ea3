//! Certificates from a site's own certificate authority, for sites with a
//! PKI (`--ca FILE --cert FILE`): instead of pinning and allowing raw keys,
//! each end presents its tapebuf key (`--key`, Ed25519) in an X.509
//! certificate that the CA signed, and checks the other's chain against
//! the CA. The sender also checks that the receiver's certificate names
//! the host it dialled (`-O HOST:PORT`: a DNS name or an IP address);
//! the receiver names each sender by the first DNS name of its
//! certificate (its `{name}` in a service's templates).
//!
//! The invariant: a chain, its key and the CA are read and matched at
//! start, so a certificate for another key fails before anything opens;
//! in the handshake rustls's WebPKI verifiers decide, and [`Seen`] records
//! the key shown and why it was refused, as for raw keys.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::server::{ParsedCertificate, WebPkiClientVerifier};
use rustls::{ClientConfig, DigitallySignedStruct, DistinguishedName, Error, RootCertStore};
use rustls::{ServerConfig, SignatureScheme};

use super::verify::{Seen, Verdict};
use crate::keys::{allow_list, name, pem, Fingerprint, KeyPair};

/// The largest certificate file read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// What `--ca` and `--cert` name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pki {
    /// The CA certificates that vouch for the peer (PEM).
    pub ca: PathBuf,
    /// This end's certificate, then any intermediates (PEM).
    pub cert: PathBuf,
    /// For a sender: the receiver's host as `-O` gave it.
    pub server_name: Option<String>,
}

/// Why `--ca` or `--cert` cannot be used: the flag, and why (its file
/// first).
#[derive(Debug)]
pub struct PkiError {
    pub flag: &'static str,
    pub why: String,
}

impl std::fmt::Display for PkiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.flag, self.why)
    }
}

impl From<PkiError> for String {
    fn from(e: PkiError) -> String {
        e.to_string()
    }
}

impl Pki {
    /// The chain, checked to be for `pair`, and the CA's store.
    pub fn load(
        &self,
        pair: &KeyPair,
    ) -> Result<(Vec<CertificateDer<'static>>, RootCertStore), PkiError> {
        let cert = |why: String| PkiError {
            flag: "--cert",
            why: format!("{}: {why}", self.cert.display()),
        };
        let chain = read_certs(&self.cert, "--cert")?;
        let leaf = ParsedCertificate::try_from(&chain[0]).map_err(|e| {
            let hint = match is_version_1(&e) {
                true => ": an X.509 v1 certificate, without extensions; have the CA issue a v3 one with a subjectAltName (openssl x509 -req ... -copy_extensions copy)",
                false => "",
            };
            cert(format!("the first certificate: {e}{hint}"))
        })?;
        if leaf.subject_public_key_info().as_ref() != pair.spki().as_slice() {
            return Err(cert(format!(
                "the certificate is not for this end's key {} (--key): make it from that key, e.g. openssl req -new -key KEYFILE",
                pair.fingerprint()
            )));
        }
        let mut roots = RootCertStore::empty();
        for der in read_certs(&self.ca, "--ca")? {
            roots.add(der).map_err(|e| PkiError {
                flag: "--ca",
                why: format!("{}: {e}", self.ca.display()),
            })?;
        }
        Ok((chain, roots))
    }
}

/// True when WebPKI refused a certificate for being X.509 v1.
fn is_version_1(e: &Error) -> bool {
    match e {
        Error::InvalidCertificate(rustls::CertificateError::Other(other)) => matches!(
            other.0.downcast_ref::<webpki::Error>(),
            Some(webpki::Error::UnsupportedCertVersion)
        ),
        _ => false,
    }
}

/// Every certificate in the PEM file at `path` (flag `flag`).
fn read_certs(path: &Path, flag: &'static str) -> Result<Vec<CertificateDer<'static>>, PkiError> {
    let shown = path.display();
    let failed = |why: String| PkiError {
        flag,
        why: format!("{shown}: {why}"),
    };
    let text = crate::base::path_registry::read_small_text(path, MAX_FILE_BYTES)
        .map_err(|e| failed(format!("cannot read it: {e}")))?;
    let blocks = pem::decode_all("CERTIFICATE", &text).map_err(failed)?;
    Ok(blocks.into_iter().map(CertificateDer::from).collect())
}

/// `pair` as rustls loads a private key.
fn private(pair: &KeyPair) -> PrivateKeyDer<'static> {
    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pair.pkcs8().to_vec()))
}

/// The key a certificate carries, or of its bytes where it does not parse.
fn key_of(cert: &CertificateDer<'_>) -> Fingerprint {
    match ParsedCertificate::try_from(cert) {
        Ok(parsed) => Fingerprint::of_spki(parsed.subject_public_key_info().as_ref()),
        Err(_) => Fingerprint::of_spki(cert),
    }
}

/// A sender's configuration: its chain for `pair`, and the receiver's
/// chain checked against the CA and for the name it dials.
pub fn sender_config(
    pki: &Pki,
    pair: &KeyPair,
) -> Result<(Arc<ClientConfig>, Arc<Seen>, ServerName<'static>), String> {
    let (chain, roots) = pki.load(pair)?;
    let host = pki
        .server_name
        .clone()
        .unwrap_or_else(|| "localhost".into());
    let server = ServerName::try_from(host.clone())
        .map_err(|e| format!("{host}: not a name a certificate can be checked for: {e}"))?;
    let provider = super::provider::provider();
    let inner = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| format!("--ca {}: {e}", pki.ca.display()))?;
    let seen = Arc::new(Seen::default());
    let check = VouchedReceiver {
        inner,
        seen: seen.clone(),
    };
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("TLS 1.3: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(check))
        .with_client_auth_cert(chain, private(pair))
        .map_err(|e| format!("--cert {}: {e}", pki.cert.display()))?;
    config.resumption = rustls::client::Resumption::disabled();
    config.enable_secret_extraction = true;
    config.enable_sni = false;
    Ok((Arc::new(config), seen, server))
}

/// A receiver's configuration: its chain for `pair`, and every sender's
/// chain checked against the CA.
pub fn receiver_config(
    pki: &Pki,
    pair: &KeyPair,
) -> Result<(Arc<ServerConfig>, Arc<Seen>), String> {
    let (chain, roots) = pki.load(pair)?;
    let provider = super::provider::provider();
    let inner = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| format!("--ca {}: {e}", pki.ca.display()))?;
    let seen = Arc::new(Seen::default());
    let check = VouchedSenders {
        inner,
        seen: seen.clone(),
    };
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("TLS 1.3: {e}"))?
        .with_client_cert_verifier(Arc::new(check))
        .with_single_cert(chain, private(pair))
        .map_err(|e| format!("--cert {}: {e}", pki.cert.display()))?;
    config.send_tls13_tickets = 0;
    config.enable_secret_extraction = true;
    Ok((Arc::new(config), seen))
}

/// The signature checks of a verifier that wraps rustls's own (`inner`):
/// rustls's, unchanged.
macro_rules! signatures_by_inner {
    () => {
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, Error> {
            self.inner.verify_tls12_signature(message, cert, dss)
        }

        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, Error> {
            self.inner.verify_tls13_signature(message, cert, dss)
        }

        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.inner.supported_verify_schemes()
        }
    };
}

/// The sender's check: the receiver's chain leads to the CA and names the
/// host dialled.
#[derive(Debug)]
struct VouchedReceiver {
    inner: Arc<WebPkiServerVerifier>,
    seen: Arc<Seen>,
}

impl ServerCertVerifier for VouchedReceiver {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        let key = key_of(end_entity);
        let verdict =
            self.inner
                .verify_server_cert(end_entity, intermediates, server_name, ocsp, now);
        self.seen.record(match &verdict {
            Ok(_) => Verdict::Accepted {
                key,
                name: "receiver".into(),
            },
            Err(e) => Verdict::Refused {
                key,
                why: format!(
                    "the receiver's certificate does not pass --ca for {}: {e}",
                    server_name.to_str()
                ),
            },
        });
        verdict
    }

    signatures_by_inner!();
}

/// The receiver's check: the sender's chain leads to the CA.
#[derive(Debug)]
struct VouchedSenders {
    inner: Arc<dyn ClientCertVerifier>,
    seen: Arc<Seen>,
}

impl ClientCertVerifier for VouchedSenders {
    fn offer_client_auth(&self) -> bool {
        true
    }

    fn client_auth_mandatory(&self) -> bool {
        true
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.inner.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, Error> {
        let key = key_of(end_entity);
        let verdict = self
            .inner
            .verify_client_cert(end_entity, intermediates, now);
        self.seen.record(match &verdict {
            Ok(_) => Verdict::Accepted {
                key,
                name: sender_name(end_entity, &key),
            },
            Err(e) => Verdict::Refused {
                key,
                why: format!("the sender's certificate does not pass --ca: {e}"),
            },
        });
        verdict
    }

    signatures_by_inner!();
}

/// What a vouched-for sender goes by: the first DNS name of its
/// certificate, if it is a safe name, else the start of its key's
/// fingerprint, as for a key allowed without a name.
fn sender_name(cert: &CertificateDer<'_>, key: &Fingerprint) -> String {
    let first = webpki::EndEntityCert::try_from(cert)
        .ok()
        .and_then(|c| c.valid_dns_names().next().map(str::to_string));
    first
        .and_then(|n| name::checked(&n, "certificate").ok())
        .unwrap_or_else(|| allow_list::default_name(key))
}
