//! The rmt benchmark's settings, read from the environment (see the
//! benchmark's header for each variable), and the command line that sets
//! them again, printed last so that a result names how to reproduce it.

use crate::common::{env_number, env_or};
use crate::run::Output;

/// What the environment asked for.
pub struct Settings {
    /// One way, so the round trip is twice this.
    pub delay_ms: f64,
    /// The pipelined and raw contenders' input.
    pub mib: u64,
    /// The lock-step contenders' input.
    pub slow_mib: u64,
    pub runs: usize,
    pub block: String,
    pub memory: String,
    /// `--rmt-window` for the first contender; empty: it adapts.
    pub window: String,
    /// A bandwidth cap on the link; empty: none.
    pub link_mbps: String,
    pub output: Output,
    pub block_bytes: u64,
}

impl Settings {
    pub fn from_env() -> Settings {
        let delay_ms: f64 = env_number("TAPEBUF_BENCH_DELAY_MS", "1");
        let mib: u64 = env_number("TAPEBUF_BENCH_MIB", "1024");
        let slow_mib: u64 = env_number("TAPEBUF_BENCH_SLOW_MIB", "64");
        let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "3");
        let block = env_or("TAPEBUF_BENCH_BLOCK", "256k");
        let memory = env_or("TAPEBUF_BENCH_MEMORY", "64M");
        let window = env_or("TAPEBUF_BENCH_WINDOW", "");
        let link_mbps = env_or("TAPEBUF_BENCH_LINK_MBPS", "");
        let output = Output::parse(&env_or("TAPEBUF_BENCH_OUT", "drive"));
        let block_bytes = tapebuf::base::size::parse_size(&block).expect("TAPEBUF_BENCH_BLOCK");
        Settings {
            delay_ms,
            mib,
            slow_mib,
            runs,
            block,
            memory,
            window,
            link_mbps,
            output,
            block_bytes,
        }
    }

    /// Prints the line that runs the benchmark again with these settings.
    pub fn print_reproduce(&self) {
        let (delay_ms, mib, slow_mib, runs) = (self.delay_ms, self.mib, self.slow_mib, self.runs);
        let (block, memory, window, link_mbps) =
            (&self.block, &self.memory, &self.window, &self.link_mbps);
        println!(
            "reproduce: TAPEBUF_BENCH_DELAY_MS={delay_ms} TAPEBUF_BENCH_MIB={mib} \
             TAPEBUF_BENCH_SLOW_MIB={slow_mib} TAPEBUF_BENCH_RUNS={runs} TAPEBUF_BENCH_BLOCK={block} \
             TAPEBUF_BENCH_MEMORY={memory}{}{}{} cargo bench --bench rmt",
            if window.is_empty() {
                String::new()
            } else {
                format!(" TAPEBUF_BENCH_WINDOW={window}")
            },
            if link_mbps.is_empty() {
                String::new()
            } else {
                format!(" TAPEBUF_BENCH_LINK_MBPS={link_mbps}")
            },
            match self.output {
                Output::Drive => "",
                Output::Disk => " TAPEBUF_BENCH_OUT=disk",
                Output::Ram => " TAPEBUF_BENCH_OUT=ram",
            },
        );
    }
}
