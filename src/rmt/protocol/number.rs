//! The decimal numbers of the rmt protocol: counts (W's and R's lengths,
//! an ioctl's operation and count, L's whence, the open flags' number) and
//! L's signed offset, and the numbers of `A` and `E` replies. The
//! server's request reader, the client's reply reader and the server's
//! open flags (`rmt_server/flags.rs`) all read them here.
//!
//! Invariant: only plain ASCII digits, with at most a leading `-`, are a
//! number; no spaces, no `+`, no other base, and a value that does not fit
//! is an error rather than wrapped or cut.

/// Why a numeric argument is not acceptable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberError {
    NotDecimal,
    Negative,
    TooLarge,
}

/// Parses a decimal count: digits only. A leading `-` is recognised only
/// to say that the count is negative.
pub fn parse_count(text: &[u8]) -> Result<u64, NumberError> {
    if let Some(digits) = text.strip_prefix(b"-") {
        digits_value(digits)?;
        return Err(NumberError::Negative);
    }
    digits_value(text)
}

/// Parses a decimal number with an optional leading `-`.
pub fn parse_signed(text: &[u8]) -> Result<i64, NumberError> {
    match text.strip_prefix(b"-") {
        Some(digits) => match digits_value(digits)? {
            m if m <= i64::MAX as u64 + 1 => Ok((m as i64).wrapping_neg()),
            _ => Err(NumberError::TooLarge),
        },
        None => i64::try_from(digits_value(text)?).map_err(|_| NumberError::TooLarge),
    }
}

fn digits_value(digits: &[u8]) -> Result<u64, NumberError> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(NumberError::NotDecimal);
    }
    digits.iter().try_fold(0u64, |acc, d| {
        acc.checked_mul(10)
            .and_then(|a| a.checked_add(u64::from(d - b'0')))
            .ok_or(NumberError::TooLarge)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_plain_decimal() {
        assert_eq!(parse_count(b"0"), Ok(0));
        assert_eq!(parse_count(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            parse_count(b"18446744073709551616"),
            Err(NumberError::TooLarge)
        );
        assert_eq!(parse_count(b"-3"), Err(NumberError::Negative));
        assert_eq!(parse_count(b"-x"), Err(NumberError::NotDecimal));
        assert_eq!(parse_count(b" 3"), Err(NumberError::NotDecimal));
        assert_eq!(parse_count(b""), Err(NumberError::NotDecimal));
        assert_eq!(parse_signed(b"-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(
            parse_signed(b"-9223372036854775809"),
            Err(NumberError::TooLarge)
        );
        assert_eq!(
            parse_signed(b"9223372036854775808"),
            Err(NumberError::TooLarge)
        );
    }
}
