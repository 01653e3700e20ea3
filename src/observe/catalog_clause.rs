//! The summary's clause for `--catalog`: how many members the catalog
//! holds, of which format, in which file (and whether a copy went onto
//! the tape), or why there is none. It never makes a run fail.

use crate::manifest::CatalogRef;

/// "catalog: 12345 members (pax) in home.catalog", "..., a copy on tape
/// after the data", or "catalog: off: byte 0: ...".
pub fn clause(catalog: &CatalogRef) -> String {
    if let Some(why) = &catalog.off {
        return format!("catalog: off: {why}");
    }
    let format = catalog
        .format
        .as_deref()
        .map_or_else(String::new, |f| format!(" ({f})"));
    let tape = match catalog.on_tape {
        true => ", a copy on tape after the data",
        false => "",
    };
    format!(
        "catalog: {}{format} in {}{tape}",
        crate::base::size::count(catalog.members, "member"),
        catalog.file
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole() -> CatalogRef {
        CatalogRef {
            file: "home.catalog".into(),
            format: Some("pax".into()),
            members: 12345,
            off: None,
            on_tape: false,
        }
    }

    #[test]
    fn a_whole_catalog_names_its_members_format_and_file() {
        assert_eq!(
            clause(&whole()),
            "catalog: 12345 members (pax) in home.catalog"
        );
        let on_tape = CatalogRef {
            on_tape: true,
            members: 1,
            ..whole()
        };
        assert_eq!(
            clause(&on_tape),
            "catalog: 1 member (pax) in home.catalog, a copy on tape after the data"
        );
    }

    #[test]
    fn a_catalog_turned_off_says_why() {
        let off = CatalogRef {
            off: Some("byte 0: not a tar header".into()),
            format: None,
            members: 0,
            ..whole()
        };
        assert_eq!(clause(&off), "catalog: off: byte 0: not a tar header");
    }
}
