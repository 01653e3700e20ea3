//! What the rmt path check costs: a remote path longer than 62 bytes is
//! first tried in a throwaway session (src/rmt/path_check.rs), so that a
//! server that would cut it (Linux dump's rmt-dump, BSD rmt) is refused
//! before the path is sent. Shorter paths pay nothing.
//!
//! Each contender writes the same file to GNU rmt (`/usr/sbin/rmt-tar`)
//! through the test suite's local remote shell (tests/fixtures/rsh, which
//! runs the server here), so the extra session's cost is the cost of
//! starting a remote shell and a server, without a network: with ssh, add
//! one connection. GNU tar writing the same file to the same long path is
//! the peer. Runs are interleaved; each output is checked for its size, and
//! the first of each contender for its bytes.
//!
//!     cargo bench --bench rmt_open
//!
//! Environment: TAPEBUF_BENCH_RUNS (default 21), TAPEBUF_BENCH_MIB
//! (default 1), TAPEBUF_BENCH_DIR (default /tmp: a remote path under /dev
//! is opened as a device, never created).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::{env_number, env_or, median, reap, Sample};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");
const GNU_RMT: &str = "/usr/sbin/rmt-tar";

/// A contender: its name and its shell pipeline writing `out`.
struct Contender {
    name: String,
    out: PathBuf,
    pipeline: String,
}

// Reaped by wait4 in `reap`, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn measure(pipeline: &str) -> Sample {
    let started = Instant::now();
    let child = Command::new("sh")
        .args(["-c", &format!("set -e; {pipeline}")])
        .spawn()
        .expect("spawning sh");
    reap(&child, pipeline, started)
}

/// tapebuf to the short and the long path, and GNU tar to the long one.
fn contenders(input: &Path, short: &Path, long: &Path, base: &Path) -> [Contender; 3] {
    let rsh = format!("{}/tests/fixtures/rsh", env!("CARGO_MANIFEST_DIR"));
    let tapebuf = |out: &Path| {
        format!(
            "{TAPEBUF} -q -f -s 64k -i {} -o localhost:{} --rsh-command {rsh} --rmt-command {GNU_RMT}",
            input.display(),
            out.display()
        )
    };
    [
        Contender {
            name: format!("tapebuf, {}-byte path", short.display().to_string().len()),
            out: short.to_path_buf(),
            pipeline: tapebuf(short),
        },
        Contender {
            name: format!("tapebuf, {}-byte path", long.display().to_string().len()),
            out: long.to_path_buf(),
            pipeline: tapebuf(long),
        },
        Contender {
            name: format!("GNU tar, {}-byte path", long.display().to_string().len()),
            out: long.to_path_buf(),
            pipeline: format!(
                "tar -cf localhost:{} -b 128 --rsh-command={rsh} --rmt-command={GNU_RMT} -C {} in.bin",
                long.display(),
                base.display()
            ),
        },
    ]
}

fn main() {
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "21");
    let mib: u64 = env_number("TAPEBUF_BENCH_MIB", "1");
    let base = PathBuf::from(env_or("TAPEBUF_BENCH_DIR", "/tmp"))
        .join(format!("tapebuf-bench-rmt-open-{}", std::process::id()));
    assert!(
        Path::new(GNU_RMT).exists(),
        "needs {GNU_RMT}: apt-get install tar"
    );
    let long_dir = base.join("a-directory-name-long-enough-to-pass-62-bytes");
    std::fs::create_dir_all(&long_dir).unwrap();
    let input = base.join("in.bin");
    let data: Vec<u8> = (0..mib << 20).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&input, &data).unwrap();
    let short = base.join("s.bin");
    let long = long_dir.join("backup-of-the-home-directories.bin");
    assert!(short.display().to_string().len() <= 62);
    assert!(long.display().to_string().len() > 62);
    let contenders = contenders(&input, &short, &long, &base);
    println!(
        "# {mib} MiB to GNU rmt through a local remote shell, {runs} runs per contender, medians"
    );
    println!("{:<24} {:>10} {:>10}", "contender", "wall ms", "cpu ms");
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); contenders.len()];
    for run in 0..runs {
        for k in 0..contenders.len() {
            let i = (run + k) % contenders.len();
            let c = &contenders[i];
            let _ = std::fs::remove_file(&c.out);
            samples[i].push(measure(&c.pipeline));
            let written = std::fs::read(&c.out).expect("the contender wrote its output");
            assert!(
                written.len() as u64 >= mib << 20,
                "{}: short output",
                c.name
            );
            if run == 0 && i < 2 {
                assert!(written == data, "{}: the bytes differ", c.name);
            }
        }
    }
    let wall: Vec<f64> = samples
        .iter()
        .map(|s| median(s.iter().map(|x| x.wall_s * 1e3).collect()))
        .collect();
    for (i, c) in contenders.iter().enumerate() {
        let cpu = median(samples[i].iter().map(|x| x.cpu_s * 1e3).collect());
        println!("{:<24} {:>10.2} {:>10.2}", c.name, wall[i], cpu);
    }
    println!(
        "# the path check adds {:.2} ms ({:.2}x the short path's wall); \
         tapebuf with it takes {:.2}x GNU tar's wall",
        wall[1] - wall[0],
        wall[1] / wall[0],
        wall[1] / wall[2]
    );
    std::fs::remove_dir_all(&base).unwrap();
}
