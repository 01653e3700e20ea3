//! Turning a drive's logical block protection on and off, through its
//! SCSI commands (`Drive::scsi_command`): which methods it offers (VPD
//! page 0xB5), the control data protection mode page as it holds it
//! (MODE SENSE), and the page sent back with a method or none (MODE
//! SELECT), then read again to see that the drive took it.
//!
//! A drive that has no page 0xB5 or no such mode page (ILLEGAL REQUEST,
//! as drives before LTO-5 answer) offers nothing; so does one whose SCSI
//! commands the kernel will not pass (no CAP_SYS_RAWIO, no sg node), and
//! `Offer::why_none` says which. Every other failure is an error.

use std::time::Duration;

use crate::tape::drive::Drive;
use crate::tape::scsi::pages::protection::{
    offered, Method, ProtectionPage, MODE_PAGE, SUBPAGE, VPD_PAGE,
};
use crate::tape::scsi::sg_io::{Data, ScsiError};
use crate::tape::scsi::spc;

/// What a drive offers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Offer {
    /// Ascending; the last is the one used.
    pub methods: Vec<Method>,
    /// When `methods` is empty: why, as a clause ("the drive does not
    /// offer it").
    pub why_none: Option<String>,
}

impl Offer {
    pub fn best(&self) -> Option<Method> {
        self.methods.last().copied()
    }

    fn none(why: impl Into<String>) -> Offer {
        Offer {
            methods: Vec::new(),
            why_none: Some(why.into()),
        }
    }
}

/// Why protection could not be set as asked.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("reading its control data protection mode page: {0}")]
    Sense(ScsiError),
    #[error("setting its control data protection mode page: {0}")]
    Select(ScsiError),
    #[error("it took the control data protection mode page but reads back {got}, not {wanted}")]
    NotTaken { wanted: String, got: String },
}

/// How long the drive may take; a mode change waits for nothing on tape.
const TIMEOUT: Duration = spc::MODE_TIMEOUT;
/// Room for the mode page with a header and a block descriptor or two.
const SENSE_BYTES: u16 = 128;

/// What `drive` offers: the methods of VPD page 0xB5 for which it also
/// answers the mode page.
pub fn offer(drive: &mut dyn Drive) -> Offer {
    let mut page = vec![0u8; usize::from(spc::INQUIRY_BYTES)];
    let cdb = spc::inquiry_vpd(VPD_PAGE, spc::INQUIRY_BYTES);
    let got = match drive.scsi_command(&cdb, Data::In(&mut page), spc::INQUIRY_TIMEOUT) {
        Ok(got) => got,
        Err(e) if e.is_illegal_request() => return Offer::none("the drive does not offer it"),
        Err(e) => return Offer::none(format!("its SCSI commands did not reach it ({e})")),
    };
    let methods = offered(&page[..got]);
    if methods.is_empty() {
        return Offer::none("the drive offers no method tapebuf has");
    }
    match current(drive) {
        Ok(Some(_)) => Offer {
            methods,
            why_none: None,
        },
        Ok(None) => Offer::none("the drive lists it but has no control data protection mode page"),
        Err(e) => Offer::none(format!("its mode page could not be read ({e})")),
    }
}

/// The drive's control data protection page; None when it has none.
pub fn current(drive: &mut dyn Drive) -> Result<Option<ProtectionPage>, SetupError> {
    let mut reply = vec![0u8; usize::from(SENSE_BYTES)];
    let cdb = spc::mode_sense(MODE_PAGE, SUBPAGE, SENSE_BYTES);
    match drive.scsi_command(&cdb, Data::In(&mut reply), TIMEOUT) {
        Ok(got) => Ok(ProtectionPage::parse(&reply[..got])),
        Err(e) if e.is_illegal_request() => Ok(None),
        Err(e) => Err(SetupError::Sense(e)),
    }
}

/// Sets `method` on for writing and reading, or (None) protection off,
/// and reads the page back to see the drive took it. A drive without the
/// page is left as it is when `method` is None.
pub fn set(drive: &mut dyn Drive, method: Option<Method>) -> Result<(), SetupError> {
    let Some(page) = current(drive)? else {
        return match method {
            None => Ok(()),
            Some(m) => Err(SetupError::NotTaken {
                wanted: m.name().into(),
                got: "no such page".into(),
            }),
        };
    };
    if page.holds(method) {
        return Ok(());
    }
    let list = page.with(method).select_list();
    let cdb = spc::mode_select(list.len() as u16);
    drive
        .scsi_command(&cdb, Data::Out(&list), TIMEOUT)
        .map_err(SetupError::Select)?;
    let back = current(drive)?;
    let took = back.is_some_and(|p| p.holds(method));
    if !took {
        return Err(SetupError::NotTaken {
            wanted: method.map_or("off", Method::name).into(),
            got: back.map_or("no page".into(), |p| p.describe()),
        });
    }
    Ok(())
}
