//! The report for people: one screen of sections (Drive, Cartridge,
//! TapeAlert, Errors, Compression, History), each a title and aligned
//! `label: value` lines, made from the same value as the JSON so the two
//! never disagree. A section with nothing to say says `none`; a value
//! the drive did not give is left out. Sizes are binary (`1.50 GiB`) and
//! rates decimal (`160.0 MB/s`), as the rest of tapebuf prints them.
//! Text from the drive is made one line. Reading TapeAlert clears the
//! flags in the drive, and the TapeAlert section says so.

use super::schema::{AlertJson, DriveReport, HistoryJson, IdentityJson, StateJson};
use crate::base::escape::one_line;
use crate::base::size::{Bytes, Rate};
use crate::tape::health::{Compression, ErrorCounters};

/// What a section with nothing in it says.
const NONE: &str = "none";
/// The TapeAlert section's note.
const CLEARED: &str = "reading the flags cleared them in the drive";

/// One section: its title and its lines.
struct Section {
    title: &'static str,
    rows: Vec<(String, String)>,
}

impl Section {
    fn new(title: &'static str) -> Section {
        Section {
            title,
            rows: Vec::new(),
        }
    }

    fn row(&mut self, label: &str, value: impl Into<String>) {
        self.rows.push((label.to_string(), value.into()));
    }

    fn some<T>(&mut self, label: &str, value: Option<T>, show: impl Fn(T) -> String) {
        if let Some(v) = value {
            self.row(label, show(v));
        }
    }
}

/// The whole report, each line ended by a newline.
pub fn render(report: &DriveReport) -> String {
    let sections = [
        drive(report),
        cartridge(report),
        alerts(&report.tape_alerts, report.unreadable.is_none()),
        errors(report.write_errors.as_ref(), report.read_errors.as_ref()),
        compression(report.compression.as_ref()),
        history(report.history.as_ref()),
    ];
    let width = sections
        .iter()
        .flat_map(|s| s.rows.iter().map(|(label, _)| label.chars().count()))
        .max()
        .unwrap_or(0)
        + 2;
    let mut out = String::new();
    for (i, section) in sections.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(section.title);
        out.push('\n');
        if section.rows.is_empty() {
            out.push_str(&format!("  {NONE}\n"));
        }
        for (label, value) in &section.rows {
            let label = format!("{label}:");
            out.push_str(&format!("  {label:width$}{}\n", one_line(value)));
        }
    }
    out
}

/// Who the drive is, its state, and why it could not be asked.
fn drive(report: &DriveReport) -> Section {
    let mut s = Section::new("Drive");
    s.row("Device", report.device.clone());
    match &report.identity {
        Some(IdentityJson {
            vendor,
            product,
            revision,
            serial,
        }) => {
            s.row("Vendor", vendor.clone());
            s.row("Product", product.clone());
            s.row("Revision", revision.clone());
            s.row("Serial", serial.clone().unwrap_or_else(|| "unknown".into()));
        }
        None => s.row("Identity", "unknown (no answer to INQUIRY)"),
    }
    let StateJson {
        cartridge,
        write_protected,
        online,
    } = report.state;
    s.some("Cartridge", cartridge, |c| {
        match (c, write_protected == Some(true)) {
            (false, _) => "none".into(),
            (true, true) => "in, write-protected".into(),
            (true, false) => "in".into(),
        }
    });
    s.some("Ready", online, |r| if r { "yes" } else { "no" }.into());
    s.some("Block protection", report.lbp.as_ref(), lbp);
    s.some("Encryption", report.encryption.as_ref(), encryption);
    s.some("Unreadable", report.unreadable.clone(), |why| why);
    s
}

/// "CRC32C, RS-CRC offered; off now", or why none.
fn lbp(l: &crate::drive_health::schema::LbpJson) -> String {
    let offered = match (l.offered.is_empty(), &l.none_because) {
        (false, _) => format!("{} offered", l.offered.join(", ")),
        (true, Some(why)) => format!("none ({why})"),
        (true, None) => "none".into(),
    };
    match &l.now {
        Some(now) if !l.offered.is_empty() => format!("{offered}; {now} now"),
        _ => offered,
    }
}

/// "AES-256-GCM; encrypting now with key tapebuf:…", "AES-256-GCM; off
/// now", or why it cannot.
fn encryption(e: &crate::drive_health::schema::EncryptionJson) -> String {
    let can = match (e.capable, &e.not_because) {
        (true, _) => "AES-256-GCM".to_string(),
        (false, Some(why)) => format!("none ({why})"),
        (false, None) => "none".into(),
    };
    match (&e.now, &e.key) {
        (Some(now), Some(key)) => format!("{can}; {now} now with key {key}"),
        (Some(now), None) if e.key_held == Some(true) && now != "off" => {
            format!("{can}; {now} now, with a key another program set")
        }
        (Some(now), None) => format!("{can}; {now} now"),
        (None, _) => can,
    }
}

/// The cartridge's memory (or why it was not read) and the drive's
/// volume statistics for it.
fn cartridge(report: &DriveReport) -> Section {
    let (mam, stats) = (report.cartridge.as_ref(), report.volume_statistics.as_ref());
    let mut s = Section::new("Cartridge");
    s.some("Memory", report.cartridge_unread.clone(), |why| {
        format!("not read: {why}")
    });
    let bytes = |b: u64| Bytes(b).to_string();
    if let Some(m) = mam {
        s.some("Barcode", m.barcode.clone(), |t| t);
        s.some("Serial", m.serial.clone(), |t| t);
        s.some("Manufacturer", m.manufacturer.clone(), |t| t);
        s.some("Manufactured", m.manufactured.clone(), |t| t);
        s.some("Loads", m.load_count, |n| n.to_string());
        s.some("Capacity", m.capacity_bytes, |c| match m.remaining_bytes {
            Some(r) => format!("{}, {} left", Bytes(c), Bytes(r)),
            None => bytes(c),
        });
        s.some("Written in life", m.lifetime_written_bytes, bytes);
        s.some("Read in life", m.lifetime_read_bytes, bytes);
    }
    if let Some(v) = stats {
        s.some("Mounts", v.mounts, |n| n.to_string());
        s.some("Native capacity", v.native_capacity_bytes, |c| {
            match v.used_native_capacity_bytes {
                Some(u) => format!("{}, {} used", Bytes(c), Bytes(u)),
                None => bytes(c),
            }
        });
        let written = (v.recovered_write_errors, v.unrecovered_write_errors);
        s.some("Write errors", recovered(written), |t| t);
        let read = (v.recovered_read_errors, v.unrecovered_read_errors);
        s.some("Read errors", recovered(read), |t| t);
    }
    s
}

/// "2 recovered, 0 unrecovered", from what is known.
fn recovered((ok, bad): (Option<u64>, Option<u64>)) -> Option<String> {
    let parts: Vec<String> = [(ok, "recovered"), (bad, "unrecovered")]
        .into_iter()
        .filter_map(|(n, what)| n.map(|n| format!("{n} {what}")))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The flags raised now, the critical ones marked.
fn alerts(flags: &[AlertJson], read: bool) -> Section {
    let mut s = Section::new("TapeAlert");
    if !read {
        return s;
    }
    for a in flags {
        let mark = if a.critical { " (critical)" } else { "" };
        s.row(&format!("Flag {}", a.flag), format!("{}{mark}", a.name));
    }
    if flags.is_empty() {
        s.row("Raised", NONE);
    }
    s.row("Note", CLEARED);
    s
}

/// The write and read error counter pages.
fn errors(write: Option<&ErrorCounters>, read: Option<&ErrorCounters>) -> Section {
    let mut s = Section::new("Errors");
    s.some("Write", write, |c| counters(c, "rewrites"));
    s.some("Read", read, |c| counters(c, "rereads"));
    s
}

/// One counter page in one line: "3 corrected, 12 rewrites, 0
/// uncorrected, 1.20 GiB processed".
fn counters(c: &ErrorCounters, retries: &str) -> String {
    let mut parts = Vec::new();
    if let Some(n) = c.corrected {
        parts.push(format!("{n} corrected"));
    }
    if let Some(n) = c.retries {
        parts.push(format!("{n} {retries}"));
    }
    if let Some(n) = c.uncorrected {
        parts.push(format!("{n} uncorrected"));
    }
    if let Some(n) = c.bytes {
        parts.push(format!("{} processed", Bytes(n)));
    }
    if parts.is_empty() {
        NONE.to_string()
    } else {
        parts.join(", ")
    }
}

/// The compression page: each direction's ratio and bytes.
fn compression(c: Option<&Compression>) -> Section {
    let mut s = Section::new("Compression");
    if let Some(c) = c {
        let write = direction(
            c.write_ratio_percent,
            c.host_written_bytes,
            c.medium_written_bytes,
        );
        s.some("Write", write, |t| t);
        let read = direction(c.read_ratio_percent, c.host_read_bytes, c.medium_read_bytes);
        s.some("Read", read, |t| t);
    }
    s
}

/// "1.50:1, 3.00 GiB from the host, 2.00 GiB on tape".
fn direction(ratio: Option<u64>, host: Option<u64>, medium: Option<u64>) -> Option<String> {
    let mut parts = Vec::new();
    // 0 is no ratio: nothing counted yet (mhvtl never counts).
    if let Some(r) = ratio.filter(|&r| r > 0) {
        parts.push(format!("{}.{:02}:1", r / 100, r % 100));
    }
    if let Some(b) = host {
        parts.push(format!("{} from the host", Bytes(b)));
    }
    if let Some(b) = medium {
        parts.push(format!("{} on tape", Bytes(b)));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The drive's baseline from its own past runs.
fn history(h: Option<&HistoryJson>) -> Section {
    let mut s = Section::new("History");
    let Some(h) = h else {
        s.row("Baseline", "unknown (no serial number or state directory)");
        return s;
    };
    s.row("Volumes on record", h.volumes_on_record.to_string());
    let rate = |r: f64| Rate(r).to_string();
    s.some("Usual write rate", h.usual_write_rate, rate);
    s.some("Usual read rate", h.usual_read_rate, rate);
    for c in &h.usual_capacity {
        let kind = c.medium.as_deref().unwrap_or("unknown medium");
        s.row(
            "Usual capacity",
            format!("{} per full cartridge ({kind})", Bytes(c.bytes)),
        );
    }
    s
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
