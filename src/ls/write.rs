//! Writing the listing a member at a time, as text or as the JSON object
//! (`schema.rs`), so that memory stays one member whatever the catalog's
//! size. A catalog damaged part of the way through ends the listing after
//! the members before the damage (the JSON object is then left open, so
//! no reader mistakes it for whole).

use std::io::{self, Write};

use crate::archive::Member;

use super::open::Opened;
use super::schema::{MemberJson, SCHEMA, SCHEMA_VERSION};
use super::text::line;
use crate::catalog::{Patterns, Tally};

/// Why the listing stopped.
#[derive(Debug)]
pub enum ListError {
    /// The catalog could not be read past a point.
    Catalog(io::Error),
    /// The output could not be written.
    Write(io::Error),
}

/// What the listing is of, for the JSON object's head.
pub struct Head<'a> {
    pub manifest: Option<&'a str>,
    pub catalog: &'a str,
}

/// Lists the members `patterns` (built into `globs`) choose from
/// `opened`, every member when there are none, as text or, with `head`,
/// as JSON. The indices of the patterns that chose nothing.
pub fn list(
    opened: &Opened,
    globs: &Patterns,
    patterns: &[String],
    head: Option<&Head>,
    out: &mut impl Write,
) -> Result<Vec<usize>, ListError> {
    let catalog = &opened.catalog;
    let members: Box<dyn Iterator<Item = io::Result<Member>>> = if patterns.is_empty() {
        Box::new(catalog.members())
    } else {
        Box::new(catalog.matching(globs))
    };
    let w = ListError::Write;
    if let Some(head) = head {
        write_head(head, opened, out).map_err(w)?;
    }
    let mut tally = Tally::new(globs);
    let mut first = true;
    for member in members {
        let member = member.map_err(ListError::Catalog)?;
        tally.count(member.path.as_bytes());
        let row = MemberJson::new(member, opened.manifest.as_ref());
        if head.is_some() {
            if !first {
                out.write_all(b",").map_err(w)?;
            }
            serde_json::to_writer(&mut *out, &row).map_err(|e| w(e.into()))?;
        } else {
            writeln!(out, "{}", line(&row)).map_err(w)?;
        }
        first = false;
    }
    let unmatched = tally.unmatched();
    if head.is_some() {
        let names: Vec<&String> = unmatched.iter().map(|&i| &patterns[i]).collect();
        let names = serde_json::to_string(&names).map_err(|e| w(e.into()))?;
        writeln!(out, "],\"unmatched\":{names}}}").map_err(w)?;
    }
    out.flush().map_err(w)?;
    Ok(unmatched)
}

/// The object's fields before its members, and the members' `[`.
fn write_head(head: &Head, opened: &Opened, out: &mut impl Write) -> io::Result<()> {
    let format = serde_json::to_value(opened.catalog.format())?;
    let text = |v: Option<&str>| serde_json::to_string(&v);
    write!(
        out,
        "{{\"schema\":\"{SCHEMA}\",\"version\":{SCHEMA_VERSION},\"manifest\":{},\"catalog\":{},\"format\":{format},\"members\":[",
        text(head.manifest)?,
        text(Some(head.catalog))?,
    )
}
