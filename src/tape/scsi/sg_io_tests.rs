//! SG_IO's outcomes and the sense words, without a device.

use super::*;

fn header(status: u8, host: u16, driver: u16, resid: i32) -> SgIoHdr {
    SgIoHdr {
        interface_id: 0,
        dxfer_direction: 0,
        cmd_len: 0,
        mx_sb_len: 0,
        iovec_count: 0,
        dxfer_len: 0,
        dxferp: std::ptr::null_mut(),
        cmdp: std::ptr::null_mut(),
        sbp: std::ptr::null_mut(),
        timeout: 0,
        flags: 0,
        pack_id: 0,
        usr_ptr: std::ptr::null_mut(),
        status,
        masked_status: 0,
        msg_status: 0,
        sb_len_wr: 0,
        host_status: host,
        driver_status: driver,
        resid,
        duration: 0,
        info: 0,
    }
}

fn fixed(key: u8, asc: u8, ascq: u8) -> Vec<u8> {
    crate::tape::scsi::sg_io::Sense::fixed_bytes(key, asc, ascq)
}

#[test]
fn both_sense_formats_give_key_code_and_qualifier() {
    let want = Sense {
        key: 2,
        asc: 0x3a,
        ascq: 0x02,
    };
    assert_eq!(Sense::parse(&fixed(2, 0x3a, 0x02)), Some(want));
    assert_eq!(
        Sense::parse(&[0xf1, 0, 0x02]),
        Some(Sense {
            key: 2,
            ..Default::default()
        })
    );
    assert_eq!(
        Sense::parse(&[0x72, 0x02, 0x3a, 0x02, 0, 0, 0, 0]),
        Some(want)
    );
    assert_eq!(Sense::parse(&[0x73, 0x02, 0x3a, 0x02]), Some(want));
}

#[test]
fn empty_or_foreign_sense_is_none_and_short_sense_reads_zeros() {
    assert_eq!(Sense::parse(&[]), None);
    assert_eq!(Sense::parse(&[0x00; 18]), None);
    assert_eq!(Sense::parse(&[0x7f, 5, 5]), None);
    assert_eq!(
        Sense::parse(&[0x70, 0, 0x05]),
        Some(Sense {
            key: 5,
            asc: 0,
            ascq: 0
        })
    );
}

#[test]
fn a_sense_reads_as_one_line_with_its_numbers() {
    let door = Sense {
        key: 2,
        asc: 0x3a,
        ascq: 0x02,
    };
    assert_eq!(
        door.to_string(),
        "not ready: the import/export door is open (sense 02/3A/02)"
    );
    // An ASC that already says "not ready" does not say it twice.
    let becoming = Sense {
        key: 2,
        asc: 0x04,
        ascq: 0x01,
    };
    assert_eq!(becoming.words(), "not ready: becoming ready");
    let unknown = Sense {
        key: 4,
        asc: 0x44,
        ascq: 0x81,
    };
    assert_eq!(unknown.to_string(), "hardware error (sense 04/44/81)");
    assert_eq!(
        Sense {
            key: 0xf,
            ..unknown
        }
        .key_words(),
        "reserved sense key"
    );
}

#[test]
fn good_status_moves_the_buffer_less_the_residue() {
    assert_eq!(outcome(&header(0, 0, 0, 0), &[], 512).unwrap(), 512);
    assert_eq!(outcome(&header(0, 0, 0, 400), &[], 512).unwrap(), 112);
    // DRIVER_SENSE alone is not a failure.
    assert_eq!(outcome(&header(0, 0, 0x08, 0), &[], 8).unwrap(), 8);
}

#[test]
fn a_hostile_residue_never_exceeds_the_buffer() {
    assert_eq!(outcome(&header(0, 0, 0, -5), &[], 512).unwrap(), 512);
    assert_eq!(outcome(&header(0, 0, 0, 9999), &[], 512).unwrap(), 0);
}

#[test]
fn check_condition_with_sense_is_a_check() {
    let err = outcome(&header(2, 0, 0x08, 0), &fixed(5, 0x3b, 0x0e), 0).unwrap_err();
    assert!(err.is_illegal_request());
    assert_eq!(
        err.sense(),
        Some(Sense {
            key: 5,
            asc: 0x3b,
            ascq: 0x0e
        })
    );
    assert!(!err.is_refused_by_kernel());
}

#[test]
fn other_statuses_are_statuses() {
    // BUSY
    let busy = outcome(&header(0x08, 0, 0, 0), &[], 0).unwrap_err();
    assert!(
        matches!(busy, ScsiError::Status { status: 8, .. }),
        "{busy}"
    );
    // CHECK CONDITION whose sense is empty.
    let bare = outcome(&header(2, 0, 0, 0), &[], 0).unwrap_err();
    assert!(
        matches!(bare, ScsiError::Status { status: 2, .. }),
        "{bare}"
    );
    // A host timeout (DID_TIME_OUT).
    let host = outcome(&header(0, 3, 0, 0), &[], 0).unwrap_err();
    assert!(host.to_string().contains("host status 0x0003"), "{host}");
    // A driver timeout.
    assert!(outcome(&header(0, 0, 0x06, 0), &[], 0).is_err());
}

#[test]
fn the_kernels_refusal_is_told_apart() {
    let eperm = ScsiError::Ioctl(io::Error::from_raw_os_error(libc::EPERM));
    assert!(eperm.is_refused_by_kernel());
    assert!(!eperm.is_illegal_request());
    assert_eq!(eperm.into_io().raw_os_error(), Some(libc::EPERM));
}

#[test]
fn a_file_is_no_scsi_device_and_bad_commands_are_refused_before_the_ioctl() {
    use std::os::fd::AsFd;
    let f = tempfile::tempfile().unwrap();
    let err = command(f.as_fd(), &[0; 6], Data::None, Duration::from_secs(1)).unwrap_err();
    assert!(
        matches!(&err, ScsiError::Ioctl(e) if e.raw_os_error() == Some(libc::ENOTTY)),
        "{err}"
    );
    let short = command(f.as_fd(), &[0; 5], Data::None, Duration::from_secs(1)).unwrap_err();
    assert!(matches!(&short, ScsiError::Ioctl(e) if e.kind() == io::ErrorKind::InvalidInput));
    let long = command(f.as_fd(), &[0; 17], Data::None, Duration::from_secs(1));
    assert!(long.is_err());
}

#[test]
fn the_header_has_the_kernels_size() {
    // sizeof(struct sg_io_hdr) on 64-bit Linux.
    assert_eq!(std::mem::size_of::<SgIoHdr>(), 88);
}
