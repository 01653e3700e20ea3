//! Reading a `--stats` file back: a `start` record, the samples in time
//! order, and the summary if the run finished. Every problem names the
//! line it is on, so that `tapebuf report` can say exactly what is wrong.

use crate::observe::record::{Record, Sample, Start, SummaryRecord, SCHEMA_VERSION};

/// Why a stats file cannot be read, and on which line (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bad {
    pub why: String,
    pub line: Option<usize>,
}

impl Bad {
    pub fn at(line: usize, why: impl Into<String>) -> Bad {
        Bad {
            why: why.into(),
            line: Some(line),
        }
    }
}

/// One recorded run.
#[derive(Debug, Clone)]
pub struct Timeline {
    pub start: Start,
    /// In time order, at least one.
    pub samples: Vec<Sample>,
    /// None when the run was killed before it could write its summary.
    pub summary: Option<SummaryRecord>,
}

impl Timeline {
    /// Parses a whole stats file. The caller has already seen that its
    /// first record is a `start` of this schema.
    pub fn parse(text: &str) -> Result<Timeline, Bad> {
        let mut start: Option<Start> = None;
        let mut samples: Vec<Sample> = Vec::new();
        let mut summary: Option<SummaryRecord> = None;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if line.trim().is_empty() {
                continue;
            }
            let record: Record = serde_json::from_str(line)
                .map_err(|e| Bad::at(n, format!("not a stats record: {e}")))?;
            if summary.is_some() {
                return Err(Bad::at(n, "a record after the summary"));
            }
            match (record, &start) {
                (Record::Start(s), None) => {
                    if s.version > SCHEMA_VERSION {
                        return Err(Bad::at(
                            n,
                            format!(
                                "schema version {} is newer than this tapebuf reads ({SCHEMA_VERSION})",
                                s.version
                            ),
                        ));
                    }
                    start = Some(s);
                }
                (Record::Start(_), Some(_)) => return Err(Bad::at(n, "a second start record")),
                (_, None) => return Err(Bad::at(n, "the first record is not a start record")),
                (Record::Sample(s), Some(_)) => {
                    if let Some(last) = samples.last() {
                        if s.t_s < last.t_s {
                            return Err(Bad::at(
                                n,
                                format!("time goes back, from {} s to {} s", last.t_s, s.t_s),
                            ));
                        }
                    }
                    samples.push(s);
                }
                // A robot's move: the timeline plots none.
                (Record::Move(_) | Record::Health(_), Some(_)) => {}
                (Record::Summary(s), Some(_)) => summary = Some(s),
            }
        }
        let Some(start) = start else {
            return Err(Bad {
                why: "is empty".into(),
                line: None,
            });
        };
        if samples.is_empty() {
            return Err(Bad {
                why: "has no samples".into(),
                line: None,
            });
        }
        Ok(Timeline {
            start,
            samples,
            summary,
        })
    }

    /// The times at which the count `of` a sample rose, once per unit it
    /// rose by (two underruns in one interval are two markers).
    pub fn rises(&self, of: impl Fn(&Sample) -> u64) -> Vec<f64> {
        let mut times = Vec::new();
        let mut before = 0;
        for s in &self.samples {
            let now = of(s);
            for _ in before..now {
                times.push(s.t_s);
            }
            before = before.max(now);
        }
        times
    }

    /// The underruns, from the summary if there is one.
    pub fn underruns(&self) -> u64 {
        match &self.summary {
            Some(s) => s.underruns,
            None => self.samples.last().map_or(0, |s| s.underruns),
        }
    }

    pub fn last(&self) -> &Sample {
        self.samples.last().expect("at least one sample")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = r#"{"kind":"start","schema":"tapebuf-stats","version":1,"tapebuf":"0.1.0","block_bytes":4096,"ring_bytes":65536,"high_pct":50,"low_pct":100,"total_bytes":null,"interval_s":1.0}"#;

    fn sample(t: f64, underruns: u64, volume: u32) -> String {
        format!(
            r#"{{"kind":"sample","t_s":{t},"in_bytes":0,"out_bytes":0,"fill_pct":0.0,"in_rate_bytes_per_s":0.0,"out_rate_bytes_per_s":0.0,"underruns":{underruns},"overruns":0,"writer":"waiting","waiting_s":0.0,"volume":{volume}}}"#
        )
    }

    #[test]
    fn reads_samples_and_finds_each_rise() {
        let text = [
            START.to_string(),
            sample(1.0, 0, 1),
            sample(2.0, 2, 1),
            sample(3.0, 3, 2),
        ]
        .join("\n");
        let t = Timeline::parse(&text).unwrap();
        assert_eq!(t.samples.len(), 3);
        assert_eq!(t.rises(|s| s.underruns), vec![2.0, 2.0, 3.0]);
        assert_eq!(t.rises(|s| s.volume as u64 - 1), vec![3.0]);
    }

    #[test]
    fn names_the_line_of_a_bad_record_or_a_step_back_in_time() {
        let text = [START.to_string(), sample(1.0, 0, 1), "{oops".into()].join("\n");
        assert_eq!(Timeline::parse(&text).unwrap_err().line, Some(3));
        let text = [START.to_string(), sample(2.0, 0, 1), sample(1.0, 0, 1)].join("\n");
        let bad = Timeline::parse(&text).unwrap_err();
        assert_eq!(bad.line, Some(3));
        assert!(bad.why.contains("time goes back"), "{}", bad.why);
        let bad = Timeline::parse(&sample(1.0, 0, 1)).unwrap_err();
        assert_eq!(bad.line, Some(1));
    }

    #[test]
    fn a_file_from_before_pacing_reads_as_a_run_that_did_not_pace() {
        let text = [START.to_string(), sample(1.0, 0, 1), sample(2.0, 0, 1)].join("\n");
        let t = Timeline::parse(&text).unwrap();
        assert!(!t.start.pacing);
        assert_eq!(t.samples.len(), 2);
        assert!(t.samples.iter().all(|s| s.pace_bps.is_none()));
        let paced = text.replace(r#""volume":1}"#, r#""volume":1,"pace_bps":30000000}"#);
        let t = Timeline::parse(&paced).unwrap();
        assert_eq!(t.samples[1].pace_bps, Some(30_000_000));
    }
}
