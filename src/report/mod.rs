//! `tapebuf report FILE [-o OUT.svg]`: reads a recorded run or a block
//! size sweep and prints a short text summary, and draws it as an SVG with
//! `-o`.
//!
//! The input's kind is told by its first record's `schema` field: a
//! `--stats` timeline or a `tapebuf probe --json` sweep, one [`Input`]
//! variant each; another recording is another variant. Every error is one line,
//! `tapebuf: report: <path>: <why> (line N)`, and exit status 1; a wrong
//! command line is exit status 2. SIGUSR1 (`pkill -USR1 -x tapebuf` meant
//! for a running backup) is absorbed: a report has no status to give, and
//! must not die of it.

pub mod analysis;
pub mod plot;
pub mod probe;
pub mod probe_plot;
pub mod timeline;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::Parser;
use signal_hook::consts::SIGUSR1;

use crate::base::console::say;
use crate::base::exit::{Exit, FAILURE, SUCCESS};
use crate::cli::command::Command;
use crate::observe::record::SCHEMA as STATS_SCHEMA;
use crate::probe::schema::{ProbeResults, SCHEMA as PROBE_SCHEMA};
use analysis::Analysis;
use timeline::{Bad, Timeline};

/// tapebuf report: summarise and draw a run recorded with --stats, or a
/// block size sweep written by tapebuf probe --json.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf report", version, long_about = None)]
#[command(
    after_help = "Exit status: 0 success, 1 unreadable or invalid input or \
an output that cannot be written, 2 usage error. See tapebuf(1), REPORT."
)]
pub struct ReportCli {
    /// A file written by tapebuf --stats or by tapebuf probe --json.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Draw the run, or the probe's rates against block size, as an SVG
    /// picture into OUT [default: no picture, only the text summary].
    #[arg(short = 'o', long = "output", value_name = "OUT.svg")]
    pub output: Option<PathBuf>,
}

/// What every refusal of a file that is no recording at all begins with.
pub const NOT_OURS: &str = "not a tapebuf stats or probe file";

/// A recording `tapebuf report` understands.
#[derive(Debug)]
pub enum Input {
    /// A `--stats` timeline (boxed: its summary record makes it the
    /// larger by far).
    Stats(Box<Timeline>),
    /// A `tapebuf probe --json` sweep.
    Probe(ProbeResults),
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
        let value: serde_json::Value = serde_json::from_str(first)
            .map_err(|e| Bad::at(i + 1, format!("{NOT_OURS}: not JSON: {e}")))?;
        match value.get("schema").and_then(|s| s.as_str()) {
            Some(STATS_SCHEMA) => Timeline::parse(text).map(|t| Input::Stats(Box::new(t))),
            Some(PROBE_SCHEMA) => probe::parse(text).map(Input::Probe),
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
        }
    }

    /// The picture as an SVG document; `path` is the file it was read from.
    pub fn svg(&self, path: &Path) -> Result<String, String> {
        match self {
            Input::Stats(timeline) => plot::svg(timeline, &title(path)),
            Input::Probe(p) => probe_plot::svg(p),
        }
    }
}

/// `tapebuf report`.
pub struct Report;

impl Command for Report {
    const NAME: &'static str = "report";
    type Args = ReportCli;

    fn run(cli: ReportCli) -> Exit {
        match report(&cli) {
            Ok(lines) => {
                for line in lines {
                    println!("{line}");
                }
                Exit::Code(SUCCESS)
            }
            Err(line) => {
                say(&line);
                Exit::Code(FAILURE)
            }
        }
    }
}

/// The text summary, after writing the picture if asked; or the one error
/// line.
fn report(cli: &ReportCli) -> Result<Vec<String>, String> {
    let usr1 = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(SIGUSR1, usr1)
        .map_err(|e| format!("tapebuf: report: cannot install signal handlers: {e}"))?;
    let path = &cli.file;
    let fail = |bad: Bad| match bad.line {
        Some(n) => format!(
            "tapebuf: report: {}: {} (line {n})",
            path.display(),
            bad.why
        ),
        None => format!("tapebuf: report: {}: {}", path.display(), bad.why),
    };
    let bytes = std::fs::read(path).map_err(|e| {
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
        let svg = input
            .svg(path)
            .map_err(|why| format!("tapebuf: report: {}: cannot draw: {why}", out.display()))?;
        std::fs::write(out, svg)
            .map_err(|e| format!("tapebuf: report: {}: cannot write: {e}", out.display()))?;
    }
    Ok(lines)
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
            Input::Stats(_) => panic!("a probe file read as a stats file"),
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
