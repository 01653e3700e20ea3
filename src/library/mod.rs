//! `tapebuf library DEVICE [--json]`: what a tape library holds, read from
//! its medium changer, as a table or as one line of JSON. Nothing is moved.
//!
//! The parts: `open` (the path looked at, then opened and read; every
//! failure one line and an exit status), `nodes` (each drive element's
//! `/dev/nstN` node, matched by serial number and never by numbering),
//! `medium` (what a cartridge is: data, cleaning, WORM), `view` (the
//! inventory as one value, a pure function of the changer's `Inventory`
//! and the tape nodes), `schema` (that value's JSON, whose field names are
//! an API), and `table` (the same value for people). The changer is read
//! through `MediumChanger`, so that everything after the read is tested
//! against the emulated library (`lab.rs`, test-only). SIGUSR1, which
//! asks a running backup for its status, is absorbed, as `report` absorbs
//! it.
//!
//! Exit status: 0 the inventory was printed; 1 the changer could not be
//! opened or read, or standard output could not be written (a reader that
//! went away, `| head`, is no error); 2 a usage error or a path that is
//! not a medium changer.

#[cfg(test)]
mod lab;
pub mod medium;
pub mod nodes;
pub mod open;
pub mod schema;
pub mod table;
pub mod view;

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use signal_hook::consts::SIGUSR1;

use crate::base::console::{message, say};
use crate::base::exit::{Exit, FAILURE, SUCCESS, USAGE};
use crate::base::path_registry::{Registry, Role};
use crate::cli::command::Command;
use crate::cli::library::LibraryCli;

/// Where the tape nodes are.
const DEV: &str = "/dev";

/// `tapebuf library`.
pub struct Library;

impl Command for Library {
    const NAME: &'static str = "library";
    type Args = LibraryCli;

    fn run(cli: LibraryCli) -> Exit {
        // `pkill -USR1 -x tapebuf`, meant for a running backup, must not
        // kill an inventory: it has no status line to give.
        if let Err(e) = signal_hook::flag::register(SIGUSR1, Arc::new(AtomicBool::new(false))) {
            say(&message!("library: cannot install signal handlers: {e}"));
            return Exit::Code(FAILURE);
        }
        let what = format!("DEVICE {}", cli.device.display());
        if let Err(e) = Registry::one_path_and_stdout(&what, &cli.device, Role::Read) {
            say(&message!("library: {e}"));
            return Exit::Code(USAGE);
        }
        let inventory = match open::read_inventory(&cli.device) {
            Ok(inventory) => inventory,
            Err(refusal) => {
                say(&refusal.line);
                return Exit::Code(refusal.status);
            }
        };
        let nodes = nodes::tape_nodes(Path::new(DEV));
        let changer = cli.device.display().to_string();
        let view = view::library_json(&changer, &inventory, &nodes);
        let text = if cli.json {
            serde_json::to_string(&view).map(|line| line + "\n")
        } else {
            Ok(table::render(&view))
        };
        match text.map_err(io::Error::from).and_then(|text| print(&text)) {
            Ok(()) => Exit::Code(SUCCESS),
            Err(e) => {
                say(&message!("library: cannot write the inventory: {e}"));
                Exit::Code(FAILURE)
            }
        }
    }
}

/// Writes `text` to stdout. A reader that has gone (`| head -1`) has all
/// it wanted: a broken pipe is no error.
fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
