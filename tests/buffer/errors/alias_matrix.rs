//! The derived alias matrix: every path-valued option of every command
//! (the buffer's own and each subcommand's), found by walking the clap
//! definitions (`tapebuf::app::command()`), never from a list written
//! here. Each must have a role in `cli::path_roles::PATH_ROLES`, or the
//! test fails naming it. Then, for every pair of options of one command
//! of which at least one writes, the two are given one file under each
//! spelling (the same name, `./f`, `d/../f`, a symlink, a hard link,
//! `/proc/self/fd/3` inherited, `/dev/stdout` appending to it as `>>`
//! does, `/dev/stdin` reading it, and `/dev/stdout` or `/dev/stdin` for
//! both when they are pipes): each is refused with status 2 and one line,
//! and no file changes. A pair that only reads is never refused as one
//! file. Every refusal comes before any I/O, and the cases run on four
//! threads: 280 runs of the binary today, 1.6 s to 3.9 s in a debug
//! build on a shared two-core machine.
//! (issue 45 findings 1, 6, 10, 11: the class, not the examples)

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::Mutex;

use tapebuf::base::path_registry::Role;
use tapebuf::cli::path_roles::{is_path, role_of, PathRole, BUFFER, PATH_ROLES};

use crate::common;

mod fixtures;

use fixtures::{backup, base, fixture};

/// One path-valued option of one command.
#[derive(Debug, Clone)]
struct PathOption {
    command: String,
    id: String,
    /// `--long`, `-s`, or None for a positional value.
    flag: Option<String>,
    role: Role,
}

/// Every path-valued option clap knows, with its role; panics naming
/// any that has no role.
fn path_options() -> Vec<PathOption> {
    let mut tree = tapebuf::app::command();
    tree.build();
    assert_eq!(tree.get_name(), BUFFER);
    let mut commands = vec![(BUFFER.to_string(), tree.clone())];
    for sub in tree.get_subcommands() {
        let mut sub = sub.clone();
        sub.build();
        commands.push((sub.get_name().to_string(), sub));
    }
    let mut found = Vec::new();
    let mut missing = Vec::new();
    // A path typed as a plain string would escape `is_path`: any value
    // named like a file must be one clap takes for a path.
    let untyped: Vec<String> = commands
        .iter()
        .flat_map(|(name, cmd)| cmd.get_arguments().map(move |a| (name, a)))
        .filter(|(_, a)| a.get_action().takes_values() && !is_path(a))
        .filter(|(_, a)| {
            a.get_value_names().is_some_and(|names| {
                names
                    .iter()
                    .any(|n| ["FILE", "PATH", "DIR", "DEV", "DEVICE"].contains(&n.as_str()))
            })
        })
        .map(|(name, a)| format!("{name} {}", a.get_id()))
        .collect();
    assert!(
        untyped.is_empty(),
        "options whose value is named as a path but is not a PathBuf (give them a path value hint): {untyped:?}"
    );
    for (name, cmd) in &commands {
        for arg in cmd.get_arguments().filter(|a| is_path(a)) {
            let id = arg.get_id().to_string();
            let flag = arg
                .get_long()
                .map(|l| format!("--{l}"))
                .or_else(|| arg.get_short().map(|s| format!("-{s}")));
            match role_of(name, &id) {
                None => missing.push(format!("{name} {id}")),
                Some(PathRole::Unused) => {}
                Some(PathRole::Uses(role)) => found.push(PathOption {
                    command: name.clone(),
                    id,
                    flag,
                    role,
                }),
            }
        }
    }
    assert!(
        missing.is_empty(),
        "path-valued options with no role in cli::path_roles::PATH_ROLES: {missing:?}"
    );
    // And no row is left for an option that is gone or takes no path.
    let stale: Vec<_> = PATH_ROLES
        .iter()
        .filter(|(c, i, _)| {
            !commands.iter().any(|(name, cmd)| {
                name == c && cmd.get_arguments().any(|a| is_path(a) && a.get_id() == *i)
            })
        })
        .collect();
    assert!(
        stale.is_empty(),
        "rows of PATH_ROLES for no path option: {stale:?}"
    );
    found
}

/// How the second option spells the shared file, and what the child's
/// standard streams are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spelling {
    Same,
    Dot,
    DotDot,
    Symlink,
    HardLink,
    InheritedFd,
    StdoutAppending,
    StdinReading,
    BothStdoutPipe,
    BothStdinPipe,
}

const SPELLINGS: [Spelling; 10] = [
    Spelling::Same,
    Spelling::Dot,
    Spelling::DotDot,
    Spelling::Symlink,
    Spelling::HardLink,
    Spelling::InheritedFd,
    Spelling::StdoutAppending,
    Spelling::StdinReading,
    Spelling::BothStdoutPipe,
    Spelling::BothStdinPipe,
];

/// One run: a command line, and the streams it gets.
#[derive(Debug, Clone)]
struct Case {
    args: Vec<String>,
    spelling: Spelling,
    file: String,
    allowed: bool,
}

/// Adds `opt value` to `args`.
fn give(args: &mut Vec<String>, opt: &PathOption, value: &str) {
    if let Some(flag) = &opt.flag {
        args.push(flag.clone());
    }
    args.push(value.to_string());
}

/// Every case for the pair `a`, `b` of one command.
fn cases(a: &PathOption, b: &PathOption) -> Vec<Case> {
    let (Some((a_value, a_file)), Some((b_value, b_file))) =
        (fixture(&a.command, &a.id), fixture(&b.command, &b.id))
    else {
        return Vec::new();
    };
    let allowed = a.role == Role::Read && b.role == Role::Read;
    // The read side keeps its value; the other is spelled as its file.
    let (first, first_value, second, file) = match (a.role, b.role) {
        (Role::Read, _) => (a, a_value, b, a_file),
        (_, Role::Read) => (b, b_value, a, b_file),
        _ => (a, "shared.out", b, "shared.out"),
    };
    let _ = b_value;
    SPELLINGS
        .iter()
        .map(|&spelling| {
            let mut args = base(&a.command, &[&a.id, &b.id]);
            let spelled = match spelling {
                Spelling::Same => file.to_string(),
                Spelling::Dot => format!("./{file}"),
                Spelling::DotDot => format!("d/../{file}"),
                Spelling::Symlink => format!("L.{file}"),
                Spelling::HardLink => format!("H.{file}"),
                Spelling::InheritedFd => "/proc/self/fd/3".to_string(),
                Spelling::StdoutAppending | Spelling::BothStdoutPipe => "/dev/stdout".into(),
                Spelling::StdinReading | Spelling::BothStdinPipe => "/dev/stdin".into(),
            };
            let first_spelled = match spelling {
                Spelling::BothStdoutPipe | Spelling::BothStdinPipe => spelled.clone(),
                _ => first_value.to_string(),
            };
            give(&mut args, first, &first_spelled);
            give(&mut args, second, &spelled);
            if a.command == "extract" {
                args.push("d/a".to_string());
            }
            Case {
                args,
                spelling,
                file: file.to_string(),
                allowed,
            }
        })
        .collect()
}

/// Runs `case` in `dir`: its exit status and standard error.
fn run(dir: &Path, case: &Case) -> (Option<i32>, String) {
    let mut cmd = common::tapebuf();
    cmd.current_dir(dir).args(&case.args);
    let path = dir.join(&case.file);
    let open = || std::fs::File::open(&path).unwrap();
    let append = || {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
    };
    cmd.stdin(Stdio::null()).stdout(Stdio::null());
    // The file fd 3 is dup'ed from, open until the child has run.
    let mut kept: Option<std::fs::File> = None;
    match case.spelling {
        Spelling::InheritedFd => {
            let fd = std::os::fd::AsRawFd::as_raw_fd(&*kept.insert(open()));
            // SAFETY: dup2 and fcntl only, between fork and exec; fd 3
            // is left without close-on-exec even when `fd` was 3.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::dup2(fd, 3) == -1 || libc::fcntl(3, libc::F_SETFD, 0) == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        Spelling::StdoutAppending => {
            cmd.stdout(append());
        }
        Spelling::StdinReading => {
            cmd.stdin(open());
        }
        Spelling::BothStdoutPipe => {
            cmd.stdout(Stdio::piped());
        }
        Spelling::BothStdinPipe => {
            cmd.stdin(Stdio::piped());
        }
        _ => {}
    }
    let out = cmd.output().unwrap();
    drop(kept);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The refusals a same-file line may give.
const REFUSED: [&str; 3] = [
    "is the same file as",
    "is the input",
    "must be a regular file",
];

#[test]
fn every_pair_of_path_options_is_refused_as_one_file_under_every_spelling() {
    let options = path_options();
    let mut all = Vec::new();
    for (i, a) in options.iter().enumerate() {
        for b in options[i + 1..].iter().filter(|b| b.command == a.command) {
            all.extend(cases(a, b));
        }
    }
    let (allowed, refused): (Vec<Case>, Vec<Case>) = all.into_iter().partition(|c| c.allowed);
    assert!(refused.len() > 100, "{} cases", refused.len());
    eprintln!(
        "{} refusals, {} pairs that only read",
        refused.len(),
        allowed.len()
    );
    let dir = backup();
    let before = crate::errors::file_sums(dir.path());
    let queue = Mutex::new(refused);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let Some(case) = queue.lock().unwrap().pop() else {
                    return;
                };
                let (code, stderr) = run(dir.path(), &case);
                let lines: Vec<&str> = stderr.lines().collect();
                let one_line = lines.len() == 1
                    && lines[0].starts_with("tapebuf")
                    && REFUSED.iter().any(|r| lines[0].contains(r));
                if code != Some(2) || !one_line {
                    failures.lock().unwrap().push(format!(
                        "{:?} {:?}: {code:?} {stderr}",
                        case.spelling, case.args
                    ));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} not refused:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        crate::errors::file_sums(dir.path()),
        before,
        "a refused run changed a file"
    );
    for case in &allowed {
        let (_, stderr) = run(dir.path(), case);
        assert!(
            !stderr.contains("is the same file as"),
            "{case:?}: {stderr}"
        );
    }
}
