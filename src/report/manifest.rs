//! `tapebuf report` on a manifest (`--manifest`): a short human summary of
//! one backup, the run, the stream and a line per volume with its records
//! and what `--verify` found.
//!
//! The invariant: a summary never reads as a good backup unless it is one.
//! An unclean run, an incomplete volume and a failed read-back each get
//! their own plain line, and every exact number (bytes, digests) is printed
//! beside its rounded form so that it can be compared with another tool.

use crate::base::size::{bytes_per_s, count, size_flag, Bytes, Rate};
use crate::manifest::schema::{Manifest, RecordRun, Verified, Volume};

/// The summary, one line each.
pub fn lines(m: &Manifest) -> Vec<String> {
    let mut out = vec![
        format!("backup: {}", m.output),
        format!("started: {}, ended: {}", m.started, m.ended),
        match (m.clean, &m.unclean_because) {
            (true, _) => "run: clean".to_string(),
            (false, Some(why)) => format!("run: UNCLEAN: {why}"),
            (false, None) => "run: UNCLEAN (no reason recorded)".to_string(),
        },
        format!(
            "written by tapebuf {}, block size {}, digest {}",
            m.tapebuf_version,
            record_size(m.block_bytes),
            m.digest_algorithm
        ),
        format!(
            "stream: {} ({} bytes), {} {}",
            Bytes(m.stream.bytes),
            m.stream.bytes,
            m.digest_algorithm,
            m.stream.digest
        ),
    ];
    out.extend(
        m.volumes
            .iter()
            .map(|v| volume_line(v, &m.digest_algorithm)),
    );
    out.push(verdict(m));
    out
}

/// One volume: number, name, size, records, filemarks, digest, read-back.
fn volume_line(v: &Volume, algorithm: &str) -> String {
    let mut line = format!(
        "volume {}: {}, {} ({} bytes), {}, {} filemark{}, {algorithm} {}",
        v.number,
        v.name,
        Bytes(v.bytes),
        v.bytes,
        records(&v.records),
        v.filemarks,
        if v.filemarks == 1 { "" } else { "s" },
        v.digest
    );
    if !v.complete {
        line.push_str(", INCOMPLETE: the run stopped while writing it");
    }
    line.push_str(", ");
    line.push_str(&verified(v.verified.as_ref(), v.bytes));
    line
}

/// `16384 x 256 KiB + 1 x 12 KiB`, or `no records`.
pub fn records(runs: &[RecordRun]) -> String {
    if runs.is_empty() {
        return "no records".into();
    }
    runs.iter()
        .map(|r| format!("{} x {}", r.count, record_size(r.bytes)))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// A record size exactly: `1 MiB`, `256 KiB`, or `116416 B` (the unit
/// `-s` would take it in, spelled out).
pub fn record_size(bytes: u64) -> String {
    let flag = size_flag(bytes);
    if let Some(n) = flag.strip_suffix('M') {
        format!("{n} MiB")
    } else if let Some(n) = flag.strip_suffix('k') {
        format!("{n} KiB")
    } else {
        format!("{flag} B")
    }
}

/// What `--verify` found: `verified ok in 12.3 s, 180.2 MB/s (O_DIRECT)`.
fn verified(v: Option<&Verified>, bytes: u64) -> String {
    let Some(v) = v else {
        return "not verified".into();
    };
    let seconds = format!("{:.1} s", v.seconds);
    if v.ok {
        let rate = Rate(bytes_per_s(bytes, v.seconds));
        return format!("verified ok in {seconds}, {rate} ({})", v.method);
    }
    let mut line = format!(
        "verify FAILED: {}",
        v.problem.as_deref().unwrap_or("no reason recorded")
    );
    if let Some(at) = v.first_bad_byte {
        line.push_str(&format!(" (first bad byte {at})"));
    }
    line.push_str(&format!(" ({}, {seconds})", v.method));
    line
}

/// The last line: can this backup be trusted, as far as the manifest says.
fn verdict(m: &Manifest) -> String {
    let n = m.volumes.len();
    let failed: Vec<String> = m
        .volumes
        .iter()
        .filter(|v| v.verified.as_ref().is_some_and(|r| !r.ok))
        .map(|v| v.number.to_string())
        .collect();
    let checked = m.volumes.iter().filter(|v| v.verified.is_some()).count();
    let incomplete = m.volumes.iter().filter(|v| !v.complete).count();
    let mut why = Vec::new();
    if !m.clean {
        why.push("the run was unclean".to_string());
    }
    if incomplete > 0 {
        why.push(format!("{} incomplete", count(incomplete as u64, "volume")));
    }
    if !failed.is_empty() {
        let on = if failed.len() == 1 {
            "volume"
        } else {
            "volumes"
        };
        why.push(format!("verify failed on {on} {}", failed.join(", ")));
    }
    if !why.is_empty() {
        return format!("verdict: NOT a good backup: {}", why.join("; "));
    }
    match checked {
        0 => format!(
            "verdict: {} written, none read back (no --verify)",
            count(n as u64, "volume")
        ),
        c if c == n => format!(
            "verdict: {} written and verified",
            count(n as u64, "volume")
        ),
        c => format!(
            "verdict: {} written, {c} verified",
            count(n as u64, "volume")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_runs_of_exact_sizes() {
        let runs = [
            RecordRun {
                bytes: 256 << 10,
                count: 16384,
            },
            RecordRun {
                bytes: 12 << 10,
                count: 1,
            },
        ];
        assert_eq!(records(&runs), "16384 x 256 KiB + 1 x 12 KiB");
        assert_eq!(records(&[]), "no records");
        assert_eq!(record_size(1 << 20), "1 MiB");
        assert_eq!(record_size(116416), "116416 B");
    }
}
