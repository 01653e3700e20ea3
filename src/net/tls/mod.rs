//! TLS 1.3 between tapebuf peers, authenticated by keys and not by a
//! certificate authority: each side presents its Ed25519 key as a raw
//! public key (RFC 7250), the sender pins the receiver's fingerprint and
//! the receiver allows senders by an [`AllowList`] (`verify.rs`). rustls
//! does the protocol with ring as its only provider; TLS 1.2, session
//! tickets and resumption by ticket are off, so that a connection is
//! always a full handshake between the two keys.
//!
//! This module builds the two sides' configurations, one per connection
//! (cheap), each with the [`Seen`] slot its check writes into;
//! `net::link` runs the handshakes for `-O` and `-I`, `settings` is
//! what `--key`, `--pin` and `--allow-key(s)` asked for, `pki` the
//! certificates of a site's own CA (`--ca`, `--cert`) in place of pins and
//! allowed keys, and `ktls` hands the records to the kernel where it
//! offers them.

pub mod ktls;
pub mod pki;
mod provider;
mod settings;
mod verify;

pub use settings::{Ktls, TlsSettings};
pub use verify::{Seen, Verdict};

use std::sync::Arc;

use rustls::client::AlwaysResolvesClientRawPublicKeys;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::AlwaysResolvesServerRawPublicKeys;
use rustls::sign::CertifiedKey;
use rustls::{ClientConfig, ServerConfig};

use crate::keys::{AllowList, Fingerprint, KeyPair};
use provider::provider;
use verify::{AllowedSenders, PinnedReceiver};

/// `pair` as the key rustls signs the handshake with, presented as its
/// SubjectPublicKeyInfo.
fn certified(pair: &KeyPair, provider: &CryptoProvider) -> Result<Arc<CertifiedKey>, String> {
    let der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pair.pkcs8().to_vec()));
    let key = provider
        .key_provider
        .load_private_key(der)
        .map_err(|e| format!("the key cannot sign TLS handshakes: {e}"))?;
    let spki = CertificateDer::from(pair.spki());
    Ok(Arc::new(CertifiedKey::new(vec![spki], key)))
}

/// A sender's configuration: it shows `pair` and accepts only a receiver
/// whose key is `pin`.
pub fn sender_config(
    pair: &KeyPair,
    pin: Fingerprint,
) -> Result<(Arc<ClientConfig>, Arc<Seen>), String> {
    let provider = provider();
    let key = certified(pair, &provider)?;
    let seen = Arc::new(Seen::default());
    let check = PinnedReceiver {
        pin,
        seen: seen.clone(),
        algorithms: provider.signature_verification_algorithms,
    };
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("TLS 1.3: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(check))
        .with_client_cert_resolver(Arc::new(AlwaysResolvesClientRawPublicKeys::new(key)));
    config.resumption = rustls::client::Resumption::disabled();
    // For kTLS: the kernel takes the secrets once the handshake is over.
    config.enable_secret_extraction = true;
    config.enable_sni = false;
    Ok((Arc::new(config), seen))
}

/// A receiver's configuration: it shows `pair` and accepts only a sender
/// whose key `allowed` names.
pub fn receiver_config(
    pair: &KeyPair,
    allowed: AllowList,
) -> Result<(Arc<ServerConfig>, Arc<Seen>), String> {
    let provider = provider();
    let key = certified(pair, &provider)?;
    let seen = Arc::new(Seen::default());
    let check = AllowedSenders {
        allowed,
        seen: seen.clone(),
        algorithms: provider.signature_verification_algorithms,
    };
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("TLS 1.3: {e}"))?
        .with_client_cert_verifier(Arc::new(check))
        .with_cert_resolver(Arc::new(AlwaysResolvesServerRawPublicKeys::new(key)));
    config.send_tls13_tickets = 0;
    config.enable_secret_extraction = true;
    Ok((Arc::new(config), seen))
}

/// The name a sender gives the receiver in its ClientHello. SNI is off and
/// the pin decides, so it is only the argument rustls asks for.
pub fn receiver_name() -> rustls::pki_types::ServerName<'static> {
    rustls::pki_types::ServerName::IpAddress(std::net::Ipv4Addr::LOCALHOST.into())
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
