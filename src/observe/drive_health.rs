//! What each local tape drive said of its health through the run, for the
//! summary line, `--summary-json` and the stats file: the cartridges it
//! had (from their memory), the TapeAlert flags raised and in which
//! volume, the records it had to write or read again, compression, a rate
//! or capacity below the drive's own history, and why nothing could be
//! read when the drive would not answer.

use serde::{Deserialize, Serialize};

use crate::pipeline::stats::Stats;
use crate::tape::health::{medium_kind, Alert, Identity, VolumeHealth};

/// One drive's health through the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DriveHealth {
    /// "-i NAME" or "-o NAME", as on the command line.
    pub endpoint: String,
    /// The drive's vendor, product, revision and serial number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive: Option<Identity>,
    /// Each volume's cartridge, alerts, errors and compression.
    #[serde(default)]
    pub volumes: Vec<VolumeHealth>,
    /// The critical TapeAlert flags raised in the run; any makes the exit
    /// status 3 when the run was otherwise clean.
    #[serde(default)]
    pub critical: Vec<Alert>,
    /// Why the drive's health could not be read (null when it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// Why the drive's history could not be read or kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_problem: Option<String>,
    /// Seconds spent asking the drive for its health, in all.
    #[serde(default)]
    pub asking_seconds: f64,
}

impl DriveHealth {
    /// Every watched drive of the run: the input's, then the outputs'.
    pub fn collect(stats: &Stats) -> Vec<DriveHealth> {
        stats
            .flagged_volume_logs()
            .filter_map(|(flag, log)| {
                let health = log.health()?;
                Some(DriveHealth {
                    endpoint: format!("{flag} {}", log.name),
                    drive: health.identity(),
                    volumes: health.volumes(),
                    critical: health.critical().flags().map(Alert::of).collect(),
                    unreadable: health.unreadable(),
                    history_problem: health.history_problem(),
                    asking_seconds: (health.asking().as_secs_f64() * 1000.0).round() / 1000.0,
                })
            })
            .collect()
    }

    /// Whether a critical flag was raised.
    pub fn alarmed(&self) -> bool {
        !self.critical.is_empty()
    }

    /// The summary's clause: "-o /dev/nst0 drive health: E01001L6 (LTO-6,
    /// 187th load); TapeAlert 20 "clean now" during volume 2; 0.4% of
    /// records rewritten". None when there is nothing to say.
    pub fn describe(&self) -> Option<String> {
        let writing = self.endpoint.starts_with("-o");
        let mut parts = Vec::new();
        if let Some(why) = &self.unreadable {
            parts.push(format!("not read: {why}"));
        }
        let cartridges: Vec<String> = self.volumes.iter().filter_map(cartridge).collect();
        if !cartridges.is_empty() {
            parts.push(cartridges.join(", "));
        }
        parts.extend(self.volumes.iter().filter_map(raised));
        parts.extend(retried(&self.volumes, writing));
        parts.extend(compressed(&self.volumes));
        for v in &self.volumes {
            parts.extend(
                v.degraded
                    .iter()
                    .map(|d| format!("volume {}: {d}", v.volume)),
            );
        }
        if let Some(why) = &self.history_problem {
            parts.push(format!("history not kept: {why}"));
        }
        (!parts.is_empty()).then(|| format!("{} drive health: {}", self.endpoint, parts.join("; ")))
    }

    /// "DRIVE ALERT -o /dev/nst0: TapeAlert 4 "media"", for the troubles.
    pub fn alarm(&self) -> Option<String> {
        self.alarmed().then(|| {
            let flags: Vec<String> = self.critical.iter().map(quoted).collect();
            format!(
                "DRIVE ALERT {}: TapeAlert {}",
                self.endpoint,
                flags.join(", ")
            )
        })
    }
}

/// `20 "clean now"`.
fn quoted(a: &Alert) -> String {
    format!("{} \"{}\"", a.flag, a.name)
}

/// "E01001L6 (LTO-6, 187th load)", from the cartridge's memory.
fn cartridge(v: &VolumeHealth) -> Option<String> {
    let mam = v.cartridge.as_ref()?;
    let name = mam
        .barcode
        .clone()
        .or_else(|| mam.serial.clone().map(|s| format!("serial {s}")))?;
    let mut about: Vec<String> = medium_kind(v).into_iter().collect();
    if let Some(n) = mam.load_count {
        about.push(format!("{} load", ordinal(n)));
    }
    Some(match about.is_empty() {
        true => name,
        false => format!("{name} ({})", about.join(", ")),
    })
}

/// `TapeAlert 20 "clean now" during volume 2`.
fn raised(v: &VolumeHealth) -> Option<String> {
    if v.tape_alerts.is_empty() {
        return None;
    }
    let flags: Vec<String> = v.tape_alerts.iter().map(quoted).collect();
    Some(format!(
        "TapeAlert {} during volume {}",
        flags.join(", "),
        v.volume
    ))
}

/// "0.4% of records rewritten, 12 errors corrected", when the drive did.
fn retried(volumes: &[VolumeHealth], writing: bool) -> Option<String> {
    let retries: u64 = volumes.iter().filter_map(|v| v.retries).sum();
    let corrected: u64 = volumes.iter().filter_map(|v| v.corrected_errors).sum();
    let uncorrected: u64 = volumes.iter().filter_map(|v| v.uncorrected_errors).sum();
    let records: u64 = volumes.iter().map(|v| v.records).sum();
    let mut said = Vec::new();
    if retries > 0 && records > 0 {
        let verb = if writing { "rewritten" } else { "read again" };
        let pct = retries as f64 * 100.0 / records as f64;
        said.push(format!("{pct:.1}% of records {verb}"));
    }
    if corrected > 0 {
        said.push(format!("{corrected} errors corrected"));
    }
    if uncorrected > 0 {
        said.push(format!("{uncorrected} errors NOT corrected"));
    }
    (!said.is_empty()).then(|| said.join(", "))
}

/// "compressed 2.10:1" when the drive compressed.
fn compressed(volumes: &[VolumeHealth]) -> Option<String> {
    let ratios: Vec<u64> = volumes
        .iter()
        .filter_map(|v| v.compression_percent)
        .collect();
    let best = ratios.iter().max()?;
    (*best > 100).then(|| {
        let mean = ratios.iter().sum::<u64>() as f64 / ratios.len() as f64;
        format!("compressed {:.2}:1", mean / 100.0)
    })
}

/// 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 187th.
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
#[path = "drive_health_tests.rs"]
mod tests;
