//! `--senders` as the user meets it: every option clap knows is judged
//! for a service, every refused one is refused in one line naming it, and
//! the templates and the shared ring are checked before anything starts.

use super::*;
use crate::config::{Config, MachineInfo};
use clap::{CommandFactory, Parser};

const MACHINE: MachineInfo = MachineInfo {
    physical_memory_bytes: 8 << 30,
};

/// A service that would start: a port, two senders, a file template,
/// in clear text (a private one needs key files).
const SERVICE: [&str; 7] = [
    "-I",
    "127.0.0.1:0",
    "--plain",
    "--senders",
    "2",
    "-o",
    "/v/{seq}",
];

fn cli(args: &[&str]) -> Cli {
    let mut argv = vec!["tapebuf"];
    argv.extend_from_slice(args);
    Cli::try_parse_from(argv).unwrap()
}

fn refusal(cli: &Cli) -> ConfigError {
    Config::from_cli(cli, MACHINE).expect_err("refused")
}

/// Every option of the buffer, by clap's id.
fn every_option() -> Vec<String> {
    (Cli::command().get_arguments())
        .filter(|a| !a.is_positional())
        .map(|a| a.get_id().to_string())
        .filter(|id| id != "help" && id != "version")
        .collect()
}

#[test]
fn every_option_clap_knows_is_judged_for_a_service() {
    let unjudged: Vec<String> = (every_option().into_iter())
        .filter(|id| scope(id).is_none())
        .collect();
    assert!(
        unjudged.is_empty(),
        "add these to serve_flags::scope: {unjudged:?}"
    );
}

#[test]
fn every_option_refused_for_a_service_is_refused_in_one_line_naming_it() {
    let refused: Vec<(String, &str)> = (every_option().into_iter())
        .filter_map(|id| match scope(&id) {
            Some(Scope::Refused(why)) => Some((id, why)),
            _ => None,
        })
        .collect();
    assert!(refused.len() > 10, "{refused:?}");
    for (id, why) in refused {
        let mut c = cli(&SERVICE);
        c.given.push(id.clone());
        let e = refusal(&c);
        assert_eq!(e.flag, flag(&id), "{id}: {e}");
        assert!(e.why.contains("does not apply with --senders"), "{id}: {e}");
        assert!(e.why.contains(why), "{id}: {e}");
        assert!(!e.to_string().contains('\n'), "{id}: {e}");
    }
}

#[test]
fn an_option_not_yet_judged_is_refused_rather_than_guessed() {
    let mut c = cli(&SERVICE);
    c.given.push("an_option_added_later".into());
    let e = refusal(&c);
    assert_eq!(e.flag, "--an-option-added-later");
    assert!(e.why.contains("not yet judged"), "{e}");
}

#[test]
fn options_of_each_stream_and_of_the_whole_service_are_taken() {
    for id in every_option() {
        if !matches!(scope(&id), Some(Scope::Each | Scope::Whole)) {
            continue;
        }
        let mut c = cli(&SERVICE);
        c.given.push(id.clone());
        let plan = Config::from_cli(&c, MACHINE).map(|c| c.serve);
        assert!(matches!(plan, Ok(Some(_))), "{id}: {plan:?}");
    }
}

#[test]
fn a_template_that_names_no_field_is_refused_for_each_file_it_names() {
    let e = refusal(&cli(&[
        "-I",
        "127.0.0.1:0",
        "--plain",
        "--senders",
        "2",
        "-o",
        "/v/backup.zfs",
    ]));
    assert_eq!(e.flag, "-o/--output");
    assert!(e.why.contains("/v/{name}-{seq}.out"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let same = dir.path().join("same.txt");
    for flag in ["--manifest", "--hash-file"] {
        let mut args = SERVICE.to_vec();
        args.extend([flag, same.to_str().unwrap()]);
        if flag == "--hash-file" {
            args.extend(["--hash", "sha256"]);
        }
        let e = refusal(&cli(&args));
        assert_eq!(e.flag, flag, "{e}");
        assert!(e.why.contains("names no field"), "{e}");
    }
}

#[test]
fn a_service_needs_a_port_a_file_template_and_senders() {
    let e = refusal(&cli(&["--senders", "2", "-o", "/v/{seq}"]));
    assert_eq!(
        (e.flag.as_str(), e.why.as_str()),
        ("--senders", "only applies to -I/--listen")
    );
    let e = refusal(&cli(&[
        "-I",
        "127.0.0.1:0",
        "--plain",
        "--streams",
        "3",
        "-o",
        "/v/{seq}",
    ]));
    assert_eq!(
        (e.flag.as_str(), e.why.as_str()),
        ("--streams", "needs --senders")
    );
    let e = refusal(&cli(&["-I", "127.0.0.1:0", "--plain", "--senders", "2"]));
    assert_eq!(e.flag, "--senders");
    assert!(e.why.contains("needs -o"), "{e}");
    let mut c = cli(&["-I", "127.0.0.1:0", "--plain", "--senders", "2", "-o", "-"]);
    c.given.push("outputs".into());
    let e = refusal(&c);
    assert_eq!(e.flag, "-o/--output");
}

#[test]
fn memory_is_shared_out_a_block_count_each_and_refused_when_too_thin() {
    let c = Config::from_cli(
        &cli(&[&SERVICE[..], &["-m", "64M", "-s", "1M"]].concat()),
        MACHINE,
    )
    .unwrap();
    let plan = c.serve.expect("a plan");
    assert_eq!(stream_blocks(plan, &c.pipeline), 32);
    assert_eq!(c.source.net.sender_block_limit_bytes, Some(32 << 20));
    let args = [
        "-I",
        "127.0.0.1:0",
        "--plain",
        "--senders",
        "8",
        "-o",
        "/v/{seq}",
        "-m",
        "8M",
        "-s",
        "1M",
    ];
    let e = refusal(&cli(&args));
    assert_eq!(e.flag, "-m/--memory");
    assert!(e.why.contains("--senders 8"), "{e}");
}

#[test]
fn a_device_is_refused_as_a_service_s_output_naming_it() {
    let mut c = cli(&[
        "-I",
        "127.0.0.1:0",
        "--plain",
        "--senders",
        "2",
        "-o",
        "/dev/null",
    ]);
    c.given.push("outputs".into());
    let e = refusal(&c);
    assert_eq!(e.flag, "-o/--output");
    assert_eq!(
        e.why,
        "/dev/null: is a device; with --senders each served stream goes to a file of its own, not a tape"
    );
}
