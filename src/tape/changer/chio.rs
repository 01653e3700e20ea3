//! The Linux `ch` driver's ioctls (`<linux/chio.h>`), which neither libc
//! nor nix define: the structures, the request numbers and the constants,
//! written by hand from the header. This is the only module that talks to
//! `ch`; every structure's size is checked at compile time against the
//! x86_64 sizes the header gives, and `tests/tape/chio_abi.rs` compiles a C
//! program against the system header and checks every size, offset and
//! number here against it.
//!
//! Units are 0-based within an element type: the driver adds the type's
//! first SCSI element address itself. CHIOGELEM is declared `_IOW` although
//! the driver writes the structure back; the number is used as the header
//! makes it, and the call passes a pointer the kernel may write through.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

use libc::{c_char, c_int, c_ulong};

/// Element types, the `*_type` fields (`CHET_*`): the robot that moves
/// media, a storage slot, an import/export slot, a drive.
pub const CHET_MT: c_int = 0;
pub const CHET_ST: c_int = 1;
pub const CHET_IE: c_int = 2;
pub const CHET_DT: c_int = 3;

/// Bits of an element's status byte (`CESTATUS_*`).
pub const CESTATUS_FULL: u8 = 0x01;
/// Put in by the operator through an import/export slot.
pub const CESTATUS_IMPEXP: u8 = 0x02;
/// The element is in an abnormal state.
pub const CESTATUS_EXCEPT: u8 = 0x04;
/// The robot can reach the element.
pub const CESTATUS_ACCESS: u8 = 0x08;
pub const CESTATUS_EXENAB: u8 = 0x10;
pub const CESTATUS_INENAB: u8 = 0x20;

/// Bits of `cge_flags` (`CGE_*`): which out fields the driver filled.
pub const CGE_ERRNO: c_int = 0x01;
pub const CGE_INVERT: c_int = 0x02;
pub const CGE_SRC: c_int = 0x04;
pub const CGE_IDLUN: c_int = 0x08;
pub const CGE_PVOLTAG: c_int = 0x10;
pub const CGE_AVOLTAG: c_int = 0x20;

/// Bytes of a volume tag field: 32 characters, space padded, then two
/// reserved bytes and a two-byte sequence number.
pub const VOLTAG_BYTES: usize = 36;

/// `struct changer_params`: how many elements of each type.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ChangerParams {
    pub cp_curpicker: c_int,
    pub cp_npickers: c_int,
    pub cp_nslots: c_int,
    pub cp_nportals: c_int,
    pub cp_ndrives: c_int,
}

/// `struct changer_vendor_params`: the vendor-specific element types, from
/// the module's parameters only.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ChangerVendorParams {
    pub cvp_n1: c_int,
    pub cvp_label1: [c_char; 16],
    pub cvp_n2: c_int,
    pub cvp_label2: [c_char; 16],
    pub cvp_n3: c_int,
    pub cvp_label3: [c_char; 16],
    pub cvp_n4: c_int,
    pub cvp_label4: [c_char; 16],
    pub reserved: [c_int; 8],
}

/// `struct changer_move`: move the medium in one element to another.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ChangerMove {
    pub cm_fromtype: c_int,
    pub cm_fromunit: c_int,
    pub cm_totype: c_int,
    pub cm_tounit: c_int,
    pub cm_flags: c_int,
}

/// `struct changer_exchange`: #1 goes to #2, #2 goes to #3.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ChangerExchange {
    pub ce_srctype: c_int,
    pub ce_srcunit: c_int,
    pub ce_fdsttype: c_int,
    pub ce_fdstunit: c_int,
    pub ce_sdsttype: c_int,
    pub ce_sdstunit: c_int,
    pub ce_flags: c_int,
}

/// `struct changer_position`: move the robot in front of an element.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ChangerPosition {
    pub cp_type: c_int,
    pub cp_unit: c_int,
    pub cp_flags: c_int,
}

/// `struct changer_element_status`: one status byte per element of a type,
/// written into the caller's array.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ChangerElementStatus {
    pub ces_type: c_int,
    pub ces_data: *mut u8,
}

/// `struct changer_get_element`: one element's status, source and tags.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ChangerGetElement {
    pub cge_type: c_int,
    pub cge_unit: c_int,
    pub cge_status: c_int,
    pub cge_errno: c_int,
    pub cge_srctype: c_int,
    pub cge_srcunit: c_int,
    pub cge_id: c_int,
    pub cge_lun: c_int,
    pub cge_pvoltag: [c_char; VOLTAG_BYTES],
    pub cge_avoltag: [c_char; VOLTAG_BYTES],
    pub cge_flags: c_int,
}

impl ChangerGetElement {
    /// A request for unit `unit` of type `kind`, every out field zero (the
    /// driver leaves `cge_errno` alone unless the element is in exception).
    pub fn request(kind: c_int, unit: c_int) -> Self {
        ChangerGetElement {
            cge_type: kind,
            cge_unit: unit,
            cge_status: 0,
            cge_errno: 0,
            cge_srctype: 0,
            cge_srcunit: 0,
            cge_id: 0,
            cge_lun: 0,
            cge_pvoltag: [0; VOLTAG_BYTES],
            cge_avoltag: [0; VOLTAG_BYTES],
            cge_flags: 0,
        }
    }
}

/// `struct changer_set_voltag`: write or clear a volume tag.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ChangerSetVoltag {
    pub csv_type: c_int,
    pub csv_unit: c_int,
    pub csv_voltag: [c_char; VOLTAG_BYTES],
    pub csv_flags: c_int,
}

// The sizes <linux/chio.h> gives on Linux (x86_64 measured; every field is
// an int or a char array, so they hold on any Linux target with a 32-bit
// int, except the one structure with a pointer).
const _: () = assert!(size_of::<ChangerParams>() == 20);
const _: () = assert!(size_of::<ChangerVendorParams>() == 112);
const _: () = assert!(size_of::<ChangerMove>() == 20);
const _: () = assert!(size_of::<ChangerExchange>() == 28);
const _: () = assert!(size_of::<ChangerPosition>() == 12);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<ChangerElementStatus>() == 16);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<ChangerElementStatus>() == 8);
const _: () = assert!(size_of::<ChangerGetElement>() == 108);
const _: () = assert!(size_of::<ChangerSetVoltag>() == 48);

/// `CHIOMOVE`, `_IOW('c', 1, struct changer_move)`.
pub const CHIOMOVE: c_ulong =
    nix::request_code_write!(b'c', 1, size_of::<ChangerMove>()) as c_ulong;
/// `CHIOEXCHANGE`, `_IOW('c', 2, struct changer_exchange)`.
pub const CHIOEXCHANGE: c_ulong =
    nix::request_code_write!(b'c', 2, size_of::<ChangerExchange>()) as c_ulong;
/// `CHIOPOSITION`, `_IOW('c', 3, struct changer_position)`.
pub const CHIOPOSITION: c_ulong =
    nix::request_code_write!(b'c', 3, size_of::<ChangerPosition>()) as c_ulong;
/// `CHIOGPARAMS`, `_IOR('c', 6, struct changer_params)`.
pub const CHIOGPARAMS: c_ulong =
    nix::request_code_read!(b'c', 6, size_of::<ChangerParams>()) as c_ulong;
/// `CHIOGSTATUS`, `_IOW('c', 8, struct changer_element_status)`.
pub const CHIOGSTATUS: c_ulong =
    nix::request_code_write!(b'c', 8, size_of::<ChangerElementStatus>()) as c_ulong;
/// `CHIOGELEM`, `_IOW('c', 16, struct changer_get_element)`; the driver
/// writes the structure back all the same.
pub const CHIOGELEM: c_ulong =
    nix::request_code_write!(b'c', 16, size_of::<ChangerGetElement>()) as c_ulong;
/// `CHIOINITELEM`, `_IO('c', 17)`.
pub const CHIOINITELEM: c_ulong = nix::request_code_none!(b'c', 17) as c_ulong;
/// `CHIOSVOLTAG`, `_IOW('c', 18, struct changer_set_voltag)`.
pub const CHIOSVOLTAG: c_ulong =
    nix::request_code_write!(b'c', 18, size_of::<ChangerSetVoltag>()) as c_ulong;
/// `CHIOGVPARAMS`, `_IOR('c', 19, struct changer_vendor_params)`.
pub const CHIOGVPARAMS: c_ulong =
    nix::request_code_read!(b'c', 19, size_of::<ChangerVendorParams>()) as c_ulong;

/// The result of an ioctl: its error when it returned below zero.
fn checked(r: c_int) -> io::Result<()> {
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Reads the element counts. Fails (ENOTTY, EINVAL) on anything that is
/// not a `ch` device, which is how a changer is recognised.
pub fn params(fd: BorrowedFd<'_>) -> io::Result<ChangerParams> {
    let mut out = ChangerParams::default();
    // SAFETY: CHIOGPARAMS writes one `struct changer_params` into `out`,
    // which has its C layout (checked above and by tests/tape/chio_abi.rs);
    // `fd` is open.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), CHIOGPARAMS as _, &mut out as *mut _) };
    checked(r).map(|()| out)
}

/// Reads one element's status, source and volume tags into `element`,
/// whose type and unit say which.
pub fn get_element(fd: BorrowedFd<'_>, element: &mut ChangerGetElement) -> io::Result<()> {
    // SAFETY: CHIOGELEM reads and writes one `struct changer_get_element`,
    // which `element` is, with its C layout; `fd` is open.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), CHIOGELEM as _, element as *mut _) };
    checked(r)
}

/// Moves a medium as `request` says; returns when the robot is done.
pub fn move_medium(fd: BorrowedFd<'_>, request: &ChangerMove) -> io::Result<()> {
    // SAFETY: CHIOMOVE reads one `struct changer_move`, which `request`
    // is, with its C layout; `fd` is open.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), CHIOMOVE as _, request as *const _) };
    checked(r)
}
