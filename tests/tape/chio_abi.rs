//! The hand-written `ch` definitions (`tapebuf::tape::changer::chio`)
//! against Linux's own `<linux/chio.h>`: a small C program, compiled here
//! with the system compiler, prints the structure sizes, the offsets of
//! the fields after a padding or an array, the request numbers and the
//! constants, and every one must match what tapebuf sends to a changer.

use std::mem::{offset_of, size_of};

use tapebuf::tape::changer::chio;

use crate::mtio_abi::compile_and_run;

const PROGRAM: &str = r#"#include <stddef.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <linux/chio.h>
#define SHOW(x) printf("%s %llu\n", #x, (unsigned long long)(x))
int main(void) {
    SHOW(sizeof(struct changer_params)); SHOW(sizeof(struct changer_vendor_params));
    SHOW(sizeof(struct changer_move)); SHOW(sizeof(struct changer_exchange));
    SHOW(sizeof(struct changer_position)); SHOW(sizeof(struct changer_element_status));
    SHOW(sizeof(struct changer_get_element)); SHOW(sizeof(struct changer_set_voltag));
    SHOW(offsetof(struct changer_params, cp_ndrives));
    SHOW(offsetof(struct changer_vendor_params, cvp_n2));
    SHOW(offsetof(struct changer_vendor_params, reserved));
    SHOW(offsetof(struct changer_move, cm_flags));
    SHOW(offsetof(struct changer_exchange, ce_flags));
    SHOW(offsetof(struct changer_element_status, ces_data));
    SHOW(offsetof(struct changer_get_element, cge_srcunit));
    SHOW(offsetof(struct changer_get_element, cge_pvoltag));
    SHOW(offsetof(struct changer_get_element, cge_avoltag));
    SHOW(offsetof(struct changer_get_element, cge_flags));
    SHOW(offsetof(struct changer_set_voltag, csv_voltag));
    SHOW(offsetof(struct changer_set_voltag, csv_flags));
    SHOW(CHIOMOVE); SHOW(CHIOEXCHANGE); SHOW(CHIOPOSITION); SHOW(CHIOGPARAMS);
    SHOW(CHIOGSTATUS); SHOW(CHIOGELEM); SHOW(CHIOINITELEM); SHOW(CHIOSVOLTAG);
    SHOW(CHIOGVPARAMS);
    SHOW(CHET_MT); SHOW(CHET_ST); SHOW(CHET_IE); SHOW(CHET_DT);
    SHOW(CESTATUS_FULL); SHOW(CESTATUS_IMPEXP); SHOW(CESTATUS_EXCEPT);
    SHOW(CESTATUS_ACCESS); SHOW(CESTATUS_EXENAB); SHOW(CESTATUS_INENAB);
    SHOW(CGE_ERRNO); SHOW(CGE_INVERT); SHOW(CGE_SRC); SHOW(CGE_IDLUN);
    SHOW(CGE_PVOLTAG); SHOW(CGE_AVOLTAG);
    return 0;
}
"#;

/// `sizeof(struct $c)` and tapebuf's size of `$t`.
macro_rules! size {
    ($c:literal, $t:ty) => {
        (concat!("sizeof(struct ", $c, ")"), size_of::<$t>() as u64)
    };
}

/// `offsetof(struct $c, $f)` and tapebuf's offset of `$t::$f`.
macro_rules! off {
    ($c:literal, $t:ty, $f:ident) => {
        (
            concat!("offsetof(struct ", $c, ", ", stringify!($f), ")"),
            offset_of!($t, $f) as u64,
        )
    };
}

/// A request number or constant by its C name, and tapebuf's value.
macro_rules! num {
    ($n:ident) => {
        (stringify!($n), chio::$n as u64)
    };
}

/// tapebuf's value of each thing the program shows, in the same order.
// c_ulong is u64 only on 64-bit targets; the casts are for the others.
#[allow(clippy::unnecessary_cast)]
fn ours() -> Vec<(&'static str, u64)> {
    use chio::*;
    vec![
        size!("changer_params", ChangerParams),
        size!("changer_vendor_params", ChangerVendorParams),
        size!("changer_move", ChangerMove),
        size!("changer_exchange", ChangerExchange),
        size!("changer_position", ChangerPosition),
        size!("changer_element_status", ChangerElementStatus),
        size!("changer_get_element", ChangerGetElement),
        size!("changer_set_voltag", ChangerSetVoltag),
        off!("changer_params", ChangerParams, cp_ndrives),
        off!("changer_vendor_params", ChangerVendorParams, cvp_n2),
        off!("changer_vendor_params", ChangerVendorParams, reserved),
        off!("changer_move", ChangerMove, cm_flags),
        off!("changer_exchange", ChangerExchange, ce_flags),
        off!("changer_element_status", ChangerElementStatus, ces_data),
        off!("changer_get_element", ChangerGetElement, cge_srcunit),
        off!("changer_get_element", ChangerGetElement, cge_pvoltag),
        off!("changer_get_element", ChangerGetElement, cge_avoltag),
        off!("changer_get_element", ChangerGetElement, cge_flags),
        off!("changer_set_voltag", ChangerSetVoltag, csv_voltag),
        off!("changer_set_voltag", ChangerSetVoltag, csv_flags),
        num!(CHIOMOVE),
        num!(CHIOEXCHANGE),
        num!(CHIOPOSITION),
        num!(CHIOGPARAMS),
        num!(CHIOGSTATUS),
        num!(CHIOGELEM),
        num!(CHIOINITELEM),
        num!(CHIOSVOLTAG),
        num!(CHIOGVPARAMS),
        num!(CHET_MT),
        num!(CHET_ST),
        num!(CHET_IE),
        num!(CHET_DT),
        num!(CESTATUS_FULL),
        num!(CESTATUS_IMPEXP),
        num!(CESTATUS_EXCEPT),
        num!(CESTATUS_ACCESS),
        num!(CESTATUS_EXENAB),
        num!(CESTATUS_INENAB),
        num!(CGE_ERRNO),
        num!(CGE_INVERT),
        num!(CGE_SRC),
        num!(CGE_IDLUN),
        num!(CGE_PVOLTAG),
        num!(CGE_AVOLTAG),
    ]
}

#[test]
fn chio_layouts_numbers_and_constants_match_the_system_header() {
    let c = compile_and_run(PROGRAM);
    crate::mtio_abi::assert_same(&c, &ours());
}

/// The numbers the research measured on x86_64, so that a header and a
/// definition that drifted together would still be caught there.
#[test]
#[cfg(target_arch = "x86_64")]
fn the_request_numbers_are_the_ones_measured_on_x86_64() {
    assert_eq!(chio::CHIOMOVE, 0x4014_6301);
    assert_eq!(chio::CHIOEXCHANGE, 0x401c_6302);
    assert_eq!(chio::CHIOPOSITION, 0x400c_6303);
    assert_eq!(chio::CHIOGPARAMS, 0x8014_6306);
    assert_eq!(chio::CHIOGSTATUS, 0x4010_6308);
    assert_eq!(chio::CHIOGELEM, 0x406c_6310);
    assert_eq!(chio::CHIOINITELEM, 0x6311);
    assert_eq!(chio::CHIOSVOLTAG, 0x4030_6312);
    assert_eq!(chio::CHIOGVPARAMS, 0x8070_6313);
}
