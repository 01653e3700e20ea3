//! The manual page as the tests read it: every field a command's JSON
//! gives must be documented (as `.B name`) in that command's section.

/// Every key of `value`, at any depth.
fn keys(value: &serde_json::Value, into: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                into.push(k.clone());
                keys(v, into);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, into)),
        _ => {}
    }
}

/// Panics naming the first key of `view`, at any depth, that the man
/// page's section `.SH <section>` does not document as `.B key`.
pub fn assert_every_field_documented(view: &serde_json::Value, section: &str) {
    let mut names = Vec::new();
    keys(view, &mut names);
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/man/tapebuf.1")).unwrap();
    let text = page
        .split(&format!(".SH {section}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("no {section} section"))
        .split("\n.SH ")
        .next()
        .unwrap();
    for name in names {
        assert!(
            text.contains(&format!(".B {name}\n")),
            "{name} undocumented in {section}"
        );
    }
}
