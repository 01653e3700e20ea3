//! The bottom layer: small things every other layer may use and that use
//! nothing of tapebuf's. Nothing here imports from outside `base`.

pub mod base64;
pub mod block;
pub mod blocking;
pub mod child;
pub mod child_groups;
pub mod close;
pub mod console;
pub mod create;
pub mod deadline;
pub mod errors;
pub mod escape;
pub mod exit;
pub mod file_id;
pub mod heap;
pub mod hex;
pub mod human_time;
pub mod kernel_pipe;
pub mod path_registry;
pub mod pipe_size;
pub mod read_full;
pub mod signals;
pub mod size;
pub mod sync;
pub mod thread;
pub mod utc;
