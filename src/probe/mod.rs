//! `tapebuf probe`: finds the best block size for a target by writing a
//! test stream at each size, reading it back, and timing both.
//!
//! The parts: `settings` (the command line, `cli::probe`, checked), `target`
//! (the trait every target implements) with `file`, `tape` and `remote`,
//! `data` (the test stream, regenerated for checking), `measure` (the
//! clock, the differential method, medians), `sweep` (the loop over sizes
//! and runs), `recommend` (the rule), `table` (the text), `schema` (the
//! JSON shared with `tapebuf report`) and `run` (one probe, signals
//! included). The invariant the whole keeps: the target is left safe (a
//! created file removed, a tape rewound) whatever ends the probe.

pub mod data;
pub mod file;
pub mod measure;
pub mod recommend;
pub mod remote;
pub mod run;
pub mod schema;
pub mod settings;
pub mod sweep;
pub mod table;
pub mod tape;
pub mod target;

pub use run::Probe;
pub use settings::ProbeConfig;
pub use target::{Pass, ProbeTarget};
