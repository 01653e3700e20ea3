//! The shell completions that `tapebuf completions SHELL` prints: a script
//! for bash, zsh and fish that knows the subcommands, a usage error for
//! another shell, and in bash they really complete.

use crate::common::*;

/// What `args` print on stdout, with exit status 0 and nothing on stderr.
fn stdout_of(args: &[&str]) -> String {
    let out = run(args, vec![]);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", out.stderr);
    assert!(out.stderr.is_empty(), "{args:?}: {}", out.stderr);
    String::from_utf8(out.stdout).expect("the script is UTF-8")
}

#[test]
fn completions_print_a_script_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(&["completions", shell]);
        assert!(script.len() > 500, "{shell}: {} bytes", script.len());
        assert!(script.contains("tapebuf"), "{shell}");
        assert!(script.contains("high-watermark"), "{shell}");
        assert!(
            script.contains("completions"),
            "{shell}: knows the subcommands"
        );
    }
}

#[test]
fn completions_for_an_unknown_shell_name_the_valid_ones() {
    let out = run(&["completions", "tcsh"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("tapebuf: completions: ")
            && out.stderr.contains("'tcsh'")
            && out.stderr.contains("one of bash, zsh, fish"),
        "{}",
        out.stderr
    );
}

/// What bash offers for the words `line` (the last one being completed),
/// with the script `tapebuf completions bash` prints loaded.
fn bash_completes(line: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("tapebuf.bash");
    std::fs::write(&script, stdout_of(&["completions", "bash"])).unwrap();
    let words = line
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let program = format!(
        "source '{}' || exit 9\n\
         COMP_WORDS=({words})\n\
         COMP_CWORD={}\n\
         COMP_LINE='{}'\n\
         COMP_POINT=${{#COMP_LINE}}\n\
         _tapebuf tapebuf '{}' '{}' || exit 8\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        line.len() - 1,
        line.join(" "),
        line[line.len() - 1],
        line[line.len().saturating_sub(2)],
    );
    let out = crate::common::command("timeout")
        .args(["20", "bash", "--norc", "--noprofile", "-c", &program])
        .output()
        .expect("running bash");
    assert_eq!(
        out.status.code(),
        Some(0),
        "bash: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_a_long_option() {
    let offered = bash_completes(&["tapebuf", "--ou"]);
    assert!(offered.contains(&"--output".to_owned()), "{offered:?}");
    assert!(offered.iter().all(|w| w.starts_with("--ou")), "{offered:?}");
}

#[test]
fn bash_completes_subcommands_and_their_options() {
    let offered = bash_completes(&["tapebuf", "pro"]);
    assert_eq!(offered, vec!["probe".to_owned()]);
    let offered = bash_completes(&["tapebuf", "rmt", "--al"]);
    assert_eq!(offered, vec!["--allow".to_owned()]);
    let offered = bash_completes(&["tapebuf", "completions", "z"]);
    assert_eq!(offered, vec!["zsh".to_owned()]);
}
