//! Whether another volume follows the one just read, in a restore.
//!
//! The volumes' trailers (`tape::trailer`) say it when they are there: a
//! restore goes on exactly while they say `continues`, checks that every
//! volume belongs to the backup of volume 1, comes in order and held the
//! bytes its trailer names, and fails on a volume whose backup was
//! cut short. `-n/--volumes` is then a check, not the only source of truth:
//! a trailer that says the backup continues past the `-n`th volume fails
//! the restore rather than end it short. Without a trailer (a tape written
//! by another program or an older tapebuf, a file whose filesystem keeps
//! no attributes) the old rules hold: `-n` volumes, or every numbered file
//! there is, or one volume, and the summary says that nothing told.

use crate::tape::{Ends, Trailer};

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

/// The restore's volumes so far, as their trailers described them.
#[derive(Debug, Clone, Default)]
pub struct Sequence {
    /// `-n/--volumes`.
    count: Option<u32>,
    /// The backup id of volume 1's trailer.
    backup: Option<String>,
    /// Volumes read that had no trailer.
    unlabeled: u32,
    /// A volume said to be the last before `-n` was reached.
    ended_before_count: Option<u32>,
    /// The stream's bytes through the last volume, by its trailer.
    stream_bytes: Option<u64>,
}

impl Sequence {
    pub fn new(count: Option<u32>) -> Sequence {
        Sequence {
            count,
            ..Sequence::default()
        }
    }

    /// Decides after volume `volume` ended with `found` (its trailer, if
    /// any), when `volume_bytes` were read from it and `next_exists` says
    /// whether a numbered file for the next volume is there.
    pub fn after(
        &mut self,
        volume: u32,
        found: Option<&Trailer>,
        volume_bytes: u64,
        next_exists: bool,
    ) -> Next {
        match found {
            Some(trailer) => {
                let next = self.labeled(volume, trailer, volume_bytes);
                self.stream_bytes = Some(trailer.stream_bytes);
                next
            }
            None => {
                self.stream_bytes = None;
                self.unlabeled += 1;
                let more = match self.count {
                    Some(count) => volume < count,
                    None => next_exists,
                };
                if more {
                    Next::Volume
                } else {
                    Next::End
                }
            }
        }
    }

    fn labeled(&mut self, volume: u32, t: &Trailer, volume_bytes: u64) -> Next {
        let backup = self.backup.get_or_insert_with(|| t.backup.clone());
        if *backup != t.backup {
            return Next::Fail(format!(
                "volume {volume} is volume {} of another backup ({}, not {backup}, the backup of volume 1): the wrong cartridge or file was put in, and its {} bytes went into the stream",
                t.volume, t.backup, t.volume_bytes
            ));
        }
        if t.volume != volume {
            return Next::Fail(format!(
                "the volume read as volume {volume} is volume {} of this backup: the volumes were put in out of order",
                t.volume
            ));
        }
        if t.volume_bytes != volume_bytes {
            return Next::Fail(format!(
                "volume {volume}'s trailer says it holds {} bytes of the stream, but {volume_bytes} were read from it: the volume does not hold what was written",
                t.volume_bytes
            ));
        }
        let before = match volume {
            1 => Some(0),
            _ => self.stream_bytes,
        };
        if let Some(before) = before.filter(|b| b + t.volume_bytes != t.stream_bytes) {
            return Next::Fail(format!(
                "volume {volume}'s trailer says the stream reaches byte {} at its end, but the volumes before it end at byte {before} and it holds {}: a volume is missing or was written by another run",
                t.stream_bytes, t.volume_bytes
            ));
        }
        let stream_bytes = t.stream_bytes;
        match (t.ends, self.count) {
            (Ends::Cut, _) => Next::Fail(format!(
                "volume {volume} is where the backup was cut short when it was written (its run was stopped or lost its input): the stream ends at byte {stream_bytes} and is incomplete"
            )),
            (Ends::Continues, Some(count)) if volume >= count => Next::Fail(format!(
                "volume {volume}'s trailer says the backup continues on volume {}, but -n/--volumes {count} stops here: the stream is incomplete",
                volume + 1
            )),
            (Ends::Continues, _) => Next::Volume,
            (Ends::Last, Some(count)) if volume < count => {
                self.ended_before_count = Some(volume);
                Next::End
            }
            (Ends::Last, _) => Next::End,
        }
    }

    /// What the summary should say about how the restore knew where the
    /// stream ends, if anything is worth saying.
    pub fn note(&self, volumes_read: u32) -> Option<String> {
        if let (Some(last), Some(count)) = (self.ended_before_count, self.count) {
            return Some(format!(
                "volume {last}'s trailer says it is the backup's last, so -n/--volumes {count} asked for more than there are"
            ));
        }
        (self.unlabeled > 0 && self.count.is_none() && self.backup.is_none()).then(|| {
            format!(
                "{} no tapebuf trailer, so nothing said whether the backup goes on; give -n/--volumes N if it spans more",
                match volumes_read {
                    1 => "the volume had".to_string(),
                    n => format!("the {n} volumes had"),
                }
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0123456789abcdef0123456789abcdef";
    const OTHER: &str = "fedcba9876543210fedcba9876543210";

    /// Volume `volume` of 100 bytes, after volumes of 100 bytes each.
    fn trailer(volume: u32, ends: Ends) -> Trailer {
        Trailer {
            backup: ID.into(),
            volume,
            ends,
            volume_bytes: 100,
            stream_bytes: 100 * u64::from(volume),
        }
    }

    #[test]
    fn trailers_carry_a_restore_to_the_last_volume_without_n() {
        let mut s = Sequence::new(None);
        let t1 = trailer(1, Ends::Continues);
        let t2 = trailer(2, Ends::Continues);
        let t3 = trailer(3, Ends::Last);
        assert_eq!(s.after(1, Some(&t1), 100, false), Next::Volume);
        assert_eq!(s.after(2, Some(&t2), 100, false), Next::Volume);
        assert_eq!(s.after(3, Some(&t3), 100, false), Next::End);
        assert_eq!(s.note(3), None);
    }

    #[test]
    fn a_volume_cut_short_when_written_fails_the_restore() {
        let mut s = Sequence::new(None);
        match s.after(1, Some(&trailer(1, Ends::Cut)), 100, false) {
            Next::Fail(why) => assert!(why.contains("cut short"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn n_smaller_than_the_backup_fails_rather_than_end_short() {
        let mut s = Sequence::new(Some(1));
        match s.after(1, Some(&trailer(1, Ends::Continues)), 100, false) {
            Next::Fail(why) => assert!(why.contains("-n/--volumes 1 stops here"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn n_larger_than_the_backup_ends_at_its_last_volume_and_says_so() {
        let mut s = Sequence::new(Some(3));
        assert_eq!(
            s.after(1, Some(&trailer(1, Ends::Last)), 100, false),
            Next::End
        );
        assert!(s.note(1).unwrap().contains("asked for more than there are"));
    }

    #[test]
    fn a_volume_of_another_backup_or_out_of_order_fails() {
        let mut s = Sequence::new(None);
        assert_eq!(
            s.after(1, Some(&trailer(1, Ends::Continues)), 100, false),
            Next::Volume
        );
        let stranger = Trailer {
            backup: OTHER.into(),
            ..trailer(2, Ends::Last)
        };
        assert!(
            matches!(s.after(2, Some(&stranger), 100, false), Next::Fail(w) if w.contains("another backup"))
        );
        let mut s = Sequence::new(None);
        s.after(1, Some(&trailer(1, Ends::Continues)), 100, false);
        assert!(
            matches!(s.after(2, Some(&trailer(3, Ends::Last)), 100, false), Next::Fail(w) if w.contains("out of order"))
        );
    }

    #[test]
    fn a_volume_that_read_other_than_its_bytes_fails() {
        let mut s = Sequence::new(None);
        let t = trailer(1, Ends::Continues);
        assert!(
            matches!(s.after(1, Some(&t), 99, false), Next::Fail(w) if w.contains("holds 100 bytes"))
        );
    }

    #[test]
    fn a_gap_between_volumes_fails() {
        let mut s = Sequence::new(None);
        assert_eq!(
            s.after(1, Some(&trailer(1, Ends::Continues)), 100, false),
            Next::Volume
        );
        let after_a_gap = Trailer {
            stream_bytes: 300,
            ..trailer(2, Ends::Last)
        };
        assert!(
            matches!(s.after(2, Some(&after_a_gap), 100, false), Next::Fail(w) if w.contains("end at byte 100"))
        );
    }

    #[test]
    fn a_volume_left_unread_does_not_upset_the_count_of_the_next() {
        let mut s = Sequence::new(Some(3));
        assert_eq!(
            s.after(1, Some(&trailer(1, Ends::Continues)), 100, false),
            Next::Volume
        );
        assert_eq!(s.after(2, None, 10, false), Next::Volume);
        assert_eq!(
            s.after(3, Some(&trailer(3, Ends::Last)), 100, false),
            Next::End
        );
    }

    #[test]
    fn without_trailers_n_and_numbered_files_decide_as_before() {
        let mut s = Sequence::new(Some(2));
        assert_eq!(s.after(1, None, 100, false), Next::Volume);
        assert_eq!(s.after(2, None, 200, false), Next::End);
        let mut s = Sequence::new(None);
        assert_eq!(s.after(1, None, 100, true), Next::Volume);
        assert_eq!(s.after(2, None, 200, false), Next::End);
        assert!(s
            .note(2)
            .unwrap()
            .contains("the 2 volumes had no tapebuf trailer"));
    }
}
