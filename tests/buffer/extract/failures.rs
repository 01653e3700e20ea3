//! An extract that fails partway fails the run naming where, and leaves
//! the archive it wrote unended, so that nothing takes it for a whole
//! one: a damaged record (named by its number in the volume), a volume
//! cut short, a reader that goes away, and an output that fills.

use std::fs;
use std::process::Stdio;

use super::backup::{stderr, Backup};
use crate::common;

#[test]
fn a_damaged_record_fails_naming_it_and_the_archive_is_left_unended() {
    let b = Backup::new();
    // d/z_last's data is in the last records of volume 3.
    let path = b.path("vol.003");
    let mut bytes = fs::read(&path).unwrap();
    let at = bytes.len() - 12288 + 100;
    bytes[at] ^= 0x40;
    fs::write(&path, bytes).unwrap();
    let out = b.extract(&["d/z_last"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let line = stderr(&out);
    assert!(line.contains("volume 3 ("), "{line}");
    // The record holding byte `at`, from volume 3's record runs.
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(b.path("home.json")).unwrap()).unwrap();
    let (mut record, mut start) = (0u64, 0u64);
    for run in manifest["volumes"][2]["records"].as_array().unwrap() {
        let (bytes, count) = (
            run["bytes"].as_u64().unwrap(),
            run["count"].as_u64().unwrap(),
        );
        if (at as u64) < start + bytes * count {
            record += (at as u64 - start) / bytes;
            break;
        }
        record += count;
        start += bytes * count;
    }
    assert!(line.contains(&format!("record {record} ")), "{line}");
    assert!(line.contains("stream byte"), "{line}");
    let written = fs::read(b.path("out.tar")).unwrap_or_default();
    assert!(!written.ends_with(&[0; 1024]), "the archive was ended");
}

#[test]
fn a_volume_cut_short_fails_naming_where_it_ends_and_the_archive_is_left_unended() {
    let b = Backup::new();
    let path = b.path("vol.003");
    let file = fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(20_000).unwrap();
    let out = b.extract(&["d/z_last"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let line = stderr(&out);
    assert!(line.contains("volume 3 ("), "{line}");
    assert!(
        line.contains("the file is cut short: it ends at byte 20000, before the record"),
        "{line}"
    );
    let written = fs::read(b.path("out.tar")).unwrap_or_default();
    assert!(!written.ends_with(&[0; 1024]), "the archive was ended");
}

#[test]
fn a_reader_that_goes_away_or_a_full_output_fails_the_run_and_the_archive_is_left_unended() {
    let b = Backup::new();
    // d/mid is 700 000 bytes, more than a pipe holds: `head -c 1` reads
    // one byte and leaves, and the next write finds no reader.
    let out = common::command("sh")
        .current_dir(b.dir.path())
        .arg("-c")
        .arg(format!(
            "{{ {} extract --manifest home.json d/mid; echo \"status $?\" >&2; }} | head -c 1 >/dev/null",
            common::BIN
        ))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = stderr(&out);
    assert!(
        text.contains("extract: writing the output: Broken pipe"),
        "{text}"
    );
    assert!(text.contains("the archive written is cut short"), "{text}");
    assert!(text.ends_with("status 1\n"), "{text}");
    let out = b.extract_to("/dev/full", &["-f", "d/a"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("No space left on device"),
        "{}",
        stderr(&out)
    );
}
