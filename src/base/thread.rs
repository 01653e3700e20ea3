//! Every thread tapebuf starts, started here: named, and speaking for the
//! same served stream as the thread that started it (`console`'s label),
//! so that a reader's or an output's line in a service still begins
//! `tapebuf: stream N:`.
//!
//! The invariant, held by `tests/layers.rs`: no other file starts a
//! thread, so a thread added later is labelled the day it is added.

use std::io;
use std::thread::JoinHandle;

use super::console;

/// Starts `f` in a thread called `name`, carrying this thread's label.
pub fn spawn<F, T>(name: impl Into<String>, f: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    std::thread::Builder::new()
        .name(name.into())
        .spawn(carrying_label(f))
}

/// The same for a scoped thread, which may borrow from `scope`'s caller.
pub fn spawn_scoped<'scope, 'env, F, T>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    name: impl Into<String>,
    f: F,
) -> io::Result<std::thread::ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    std::thread::Builder::new()
        .name(name.into())
        .spawn_scoped(scope, carrying_label(f))
}

/// `f`, to run in a new thread under this thread's label.
fn carrying_label<F, T>(f: F) -> impl FnOnce() -> T + Send
where
    F: FnOnce() -> T + Send,
{
    let label = console::thread_label();
    move || {
        if let Some(label) = label {
            console::label_thread(label);
        }
        f()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_speaks_for_the_stream_of_the_thread_that_started_it() {
        let got = std::thread::Builder::new()
            .spawn(|| {
                console::label_thread("stream 7".into());
                spawn("child", console::thread_label)
                    .unwrap()
                    .join()
                    .unwrap()
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(got.as_deref(), Some("stream 7"));
        let unlabelled = spawn("child", console::thread_label)
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(unlabelled, None);
    }
}
