//! PEM (RFC 7468): DER bytes between `-----BEGIN LABEL-----` and
//! `-----END LABEL-----` lines, as base64 in lines of 64 characters. Key
//! files are written this way so that other tools (openssl, ssh-keygen)
//! read them too, and read back only from the block with the label asked
//! for.

use crate::base::base64;

/// `der` as a PEM block labelled `label`.
pub fn encode(label: &str, der: &[u8]) -> String {
    let text = base64::encode(der, true);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in text.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// The DER bytes of the first block labelled `label` in `text`.
pub fn decode(label: &str, text: &str) -> Result<Vec<u8>, String> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let mut lines = text.lines().map(str::trim);
    if !lines.any(|l| l == begin) {
        return Err(format!("no \"{begin}\" line"));
    }
    let mut body = String::new();
    for line in lines {
        if line == end {
            return base64::decode(&body).map_err(|why| format!("the {label} block: {why}"));
        }
        body.push_str(line);
    }
    Err(format!("no \"{end}\" line after \"{begin}\""))
}

/// The DER bytes of every block labelled `label` in `text`, in order (a
/// certificate chain, a bundle of CA certificates); none is an error.
pub fn decode_all(label: &str, text: &str) -> Result<Vec<Vec<u8>>, String> {
    let begin = format!("-----BEGIN {label}-----");
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(&begin) {
        let block = &rest[at..];
        blocks.push(decode(label, block)?);
        let end = format!("-----END {label}-----");
        rest = &block[block.find(&end).map_or(block.len(), |e| e + end.len())..];
    }
    match blocks.is_empty() {
        true => Err(format!("no \"{begin}\" line")),
        false => Ok(blocks),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_reads_back_as_its_bytes_in_lines_of_64() {
        let der: Vec<u8> = (0..=200).collect();
        let text = encode("PRIVATE KEY", &der);
        assert!(text
            .lines()
            .all(|l| l.len() <= 64 || l.starts_with("-----")));
        assert!(text.starts_with("-----BEGIN PRIVATE KEY-----\n"));
        assert!(text.ends_with("-----END PRIVATE KEY-----\n"));
        assert_eq!(decode("PRIVATE KEY", &text).unwrap(), der);
    }

    #[test]
    fn the_block_asked_for_is_read_among_others() {
        let text = format!(
            "comment\n{}{}",
            encode("PUBLIC KEY", b"public"),
            encode("PRIVATE KEY", b"private")
        );
        assert_eq!(decode("PRIVATE KEY", &text).unwrap(), b"private");
    }

    #[test]
    fn a_missing_or_unended_block_is_refused_saying_which_line() {
        let why = decode("PRIVATE KEY", "hello").unwrap_err();
        assert!(
            why.contains("no \"-----BEGIN PRIVATE KEY-----\" line"),
            "{why}"
        );
        let why = decode("PRIVATE KEY", "-----BEGIN PRIVATE KEY-----\nAAAA\n").unwrap_err();
        assert!(
            why.contains("no \"-----END PRIVATE KEY-----\" line"),
            "{why}"
        );
    }

    #[test]
    fn every_block_of_a_bundle_is_read_in_order_and_none_is_an_error() {
        let text = format!(
            "# chain\n{}{}{}",
            encode("CERTIFICATE", b"leaf"),
            encode("PRIVATE KEY", b"key"),
            encode("CERTIFICATE", b"ca")
        );
        let blocks = decode_all("CERTIFICATE", &text).unwrap();
        assert_eq!(blocks, vec![b"leaf".to_vec(), b"ca".to_vec()]);
        assert!(decode_all("CERTIFICATE", "nothing").is_err());
        let cut = encode("CERTIFICATE", b"leaf").replace("-----END CERTIFICATE-----\n", "");
        assert!(decode_all("CERTIFICATE", &cut).is_err());
    }
}
