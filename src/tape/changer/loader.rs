//! STUB for the wiring branch: replaced by the loader helper's loader.rs.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use super::element::ElementAddress;
use super::medium_changer::MediumChanger;
use super::pool::Pool;

pub type SharedChanger = Arc<Mutex<Box<dyn MediumChanger>>>;

#[derive(Debug, Clone)]
pub enum Wanted {
    Pool(Pool),
    Barcodes(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct LoaderSettings {
    pub drive: ElementAddress,
    pub device: String,
    pub wanted: Wanted,
    pub clean: bool,
    pub timeout: Option<Duration>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub volume: u32,
    pub barcode: Option<String>,
    pub slot: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct MoveRecord {
    pub from: ElementAddress,
    pub to: ElementAddress,
    pub barcode: Option<String>,
    pub started: SystemTime,
    pub seconds: f64,
    pub error: Option<String>,
}

#[derive(Debug, Clone)]
pub struct CleaningRecord {
    pub barcode: Option<String>,
    pub before_volume: u32,
    pub seconds: f64,
    pub error: Option<String>,
}

#[derive(Clone)]
pub struct Loader(Arc<Mutex<(SharedChanger, LoaderSettings)>>);

impl std::fmt::Debug for Loader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Loader")
    }
}

impl Loader {
    pub fn new(changer: SharedChanger, settings: LoaderSettings) -> Loader {
        Loader(Arc::new(Mutex::new((changer, settings))))
    }
    pub fn placements(&self) -> Vec<Placement> {
        Vec::new()
    }
    pub fn moves(&self) -> Vec<MoveRecord> {
        Vec::new()
    }
    pub fn cleanings(&self) -> Vec<CleaningRecord> {
        Vec::new()
    }
}
