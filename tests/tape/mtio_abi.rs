//! The hand-written mtio definitions against Linux's own `<sys/mtio.h>`:
//! a small C program, compiled here with the system compiler, prints the
//! structure sizes, request numbers and operation codes, and every one must
//! match what tapebuf sends to a real drive.

use crate::common;

use tapebuf::tape::drive::mtio;

fn c_values() -> Vec<(String, u64)> {
    compile_and_run(
        r#"#include <stddef.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mtio.h>
#define SHOW(x) printf("%s %llu\n", #x, (unsigned long long)(x))
int main(void) {
    SHOW(sizeof(struct mtop)); SHOW(sizeof(struct mtget)); SHOW(sizeof(struct mtpos));
    SHOW(offsetof(struct mtop, mt_count)); SHOW(offsetof(struct mtget, mt_gstat));
    SHOW(offsetof(struct mtget, mt_fileno)); SHOW(offsetof(struct mtget, mt_blkno));
    SHOW(offsetof(struct mtpos, mt_blkno));
    SHOW(MTIOCTOP); SHOW(MTIOCGET); SHOW(MTIOCPOS);
    SHOW(MTFSF); SHOW(MTBSF); SHOW(MTFSR); SHOW(MTBSR); SHOW(MTWEOF);
    SHOW(MTREW); SHOW(MTOFFL); SHOW(MTNOP); SHOW(MTEOM); SHOW(MTSETBLK); SHOW(MTSEEK);
    SHOW(GMT_EOF(0xffffffffL)); SHOW(GMT_BOT(0xffffffffL)); SHOW(GMT_EOT(0xffffffffL));
    SHOW(GMT_EOD(0xffffffffL)); SHOW(GMT_WR_PROT(0xffffffffL)); SHOW(GMT_ONLINE(0xffffffffL));
    SHOW(GMT_DR_OPEN(0xffffffffL)); SHOW(MT_ST_BLKSIZE_MASK);
    return 0;
}
"#,
    )
}

/// Compiles the C `program` with the system compiler, runs it, and parses
/// its "NAME VALUE" lines.
pub fn compile_and_run(program: &str) -> Vec<(String, u64)> {
    common::needs::tool("cc", "gcc libc6-dev");
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("abi.c");
    let exe = dir.path().join("abi");
    std::fs::write(&src, program).unwrap();
    let cc = crate::common::command("cc")
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("a C compiler (cc) is needed; .ci/run installs gcc");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let out = crate::common::command(&exe).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (name, value) = l.rsplit_once(' ').unwrap();
            (name.to_string(), value.parse().unwrap())
        })
        .collect()
}

#[test]
// c_ulong is u64 only on 64-bit targets; the casts are for the others.
#[allow(clippy::unnecessary_cast)]
fn mtio_layouts_and_numbers_match_the_system_header() {
    let c = c_values();
    let ours: Vec<(&str, u64)> = vec![
        (
            "sizeof(struct mtop)",
            std::mem::size_of::<mtio::MtOp>() as u64,
        ),
        (
            "sizeof(struct mtget)",
            std::mem::size_of::<mtio::MtGet>() as u64,
        ),
        (
            "sizeof(struct mtpos)",
            std::mem::size_of::<mtio::MtPos>() as u64,
        ),
        (
            "offsetof(struct mtop, mt_count)",
            std::mem::offset_of!(mtio::MtOp, mt_count) as u64,
        ),
        (
            "offsetof(struct mtget, mt_gstat)",
            std::mem::offset_of!(mtio::MtGet, mt_gstat) as u64,
        ),
        (
            "offsetof(struct mtget, mt_fileno)",
            std::mem::offset_of!(mtio::MtGet, mt_fileno) as u64,
        ),
        (
            "offsetof(struct mtget, mt_blkno)",
            std::mem::offset_of!(mtio::MtGet, mt_blkno) as u64,
        ),
        (
            "offsetof(struct mtpos, mt_blkno)",
            std::mem::offset_of!(mtio::MtPos, mt_blkno) as u64,
        ),
        ("MTIOCTOP", mtio::MTIOCTOP as u64),
        ("MTIOCGET", mtio::MTIOCGET as u64),
        ("MTIOCPOS", mtio::MTIOCPOS as u64),
        ("MTFSF", mtio::MTFSF as u64),
        ("MTBSF", mtio::MTBSF as u64),
        ("MTFSR", mtio::MTFSR as u64),
        ("MTBSR", mtio::MTBSR as u64),
        ("MTWEOF", mtio::MTWEOF as u64),
        ("MTREW", mtio::MTREW as u64),
        ("MTOFFL", mtio::MTOFFL as u64),
        ("MTNOP", mtio::MTNOP as u64),
        ("MTEOM", mtio::MTEOM as u64),
        ("MTSETBLK", mtio::MTSETBLK as u64),
        ("MTSEEK", mtio::MTSEEK as u64),
        ("GMT_EOF(0xffffffffL)", mtio::GMT_EOF as u64),
        ("GMT_BOT(0xffffffffL)", mtio::GMT_BOT as u64),
        ("GMT_EOT(0xffffffffL)", mtio::GMT_EOT as u64),
        ("GMT_EOD(0xffffffffL)", mtio::GMT_EOD as u64),
        ("GMT_WR_PROT(0xffffffffL)", mtio::GMT_WR_PROT as u64),
        ("GMT_ONLINE(0xffffffffL)", mtio::GMT_ONLINE as u64),
        ("GMT_DR_OPEN(0xffffffffL)", mtio::GMT_DR_OPEN as u64),
        ("MT_ST_BLKSIZE_MASK", mtio::MT_ST_BLKSIZE_MASK as u64),
    ];
    assert_same(&c, &ours);
}

/// The C program's names and values `c` are `ours`, in order.
pub fn assert_same(c: &[(String, u64)], ours: &[(&str, u64)]) {
    assert_eq!(c.len(), ours.len(), "{c:?}");
    for ((c_name, c_value), (name, value)) in c.iter().zip(ours) {
        assert_eq!(c_name, name);
        assert_eq!(
            *c_value, *value,
            "{name}: C says {c_value:#x}, tapebuf {value:#x}"
        );
    }
}

/// glibc's `<sys/mtio.h>` has no GMT_CLN; the kernel's `<linux/mtio.h>`,
/// which the st driver is built from, defines it.
#[test]
#[allow(clippy::unnecessary_cast)]
fn the_cleaning_bit_matches_the_kernel_header() {
    let c = compile_and_run(
        r#"#include <stdio.h>
#include <linux/mtio.h>
int main(void) {
    printf("GMT_CLN %llu\n", (unsigned long long)GMT_CLN(0xffffffffL));
    return 0;
}
"#,
    );
    assert_eq!(c, vec![("GMT_CLN".to_string(), mtio::GMT_CLN as u64)]);
}
