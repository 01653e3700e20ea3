//! What the user asked of pacing: `--pace`, `--pace MIN`, `--pace MIN:MAX`
//! or `--no-pace`, and the range in force once the outputs are known.
//!
//! The invariant: `-R` caps both ends of the range, so a resolved range
//! never paces faster than the rate limit.

/// The user's range: `--pace` alone leaves both to be learned or derived,
/// `--pace MIN` gives the floor, `--pace MIN:MAX` both (bytes per second).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PaceSettings {
    pub floor: Option<u64>,
    pub ceiling: Option<u64>,
}

/// What `--pace` asked for, before the outputs are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PaceRequest {
    /// Neither `--pace` nor `--no-pace`: on for tape outputs only.
    #[default]
    Default,
    Off,
    On(PaceSettings),
}

impl PaceRequest {
    /// The settings in force, once it is known whether an output is a
    /// tape; `-R` (`rate_limit`) caps both ends of the range, so the lower
    /// limit wins.
    pub fn resolve(self, tape_output: bool, rate_limit: Option<u64>) -> Option<PaceSettings> {
        let mut settings = match self {
            PaceRequest::Default if tape_output => PaceSettings::default(),
            PaceRequest::On(s) => s,
            PaceRequest::Default | PaceRequest::Off => return None,
        };
        if let Some(limit) = rate_limit {
            settings.ceiling = Some(settings.ceiling.map_or(limit, |c| c.min(limit)));
            settings.floor = settings.floor.map(|f| f.min(limit));
        }
        Some(settings)
    }
}
