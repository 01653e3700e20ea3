//! Waiting with a deadline: a condition polled until it holds, or a child
//! until it exits, and the test fails (naming what it waited for) when
//! the deadline passes first. A condition, never a guess at timing.

use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// How often a condition is polled.
const POLL: Duration = Duration::from_millis(10);

/// Polls `ready` until it gives `Some`, and returns that; fails the test,
/// naming `what`, when `limit` passes first.
#[track_caller]
pub fn until<T>(limit: Duration, what: &str, ready: impl FnMut() -> Option<T>) -> T {
    match within(limit, ready) {
        Some(value) => value,
        None => panic!("{what} did not happen within {limit:?}"),
    }
}

/// Polls `ready` until it gives `Some`, for at most `limit`: None when it
/// never did (for a test that checks that something does not happen, too).
pub fn within<T>(limit: Duration, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = ready() {
            return Some(value);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(POLL);
    }
}

/// The child's exit status if it exits within `limit`; otherwise None,
/// and the child is killed and reaped.
pub fn exited_within(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let status = within(limit, || child.try_wait().unwrap());
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    status
}

/// Waits for the child to exit; kills it and fails the test if that takes
/// longer than `limit`.
#[track_caller]
pub fn exit_within(child: &mut Child, limit: Duration) -> ExitStatus {
    match exited_within(child, limit) {
        Some(status) => status,
        None => panic!("the child did not exit within {limit:?}"),
    }
}
