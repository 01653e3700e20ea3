//! `tapebuf key new [FILE]` and `tapebuf key show [FILE]` (FILE is the
//! tapebuf directory's `key` by default, `keys::KeyHome`): the one line a key
//! is known by, `SHA256:<base64> NAME`, on standard output, ready to paste
//! into a receiver's list of allowed keys. Nothing else is printed on
//! success, so a script can capture the line. With `--tape FILE`, the key
//! is a tape drive's AES key (`keys::tape_key`) and the line is its
//! fingerprint and FILE.
//!
//! Exit status: 0 the line was printed; 1 the file could not be written or
//! read, or the system's random source failed; 2 a usage error, a FILE
//! that exists (`new`), or one that others may read or change, or that
//! holds no key (`show`).

use std::io::{self, Write};
use std::path::Path;

use crate::base::console::{message, say};
use crate::base::exit::{Exit, FAILURE, SUCCESS, USAGE};
use crate::cli::command::Command;
use crate::cli::key::{KeyAction, KeyCli};
use crate::keys::key_file::{KeyError, KeyPair};
use crate::keys::name;
use crate::keys::tape_key::TapeKey;
use crate::keys::KeyHome;

/// `tapebuf key`.
pub struct Keys;

impl Command for Keys {
    const NAME: &'static str = "key";
    type Args = KeyCli;

    fn run(cli: KeyCli) -> Exit {
        let (file, name, made, tape) = match cli.action {
            KeyAction::New { file, name, tape } => (file, name, true, tape),
            KeyAction::Show { file, name, tape } => (file, name, false, tape),
        };
        if let (true, Some(file)) = (tape, &file) {
            return tape_key(file, made);
        }
        let name = match name.map_or_else(name::of_this_host, |n| name::checked(&n, "--name")) {
            Ok(name) => name,
            Err(why) => {
                say(&message!("key: {why}"));
                return Exit::Code(USAGE);
            }
        };
        let (file, home) = match file {
            Some(file) => (file, None),
            None => match KeyHome::locate() {
                Ok(home) => (home.key(), Some(home)),
                Err(why) => {
                    say(&message!("key: {why}; give FILE"));
                    return Exit::Code(USAGE);
                }
            },
        };
        let pair = match made {
            true => new_key(&file, home.as_ref()),
            false => KeyPair::load(&file),
        };
        let pair = match pair {
            Ok(pair) => pair,
            Err(e) => {
                say(&message!("key: {e}"));
                return Exit::Code(if e.is_usage() { USAGE } else { FAILURE });
            }
        };
        print_line(&format!("{} {name}\n", pair.fingerprint()))
    }
}

/// `tapebuf key new|show --tape FILE`: the tape key's fingerprint and FILE.
fn tape_key(file: &Path, made: bool) -> Exit {
    let key = match made {
        true => TapeKey::generate().and_then(|key| key.write_new(file).map(|()| key)),
        false => TapeKey::load(file),
    };
    match key {
        Ok(key) => print_line(&format!("{} {}\n", key.print(), file.display())),
        Err(e) => {
            say(&message!("key: {e}"));
            Exit::Code(if e.is_usage() { USAGE } else { FAILURE })
        }
    }
}

/// Writes `line` to standard output; a closed pipe is no failure.
fn print_line(line: &str) -> Exit {
    let mut out = io::stdout().lock();
    match out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Exit::Code(SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Exit::Code(SUCCESS),
        Err(e) => {
            say(&message!("key: cannot write the fingerprint: {e}"));
            Exit::Code(FAILURE)
        }
    }
}

/// A new key pair, written to `file`; the tapebuf directory `home` is
/// made first when `file` is its default key.
fn new_key(file: &Path, home: Option<&KeyHome>) -> Result<KeyPair, KeyError> {
    if let Some(home) = home {
        home.make_dir().map_err(|source| KeyError::Io {
            path: home.dir().to_path_buf(),
            what: "cannot make the directory",
            source,
        })?;
    }
    let pair = KeyPair::generate()?;
    pair.write_new(file)?;
    Ok(pair)
}
