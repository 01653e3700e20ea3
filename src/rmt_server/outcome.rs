//! How an rmt session ended, and the exit status that follows from it.

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The client closed its end between requests; the device, if any,
    /// closed cleanly. Exit status 0.
    Finished,
    /// As `Finished`, but closing the device at the end failed.
    CloseFailed,
    /// A request could not be consumed safely (see
    /// `rmt/protocol/read_request.rs`); it was answered with an error and
    /// the session ended.
    Violation,
    /// The input ended inside a request.
    Truncated,
    /// Reading the input failed.
    InputFailed,
    /// Writing a reply failed: the client is gone.
    ClientGone,
}

impl Outcome {
    /// The process exit status: 0 for `Finished`, else 1.
    pub fn exit_code(self) -> i32 {
        match self {
            Outcome::Finished => crate::base::exit::SUCCESS,
            _ => crate::base::exit::FAILURE,
        }
    }

    /// What the session's last log line says of how it ended.
    pub(super) fn describe(self) -> &'static str {
        match self {
            Outcome::Finished => "end of input",
            Outcome::CloseFailed => "end of input, but closing the device failed",
            Outcome::Violation => "protocol violation",
            Outcome::Truncated => "the input ended inside a request",
            Outcome::InputFailed => "reading requests failed",
            Outcome::ClientGone => "the client stopped reading replies",
        }
    }
}
