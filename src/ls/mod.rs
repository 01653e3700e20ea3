//! `tapebuf ls (--manifest M | --catalog C) [GLOB...] [--json]`: the
//! members of a backup made with `--catalog`, from its catalog alone
//! (nothing is read from the volumes), each with the volume and barcode
//! its manifest places it on.
//!
//! The parts: `open` (the manifest, the catalog it names, and every
//! refusal as one line and exit status 2; the globs are
//! `catalog::globs`, as tar chooses members), `schema` (a
//! member as one value, with its place on the volumes; its JSON field
//! names are an API, tapebuf(1) LS), `text` (that value for people) and
//! `write` (the listing, a member at a time).
//!
//! Exit status: 0 the listing was printed and every glob matched; 1 a
//! glob matched no member (one line each, after the others are listed),
//! the catalog was damaged past its index (after the members before the
//! damage), or standard output could not be written (a reader that went
//! away, `| head`, is no error); 2 a usage error, a manifest that cannot
//! be read, no catalog, or a catalog that cannot be opened.

pub mod open;
pub mod schema;
pub mod text;
pub mod write;

use std::io::{self, BufWriter};

use crate::base::console::{message, say};
use crate::base::errors::plain;
use crate::base::exit::{Exit, FAILURE, SUCCESS, USAGE};
use crate::cli::command::Command;
use crate::cli::ls::LsCli;

use write::{Head, ListError};

/// `tapebuf ls`.
pub struct Ls;

impl Command for Ls {
    const NAME: &'static str = "ls";
    type Args = LsCli;

    fn run(cli: LsCli) -> Exit {
        let globs = match crate::catalog::globs::build(&cli.globs) {
            Ok(globs) => globs,
            Err(why) => {
                say(&Self::usage_error(&why));
                return Exit::Code(USAGE);
            }
        };
        let opened = match open::open(&cli) {
            Ok(opened) => opened,
            Err(refusal) => {
                say(&refusal.line);
                return Exit::Code(refusal.status);
            }
        };
        let manifest = cli.manifest.as_ref().map(|p| p.display().to_string());
        let catalog = opened.catalog_path.display().to_string();
        let head = Head {
            manifest: manifest.as_deref(),
            catalog: &catalog,
        };
        let head = cli.json.then_some(&head);
        let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
        match write::list(&opened, &globs, &cli.globs, head, &mut out) {
            Ok(unmatched) => {
                for &i in &unmatched {
                    say(&message!("ls: '{}': matches no member", cli.globs[i]));
                }
                Exit::Code(if unmatched.is_empty() {
                    SUCCESS
                } else {
                    FAILURE
                })
            }
            Err(ListError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
                Exit::Code(SUCCESS)
            }
            Err(ListError::Write(e)) => {
                say(&message!("ls: cannot write the listing: {}", plain(&e)));
                Exit::Code(FAILURE)
            }
            Err(ListError::Catalog(e)) => {
                say(&message!("ls: {e}"));
                Exit::Code(FAILURE)
            }
        }
    }
}
