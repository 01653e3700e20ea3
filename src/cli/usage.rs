//! Command-line errors in one line: clap's several lines of complaint
//! become `tapebuf: [NAME: ]<what>; <hints> (see 'tapebuf NAME --help')`,
//! as a cron mail or a log wants them.

use std::ffi::OsString;

/// What clap says is wrong, in one line that points to `command --help`:
/// clap's first line, then what it lists below it (the missing arguments,
/// an invalid choice's valid values, a suggestion such as "a similar
/// argument exists: '--output'"); None for --help or --version.
pub fn usage_text(e: &clap::Error, command: &str) -> Option<String> {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return None;
    }
    let text = e.to_string();
    let mut details = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty());
    let first = details.next().unwrap_or("invalid command line");
    let mut line = first.trim_start_matches("error: ").to_string();
    let mut listed = Vec::new();
    let mut notes = String::new();
    for detail in details {
        if let Some(values) = detail
            .strip_prefix("[possible values: ")
            .and_then(|v| v.strip_suffix(']'))
        {
            notes.push_str(&format!("; one of {values}"));
        } else if let Some(tip) = detail.strip_prefix("tip: ") {
            // Not clap's "to pass '--x' as a value, use '-- --x'": after
            // `--` comes the producer, and '--x' would be run.
            if !tip.starts_with("to pass ") {
                notes.push_str(&format!("; {tip}"));
            }
        } else {
            listed.push(detail);
        }
    }
    if !listed.is_empty() {
        // The missing arguments, listed one per line after a colon.
        line = format!("{} {}", line, listed.join(", "));
    }
    Some(format!("{line}{notes} (see '{command} --help')"))
}

/// The words after `name` when the command line is `tapebuf name ...`,
/// else None.
pub fn subcommand_args(args: &[OsString], name: &str) -> Option<Vec<OsString>> {
    match args.get(1) {
        Some(word) if word == name => Some(args[2..].to_vec()),
        _ => None,
    }
}
