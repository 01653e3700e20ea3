//! Reading a manifest file back: bounded before it is parsed (a file over
//! `MAX_FILE_BYTES` is refused unread, and no tree of the whole document
//! is built), its schema and version read first so that another file or
//! a newer manifest is refused rather than misread, then parsed whole and
//! checked by `validate.rs` before anything uses it.

use std::io::{self, Read};
use std::path::Path;

use serde::Deserialize;

use super::schema::{Manifest, SCHEMA, VERSION};
use super::validate::{Invalid, MAX_FILE_BYTES};

/// Why a manifest cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read it: {0}")]
    Io(#[from] io::Error),
    #[error("is {0} bytes; a manifest is at most {MAX_FILE_BYTES} bytes (64 MiB, see tapebuf(1), MANIFESTS)")]
    TooLarge(u64),
    #[error("is not a tapebuf manifest: {0}")]
    NotJson(String),
    #[error("is a \"{0}\" file, not a tapebuf manifest")]
    OtherSchema(String),
    #[error("is manifest version {0}; this tapebuf reads up to version {VERSION}")]
    Newer(u64),
    /// A field out of bounds or at odds with another, named.
    #[error(transparent)]
    Invalid(#[from] Invalid),
}

/// The two fields read before the rest: which file this is, and which
/// version of it. Every other field is skipped without being kept.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    schema: Option<serde_json::Value>,
    #[serde(default)]
    version: Option<serde_json::Value>,
}

impl Manifest {
    /// Reads and checks a manifest file: a file larger than
    /// `MAX_FILE_BYTES` is refused before it is read.
    pub fn load(path: &Path) -> Result<Manifest, LoadError> {
        // A FIFO in its place is refused, not waited on.
        let file = crate::base::path_registry::open_regular(path)?;
        let len = file.metadata()?.len();
        if len > MAX_FILE_BYTES {
            return Err(LoadError::TooLarge(len));
        }
        // A file that grows, or a pipe, is cut one byte past the bound.
        let mut text = String::new();
        file.take(MAX_FILE_BYTES + 1).read_to_string(&mut text)?;
        Manifest::parse(&text)
    }

    /// Parses manifest text: its size, schema and version first, then the
    /// whole, then its bounds and consistency (`validate.rs`).
    pub fn parse(text: &str) -> Result<Manifest, LoadError> {
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(LoadError::TooLarge(text.len() as u64));
        }
        let head: Head =
            serde_json::from_str(text).map_err(|e| LoadError::NotJson(e.to_string()))?;
        let schema = head.schema.as_ref().and_then(|s| s.as_str()).unwrap_or("");
        if schema != SCHEMA {
            return Err(LoadError::OtherSchema(schema.to_string()));
        }
        match head.version.as_ref().and_then(|v| v.as_u64()) {
            Some(v) if v == u64::from(VERSION) => {}
            Some(v) if v > u64::from(VERSION) => return Err(LoadError::Newer(v)),
            other => {
                let said = other.map_or_else(
                    || head.version.map_or("missing".into(), |v| v.to_string()),
                    |v| v.to_string(),
                );
                return Err(LoadError::Invalid(Invalid {
                    field: "version".into(),
                    why: format!(
                        "{said} is not a manifest version; this tapebuf reads version {VERSION}"
                    ),
                }));
            }
        }
        let manifest: Manifest =
            serde_json::from_str(text).map_err(|e| LoadError::NotJson(e.to_string()))?;
        manifest.validate()?;
        Ok(manifest)
    }

    /// The `schema` field of the JSON object `reader` holds, read as a
    /// stream: memory stays small however large the document is.
    pub fn schema_in(reader: impl Read) -> Option<String> {
        let mut json = serde_json::Deserializer::from_reader(io::BufReader::new(reader));
        let head = Head::deserialize(&mut json).ok()?;
        head.schema?.as_str().map(str::to_string)
    }

    /// The `schema` field of `text`, if it is one JSON object that has one;
    /// no other field is kept while it is read.
    pub fn schema_of(text: &str) -> Option<String> {
        let head: Head = serde_json::from_str(text).ok()?;
        head.schema?.as_str().map(str::to_string)
    }
}
