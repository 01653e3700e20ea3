//! Drive wrappers (the health watch, the cleaning watch, logical block
//! protection, encryption) against the `Drive` trait's own definition.

use std::path::PathBuf;

use super::creation;

/// Every drive that wraps another passes on every `Drive` method that has
/// a default body, by a body of its own or by naming it in `pass_on!`:
/// one that does not silently gives the default instead
/// of the wrapped drive's answer (a wrapper that forgot `protection`
/// would report no logical block protection, one that forgot
/// `write_record_in` would copy every block). The methods are read from
/// the trait's own definition, so a method added later is checked the
/// day it is added.
#[test]
fn every_drive_wrapper_passes_on_every_method_with_a_default() {
    let trait_file = std::fs::read_to_string("src/tape/drive/interface.rs").unwrap();
    let body = trait_file
        .split("pub trait Drive: Send {")
        .nth(1)
        .expect("the Drive trait");
    let body = &body[..body.find("\n}\n").expect("the trait's end")];
    // A method with a default is a `fn` line that ends in `{` (or holds
    // its whole body, `{}`), or whose signature over several lines does.
    let mut defaults = Vec::new();
    let mut pending: Option<String> = None;
    for line in body.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("fn ") {
            let name = rest.split(['(', '<']).next().unwrap().to_string();
            pending = Some(name);
        }
        if let Some(name) = pending.clone() {
            if line.ends_with('{') || line.ends_with('}') {
                defaults.push(name);
                pending = None;
            } else if line.ends_with(';') {
                pending = None;
            }
        }
    }
    assert!(defaults.len() >= 10, "defaults found: {defaults:?}");
    let roots = [PathBuf::from("src/lib.rs")];
    let mut missing = Vec::new();
    let mut wrappers = 0;
    for (file, code) in creation::crate_code(&roots) {
        let Some(at) = code.find("impl Drive for ") else {
            continue;
        };
        if !code.contains("Box<dyn Drive>") {
            continue; // a drive of its own (the device, the emulated one)
        }
        wrappers += 1;
        let imp = &code[at..];
        let passed = passed_on(imp);
        for name in &defaults {
            if !imp.contains(&format!("fn {name}(")) && !passed.contains(name) {
                missing.push(format!("{}: {name}", file.display()));
            }
        }
    }
    assert!(wrappers >= 3, "drive wrappers found: {wrappers}");
    assert!(
        missing.is_empty(),
        "drive wrappers that do not pass these on:\n{}",
        missing.join("\n")
    );
}

/// The methods named in the `pass_on!(field: a, b, ...)` calls of `imp`.
fn passed_on(imp: &str) -> Vec<String> {
    let mut names = Vec::new();
    for call in imp.split("pass_on!(").skip(1) {
        let list = &call[..call.find(')').expect("the call's end")];
        let list = list.split_once(':').map_or(list, |(_, l)| l);
        names.extend(list.split(',').map(|n| n.trim().to_string()));
    }
    names.retain(|n| !n.is_empty());
    names
}
