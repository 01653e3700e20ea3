//! The log page parsers against pages as mhvtl builds them, SSC's own
//! layouts, every truncation, hostile lengths and random bytes.

use std::time::{Duration, Instant};

use super::*;
use crate::tape::scsi::pages::fixtures::{self, be, log_page, XorShift};
use crate::tape::scsi::pages::log_page::{self, LogPage, MAX_PARAMETERS};

#[test]
fn write_error_counters_read_as_mhvtl_serves_them() {
    let page = fixtures::error_counters(0x02, [1, 2, 30, 3, 4, 5_000_000_000, 6]);
    let counters = ErrorCounters::parse(&page, WRITE_ERRORS).unwrap();
    assert_eq!(
        counters,
        ErrorCounters {
            corrected_fast: Some(1),
            corrected_delayed: Some(2),
            retries: Some(30),
            corrected: Some(3),
            algorithm_runs: Some(4),
            bytes: Some(5_000_000_000),
            uncorrected: Some(6),
        }
    );
    assert_eq!(ErrorCounters::parse(&page, READ_ERRORS), None);
}

#[test]
fn log_page_keeps_every_parameter_and_reads_numbers() {
    let page = LogPage::parse(&fixtures::error_counters(0x03, [0; 7]), 0x03).unwrap();
    assert_eq!(page.code, 0x03);
    assert_eq!(page.parameters.len(), 11);
    assert_eq!(page.parameters[7].code, 0x8000);
    assert_eq!(page.number(0x0005), Some(0));
    assert_eq!(page.number(0x0042), None);
}

#[test]
fn numbers_longer_than_eight_bytes_or_empty_are_none() {
    let reply = log_page(
        0x02,
        &[(0, 0, vec![1; 9]), (1, 0, vec![]), (2, 0, vec![0xff; 8])],
    );
    let page = LogPage::parse(&reply, 0x02).unwrap();
    assert_eq!(page.number(0), None);
    assert_eq!(page.number(1), None);
    assert_eq!(page.number(2), Some(u64::MAX));
    assert_eq!(page.signed(2), Some(-1));
}

#[test]
fn a_page_of_another_code_or_shorter_than_its_header_is_none() {
    let page = fixtures::error_counters(0x02, [0; 7]);
    assert_eq!(LogPage::parse(&page, 0x03), None);
    assert_eq!(LogPage::parse(&page[..3], 0x02), None);
    assert_eq!(LogPage::parse(&[], 0x02), None);
    // The SPF and DS bits of byte 0 are not part of the code.
    let mut flagged = page.clone();
    flagged[0] |= 0xc0;
    assert!(LogPage::parse(&flagged, 0x02).is_some());
}

#[test]
fn the_page_length_bounds_the_parameters() {
    let mut page = log_page(0x02, &[(0, 0, be(7, 4)), (1, 0, be(8, 4))]);
    page[3] = 8; // only the first parameter
    let parsed = LogPage::parse(&page, 0x02).unwrap();
    assert_eq!(parsed.parameters.len(), 1);
    assert_eq!(parsed.number(1), None);
}

#[test]
fn a_parameter_cut_short_is_dropped_and_earlier_ones_kept() {
    let mut page = log_page(0x02, &[(0, 0, be(7, 4)), (1, 0, be(8, 4))]);
    page[2] = 0xff;
    page[3] = 0xff;
    page[4 + 8 + 3] = 200; // parameter 1 claims 200 bytes
    let parsed = LogPage::parse(&page, 0x02).unwrap();
    assert_eq!(parsed.number(0), Some(7));
    assert_eq!(parsed.number(1), None);
}

#[test]
fn every_truncation_of_every_page_gives_only_whole_fields() {
    let pages = [
        fixtures::error_counters(0x02, [1, 2, 3, 4, 5, 6, 7]),
        fixtures::compression(0x32, [150, 200], [(1, 2), (3, 4), (5, 6), (7, 8)]),
        fixtures::volume_statistics(9, [100, 50], [2_500_000, 1_000]),
        fixtures::tape_alerts(&[3, 20]),
    ];
    for page in &pages {
        let whole = LogPage::parse(page, page[0]).unwrap();
        for cut in 0..page.len() {
            let Some(part) = LogPage::parse(&page[..cut], page[0]) else {
                assert!(cut < 4);
                continue;
            };
            assert!(whole.parameters.starts_with(&part.parameters), "cut {cut}");
            let _ = ErrorCounters::parse(&page[..cut], page[0]);
            let _ = Compression::parse(&page[..cut]);
            let _ = VolumeStatistics::parse(&page[..cut]);
        }
    }
}

#[test]
fn a_truncated_error_counter_page_has_the_counters_before_the_cut() {
    let page = fixtures::error_counters(0x02, [1, 2, 3, 4, 5, 6, 7]);
    // Header, then 0000h-0004h whole (8 bytes each), 0005h cut.
    let counters = ErrorCounters::parse(&page[..4 + 5 * 8 + 6], WRITE_ERRORS).unwrap();
    assert_eq!(counters.algorithm_runs, Some(5));
    assert_eq!(counters.bytes, None);
    assert_eq!(counters.uncorrected, None);
}

#[test]
fn compression_reads_mhvtls_vendor_page_and_ssc_page_alike() {
    let pairs = [(10, 500), (5, 0), (2_000, 123_456), (1_000, 7)];
    for code in [0x32, 0x1b] {
        let page = fixtures::compression(code, [100, 250], pairs);
        let c = Compression::parse(&page).unwrap();
        assert_eq!(c.read_ratio_percent, Some(100));
        assert_eq!(c.write_ratio_percent, Some(250));
        assert_eq!(c.host_read_bytes, Some(10_000_500));
        assert_eq!(c.medium_read_bytes, Some(5_000_000));
        assert_eq!(c.host_written_bytes, Some(2_000_123_456));
        assert_eq!(c.medium_written_bytes, Some(1_000_000_007));
    }
    assert_eq!(
        Compression::parse(&fixtures::error_counters(2, [0; 7])),
        None
    );
}

#[test]
fn compression_bytes_are_a_signed_difference_from_the_megabytes() {
    let minus = (-250i32) as u32 as u64;
    let page = fixtures::compression(0x1b, [0, 0], [(3, minus), (0, minus), (0, 0), (0, 0)]);
    let c = Compression::parse(&page).unwrap();
    assert_eq!(c.host_read_bytes, Some(2_999_750));
    assert_eq!(c.medium_read_bytes, None);
    assert_eq!(c.host_written_bytes, Some(0));
}

#[test]
fn volume_statistics_read_as_mhvtl_serves_them() {
    let page = fixtures::volume_statistics(9, [100, 50], [2_500_000, 1_000]);
    let v = VolumeStatistics::parse(&page).unwrap();
    assert_eq!(v.mounts, Some(9));
    assert_eq!(v.datasets_written, Some(120));
    assert_eq!(v.recovered_write_errors, Some(3));
    assert_eq!(v.unrecovered_write_errors, Some(0));
    assert_eq!(v.datasets_read, Some(40));
    assert_eq!(v.recovered_read_errors, Some(2));
    assert_eq!(v.unrecovered_read_errors, Some(1));
    assert_eq!(v.lifetime_written_bytes, Some(100_000_000));
    assert_eq!(v.lifetime_read_bytes, Some(50_000_000));
    assert_eq!(v.native_capacity_bytes, Some(2_500_000_000_000));
    assert_eq!(v.used_native_capacity_bytes, Some(1_000_000_000));
    assert_eq!(VolumeStatistics::parse(&fixtures::tape_alerts(&[])), None);
}

#[test]
fn mhvtls_zero_padding_does_not_hide_the_page_valid_parameter() {
    let page = fixtures::volume_statistics(1, [0, 0], [0, 0]);
    let parsed = LogPage::parse(&page, 0x17).unwrap();
    assert_eq!(parsed.number(0x0000), Some(1));
    assert!(parsed.parameters.iter().filter(|p| p.code == 0).count() > 1);
}

#[test]
fn capacity_placeholder_without_a_cartridge_is_none() {
    let page = fixtures::volume_statistics(0, [0, 0], [0xffff_fffe, 0xffff_ffff]);
    let v = VolumeStatistics::parse(&page).unwrap();
    assert_eq!(v.native_capacity_bytes, None);
    assert_eq!(v.used_native_capacity_bytes, None);
}

#[test]
fn megabytes_that_overflow_in_bytes_are_none() {
    let page = log_page(0x17, &[(0x0010, 3, be(u64::MAX, 8)), (0x0011, 3, be(7, 8))]);
    let v = VolumeStatistics::parse(&page).unwrap();
    assert_eq!(v.lifetime_written_bytes, None);
    assert_eq!(v.lifetime_read_bytes, Some(7_000_000));
}

#[test]
fn supported_pages_lists_each_page_once() {
    let pages = log_page::supported(&fixtures::supported_pages()).unwrap();
    assert_eq!(pages.len(), 13);
    assert!(pages.contains(&0x17) && pages.contains(&0x2e) && pages.contains(&0x32));
    assert_eq!(
        log_page::supported(&[0, 0, 0xff, 0xff, 2, 2, 3]),
        Some(vec![2, 3])
    );
    assert_eq!(log_page::supported(&fixtures::tape_alerts(&[])), None);
}

#[test]
fn hostile_lengths_never_read_past_the_reply() {
    // Page length 0xffff over a 4-byte reply; parameter length 255 at the
    // end; a parameter header cut in two.
    assert_eq!(
        LogPage::parse(&[0x02, 0, 0xff, 0xff], 0x02)
            .unwrap()
            .parameters,
        vec![]
    );
    let cut = LogPage::parse(&[0x02, 0, 0xff, 0xff, 0, 1, 0, 0xff, 1, 2], 0x02).unwrap();
    assert!(cut.parameters.is_empty());
    let half = LogPage::parse(&[0x02, 0, 0, 6, 0, 1, 0, 0, 0, 2], 0x02).unwrap();
    assert_eq!(half.parameters.len(), 1);
}

#[test]
fn a_page_of_empty_parameters_keeps_a_bounded_number() {
    let reply = [vec![0x02, 0, 0xff, 0xfc], vec![0; 0xfffc]].concat();
    let page = LogPage::parse(&reply, 0x02).unwrap();
    assert_eq!(page.parameters.len(), MAX_PARAMETERS);
}

#[test]
fn random_bytes_never_panic_and_parse_quickly() {
    let mut random = XorShift(0x9e37_79b9_7f4a_7c15);
    let started = Instant::now();
    for _ in 0..100_000 {
        let b = random.buffer(300);
        let code = b.first().copied().unwrap_or(0);
        if let Some(page) = LogPage::parse(&b, code) {
            assert!(page.parameters.len() <= MAX_PARAMETERS);
            let _ = page.number(0);
        }
        let _ = ErrorCounters::parse(&b, code);
        let _ = Compression::parse(&b);
        let _ = VolumeStatistics::parse(&b);
        let _ = log_page::supported(&b);
    }
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// `page` with a few bytes changed at random and cut at random.
fn damaged(page: &[u8], random: &mut XorShift) -> Vec<u8> {
    let mut page = page.to_vec();
    for _ in 0..random.next() % 4 + 1 {
        let at = random.next() as usize % page.len();
        page[at] = random.next() as u8;
    }
    page.truncate(random.next() as usize % (page.len() + 1));
    page
}

#[test]
fn damaged_mhvtl_pages_never_panic() {
    let pages = [
        fixtures::supported_pages(),
        fixtures::error_counters(0x02, [1, 2, 3, 4, 5, 6, 7]),
        fixtures::compression(0x32, [150, 200], [(1, 2), (3, 4), (5, 6), (7, 8)]),
        fixtures::volume_statistics(9, [100, 50], [2_500_000, 1_000]),
    ];
    let mut random = XorShift(42);
    for i in 0..40_000 {
        let page = damaged(&pages[i % pages.len()], &mut random);
        let code = page.first().map_or(0, |c| c & 0x3f);
        let _ = LogPage::parse(&page, code).map(|p| p.signed(3));
        let _ = ErrorCounters::parse(&page, code);
        let _ = Compression::parse(&page);
        let _ = VolumeStatistics::parse(&page);
        let _ = log_page::supported(&page);
    }
}
