//! What the emulated drive and its cartridges keep of encryption, as
//! plain data: the key and modes the drive holds, and how each record was
//! sealed when written. `encryption.rs` applies mhvtl's rules to them.

/// What the drive holds: the key the application set and its modes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriveCrypt {
    pub key: Vec<u8>,
    pub ukad: Vec<u8>,
    pub encrypt: u8,
    pub decrypt: u8,
    /// Bumped by every set page taken.
    pub instance: u32,
}

/// How a record was sealed when written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal {
    pub key: Vec<u8>,
    pub ukad: Vec<u8>,
}
