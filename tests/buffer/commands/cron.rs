//! The README's cron example, run exactly as printed (the one line that
//! ends `|| logger -t backup ...`), two nights in a row, and with a tar
//! that fails. It runs in a private mount namespace: a tmpfs on /srv holds
//! /srv/backup, and for the failing night another on /etc holds a file
//! that tar, run as nobody, cannot read. `logger` is a stub that records
//! what it was asked to log; `tapebuf` is the binary under test. The man
//! page and docs/cron.md print the same line.

use std::path::Path;

use crate::common::{self, needs, BIN};

const README: &str = include_str!("../../../README.md");
const MAN: &str = include_str!("../../../man/tapebuf.1");
const CRON_DOC: &str = include_str!("../../../docs/cron.md");

/// The example: the one README line that calls logger.
fn example() -> &'static str {
    let lines: Vec<&str> = README
        .lines()
        .map(str::trim)
        .filter(|l| l.contains("|| logger -t backup"))
        .collect();
    assert_eq!(lines.len(), 1, "the README prints one cron line: {lines:?}");
    lines[0]
}

/// What one night left: the shell's status, its stdout and stderr, what
/// logger was asked to log, and the backup's files.
struct Night {
    status: String,
    out: String,
    err: String,
    logged: String,
    manifest: String,
    tar_listing_ok: bool,
}

/// Runs the example on `nights` nights in a private mount namespace;
/// `failing`: /etc holds a file tar cannot read, and the example runs as
/// nobody.
fn nights(count: usize, failing: bool) -> Vec<Night> {
    needs::root("unshare --mount, mount a tmpfs on /srv and /etc, setpriv");
    needs::tool("unshare", "util-linux");
    needs::tool("setpriv", "util-linux");
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    std::fs::create_dir(w.join("bin")).unwrap();
    std::os::unix::fs::symlink(BIN, w.join("bin/tapebuf")).unwrap();
    std::fs::write(
        w.join("bin/logger"),
        "#!/bin/sh\necho \"$*\" >>\"$WORK/logged\"\n",
    )
    .unwrap();
    std::fs::write(w.join("line"), example()).unwrap();
    let as_user = if failing {
        "setpriv --reuid=65534 --regid=65534 --clear-groups"
    } else {
        ""
    };
    let etc = if failing {
        "mount -t tmpfs tmpfs /etc && echo ok >/etc/readable && echo secret >/etc/unreadable && chmod 000 /etc/unreadable"
    } else {
        "true"
    };
    let script = format!(
        r#"set -e
mount -t tmpfs tmpfs /srv && mkdir -m 1777 /srv/backup
{etc}
chmod 777 "$WORK" "$WORK/bin"; chmod 755 "$WORK/bin/logger"
for n in $(seq {count}); do
  set +e
  {as_user} env -i PATH="$WORK/bin:/usr/bin:/bin" WORK="$WORK" sh -c "$(cat "$WORK/line")" >"$WORK/out$n" 2>"$WORK/err$n"
  echo $? >"$WORK/status$n"
  cp /srv/backup/etc.json "$WORK/manifest$n" 2>/dev/null
  tar tf /srv/backup/etc.tar >/dev/null 2>&1 && touch "$WORK/listed$n"
  set -e
done"#
    );
    let out = common::command("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .env("WORK", w)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the namespace: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |name: &str| std::fs::read_to_string(w.join(name)).unwrap_or_default();
    (1..=count)
        .map(|n| Night {
            status: read(&format!("status{n}")).trim().to_string(),
            out: read(&format!("out{n}")),
            err: read(&format!("err{n}")),
            logged: read("logged"),
            manifest: read(&format!("manifest{n}")),
            tar_listing_ok: Path::new(&w.join(format!("listed{n}"))).exists(),
        })
        .collect()
}

#[test]
fn the_readme_cron_example_is_silent_on_two_good_nights_in_a_row() {
    for (n, night) in nights(2, false).iter().enumerate() {
        let what = format!("night {}: {}", n + 1, night.err);
        assert_eq!(night.status, "0", "{what}");
        assert_eq!(night.out, "", "{what}");
        assert_eq!(night.err, "", "{what}");
        assert_eq!(night.logged, "", "{what}");
        assert!(
            night.manifest.contains("\"clean\": true"),
            "{what}: {}",
            night.manifest
        );
        assert!(
            night.tar_listing_ok,
            "{what}: the backup is a whole tar archive"
        );
    }
}

#[test]
fn the_readme_cron_example_logs_one_line_when_tar_fails() {
    let night = &nights(1, true)[0];
    assert_eq!(
        night.logged, "-t backup tapebuf failed: 1\n",
        "{}",
        night.err
    );
    let first = night.err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("tapebuf: the producer `tar cf - /etc` exited with status 2"),
        "{}",
        night.err
    );
    assert!(first.contains("Permission denied"), "{first}");
    assert!(
        night.manifest.contains("\"clean\": false"),
        "{}",
        night.manifest
    );
}

#[test]
fn the_man_page_and_docs_print_the_readme_cron_example() {
    let line = example();
    let man: String = MAN
        .replace("\\-", "-")
        .replace("\\(aq", "'")
        .replace("\\(dq", "\"")
        .replace("\\e", "\\");
    assert!(
        man.lines().any(|l| l.trim() == line),
        "man/tapebuf.1 lacks: {line}"
    );
    assert!(
        CRON_DOC.lines().any(|l| l.trim() == line),
        "docs/cron.md lacks: {line}"
    );
}
