//! `tapebuf verify --manifest FILE`: checks the tapes or files of a past
//! backup against its manifest, volume by volume, with no state but the
//! manifest. `cli::verify` is its command line; `run` reads the volumes through
//! the source layer (the same change command, prompt and drive waits as a
//! restore, and the same check as a restore with `--manifest`) into
//! nothing, and `messages` says what it found. The invariant it keeps: exit 0
//! only when every volume the manifest lists was read and matched, the
//! bytes read make the manifest's stream digest (the only digest the last
//! line prints), and the backup itself was whole.

mod fifo_wait;
pub mod messages;
pub mod run;
mod stream_digest;

pub use run::Verify;
