//! The tape library flags, checked: `--slots`, `--barcodes`,
//! `--drive-element` and `--clean` mean something only with `--changer`,
//! and a pool is given one way, by slots or by barcodes. Which endpoint is
//! a tape, and so takes a pool, is known only when it opens
//! (`endpoint::library`). A change command and the changer exclude each
//! other.

use crate::base::errors::ConfigError;
use crate::cli::LibraryArgs;
use crate::endpoint::LibrarySettings;
use crate::tape::loader::Pool;

/// The library settings, or None without `--changer`.
pub fn check_library(
    args: &LibraryArgs,
    change_command: bool,
) -> Result<Option<LibrarySettings>, ConfigError> {
    let Some(changer) = &args.changer else {
        let stray = [
            (!args.slots.is_empty(), "--slots"),
            (!args.barcodes.is_empty(), "--barcodes"),
            (!args.drive_elements.is_empty(), "--drive-element"),
            (args.clean, "--clean"),
        ];
        return match stray.iter().find(|(given, _)| *given) {
            Some((_, flag)) => Err(ConfigError::new(
                *flag,
                "needs --changer, the tape library's changer device",
            )),
            None => Ok(None),
        };
    };
    if changer.as_os_str().is_empty() {
        return Err(ConfigError::new("--changer", "is empty"));
    }
    if change_command {
        return Err(ConfigError::new(
            "--changer",
            "changes volumes itself; give it or -A/--change-command, not both",
        ));
    }
    if !args.slots.is_empty() && !args.barcodes.is_empty() {
        return Err(ConfigError::new(
            "--slots",
            "give the pools by slots or by barcodes (--barcodes), not both",
        ));
    }
    let slots = args
        .slots
        .iter()
        .map(|text| Pool::parse_slots(text).map_err(|why| ConfigError::new("--slots", why)));
    let barcodes = args
        .barcodes
        .iter()
        .map(|text| Pool::parse_barcodes(text).map_err(|why| ConfigError::new("--barcodes", why)));
    let pools = slots.chain(barcodes).collect::<Result<Vec<Pool>, _>>()?;
    Ok(Some(LibrarySettings::new(
        changer.clone(),
        pools,
        args.drive_elements.clone(),
        args.clean,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(changer: Option<&str>) -> LibraryArgs {
        LibraryArgs {
            changer: changer.map(Into::into),
            ..LibraryArgs::default()
        }
    }

    #[test]
    fn library_flags_without_a_changer_are_refused_naming_the_flag() {
        let mut a = args(None);
        a.slots = vec!["1-3".into()];
        let e = check_library(&a, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--slots: needs --changer, the tape library's changer device"
        );
        let mut a = args(None);
        a.clean = true;
        assert!(check_library(&a, false)
            .unwrap_err()
            .to_string()
            .starts_with("--clean: "));
        assert!(check_library(&args(None), false).unwrap().is_none());
    }

    #[test]
    fn slots_and_barcodes_together_or_a_change_command_beside_the_changer_are_refused() {
        let mut a = args(Some("/dev/sch0"));
        a.slots = vec!["1-3".into()];
        a.barcodes = vec!["E01*".into()];
        assert!(check_library(&a, false)
            .unwrap_err()
            .to_string()
            .contains("not both"));
        let e = check_library(&args(Some("/dev/sch0")), true).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--changer: changes volumes itself"),
            "{e}"
        );
    }

    #[test]
    fn each_pool_is_kept_in_order() {
        let mut a = args(Some("/dev/sch0"));
        a.slots = vec!["1-3".into(), "4-6".into()];
        a.drive_elements = vec![1, 0];
        let library = check_library(&a, false).unwrap().unwrap();
        assert_eq!(library.pools.len(), 2);
        assert_eq!(library.pools[1], Pool::parse_slots("4-6").unwrap());
        assert_eq!(library.drive_elements, vec![1, 0]);
    }
}
