//! The real changer: a `/dev/schN` node of the Linux `ch` driver (or the
//! changer's `/dev/sgN`), driven one of two ways, chosen at open. When the
//! kernel lets this process send SMC commands itself over SG_IO (root, or
//! CAP_SYS_RAWIO: a harmless READ ELEMENT STATUS of one element works),
//! `scsi.rs` does: whole kinds in one command, barcodes, drives' device
//! identifiers, and the library's sense data in words when a move fails.
//! Otherwise (the kernel's filter answers EPERM) the `ch` driver's ioctls
//! (`chio.rs`) do, as for any user in group `tape`: every ioctl's result is
//! checked, and the few errnos the driver makes from sense data are turned
//! into the typed errors a caller branches on: EBADE (source empty),
//! EXFULL (destination full), EBADSLT and EINVAL (no such element). The
//! driver gives no other sense data to the caller: a robot error, a door
//! open, is EIO. `ch` also makes EBADE of "import/export element accessed"
//! (28/01), so a `SlotEmpty` from a move that involves a portal may mean
//! that instead. Elements are checked against the counts before a move,
//! so that the refusal names the element that is missing. Neither way
//! locks the library against other programs; the loader serialises this
//! run's moves.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use libc::c_int;

use super::chio;
use super::element::{Element, ElementAddress, ElementKind, Params};
use super::error::ChangerError;
use super::medium_changer::MediumChanger;
use super::scsi::{self, Scsi};
use crate::tape::scsi::sg_io::ScsiError;

/// A changer on a `ch` (or sg) device node.
#[derive(Debug)]
pub struct Changer {
    file: File,
    path: PathBuf,
    /// The SCSI back end, when the kernel lets this process use it;
    /// `None` for `ch`'s ioctls.
    scsi: Option<Scsi>,
}

impl Changer {
    /// Opens the changer at `path` and makes sure it is one: over SG_IO
    /// (its element address page, and one element's status), else through
    /// `ch` (its counts). Opening never waits for a medium. A node this user may only
    /// read is opened for reading: `ch` itself asks for no write access,
    /// and the inventory needs none.
    pub fn open(path: &Path) -> Result<Changer, ChangerError> {
        let open = |write| {
            OpenOptions::new()
                .read(true)
                .write(write)
                .custom_flags(libc::O_NONBLOCK)
                .open(path)
        };
        let file = match open(true) {
            Err(e) if e.raw_os_error() == Some(libc::EACCES) => open(false),
            opened => opened,
        }
        .map_err(|e| ChangerError::io(format!("opening {}", path.display()), e))?;
        let scsi = match Scsi::probe(&mut file.as_fd()) {
            Ok(scsi) => Some(scsi),
            Err(refused) => match chio::params(file.as_fd()) {
                Ok(_) => None,
                Err(source) => {
                    return Err(ChangerError::NotAChanger {
                        path: path.to_path_buf(),
                        source: not_a_changer(source, &refused),
                    })
                }
            },
        };
        Ok(Changer {
            file,
            path: path.to_path_buf(),
            scsi,
        })
    }

    /// Whether this changer is driven over SG_IO (drives' identifiers and
    /// the library's sense data come with it), not through `ch`'s ioctls.
    pub fn over_sg_io(&self) -> bool {
        self.scsi.is_some()
    }

    /// The path it was opened at.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `address` as the driver's type and unit, if it fits in its int.
    fn unit(address: ElementAddress) -> Result<(c_int, c_int), ChangerError> {
        let unit =
            c_int::try_from(address.index).map_err(|_| ChangerError::NoSuchElement { address })?;
        Ok((address.kind.chet(), unit))
    }

    /// Reads element `address`.
    fn element(&self, address: ElementAddress) -> Result<Element, ChangerError> {
        let (kind, unit) = Self::unit(address)?;
        let mut raw = chio::ChangerGetElement::request(kind, unit);
        match chio::get_element(self.file.as_fd(), &mut raw) {
            Ok(()) => Ok(Element::from_chio(address, &raw)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                Err(ChangerError::NoSuchElement { address })
            }
            Err(e) => Err(ChangerError::io(
                format!("{}: reading the state of {address}", self.path.display()),
                e,
            )),
        }
    }

    /// Refuses `address` unless the changer has it.
    fn check(&self, params: &Params, address: ElementAddress) -> Result<(), ChangerError> {
        if address.index < params.count(address.kind) {
            Ok(())
        } else {
            Err(ChangerError::NoSuchElement { address })
        }
    }
}

impl MediumChanger for Changer {
    fn params(&mut self) -> Result<Params, ChangerError> {
        if let Some(scsi) = &self.scsi {
            return Ok(scsi.params());
        }
        chio::params(self.file.as_fd())
            .map(|raw| Params::from_chio(&raw))
            .map_err(|e| {
                ChangerError::io(format!("{}: reading the counts", self.path.display()), e)
            })
    }

    fn elements(&mut self, kind: ElementKind) -> Result<Vec<Element>, ChangerError> {
        if let Some(scsi) = &mut self.scsi {
            return scsi.elements(&mut self.file.as_fd(), &self.path, kind);
        }
        let count = self.params()?.count(kind);
        (0..count)
            .map(|index| self.element(ElementAddress { kind, index }))
            .collect()
    }

    fn move_medium(
        &mut self,
        from: ElementAddress,
        to: ElementAddress,
    ) -> Result<(), ChangerError> {
        let params = self.params()?;
        self.check(&params, from)?;
        self.check(&params, to)?;
        if let Some(scsi) = &self.scsi {
            return scsi.move_medium(&mut self.file.as_fd(), &self.path, from, to);
        }
        let (from_type, from_unit) = Self::unit(from)?;
        let (to_type, to_unit) = Self::unit(to)?;
        let request = chio::ChangerMove {
            cm_fromtype: from_type,
            cm_fromunit: from_unit,
            cm_totype: to_type,
            cm_tounit: to_unit,
            cm_flags: 0,
        };
        chio::move_medium(self.file.as_fd(), &request)
            .map_err(|e| move_error(&self.path, from, to, e))
    }
}

/// The typed error for a failed CHIOMOVE from `from` to `to`.
fn move_error(path: &Path, from: ElementAddress, to: ElementAddress, e: io::Error) -> ChangerError {
    match e.raw_os_error() {
        Some(libc::EBADE) => ChangerError::SlotEmpty { from },
        Some(libc::EXFULL) => ChangerError::DestinationFull { to },
        Some(libc::EBADSLT) => ChangerError::NoSuchElement { address: from },
        _ => ChangerError::io(scsi::moving(path, from, to), e),
    }
}

/// Why a node that answers neither SG_IO's READ ELEMENT STATUS nor `ch`'s
/// ioctls is no changer: `ch`'s error, and the kernel's refusal of SG_IO
/// when there was one (an sg node needs CAP_SYS_RAWIO).
fn not_a_changer(chio: io::Error, scsi: &ScsiError) -> io::Error {
    if scsi.is_refused_by_kernel() {
        io::Error::new(
            chio.kind(),
            format!(
                "{chio}; READ ELEMENT STATUS over SG_IO was refused ({scsi}): \
                 it needs root or CAP_SYS_RAWIO, or use the changer's /dev/schN"
            ),
        )
    } else {
        chio
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_not_a_changer() {
        let f = tempfile::NamedTempFile::new().unwrap();
        match Changer::open(f.path()) {
            Err(ChangerError::NotAChanger { path, .. }) => assert_eq!(path, f.path()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn dev_null_is_not_a_changer() {
        let err = Changer::open(Path::new("/dev/null")).unwrap_err();
        assert!(matches!(err, ChangerError::NotAChanger { .. }), "{err}");
    }

    #[test]
    fn a_path_that_does_not_open_is_an_io_error_naming_it() {
        let err = Changer::open(Path::new("/nonexistent/sch9")).unwrap_err();
        assert!(matches!(err, ChangerError::Io { .. }), "{err}");
        assert!(err.to_string().contains("/nonexistent/sch9"), "{err}");
    }

    #[test]
    fn the_drivers_errnos_become_typed_move_errors() {
        let p = Path::new("/dev/sch0");
        let (from, to) = (ElementAddress::slot(0), ElementAddress::drive(1));
        let err = |n| move_error(p, from, to, io::Error::from_raw_os_error(n));
        assert!(matches!(err(libc::EBADE), ChangerError::SlotEmpty { from: f } if f == from));
        assert!(matches!(err(libc::EXFULL), ChangerError::DestinationFull { to: t } if t == to));
        assert!(matches!(
            err(libc::EBADSLT),
            ChangerError::NoSuchElement { .. }
        ));
        let io = err(libc::EIO).to_string();
        assert!(
            io.contains("moving the medium in slot 1 to drive 1"),
            "{io}"
        );
    }

    #[test]
    fn a_node_refusing_sg_io_and_ch_says_which_capability_is_missing() {
        let chio = io::Error::from_raw_os_error(libc::ENOTTY);
        let eperm = ScsiError::Ioctl(io::Error::from_raw_os_error(libc::EPERM));
        let why = not_a_changer(chio, &eperm).to_string();
        assert!(why.contains("CAP_SYS_RAWIO"), "{why}");
        assert!(why.contains("/dev/schN"), "{why}");
        let chio = io::Error::from_raw_os_error(libc::ENOTTY);
        let enotty = ScsiError::Ioctl(io::Error::from_raw_os_error(libc::ENOTTY));
        let why = not_a_changer(chio, &enotty);
        assert_eq!(why.raw_os_error(), Some(libc::ENOTTY));
    }

    #[test]
    fn a_plain_file_is_driven_by_neither_back_end() {
        // SG_IO answers ENOTTY on a file, so no SCSI back end is chosen.
        let f = tempfile::NamedTempFile::new().unwrap();
        let err = Changer::open(f.path()).unwrap_err().to_string();
        assert!(!err.contains("CAP_SYS_RAWIO"), "{err}");
    }
}
