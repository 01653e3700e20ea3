//! `look` and `identify` against a drive written in code: a map from
//! CDB to reply or error, which also records the commands it was sent.

use std::collections::HashMap;
use std::io;

use super::*;
use crate::tape::changer::inquiry_serial;
use crate::tape::scsi::pages::fixtures;
use crate::tape::scsi::pages::identity::unit_serial;
use crate::tape::scsi::sg_io::Sense;

/// What the fake drive answers a CDB with.
enum Reply {
    Bytes(Vec<u8>),
    Sense(u8, u8, u8),
    Errno(i32),
    /// A failure without sense, as a timeout is.
    Status,
}

/// A drive answering CDBs from a map; a CDB not in it gets `otherwise`.
struct FakeDrive {
    replies: HashMap<Vec<u8>, Reply>,
    otherwise: fn() -> Reply,
    sent: Vec<Vec<u8>>,
}

impl FakeDrive {
    fn new(otherwise: fn() -> Reply) -> FakeDrive {
        FakeDrive {
            replies: HashMap::new(),
            otherwise,
            sent: Vec::new(),
        }
    }

    fn answer(mut self, cdb: Vec<u8>, reply: Reply) -> FakeDrive {
        self.replies.insert(cdb, reply);
        self
    }

    /// The LOG SENSE pages asked for, in order.
    fn pages_asked(&self) -> Vec<u8> {
        self.sent
            .iter()
            .filter(|c| c[0] == 0x4d)
            .map(|c| c[2] & 0x3f)
            .collect()
    }
}

fn illegal_request() -> Reply {
    Reply::Sense(0x05, 0x24, 0x00)
}

impl Commands for FakeDrive {
    fn command(
        &mut self,
        cdb: &[u8],
        data: Data<'_>,
        _timeout: Duration,
    ) -> Result<usize, ScsiError> {
        self.sent.push(cdb.to_vec());
        let otherwise = (self.otherwise)();
        let reply = self.replies.get(cdb).unwrap_or(&otherwise);
        let Data::In(buffer) = data else {
            panic!("the health look only reads");
        };
        match reply {
            Reply::Bytes(bytes) => {
                let n = bytes.len().min(buffer.len());
                buffer[..n].copy_from_slice(&bytes[..n]);
                Ok(n)
            }
            Reply::Sense(key, asc, ascq) => Err(ScsiError::Check(Sense {
                key: *key,
                asc: *asc,
                ascq: *ascq,
            })),
            Reply::Errno(errno) => Err(ScsiError::Ioctl(io::Error::from_raw_os_error(*errno))),
            Reply::Status => Err(ScsiError::Status {
                status: 0,
                host: 0x0003,
                driver: 0,
            }),
        }
    }
}

fn log_sense_cdb(page: u8) -> Vec<u8> {
    spc::log_sense(page, 8 * 1024).to_vec()
}

fn read_attribute_cdb() -> Vec<u8> {
    spc::read_attribute(16 * 1024).to_vec()
}

/// The lab's drive with a cartridge in, every page there.
fn mhvtl_drive() -> FakeDrive {
    FakeDrive::new(illegal_request)
        .answer(
            log_sense_cdb(0x00),
            Reply::Bytes(fixtures::supported_pages()),
        )
        .answer(
            log_sense_cdb(0x02),
            Reply::Bytes(fixtures::error_counters(0x02, [5, 0, 12, 5, 0, 1 << 30, 0])),
        )
        .answer(
            log_sense_cdb(0x03),
            Reply::Bytes(fixtures::error_counters(0x03, [1, 0, 2, 1, 0, 1 << 20, 0])),
        )
        .answer(
            log_sense_cdb(0x17),
            Reply::Bytes(fixtures::volume_statistics(4, [10, 20], [2_500_000, 300])),
        )
        .answer(
            log_sense_cdb(0x32),
            Reply::Bytes(fixtures::compression(0x32, [100, 200], [(1, 0); 4])),
        )
        .answer(
            log_sense_cdb(0x2e),
            Reply::Bytes(fixtures::tape_alerts(&[3, 20])),
        )
        .answer(
            read_attribute_cdb(),
            Reply::Bytes(fixtures::mam(7, [0, 0], [2_384_185, 2_000_000])),
        )
}

#[test]
fn a_look_at_a_drive_with_every_page_fills_every_field() {
    let mut drive = mhvtl_drive();
    let s = look(&mut drive);
    assert_eq!(s.unreadable, None);
    assert_eq!(
        s.pages,
        log_page::supported(&fixtures::supported_pages()).unwrap()
    );
    assert_eq!(s.write_errors.unwrap().retries, Some(12));
    assert_eq!(s.read_errors.unwrap().corrected, Some(1));
    assert_eq!(s.volume.as_ref().unwrap().mounts, Some(4));
    assert_eq!(s.compression.unwrap().write_ratio_percent, Some(200));
    assert_eq!(s.alerts.flags().collect::<Vec<_>>(), vec![3, 20]);
    assert_eq!(s.mam.unwrap().barcode.as_deref(), Some("E01001L6"));
    // Only pages the drive listed: not 0x1B, which mhvtl lacks.
    assert_eq!(
        drive.pages_asked(),
        vec![0x00, 0x02, 0x03, 0x17, 0x32, 0x2e]
    );
    assert_eq!(drive.sent.last().unwrap()[0], 0x8c);
}

#[test]
fn the_ssc_compression_page_is_preferred_when_listed() {
    let mut pages = fixtures::supported_pages();
    pages.push(0x1b);
    pages[3] += 1;
    let mut drive = mhvtl_drive()
        .answer(log_sense_cdb(0x00), Reply::Bytes(pages))
        .answer(
            log_sense_cdb(0x1b),
            Reply::Bytes(fixtures::compression(0x1b, [150, 300], [(2, 0); 4])),
        );
    let s = look(&mut drive);
    assert_eq!(s.compression.unwrap().write_ratio_percent, Some(300));
    assert!(!drive.pages_asked().contains(&0x32));
}

#[test]
fn a_drive_with_no_log_pages_gives_no_counters_and_is_not_unreadable() {
    let mut drive = FakeDrive::new(illegal_request).answer(
        read_attribute_cdb(),
        Reply::Bytes(fixtures::mam(1, [0, 0], [1, 1])),
    );
    let s = look(&mut drive);
    assert_eq!(s.unreadable, None);
    assert!(s.pages.is_empty());
    assert_eq!(
        (s.write_errors, s.read_errors, s.compression),
        (None, None, None)
    );
    assert_eq!(s.volume, None);
    assert!(s.alerts.is_empty());
    assert!(s.mam.is_some());
    // Page 0x00 refused: every page tried anyway.
    assert_eq!(
        drive.pages_asked(),
        vec![0x00, 0x02, 0x03, 0x17, 0x1b, 0x32, 0x2e]
    );
}

#[test]
fn a_supported_pages_page_that_times_out_skips_the_log_pages() {
    let mut drive = mhvtl_drive().answer(log_sense_cdb(0x00), Reply::Status);
    let s = look(&mut drive);
    assert_eq!(drive.pages_asked(), vec![0x00]);
    assert_eq!((s.write_errors, s.unreadable), (None, None));
    assert!(s.mam.is_some());
}

#[test]
fn a_kernel_refusal_stops_the_look_with_the_reason() {
    let mut drive = FakeDrive::new(|| Reply::Errno(libc::EPERM));
    let s = look(&mut drive);
    let why = s.unreadable.unwrap();
    assert!(why.contains("the kernel refused SG_IO"), "{why}");
    assert!(
        why.contains("LOG SENSE") && why.contains("CAP_SYS_RAWIO"),
        "{why}"
    );
    assert!(!why.contains('\n'));
    assert_eq!(drive.sent.len(), 1);
    assert_eq!(s.mam, None);
}

#[test]
fn a_node_that_takes_no_scsi_commands_is_unreadable() {
    let mut drive = FakeDrive::new(|| Reply::Errno(libc::ENOTTY));
    let s = look(&mut drive);
    assert!(s.unreadable.unwrap().contains("no SCSI commands"));
    assert_eq!(drive.sent.len(), 1);
}

#[test]
fn a_refusal_of_read_attribute_alone_keeps_the_pages_read() {
    let mut drive = mhvtl_drive().answer(read_attribute_cdb(), Reply::Errno(libc::EACCES));
    let s = look(&mut drive);
    assert_eq!(s.unreadable, None, "the pages were read");
    assert!(s.memory_unread.unwrap().contains("READ ATTRIBUTE"));
    assert!(s.write_errors.is_some());
    assert_eq!(s.mam, None);
}

#[test]
fn no_cartridge_leaves_the_mam_out() {
    let mut drive = mhvtl_drive().answer(read_attribute_cdb(), Reply::Sense(0x02, 0x3a, 0x00));
    let s = look(&mut drive);
    assert_eq!(s.mam, None);
    assert_eq!(s.unreadable, None);
    assert_eq!(
        s.memory_unread.as_deref(),
        Some("not ready: medium not present (sense 02/3A/00)"),
        "the drive's sense, decoded"
    );
    assert!(s.volume.is_some());
}

#[test]
fn a_unit_attention_is_answered_by_asking_once_more() {
    struct Attention {
        drive: FakeDrive,
        first: bool,
    }
    impl Commands for Attention {
        fn command(&mut self, cdb: &[u8], data: Data<'_>, t: Duration) -> Result<usize, ScsiError> {
            if std::mem::take(&mut self.first) {
                self.drive.sent.push(cdb.to_vec());
                return Err(ScsiError::Check(Sense {
                    key: 6,
                    asc: 0x28,
                    ascq: 0,
                }));
            }
            self.drive.command(cdb, data, t)
        }
    }
    let mut drive = Attention {
        drive: mhvtl_drive(),
        first: true,
    };
    let s = look(&mut drive);
    assert_eq!(s.pages.len(), 13);
    assert_eq!(drive.drive.pages_asked()[..2], [0x00, 0x00]);
}

#[test]
fn identify_reads_inquiry_and_the_serial_page() {
    let mut drive = FakeDrive::new(illegal_request)
        .answer(
            vec![0x12, 0, 0, 0, 255, 0],
            Reply::Bytes(fixtures::inquiry()),
        )
        .answer(
            vec![0x12, 1, 0x80, 0, 255, 0],
            Reply::Bytes(fixtures::serial_page("XYZZY_A1")),
        );
    let id = identify(&mut drive).unwrap();
    assert_eq!(id.product, "ULT3580-TD6");
    assert_eq!(id.serial.as_deref(), Some("XYZZY_A1"));
}

#[test]
fn identify_without_the_serial_page_still_names_the_drive() {
    let mut drive = FakeDrive::new(illegal_request).answer(
        vec![0x12, 0, 0, 0, 255, 0],
        Reply::Bytes(fixtures::inquiry()),
    );
    let id = identify(&mut drive).unwrap();
    assert_eq!((id.vendor.as_str(), id.serial), ("IBM", None));
    let mut refused = FakeDrive::new(|| Reply::Errno(libc::EPERM));
    assert_eq!(identify(&mut refused), None);
}

#[test]
fn health_and_the_changer_read_the_same_serial_from_the_same_page() {
    let lab_padded = [&[0x01, 0x80, 0, 10][..], b"LABDRV01  "].concat();
    let nul_ended = [&[0x01, 0x80, 0, 12][..], b"LABDRV01\0\0\0\0"].concat();
    let blank = [&[0x01, 0x80, 0, 10][..], &[b' '; 10]].concat();
    let pages = [
        (fixtures::serial_page("XYZZY_A1"), Some("XYZZY_A1")),
        (lab_padded, Some("LABDRV01")),
        (nul_ended, Some("LABDRV01")),
        (blank, None),
    ];
    for (page, serial) in pages {
        let mut drive = FakeDrive::new(illegal_request)
            .answer(
                vec![0x12, 0, 0, 0, 255, 0],
                Reply::Bytes(fixtures::inquiry()),
            )
            .answer(vec![0x12, 1, 0x80, 0, 255, 0], Reply::Bytes(page.clone()));
        let health = identify(&mut drive).unwrap().serial;
        let changer = inquiry_serial(&mut drive);
        assert_eq!(health.as_deref(), serial, "{page:02x?}");
        assert_eq!(changer, health, "{page:02x?}");
        // sysfs's vpd_pg80 holds the same page, read by the same rule.
        assert_eq!(unit_serial(&page), health);
    }
}
