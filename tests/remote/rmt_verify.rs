//! `--manifest` and `--verify` with an rmt output: each volume is read
//! back through the same session before it is closed or changed, against
//! the real GNU rmt server (/usr/sbin/rmt) and `tapebuf rmt` for a remote
//! file, and against tapebuf's own server on the emulated drive for a
//! remote tape, where a record can be damaged as it is read back. The
//! server side's exit status is checked too: a shell around the real
//! servers writes it to a file before the remote shell ends, and the
//! emulated drive's server hands back each session's outcome.

use crate::common;
pub mod drive;
use crate::rmt_client::support;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{pattern, summary_number, tapebuf};
use drive::{backup, drive_with_blanks, start_server};
use support::{rsh, run, write_file, GNU_RMT};
use tapebuf::manifest::schema::Manifest;

fn xxh3(data: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(data))
}

/// tapebuf with the rsh stand-in, running `server` there; the server's
/// exit status is appended to `exits`, one line per session.
fn through(server: &str, exits: &Path, args: &[&str]) -> Command {
    let remote = format!("{server}; echo $? >> '{}'", exits.display());
    let mut c = tapebuf();
    c.args(["--rsh-command", &rsh(), "--rmt-command", &remote])
        .args(args)
        .stdin(Stdio::null());
    c
}

fn server_exits(exits: &Path) -> String {
    std::fs::read_to_string(exits).unwrap_or_default()
}

/// A good run to a remote file: exit 0 on both sides, the file holds the
/// input, and the manifest holds its digest and a verified volume.
fn verifies_a_remote_file(server: &str, dir: &Path, target: &Path) {
    let data = pattern((3 << 20) + 4321, 31);
    let source = write_file(dir, "source", &data);
    let manifest = dir.join("m.json");
    let exits = dir.join("exits");
    let output = format!("localhost:{}", target.display());
    let (code, stderr, _) = run(through(
        server,
        &exits,
        &[
            "-i",
            source.to_str().unwrap(),
            "-o",
            &output,
            "-s",
            "64k",
            "--verify",
            "--manifest",
            manifest.to_str().unwrap(),
        ],
    ));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(server_exits(&exits), "0\n", "one session, ended well");
    assert!(std::fs::read(target).unwrap() == data);
    assert_eq!(summary_number(&stderr, "out "), data.len() as u64);
    let method = "rmt, read from the start through the same session; \
                  the server's page cache may serve it";
    assert!(
        stderr.contains(&format!("tapebuf: volume 1 ({output}): verified in ")),
        "{stderr}"
    );
    assert!(stderr.contains(&format!(" s ({method})\n")), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "tapebuf: verify: 1 volume of {output}: all match; read back 3.00 MiB in "
        )),
        "{stderr}"
    );

    let m = Manifest::load(&manifest).unwrap();
    assert!(m.clean);
    assert_eq!(m.output, output);
    assert_eq!(m.digest_algorithm, "xxh3");
    assert_eq!(m.stream.bytes, data.len() as u64);
    assert_eq!(m.stream.digest, xxh3(&data));
    assert_eq!(m.volumes.len(), 1);
    let v = &m.volumes[0];
    assert_eq!((v.number, v.name.as_str()), (1, output.as_str()));
    assert_eq!(
        (v.bytes, v.filemarks, v.complete),
        (data.len() as u64, 0, true)
    );
    assert_eq!(v.digest, xxh3(&data));
    let verified = v.verified.as_ref().expect("read back");
    assert!(verified.ok, "{verified:?}");
    assert_eq!(verified.method, method);
    assert_eq!(verified.problem, None);
}

#[test]
fn a_remote_file_is_read_back_through_gnu_rmt_and_the_manifest_holds_its_digest() {
    common::needs::tool(GNU_RMT, "tar");
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("backup.img");
    verifies_a_remote_file(GNU_RMT, dir.path(), &target);
}

#[test]
fn a_remote_file_is_read_back_through_tapebuf_rmt() {
    let dir = tempfile::tempdir().unwrap();
    let allowed = dir.path().join("backups");
    std::fs::create_dir(&allowed).unwrap();
    let server = format!("{} rmt --allow '{}/**'", common::BIN, allowed.display());
    verifies_a_remote_file(&server, dir.path(), &allowed.join("monday.img"));
}

#[test]
fn a_full_remote_device_still_writes_a_manifest_marked_unclean() {
    common::needs::tool(GNU_RMT, "tar");
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(dir.path(), "source", &pattern(600_000, 32));
    let manifest = dir.path().join("m.json");
    let exits = dir.path().join("exits");
    let (code, stderr, _) = run(through(
        GNU_RMT,
        &exits,
        &[
            "-i",
            source.to_str().unwrap(),
            "-o",
            "localhost:/dev/full",
            "--manifest",
            manifest.to_str().unwrap(),
        ],
    ));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "tapebuf: manifest: {}: written, marked unclean: it holds the 0 bytes committed",
            manifest.display()
        )),
        "{stderr}"
    );
    let m = Manifest::load(&manifest).unwrap();
    assert!(!m.clean);
    assert_eq!(m.stream.bytes, 0);
    assert_eq!(m.stream.digest, xxh3(b""));
    let why = m.unclean_because.unwrap();
    assert!(why.contains("is full before its first byte"), "{why}");
    assert_eq!(m.volumes.len(), 1);
    assert!(!m.volumes[0].complete);
    // The session was abandoned after the refusal: GNU rmt saw its input
    // end with the device open, which it answers and ends well.
    assert_eq!(server_exits(&exits), "0\n");
}

#[test]
fn every_remote_tape_volume_is_read_back_before_it_is_changed() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, shelf) = drive_with_blanks(3);
    let served = start_server(dir.path(), drive);
    let data = pattern(4 << 20, 34);
    let manifest = dir.path().join("m.json");
    let m_arg = manifest.to_str().unwrap();
    let (code, stderr) = backup(
        &served.rsh,
        &data,
        &["-A", "true", "--verify", "--manifest", m_arg],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(served.exits(2), vec![0, 0], "one session per volume");
    assert!(served.no_more_sessions());

    let method = "rmt, spaced back and read through the same session";
    let m = Manifest::load(&manifest).unwrap();
    assert!(m.clean);
    assert_eq!(m.stream.digest, xxh3(&data));
    assert_eq!(m.volumes.len(), 2);
    let lib = shelf.lock().unwrap();
    for (v, cart) in m.volumes.iter().zip(&lib.slots) {
        let on_tape = cart.first_file();
        assert_eq!(v.bytes, on_tape.len() as u64);
        assert_eq!(v.digest, xxh3(&on_tape));
        assert_eq!(v.filemarks, 1);
        assert_eq!(
            cart.filemarks(),
            2,
            "the data's filemark and the trailer's, each written once"
        );
        let verified = v.verified.as_ref().unwrap();
        assert!(verified.ok && verified.method == method, "{verified:?}");
        assert!(
            stderr.contains(&format!(
                "tapebuf: volume {} (vault:/dev/nst0): verified in ",
                v.number
            )),
            "{stderr}"
        );
    }
    let joined: Vec<u8> = lib.slots.iter().flat_map(|c| c.first_file()).collect();
    assert!(joined == data);
}

#[test]
fn a_record_damaged_on_reading_back_names_its_offset_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, shelf) = drive_with_blanks(1);
    let served = start_server(dir.path(), drive);
    *served.damage_read.lock().unwrap() = Some(5);
    let data = pattern(1 << 20, 35);
    let manifest = dir.path().join("m.json");
    let m_arg = manifest.to_str().unwrap();
    let (code, stderr) = backup(&served.rsh, &data, &["--verify", "--manifest", m_arg]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(served.exits(1), vec![0], "the server side ended well");
    let problem = "differs in record 5, which starts at byte 327680 of the volume";
    assert!(
        stderr.contains(&format!(
            "tapebuf: volume 1 (vault:/dev/nst0): verify FAILED: {problem}\n"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("tapebuf: verify: 1 volume of vault:/dev/nst0: 1 FAILED; read back"),
        "{stderr}"
    );
    // The tape itself holds the stream: only the read was damaged.
    let lib = shelf.lock().unwrap();
    assert!(lib.slots[0].first_file() == data);
    let m = Manifest::load(&manifest).unwrap();
    let verified = m.volumes[0].verified.as_ref().unwrap();
    assert!(!verified.ok);
    assert_eq!(verified.problem.as_deref(), Some(problem));
    assert_eq!(verified.first_bad_byte, Some(5 * 65536));
    assert_eq!(m.stream.digest, xxh3(&data));
}

#[test]
fn a_declined_change_leaves_an_unclean_manifest_with_the_verified_first_volume() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, shelf) = drive_with_blanks(2);
    let served = start_server(dir.path(), drive);
    let data = pattern(5 << 20, 36);
    let manifest = dir.path().join("m.json");
    let m_arg = manifest.to_str().unwrap();
    let (code, stderr) = backup(
        &served.rsh,
        &data,
        &["-A", "exit 3", "--verify", "--manifest", m_arg],
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(served.exits(1), vec![0], "the first volume's session");
    let on_first = shelf.lock().unwrap().slots[0].first_file();
    assert!(data.starts_with(&on_first) && on_first.len() >= 2 << 20);
    let m = Manifest::load(&manifest).unwrap();
    assert!(!m.clean);
    assert_eq!(m.stream.bytes, on_first.len() as u64);
    assert_eq!(m.stream.digest, xxh3(&on_first));
    let why = m.unclean_because.as_deref().unwrap();
    assert!(
        why.contains(&format!("{} bytes are safe on volume 1", on_first.len())),
        "{why}"
    );
    let first = &m.volumes[0];
    assert!(first.complete && first.verified.as_ref().unwrap().ok);
    assert!(
        stderr.contains(&format!(
            "tapebuf: manifest: {m_arg}: written, marked unclean: it holds the {} bytes committed",
            on_first.len()
        )),
        "{stderr}"
    );
}
