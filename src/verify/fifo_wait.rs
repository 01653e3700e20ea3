//! A FIFO given as verify's `-i` that no program ever opens for writing
//! would hold verify in open(2) for ever. Verify is often run from cron
//! against a path that a restore script may or may not be feeding, so the
//! open is watched: when the input is a FIFO and the open has not returned
//! within the limit (`--timeout`, else `DEFAULT_LIMIT`), one line says so
//! and verify ends with status 1. A FIFO with a writer (process
//! substitution, `<(ssh host cat vol)`) opens at once and is read as
//! before. Verify writes nothing, so ending the process there leaves
//! nothing half-made.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::time::Duration;

use crossbeam_channel::{bounded, RecvTimeoutError, Sender};

use crate::base::console::{message, say};
use crate::base::exit::FAILURE;

/// How long a FIFO's writer is waited for when `--timeout` is not given.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(60);

/// Watches one open; dropping it says the open returned.
pub struct OpenWatch {
    _opened: Option<Sender<()>>,
}

impl OpenWatch {
    /// Starts watching the open of `path` when it is a FIFO; otherwise
    /// watches nothing (a file or a device opens without waiting for a
    /// peer, and a tape's waits have their own limits).
    pub fn start(path: Option<&Path>, limit: Duration) -> OpenWatch {
        let Some(path) =
            path.filter(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_fifo()))
        else {
            return OpenWatch { _opened: None };
        };
        let (opened, wait) = bounded::<()>(0);
        let name = path.display().to_string();
        let _ = crate::base::thread::spawn("fifo-wait", move || {
            if let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(limit) {
                say(&message!(
                    "verify: -i {name}: a FIFO that no program opened for writing in {} s; nothing was read (--timeout sets the wait)",
                    limit.as_secs()
                ));
                std::process::exit(FAILURE);
            }
        });
        OpenWatch {
            _opened: Some(opened),
        }
    }
}
