//! The probe's sweep, in-process, against the emulated tape drive behind a
//! speed curve on a virtual clock: the drive is at its best at a known
//! block size, each record costs a fixed overhead plus its bytes at the
//! curve's rate, and each pass costs a fixed start-up. Since the clock is
//! virtual, the probe's figures can be checked against the curve exactly.
//! Also: a read-back with one flipped byte is caught at its offset.

use std::io;
use std::sync::{Arc, Mutex};

use tapebuf::probe::measure::Clock;
use tapebuf::probe::recommend::recommend;
use tapebuf::probe::schema::{DataKind, TargetKind};
use tapebuf::probe::sweep::{sweep, Mismatch, Plan, Sweep, SweepError};
use tapebuf::probe::table::lines_of;
use tapebuf::probe::tape::TapeTarget;
use tapebuf::probe::{Pass, ProbeTarget};
use tapebuf::tape::emulated::{Cartridge, Emulated, Shelf};

const KIB: u64 = 1024;

/// Seconds, moved on only by the targets below.
#[derive(Clone, Default)]
struct VirtualClock(Arc<Mutex<f64>>);

impl VirtualClock {
    fn advance(&self, seconds: f64) {
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
struct Curve {
    peak_block_bytes: u64,
    peak_rate_bytes_per_s: f64,
    per_record_s: f64,
    startup_s: f64,
}

impl Curve {
    fn rate(&self, block_bytes: u64) -> f64 {
        let octaves = ((block_bytes as f64) / (self.peak_block_bytes as f64))
            .log2()
            .abs();
        self.peak_rate_bytes_per_s * (1.0 - 0.25 * octaves).max(0.05)
    }

    /// What a whole pass of `stream_bytes` must take.
    fn pass_s(&self, block_bytes: u64, stream_bytes: u64) -> f64 {
        let records = stream_bytes.div_ceil(block_bytes) as f64;
        self.startup_s + records * self.per_record_s + stream_bytes as f64 / self.rate(block_bytes)
    }

    /// The streaming rate the differential method should find.
    fn stream_rate(&self, block_bytes: u64, stream_bytes: u64) -> f64 {
        stream_bytes as f64 / (self.pass_s(block_bytes, stream_bytes) - self.startup_s)
    }
}

/// A target whose calls cost virtual time by the curve.
struct Timed<T> {
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
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn kind(&self) -> TargetKind {
        self.inner.kind()
    }
    fn method(&self) -> String {
        self.inner.method()
    }
    fn begin(&mut self, pass: Pass, block_bytes: usize, stream_bytes: u64) -> io::Result<()> {
        self.block_bytes = block_bytes as u64;
        self.started = false;
        self.inner.begin(pass, block_bytes, stream_bytes)
    }
    fn write_block(&mut self, block: &[u8]) -> io::Result<()> {
        self.cost(block.len());
        self.inner.write_block(block)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.inner.sync()
    }
    fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read_block(buf)?;
        self.cost(n);
        Ok(n)
    }
    fn end(&mut self) -> io::Result<()> {
        self.inner.end()
    }
    fn cleanup(&mut self) -> io::Result<String> {
        self.inner.cleanup()
    }
}

/// Flips one byte of the read-back at `offset` in one run at one size.
struct Corrupt<T> {
    inner: T,
    block_bytes: u64,
    run_counter: u32,
    at: (u64, u32, u64),
    read_offset: u64,
}

impl<T: ProbeTarget> ProbeTarget for Corrupt<T> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn kind(&self) -> TargetKind {
        self.inner.kind()
    }
    fn method(&self) -> String {
        self.inner.method()
    }
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
    fn sync(&mut self) -> io::Result<()> {
        self.inner.sync()
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
    fn end(&mut self) -> io::Result<()> {
        self.inner.end()
    }
    fn cleanup(&mut self) -> io::Result<String> {
        self.inner.cleanup()
    }
}

fn emulated_tape() -> (TapeTarget, Shelf) {
    let (drive, shelf) = Emulated::new("emu0", vec![Cartridge::blank(256 << 20, 0)]);
    let target = TapeTarget::with_drive("emu0", Box::new(drive)).unwrap();
    (target, shelf)
}

/// The emulated tape behind the test curve on `clock`.
fn timed(tape: TapeTarget, clock: &VirtualClock) -> Timed<TapeTarget> {
    Timed {
        inner: tape,
        clock: clock.clone(),
        curve: CURVE,
        block_bytes: 0,
        started: false,
    }
}

fn run(target: &mut dyn ProbeTarget, plan: &Plan, clock: &dyn Clock) -> Result<Sweep, SweepError> {
    sweep(target, plan, clock, &|| None, &mut |_| {})
}

const CURVE: Curve = Curve {
    peak_block_bytes: 256 * KIB,
    peak_rate_bytes_per_s: 100e6,
    per_record_s: 0.0005,
    startup_s: 0.02,
};

#[test]
fn the_probe_recommends_the_size_where_the_emulated_drive_peaks() {
    let (tape, shelf) = emulated_tape();
    let clock = VirtualClock::default();
    let mut target = timed(tape, &clock);
    let plan = Plan {
        sizes: (4..=10).map(|p| KIB << p).collect(), // 16 KiB .. 1 MiB
        runs: 3,
        stream_bytes: 8 << 20,
        data: DataKind::Random,
    };
    let done = run(&mut target, &plan, &clock).unwrap();
    let results = done.results(&target, &plan, false);
    assert_eq!(results.target_kind, TargetKind::Tape);
    assert!(done.mismatches().is_empty());

    // The recommendation is the peak, for backups and restores alike.
    assert_eq!(results.recommend.write_block_bytes, 256 * KIB);
    assert_eq!(results.recommend.read_block_bytes, 256 * KIB);

    // The table follows the curve: every median is the curve's whole-pass
    // rate, rising to the peak and falling after it.
    let medians: Vec<f64> = results
        .results
        .iter()
        .map(|r| r.write.median_bytes_per_s)
        .collect();
    for (r, median) in results.results.iter().zip(&medians) {
        let want = plan.stream_bytes as f64 / CURVE.pass_s(r.block_bytes, plan.stream_bytes);
        assert!(
            (median / want - 1.0).abs() < 1e-6,
            "{} bytes: {median} against {want}",
            r.block_bytes
        );
        assert!((r.read.median_bytes_per_s / want - 1.0).abs() < 1e-6);
        assert!(r.verified);
        assert_eq!(r.write.rates_bytes_per_s.len(), 3);
        assert!(r.write.spread_pct < 1e-6, "a virtual clock has no noise");
        // The differential method recovers the injected start-up cost and
        // the streaming rate.
        assert!(
            (r.write.startup_s - CURVE.startup_s).abs() < 1e-3,
            "start-up {} at {}",
            r.write.startup_s,
            r.block_bytes
        );
        assert!((r.read.startup_s - CURVE.startup_s).abs() < 1e-3);
        let stream = CURVE.stream_rate(r.block_bytes, plan.stream_bytes);
        assert!((r.write.stream_rate_bytes_per_s / stream - 1.0).abs() < 1e-3);
    }
    let peak = medians
        .iter()
        .position(|&m| m == medians.iter().copied().fold(0.0, f64::max))
        .unwrap();
    assert_eq!(results.results[peak].block_bytes, 256 * KIB);
    assert!(
        medians[..=peak].windows(2).all(|w| w[0] < w[1]),
        "{medians:?}"
    );
    assert!(
        medians[peak..].windows(2).all(|w| w[0] > w[1]),
        "{medians:?}"
    );

    let table = lines_of(&results);
    assert!(table.iter().any(|l| l.trim_start().starts_with("256k")));
    assert!(
        table.iter().any(|l| l.starts_with("backups: -s 256k (")),
        "{table:#?}"
    );
    // A drive's probe helps choose --pace: the write rate at 256k is the top.
    let top = results.results[peak].write.median_bytes_per_s;
    let mb = |rate: f64| (rate / 1e6).round() as u64;
    let pace = format!("pacing: --pace {}MB:{}MB (", mb(top / 2.0), mb(top));
    assert!(
        table.iter().any(|l| l.starts_with(&pace)),
        "{pace} in {table:#?}"
    );

    // The tape was rewound between runs, so it holds one pass, and the
    // probe leaves it rewound.
    assert_eq!(target.cleanup().unwrap(), "rewound emu0");
    let lib = shelf.lock().unwrap();
    let rewinds = lib.log.iter().filter(|l| *l == "rewind").count();
    assert!(rewinds >= 2 * 7 * 3, "{rewinds} rewinds");
    assert_eq!(lib.slots[0].first_file().len() as u64, plan.stream_bytes);
    assert_eq!(lib.slots[0].filemarks(), 1);
    assert_eq!(lib.log.last().map(String::as_str), Some("close"));
}

#[test]
fn a_flipped_byte_in_the_read_back_is_caught_at_its_offset() {
    let (tape, _shelf) = emulated_tape();
    let mut target = Corrupt {
        inner: tape,
        block_bytes: 0,
        run_counter: 0,
        at: (64 * KIB, 2, 100_003),
        read_offset: 0,
    };
    let plan = Plan {
        sizes: vec![32 * KIB, 64 * KIB, 128 * KIB],
        runs: 2,
        stream_bytes: 1 << 20,
        data: DataKind::Mix,
    };
    let clock = VirtualClock::default();
    // The drive takes no virtual time; each call moves the clock a little.
    let done = run(&mut target, &plan, &Ticking(clock)).unwrap();
    let mismatches = done.mismatches();
    assert_eq!(mismatches.len(), 1, "{mismatches:?}");
    let m: Mismatch = mismatches[0];
    assert_eq!((m.block_bytes, m.run, m.offset), (64 * KIB, 2, 100_003));
    assert_eq!(m.expected ^ 0x01, m.got);
    let text = m.to_string();
    assert!(text.contains("byte offset 100003"), "{text}");
    assert!(text.contains("block size 65536 bytes, run 2"), "{text}");

    let results = done.size_results();
    let verified: Vec<bool> = results.iter().map(|r| r.verified).collect();
    assert_eq!(verified, vec![true, false, true]);
    let r = recommend(&results);
    assert_ne!(r.write_block_bytes, 64 * KIB);
    assert_ne!(r.read_block_bytes, 64 * KIB);
}

/// A clock that moves a microsecond every time it is read.
struct Ticking(VirtualClock);

impl Clock for Ticking {
    fn now_s(&self) -> f64 {
        self.0.advance(1e-6);
        self.0.now_s()
    }
}

#[test]
fn a_stop_request_ends_the_sweep_between_blocks_and_cleanup_rewinds() {
    let (tape, shelf) = emulated_tape();
    let mut target = tape;
    let plan = Plan {
        sizes: vec![64 * KIB],
        runs: 1,
        stream_bytes: 1 << 20,
        data: DataKind::Random,
    };
    let asked = std::cell::Cell::new(0);
    let stop = || {
        asked.set(asked.get() + 1);
        (asked.get() > 5).then_some(2)
    };
    let clock = Ticking(VirtualClock::default());
    let e = sweep(&mut target, &plan, &clock, &stop, &mut |_| {}).unwrap_err();
    assert!(matches!(e, SweepError::Interrupted(2)), "{e}");
    target.cleanup().unwrap();
    let lib = shelf.lock().unwrap();
    // Four records were written before the stop; the rewind wrote the
    // filemark after them.
    assert_eq!(lib.slots[0].record_sizes(), vec![65536; 4]);
    assert_eq!(lib.slots[0].filemarks(), 1);
    let tail: Vec<&str> = lib.log.iter().rev().take(3).map(String::as_str).collect();
    assert_eq!(tail, vec!["close", "rewind", "filemark"]);
}

#[test]
fn sizes_the_drive_refuses_are_marked_unsupported_and_the_sweep_goes_on() {
    let (tape, shelf) = emulated_tape();
    // st over the host adapter's limit: EBUSY above 256 KiB, and the
    // drive left in fixed-block mode, which the probe undoes.
    {
        let mut lib = shelf.lock().unwrap();
        lib.transfer_limit = Some(tapebuf::tape::emulated::TransferLimit {
            max_bytes: 256 << 10,
            errno: libc::EBUSY,
            known: false,
        });
        lib.block_bytes = 512;
    }
    let clock = VirtualClock::default();
    let mut target = timed(tape, &clock);
    let plan = Plan {
        sizes: (6..=10).map(|p| KIB << p).collect(), // 64 KiB .. 1 MiB
        runs: 2,
        stream_bytes: 4 << 20,
        data: DataKind::Random,
    };
    let done = run(&mut target, &plan, &clock).unwrap();
    let results = done.results(&target, &plan, false);
    let refused: Vec<u64> = results
        .results
        .iter()
        .filter(|r| r.refused.is_some())
        .map(|r| r.block_bytes)
        .collect();
    assert_eq!(refused, vec![512 * KIB, 1024 * KIB]);
    for r in &results.results {
        assert_eq!(r.verified, r.block_bytes <= 256 * KIB, "{r:?}");
    }
    // The curve peaks at 256 KiB, the largest size the drive takes.
    assert_eq!(results.recommend.write_block_bytes, 256 * KIB);
    assert_eq!(results.recommend.read_block_bytes, 256 * KIB);
    let table = lines_of(&results);
    let row = table
        .iter()
        .find(|l| l.trim_start().starts_with("512k"))
        .unwrap();
    assert!(
        row.contains("not supported by this drive/controller (writing a 524288-byte block: Device or resource busy)"),
        "{table:#?}"
    );
    let json = serde_json::to_string(&results).unwrap();
    assert!(
        json.contains(r#""refused":"not supported by this drive/controller"#),
        "{json}"
    );
    assert_eq!(json.matches(r#""refused""#).count(), 2, "{json}");
    target.cleanup().unwrap();
    let lib = shelf.lock().unwrap();
    assert_eq!(
        lib.block_bytes, 0,
        "the probe put the drive in variable mode"
    );
    assert!(
        lib.slots[0].record_sizes().iter().all(|&s| s <= 256 << 10),
        "no refused record reached the tape"
    );
}
