//! What `tapebuf verify` says: one line per volume as soon as it is
//! known, and one at the end.

use crate::base::console::message;
use crate::manifest::Manifest;
use crate::source::Outcome;

/// "tapebuf: verify: volume 2 (/dev/nst0): ok, 1073741824 bytes, 12.3 s",
/// or "...: FAILED: differs between bytes X and Y of the volume".
pub fn volume_line(o: &Outcome) -> String {
    let head = message!("verify: volume {} ({})", o.volume, o.name);
    match &o.problem {
        None => format!("{head}: ok, {} bytes, {:.1} s", o.bytes, o.seconds),
        Some(why) => format!("{head}: FAILED: {why}"),
    }
}

/// The last line, and whether the backup verified. `digest` is of every
/// byte read, in order: the stream's digest is printed only when it was
/// checked, that is when every volume was read and matched and `digest`
/// is the manifest's.
pub fn verdict(
    manifest: &Manifest,
    outcomes: &[Outcome],
    stopped: bool,
    digest: &str,
) -> (String, bool) {
    let listed = manifest.volumes.len();
    let ok: Vec<&Outcome> = outcomes.iter().filter(|o| o.problem.is_none()).collect();
    let failed = outcomes.len() - ok.len();
    let unread = listed.saturating_sub(outcomes.len());
    let bytes: u64 = ok.iter().map(|o| o.bytes).sum();
    let whole = failed == 0 && unread == 0 && !stopped;
    let all = match listed {
        1 => "the 1 volume matches".to_string(),
        n => format!("all {n} volumes match"),
    };
    let alg = &manifest.digest_algorithm;
    let same_stream = digest == manifest.stream.digest;
    let line = if whole && !same_stream {
        message!(
            "verify: {all} the manifest ({bytes} bytes), but the stream they make has {alg} {digest}, not the manifest's {}",
            manifest.stream.digest
        )
    } else if whole && manifest.clean {
        message!("verify: {all} the manifest ({bytes} bytes, {alg} {digest})")
    } else if whole {
        message!(
            "verify: {all} the manifest ({bytes} bytes), but the backup itself did not end cleanly ({}): it is not whole",
            manifest.unclean_because.as_deref().unwrap_or("no reason recorded")
        )
    } else {
        let mut parts = vec![format!("{} of {} ok", ok.len(), volumes(listed))];
        if failed > 0 {
            parts.push(format!("{failed} FAILED"));
        }
        if unread > 0 {
            parts.push(format!("{unread} not read"));
        }
        message!("verify: {}", parts.join(", "))
    };
    (line, whole && same_stream && manifest.clean)
}

/// "1 volume", "3 volumes".
fn volumes(n: usize) -> String {
    match n {
        1 => "1 volume".to_string(),
        n => format!("{n} volumes"),
    }
}
