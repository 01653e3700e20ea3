//! Each command's bytes against SPC-4's layout, read back by the parser
//! the emulated devices use, and the resend after UNIT ATTENTION.

use super::*;
use crate::tape::scsi::sg_io::Sense;

#[test]
fn each_command_has_the_bytes_spc_gives_it() {
    assert_eq!(test_unit_ready(), [0; 6]);
    assert_eq!(inquiry(255), [0x12, 0, 0, 0, 255, 0]);
    assert_eq!(inquiry_vpd(0x80, 255), [0x12, 0x01, 0x80, 0, 255, 0]);
    assert_eq!(
        log_sense(0x2e, 2048),
        [0x4d, 0, 0x6e, 0, 0, 0, 0, 0x08, 0x00, 0]
    );
    let attribute = read_attribute(16 * 1024);
    assert_eq!(attribute[0], 0x8c);
    assert_eq!(attribute[1..10], [0; 9]);
    assert_eq!(attribute[10..14], [0, 0, 0x40, 0]);
}

#[test]
fn every_command_built_here_reads_back_as_itself() {
    assert_eq!(
        Command::parse(&test_unit_ready()),
        Some(Command::TestUnitReady)
    );
    assert_eq!(
        Command::parse(&inquiry(64)),
        Some(Command::Inquiry {
            page: None,
            bytes: 64
        })
    );
    assert_eq!(
        Command::parse(&inquiry_vpd(0xb0, 255)),
        Some(Command::Inquiry {
            page: Some(0xb0),
            bytes: 255
        })
    );
    for page in [0x00, 0x02, 0x03, 0x17, 0x2e, 0x3f] {
        assert_eq!(
            Command::parse(&log_sense(page, 8192)),
            Some(Command::LogSense {
                page,
                cumulative: true,
                bytes: 8192
            })
        );
    }
    assert_eq!(
        Command::parse(&read_attribute(70_000)),
        Some(Command::ReadAttribute { bytes: 70_000 })
    );
}

#[test]
fn a_short_or_empty_cdb_is_no_command_and_an_unknown_one_is_other() {
    assert_eq!(Command::parse(&[]), None);
    assert_eq!(Command::parse(&[INQUIRY, 0, 0, 0]), None);
    assert_eq!(Command::parse(&log_sense(0x2e, 10)[..8]), None);
    assert_eq!(
        Command::parse(&[0x01, 0, 0, 0, 0, 0]),
        Some(Command::Other(0x01))
    );
}

#[test]
fn unit_attention_is_sent_again_as_many_times_as_asked_and_nothing_else_is() {
    let attention = || {
        ScsiError::Check(Sense {
            key: UNIT_ATTENTION,
            asc: 0x28,
            ascq: 0,
        })
    };
    let mut sent = 0;
    let outcome = resent_after_unit_attention(1, || {
        sent += 1;
        Err::<(), _>(attention())
    });
    assert!(outcome.is_err_and(|e| is_unit_attention(&e)));
    assert_eq!(sent, 2, "once, then once more");
    let mut sent = 0;
    let outcome = resent_after_unit_attention(3, || {
        sent += 1;
        if sent < 3 {
            Err(attention())
        } else {
            Ok(sent)
        }
    });
    assert_eq!(outcome.unwrap(), 3);
    let mut sent = 0;
    let illegal = resent_after_unit_attention(3, || {
        sent += 1;
        Err::<(), _>(ScsiError::Check(Sense {
            key: 0x05,
            asc: 0x24,
            ascq: 0,
        }))
    });
    assert!(illegal.is_err());
    assert_eq!(sent, 1, "only UNIT ATTENTION is sent again");
}
