//! Tapes and what is written to them: the emulated drive, device
//! refusals, the probe, manifests, verification and restores; and where
//! the tape lab gets mhvtl's source.
//!
//! One test binary, one module per area of the former suites, so that
//! the helpers in `tests/common` are built and linked once.

#[path = "../common/mod.rs"]
mod common;

mod catalog_tape;
mod changer_emulated;
mod chio_abi;
mod devices;
mod drive_cli;
mod encryption_cli;
mod lab_source;
mod library_cli;
mod library_flags;
mod ls_cli;
mod mtio_abi;
mod probe_cli;
mod probe_emulated;
mod report_manifest;
mod report_probe;
mod restore_manifest;
mod tape_emulated;
mod tape_ready;
mod verify_cli;
mod verify_cli_hostile;
mod verify_write;
