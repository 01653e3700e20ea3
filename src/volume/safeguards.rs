//! What guards a local tape drive's blocks, as the user asked: logical
//! block protection (`--no-lbp`, `tape::protection`) and hardware
//! encryption (`--encrypt-key`, `--key-dir`, `tape::encryption`), and the
//! one order the drive is wrapped in for both, the protection innermost
//! so that the CRC is the drive's last word on what it was given.

use std::io;
use std::path::Path;

use crate::tape::encryption::{Encrypted, Keying};
use crate::tape::protection::{Protected, Wanted};
use crate::tape::{Access, Drive};

/// A local tape's safeguards.
#[derive(Debug, Clone, Default)]
pub struct Safeguards {
    pub lbp: Wanted,
    pub keys: Keying,
}

impl Safeguards {
    /// `device`, open for `access`, wrapped with both; errors say `path`.
    pub fn wrap(
        &self,
        device: Box<dyn Drive>,
        access: Access,
        path: &Path,
    ) -> io::Result<Box<dyn Drive>> {
        let said = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        let protected = Protected::new(device, self.lbp).map_err(said)?;
        let encrypted =
            Encrypted::new(Box::new(protected), self.keys.clone(), access).map_err(said)?;
        Ok(Box::new(encrypted))
    }
}
