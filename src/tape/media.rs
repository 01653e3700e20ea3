//! What an LTO cartridge's barcode and a drive's identifier say about
//! which cartridges a drive can use, so that a pool skips a cartridge
//! before a move rather than after a refused load.
//!
//! The barcode's last two characters name the media (the LTO Program's
//! labels): `L1`..`L9` a data cartridge of that generation, `M8` an LTO-7
//! cartridge formatted as LTO-8 Type M, and `LT`, `LU`, `LV`, `LW`, `LX`,
//! `LY`, `LZ` the WORM cartridges of generations 3 to 9. Cleaning
//! cartridges' labels start with `CLN` (`Element::is_cleaning`).
//!
//! The rules kept here are the documented ones and nothing more: up to
//! LTO-7 a drive writes its own generation and the one before and reads
//! two before; an LTO-8 drive reads and writes LTO-7, LTO-8 and Type M;
//! an LTO-9 drive reads and writes LTO-8 and LTO-9 (not Type M). Anything
//! not known (a drive whose generation its identifier does not tell, a
//! barcode without an LTO suffix, an LTO-10) is never skipped here: the
//! drive is the judge, and a cartridge it refuses is marked by the loader.

use crate::tape::Access;

/// What a barcode's media suffix says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Media {
    /// The LTO generation it was made for (Type M counts as 8).
    pub generation: u8,
    pub worm: bool,
    /// LTO-7 Type M (`M8`).
    pub type_m: bool,
}

/// The media a barcode names by its last two characters, if it is an LTO
/// label.
pub fn media(barcode: &str) -> Option<Media> {
    let tail = barcode.get(barcode.len().checked_sub(2)?..)?.as_bytes();
    let plain = |generation| Media {
        generation,
        worm: false,
        type_m: false,
    };
    match (tail[0], tail[1]) {
        (b'L', g @ b'1'..=b'9') => Some(plain(g - b'0')),
        (b'M', b'8') => Some(Media {
            type_m: true,
            ..plain(8)
        }),
        (b'L', w @ b'T'..=b'Z') => Some(Media {
            generation: w - b'T' + 3,
            worm: true,
            type_m: false,
        }),
        _ => None,
    }
}

/// The LTO generation of a drive, from its identifier (SMC's DVCID:
/// vendor, product and serial, or the product alone): IBM's `ULT3580-TD6`
/// or `ULT3580-HH6`, HP's `Ultrium 6-SCSI`, or `LTO-6`/`LTO6`. None when
/// it says nothing clear.
pub fn drive_generation(identifier: &str) -> Option<u8> {
    let upper = identifier.to_ascii_uppercase();
    for marker in ["-TD", "-HH", "ULTRIUM ", "ULTRIUM-", "LTO-", "LTO"] {
        if let Some(at) = upper.find(marker) {
            let rest = &upper[at + marker.len()..];
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            if let Ok(n @ 1..=9) = digits.parse::<u8>() {
                return Some(n);
            }
        }
    }
    None
}

/// Why a drive of generation `drive` cannot use `media` for `access`, in
/// words; None when it can (by the documented rules).
pub fn refusal(drive: u8, media: Media, access: Access) -> Option<String> {
    let usable = match (drive, access) {
        (8, _) => matches!(media.generation, 7 | 8),
        (9, _) => matches!(media.generation, 8 | 9) && !media.type_m,
        (_, _) if media.type_m => false,
        (d, Access::Write) => media.generation == d || media.generation + 1 == d,
        (d, Access::Read) => media.generation <= d && media.generation + 2 >= d,
    };
    if usable {
        return None;
    }
    let verb = match access {
        Access::Read => "read",
        Access::Write => "write",
    };
    let what = if media.type_m {
        "an LTO-7 Type M cartridge".to_string()
    } else {
        format!("an LTO-{} cartridge", media.generation)
    };
    Some(format!("{what}, which an LTO-{drive} drive cannot {verb}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_name_generation_worm_and_type_m() {
        assert_eq!(media("E01001L6").unwrap().generation, 6);
        assert!(!media("E01001L6").unwrap().worm);
        let worm = media("W00001LW").unwrap();
        assert!(worm.worm && worm.generation == 6, "{worm:?}");
        assert_eq!(media("W00001LT").unwrap().generation, 3);
        assert_eq!(media("W00001LZ").unwrap().generation, 9);
        assert!(media("M00001M8").unwrap().type_m);
        assert_eq!(media("NOLABEL"), None);
        assert_eq!(media("X"), None);
        assert_eq!(media("ÄÖ"), None);
    }

    #[test]
    fn drive_generations_are_read_from_common_identifiers() {
        assert_eq!(
            drive_generation("IBM     ULT3580-TD6     LABDRV01  "),
            Some(6)
        );
        assert_eq!(drive_generation("HP      Ultrium 8-SCSI  X"), Some(8));
        assert_eq!(drive_generation("IBM ULT3580-HH9"), Some(9));
        assert_eq!(drive_generation("QUANTUM LTO-7 HH"), Some(7));
        assert_eq!(drive_generation("SERIAL0001"), None);
    }

    #[test]
    fn the_documented_compatibility_rules_hold() {
        let gen = |g| {
            media(&format!(
                "E0000{}",
                ["", "L1", "L2", "L3", "L4", "L5", "L6", "L7", "L8", "L9"][g]
            ))
            .unwrap()
        };
        assert_eq!(refusal(6, gen(6), Access::Write), None);
        assert_eq!(refusal(6, gen(5), Access::Write), None);
        assert!(refusal(6, gen(4), Access::Write).is_some());
        assert_eq!(refusal(6, gen(4), Access::Read), None);
        assert!(refusal(6, gen(3), Access::Read).is_some());
        assert!(refusal(6, gen(7), Access::Read).is_some());
        assert_eq!(refusal(8, gen(7), Access::Write), None);
        assert!(refusal(8, gen(6), Access::Read).is_some());
        assert_eq!(refusal(8, media("M00001M8").unwrap(), Access::Write), None);
        assert!(refusal(9, media("M00001M8").unwrap(), Access::Write).is_some());
        assert!(refusal(9, gen(7), Access::Read).is_some());
        assert_eq!(
            refusal(6, gen(3), Access::Write).unwrap(),
            "an LTO-3 cartridge, which an LTO-6 drive cannot write"
        );
    }
}
