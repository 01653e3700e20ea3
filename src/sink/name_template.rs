//! The names of a served stream's files (`-I --senders`): `-o`,
//! `--manifest` and `--hash-file` are templates, and each stream's names
//! are made from them by its sender and its turn.
//!
//! The fields are `{name}` (the sender's name from `--allow-key` or
//! `--allow-keys`; without keys, its address), `{peer}` (its address),
//! `{seq}` (the stream's number in this run, from 1) and `{time}` (when
//! it began, UTC, as `20261129T130552Z`). A value is made safe to stand in
//! a file name: every character other than a letter, digit, `.`, `-`,
//! `_`, `@` or `+` becomes `_`, and so does a leading dot, so no sender
//! can name a path outside the template's folder or a hidden file.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Every field a template may hold.
pub const FIELDS: [&str; 4] = ["{name}", "{peer}", "{seq}", "{time}"];

/// What one stream's names are made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamFields {
    pub name: String,
    pub peer: String,
    pub seq: u64,
    pub started: SystemTime,
}

/// Whether `template` holds a field, so that each stream gets a name of
/// its own.
pub fn names_each_stream(template: &Path) -> bool {
    let text = template.to_string_lossy();
    FIELDS.iter().any(|f| text.contains(f))
}

/// `template` with every field replaced by this stream's value.
pub fn expand(template: &Path, fields: &StreamFields) -> PathBuf {
    let stamp = crate::base::utc::utc_timestamp(fields.started).replace(['-', ':'], "");
    let values = [
        safe(&fields.name),
        safe(&fields.peer),
        fields.seq.to_string(),
        stamp,
    ];
    let mut text = template.to_string_lossy().into_owned();
    for (field, value) in FIELDS.iter().zip(values) {
        text = text.replace(field, &value);
    }
    PathBuf::from(text)
}

/// `value` as a part of one file name.
fn safe(value: &str) -> String {
    let kept = |c: char| c.is_ascii_alphanumeric() || ".-_@+".contains(c);
    let mut out: String = value
        .chars()
        .map(|c| if kept(c) { c } else { '_' })
        .collect();
    if out.starts_with('.') {
        out.replace_range(..1, "_");
    }
    if out.is_empty() {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn fields(name: &str) -> StreamFields {
        StreamFields {
            name: name.into(),
            peer: "[::1]:4000".into(),
            seq: 7,
            started: UNIX_EPOCH + Duration::from_secs(1_795_951_816),
        }
    }

    #[test]
    fn every_field_is_replaced_by_the_streams_value() {
        let path = expand(
            Path::new("/v/{name}-{seq}-{time}-{peer}.zfs"),
            &fields("db1"),
        );
        assert_eq!(
            path,
            PathBuf::from("/v/db1-7-20261129T113016Z-___1__4000.zfs")
        );
    }

    #[test]
    fn a_senders_name_cannot_leave_the_folder_or_hide_its_file() {
        for hostile in ["../../etc/passwd", "..", ".hidden", "a/b", "", "x\ny"] {
            let path = expand(Path::new("/v/{name}"), &fields(hostile));
            assert_eq!(
                path.parent(),
                Some(Path::new("/v")),
                "{hostile:?} -> {path:?}"
            );
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                !file.starts_with('.') && !file.contains('/'),
                "{hostile:?} -> {file}"
            );
        }
    }

    #[test]
    fn only_a_template_with_a_field_names_each_stream() {
        assert!(names_each_stream(Path::new("/v/{seq}.tar")));
        assert!(!names_each_stream(Path::new("/v/backup.tar")));
        assert!(!names_each_stream(Path::new("/v/{sequence}.tar")));
    }
}
