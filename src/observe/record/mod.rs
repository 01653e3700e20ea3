//! The `--stats` file's schema: one JSON object per line, told apart by its
//! `kind`. A `start` record comes first and names the schema and its
//! version; `sample` records follow at a fixed interval; a `summary` record
//! ends a run that finished (`--summary-json` writes the same object). The
//! man page's STATS FILE section documents every field; the names carry
//! their units. `tapebuf report` reads these same types back.
//!
//! One file per kind of record, with the `Record` enum of them all and
//! the event records (a robot's move, a volume's drive health) here:
//! `schema.rs` (the name, the version and the `start` record),
//! `sample.rs`, `summary.rs` and the summary's pace object, `pace.rs`.

mod pace;
mod sample;
mod schema;
mod summary;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::tape::health::VolumeHealth;

pub use pace::{FullSpeedCount, PaceMode, PaceStall, PaceSummary};
pub use sample::{Sample, WriterState};
pub use schema::{Start, SCHEMA, SCHEMA_VERSION};
pub use summary::{RingSummary, SummaryDetail, SummaryRecord, VolumeBytes};

/// One line of the stats file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    Start(Start),
    Sample(Sample),
    /// A tape library's robot moved a cartridge (`--changer`).
    Move(MoveEntry),
    /// What a local tape drive said of its health over one volume,
    /// written once the volume has ended.
    Health(HealthEntry),
    Summary(SummaryRecord),
}

/// One move of a tape library's robot, written when the stats thread
/// next wakes after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveEntry {
    /// "-i NAME" or "-o NAME": the endpoint whose volume change moved it.
    pub endpoint: String,
    /// When the move began, UTC, ISO 8601.
    pub started: String,
    /// "slot 2", "drive 0", "import/export slot 1", as mtx numbers them.
    pub from: String,
    pub to: String,
    pub barcode: Option<String>,
    pub seconds: f64,
    /// Why the move failed; null when it succeeded.
    pub error: Option<String>,
}

/// One volume's drive health: the endpoint, and what `VolumeHealth` says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HealthEntry {
    /// "-i NAME" or "-o NAME".
    pub endpoint: String,
    #[serde(flatten)]
    pub health: VolumeHealth,
}
