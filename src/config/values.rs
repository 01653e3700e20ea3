//! Single values of the command line: percentages, rates and `--pace`.

use crate::base::config_error::ConfigError;
use crate::base::size::parse_size;
use crate::base::size::Rate;
use crate::cli::args::PACE_ALONE;
use crate::pace::controller::GIVEN_FLOOR_MARGIN;
use crate::pace::{PaceRequest, PaceSettings};

pub fn parse_pct(text: Option<&str>, flag: &str, default: u8) -> Result<u8, ConfigError> {
    let Some(text) = text else {
        return Ok(default);
    };
    let t = text.trim().trim_end_matches('%');
    match t.parse::<u8>() {
        Ok(p) if p <= 100 => Ok(p),
        _ => Err(ConfigError::new(
            flag,
            format!("'{text}' is not a percentage from 0 to 100"),
        )),
    }
}

/// `--pace`, `--pace MIN`, `--pace MIN:MAX`, or `--no-pace`.
pub fn parse_pace(text: Option<&str>, off: bool) -> Result<PaceRequest, ConfigError> {
    const FLAG: &str = "--pace";
    let text = match (text, off) {
        (_, true) => return Ok(PaceRequest::Off),
        (None, false) => return Ok(PaceRequest::Default),
        (Some(PACE_ALONE), false) => return Ok(PaceRequest::On(PaceSettings::default())),
        (Some(t), false) => t.trim(),
    };
    if text.is_empty() {
        return Err(ConfigError::new(
            FLAG,
            "'--pace=' names no range: give MIN or MIN:MAX after '=', or --pace alone to learn the range",
        ));
    }
    let (min, max) = match text.split_once(':') {
        Some((min, max)) => (min, Some(max)),
        None => (text, None),
    };
    let floor = parse_rate(Some(min), FLAG)?;
    let ceiling = match max {
        Some(m) => parse_rate(Some(m), FLAG)?,
        None => None,
    };
    if let (Some(f), Some(c)) = (floor, ceiling) {
        let top = max.unwrap_or("");
        if f > c {
            return Err(ConfigError::new(
                FLAG,
                format!("the floor {min} is above the top rate {top}"),
            ));
        }
        let lowest_pace = f as f64 * GIVEN_FLOOR_MARGIN;
        if lowest_pace >= c as f64 {
            return Err(ConfigError::new(
                FLAG,
                format!(
                    "the floor {min} leaves no room to pace below the top rate {top}: \
                     the pace keeps {:.0}% above the floor, so the top rate must be above {}",
                    (GIVEN_FLOOR_MARGIN - 1.0) * 100.0,
                    Rate(lowest_pace)
                ),
            ));
        }
    }
    Ok(PaceRequest::On(PaceSettings { floor, ceiling }))
}

pub fn parse_rate(text: Option<&str>, flag: &str) -> Result<Option<u64>, ConfigError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let t = text.trim().trim_end_matches("/s");
    match parse_size(t) {
        Ok(0) => Err(ConfigError::new(
            flag,
            "must be more than 0 bytes per second",
        )),
        Ok(r) => Ok(Some(r)),
        Err(e) => Err(ConfigError::new(flag, e.to_string())),
    }
}
