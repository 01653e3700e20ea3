//! The tapebuf binary: hand the command line to `app::main` and end the
//! process as it says.

use tapebuf::base::exit::{signalled, Exit};

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    end(tapebuf::app::main(args));
}

/// Exits with the status, or dies of the signal (128 + signal if dying
/// fails).
fn end(exit: Exit) -> ! {
    match exit {
        Exit::Code(code) => std::process::exit(code),
        Exit::Signal(sig) => {
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(signalled(sig));
        }
    }
}
