//! A drive watched for its health through a run (contract stub).

use std::sync::Arc;

use super::record::HealthLog;
use crate::tape::Drive;

/// Wraps a drive; keeps what it says of its health in a `HealthLog`.
pub struct HealthWatch {
    pub drive: Box<dyn Drive>,
    pub log: Arc<HealthLog>,
}
