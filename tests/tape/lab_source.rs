//! Where the tape lab gets mhvtl's source, and how it checks it against
//! the pin (`tests/tapelab/mhvtl.pin`), without booting anything:
//! `lab.sh source` only finds the source and prints its path.
//!
//! Each test runs a copy of `lab.sh` in a scratch tree shaped like a
//! checkout (`repo/tests/tapelab/`, with `shared/tapelab/` beside `repo`),
//! with its own pin and its own cache (`XDG_CACHE_HOME`). The repository it
//! clones is a local one made here (`TAPEBUF_MHVTL_URL`, a `file://` URL),
//! so no test touches the network.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use sha2::{Digest, Sha256};

use crate::common::{self, needs};

/// A commit that no repository made here has.
const ABSENT_COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
/// A URL with no repository behind it: the clone fails at once.
const NO_REPOSITORY: &str = "file:///nonexistent/mhvtl";

/// A scratch checkout holding a copy of lab.sh and a pin.
struct Lab {
    dir: tempfile::TempDir,
}

impl Lab {
    /// A checkout whose pin is the committed one.
    fn with_committed_pin() -> Lab {
        let lab = Lab::empty();
        let pin = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tapelab/mhvtl.pin");
        fs::copy(pin, lab.pin()).unwrap();
        lab
    }

    /// A checkout whose pin names `commit` and `sha256`.
    fn pinned(commit: &str, sha256: &str) -> Lab {
        let lab = Lab::empty();
        let pin = format!("url={NO_REPOSITORY}\ncommit={commit}\nsha256={sha256}\n");
        fs::write(lab.pin(), pin).unwrap();
        lab
    }

    fn empty() -> Lab {
        needs::tool("git", "git");
        let dir = tempfile::tempdir().unwrap();
        let tapelab = dir.path().join("repo/tests/tapelab");
        fs::create_dir_all(&tapelab).unwrap();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tapelab/lab.sh");
        fs::copy(script, tapelab.join("lab.sh")).unwrap();
        Lab { dir }
    }

    fn pin(&self) -> PathBuf {
        self.dir.path().join("repo/tests/tapelab/mhvtl.pin")
    }

    /// The cache lab.sh keeps clones in, under this lab's XDG_CACHE_HOME.
    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache/tapebuf")
    }

    /// Puts `bytes` at ../shared/tapelab/`name` beside the checkout.
    fn share(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let shared = self.dir.path().join("shared/tapelab");
        fs::create_dir_all(&shared).unwrap();
        fs::write(shared.join(name), bytes).unwrap();
        shared.join(name)
    }

    /// Runs `lab.sh source`, cloning from `url` when it gets that far.
    fn source(&self, url: &str, mhvtl_src: Option<&Path>) -> Output {
        let mut lab = common::command("bash");
        lab.arg(self.dir.path().join("repo/tests/tapelab/lab.sh"))
            .arg("source")
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("TAPEBUF_MHVTL_URL", url)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("MHVTL_SRC");
        if let Some(src) = mhvtl_src {
            lab.env("MHVTL_SRC", src);
        }
        lab.output().unwrap()
    }
}

/// A git repository standing in for mhvtl's: a file VERSION that says
/// "one" in the first commit and "two" in the second. Returns its file://
/// URL and the first commit's id.
fn upstream(dir: &Path) -> (String, String) {
    let repo = dir.join("upstream");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--quiet"]);
    for version in ["one", "two"] {
        fs::write(repo.join("VERSION"), version).unwrap();
        git(&repo, &["add", "VERSION"]);
        git(&repo, &["commit", "--quiet", "-m", version]);
    }
    let first = git(&repo, &["rev-parse", "HEAD~1"]);
    (format!("file://{}", repo.display()), first)
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = common::command("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "lab")
        .env("GIT_AUTHOR_EMAIL", "lab@example.invalid")
        .env("GIT_COMMITTER_NAME", "lab")
        .env("GIT_COMMITTER_EMAIL", "lab@example.invalid")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    text(&out.stdout).trim().to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The VERSION file inside the tarball at `path`.
fn version_in(path: &Path) -> String {
    let out = common::command("tar")
        .arg("-xzOf")
        .arg(path)
        .args(["--wildcards", "*/VERSION"])
        .output()
        .unwrap();
    assert!(out.status.success(), "tar: {}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn a_clone_is_archived_at_the_pinned_commit_into_the_cache_and_used_from_there() {
    let scratch = tempfile::tempdir().unwrap();
    let (url, first) = upstream(scratch.path());
    let lab = Lab::pinned(&first, &"0".repeat(64));

    let out = lab.source(&url, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let cached = lab.cache().join(format!("mhvtl-{first}.tar.gz"));
    assert_eq!(text(&out.stdout).trim(), cached.display().to_string());
    // The pinned commit, not the branch's newer tip.
    assert_eq!(version_in(&cached), "one");

    // Now the cache serves, with nothing to clone from.
    let again = lab.source(NO_REPOSITORY, None);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert_eq!(again.stdout, out.stdout);
    assert!(text(&again.stderr).contains("(cached, a git archive of the pinned commit)"));
}

#[test]
fn a_repository_without_the_pinned_commit_is_refused_and_nothing_is_cached() {
    let scratch = tempfile::tempdir().unwrap();
    let (url, _) = upstream(scratch.path());
    let lab = Lab::pinned(ABSENT_COMMIT, &"0".repeat(64));

    let out = lab.source(&url, None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "tapelab: ERROR: {url} has no commit {ABSENT_COMMIT}"
        )),
        "{stderr}"
    );
    let left: Vec<_> = fs::read_dir(lab.cache()).unwrap().collect();
    assert!(left.is_empty(), "the cache holds {left:?}");
}

#[test]
fn a_cached_tarball_of_another_commit_is_refused() {
    let scratch = tempfile::tempdir().unwrap();
    let (url, first) = upstream(scratch.path());
    let made = Lab::pinned(&first, &"0".repeat(64));
    assert_eq!(made.source(&url, None).status.code(), Some(0));

    // The same archive, filed under a commit it is not.
    let lab = Lab::pinned(ABSENT_COMMIT, &"0".repeat(64));
    fs::create_dir_all(lab.cache()).unwrap();
    let mislabelled = lab.cache().join(format!("mhvtl-{ABSENT_COMMIT}.tar.gz"));
    fs::copy(
        made.cache().join(format!("mhvtl-{first}.tar.gz")),
        &mislabelled,
    )
    .unwrap();

    let out = lab.source(NO_REPOSITORY, None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{} is no git archive of the pinned commit",
            mislabelled.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("it names '{first}'")), "{stderr}");
}

#[test]
fn a_shared_tarball_is_used_only_when_its_sha256_is_the_pinned_one() {
    let tarball = b"stands in for mhvtl's tarball";
    let digest = sha256_hex(tarball);

    let right = Lab::pinned(ABSENT_COMMIT, &digest);
    let shared = right.share("mhvtl-abc1234.tar.gz", tarball);
    let out = right.source(NO_REPOSITORY, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), shared.display().to_string());

    let pinned = "f".repeat(64);
    let wrong = Lab::pinned(ABSENT_COMMIT, &pinned);
    let shared = wrong.share("mhvtl-abc1234.tar.gz", tarball);
    let out = wrong.source(NO_REPOSITORY, None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("tapelab: ERROR: ") && l.contains(&shared.display().to_string()))
        .unwrap_or_else(|| panic!("no error line names {}:\n{stderr}", shared.display()));
    assert!(line.contains(&digest) && line.contains(&pinned), "{line}");
    assert!(
        !stderr.contains("cloning"),
        "it went on to clone:\n{stderr}"
    );
}

#[test]
fn mhvtl_src_comes_first_and_is_used_unchecked() {
    let lab = Lab::pinned(ABSENT_COMMIT, &"f".repeat(64));
    lab.share("mhvtl-abc1234.tar.gz", b"not the pinned tarball");
    let tree = lab.dir.path().join("my-mhvtl");
    fs::create_dir(&tree).unwrap();

    let out = lab.source(NO_REPOSITORY, Some(&tree));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), tree.display().to_string());
}

#[test]
fn with_no_source_and_nothing_to_clone_it_says_what_to_do_and_exits_3() {
    let lab = Lab::with_committed_pin();
    let pin = fs::read_to_string(lab.pin()).unwrap();
    let commit = pin.lines().find_map(|l| l.strip_prefix("commit=")).unwrap();

    let out = lab.source(NO_REPOSITORY, None);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    let cache = lab.cache().display().to_string();
    for line in [
        format!("tapelab:   a clone of {NO_REPOSITORY}: git clone {NO_REPOSITORY} failed (status 128)"),
        format!("tapelab:   git clone {NO_REPOSITORY} mhvtl"),
        format!("tapelab:   git -C mhvtl archive --format=tar.gz --prefix=mhvtl/ -o mhvtl-{commit}.tar.gz {commit}"),
        format!("tapelab:   mkdir -p {cache} && cp mhvtl-{commit}.tar.gz {cache}/"),
        "tapelab: 0 passed, 0 failed".to_string(),
    ] {
        assert!(stderr.lines().any(|l| l == line), "no line `{line}` in:\n{stderr}");
    }
}
