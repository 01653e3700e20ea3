//! `tapebuf report FILE [-o OUT.svg]`: reads a recorded run, a block size
//! sweep or a backup's manifest and prints a short text summary, and draws
//! a run or a sweep as an SVG with `-o`.
//!
//! The input's kind is told by its first record's `schema` field (for a
//! manifest, pretty-printed over many lines, the whole file's): a `--stats`
//! timeline, a `tapebuf probe --json` sweep or a `--manifest` file, one
//! [`Input`] variant each; another recording is another variant. Every
//! error is one line, `tapebuf: report: <path>: <why> (line N)`, and exit
//! status 1; a wrong command line, or `-o` for a manifest (which has no
//! picture), is exit status 2. The summary goes to stdout through one
//! handle: a reader that closes early (`| head -1`) ends the report with
//! status 0, never a panic. SIGUSR1 (`pkill -USR1 -x tapebuf` meant for a
//! running backup) is absorbed: a report has no status to give, and must
//! not die of it.

pub mod analysis;
pub mod legend;
pub mod manifest;
pub mod plot;
pub mod probe;
pub mod probe_plot;
pub mod ring_seen;
pub mod timeline;

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use signal_hook::consts::SIGUSR1;

use crate::base::console::{message, say};
use crate::base::create;
use crate::base::errors::ConfigError;
use crate::base::exit::{Exit, FAILURE, SUCCESS, USAGE};
use crate::base::path_registry::{open_regular, Need, Registry, Role};
use crate::cli::command::Command;
use crate::cli::report::ReportCli;
use crate::manifest::schema::{Manifest, SCHEMA as MANIFEST_SCHEMA};
use crate::manifest::validate::MAX_FILE_BYTES;
use crate::manifest::LoadError;
use crate::observe::record::SCHEMA as STATS_SCHEMA;
use crate::probe::schema::{ProbeResults, SCHEMA as PROBE_SCHEMA};
use analysis::Analysis;
use timeline::{Bad, Timeline};

/// What every refusal of a file that is no recording at all begins with.
pub const NOT_OURS: &str = "not a tapebuf stats, probe or manifest file";

/// A recording `tapebuf report` understands.
#[derive(Debug)]
pub enum Input {
    /// A `--stats` timeline (boxed: its summary record makes it the
    /// larger by far).
    Stats(Box<Timeline>),
    /// A `tapebuf probe --json` sweep.
    Probe(ProbeResults),
    /// A backup's `--manifest`.
    Manifest(Box<Manifest>),
}

impl Input {
    /// Tells the kind of recording by its first record's `schema`.
    pub fn parse(text: &str) -> Result<Input, Bad> {
        let Some((i, first)) = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty()) else {
            return Err(Bad {
                why: "is empty".into(),
                line: None,
            });
        };
        // A manifest is one JSON document, read by its own bounded parser
        // (no tree of the whole is built); the others are a JSON record
        // per line.
        if Manifest::schema_of(text).as_deref() == Some(MANIFEST_SCHEMA) {
            return Manifest::parse(text)
                .map(|m| Input::Manifest(Box::new(m)))
                .map_err(|e| Bad {
                    why: e.to_string(),
                    line: None,
                });
        }
        let value: serde_json::Value = serde_json::from_str(first)
            .or_else(|e| serde_json::from_str(text).map_err(|_| e))
            .map_err(|e| Bad::at(i + 1, format!("{NOT_OURS}: not JSON: {e}")))?;
        match value.get("schema").and_then(|s| s.as_str()) {
            Some(STATS_SCHEMA) => Timeline::parse(text).map(|t| Input::Stats(Box::new(t))),
            Some(PROBE_SCHEMA) => probe::parse(text).map(Input::Probe),
            Some(MANIFEST_SCHEMA) => Manifest::parse(text)
                .map(|m| Input::Manifest(Box::new(m)))
                .map_err(|e| Bad {
                    why: e.to_string(),
                    line: None,
                }),
            Some(other) => Err(Bad::at(i + 1, format!("unknown schema '{other}'"))),
            None => Err(Bad::at(
                i + 1,
                format!("{NOT_OURS}: no schema field (tapebuf --stats and tapebuf probe --json write one)"),
            )),
        }
    }

    /// The text summary printed on stdout.
    pub fn lines(&self) -> Vec<String> {
        match self {
            Input::Stats(timeline) => {
                let mut lines = Analysis::of(timeline).lines();
                if timeline.summary.is_none() {
                    lines.push("note: no summary record; the run did not finish".into());
                }
                lines
            }
            Input::Probe(p) => probe::lines(p),
            Input::Manifest(m) => manifest::lines(m),
        }
    }

    /// The picture as an SVG document; `path` is the file it was read
    /// from. None for a kind that has no picture.
    pub fn svg(&self, path: &Path) -> Option<Result<String, String>> {
        match self {
            Input::Stats(timeline) => Some(plot::svg(timeline, &title(path))),
            Input::Probe(p) => Some(probe_plot::svg(p)),
            Input::Manifest(_) => None,
        }
    }
}

/// `tapebuf report`.
pub struct Report;

impl Command for Report {
    const NAME: &'static str = "report";
    type Args = ReportCli;

    fn run(cli: ReportCli) -> Exit {
        let lines = match report(&cli) {
            Ok(lines) => lines,
            Err(refusal) => {
                say(&refusal.line);
                return Exit::Code(refusal.status);
            }
        };
        match print(&lines) {
            Ok(()) => Exit::Code(SUCCESS),
            Err(e) => {
                say(&message!("report: cannot write the summary: {e}"));
                Exit::Code(FAILURE)
            }
        }
    }
}

/// Writes the summary to stdout. A reader that has gone (`| head -1`) has
/// all it wanted: a broken pipe ends the summary, and is no error.
fn print(lines: &[String]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    let written = lines
        .iter()
        .try_for_each(|line| writeln!(out, "{line}"))
        .and_then(|()| out.flush());
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Why no summary is printed: the one line, and the exit status.
struct Refusal {
    line: String,
    status: i32,
}

impl From<String> for Refusal {
    /// A file not read or written: status 1.
    fn from(line: String) -> Refusal {
        Refusal {
            line,
            status: FAILURE,
        }
    }
}

/// The text summary, after writing the picture if asked; or the refusal.
fn report(cli: &ReportCli) -> Result<Vec<String>, Refusal> {
    let usr1 = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(SIGUSR1, usr1)
        .map_err(|e| message!("report: cannot install signal handlers: {e}"))?;
    let path = &cli.file;
    let fail = |bad: Bad| match bad.line {
        Some(n) => message!("report: {}: {} (line {n})", path.display(), bad.why),
        None => message!("report: {}: {}", path.display(), bad.why),
    };
    register(cli).map_err(|e| Refusal {
        line: message!("report: {e}"),
        status: USAGE,
    })?;
    if let Some(why) = oversized_manifest(path) {
        return Err(fail(Bad { why, line: None }).into());
    }
    let bytes = read_recording(path).map_err(|e| {
        fail(Bad {
            why: e.to_string(),
            line: None,
        })
    })?;
    // A tar archive or other binary file is not text: say what it is not,
    // not how the decoder failed.
    let text = String::from_utf8(bytes).map_err(|_| {
        fail(Bad {
            why: format!("{NOT_OURS} (it is not text)"),
            line: None,
        })
    })?;
    let input = Input::parse(&text).map_err(fail)?;
    let lines = input.lines();
    if let Some(out) = &cli.output {
        let Some(svg) = input.svg(path) else {
            return Err(Refusal {
                line: message!(
                    "report: {}: a manifest has no picture; drop -o {}",
                    path.display(),
                    out.display()
                ),
                status: USAGE,
            });
        };
        let svg = svg.map_err(|why| message!("report: {}: cannot draw: {why}", out.display()))?;
        write_picture(out, svg.as_bytes(), cli.force)?;
    }
    Ok(lines)
}

/// Every path a report touches, in the one registry: the recording it
/// reads (a regular file), `-o`'s picture and standard output, where the
/// summary goes. `report st.json -o st.json` would destroy the recording.
fn register(cli: &ReportCli) -> Result<(), ConfigError> {
    let mut registry = Registry::new();
    let file = &cli.file;
    let what = format!("{}, the recording read", file.display());
    registry.path(what, file, Role::Read, Need::Regular)?;
    if let Some(out) = &cli.output {
        let what = format!("-o {}", out.display());
        registry.path(what, out, Role::Report, Need::Any)?;
    }
    registry.fd("standard output", io::stdout(), Role::Report)
}

/// The whole recording, opened without waiting on a FIFO.
fn read_recording(path: &Path) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    open_regular(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Writes the picture to `out` (`base::create`): a new file, or with
/// `force` an existing one truncated; a symlink another user owns is
/// never followed. An existing file without -f and such a link are
/// refusals (status 2), before a byte is written.
fn write_picture(out: &Path, svg: &[u8], force: bool) -> Result<(), Refusal> {
    let usage = |why: String| Refusal {
        line: message!("report: -o {}: {why}", out.display()),
        status: USAGE,
    };
    // A link to nothing is something there too: never created through.
    if !force && out.symlink_metadata().is_ok() {
        return Err(usage("exists; give -f to overwrite it".into()));
    }
    if let Some(why) = create::foreign_link(out) {
        return Err(usage(why));
    }
    let existing = if force {
        create::Existing::Truncate
    } else {
        create::Existing::Refuse
    };
    let mut file = match create::open_output(out, existing, create::RECORD_MODE) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            return Err(usage("exists; give -f to overwrite it".into()))
        }
        other => other.map_err(|e| message!("report: -o {}: cannot open: {e}", out.display()))?,
    };
    file.write_all(svg)
        .map_err(|e| message!("report: -o {}: cannot write: {e}", out.display()).into())
}

/// Why the file at `path` is refused unread: a manifest larger than
/// `MAX_FILE_BYTES`, told by a streaming read of its `schema`, so that it
/// never sits in memory whole. Any other file is read as before.
fn oversized_manifest(path: &Path) -> Option<String> {
    let len = std::fs::metadata(path).ok()?.len();
    if len <= MAX_FILE_BYTES {
        return None;
    }
    let schema = Manifest::schema_in(std::fs::File::open(path).ok()?)?;
    (schema == MANIFEST_SCHEMA).then(|| LoadError::TooLarge(len).to_string())
}

fn title(path: &Path) -> String {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    format!("tapebuf run: {name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_result_round_trips_through_its_json_line() {
        let sent = probe::tests::sample();
        let line = serde_json::to_string(&sent).unwrap();
        assert!(!line.contains('\n'));
        match Input::parse(&format!("{line}\n")).unwrap() {
            Input::Probe(got) => assert_eq!(got, sent),
            other => panic!("a probe file read as {other:?}"),
        }
    }

    #[test]
    fn a_probe_reader_ignores_fields_it_does_not_know() {
        let mut value = serde_json::to_value(probe::tests::sample()).unwrap();
        value["from_the_future"] = serde_json::json!({"x": 1});
        value["results"][0]["write"]["p99_bytes_per_s"] = serde_json::json!(1.0);
        let Input::Probe(got) = Input::parse(&value.to_string()).unwrap() else {
            panic!("not read as a probe file");
        };
        assert_eq!(got, probe::tests::sample());
    }
}
