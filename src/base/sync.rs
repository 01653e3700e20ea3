//! Locks that outlive a panic elsewhere. A thread that panicked while
//! holding a lock leaves it poisoned; tapebuf's shared state (counters,
//! records, a changer) stays consistent at every unlock, so the next
//! holder takes it as it is rather than panicking in turn, and the run
//! ends with the first thread's error instead of a cascade.

use std::sync::{Mutex, MutexGuard};

/// `m`'s guard, poisoned or not.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::lock;
    use std::sync::{Arc, Mutex};

    #[test]
    fn a_lock_poisoned_by_a_panic_is_still_taken() {
        let shared = Arc::new(Mutex::new(1));
        let held = Arc::clone(&shared);
        let panicked = std::thread::spawn(move || {
            let mut n = held.lock().unwrap();
            *n = 2;
            panic!("poisons the lock");
        })
        .join();
        assert!(panicked.is_err());
        assert!(shared.is_poisoned());
        assert_eq!(*lock(&shared), 2);
    }
}
