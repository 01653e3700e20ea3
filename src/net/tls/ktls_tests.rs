//! What the kernel is given for each cipher: the fields of Linux's
//! `tls12_crypto_info_*` from rustls's secrets, against fixed vectors
//! (TLS 1.3 splits the 12-byte IV into a 4-byte salt and an 8-byte IV for
//! AES-GCM; ChaCha20-Poly1305 takes all 12 as its IV).

use rustls::crypto::cipher::{AeadKey, Iv};

use super::*;

fn key() -> AeadKey {
    AeadKey::from(std::array::from_fn::<u8, 32, _>(|i| i as u8 + 1))
}

fn iv() -> Iv {
    Iv::from(std::array::from_fn::<u8, 12, _>(|i| 100 + i as u8))
}

#[test]
fn aes_128_gcm_gets_the_salt_iv_key_and_sequence_where_the_kernel_reads_them() {
    let secret = ConnectionTrafficSecrets::Aes128Gcm {
        key: key(),
        iv: iv(),
    };
    let TlsCryptoInfo::Aes128Gcm(info) = crypto_info((7, secret)).unwrap() else {
        panic!("not AES-128-GCM");
    };
    assert_eq!(info.info.version, 0x0304);
    assert_eq!(info.info.cipher_type, 51);
    assert_eq!(info.salt, [100, 101, 102, 103]);
    assert_eq!(info.iv, [104, 105, 106, 107, 108, 109, 110, 111]);
    assert_eq!(info.key, std::array::from_fn::<u8, 16, _>(|i| i as u8 + 1));
    assert_eq!(info.rec_seq, [0, 0, 0, 0, 0, 0, 0, 7]);
}

#[test]
fn aes_256_gcm_gets_the_whole_key() {
    let secret = ConnectionTrafficSecrets::Aes256Gcm {
        key: key(),
        iv: iv(),
    };
    let TlsCryptoInfo::Aes256Gcm(info) = crypto_info((1 << 40, secret)).unwrap() else {
        panic!("not AES-256-GCM");
    };
    assert_eq!(info.info.cipher_type, 52);
    assert_eq!(info.key, std::array::from_fn::<u8, 32, _>(|i| i as u8 + 1));
    assert_eq!(info.salt, [100, 101, 102, 103]);
    assert_eq!(info.rec_seq, (1u64 << 40).to_be_bytes());
}

#[test]
fn chacha20_poly1305_gets_the_whole_iv_and_no_salt() {
    let secret = ConnectionTrafficSecrets::Chacha20Poly1305 {
        key: key(),
        iv: iv(),
    };
    let TlsCryptoInfo::Chacha20Poly1305(info) = crypto_info((0, secret)).unwrap() else {
        panic!("not ChaCha20-Poly1305");
    };
    assert_eq!(info.info.cipher_type, 54);
    assert_eq!(info.iv, std::array::from_fn::<u8, 12, _>(|i| 100 + i as u8));
    assert_eq!(info.rec_seq, [0; 8]);
}

#[test]
fn a_key_shorter_than_its_cipher_needs_is_an_error_not_a_panic() {
    let short = AeadKey::from([9u8; 32]);
    // AES-256 takes 32 bytes: a full key passes; the same code path refuses
    // a slice that is too short rather than indexing past it.
    assert!(bytes::<32>(short.as_ref(), 0).is_ok());
    assert!(bytes::<32>(short.as_ref(), 1).is_err());
    assert!(bytes::<4>(&[1, 2, 3], 0).is_err());
}

/// /proc/crypto as the tape lab's 6.12 kernel lists AES-GCM: the generic
/// instance its `gcm` template made, and, once `aesni_intel` is loaded,
/// the accelerated one at a higher priority.
const GENERIC: &str = "name         : gcm(aes)
driver       : gcm_base(ctr(aes-generic),ghash-generic)
module       : gcm
priority     : 100
refcnt       : 1
selftest     : passed
type         : aead

name         : ghash
driver       : ghash-generic
module       : ghash_generic
priority     : 100
";

const ACCELERATED: &str = "name         : gcm(aes)
driver       : generic-gcm-aesni-avx
module       : aesni_intel
priority     : 500
type         : aead
";

#[test]
fn the_kernel_s_aes_gcm_is_the_driver_of_highest_priority() {
    assert_eq!(
        chosen_driver(GENERIC, "gcm(aes)").as_deref(),
        Some("gcm_base(ctr(aes-generic),ghash-generic)")
    );
    let both = format!("{GENERIC}\n{ACCELERATED}");
    assert_eq!(
        chosen_driver(&both, "gcm(aes)").as_deref(),
        Some("generic-gcm-aesni-avx")
    );
    assert_eq!(chosen_driver("", "gcm(aes)"), None);
}

#[test]
fn only_the_portable_c_aes_gcm_is_too_slow_for_auto() {
    assert!(is_generic("gcm_base(ctr(aes-generic),ghash-generic)"));
    assert!(is_generic("gcm_base(ctr-aes-aesni,ghash-generic)"));
    // The accelerated driver's name begins with "generic" too.
    assert!(!is_generic("generic-gcm-aesni-avx"));
    assert!(!is_generic("generic-gcm-vaes-avx10_512"));
}
