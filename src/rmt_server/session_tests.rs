//! Whole sessions in-process, over byte buffers: the exact replies, the
//! bytes that reach the file or drive, and what the log says.

use std::io::Cursor;

use super::*;
use crate::rmt_server::drive_target::DriveOpener;
use crate::rmt_server::log::tests::Captured;
use crate::rmt_server::target::FileOpener;
use crate::tape::emulated::{Cartridge, Emulated};

struct Ran {
    replies: Vec<u8>,
    outcome: Outcome,
    log: String,
}

fn run(input: &[u8], policy: &Policy, opener: &mut dyn Opener) -> Ran {
    let captured = Captured::default();
    let log = Log::to_writer(Box::new(captured.clone()));
    let mut replies = Vec::new();
    let outcome = serve(
        &mut Cursor::new(input.to_vec()),
        &mut replies,
        policy,
        opener,
        &log,
    );
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    Ran {
        replies,
        outcome,
        log,
    }
}

fn temp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

fn allow_under(root: &Path) -> Policy {
    Policy::new([format!("{}/**", root.display())]).unwrap()
}

#[test]
fn writes_reads_back_and_stays_after_close() {
    let (_dir, root) = temp();
    let file = root.join("a.tar");
    let f = file.display();
    let input = format!(
        "O{f}\n65 O_WRONLY|O_CREAT\nW5\nhelloW3\nabcC\nO{f}\n0 O_RDONLY\nR4\nR100\nR4\nL0\n0\nR2\nC\n"
    );
    let ran = run(input.as_bytes(), &allow_under(&root), &mut FileOpener);
    assert_eq!(
        ran.replies,
        b"A0\nA5\nA3\nA0\nA0\nA4\nhellA4\noabcA0\nA0\nA2\nheA0\n"
    );
    assert_eq!(ran.outcome, Outcome::Finished);
    assert_eq!(std::fs::read(&file).unwrap(), b"helloabc");
}

#[test]
fn write_without_a_device_consumes_its_data_and_keeps_in_step() {
    let ran = run(b"W4\nS\nR\nR4\nS\n", &Policy::allow_all(), &mut FileOpener);
    let e9 = "E9\nBad file descriptor: no device is open\n";
    assert_eq!(String::from_utf8(ran.replies).unwrap(), e9.repeat(3));
    assert_eq!(ran.outcome, Outcome::Finished);
}

#[test]
fn end_of_medium_is_e28_for_each_queued_write_and_only_full_records_count() {
    let (drive, shelf) = Emulated::new("emu", vec![Cartridge::blank(100, 30)]);
    let mut opener = DriveOpener::new(Box::new(drive));
    let mut input = b"O/dev/nst0\n1 O_WRONLY\n".to_vec();
    for fill in 1u8..=6 {
        input.extend_from_slice(b"W20\n");
        input.extend(std::iter::repeat_n(fill, 20));
    }
    input.extend_from_slice(b"I5\n1\nC\n");
    let ran = run(&input, &Policy::tape_devices(), &mut opener);
    assert_eq!(
        String::from_utf8(ran.replies).unwrap(),
        "A0\nA20\nA20\nA20\nA20\nE28\nNo space left on device\nA20\nA0\nA0\n"
    );
    let lib = shelf.lock().unwrap();
    assert_eq!(lib.slots[0].record_sizes(), vec![20; 5]);
    assert_eq!(
        lib.slots[0].items.last(),
        Some(&crate::tape::emulated::Item::Filemark)
    );
    assert!(
        ran.log
            .contains("close /dev/nst0: 100 bytes written, 0 bytes read"),
        "{}",
        ran.log
    );
    assert!(
        ran.log.contains("MTWEOF 1 on /dev/nst0: done"),
        "{}",
        ran.log
    );
}

#[test]
fn status_is_a_raw_mtget_and_seek_on_a_tape_is_espipe() {
    let (drive, _shelf) = Emulated::new("emu", vec![Cartridge::blank(100, 0)]);
    let mut opener = DriveOpener::new(Box::new(drive));
    let ran = run(
        b"O/dev/nst0\n0 O_RDONLY\nS\nL0\n0\nI12\n1\n",
        &Policy::tape_devices(),
        &mut opener,
    );
    let size = std::mem::size_of::<crate::tape::drive::mtio::MtGet>();
    let head = format!("A0\nA{size}\n");
    assert!(ran.replies.starts_with(head.as_bytes()));
    let rest = &ran.replies[head.len() + size..];
    assert_eq!(
        String::from_utf8(rest.to_vec()).unwrap(),
        "E29\nIllegal seek\nE25\nInappropriate ioctl for device\n"
    );
}

#[test]
fn the_log_records_opens_refusals_and_closes_with_counts() {
    let (_dir, root) = temp();
    let f = root.join("a.tar");
    let input = format!(
        "O/etc/passwd\n0 O_RDONLY\nO{}\n577 O_WRONLY|O_CREAT|O_TRUNC\nW3\nabcC\n",
        f.display()
    );
    let ran = run(input.as_bytes(), &allow_under(&root), &mut FileOpener);
    assert!(ran
        .replies
        .starts_with(b"E13\nPermission denied: /etc/passwd is outside the allowed paths\n"));
    let lines: Vec<&str> = ran
        .log
        .lines()
        .map(|l| l.split_once("]: ").unwrap().1)
        .collect();
    assert_eq!(
        lines,
        vec![
            format!("session start; policy: allow {}/**", root.display()),
            "open /etc/passwd O_RDONLY: refused: /etc/passwd is outside the allowed paths"
                .to_string(),
            format!("open {} O_WRONLY|O_CREAT|O_TRUNC: allowed", f.display()),
            format!("close {}: 3 bytes written, 0 bytes read", f.display()),
            "session end: end of input; 3 bytes written, 0 bytes read".to_string(),
        ]
    );
}

#[test]
fn a_new_open_closes_the_old_device_even_when_refused() {
    let (_dir, root) = temp();
    let f = root.join("a.tar");
    let input = format!(
        "O{f}\n65 O_WRONLY|O_CREAT\nO{f}\n0 O_BOGUS\nW1\nx",
        f = f.display()
    );
    let ran = run(input.as_bytes(), &allow_under(&root), &mut FileOpener);
    assert_eq!(
        String::from_utf8(ran.replies).unwrap(),
        "A0\nE22\nInvalid argument: unknown open flag \"O_BOGUS\"\n\
         E9\nBad file descriptor: no device is open\n"
    );
    assert!(ran
        .log
        .contains(&format!("close {}: 0 bytes written", f.display())));
}

#[test]
fn a_fatal_request_is_answered_then_ends_the_session() {
    let (_dir, root) = temp();
    let f = root.join("a.tar");
    let input = format!("O{}\n65 O_WRONLY|O_CREAT\nW99999999999\nS\n", f.display());
    let ran = run(input.as_bytes(), &allow_under(&root), &mut FileOpener);
    assert_eq!(
        String::from_utf8(ran.replies).unwrap(),
        format!(
            "A0\nE22\nInvalid argument: W count 99999999999 is above the maximum record \
             size of {MAX_RECORD_BYTES} bytes\n"
        )
    );
    assert_eq!(ran.outcome, Outcome::Violation);
    assert_eq!(ran.outcome.exit_code(), 1);
    assert!(
        ran.log.contains("close "),
        "the device is closed: {}",
        ran.log
    );
}

#[test]
fn input_ending_inside_write_data_writes_nothing() {
    let (_dir, root) = temp();
    let f = root.join("a.tar");
    let input = format!("O{}\n65 O_WRONLY|O_CREAT\nW10\nabc", f.display());
    let ran = run(input.as_bytes(), &allow_under(&root), &mut FileOpener);
    assert_eq!(ran.replies, b"A0\n");
    assert_eq!(ran.outcome, Outcome::Truncated);
    assert_eq!(std::fs::read(&f).unwrap(), b"");
}

#[test]
fn a_read_only_server_refuses_writing_tape_operations() {
    let (drive, shelf) = Emulated::new("emu", vec![Cartridge::blank(100, 0)]);
    let mut opener = DriveOpener::new(Box::new(drive));
    let policy = Policy::tape_devices().read_only(true);
    let ran = run(
        b"O/dev/nst0\n0 O_RDONLY\nI5\n1\nI6\n1\n",
        &policy,
        &mut opener,
    );
    assert_eq!(
        String::from_utf8(ran.replies).unwrap(),
        "A0\nE13\nPermission denied: MTWEOF writes to the tape and this server is \
         read-only\nA0\n"
    );
    assert_eq!(shelf.lock().unwrap().slots[0].filemarks(), 0);
}

#[test]
fn repeated_errors_are_logged_once_then_counted() {
    let input = b"W1\nx".repeat(4);
    let ran = run(&input, &Policy::allow_all(), &mut FileOpener);
    let lines: Vec<&str> = ran.log.lines().collect();
    assert_eq!(lines.len(), 4, "{}", ran.log);
    assert!(lines[2].ends_with("the previous message was repeated 3 more times"));
}

/// Swaps `root/d` for a link to `root/outside` just before opening, as
/// another local user might between the policy's check and the open.
struct SwapBeforeOpen {
    root: PathBuf,
    seen_root: Option<PathBuf>,
}

impl Opener for SwapBeforeOpen {
    fn open(&mut self, path: &Path, flags: OpenFlags) -> io::Result<Box<dyn Target>> {
        FileOpener.open(path, flags)
    }

    fn open_beneath(
        &mut self,
        root: &Path,
        path: &Path,
        flags: OpenFlags,
    ) -> io::Result<Box<dyn Target>> {
        self.seen_root = Some(root.to_path_buf());
        std::fs::rename(self.root.join("d"), self.root.join("d.real"))?;
        std::os::unix::fs::symlink("outside", self.root.join("d"))?;
        FileOpener.open_beneath(root, path, flags)
    }
}

#[test]
fn a_directory_swapped_for_a_link_after_the_check_is_refused_with_a_clear_reply() {
    let (_dir, root) = temp();
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::create_dir_all(root.join("outside")).unwrap();
    std::fs::write(root.join("d/f"), b"inside").unwrap();
    std::fs::write(root.join("outside/f"), b"SECRET").unwrap();
    let policy = Policy::new([format!("{}/d/**", root.display())]).unwrap();
    let f = root.join("d/f");
    let input = format!("O{}\n0 O_RDONLY\nR64\n", f.display());
    let mut opener = SwapBeforeOpen {
        root: root.clone(),
        seen_root: None,
    };
    let ran = run(input.as_bytes(), &policy, &mut opener);
    let expected = format!(
        "E40\nToo many levels of symbolic links: {}: a symbolic link is on the way, \
         and this server follows none when opening\nE9\nBad file descriptor: no device is open\n",
        f.display()
    );
    assert_eq!(String::from_utf8_lossy(&ran.replies), expected);
    assert_eq!(opener.seen_root, Some(root.join("d")));
    assert!(ran.log.contains("allowed, but failed"), "{}", ran.log);
}

#[test]
fn flags_and_operations_this_server_does_not_take_are_refused_in_step() {
    let cases: [(&[u8], &str); 2] = [
        (b"I24\n1\n", "tape operation 24 is not supported"),
        (
            b"O/x\n0 O_RDONLY|O_BOGUS\n",
            "unknown open flag \"O_BOGUS\"",
        ),
    ];
    for (bytes, why) in cases {
        let mut input = bytes.to_vec();
        input.extend_from_slice(b"S\n");
        let ran = run(&input, &Policy::allow_all(), &mut FileOpener);
        let replies = String::from_utf8(ran.replies).unwrap();
        let (refusal, next) = replies.split_once("\nE9\n").unwrap();
        assert!(
            refusal.starts_with("E22\nInvalid argument: ") && refusal.contains(why),
            "{refusal} lacks {why}"
        );
        // The next request is read normally: nothing was left behind.
        assert_eq!(
            next, "Bad file descriptor: no device is open\n",
            "after {why}"
        );
        assert_eq!(ran.outcome, Outcome::Finished);
        assert!(ran.log.contains("request refused: E22"), "{}", ran.log);
    }
}
