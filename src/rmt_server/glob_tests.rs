//! What the policy's patterns match, as examples an administrator would
//! write, and that no wildcard ever crosses a `/`.

use proptest::prelude::*;

use super::*;

fn m(pattern: &str, path: &str) -> bool {
    Pattern::new(pattern).unwrap().matches(Path::new(path))
}

#[test]
fn star_and_question_mark_stay_within_one_component() {
    assert!(m("/srv/backup/*.tar", "/srv/backup/host.tar"));
    assert!(!m("/srv/backup/*.tar", "/srv/backup/sub/host.tar"));
    assert!(!m("/srv/backup/*", "/srv/backup"));
    assert!(m("/srv/*/dumps/*", "/srv/alpha/dumps/0"));
    assert!(!m("/srv/*/dumps/*", "/srv/a/b/dumps/0"));
    assert!(m("/srv/host?.tar", "/srv/host1.tar"));
    assert!(
        m("/srv/host?.tar", "/srv/host\u{e4}.tar"),
        "? is one character"
    );
    assert!(!m("/srv/host?.tar", "/srv/host12.tar"));
    assert!(m("/srv/*a*b*c", "/srv/xxaxxbxbxxc"));
    assert!(!m("/srv/*a*b*c", "/srv/xxaxxbxbxxcx"));
}

#[test]
fn double_star_matches_any_depth_below_its_directory() {
    assert!(m("/srv/backup/**", "/srv/backup/a"));
    assert!(m("/srv/backup/**", "/srv/backup/a/b/c.tar"));
    assert!(!m("/srv/backup/**", "/srv/backup"));
    assert!(!m("/srv/backup/**", "/srv/backups/a"));
    assert!(!m("/srv/backup/**", "/etc/passwd"));
    assert!(m("/a/**/b", "/a/b"));
    assert!(m("/a/**/b", "/a/x/y/b"));
    assert!(!m("/a/**/b", "/a/x/y/c"));
    assert!(m("/**", "/etc/passwd"));
}

#[test]
fn classes_match_one_character() {
    let st = "/dev/st[0-9]*";
    assert!(m(st, "/dev/st0"));
    assert!(m(st, "/dev/st12l"));
    assert!(!m(st, "/dev/stdin"));
    assert!(!m(st, "/dev/st"));
    assert!(m("/dev/[!s]t0", "/dev/nt0"));
    assert!(!m("/dev/[^s]t0", "/dev/st0"));
    assert!(m("/x/[]a]", "/x/]"));
    assert!(Pattern::new("/x/[a-]").is_err(), "unfinished range");
}

#[test]
fn everything_else_is_literal() {
    assert!(m("/srv/a+b(c)\\d", "/srv/a+b(c)\\d"));
    assert!(!m("/srv/a.tar", "/srv/aXtar"));
    assert!(
        m("/srv//backup/", "/srv/backup"),
        "empty components collapse"
    );
}

#[test]
fn refuses_patterns_that_could_escape_or_mislead() {
    for bad in [
        "srv/backup/**",
        "",
        "/srv/../etc/*",
        "/srv/./x",
        "/srv/back**",
        "/srv/[abc",
        "/srv/[z-a]",
    ] {
        assert!(Pattern::new(bad).is_err(), "{bad:?} was accepted");
    }
}

#[test]
fn splits_off_the_plain_directories_a_pattern_starts_with() {
    let split = |p: &str| Pattern::new(p).unwrap().split_literal_dirs();
    assert_eq!(
        split("/srv/backup/**"),
        Some(("/srv/backup".into(), "**".into()))
    );
    assert_eq!(
        split("/srv/backup/host.tar"),
        Some(("/srv/backup".into(), "host.tar".into()))
    );
    assert_eq!(split("/srv/*/x"), Some(("/srv".into(), "*/x".into())));
    assert_eq!(split("/*/x"), None);
    assert_eq!(split("/x"), None);
}

proptest! {
    #[test]
    fn no_wildcard_matches_outside_its_directory(
        name in "[a-z]{1,8}",
        deeper in prop::collection::vec("[a-z.]{1,5}", 0..4),
    ) {
        let mut path = format!("/other/{name}");
        for d in &deeper {
            path.push('/');
            path.push_str(d);
        }
        for pattern in ["/srv/**", "/srv/*", "/srv/*/**", "/srv/?*", "/srv/[a-z]*"] {
            prop_assert!(!m(pattern, &path), "{} matched {}", pattern, path);
        }
        prop_assert!(m("/other/**", &path));
    }

    #[test]
    fn matching_arbitrary_paths_never_panics(
        pattern in "/[a-z*?\\[\\]!^/-]{0,12}",
        path in prop::collection::vec(any::<u8>(), 0..40),
    ) {
        if let Ok(p) = Pattern::new(&pattern) {
            let path = std::ffi::OsStr::from_bytes(&path);
            let _ = p.matches(Path::new(path));
        }
    }
}
