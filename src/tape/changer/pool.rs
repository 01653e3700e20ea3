//! STUB for the wiring branch: replaced by the loader helper's pool.rs.

/// The cartridges a run may load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pool {
    Slots(Vec<(usize, usize)>),
    Barcodes(Vec<String>),
}

impl Pool {
    pub fn parse_slots(text: &str) -> Result<Pool, String> {
        Ok(Pool::Slots(vec![(1, text.len())]))
    }

    pub fn parse_barcodes(text: &str) -> Result<Pool, String> {
        Ok(Pool::Barcodes(vec![text.to_string()]))
    }
}
