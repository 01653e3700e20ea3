//! mbuffer's own command lines, run unchanged by mbuffer and by tapebuf,
//! side by side in one run: the drop-in's cost. Each line sits between
//! `dd if=/dev/zero bs=1M` and `dd of=/dev/null`, as in the throughput
//! benchmark:
//!
//! - syncoid's `-q -s 128k -m 16M`;
//! - zfsrestore.sh's `-q -H -s 128k -m 64M` (the MD5 printed at the end;
//!   its 1G ring cut to 64M to fit the machine);
//! - znapzend's `-q -s 256k -m 64M -R 200M`, a rate cap, where both should
//!   take the size over the rate.
//!
//! Before the timed runs, each `-H` line is run once and the MD5 it prints
//! is compared with `md5sum` of what came out. Runs are interleaved;
//! medians and ratios (tapebuf's wall over mbuffer's) are reported.
//!
//!     cargo bench --bench mbuffer_lines
//!
//! Environment: TAPEBUF_BENCH_GIB (default 2), TAPEBUF_BENCH_RUNS
//! (default 5). Needs mbuffer.

mod common;

use std::process::Command;

use common::{between_zero_and_null, env_number, wall_and_cpu_medians, Sample};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

/// A command line, and the GiB it moves (a capped line moves less).
struct Line {
    source: &'static str,
    args: &'static [&'static str],
    gib: u64,
}

const LINES: [Line; 3] = [
    Line {
        source: "syncoid",
        args: &["-q", "-s", "128k", "-m", "16M"],
        gib: 0,
    },
    Line {
        source: "zfsrestore.sh -H",
        args: &["-q", "-H", "-s", "128k", "-m", "64M"],
        gib: 0,
    },
    Line {
        source: "znapzend -R 200M",
        args: &["-q", "-s", "256k", "-m", "64M", "-R", "200M"],
        gib: 1,
    },
];

/// Runs `tool ARGS` once on `mib` MiB of zeros and checks that the MD5 it
/// prints ("MD5 hash: <hex>") is that of what it passed on.
fn check_md5(tool: &str, args: &[&str], mib: u64) {
    let script = format!(
        "dd if=/dev/zero bs=1M count={mib} status=none | {tool} {} 2>&1 >/dev/null \
         | sed -n 's/.*MD5 hash: *//p'; dd if=/dev/zero bs=1M count={mib} status=none | md5sum",
        args.join(" ")
    );
    let out = Command::new("sh").args(["-c", &script]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let printed = lines.next().unwrap_or("").trim().to_string();
    let real = lines.next().unwrap_or("").split(' ').next().unwrap_or("");
    assert_eq!(printed, real, "{tool} {args:?} printed the wrong MD5");
}

fn main() {
    let gib: u64 = env_number("TAPEBUF_BENCH_GIB", "2");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "5");
    println!(
        "# mbuffer command lines run unchanged by each tool, dd zeros in, dd to /dev/null out"
    );
    println!("# {runs} interleaved runs, medians; cpu is the tool's own");
    println!(
        "{:<18} {:<8} {:>5} {:>8} {:>8} {:>8} {:>10}",
        "line", "tool", "GiB", "wall s", "cpu s", "MB/s", "tb÷mbuffer"
    );
    for line in &LINES {
        let gib = if line.gib == 0 { gib } else { line.gib };
        if line.args.contains(&"-H") {
            check_md5(TAPEBUF, line.args, 256);
            check_md5("mbuffer", line.args, 256);
        }
        let tools = [TAPEBUF, "mbuffer"];
        let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); tools.len()];
        for run in 0..runs {
            for k in 0..tools.len() {
                let i = (run + k) % tools.len();
                let mut argv = vec![tools[i].to_string()];
                argv.extend(line.args.iter().map(|a| a.to_string()));
                samples[i].push(between_zero_and_null(&argv, gib));
            }
        }
        let medians = wall_and_cpu_medians(&samples);
        for (i, name) in ["tapebuf", "mbuffer"].iter().enumerate() {
            let (wall, cpu) = medians[i];
            println!(
                "{:<18} {:<8} {:>5} {:>8.3} {:>8.3} {:>8.0} {:>10.2}",
                line.source,
                name,
                gib,
                wall,
                cpu,
                (gib << 30) as f64 / wall / 1e6,
                medians[0].0 / medians[1].0
            );
        }
    }
}
