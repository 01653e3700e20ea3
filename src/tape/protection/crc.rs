//! The CRC a protected block carries: four bytes after its data, in the
//! byte order the drive checks (measured against mhvtl's drives in the
//! tape lab, tests/tapelab/FINDINGS.md).
//!
//! - CRC32C (Castagnoli, reflected, initial and final value 0xFFFFFFFF,
//!   the iSCSI CRC), appended least significant byte first. `crc-fast`
//!   computes it with the CPU's carry-less multiply (VPCLMULQDQ or
//!   PCLMULQDQ) or SSE4.2's crc32 instruction, whichever is there.
//! - Reed-Solomon CRC (ECMA-319): the block taken as a polynomial over
//!   GF(256) (field polynomial x^8 + x^4 + x^3 + x^2 + 1), its remainder
//!   modulo the generator x^4 + 0x38 x^3 + 0xCF x^2 + 0x38 x + 1, from a
//!   zero register, appended most significant byte first. Computed here,
//!   eight bytes per step with eight tables built at compile time; a
//!   block followed by its own CRC leaves a zero remainder.

use crate::tape::scsi::pages::protection::Method;

/// The four bytes `method` appends to `data`.
pub fn crc(method: Method, data: &[u8]) -> [u8; 4] {
    match method {
        Method::Crc32c => {
            let c = crc_fast::checksum(crc_fast::CrcAlgorithm::Crc32Iscsi, data) as u32;
            c.to_le_bytes()
        }
        Method::ReedSolomon => reed_solomon(data).to_be_bytes(),
    }
}

/// GF(256) multiplication modulo x^8 + x^4 + x^3 + x^2 + 1.
const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut product = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            product ^= a;
        }
        let carry = a & 0x80 != 0;
        a <<= 1;
        if carry {
            a ^= 0x1d;
        }
        b >>= 1;
    }
    product
}

/// The generator's coefficients below x^4, highest first.
const GENERATOR: [u8; 4] = [0x38, 0xcf, 0x38, 0x01];

/// `TABLES[k][x]`: what the byte `x` entering the register contributes
/// once `k` zero bytes more have followed it.
const TABLES: [[u32; 256]; 8] = tables();

const fn tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut x = 0;
    while x < 256 {
        let mut word = 0u32;
        let mut i = 0;
        while i < 4 {
            word = word << 8 | gf_mul(x as u8, GENERATOR[i]) as u32;
            i += 1;
        }
        t[0][x] = word;
        x += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut x = 0;
        while x < 256 {
            let prev = t[k - 1][x];
            t[k][x] = prev << 8 ^ t[0][(prev >> 24) as usize];
            x += 1;
        }
        k += 1;
    }
    t
}

/// ECMA-319's Reed-Solomon CRC of `data` from a zero register.
pub fn reed_solomon(data: &[u8]) -> u32 {
    let t = &TABLES;
    let mut crc = 0u32;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let a = crc ^ u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        let b = u32::from_be_bytes([c[4], c[5], c[6], c[7]]);
        crc = t[7][(a >> 24) as usize]
            ^ t[6][(a >> 16 & 0xff) as usize]
            ^ t[5][(a >> 8 & 0xff) as usize]
            ^ t[4][(a & 0xff) as usize]
            ^ t[3][(b >> 24) as usize]
            ^ t[2][(b >> 16 & 0xff) as usize]
            ^ t[1][(b >> 8 & 0xff) as usize]
            ^ t[0][(b & 0xff) as usize];
    }
    for &byte in chunks.remainder() {
        crc = crc << 8 ^ t[0][(byte ^ (crc >> 24) as u8) as usize];
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte by byte, the definition the eight-byte step must agree with.
    fn reed_solomon_bytewise(data: &[u8]) -> u32 {
        data.iter().fold(0u32, |crc, &byte| {
            crc << 8 ^ TABLES[0][(byte ^ (crc >> 24) as u8) as usize]
        })
    }

    #[test]
    fn crc32c_is_the_castagnoli_crc_appended_least_significant_byte_first() {
        // The check value of CRC-32C (iSCSI) is 0xE3069283.
        assert_eq!(crc(Method::Crc32c, b"123456789"), [0x83, 0x92, 0x06, 0xe3]);
    }

    #[test]
    fn reed_solomon_gives_the_values_mhvtl_computes() {
        // Measured with mhvtl's GenerateRSCRC (usr/utils/reed-solomon.c).
        assert_eq!(reed_solomon(b"123456789"), 0x4b4f_673a);
        let counting: Vec<u8> = (0..=255).collect();
        assert_eq!(reed_solomon(&counting), 0x8179_a680);
        assert_eq!(reed_solomon(&[0; 4096]), 0);
        assert_eq!(
            crc(Method::ReedSolomon, b"123456789"),
            [0x4b, 0x4f, 0x67, 0x3a]
        );
    }

    #[test]
    fn the_reed_solomon_table_is_ecma_319s_generator_over_its_field() {
        // Entries of the table in mhvtl's reed-solomon.c.
        assert_eq!(TABLES[0][0x01], 0x38cf_3801);
        assert_eq!(TABLES[0][0x02], 0x7083_7002);
        assert_eq!(TABLES[0][0x10], 0xa76c_a710);
        assert_eq!(TABLES[0][0xff], 0x763f_76ff);
    }

    #[test]
    fn the_eight_byte_step_agrees_with_the_definition_at_every_length() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 37 + 11) as u8).collect();
        for len in 0..data.len() {
            assert_eq!(
                reed_solomon(&data[..len]),
                reed_solomon_bytewise(&data[..len]),
                "{len}"
            );
        }
    }

    #[test]
    fn a_block_followed_by_its_reed_solomon_crc_leaves_no_remainder() {
        let mut block: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        let tail = crc(Method::ReedSolomon, &block);
        block.extend(tail);
        assert_eq!(reed_solomon(&block), 0);
    }

    #[test]
    fn every_method_notices_any_one_flipped_bit() {
        let block: Vec<u8> = (0..512u32).map(|i| (i * 13 + 5) as u8).collect();
        for method in Method::ALL {
            let good = crc(method, &block);
            for bit in (0..block.len() * 8).step_by(7) {
                let mut bad = block.clone();
                bad[bit / 8] ^= 1 << (bit % 8);
                assert_ne!(crc(method, &bad), good, "{method:?} bit {bit}");
            }
        }
    }
}
