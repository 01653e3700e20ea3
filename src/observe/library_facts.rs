//! What a tape library's loader says of an endpoint's volumes, for the
//! summary: the cartridge each volume went on (`Cartridge`: its barcode
//! and home slot), and the cleanings between volumes, in words.

/// The cartridge a tape library loaded for one volume.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cartridge {
    pub barcode: Option<String>,
    pub slot: Option<usize>,
}

impl Cartridge {
    /// "E01001L6 from slot 1", or what is known of it.
    pub(super) fn describe(&self) -> String {
        let barcode = self
            .barcode
            .as_deref()
            .unwrap_or("a cartridge without a barcode");
        match self.slot {
            Some(slot) => format!("{barcode} from slot {slot}"),
            None => barcode.to_string(),
        }
    }
}

/// What a tape library's loader says of its volumes and cleanings.
pub fn library_facts(log: &crate::volume::VolumeLog) -> (Vec<Cartridge>, Vec<String>) {
    let Some(loader) = log.loader() else {
        return (Vec::new(), Vec::new());
    };
    let mut cartridges = vec![Cartridge::default(); log.count()];
    for placed in loader.placements() {
        let index = placed.volume.saturating_sub(1) as usize;
        if let Some(slot) = cartridges.get_mut(index) {
            *slot = Cartridge {
                barcode: placed.barcode,
                slot: placed.slot,
            };
        }
    }
    let cleanings = loader
        .cleanings()
        .iter()
        .map(|c| {
            let with = c.barcode.as_deref().unwrap_or("the cleaning cartridge");
            match &c.error {
                None => format!(
                    "drive cleaned with {with} before volume {} ({:.0} s)",
                    c.before_volume, c.seconds
                ),
                Some(e) => format!(
                    "cleaning with {with} before volume {} failed: {e}",
                    c.before_volume
                ),
            }
        })
        .collect();
    (cartridges, cleanings)
}
