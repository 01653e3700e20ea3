//! `--pace` and `--no-pace` from the command line, with real processes and
//! real pipes: a paced run commits every byte and says how pacing went, a
//! stop during a paced wait ends the run at once with an exact count, and
//! a range that cannot work is refused naming the flag.

use crate::common;

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

#[test]
fn a_paced_run_into_a_slower_reader_learns_its_top_rate_and_commits_every_byte() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let output = dir.path().join("out");
    let data = pattern(150 << 20, 7);
    std::fs::write(&input, &data).unwrap();
    // The reader downstream is a real process limited to 30 MB/s: the
    // output pushes back, as a drive does.
    let mut reader = tapebuf()
        .args(["-q", "-r", "30MB", "-s", "256k", "-m", "4M", "-o"])
        .arg(&output)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let paced = tapebuf()
        .args(["--pace", "-m", "32M", "-s", "256k", "-i"])
        .arg(&input)
        .stdout(reader.stdin.take().unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = paced.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (reader_status, reader_err) = finish(&mut reader);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(reader_status.code(), Some(0), "{reader_err}");
    assert_eq!(summary_number(&stderr, "out "), data.len() as u64);
    assert_eq!(sha256_file(&output), sha256(&data));
    // The input outran the output all along: the ring never ran dry, so
    // no slower rate was needed, and the summary says so.
    let line = summary_line(&stderr);
    assert!(
        line.contains("pacing on, but no slower rate was needed or proven"),
        "{line}"
    );
    assert!(line.contains("(top, learned)"), "{line}");
}

#[test]
fn a_stop_during_a_paced_wait_ends_the_run_at_once_with_an_exact_count() {
    // 64 KiB blocks paced at 100 to 200 kB/s: every block waits.
    let args = ["--pace", "100kB:200kB", "-P", "10", "-s", "64k", "-m", "1M"];
    let mut child = spawn_piped(&args);
    let mut stdin = child.stdin.take().unwrap();
    let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        stdin.write_all(&pattern(4 << 20, 3)).unwrap();
        let _ = hold_rx.recv(); // keep stdin open: the input never ends
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut got = vec![0; 128 << 10];
    stdout.read_exact(&mut got).unwrap();
    wait_until_caught(child.id(), Signal::SIGINT);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    stdout.read_to_end(&mut got).unwrap();
    let (status, stderr) = finish(&mut child);
    drop(hold_tx);
    // It dies of the signal after the summary: the shell shows 130.
    assert_eq!(status.signal(), Some(libc::SIGINT), "{stderr}");
    let line = summary_line(&stderr);
    assert!(line.contains("interrupted by SIGINT"), "{line}");
    assert_eq!(summary_number(&stderr, "out "), got.len() as u64, "{line}");
    assert_eq!(
        got,
        pattern(4 << 20, 3)[..got.len()],
        "the bytes are the input's"
    );
}

#[test]
fn a_floor_above_the_top_rate_is_refused_naming_the_flag() {
    let out = run(&["--pace", "300MB:100MB"], Vec::new());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: --pace: the floor 300MB is above the top rate 100MB"
    );
}

#[test]
fn a_range_too_narrow_to_pace_is_refused_naming_the_flag_and_why() {
    // The pace keeps 5% above the floor: 1M:1M, and any top rate at most
    // 1.05 x the floor, would pace nothing while the summary said it had.
    for range in ["1M:1M", "100MB:105MB"] {
        let out = run(&["--pace", range], Vec::new());
        assert_eq!(out.status.code(), Some(2), "{range}: {}", out.stderr);
        let (min, max) = range.split_once(':').unwrap();
        assert!(
            out.stderr.starts_with(&format!(
                "tapebuf: --pace: the floor {min} leaves no room to pace below the top rate {max}: \
                 the pace keeps 5% above the floor, so the top rate must be above "
            )),
            "{}",
            out.stderr
        );
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    }
    let out = run(&["--pace", "1M:1100k", "-q"], b"abc".to_vec());
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, b"abc");
}

#[test]
fn a_floor_that_the_output_cap_leaves_no_room_above_is_refused() {
    // -R caps the range's top: 50M:200M under -R 50M would pace nothing.
    for (range, cap) in [("50M:200M", "50M"), ("50M", "52M")] {
        let out = run(&["--pace", range, "-R", cap], Vec::new());
        assert_eq!(
            out.status.code(),
            Some(2),
            "{range} -R {cap}: {}",
            out.stderr
        );
        let floor = range.split(':').next().unwrap();
        assert!(
            out.stderr.starts_with(&format!(
                "tapebuf: --pace: the floor {floor} leaves no room to pace below -R {cap}, \
                 the output's cap: the pace keeps 5% above the floor, so the top rate must be \
                 above "
            )),
            "{}",
            out.stderr
        );
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    }
    // Room left under the cap, or a range whose own top is below it: runs.
    for (range, cap) in [("40M:200M", "50M"), ("50M:60M", "100M")] {
        let out = run(&["--pace", range, "-R", cap, "-q"], b"abc".to_vec());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{range} -R {cap}: {}",
            out.stderr
        );
        assert_eq!(out.stdout, b"abc");
    }
}

#[test]
fn an_empty_pace_value_is_refused_and_pace_alone_still_learns() {
    let out = run(&["--pace="], Vec::new());
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: --pace: '--pace=' names no range: give MIN or MIN:MAX after '=', \
         or --pace alone to learn the range"
    );
    let out = run(&["--pace", "-q"], b"abc".to_vec());
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, b"abc");
}

#[test]
fn a_rate_that_is_not_a_rate_is_refused_naming_the_flag() {
    for bad in ["fast", "0", "40M:", ":100M"] {
        let out = run(&["--pace", bad], Vec::new());
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", out.stderr);
        assert!(
            out.stderr.starts_with("tapebuf: --pace: "),
            "{bad}: {}",
            out.stderr
        );
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    }
}

#[test]
fn pace_and_no_pace_together_are_refused() {
    let out = run(&["--pace", "--no-pace"], Vec::new());
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("--no-pace"), "{}", out.stderr);
}

#[test]
fn without_pace_a_pipe_output_says_nothing_of_pacing() {
    let out = run(&[], pattern(1 << 20, 1));
    assert_eq!(out.status.code(), Some(0));
    assert!(!summary_line(&out.stderr).contains("pac"), "{}", out.stderr);
}

/// Paced between 1 and 100 MB/s, restarting at 10%, in 64 KiB blocks.
const PACED_1_100: [&str; 6] = ["--pace", "1MB:100MB", "-P", "10", "-s", "64k"];

/// A slow producer, like tar on a dense filesystem: 64 KiB every 10 ms.
const TRICKLE: Feed = Feed::Slow {
    chunk: 64 << 10,
    pause: std::time::Duration::from_millis(10),
};

#[test]
fn a_volume_change_during_a_paced_run_is_not_taken_for_a_stopped_drive() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("backup");
    let target_s = target.display().to_string();
    // The change takes over a second, far longer than a stall.
    let change = "sleep 1.2 && mv \"$TAPEBUF_DEVICE\" \"$TAPEBUF_DEVICE.$((TAPEBUF_VOLUME - 1))\"";
    let data = pattern(4 << 20, 11);
    let mut args = PACED_1_100.to_vec();
    args.extend(["-m", "4M", "-D", "1M", "-A", change, "-o", &target_s]);
    // Slower than TRICKLE: the input goes on through both changes.
    let feed = Feed::Slow {
        chunk: 64 << 10,
        pause: std::time::Duration::from_millis(40),
    };
    let out = run_with(&args, data.clone(), feed, Drain::Fast);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let parts = [1, 2, 3].map(|n| dir.path().join(format!("backup.{n}")));
    let mut joined: Vec<u8> = parts
        .iter()
        .flat_map(|p| std::fs::read(p).unwrap())
        .collect();
    joined.extend(std::fs::read(&target).unwrap());
    assert_eq!(sha256(&joined), sha256(&data));
    let line = summary_line(&out.stderr);
    assert!(
        line.contains("paced between 1.1 MB/s (floor) and 100.0 MB/s (top)"),
        "{line}"
    );
    assert!(!line.contains("turned off"), "{line}");
}

#[test]
fn a_paced_run_to_several_files_that_never_push_back_is_never_paced() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let data = pattern(8 << 20, 5);
    let args = ["--pace", "-s", "64k", "-m", "2M", "-o"];
    let mut args: Vec<&str> = args.to_vec();
    let (a_s, b_s) = (a.display().to_string(), b.display().to_string());
    args.extend([a_s.as_str(), "-o", b_s.as_str()]);
    let out = run(&args, data.clone());
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(sha256_file(&a), sha256(&data));
    assert_eq!(sha256_file(&b), sha256(&data));
    // Whether the files swallowed half the ring at once before the input
    // ended depends on how the two threads met; either way nothing was
    // learned and nothing paced.
    let line = summary_line(&out.stderr);
    assert!(line.contains("pacing on, but the output "), "{line}");
    assert!(line.contains(" never pushed back"), "{line}");
    assert!(!line.contains("paced between"), "{line}");
}

#[test]
fn an_output_that_swallows_half_the_ring_at_once_gets_the_input_as_it_comes() {
    let dir = tempfile::tempdir().unwrap();
    let (file, json) = (dir.path().join("out"), dir.path().join("summary.json"));
    let (file_s, json_s) = (file.display().to_string(), json.display().to_string());
    let args = ["--pace", "-s", "64k", "-m", "2M", "-P", "90", "-o", &file_s];
    let mut args: Vec<&str> = args.to_vec();
    args.extend(["--summary-json", &json_s]);
    // A megabyte every 40 ms: the first burst, 1.8 MB from the high
    // watermark, goes into the file in far less than half a second, and
    // the ring runs dry in the pause after it.
    let data = pattern(12 << 20, 9);
    let feed = Feed::Slow {
        chunk: 1 << 20,
        pause: std::time::Duration::from_millis(40),
    };
    let out = run_with(&args, data.clone(), feed, Drain::Fast);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(sha256_file(&file), sha256(&data));
    assert_eq!(summary_number(&out.stderr, "out "), data.len() as u64);
    let line = summary_line(&out.stderr);
    assert!(
        line.contains(
            "pacing on, but the output took half the ring at once and never pushed back, \
             so it holds more than the ring: the input passed on as it came"
        ),
        "{line}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(summary["pace"]["swallowed"], true, "{summary}");
    assert_eq!(summary["pace"]["top_bps"], serde_json::Value::Null);
}

#[test]
fn a_paced_run_to_a_remote_tape_over_rmt_commits_every_byte() {
    common::needs::tool("/usr/sbin/rmt-tar", "tar");
    let dir = tempfile::tempdir().unwrap();
    let remote = dir.path().join("remote.tar");
    let rsh = format!("{}/tests/fixtures/rsh", env!("CARGO_MANIFEST_DIR"));
    let target = format!("vault:{}", remote.display());
    let data = pattern(4 << 20, 9);
    let mut args = vec!["--rsh-command", &rsh, "--rmt-command", "/usr/sbin/rmt-tar"];
    args.extend(PACED_1_100);
    args.extend(["-m", "2M", "-o", &target]);
    let out = run_with(&args, data.clone(), TRICKLE, Drain::Fast);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(sha256_file(&remote), sha256(&data));
    assert_eq!(summary_number(&out.stderr, "out "), data.len() as u64);
    let line = summary_line(&out.stderr);
    assert!(
        line.contains("paced between 1.1 MB/s (floor) and 100.0 MB/s (top)"),
        "{line}"
    );
}

#[test]
fn an_output_that_stops_while_paced_is_noticed_and_every_byte_still_lands() {
    let dir = tempfile::tempdir().unwrap();
    let (output, json) = (dir.path().join("out"), dir.path().join("summary.json"));
    let data = pattern(16 << 20, 13);
    // Downstream takes 1 MiB at once, then stands still for 3 s, then
    // takes the rest: a drive that stops though it is fed. The stop holds
    // a paced write, which the summary reports. The input lasts 5 s, so
    // the write is held before the input ends.
    let script = "dd bs=1M count=1 iflag=fullblock status=none; sleep 3; cat";
    let mut downstream = command("sh")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(std::fs::File::create(&output).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut args = PACED_1_100.to_vec();
    let json_s = json.display().to_string();
    args.extend(["-m", "8M", "--summary-json", &json_s]);
    let mut paced = tapebuf()
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(downstream.stdin.take().unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // 3.2 MB/s: the stop fills the pipe (1 MiB) but leaves the 8 MiB ring
    // room, so the held write was a paced one, not one at full speed
    // before a full ring.
    let feed = Feed::Slow {
        chunk: 64 << 10,
        pause: std::time::Duration::from_millis(20),
    };
    let feeder = feed_stdin(&mut paced, data.clone(), feed);
    let (status, stderr) = finish(&mut paced);
    feeder.join().unwrap();
    let (down_status, down_err) = finish(&mut downstream);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(down_status.code(), Some(0), "{down_err}");
    assert_eq!(summary_number(&stderr, "out "), data.len() as u64);
    assert_eq!(sha256_file(&output), sha256(&data));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let held = summary["pace"]["stall"]["held_s"].as_f64();
    assert!(held.is_some_and(|h| h >= 0.5), "{}", summary["pace"]);
    // Whether pacing went on after the stop (a fall the drive did not
    // follow) or was turned off (a steady pace) depends on where the
    // target stood when the pipe filled; either way the summary says it.
    let line = summary_line(&stderr);
    let went_on = line.contains("; the drive stopped once though fed at ");
    let turned_off = line.contains("pacing turned off at ")
        && line.contains(": the drive stopped though fed at ");
    assert!(went_on || turned_off, "{line}");
}
