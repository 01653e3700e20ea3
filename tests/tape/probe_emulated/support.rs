//! The emulated drive behind a speed curve on a virtual clock, for the
//! probe's sweep: a clock moved on only by the targets, the curve, a target
//! that costs virtual time by it, one that flips a byte of the read-back,
//! and a clock that ticks whenever it is read.

use std::io;
use std::sync::{Arc, Mutex};

use tapebuf::probe::measure::Clock;
use tapebuf::probe::schema::TargetKind;
use tapebuf::probe::sweep::{sweep, Plan, Sweep, SweepError};
use tapebuf::probe::tape::TapeTarget;
use tapebuf::probe::{Pass, ProbeTarget};
use tapebuf::tape::emulated::{Cartridge, Emulated, Shelf};

/// The `ProbeTarget` methods a wrapper passes straight to `self.inner`.
macro_rules! forward_to_inner {
    () => {
        fn name(&self) -> &str {
            self.inner.name()
        }
        fn kind(&self) -> TargetKind {
            self.inner.kind()
        }
        fn method(&self) -> String {
            self.inner.method()
        }
        fn sync(&mut self) -> io::Result<()> {
            self.inner.sync()
        }
        fn end(&mut self) -> io::Result<()> {
            self.inner.end()
        }
        fn cleanup(&mut self) -> io::Result<String> {
            self.inner.cleanup()
        }
    };
}

pub const KIB: u64 = 1024;

/// Seconds, moved on only by the targets below.
#[derive(Clone, Default)]
pub struct VirtualClock(Arc<Mutex<f64>>);

impl VirtualClock {
    pub fn advance(&self, seconds: f64) {
        *self.0.lock().unwrap() += seconds;
    }
}

impl Clock for VirtualClock {
    fn now_s(&self) -> f64 {
        *self.0.lock().unwrap()
    }
}

/// The injected drive: best at `peak_block_bytes`, a quarter slower per
/// octave either side, plus costs per record and per pass.
#[derive(Clone, Copy)]
pub struct Curve {
    pub peak_block_bytes: u64,
    pub peak_rate_bytes_per_s: f64,
    pub per_record_s: f64,
    pub startup_s: f64,
}

impl Curve {
    pub fn rate(&self, block_bytes: u64) -> f64 {
        let octaves = ((block_bytes as f64) / (self.peak_block_bytes as f64))
            .log2()
            .abs();
        self.peak_rate_bytes_per_s * (1.0 - 0.25 * octaves).max(0.05)
    }

    /// What a whole pass of `stream_bytes` must take.
    pub fn pass_s(&self, block_bytes: u64, stream_bytes: u64) -> f64 {
        let records = stream_bytes.div_ceil(block_bytes) as f64;
        self.startup_s + records * self.per_record_s + stream_bytes as f64 / self.rate(block_bytes)
    }

    /// The streaming rate the differential method should find.
    pub fn stream_rate(&self, block_bytes: u64, stream_bytes: u64) -> f64 {
        stream_bytes as f64 / (self.pass_s(block_bytes, stream_bytes) - self.startup_s)
    }
}

/// A target whose calls cost virtual time by the curve.
pub struct Timed<T> {
    inner: T,
    clock: VirtualClock,
    curve: Curve,
    block_bytes: u64,
    started: bool,
}

impl<T: ProbeTarget> Timed<T> {
    fn cost(&mut self, bytes: usize) {
        if !self.started {
            self.clock.advance(self.curve.startup_s);
            self.started = true;
        }
        let rate = self.curve.rate(self.block_bytes);
        self.clock
            .advance(self.curve.per_record_s + bytes as f64 / rate);
    }
}

impl<T: ProbeTarget> ProbeTarget for Timed<T> {
    forward_to_inner!();
    fn begin(&mut self, pass: Pass, block_bytes: usize, stream_bytes: u64) -> io::Result<()> {
        self.block_bytes = block_bytes as u64;
        self.started = false;
        self.inner.begin(pass, block_bytes, stream_bytes)
    }
    fn write_block(&mut self, block: &[u8]) -> io::Result<()> {
        self.cost(block.len());
        self.inner.write_block(block)
    }
    fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read_block(buf)?;
        self.cost(n);
        Ok(n)
    }
}

/// Flips one byte of the read-back at `offset` in one run at one size.
pub struct Corrupt<T> {
    pub inner: T,
    pub block_bytes: u64,
    pub run_counter: u32,
    pub at: (u64, u32, u64),
    pub read_offset: u64,
}

impl<T: ProbeTarget> ProbeTarget for Corrupt<T> {
    forward_to_inner!();
    fn begin(&mut self, pass: Pass, block_bytes: usize, stream_bytes: u64) -> io::Result<()> {
        self.block_bytes = block_bytes as u64;
        self.read_offset = 0;
        if pass == Pass::Read && block_bytes as u64 == self.at.0 {
            self.run_counter += 1;
        }
        self.inner.begin(pass, block_bytes, stream_bytes)
    }
    fn write_block(&mut self, block: &[u8]) -> io::Result<()> {
        self.inner.write_block(block)
    }
    fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read_block(buf)?;
        let (block, run, offset) = self.at;
        let range = self.read_offset..self.read_offset + n as u64;
        if self.block_bytes == block && self.run_counter == run && range.contains(&offset) {
            buf[(offset - self.read_offset) as usize] ^= 0x01;
        }
        self.read_offset += n as u64;
        Ok(n)
    }
}

pub fn emulated_tape() -> (TapeTarget, Shelf) {
    let (drive, shelf) = Emulated::new("emu0", vec![Cartridge::blank(256 << 20, 0)]);
    let target = TapeTarget::with_drive("emu0", Box::new(drive)).unwrap();
    (target, shelf)
}

/// The emulated tape behind the test curve on `clock`.
pub fn timed(tape: TapeTarget, clock: &VirtualClock) -> Timed<TapeTarget> {
    Timed {
        inner: tape,
        clock: clock.clone(),
        curve: CURVE,
        block_bytes: 0,
        started: false,
    }
}

pub fn run(
    target: &mut dyn ProbeTarget,
    plan: &Plan,
    clock: &dyn Clock,
) -> Result<Sweep, SweepError> {
    sweep(target, plan, clock, &|| None, &mut |_| {})
}

pub const CURVE: Curve = Curve {
    peak_block_bytes: 256 * KIB,
    peak_rate_bytes_per_s: 100e6,
    per_record_s: 0.0005,
    startup_s: 0.02,
};

/// A clock that moves a microsecond every time it is read.
pub struct Ticking(pub VirtualClock);

impl Clock for Ticking {
    fn now_s(&self) -> f64 {
        self.0.advance(1e-6);
        self.0.now_s()
    }
}
