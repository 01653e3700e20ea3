//! Text from outside (a path or a command letter a client sent, a line of a
//! log) made safe for one line of a reply, a log or a message: valid UTF-8
//! is kept, control characters and invalid bytes are escaped.

/// `text` with every control character escaped, so that it stays one line.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Bytes from the client (a path, a command letter) as text that is safe
/// in a reply or a log line: valid UTF-8 is kept, control characters and
/// invalid bytes are escaped (`\n`, `\x00`, `\xff`).
pub fn shown(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&one_line(chunk.valid()));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// A command letter as it appears in messages: itself when it is a visible
/// ASCII character, else `\xNN`.
pub fn shown_letter(letter: u8) -> String {
    if letter.is_ascii_graphic() {
        (letter as char).to_string()
    } else {
        format!("\\x{letter:02x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_bytes_are_shown_safely() {
        assert_eq!(shown(b"/srv/M\xc3\xa4rz"), "/srv/M\u{e4}rz");
        assert_eq!(shown(b"a\x00b\xffc\n"), "a\\u{0}b\\xffc\\n");
        assert_eq!(shown_letter(b'X'), "X");
        assert_eq!(shown_letter(b'\n'), "\\x0a");
        assert_eq!(shown_letter(0xff), "\\xff");
    }
}
