//! The numbers in archive headers: tar's octal fields and GNU's base-256
//! form, cpio's hex and octal fields. Every parse is bounded and checked:
//! a value that does not fit gives `None`, never a wrapped number.

/// A tar numeric field: octal ASCII (leading spaces, ended by NUL or
/// space or the field's end; an empty field is 0), or base-256 when the
/// first byte's high bit is set (0x80 positive, 0xFF.. two's complement
/// negative over the whole field).
pub(super) fn tar_number(field: &[u8]) -> Option<i128> {
    match field.first() {
        Some(&first) if first & 0x80 != 0 => base256(field),
        _ => octal(field).map(i128::from),
    }
}

/// A tar number that must be a size: not negative, at most u64.
pub(super) fn tar_size(field: &[u8]) -> Option<u64> {
    tar_number(field).and_then(|v| u64::try_from(v).ok())
}

/// A tar number that must be a time: fits an i64.
pub(super) fn tar_time(field: &[u8]) -> Option<i64> {
    tar_number(field).and_then(|v| i64::try_from(v).ok())
}

fn octal(field: &[u8]) -> Option<u64> {
    let start = field.iter().position(|&b| b != b' ').unwrap_or(field.len());
    let mut value: u64 = 0;
    for &b in &field[start..] {
        match b {
            b'0'..=b'7' => value = value.checked_mul(8)?.checked_add(u64::from(b - b'0'))?,
            b' ' | 0 => break,
            _ => return None,
        }
    }
    Some(value)
}

fn base256(field: &[u8]) -> Option<i128> {
    // 12 bytes at most in tar (96 bits), so a u128 holds the raw value.
    if field.len() > 12 {
        return None;
    }
    let negative = field[0] & 0x40 != 0;
    let mut raw: u128 = u128::from(if negative { field[0] } else { field[0] & 0x7f });
    for &b in &field[1..] {
        raw = (raw << 8) | u128::from(b);
    }
    if negative {
        let bits = 8 * field.len() as u32;
        Some(raw as i128 - (1i128 << bits))
    } else {
        Some(raw as i128)
    }
}

/// A cpio newc/crc field: exactly 8 hex digits, either case.
pub(super) fn hex(field: &[u8]) -> Option<u64> {
    digits(field, 16)
}

/// A cpio odc field: octal digits filling the field.
pub(super) fn octal_exact(field: &[u8]) -> Option<u64> {
    digits(field, 8)
}

fn digits(field: &[u8], radix: u32) -> Option<u64> {
    if field.is_empty() {
        return None;
    }
    field.iter().try_fold(0u64, |value, &b| {
        let digit = char::from(b).to_digit(radix)?;
        value
            .checked_mul(u64::from(radix))?
            .checked_add(u64::from(digit))
    })
}

/// A pax decimal, `[-]digits[.digits]`: the floor of its value (a pax
/// time may carry a fraction and a sign).
pub(super) fn decimal(text: &[u8]) -> Option<i64> {
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let (whole, fraction) = match text.iter().position(|&b| b == b'.') {
        Some(dot) => (&text[..dot], &text[dot + 1..]),
        None => (text, &[][..]),
    };
    if whole.is_empty() || !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = i64::try_from(digits(whole, 10)?).ok()?;
    let inexact = fraction.iter().any(|&b| b != b'0');
    match (negative, inexact) {
        (false, _) => Some(value),
        (true, false) => Some(-value),
        (true, true) => (-value).checked_sub(1),
    }
}
