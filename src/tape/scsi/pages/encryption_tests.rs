use super::*;
use crate::tape::scsi::pages::encryption_status::{BlockState, NextBlock, Status};

#[test]
fn mhvtls_capabilities_page_offers_aes_256_gcm_in_hardware() {
    let page = capabilities_reply(true);
    assert_eq!(u16::from_be_bytes([page[2], page[3]]), 40, "mhvtl's length");
    let got = algorithms(&page);
    assert_eq!(got.len(), 1);
    let aes = &got[0];
    assert_eq!(
        (aes.index, aes.id, aes.key_bytes, aes.ukad_max),
        (1, AES_256_GCM, 32, 32)
    );
    assert!(aes.encrypts && aes.decrypts && aes.for_volume && aes.usable());
    assert!(!algorithms(&capabilities_reply(false))[0].for_volume);
}

#[test]
fn an_algorithm_tapebuf_cannot_write_with_is_not_usable() {
    let mut page = capabilities_reply(true);
    page[24] = (page[24] & !0x03) | 0x01; // ENCRYPT_C 1: external only
    assert!(!algorithms(&page)[0].usable());
    let mut page = capabilities_reply(true);
    page[40..44].copy_from_slice(&0x0001_0010u32.to_be_bytes());
    assert!(!algorithms(&page)[0].usable());
    let mut page = capabilities_reply(true);
    page[26..28].copy_from_slice(&16u16.to_be_bytes()); // no room for a fingerprint
    assert!(!algorithms(&page)[0].usable());
}

#[test]
fn a_set_page_reads_back_as_sent_with_its_key_and_ukad() {
    let key = [0x5a; 32];
    let page = set_page(Mode::On, Mode::On, 1, &key, b"tapebuf:abc");
    assert_eq!(page.len(), 20 + 32 + 4 + 11);
    assert_eq!(
        usize::from(u16::from_be_bytes([page[2], page[3]])),
        page.len() - 4
    );
    assert!(page[3] >= 16, "mhvtl refuses a length under 16");
    let read = parse_set_page(&page).unwrap();
    assert_eq!(
        (read.encrypt, read.decrypt, read.index, read.key_format),
        (2, 2, 1, 0)
    );
    assert_eq!(
        (read.key.as_slice(), read.ukad.as_slice()),
        (&key[..], &b"tapebuf:abc"[..])
    );
    let clear = parse_set_page(&set_page(Mode::Disable, Mode::Disable, 1, &[], &[])).unwrap();
    assert!(clear.key.is_empty() && clear.ukad.is_empty() && clear.encrypt == 0);
}

#[test]
fn a_set_page_never_shows_its_key_when_printed() {
    let page = parse_set_page(&set_page(Mode::On, Mode::On, 1, &[0xab; 32], &[])).unwrap();
    let shown = format!("{page:?}");
    assert!(
        shown.contains("key_bytes: 32") && !shown.contains("171"),
        "{shown}"
    );
}

#[test]
fn status_and_next_block_pages_read_back_with_their_ukad() {
    let status = Status {
        encrypt: 2,
        decrypt: 3,
        index: 1,
        key_instance: 7,
        ukad: Some(b"tapebuf:xyz".to_vec()),
    };
    assert_eq!(Status::parse(&status.reply()), Some(status.clone()));
    assert!(!status.is_off());
    assert!(Status::parse(&Status::default().reply()).unwrap().is_off());
    for state in [
        BlockState::NotABlock,
        BlockState::Plain,
        BlockState::Readable,
        BlockState::KeyNeeded,
    ] {
        let next = NextBlock {
            block: 41,
            state,
            ukad: state.encrypted().then(|| b"tapebuf:q".to_vec()),
        };
        assert_eq!(NextBlock::parse(&next.reply()), Some(next));
    }
}

#[test]
fn every_cut_of_every_page_parses_to_something_or_nothing_without_panicking() {
    let pages = [
        capabilities_reply(true),
        set_page(Mode::On, Mode::On, 1, &[1; 32], b"tapebuf:0123456789"),
        Status {
            ukad: Some(vec![7; 32]),
            ..Status::default()
        }
        .reply(),
        NextBlock {
            block: 1,
            state: BlockState::KeyNeeded,
            ukad: Some(vec![9; 32]),
        }
        .reply(),
    ];
    for page in pages {
        for cut in 0..=page.len() {
            let part = &page[..cut];
            let _ = (
                algorithms(part),
                parse_set_page(part),
                Status::parse(part),
                NextBlock::parse(part),
            );
        }
        // A length field that claims more than there is, and hostile
        // descriptor lengths.
        let mut lying = page.clone();
        lying[2..4].copy_from_slice(&0xffffu16.to_be_bytes());
        for at in 4..lying.len() {
            let mut hostile = lying.clone();
            hostile[at] = 0xff;
            let _ = (
                algorithms(&hostile),
                parse_set_page(&hostile),
                Status::parse(&hostile),
                NextBlock::parse(&hostile),
            );
        }
    }
}
