//! The name a key goes by: what `tapebuf key` prints after the
//! fingerprint, and what a receiver calls the sender in its lines and its
//! output file names. So it is kept to letters, digits, `.`, `_` and `-`,
//! at most 64, never `.` or `..`: safe as one component of a path and as
//! one word of a line.

/// The longest name.
pub const MAX_NAME: usize = 64;

/// `text` as a key's name, or why it cannot be one (`what` names where it
/// came from: a flag, a file and line).
pub fn checked(text: &str, what: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if text.is_empty() || text.len() > MAX_NAME {
        return Err(format!(
            "{what} \"{text}\": a key's name has 1 to {MAX_NAME} characters"
        ));
    }
    if let Some(bad) = text.chars().find(|&c| !allowed(c)) {
        return Err(format!(
            "{what} \"{text}\": {bad:?} is not allowed in a key's name (letters, digits, '.', '_' and '-')"
        ));
    }
    if text == "." || text == ".." {
        return Err(format!("{what} \"{text}\": not a name"));
    }
    Ok(text.to_string())
}

/// This host's name, cut at its first dot, as the default name.
pub fn of_this_host() -> Result<String, String> {
    let host = nix::unistd::gethostname()
        .map_err(|e| format!("cannot read this host's name ({e}); give --name"))?;
    let host = host.to_string_lossy();
    let short = host.split('.').next().unwrap_or_default();
    checked(short, "this host's name").map_err(|why| format!("{why}; give --name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_safe_as_a_file_name_are_kept() {
        for name in ["vault", "db-1.example", "a_b", &"x".repeat(MAX_NAME)] {
            assert_eq!(checked(name, "--name").unwrap(), name);
        }
    }

    #[test]
    fn names_unsafe_in_a_path_or_a_line_are_refused_naming_the_source() {
        for name in [
            "",
            "..",
            ".",
            "a/b",
            "a b",
            "é",
            "a\nb",
            &"x".repeat(MAX_NAME + 1),
        ] {
            let why = checked(name, "--name").unwrap_err();
            assert!(why.starts_with("--name \""), "{why}");
        }
    }
}
