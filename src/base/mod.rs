//! The bottom layer: small things every other layer may use and that use
//! nothing of tapebuf's. Nothing here imports from outside `base`.

pub mod block;
pub mod blocking;
pub mod console;
pub mod file_id;
pub mod pipe_size;
pub mod size;
pub mod stop;
pub mod tap;
