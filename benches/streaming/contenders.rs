//! The streaming benchmark's contenders: tapebuf plain, pacing, pacing
//! within the drive's range, and mbuffer, each with the cell's ring and
//! the same block size and start watermark; which of them run (chosen by
//! TAPEBUF_BENCH_STREAM_CONTENDERS, and able to start).

use crate::grid::{chosen, env_list, same};
use crate::run::{probe, Contender};

pub const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

/// Every contender, in the table's order.
pub const NAMES: [&str; 4] = ["tapebuf", "tapebuf pace", "tapebuf range", "mbuffer"];
/// Left out unless TAPEBUF_BENCH_STREAM_CONTENDERS names it.
const NOT_BY_DEFAULT: &str = "tapebuf";
const VAR: &str = "TAPEBUF_BENCH_STREAM_CONTENDERS";

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// The contender `name` with a `ring` (`-m`) and, for "tapebuf range",
/// the drive's `range` in bytes per second (parse_size's M is MiB, so the
/// range is written in bytes).
pub fn contender(name: &'static str, ring: &str, range: (f64, f64)) -> Contender {
    let common = ["-m", ring, "-s", "256k", "-P", "90"];
    let tapebuf = |extra: &[&str]| {
        let mut v = vec![TAPEBUF, "-q"];
        v.extend_from_slice(&common);
        v.extend_from_slice(extra);
        argv(&v)
    };
    let range = format!("--pace={:.0}:{:.0}", range.0, range.1);
    let argv = match name {
        "tapebuf" => tapebuf(&[]),
        "tapebuf pace" => tapebuf(&["--pace"]),
        "tapebuf range" => tapebuf(&[&range]),
        "mbuffer" => argv(&[&["mbuffer"][..], &common[..]].concat()),
        _ => panic!("no contender {name}"),
    };
    Contender { name, argv }
}

/// The short name in the table's column heads.
pub fn short(name: &str) -> &str {
    name.strip_prefix("tapebuf ").unwrap_or(match name {
        "tapebuf" => "plain",
        n => n,
    })
}

fn is_chosen(name: &str) -> bool {
    if env_list(VAR).is_empty() {
        name != NOT_BY_DEFAULT
    } else {
        chosen(VAR, name)
    }
}

/// Prints each contender's command line (with the first cell's ring and
/// range); returns those chosen and able to start.
pub fn available(ring: &str, range: (f64, f64)) -> Vec<&'static str> {
    for unknown in env_list(VAR)
        .iter()
        .filter(|n| !NAMES.iter().any(|m| same(n, m)))
    {
        println!(
            "# unknown contender in {VAR}: {unknown:?} (known: {})",
            NAMES.join(", ")
        );
    }
    let mut available = Vec::new();
    for name in NAMES {
        let c = contender(name, ring, range);
        println!("# {:<14} {}", name, c.argv.join(" "));
        if !is_chosen(name) {
            println!("#   not chosen ({VAR})");
            continue;
        }
        match probe(&c) {
            Ok(()) => available.push(name),
            Err(why) => println!("#   UNAVAILABLE, left out: {why}"),
        }
    }
    available
}
