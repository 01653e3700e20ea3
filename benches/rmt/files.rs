//! The rmt benchmark's files: tar's remote shell, the pseudo-random
//! inputs in RAM, where the server writes, all in scratch directories
//! that are removed even when a run panics.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::run::Output;
use crate::settings::Settings;

/// Every file the runs use. The directories are removed when this is
/// dropped, the one in RAM first.
pub struct Scratch {
    /// The inputs, in RAM; also the output with `Output::Ram`.
    pub _shm: tempfile::TempDir,
    /// On disk, under /tmp: tar's remote shell, the checked runs' output.
    pub _dir: tempfile::TempDir,
    /// A one-word remote shell for tar, which execs the relay.
    pub tar_rsh: PathBuf,
    /// The pipelined and raw contenders' input.
    pub full: PathBuf,
    /// The lock-step contenders' input.
    pub slow: PathBuf,
    /// Where the timed runs write.
    pub out: PathBuf,
    /// Where each contender's first, checked run writes.
    pub checked: PathBuf,
}

impl Scratch {
    /// Makes the directories, tar's remote shell (running `exe relay`)
    /// and the inputs.
    pub fn make(exe: &str, settings: &Settings) -> Scratch {
        let (mib, slow_mib, output) = (settings.mib, settings.slow_mib, settings.output);
        let dir = scratch_dir("/tmp");
        let tar_rsh = dir.path().join("rsh");
        std::fs::write(&tar_rsh, format!("#!/bin/sh\nexec '{exe}' relay \"$@\"\n")).unwrap();
        std::fs::set_permissions(
            &tar_rsh,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        // The inputs are in RAM, on /dev/shm, where nothing can evict them
        // (tmpfs, and no swap here). Read from the page cache instead, parts
        // of them went back to disk between runs (this VM reclaims cold page
        // cache with DAMON), and every contender read at a different speed.
        let shm = scratch_dir("/dev/shm");
        let (full, slow) = (shm.path().join("full.bin"), shm.path().join("slow.bin"));
        write_input(&full, mib << 20);
        write_input(&slow, slow_mib << 20);
        let out = match output {
            Output::Drive => dir.path().join("out.fifo"),
            Output::Disk => dir.path().join("out"),
            Output::Ram => shm.path().join("out"),
        };
        // Each contender's first run writes a file on disk, which is checked
        // byte for byte and not timed.
        let checked = dir.path().join("checked");
        Scratch {
            _shm: shm,
            _dir: dir,
            tar_rsh,
            full,
            slow,
            out,
            checked,
        }
    }
}

/// Writes `bytes` of pseudo-random data (xorshift64*, the same stream for
/// every file, so a smaller file is a prefix of a larger one).
fn write_input(path: &Path, bytes: u64) {
    let mut file = BufWriter::with_capacity(1 << 20, File::create(path).expect("creating input"));
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut block = vec![0u8; 1 << 20];
    let mut left = bytes;
    while left > 0 {
        for word in block.chunks_exact_mut(8) {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            word.copy_from_slice(&state.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
        }
        let n = left.min(block.len() as u64) as usize;
        file.write_all(&block[..n]).expect("writing input");
        left -= n as u64;
    }
    file.flush().expect("writing input");
}

/// A temporary directory in `parent`, removed when it is dropped and
/// also on a panic: benchmarks abort on panic (the release profile), which
/// would leave a gigabyte or more behind.
fn scratch_dir(parent: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("tapebuf-rmt-bench.")
        .tempdir_in(parent)
        .unwrap_or_else(|e| panic!("creating a temporary directory in {parent}: {e}"));
    let scratch = dir.path().to_path_buf();
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = std::fs::remove_dir_all(&scratch);
        report(info);
    }));
    dir
}
