//! Whether another volume follows the one just read, in a restore.
//!
//! The volumes' trailers (`tape::trailer`, on a tape its own tape file, on
//! a file its attribute or marker file) say it when they are there: a
//! restore goes on exactly while they say `continues`, checks that every
//! volume belongs to the backup of volume 1, comes in order, held the
//! bytes its trailer names, and that the stream read so far has the bytes
//! and the digest the trailer vouches for, and fails on a volume whose
//! backup was cut short. `-n/--volumes` is then a check, not the only
//! source of truth: a trailer that says the backup continues past the
//! `-n`th volume fails the restore rather than end it short.
//!
//! Once any volume had a trailer, a volume without one is never taken on
//! trust: after a trailer that says `continues` it fails the restore (its
//! trailer was lost, or it is another file), and volumes before the first
//! trailer pass only when that trailer's digest vouches for them. Only a
//! set with no trailer at all falls back on the old rules (`-n` volumes,
//! or every numbered file there is, or one volume), and then the summary
//! says that nothing bounded it. A manifest that says its backup was not
//! clean fails the restore at its end.

use crate::volume::{Ends, Trailer};

/// What follows the volume just read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// The next volume: ask for it.
    Volume,
    /// The stream is complete (or, without trailers, nothing says more).
    End,
    /// The stream cannot be complete: why.
    Fail(String),
}

/// What was found after a volume's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found<'a> {
    /// Its trailer.
    Trailer(&'a Trailer),
    /// No trailer at all.
    Nothing,
    /// The volume was left part-read (verify reported it bad), so its
    /// trailer was not looked for, and the stream read is not the stream.
    Unread,
}

/// The stream as read through the end of a volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// Bytes read from the volume just ended.
    pub volume_bytes: u64,
    /// XXH3-64 of every byte handed on from the stream's first.
    pub digest: u64,
}

/// The restore's volumes so far, as their trailers described them.
#[derive(Debug, Clone, Default)]
pub struct Sequence {
    /// `-n/--volumes`.
    count: Option<u32>,
    /// The backup id of the first trailer.
    backup: Option<String>,
    /// Volumes read that had no trailer and no later digest vouched for.
    unvouched: Vec<u32>,
    /// Volumes without a trailer that a later trailer's digest vouched for.
    vouched: Vec<u32>,
    /// Volumes whose trailer had no digest (an older tapebuf's).
    undigested: Vec<u32>,
    /// How the volume before ended, by its trailer; None without one.
    previous: Option<Ends>,
    /// A volume said to be the last before `-n` was reached.
    ended_before_count: Option<u32>,
    /// The stream's bytes read so far.
    read_bytes: u64,
    /// A volume was left part-read: byte counts and digests no longer
    /// describe the stream.
    broken: bool,
    /// The manifest given says the backup was not clean: why.
    unclean: Option<String>,
    /// A manifest bounds the stream (its volumes are checked against it).
    manifest: bool,
    /// The restore ended on a trailer that says so.
    ended_by_trailer: bool,
}

impl Sequence {
    pub fn new(count: Option<u32>) -> Sequence {
        Sequence {
            count,
            ..Sequence::default()
        }
    }

    /// The restore is checked against a manifest; `unclean` is why it
    /// says its backup was not clean, if it does.
    pub fn with_manifest(mut self, unclean: Option<String>) -> Sequence {
        self.manifest = true;
        self.unclean = unclean;
        self
    }

    /// Decides after volume `volume` ended with `found` after it, when
    /// `read` describes what was read, and `next_exists` says whether a
    /// numbered file for the next volume is there (asked only of a set
    /// that has no trailer).
    pub fn after(&mut self, volume: u32, found: Found<'_>, read: Read, next_exists: bool) -> Next {
        self.read_bytes += read.volume_bytes;
        let next = match found {
            Found::Trailer(t) => self.labeled(volume, t, read),
            Found::Nothing => self.unlabeled(volume, next_exists, read.volume_bytes),
            Found::Unread => {
                self.broken = true;
                self.by_count(volume, next_exists)
            }
        };
        self.previous = match found {
            Found::Trailer(t) => Some(t.ends),
            _ => None,
        };
        match (next, self.unclean.take()) {
            (Next::End, Some(why)) => Next::Fail(format!(
                "the manifest says the backup was not clean ({why}): the stream read ends at byte {} and is incomplete",
                self.read_bytes
            )),
            (next, unclean) => {
                self.unclean = unclean;
                next
            }
        }
    }

    /// Without trailers: `-n`, else the next numbered file.
    fn by_count(&self, volume: u32, next_exists: bool) -> Next {
        let more = match self.count {
            Some(count) => volume < count,
            None => next_exists,
        };
        match more {
            true => Next::Volume,
            false => Next::End,
        }
    }

    fn unlabeled(&mut self, volume: u32, next_exists: bool, volume_bytes: u64) -> Next {
        if self.previous == Some(Ends::Continues) {
            return Next::Fail(format!(
                "volume {volume} has no trailer, but volume {}'s says the backup continues onto it: its trailer was lost or it is not this backup's volume, so the stream is not proven past byte {}",
                volume - 1,
                self.read_bytes - volume_bytes
            ));
        }
        self.unvouched.push(volume);
        self.by_count(volume, next_exists)
    }

    fn labeled(&mut self, volume: u32, t: &Trailer, read: Read) -> Next {
        let at = self.read_bytes;
        let backup = self.backup.get_or_insert_with(|| t.backup.clone());
        if *backup != t.backup {
            return Next::Fail(format!(
                "volume {volume} is volume {} of another backup ({}, not {backup}, the backup of its first trailer): the wrong cartridge or file was put in, and its {} bytes went into the stream, which is wrong from byte {}",
                t.volume, t.backup, read.volume_bytes, at - read.volume_bytes
            ));
        }
        if t.volume != volume {
            return Next::Fail(format!(
                "the volume read as volume {volume} is volume {} of this backup: the volumes were put in out of order (stream byte {})",
                t.volume, at - read.volume_bytes
            ));
        }
        if t.volume_bytes != read.volume_bytes {
            return Next::Fail(format!(
                "volume {volume}'s trailer says it holds {} bytes of the stream, but {} were read from it: the volume does not hold what was written (stream byte {at})",
                t.volume_bytes, read.volume_bytes
            ));
        }
        if !self.broken && t.stream_bytes != at {
            return Next::Fail(format!(
                "volume {volume}'s trailer says the stream reaches byte {} at its end, but the volumes read end at byte {at}: a volume is missing or was written by another run",
                t.stream_bytes
            ));
        }
        if let Some(why) = self.vouch(volume, t, read.digest) {
            return Next::Fail(why);
        }
        self.ends(volume, t)
    }

    /// Checks the stream's digest against the trailer's, which then
    /// vouches for every volume before it; why not, when it cannot.
    fn vouch(&mut self, volume: u32, t: &Trailer, digest: u64) -> Option<String> {
        let at = self.read_bytes;
        match t.stream_digest {
            _ if self.broken => None,
            Some(d) if d != digest => Some(format!(
                "the stream read through volume {volume} (bytes 0-{at}) is not the stream its trailer vouches for (stream-xxh3 {d:016x}, read {digest:016x}): {} was replaced or changed",
                match self.unvouched.as_slice() {
                    [] => "a volume".to_string(),
                    [n] => format!("volume {n}, which has no trailer,"),
                    many => format!("one of volumes {many:?}, which have no trailer,"),
                }
            )),
            Some(_) => {
                self.vouched.append(&mut self.unvouched);
                None
            }
            None if !self.unvouched.is_empty() => Some(format!(
                "volume {volume} has a trailer without a stream digest (an older tapebuf's), and volume {} before it has none, so nothing proves it is this backup's (stream byte {at})",
                self.unvouched[0]
            )),
            None => {
                self.undigested.push(volume);
                None
            }
        }
    }

    /// How the trailer says the volume ends.
    fn ends(&mut self, volume: u32, t: &Trailer) -> Next {
        let stream_bytes = t.stream_bytes;
        let next = match (t.ends, self.count) {
            (Ends::Cut, _) => Next::Fail(format!(
                "volume {volume} is where the backup was cut short when it was written (its run was stopped or lost its input): the stream ends at byte {stream_bytes} and is incomplete"
            )),
            (Ends::Continues, Some(count)) if volume >= count => Next::Fail(format!(
                "volume {volume}'s trailer says the backup continues on volume {}, but -n/--volumes {count} stops here: the stream is incomplete at byte {stream_bytes}",
                volume + 1
            )),
            (Ends::Continues, _) => Next::Volume,
            (Ends::Last, Some(count)) if volume < count => {
                self.ended_before_count = Some(volume);
                Next::End
            }
            (Ends::Last, _) => Next::End,
        };
        self.ended_by_trailer = next == Next::End;
        next
    }

    /// Whether the restore's end was proved: by a trailer that says
    /// `last`, or by a manifest; else why not.
    pub fn bounded(&self) -> Result<(), String> {
        if self.ended_by_trailer || self.manifest {
            return Ok(());
        }
        Err(match self.count {
            Some(count) => format!(
                "no trailer said where the backup ends; -n/--volumes {count} was taken on trust"
            ),
            None => "no trailer said where the backup ends (no attribute, no marker file, no tape file); the volumes there were taken on trust".to_string(),
        })
    }

    /// What the summary should say about how the restore knew where the
    /// stream ends, if anything is worth saying.
    pub fn note(&self, volumes_read: u32) -> Option<String> {
        let mut notes = Vec::new();
        if let (Some(last), Some(count)) = (self.ended_before_count, self.count) {
            notes.push(format!(
                "volume {last}'s trailer says it is the backup's last, so -n/--volumes {count} asked for more than there are"
            ));
        }
        if !self.vouched.is_empty() {
            notes.push(format!(
                "volume {} had no trailer; the stream digest of a later trailer vouches for its bytes",
                join(&self.vouched)
            ));
        }
        if !self.undigested.is_empty() {
            notes.push(format!(
                "volume {}'s trailer is an older tapebuf's, without a stream digest: its bytes were counted, not checked",
                join(&self.undigested)
            ));
        }
        if self.backup.is_none() && !self.unvouched.is_empty() && !self.manifest {
            notes.push(format!(
                "{} no tapebuf trailer, so nothing said whether the backup goes on{}",
                match volumes_read {
                    1 => "the volume had".to_string(),
                    n => format!("the {n} volumes had"),
                },
                match self.count {
                    Some(_) => "; -n/--volumes was taken on trust",
                    None => "; give -n/--volumes N if it spans more",
                }
            ));
        }
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}

fn join(volumes: &[u32]) -> String {
    let each: Vec<String> = volumes.iter().map(u32::to_string).collect();
    each.join(",")
}
