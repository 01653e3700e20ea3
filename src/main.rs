//! The tapebuf binary: parse, run, and map the outcome to an exit status.

use tapebuf::base::console::say;
use tapebuf::exit::Exit;
use tapebuf::{run, Config, MachineInfo};

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(server_args) = tapebuf::rmt::server_args(&args) {
        std::process::exit(tapebuf::rmt::server::main(server_args));
    }
    if let Some(report_args) = tapebuf::report::command_args(&args) {
        std::process::exit(tapebuf::report::main(report_args));
    }
    if let Some(probe_args) = tapebuf::probe::command_args(&args) {
        end(tapebuf::probe::main(probe_args));
    }
    if let Some(words) = tapebuf::cli::subcommand_args(&args, "completions") {
        std::process::exit(tapebuf::completions::main(words));
    }
    let cli = match tapebuf::cli::parse(&args) {
        Ok(cli) => cli,
        Err(e) => match run::usage_line(&e) {
            Some(line) => {
                say(&line);
                std::process::exit(tapebuf::exit::USAGE);
            }
            None => {
                let _ = e.print(); // --help, help [CMD] or --version
                std::process::exit(tapebuf::exit::SUCCESS);
            }
        },
    };
    let outcome = Config::from_cli(&cli, MachineInfo::current())
        .map_err(tapebuf::exit::Error::from)
        .and_then(|config| run::run(&config));
    match outcome {
        Ok(exit) => end(exit),
        Err(e) => {
            say(&format!("tapebuf: {e}"));
            std::process::exit(e.exit_code());
        }
    }
}

/// Exits with the status, or dies of the signal (128 + signal if dying
/// fails).
fn end(exit: Exit) -> ! {
    match exit {
        Exit::Code(code) => std::process::exit(code),
        Exit::Signal(sig) => {
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(128 + sig);
        }
    }
}
