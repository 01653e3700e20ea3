//! The tapebuf binary: parse, run, and map the outcome to an exit status.

use clap::Parser;
use tapebuf::exit::Exit;
use tapebuf::{run, Cli, Config, MachineInfo};

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let (code, text) = run::clap_error(&e);
            if code == 0 {
                print!("{text}")
            } else {
                eprint!("{text}")
            }
            std::process::exit(code);
        }
    };
    let outcome = Config::from_cli(&cli, MachineInfo::current())
        .map_err(tapebuf::exit::Error::from)
        .and_then(|config| run::run(&config));
    match outcome {
        Ok(Exit::Code(code)) => std::process::exit(code),
        Ok(Exit::Signal(sig)) => {
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(128 + sig);
        }
        Err(e) => {
            eprintln!("tapebuf: {e}");
            std::process::exit(e.exit_code());
        }
    }
}
