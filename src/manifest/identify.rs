//! Which volume of a backup a cartridge or file is, from its first
//! bytes: each volume's fingerprint covers its own first bytes, so the
//! data read first is hashed once per distinct fingerprint length.

use xxhash_rust::xxh3::xxh3_64;

use super::schema::Manifest;

/// What the first bytes of a volume say it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// Volume `n` of this backup.
    Volume(u32),
    /// No volume of this backup begins so.
    Stranger,
    /// Too few bytes were read to tell (the medium is shorter than every
    /// fingerprint, or empty).
    Unknown,
}

impl Manifest {
    /// Which volume begins with `first` (at least the first record, or
    /// 64 KiB, of the medium). When two volumes begin alike, `expected`
    /// wins if it is one of them, else the lowest number.
    pub fn identify(&self, first: &[u8], expected: u32) -> Identity {
        let mut seen_enough = false;
        let mut found: Vec<u32> = Vec::new();
        for v in &self.volumes {
            let n = v.fingerprint.bytes as usize;
            if n > first.len() || n == 0 {
                continue;
            }
            seen_enough = true;
            if format!("{:016x}", xxh3_64(&first[..n])) == v.fingerprint.xxh3 {
                found.push(v.number);
            }
        }
        if found.contains(&expected) {
            Identity::Volume(expected)
        } else if let Some(n) = found.first() {
            Identity::Volume(*n)
        } else if seen_enough {
            Identity::Stranger
        } else {
            Identity::Unknown
        }
    }

    /// The line for a medium that is not the one expected: "this is volume
    /// 3 of the backup, volume 2 was expected" or "this cartridge is not
    /// part of this backup".
    pub fn wrong_volume_line(&self, identity: &Identity, expected: u32, what: &str) -> String {
        match identity {
            Identity::Volume(n) => {
                format!("this is volume {n} of the backup, volume {expected} was expected")
            }
            Identity::Stranger => format!("this {what} is not part of this backup"),
            Identity::Unknown => {
                format!("this {what} holds too little to be volume {expected} of this backup")
            }
        }
    }
}
