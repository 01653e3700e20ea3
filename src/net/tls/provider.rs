//! The one crypto provider of tapebuf's TLS: ring, with its TLS 1.3
//! suites in the order both ends offer them.

use std::sync::Arc;

use rustls::crypto::CryptoProvider;

/// The one provider: ring, with its TLS 1.3 suites, AES-128-GCM first.
/// ring's own list puts AES-256 first, which costs some 40% more per byte
/// on AES-NI; 128-bit keys are what TLS 1.3 needs here. Both ends are
/// tapebuf, and the receiver follows the sender's order.
pub fn provider() -> Arc<CryptoProvider> {
    use rustls::crypto::ring::cipher_suite as suite;
    Arc::new(CryptoProvider {
        cipher_suites: vec![
            suite::TLS13_AES_128_GCM_SHA256,
            suite::TLS13_AES_256_GCM_SHA384,
            suite::TLS13_CHACHA20_POLY1305_SHA256,
        ],
        ..rustls::crypto::ring::default_provider()
    })
}
