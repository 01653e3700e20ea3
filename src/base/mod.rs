//! The bottom layer: small things every other layer may use and that use
//! nothing of tapebuf's. Nothing here imports from outside `base`.

pub mod block;
pub mod blocking;
pub mod close;
pub mod config_error;
pub mod console;
pub mod exit;
pub mod file_id;
pub mod kernel_pipe;
pub mod open_error;
pub mod pipe_size;
pub mod shown;
pub mod signals;
pub mod size;
pub mod stop;
pub mod tap;
pub mod utc;
