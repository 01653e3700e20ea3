//! The files the alias matrix runs against: a small backup made once
//! (three file volumes, its manifest, catalog and `--stats` recording,
//! with a symlink and a hard link to each file a spelling names), what
//! each option is given when it is not under test, and the words each
//! command needs besides.

use tapebuf::cli::path_roles::BUFFER;

use crate::common;

/// What an option is given when it is not the one under test, and the
/// file its value stands for when it is the read side of a pair. None:
/// a device (a changer, a drive), which no file in a test can stand for.
pub fn fixture(command: &str, id: &str) -> Option<(&'static str, &'static str)> {
    Some(match (command, id) {
        (BUFFER, "input") => ("full.tar", "full.tar"),
        (BUFFER, "outputs") => ("out.bin", "out.bin"),
        (BUFFER, "hash_file" | "manifest" | "log" | "summary_json" | "stats") => ("r.txt", "r.txt"),
        (BUFFER, "key") => ("tb.key", "tb.key"),
        (BUFFER | "verify" | "extract", "encrypt_key") => ("tape.key", "tape.key"),
        (BUFFER, "allow_keys") => ("senders", "senders"),
        (BUFFER, "ca") => ("ca.pem", "ca.pem"),
        (BUFFER, "cert") => ("tb.pem", "tb.pem"),
        ("rmt", "config") => ("rmt.conf", "rmt.conf"),
        ("rmt", "log") => ("rmt.log", "rmt.log"),
        ("report", "file") => ("st.json", "st.json"),
        ("report", "output") => ("pic.svg", "pic.svg"),
        ("verify" | "extract" | "ls", "manifest") => ("home.json", "home.json"),
        ("verify" | "extract", "input") => ("vol.%03d", "vol.002"),
        ("extract", "output") => ("free/x.tar", "x.tar"),
        ("ls", "catalog") => ("home.catalog", "home.catalog"),
        // A device, or a directory (--key-dir), which no output can be
        // the same file as: an output that is a directory fails to open.
        (_, "changer" | "device" | "target" | "key_dir") => return None,
        other => panic!("no fixture for {other:?}: add one with the option"),
    })
}

/// A well-formed fingerprint for `--pin` and the allowed keys' file.
const PIN: &str = "SHA256:YW7ENw3OA009+EmJxYHnm+WzMc0T1jtx1W9nb/PEyeE";

/// The words every run of `command` begins with, and what it needs
/// besides the options under test.
pub fn base(command: &str, given: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    let has = |id: &str| given.contains(&id);
    match command {
        BUFFER => {
            args.extend(["-q", "-f"].map(String::from));
            // The keys need a network end: a receiver's -I (instead of
            // -i), with its key and the senders it allows.
            // With a site's CA (--ca, --cert), both and no allowed keys.
            let vouched = has("ca") || has("cert");
            let keyed = has("key") || has("allow_keys") || vouched;
            if keyed {
                args.extend(["-I", "127.0.0.1:0"].map(String::from));
            }
            if keyed && !has("key") {
                args.extend(["--key", "tb.key"].map(String::from));
            }
            if keyed && !has("allow_keys") && !vouched {
                args.extend(["--allow-key", PIN].map(String::from));
            }
            if vouched && !has("ca") {
                args.extend(["--ca", "ca.pem"].map(String::from));
            }
            if vouched && !has("cert") {
                args.extend(["--cert", "tb.pem"].map(String::from));
            }
            if !has("input") && !keyed {
                args.extend(["-i", "full.tar"].map(String::from));
            }
            if !has("outputs") {
                args.extend(["-o", "free/out.bin"].map(String::from));
            }
            if has("hash_file") {
                args.extend(["--hash", "xxh3"].map(String::from));
            }
        }
        "extract" => {
            args.extend(["extract", "-f"].map(String::from));
            if !has("manifest") {
                args.extend(["--manifest", "home.json"].map(String::from));
            }
            if !has("output") {
                args.extend(["-o", "free/x.tar"].map(String::from));
            }
        }
        "verify" | "ls" => {
            args.push(command.to_string());
            if !has("manifest") {
                args.extend(["--manifest", "home.json"].map(String::from));
            }
        }
        other => args.push(other.to_string()),
    }
    args
}

/// A backup of a small tree (three file volumes, its manifest, catalog
/// and `--stats` recording) and the links each spelling needs.
pub fn backup() -> tempfile::TempDir {
    common::needs::tool("tar", "tar");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::create_dir_all(root.join("free")).unwrap();
    std::fs::write(root.join("d/a"), b"hello\n").unwrap();
    std::fs::write(root.join("d/b"), common::pattern(300_000, 45)).unwrap();
    let tar = common::command("tar")
        .current_dir(root)
        .args(["--format=gnu", "-cf", "full.tar", "d"])
        .output()
        .unwrap();
    assert!(tar.status.success());
    let out = common::tapebuf()
        .current_dir(root)
        .args([
            "-q", "-i", "full.tar", "-o", "vol.%03d", "-D", "128k", "-s", "16k",
        ])
        .args(["--manifest", "home.json", "--catalog", "--stats", "st.json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(root.join("rmt.conf"), "read-only\n").unwrap();
    let key = common::tapebuf()
        .current_dir(root)
        .args(["key", "new", "tb.key", "--name", "tb"])
        .output()
        .unwrap();
    assert!(
        key.status.success(),
        "{}",
        String::from_utf8_lossy(&key.stderr)
    );
    std::fs::write(root.join("senders"), format!("{PIN} peer\n")).unwrap();
    let tape_key = common::tapebuf()
        .current_dir(root)
        .args(["key", "new", "--tape", "tape.key"])
        .output()
        .unwrap();
    assert!(
        tape_key.status.success(),
        "{}",
        String::from_utf8_lossy(&tape_key.stderr)
    );
    site_ca(root);
    // A file two writers share: a manifest, so that the buffer's
    // --manifest takes it for the one it writes (with -f), not one to
    // check against.
    std::fs::copy(root.join("home.json"), root.join("shared.out")).unwrap();
    for name in [
        "full.tar",
        "vol.002",
        "home.json",
        "home.catalog",
        "st.json",
        "rmt.conf",
        "shared.out",
        "tb.key",
        "tape.key",
        "senders",
        "ca.pem",
        "tb.pem",
    ] {
        std::os::unix::fs::symlink(name, root.join(format!("L.{name}"))).unwrap();
        std::fs::hard_link(root.join(name), root.join(format!("H.{name}"))).unwrap();
    }
    dir
}

/// A site's CA (`ca.pem`) and the certificate it issues for `tb.key`
/// (`tb.pem`), made by openssl, for `--ca` and `--cert`.
fn site_ca(root: &std::path::Path) {
    let openssl = |line: &str| {
        let args: Vec<&str> = line.split_whitespace().collect();
        let out = common::command(common::needs::tool("openssl", "openssl"))
            .current_dir(root)
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "openssl {line}: {err}");
    };
    openssl("req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -subj /CN=ca -days 3");
    openssl("req -new -key tb.key -subj /CN=tb -addext subjectAltName=DNS:tb -out tb.csr");
    openssl("x509 -req -in tb.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -copy_extensions copy -out tb.pem");
}
