//! `-v` (mbuffer's levels 4 to 6): one line at the start of a run that says
//! what the run is made of, once the outputs are open and the high
//! watermark is known. It says nothing the summary does not say at the end;
//! it is there to read while the run is still going.

use crate::base::console::message;
use crate::base::size::Bytes;
use crate::config::Config;
use crate::source::spec::InputSpec;

/// `tapebuf: start: ring of N blocks of S (M), writer starts at P% full,
/// reader resumes at Q%; input I; output O[, O...]`.
pub fn start_line(config: &Config, high_pct: u8) -> String {
    let input = match &config.input {
        InputSpec::Stdin => "stdin".to_string(),
        InputSpec::File(p) => p.display().to_string(),
        InputSpec::Listen(addr) => format!("-I {addr}"),
        InputSpec::Remote(name) => name.to_string(),
        InputSpec::Command(cmd) => format!("-- {}", cmd.display),
    };
    let outputs: Vec<String> = config.outputs.iter().map(|o| o.display_name()).collect();
    message!(
        "start: ring of {} blocks of {} ({}), writer starts at {high_pct}% full, reader resumes at {}%; input {input}; {} {}",
        config.pipeline.blocks,
        Bytes(config.pipeline.block_bytes as u64),
        Bytes(config.pipeline.memory_bytes()),
        config.pipeline.low_pct,
        if outputs.len() == 1 { "output" } else { "outputs" },
        outputs.join(", ")
    )
}
