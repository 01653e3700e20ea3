use std::os::unix::fs::symlink;

use super::*;
use crate::library::lab;

fn node(path: &str, serial: Option<&str>) -> TapeNode {
    TapeNode {
        path: PathBuf::from(path),
        serial: serial.map(str::to_string),
    }
}

#[test]
fn only_plain_non_rewinding_nodes_are_numbered() {
    assert_eq!(node_number("nst0"), Some(0));
    assert_eq!(node_number("nst12"), Some(12));
    for name in [
        "nst0a", "nst0l", "nst0m", "st0", "nst", "nst-1", "nst1 ", "xnst1",
    ] {
        assert_eq!(node_number(name), None, "{name}");
    }
}

#[test]
fn the_listing_takes_character_devices_named_nst_n_in_numeric_order() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["nst10", "nst2", "nst2a", "st2", "nst2m"] {
        symlink("/dev/null", dir.path().join(name)).unwrap();
    }
    std::fs::write(dir.path().join("nst3"), b"not a device").unwrap();
    let found: Vec<PathBuf> = tape_nodes(dir.path()).into_iter().map(|n| n.path).collect();
    assert_eq!(
        found,
        vec![dir.path().join("nst2"), dir.path().join("nst10")]
    );
}

#[test]
fn a_missing_directory_lists_no_nodes() {
    assert!(tape_nodes(Path::new("/nonexistent/dev")).is_empty());
}

#[test]
fn drives_are_matched_by_serial_whatever_the_numbering() {
    let inventory = lab::inventory(lab::library());
    let nodes = [
        node("/dev/nst0", Some("LABDRV02")),
        node("/dev/nst1", Some("LABDRV01")),
    ];
    let map = match_nodes(&inventory, &nodes);
    assert_eq!(map.elements, vec![Some(1), Some(0)]);
    assert_eq!(map.drives[0].node, Some(PathBuf::from("/dev/nst1")));
    assert_eq!(map.drives[0].serial.as_deref(), Some("LABDRV01"));
    assert_eq!(map.drives[1].node, Some(PathBuf::from("/dev/nst0")));
    assert!(map.drives.iter().all(|d| d.problem.is_none()));
}

#[test]
fn without_identifiers_no_drive_has_a_node_and_each_says_why() {
    let mut changer = lab::library();
    changer.drives.iter_mut().for_each(|d| d.identifier = None);
    let inventory = lab::inventory(changer);
    let map = match_nodes(&inventory, &[node("/dev/nst0", Some("LABDRV01"))]);
    assert_eq!(map.elements, vec![None]);
    for drive in &map.drives {
        assert_eq!(drive.node, None);
        assert_eq!(drive.serial, None);
        assert_eq!(drive.problem.as_deref(), Some(NO_IDENTIFIERS));
    }
}

#[test]
fn a_drive_of_another_host_keeps_the_serial_of_its_identifier() {
    let inventory = lab::inventory(lab::library());
    let map = match_nodes(&inventory, &[node("/dev/nst0", Some("LABDRV01"))]);
    let other = &map.drives[1];
    assert_eq!(other.node, None);
    assert_eq!(other.serial.as_deref(), Some("LABDRV02"));
    let why = other.problem.as_deref().unwrap();
    assert!(
        why.contains("no /dev/nst node here has the serial LABDRV02"),
        "{why}"
    );
}

#[test]
fn a_node_without_a_serial_is_named_in_the_reason() {
    let inventory = lab::inventory(lab::library());
    let map = match_nodes(&inventory, &[node("/dev/nst3", None)]);
    let why = map.drives[0].problem.as_deref().unwrap();
    assert!(why.contains("sysfs gives no serial for /dev/nst3"), "{why}");
}

#[test]
fn no_nodes_at_all_asks_whether_st_is_loaded() {
    let inventory = lab::inventory(lab::library());
    let map = match_nodes(&inventory, &[]);
    let why = map.drives[0].problem.as_deref().unwrap();
    assert!(why.contains("no /dev/nst node on this system"), "{why}");
}

#[test]
fn a_serial_two_drives_claim_matches_neither() {
    let mut changer = lab::library();
    changer.drives[1].identifier = Some(lab::IDENTIFIERS[0].to_string());
    let inventory = lab::inventory(changer);
    let map = match_nodes(&inventory, &[node("/dev/nst0", Some("LABDRV01"))]);
    assert_eq!(map.elements, vec![None]);
    for drive in &map.drives {
        let why = drive.problem.as_deref().unwrap();
        assert!(why.contains("matches more than one drive"), "{why}");
    }
}

#[test]
fn a_drive_without_an_identifier_among_others_says_so() {
    let mut changer = lab::library();
    changer.drives[1].identifier = None;
    let inventory = lab::inventory(changer);
    let map = match_nodes(&inventory, &[node("/dev/nst0", Some("LABDRV01"))]);
    assert_eq!(map.drives[0].node, Some(PathBuf::from("/dev/nst0")));
    let why = map.drives[1].problem.as_deref().unwrap();
    assert!(why.contains("no identifier for this drive"), "{why}");
}

#[test]
fn two_nodes_of_one_drive_give_it_the_first() {
    let inventory = lab::inventory(lab::library());
    let nodes = [
        node("/dev/nst0", Some("LABDRV01")),
        node("/dev/nst4", Some("LABDRV01")),
    ];
    let map = match_nodes(&inventory, &nodes);
    assert_eq!(map.elements, vec![Some(0), Some(0)]);
    assert_eq!(map.drives[0].node, Some(PathBuf::from("/dev/nst0")));
}
