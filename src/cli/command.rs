//! The one shape of a command's entry: parse the words, run, return the
//! exit status. The buffer, `probe`, `report`, `rmt` and `completions` all
//! go through [`main`], so each answers `--help`, `--version` and a usage
//! error the same way: help on stdout with status 0, a usage error as one
//! line on stderr with status 2.

use std::ffi::OsString;

use clap::Parser;

use super::usage::usage_text;
use crate::base::console::{message, say};
use crate::base::exit::{Exit, SUCCESS, USAGE};

/// A command of the program.
pub trait Command {
    /// The word after `tapebuf` that names it.
    const NAME: &'static str;
    /// Its command line.
    type Args: Parser;

    /// How it is typed, for "see '... --help'".
    fn invocation() -> String {
        format!("tapebuf {}", Self::NAME)
    }

    /// Parses the words after its name.
    fn parse(words: Vec<OsString>) -> Result<Self::Args, clap::Error> {
        Self::Args::try_parse_from(std::iter::once(OsString::from(Self::invocation())).chain(words))
    }

    /// The one line that says what is wrong with its command line.
    fn usage_error(text: &str) -> String {
        message!("{}: {text}", Self::NAME)
    }

    /// Runs it on a parsed command line. It says its own errors, through
    /// the console, and returns how the process ends.
    fn run(args: Self::Args) -> Exit;
}

/// Parses `words` as `C`'s command line and runs it.
pub fn main<C: Command>(words: Vec<OsString>) -> Exit {
    match C::parse(words) {
        Ok(args) => C::run(args),
        Err(e) => match usage_text(&e, &C::invocation()) {
            Some(text) => {
                say(&C::usage_error(&text));
                Exit::Code(USAGE)
            }
            None => {
                let _ = e.print(); // --help, help [CMD] or --version
                Exit::Code(SUCCESS)
            }
        },
    }
}
