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
    assert_eq!(
        mode_sense(0x0a, 0xf0, 0x0123),
        [0x5a, 0x08, 0x0a, 0xf0, 0, 0, 0, 0x01, 0x23, 0]
    );
    assert_eq!(mode_select(40), [0x55, 0x10, 0, 0, 0, 0, 0, 0, 40, 0]);
}

#[test]
fn every_command_built_here_reads_back_as_itself() {
    assert_eq!(
        Command::parse(&test_unit_ready()),
        Ok(Command::TestUnitReady)
    );
    assert_eq!(
        Command::parse(&inquiry(64)),
        Ok(Command::Inquiry {
            page: None,
            bytes: 64
        })
    );
    assert_eq!(
        Command::parse(&inquiry_vpd(0xb0, 255)),
        Ok(Command::Inquiry {
            page: Some(0xb0),
            bytes: 255
        })
    );
    for page in [0x00, 0x02, 0x03, 0x17, 0x2e, 0x3f] {
        assert_eq!(
            Command::parse(&log_sense(page, 8192)),
            Ok(Command::LogSense {
                page,
                control: PageControl::Cumulative,
                bytes: 8192
            })
        );
    }
    assert_eq!(
        Command::parse(&mode_sense(0x0a, 0xf0, 40)),
        Ok(Command::ModeSense {
            page: 0x0a,
            subpage: 0xf0,
            block_descriptors: false,
            bytes: 40
        })
    );
    assert_eq!(
        Command::parse(&mode_select(40)),
        Ok(Command::ModeSelect {
            page_format: true,
            save: false,
            bytes: 40
        })
    );
    assert_eq!(
        Command::parse(&security_in(0x20, 0x0021, 4096)),
        Ok(Command::SecurityIn {
            protocol: 0x20,
            specific: 0x0021,
            inc_512: false,
            bytes: 4096
        })
    );
    assert_eq!(
        Command::parse(&security_out(0x20, 0x0010, 84)),
        Ok(Command::SecurityOut {
            protocol: 0x20,
            specific: 0x0010,
            inc_512: false,
            bytes: 84
        })
    );
    assert_eq!(
        Command::parse(&read_attribute(70_000)),
        Ok(Command::ReadAttribute {
            service_action: ATTRIBUTE_VALUES,
            partition: 0,
            first: 0,
            bytes: 70_000
        })
    );
}

#[test]
fn the_allocation_length_is_the_one_each_builder_was_given() {
    assert_eq!(Command::parse(&test_unit_ready()).unwrap().allocation(), 0);
    assert_eq!(Command::parse(&inquiry(96)).unwrap().allocation(), 96);
    let vpd = inquiry_vpd(0x80, 255);
    assert_eq!(Command::parse(&vpd).unwrap().allocation(), 255);
    let log = log_sense(0x17, 0xfedc);
    assert_eq!(Command::parse(&log).unwrap().allocation(), 0xfedc);
    let mode = mode_sense(0x0a, 0xf0, 0xabcd);
    assert_eq!(Command::parse(&mode).unwrap().allocation(), 0xabcd);
    assert_eq!(Command::parse(&mode_select(40)).unwrap().allocation(), 0);
    let spin = security_in(0x20, 0x0020, 0x0102_0304);
    assert_eq!(Command::parse(&spin).unwrap().allocation(), 0x0102_0304);
    let spout = security_out(0x20, 0x0010, 84);
    assert_eq!(Command::parse(&spout).unwrap().allocation(), 0);
    let attribute = read_attribute(0x0102_0304);
    assert_eq!(
        Command::parse(&attribute).unwrap().allocation(),
        0x0102_0304
    );
}

#[test]
fn every_field_is_read_from_the_bits_spc_gives_it() {
    for control in PageControl::ALL {
        let mut cdb = log_sense(0x2e, 16);
        cdb[2] = control.bits() << 6 | 0x2e;
        let Ok(Command::LogSense {
            page,
            control: read,
            ..
        }) = Command::parse(&cdb)
        else {
            panic!("{cdb:02x?}");
        };
        assert_eq!((page, read), (0x2e, control));
    }
    let mut cdb = read_attribute(512);
    cdb[1] = 0xe0 | 0x05; // bits 7-5 are reserved
    cdb[7] = 3;
    cdb[8..10].copy_from_slice(&0x0401u16.to_be_bytes());
    assert_eq!(
        Command::parse(&cdb),
        Ok(Command::ReadAttribute {
            service_action: 0x05,
            partition: 3,
            first: 0x0401,
            bytes: 512
        })
    );
    let mut cdb = security_in(0x20, 0x0021, 8);
    cdb[4] = 0x80; // INC_512: the length counts 512-byte units
    let spin = Command::parse(&cdb).unwrap();
    assert!(matches!(
        spin,
        Command::SecurityIn {
            inc_512: true,
            bytes: 8,
            ..
        }
    ));
    assert_eq!(spin.allocation(), 4096);
    // A longer CDB is read as far as the command goes.
    let long = [&inquiry_vpd(0x00, 8)[..], &[0xff; 10]].concat();
    assert_eq!(
        Command::parse(&long),
        Ok(Command::Inquiry {
            page: Some(0x00),
            bytes: 8
        })
    );
}

#[test]
fn an_empty_or_unknown_cdb_is_an_invalid_operation_code() {
    let invalid_opcode = Sense {
        key: 0x05,
        asc: 0x20,
        ascq: 0,
    };
    assert_eq!(Command::parse(&[]), Err(Refusal::Empty));
    assert_eq!(Refusal::Empty.sense(), invalid_opcode);
    for operation in [0x01u8, 0x03, 0x1a, 0x5b, 0x8d, 0xa3, 0xff] {
        let refusal = Command::parse(&[operation, 0, 0, 0, 0, 0]).unwrap_err();
        assert_eq!(refusal, Refusal::UnknownOperation(operation));
        assert_eq!(refusal.sense(), invalid_opcode);
    }
}

#[test]
fn a_cdb_shorter_than_its_command_is_an_invalid_field() {
    let built: [&[u8]; 9] = [
        &test_unit_ready(),
        &inquiry(255),
        &inquiry_vpd(0x80, 255),
        &log_sense(0x2e, 10),
        &mode_sense(0x0a, 0xf0, 64),
        &mode_select(40),
        &security_in(0x20, 0x0020, 512),
        &security_out(0x20, 0x0010, 84),
        &read_attribute(4096),
    ];
    for cdb in built {
        for bytes in 1..cdb.len() {
            let refusal = Command::parse(&cdb[..bytes]).unwrap_err();
            let needs = cdb.len();
            let operation = cdb[0];
            assert_eq!(
                refusal,
                Refusal::Short {
                    operation,
                    bytes,
                    needs
                }
            );
            assert_eq!((refusal.sense().key, refusal.sense().asc), (0x05, 0x24));
        }
    }
}

#[test]
fn inquiry_refuses_cmddt_and_a_page_code_without_evpd() {
    for flags in [0x02, 0x03] {
        let cdb = [INQUIRY, flags, 0x00, 0, 255, 0];
        assert_eq!(Command::parse(&cdb), Err(Refusal::InvalidField { byte: 1 }));
    }
    let cdb = [INQUIRY, 0x00, 0x80, 0, 255, 0];
    let refusal = Command::parse(&cdb).unwrap_err();
    assert_eq!(refusal, Refusal::InvalidField { byte: 2 });
    assert_eq!(
        refusal.sense(),
        Sense {
            key: 0x05,
            asc: 0x24,
            ascq: 0
        }
    );
    // The other bits of byte 1 are reserved and read past, as before.
    assert!(Command::parse(&[INQUIRY, 0xfc, 0, 0, 36, 0]).is_ok());
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
