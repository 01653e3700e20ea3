//! The engine: where bytes wait between the input and the outputs.
//!
//! A reader thread (`reader.rs`) fills the ring's blocks (`ring.rs`) from a
//! [`Source`](crate::source::Source); a writer thread (`writer.rs`) drains
//! them in order to one or several [`Sink`](crate::sink::Sink)s through the
//! fan-out (`fanout.rs`); the watermarks (`watermark.rs`) and the pacing
//! controller decide when each side waits; `stats.rs` counts everything the
//! observers and the summary read. `engine.rs` starts and stops the lot,
//! with the `Params` of `params.rs`;
//! `zero_copy.rs` decides whether the ring's blocks live in memory or in
//! kernel pipes moved by splice(2).
//!
//! The engine knows endpoints only through the `Source` and `Sink` traits,
//! and knows nothing of the command line, signals or summaries.

pub mod engine;
pub mod events;
pub mod fanout;
pub mod params;
pub mod rate_limit;
pub mod reader;
pub mod ring;
pub mod stats;
pub mod watchdog;
pub mod watermark;
pub mod writer;
pub mod zero_copy;

pub use engine::Running;
pub use params::Params;
pub use zero_copy::{RingPath, ZeroCopy};
