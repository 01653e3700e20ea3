//! `tapebuf probe`: finds the best block size for a target by writing a
//! test stream at each size, reading it back, and timing both.

pub mod schema;
