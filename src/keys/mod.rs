//! Keys that tapebuf peers prove themselves with on the network, as ssh
//! and WireGuard keys work: no certificate authority, a key pair per host,
//! and a fingerprint that a receiver allows and a sender pins.
//!
//! The parts: `fingerprint` (the SHA-256 of a public key, in ssh's text
//! form), `key_file` (an Ed25519 pair, its PEM file and the file's
//! permissions), `pem` (the file format), `name` (what a key is called,
//! safe in a path), `allow_list` (the senders a receiver allows, by
//! fingerprint, from a file read again per connection or from the command
//! line), `home` (where the key files are when no flag names them) and
//! `receivers` (the receivers a sender pins by default); `tape_key`, the
//! key a tape drive encrypts with, is kept beside them. `tapebuf key new|show` is `key_command.rs`, beside this folder,
//! and `net::tls` is built on it.

pub mod allow_list;
pub mod fingerprint;
pub mod home;
pub mod key_file;
pub mod name;
pub mod pem;
pub mod receivers;
pub mod tape_key;

pub use allow_list::AllowList;
pub use fingerprint::Fingerprint;
pub use home::KeyHome;
pub use key_file::{KeyError, KeyPair};
pub use receivers::Receivers;
