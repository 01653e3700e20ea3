//! What a chosen member needs to be extracted whole, though no name chose
//! it: a tar hard link's target, and the member of a cpio newc/crc
//! hard-link group that carries the data (see `plan.rs`).
//!
//! A hard link's target is found as `tar xf` finds it: on the disk, by
//! the path it is extracted under. So a target and a member's name are
//! compared as paths (`link_key`): leading `/`s and everything up to a
//! last `..` dropped (tar drops them from both), then `.` and empty
//! components; `./d/small`, `d//small` and `/d/small` are all `d/small`.
//! The target is the last member of that path before the link. A hard
//! link in the output whose target is in no member before it (or past
//! `MAX_LINK_ROUNDS` links to links) is said, never left out silently.
//!
//! Found in rounds of one pass over the catalog each, so memory is what
//! the chosen members want, never the whole catalog.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io;

use crate::archive::{Member, MemberKind, Name};
use crate::catalog::{Catalog, Patterns};

/// How many times links to links are followed.
pub const MAX_LINK_ROUNDS: usize = 8;

/// A member in the output that no name chose: a chosen member needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needed {
    /// The member added.
    pub path: Name,
    /// The chosen (or itself needed) member that needs it.
    pub by: Name,
}

/// A hard link in the output whose target is in no member before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The link.
    pub path: Name,
    /// Its target, as the archive spells it.
    pub target: Name,
}

/// A member whose range is backwards is a damaged catalog.
pub(super) fn checked(member: Member) -> io::Result<Member> {
    if member.end_offset < member.header_offset {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "catalog: member {} ends at byte {} before its start at {}",
                member.path, member.end_offset, member.header_offset
            ),
        ));
    }
    Ok(member)
}

/// `path` as the path tar extracts it under (see the module's notes).
pub fn link_key(path: &[u8]) -> Cow<'_, [u8]> {
    let mut parts = path.split(|&b| b == b'/');
    let plain = !path.is_empty() && parts.all(|c| !c.is_empty() && c != b"." && c != b"..");
    if plain {
        return Cow::Borrowed(path);
    }
    let parts: Vec<&[u8]> = path
        .split(|&b| b == b'/')
        .filter(|c| !c.is_empty() && *c != b".")
        .collect();
    let from = parts.iter().rposition(|c| *c == b"..").map_or(0, |i| i + 1);
    Cow::Owned(parts[from..].join(&b'/'))
}

/// What one member in the output needs.
pub(super) enum Want {
    /// Tar: the last member before `before` whose path is `key`.
    LinkTarget {
        key: Vec<u8>,
        target: Name,
        before: u64,
        by: Name,
    },
    /// cpio newc/crc: the first member after `after` of group `inode`
    /// with data.
    GroupData {
        inode: (u64, u64),
        after: u64,
        by: Name,
    },
}

impl Want {
    fn by(&self) -> &Name {
        match self {
            Want::LinkTarget { by, .. } | Want::GroupData { by, .. } => by,
        }
    }
}

/// What `member` needs from elsewhere in the archive, if anything.
pub(super) fn want_of(member: &Member) -> Option<Want> {
    match (&member.link, member.inode) {
        (Some(target), _) if member.kind == MemberKind::HardLink => Some(Want::LinkTarget {
            key: link_key(target.as_bytes()).into_owned(),
            target: target.clone(),
            before: member.header_offset,
            by: member.path.clone(),
        }),
        (_, Some(inode)) if member.size == 0 => Some(Want::GroupData {
            inode,
            after: member.header_offset,
            by: member.path.clone(),
        }),
        _ => None,
    }
}

/// What the wants came to.
pub(super) struct Resolved {
    /// The members added, in stream order.
    pub added: Vec<Member>,
    pub needed: Vec<Needed>,
    pub missing: Vec<Missing>,
}

/// Finds what `wants` want, in rounds (a member added may want another),
/// adding what no name chose.
pub(super) fn resolve(
    catalog: &Catalog,
    patterns: &Patterns,
    mut wants: Vec<Want>,
) -> io::Result<Resolved> {
    let mut have: HashSet<u64> = HashSet::new();
    let mut resolved = Resolved {
        added: Vec::new(),
        needed: Vec::new(),
        missing: Vec::new(),
    };
    for _ in 0..MAX_LINK_ROUNDS {
        if wants.is_empty() {
            break;
        }
        let found = find_wanted(catalog, &wants)?;
        let mut next = Vec::new();
        for (want, found) in wants.into_iter().zip(found) {
            let Some(member) = found else {
                if let Want::LinkTarget { target, by, .. } = want {
                    resolved.missing.push(Missing { path: by, target });
                }
                continue;
            };
            if patterns.chooses(member.path.as_bytes()) || !have.insert(member.header_offset) {
                continue;
            }
            next.extend(want_of(&member));
            resolved.needed.push(Needed {
                path: member.path.clone(),
                by: want.by().clone(),
            });
            resolved.added.push(member);
        }
        wants = next;
    }
    for want in wants {
        if let Want::LinkTarget { target, by, .. } = want {
            resolved.missing.push(Missing { path: by, target });
        }
    }
    resolved.added.sort_by_key(|m| m.header_offset);
    Ok(resolved)
}

/// One pass over the catalog: for each want, the member that answers it.
fn find_wanted(catalog: &Catalog, wants: &[Want]) -> io::Result<Vec<Option<Member>>> {
    let mut by_key: HashMap<&[u8], Vec<usize>> = HashMap::new();
    let mut by_inode: HashMap<(u64, u64), Vec<usize>> = HashMap::new();
    for (k, want) in wants.iter().enumerate() {
        match want {
            Want::LinkTarget { key, .. } => by_key.entry(key).or_default().push(k),
            Want::GroupData { inode, .. } => by_inode.entry(*inode).or_default().push(k),
        }
    }
    let mut found: Vec<Option<Member>> = vec![None; wants.len()];
    for member in catalog.members() {
        let member = checked(member?)?;
        if !by_key.is_empty() {
            let key = link_key(member.path.as_bytes());
            for &k in by_key.get(key.as_ref()).into_iter().flatten() {
                if matches!(&wants[k], Want::LinkTarget { before, .. } if member.header_offset < *before)
                {
                    found[k] = Some(member.clone());
                }
            }
        }
        if member.size == 0 {
            continue;
        }
        for &k in member
            .inode
            .and_then(|i| by_inode.get(&i))
            .into_iter()
            .flatten()
        {
            if found[k].is_none()
                && matches!(&wants[k], Want::GroupData { after, .. } if member.header_offset > *after)
            {
                found[k] = Some(member.clone());
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::link_key;

    // issue 45 finding 9: a target and a member name that tar extracts
    // under one path are one key.
    #[test]
    fn spellings_tar_extracts_under_one_path_are_one_key() {
        for spelling in [
            "d/small",
            "./d/small",
            "d//small",
            "/d/small",
            "d/./small",
            "x/../d/small",
            "d/small/",
        ] {
            assert_eq!(
                link_key(spelling.as_bytes()).as_ref(),
                b"d/small",
                "{spelling}"
            );
        }
        assert!(matches!(
            link_key(b"d/small"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_ne!(link_key(b"d/small2").as_ref(), b"d/small");
    }
}
