//! The stream digest of `tapebuf verify`, computed on a thread of its own
//! while the volumes are read, so that checking the stream costs no more
//! wall time than reading it: the reader fills one buffer while the
//! digest takes the last. A few buffers go round between the two.

use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Receiver, Sender};

use crate::hash::{HashAlg, Hasher};

/// Buffers going round between the reader and the digest's thread.
const BUFFERS: usize = 4;

pub struct StreamDigest {
    full: Option<Sender<(Vec<u8>, usize)>>,
    empty: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<String>>,
}

impl StreamDigest {
    /// Starts the thread, with buffers of `bytes` (a block and the room
    /// after it the source may use, `Source::room_after_block`).
    pub fn start(alg: HashAlg, bytes: usize) -> StreamDigest {
        let (full, filled) = bounded::<(Vec<u8>, usize)>(BUFFERS);
        let (give_back, empty) = bounded(BUFFERS);
        for _ in 0..BUFFERS {
            let _ = give_back.send(vec![0u8; bytes]);
        }
        let thread = crate::base::thread::spawn("verify-digest", move || {
            let mut hasher = Hasher::new(alg);
            for (buf, len) in filled {
                hasher.update(&buf[..len]);
                let _ = give_back.send(buf);
            }
            hasher.finish()
        })
        .expect("starting the digest thread");
        StreamDigest {
            full: Some(full),
            empty,
            thread: Some(thread),
        }
    }

    /// A buffer to fill: one the digest has finished with.
    pub fn buffer(&self) -> Vec<u8> {
        self.empty
            .recv()
            .expect("the digest thread gives every buffer back")
    }

    /// Hands on the first `len` bytes of `buf`, the next of the stream.
    pub fn hand_on(&self, buf: Vec<u8>, len: usize) {
        if let Some(full) = &self.full {
            let _ = full.send((buf, len));
        }
    }

    /// The digest of every byte handed on, in order.
    pub fn finish(mut self) -> String {
        self.full = None;
        let thread = self.thread.take().expect("finished once");
        thread.join().expect("the digest thread does not panic")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_that_of_the_bytes_handed_on_in_order() {
        let data: Vec<u8> = (0..1_000_000u32).map(|i| (i * 31 % 251) as u8).collect();
        let digest = StreamDigest::start(HashAlg::Sha256, 4096);
        for chunk in data.chunks(3000) {
            let mut buf = digest.buffer();
            buf[..chunk.len()].copy_from_slice(chunk);
            digest.hand_on(buf, chunk.len());
        }
        let mut whole = Hasher::new(HashAlg::Sha256);
        whole.update(&data);
        assert_eq!(digest.finish(), whole.finish());
    }
}
