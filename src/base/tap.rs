//! A tap reads every block of the stream, in order, without writing it
//! anywhere: the `--hash` digests are taps. The engine feeds taps; what a
//! tap computes is its own business.

/// A reader of the whole stream.
pub trait Tap: Send {
    /// Takes the next block of the stream.
    fn update(&mut self, data: &[u8]);
    /// The stream has ended (not called when the run is stopped).
    fn finish(&mut self);
}
