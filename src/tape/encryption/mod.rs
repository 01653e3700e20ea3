//! LTO hardware encryption (LTO-4 and later): the drive encrypts every
//! block with AES-256-GCM under a key tapebuf sets before the first
//! block and clears when it is done, on every way out; a restore finds
//! each cartridge's key by the fingerprint the drive keeps with its
//! blocks.
//!
//! - `setup.rs`: the drive's capabilities, key, modes and block status,
//!   through SECURITY PROTOCOL IN and OUT;
//! - `key_dir.rs`: the keys a run was given and the search of
//!   `--key-dir` by fingerprint;
//! - `encrypted.rs`: the drive wrapper that sets, checks and clears;
//! - `refusal.rs`: the typed error for a block refused for its key.
//!
//! The key and its file are `keys::tape_key`; the wire formats are
//! `scsi::pages::encryption`. A remote tape (rmt) has no way to send
//! SCSI commands, so it cannot be encrypted by tapebuf.

pub mod encrypted;
pub mod key_dir;
pub mod refusal;
pub mod setup;

pub use encrypted::Encrypted;
pub use key_dir::Keying;
pub use refusal::{key_refusal, KeyRefused};

#[cfg(test)]
mod tests;
