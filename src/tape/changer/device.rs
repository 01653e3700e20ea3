//! The real changer: a `/dev/schN` node of the Linux `ch` driver, driven
//! through its ioctls (`chio.rs`). Every ioctl's result is checked, and the
//! few errnos the driver makes from sense data are turned into the typed
//! errors a caller branches on: EBADE (source empty), EXFULL (destination
//! full), EBADSLT and EINVAL (no such element). The driver gives no other
//! sense data to the caller: a robot error, a door open, is EIO. `ch` also
//! makes EBADE of "import/export element accessed" (28/01), so a
//! `SlotEmpty` from a move that involves a portal may mean that instead.
//! Elements are checked against the counts before a move, so that the
//! refusal names the element that is missing.

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

/// A changer on a `ch` device node.
#[derive(Debug)]
pub struct Changer {
    file: File,
    path: PathBuf,
}

impl Changer {
    /// Opens the changer at `path`, and asks it its counts to make sure it
    /// is one. Opening never waits for a medium. A node this user may only
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
        let changer = Changer {
            file,
            path: path.to_path_buf(),
        };
        if let Err(source) = chio::params(changer.file.as_fd()) {
            return Err(ChangerError::NotAChanger {
                path: path.to_path_buf(),
                source,
            });
        }
        Ok(changer)
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
        chio::params(self.file.as_fd())
            .map(|raw| Params::from_chio(&raw))
            .map_err(|e| {
                ChangerError::io(format!("{}: reading the counts", self.path.display()), e)
            })
    }

    fn elements(&mut self, kind: ElementKind) -> Result<Vec<Element>, ChangerError> {
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
        _ => ChangerError::io(
            format!("{}: moving the medium in {from} to {to}", path.display()),
            e,
        ),
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
}
