//! The SCSI wire, shared by the drive, the changer and drive health:
//! SG_IO (`sg_io.rs`), sense data (`sense.rs`), a drive's sg node where st
//! refuses a command (`sg_node.rs`), the primary commands built in one place
//! (`spc.rs`), and the replies' page parsers (`pages/`). Nothing here knows what a tape or a library is for.

pub mod pages;
pub mod sense;
pub mod sg_io;
pub mod sg_node;
pub mod spc;
