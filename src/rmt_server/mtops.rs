//! The tape operations an `I` request may ask for, in Linux's numbering
//! (`<sys/mtio.h>`), which is what GNU tar, star and dump clients talking
//! to a Linux server send.
//!
//! Invariant: only operations in [`OPS`] reach MTIOCTOP. The list keeps
//! what backup clients and `mt` use; it leaves out operations that change
//! the driver for every user of the drive (MTSETDRVBUFFER), reformat the
//! medium into partitions (MTMKPART, MTSETPART), lock the door or run
//! self-tests.

/// One allowed operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MtOpInfo {
    /// The Linux MTIOCTOP code.
    pub code: i32,
    pub name: &'static str,
    /// True when it writes to the medium; a read-only server refuses it.
    pub writes: bool,
}

const fn op(code: i32, name: &'static str, writes: bool) -> MtOpInfo {
    MtOpInfo { code, name, writes }
}

/// Every operation the server passes on.
pub const OPS: &[MtOpInfo] = &[
    op(0, "MTRESET", false),
    op(1, "MTFSF", false),
    op(2, "MTBSF", false),
    op(3, "MTFSR", false),
    op(4, "MTBSR", false),
    op(5, "MTWEOF", true),
    op(6, "MTREW", false),
    op(7, "MTOFFL", false),
    op(8, "MTNOP", false),
    op(9, "MTRETEN", false),
    op(10, "MTBSFM", false),
    op(11, "MTFSFM", false),
    op(12, "MTEOM", false),
    op(13, "MTERASE", true),
    op(20, "MTSETBLK", false),
    op(21, "MTSETDENSITY", false),
    op(22, "MTSEEK", false),
    op(25, "MTFSS", false),
    op(26, "MTBSS", false),
    op(27, "MTWSM", true),
    op(30, "MTLOAD", false),
    op(31, "MTUNLOAD", false),
    op(32, "MTCOMPRESSION", false),
    op(35, "MTWEOFI", true),
];

/// The allowed operation with this code, if any.
pub fn lookup(code: i32) -> Option<MtOpInfo> {
    OPS.iter().copied().find(|o| o.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape::drive::mtio;

    #[test]
    fn the_codes_tapebuf_uses_agree_with_mtio() {
        for (code, name) in [
            (mtio::MTFSF, "MTFSF"),
            (mtio::MTBSF, "MTBSF"),
            (mtio::MTFSR, "MTFSR"),
            (mtio::MTBSR, "MTBSR"),
            (mtio::MTWEOF, "MTWEOF"),
            (mtio::MTREW, "MTREW"),
            (mtio::MTOFFL, "MTOFFL"),
            (mtio::MTNOP, "MTNOP"),
            (mtio::MTEOM, "MTEOM"),
            (mtio::MTSETBLK, "MTSETBLK"),
        ] {
            assert_eq!(lookup(i32::from(code)).map(|o| o.name), Some(name));
        }
    }

    #[test]
    fn leaves_out_operations_that_reconfigure_the_drive() {
        for code in [14, 15, 16, 23, 24, 28, 29, 33, 34, 36, -1, 1000] {
            assert_eq!(lookup(code), None, "op {code}");
        }
        assert!(lookup(5).unwrap().writes);
        assert!(!lookup(6).unwrap().writes);
    }
}
