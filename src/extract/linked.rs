//! What a chosen member needs to be extracted whole, though no glob chose
//! it: a tar hard link's target, and the member of a cpio newc/crc
//! hard-link group that carries the data (see `plan.rs`). Found in rounds
//! of one pass over the catalog each, so memory is the chosen members and
//! what they want, never the whole catalog.

use std::collections::{HashMap, HashSet};
use std::io;

use crate::archive::{Member, MemberKind, Name};
use crate::catalog::Catalog;

/// How many times links to links are followed.
pub const MAX_LINK_ROUNDS: usize = 8;

/// A member in the output that no glob chose: a chosen member needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needed {
    /// The member added.
    pub path: Name,
    /// The chosen (or itself needed) member that needs it.
    pub by: Name,
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

/// What one chosen member needs and the output lacks.
enum Want {
    /// Tar: the last member named `target` before `before`.
    LinkTarget { target: Name, before: u64 },
    /// cpio newc/crc: the first member after `after` of group `inode`
    /// with data.
    GroupData { inode: (u64, u64), after: u64 },
}

/// Adds to `members` what they need (see the module's notes), in rounds
/// of one pass over the catalog each, and says what was added.
pub(super) fn add_needed(catalog: &Catalog, members: &mut Vec<Member>) -> io::Result<Vec<Needed>> {
    let mut have: HashSet<u64> = members.iter().map(|m| m.header_offset).collect();
    let mut needed = Vec::new();
    let mut fresh: Vec<usize> = (0..members.len()).collect();
    for _ in 0..MAX_LINK_ROUNDS {
        let paths: HashSet<&[u8]> = members.iter().map(|m| m.path.as_bytes()).collect();
        let wants: Vec<(usize, Want)> = fresh
            .iter()
            .filter_map(|&i| want_of(&members[i], &paths).map(|w| (i, w)))
            .collect();
        if wants.is_empty() {
            break;
        }
        let found = find_wanted(catalog, &wants)?;
        fresh.clear();
        for ((by, _), found) in wants.iter().zip(found) {
            let Some(member) = found else { continue };
            if have.insert(member.header_offset) {
                needed.push(Needed {
                    path: member.path.clone(),
                    by: members[*by].path.clone(),
                });
                fresh.push(members.len());
                members.push(member);
            }
        }
    }
    Ok(needed)
}

/// What `member` needs that is not among the chosen `paths`. A path a
/// glob chose is chosen wherever it occurs, so a hard link whose target's
/// name is among them needs nothing more.
fn want_of(member: &Member, paths: &HashSet<&[u8]>) -> Option<Want> {
    match (&member.link, member.inode) {
        (Some(target), _) if member.kind == MemberKind::HardLink => {
            (!paths.contains(target.as_bytes())).then(|| Want::LinkTarget {
                target: target.clone(),
                before: member.header_offset,
            })
        }
        (_, Some(inode)) if member.size == 0 => Some(Want::GroupData {
            inode,
            after: member.header_offset,
        }),
        _ => None,
    }
}

/// One pass over the catalog: for each want, the member that answers it.
fn find_wanted(catalog: &Catalog, wants: &[(usize, Want)]) -> io::Result<Vec<Option<Member>>> {
    let mut by_target: HashMap<&[u8], Vec<usize>> = HashMap::new();
    let mut by_inode: HashMap<(u64, u64), Vec<usize>> = HashMap::new();
    for (k, (_, want)) in wants.iter().enumerate() {
        match want {
            Want::LinkTarget { target, .. } => {
                by_target.entry(target.as_bytes()).or_default().push(k)
            }
            Want::GroupData { inode, .. } => by_inode.entry(*inode).or_default().push(k),
        }
    }
    let mut found: Vec<Option<Member>> = vec![None; wants.len()];
    for member in catalog.members() {
        let member = checked(member?)?;
        for &k in by_target.get(member.path.as_bytes()).into_iter().flatten() {
            if matches!(&wants[k].1, Want::LinkTarget { before, .. } if member.header_offset < *before)
            {
                found[k] = Some(member.clone());
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
                && matches!(&wants[k].1, Want::GroupData { after, .. } if member.header_offset > *after)
            {
                found[k] = Some(member.clone());
            }
        }
    }
    Ok(found)
}
