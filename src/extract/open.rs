//! Which reader the volumes are read with, from `-i` (or the manifest's
//! output): a local tape drive (`tape_volumes.rs`), asked without waiting
//! as a restore asks it, with the changer's loader when `--changer` is
//! given; or file volumes (`file_volumes.rs`). A remote name
//! (`host:/dev/nst0`) is refused: seeking over rmt is not offered, so
//! extract runs on the host that has the tape.

use std::path::Path;

use super::failure::Failure;
use super::file_volumes::FileVolumes;
use super::tape_volumes::TapeVolumes;
use super::volume_reader::VolumeReader;
use crate::endpoint::library::Load;
use crate::endpoint::LibrarySettings;
use crate::manifest::Manifest;
use crate::rmt::name::RemoteName;
use crate::tape::drive::char_devices::{check_path, Direction};
use crate::tape::{Access, Device};
use crate::volume::{ChangePolicy, Safeguards, VolumeNames};

/// How the volumes are got.
pub struct Getting<'a> {
    pub policy: ChangePolicy,
    pub library: Option<&'a LibrarySettings>,
    pub quiet: bool,
    /// `--no-lbp`, `--key-dir`, `--encrypt-key`: the drive's logical
    /// block protection and the keys of encrypted cartridges.
    pub guards: Safeguards,
}

/// Opens the reader for `input`.
pub fn reader<'m>(
    input: &Path,
    manifest: &'m Manifest,
    getting: Getting<'_>,
) -> Result<Box<dyn VolumeReader + 'm>, Failure> {
    let name = input.display();
    match RemoteName::parse(input) {
        Ok(None) => {}
        Ok(Some(_)) => {
            return Err(Failure::Usage(format!(
                "extract: -i {name}: a remote tape or file cannot be read by seeking; run tapebuf extract on its host"
            )))
        }
        Err(why) => return Err(Failure::Usage(format!("extract: -i: {why}"))),
    }
    check_path(input, Direction::Input, false)
        .map_err(|e| Failure::Usage(format!("extract: {e}")))?;
    let probed = Device::probe(input, Access::Read)
        .map_err(|e| Failure::Failed(format!("extract: -i {name}: {e}")))?;
    if let Some((device, status)) = probed {
        let policy = match getting.library {
            Some(library) => library_policy(input, manifest, library, &getting)?,
            None => getting.policy,
        };
        let guarded = (getting.guards)
            .wrap(Box::new(device), Access::Read, input)
            .map_err(|e| Failure::Failed(format!("extract: -i {e}")))?;
        let tape = TapeVolumes::new(guarded, status.is_none(), policy, manifest, getting.quiet);
        return Ok(Box::new(tape));
    }
    if getting.library.is_some() {
        return Err(Failure::Usage(format!(
            "extract: --changer: -i {name} is not a tape drive"
        )));
    }
    let names = VolumeNames::parse(input)
        .map_err(|why| Failure::Usage(format!("extract: -i {name}: {why}")))?;
    let files = FileVolumes::new(manifest, names)
        .map_err(|why| Failure::Usage(format!("extract: {why}")))?;
    Ok(Box::new(files))
}

/// The drive's change policy with the changer's loader, which fetches
/// each volume by the barcode the manifest recorded.
fn library_policy(
    input: &Path,
    manifest: &Manifest,
    library: &LibrarySettings,
    getting: &Getting<'_>,
) -> Result<ChangePolicy, Failure> {
    let mut volumes: Vec<_> = manifest.volumes.iter().collect();
    volumes.sort_by_key(|v| v.number);
    let barcodes: Option<Vec<String>> = volumes.iter().map(|v| v.barcode.clone()).collect();
    let Some(barcodes) = barcodes.filter(|b| !b.is_empty()) else {
        return Err(Failure::Usage(format!(
            "extract: --changer: the manifest names no barcode for some volume (it was not written through --changer); load the cartridges with -A or by hand, without --changer (-i {})",
            input.display()
        )));
    };
    let policy = library
        .policy_for(
            input,
            &getting.policy,
            Load::Barcodes(barcodes),
            Access::Read,
            getting.quiet,
        )
        .map_err(|why| Failure::Failed(format!("extract: {why}")))?;
    policy.ok_or_else(|| {
        Failure::Usage(format!(
            "extract: --changer: -i {} is not a tape drive",
            input.display()
        ))
    })
}
