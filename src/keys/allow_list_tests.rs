use super::*;

fn print(seed: &[u8]) -> Fingerprint {
    Fingerprint::of_spki(seed)
}

#[test]
fn lines_as_key_new_prints_them_are_allowed_by_name() {
    let (a, b) = (print(b"a"), print(b"b"));
    let text = format!("# senders\n\n{a} db1\n  {b}\tweb-2  \n");
    let list = AllowList::parse(&text, "/etc/tapebuf/senders").unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list.name_of(&a), Some("db1"));
    assert_eq!(list.name_of(&b), Some("web-2"));
    assert_eq!(list.name_of(&print(b"c")), None);
}

#[test]
fn a_broken_line_refuses_the_whole_list_naming_file_and_line() {
    let a = print(b"a");
    let cases = [
        (format!("{a}\n"), "line 1: ", "has no name"),
        (
            format!("# x\n{a} db1 extra\n"),
            "line 2: ",
            "after the name",
        ),
        (
            "MD5:00 db1\n".to_string(),
            "line 1: ",
            "must begin with SHA256:",
        ),
        (format!("{a} ../db\n"), "line 1 \"../db\"", "not allowed"),
        (
            format!("{a} db1\n{a} db2\n"),
            "line 2: ",
            "listed already as db1",
        ),
    ];
    for (text, at, why) in cases {
        let error = AllowList::parse(&text, "senders").unwrap_err();
        assert!(
            error.starts_with("senders, ") && error.contains(at),
            "{error}"
        );
        assert!(error.contains(why), "{error}");
    }
}

#[test]
fn one_name_may_go_with_several_keys_and_a_repeated_line_is_harmless() {
    let (a, b) = (print(b"a"), print(b"b"));
    let text = format!("{a} db1\n{b} db1\n{a} db1\n");
    let list = AllowList::parse(&text, "senders").unwrap();
    assert_eq!(list.len(), 2);
}

#[test]
fn a_command_line_entry_takes_an_optional_name() {
    let a = print(b"a");
    let (got, name) = AllowList::entry(&format!("{a}=db1"), "--allow-key").unwrap();
    assert_eq!((got, name.as_str()), (a, "db1"));
    let (_, name) = AllowList::entry(&a.to_string(), "--allow-key").unwrap();
    assert!(name.starts_with("key-") && name.len() == 12, "{name}");
    assert!(name::checked(&name, "x").is_ok(), "{name}");
    let why = AllowList::entry("SHA256:short=db", "--allow-key").unwrap_err();
    assert!(why.starts_with("--allow-key: "), "{why}");
}

#[test]
fn the_file_is_read_again_each_time_it_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("senders");
    let (a, b) = (print(b"a"), print(b"b"));
    std::fs::write(&path, format!("{a} db1\n")).unwrap();
    assert_eq!(AllowList::read(&path).unwrap().name_of(&b), None);
    std::fs::write(&path, format!("{a} db1\n{b} db2\n")).unwrap();
    assert_eq!(AllowList::read(&path).unwrap().name_of(&b), Some("db2"));
    let gone = AllowList::read(&dir.path().join("none")).unwrap_err();
    assert!(gone.contains("cannot read the allowed keys"), "{gone}");
}
