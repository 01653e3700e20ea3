//! The `tapebuf rmt` command line as the user typed it: clap derive
//! definitions and help text only. Turning it into a policy and a log,
//! with every check, happens in `rmt_server/mod.rs`.

use std::path::PathBuf;

use clap::Parser;

/// tapebuf rmt: a remote tape server for GNU tar, star, dump and tapebuf.
///
/// Speaks the rmt protocol on standard input and output, as a remote shell
/// runs it: `ssh host tapebuf rmt`, or tapebuf installed as /etc/rmt.
/// Clients may open only the paths the policy allows; without --allow or a
/// configuration file, that is tape devices only (/dev/st*, /dev/nst*,
/// /dev/tape/**, /dev/sa*, /dev/nsa*), never plain files.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf rmt", version, long_about = None)]
#[command(after_help = "\
Patterns: '*' and '?' match within one path component, '[a-z]' one \
character of a class, a '**' component any depth (/srv/backup/** is \
everything below /srv/backup). Paths are canonicalised before matching and \
opened without following any symbolic link, so neither '..' nor a link, \
even one swapped in after the check, leads outside. The L request takes GNU's \
order, whence then offset. Exit status: 0 the client ended the session, \
1 protocol violation or I/O failure, 2 usage error; after SIGHUP, SIGINT or SIGTERM it \
logs the end and dies of the signal (129, 130, 143). See tapebuf(1).")]
pub struct RmtCli {
    /// Allow opening paths that match PATTERN (an absolute glob); repeat
    /// for several. Adds to the configuration file's 'allow' lines.
    #[arg(long = "allow", value_name = "PATTERN")]
    pub allow: Vec<String>,

    /// Read the policy from FILE: 'allow PATTERN' and 'read-only' lines,
    /// '#' comments [default: /etc/tapebuf/rmt.conf, if it exists].
    #[arg(long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Refuse every open that could modify a file (write access, O_CREAT,
    /// O_TRUNC, O_APPEND) and tape operations that write.
    #[arg(long = "read-only")]
    pub read_only: bool,

    /// Append one line per event (session, open, close, error) to FILE.
    #[arg(long = "log", value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Send the same events to syslog (ident tapebuf-rmt, facility daemon).
    #[arg(long = "syslog")]
    pub syslog: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_definitions_are_consistent() {
        RmtCli::command().debug_assert();
    }

    #[test]
    fn allow_repeats_and_everything_else_defaults_off() {
        let cli =
            RmtCli::try_parse_from(["tapebuf rmt", "--allow", "/srv/a/**", "--allow=/dev/nst0"])
                .unwrap();
        assert_eq!(cli.allow, vec!["/srv/a/**", "/dev/nst0"]);
        assert!(cli.config.is_none() && cli.log.is_none());
        assert!(!cli.read_only && !cli.syslog);
    }
}
