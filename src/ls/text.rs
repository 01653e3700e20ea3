//! The listing for people: one member a line, `tar tv`'s order of things
//! in columns: kind letter, size in bytes, modification time (UTC), volume,
//! barcode, path (and `-> target` for a link). A value that is unknown is
//! `-`; a path and a link target are shown as `Name::escaped` shows them
//! (GNU tar's `--quoting-style=escape`, with bidirectional and other
//! invisible characters escaped too): one line, lossless, unambiguous.

use std::time::{Duration, UNIX_EPOCH};

use crate::archive::MemberKind;
use crate::base::escape::one_line;
use crate::base::utc::utc_timestamp;

use super::schema::MemberJson;

/// The letter of a kind, as tapebuf(1) lists them under LS.
pub fn kind_letter(kind: MemberKind) -> char {
    match kind {
        MemberKind::File => 'f',
        MemberKind::HardLink => 'h',
        MemberKind::Symlink => 'l',
        MemberKind::Directory => 'd',
        MemberKind::CharDevice => 'c',
        MemberKind::BlockDevice => 'b',
        MemberKind::Fifo => 'p',
        MemberKind::Sparse => 's',
        MemberKind::Other => 'o',
    }
}

/// A time before the epoch shows as the epoch.
fn mtime_utc(mtime: i64) -> String {
    let secs = u64::try_from(mtime).unwrap_or(0);
    utc_timestamp(UNIX_EPOCH + Duration::from_secs(secs))
}

/// `m`'s line, without its newline.
pub fn line(m: &MemberJson) -> String {
    let volume = m.volume.map_or("-".to_string(), |v| v.to_string());
    let barcode = m.barcode.as_deref().map_or("-".to_string(), one_line);
    let mut line = format!(
        "{} {:>12} {} {:>3} {:<8} {}",
        kind_letter(m.kind),
        m.size,
        mtime_utc(m.mtime),
        volume,
        barcode,
        m.name().escaped()
    );
    if let Some(target) = m.link_name() {
        line.push_str(" -> ");
        line.push_str(&target.escaped());
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(kind: MemberKind, link: Option<&str>, volume: Option<u32>) -> MemberJson {
        MemberJson {
            path: "home/alice/a\nb".into(),
            path_bytes: None,
            kind,
            size: 1234,
            mtime: 1_700_000_000,
            link: link.map(String::from),
            link_bytes: None,
            header_offset: 0,
            end_offset: 2048,
            volume,
            barcode: volume.map(|_| "A00001L8".into()),
            volume_offset: None,
            record: None,
            key: None,
        }
    }

    #[test]
    fn a_line_has_kind_size_time_volume_barcode_and_a_one_line_path() {
        assert_eq!(
            line(&member(MemberKind::File, None, Some(2))),
            "f         1234 2023-11-14T22:13:20Z   2 A00001L8 home/alice/a\\nb"
        );
        assert_eq!(
            line(&member(MemberKind::Symlink, Some("../t"), None)),
            "l         1234 2023-11-14T22:13:20Z   - -        home/alice/a\\nb -> ../t"
        );
    }

    #[test]
    fn every_kind_has_a_letter_of_its_own() {
        let mut letters: Vec<char> = MemberKind::ALL.iter().map(|&k| kind_letter(k)).collect();
        letters.sort();
        letters.dedup();
        assert_eq!(letters.len(), MemberKind::ALL.len());
    }
}
