//! What a cartridge is, for the inventory: the library's word when it gives
//! one (SMC's medium type, from the cartridge's memory), else the barcode
//! conventions: `CLN...` cleans; an LTO label, six characters and a
//! two-character media code, is data when the code is `L1`-`L9` or `M8`
//! and WORM when it is `LT`-`LZ` (LTO-3 to LTO-9 WORM). Anything else,
//! and a cartridge without a barcode, is unknown; an empty element has no
//! medium at all.

use super::schema::Medium;
use crate::tape::changer::{Element, MediumType};

/// The length of an LTO barcode with its media code.
const LTO_LABEL_CHARS: usize = 8;

/// What the cartridge in `element` is; `None` when it is empty.
pub fn medium_of(element: &Element) -> Option<Medium> {
    if !element.full {
        return None;
    }
    if let Some(kind) = element.medium_type {
        return Some(match kind {
            MediumType::Data => Medium::Data,
            MediumType::Cleaning => Medium::Cleaning,
            MediumType::Worm => Medium::Worm,
            MediumType::Diagnostic => Medium::Diagnostic,
        });
    }
    if element.is_cleaning() {
        return Some(Medium::Cleaning);
    }
    Some(
        element
            .barcode
            .as_deref()
            .map_or(Medium::Unknown, by_lto_label),
    )
}

/// The medium an LTO label's media code names.
fn by_lto_label(barcode: &str) -> Medium {
    let code = barcode.as_bytes();
    if code.len() != LTO_LABEL_CHARS {
        return Medium::Unknown;
    }
    match (code[6], code[7]) {
        (b'L', b'1'..=b'9') | (b'M', b'8') => Medium::Data,
        (b'L', b'T'..=b'Z') => Medium::Worm,
        _ => Medium::Unknown,
    }
}

/// The medium in words, for the table.
pub fn words(medium: Medium) -> &'static str {
    match medium {
        Medium::Data => "data",
        Medium::Cleaning => "cleaning",
        Medium::Worm => "WORM",
        Medium::Diagnostic => "diagnostic",
        Medium::Unknown => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape::changer::ElementAddress;

    fn holding(barcode: Option<&str>, kind: Option<MediumType>) -> Element {
        let mut e = Element::from_status(ElementAddress::slot(0), 0);
        e.full = true;
        e.barcode = barcode.map(str::to_string);
        e.medium_type = kind;
        e
    }

    #[test]
    fn the_librarys_medium_type_wins_over_the_barcode() {
        let e = holding(Some("CLN001L1"), Some(MediumType::Data));
        assert_eq!(medium_of(&e), Some(Medium::Data));
        let e = holding(Some("E01001L6"), Some(MediumType::Worm));
        assert_eq!(medium_of(&e), Some(Medium::Worm));
        let e = holding(None, Some(MediumType::Diagnostic));
        assert_eq!(medium_of(&e), Some(Medium::Diagnostic));
    }

    #[test]
    fn without_a_type_the_barcode_tells_cleaning_worm_and_data() {
        let of = |b: &str| medium_of(&holding(Some(b), None));
        assert_eq!(of("CLN009L1"), Some(Medium::Cleaning));
        assert_eq!(of("CLN"), Some(Medium::Cleaning));
        assert_eq!(of("W01008LW"), Some(Medium::Worm));
        assert_eq!(of("W01008LT"), Some(Medium::Worm));
        assert_eq!(of("E01001L6"), Some(Medium::Data));
        assert_eq!(of("E01001M8"), Some(Medium::Data));
    }

    #[test]
    fn a_barcode_that_is_no_lto_label_or_none_at_all_is_unknown() {
        let of = |b: Option<&str>| medium_of(&holding(b, None));
        assert_eq!(of(Some("E01001")), Some(Medium::Unknown));
        assert_eq!(of(Some("E01001L0")), Some(Medium::Unknown));
        assert_eq!(of(Some("E0100L6")), Some(Medium::Unknown));
        assert_eq!(of(Some("E01001?6")), Some(Medium::Unknown));
        assert_eq!(of(None), Some(Medium::Unknown));
    }

    #[test]
    fn an_empty_element_has_no_medium() {
        let mut e = holding(Some("E01001L6"), Some(MediumType::Data));
        e.full = false;
        assert_eq!(medium_of(&e), None);
    }
}
