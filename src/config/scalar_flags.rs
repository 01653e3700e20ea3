//! Single values of the command line: percentages, rates and `--pace`.

use crate::base::errors::ConfigError;
use crate::base::size::parse_size;
use crate::base::size::Rate;
use crate::cli::rate_args::PACE_ALONE;
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
        room_to_pace(f, c, min, &format!("the top rate {top}"))?;
    }
    Ok(PaceRequest::On(PaceSettings { floor, ceiling }))
}

/// Refuses a given floor that leaves no room below `top`: the pace keeps
/// [`GIVEN_FLOOR_MARGIN`] above the floor. `top_words` names the top.
fn room_to_pace(
    floor: u64,
    top: u64,
    floor_text: &str,
    top_words: &str,
) -> Result<(), ConfigError> {
    let lowest_pace = floor as f64 * GIVEN_FLOOR_MARGIN;
    if lowest_pace < top as f64 {
        return Ok(());
    }
    Err(ConfigError::new(
        "--pace",
        format!(
            "the floor {floor_text} leaves no room to pace below {top_words}: \
             the pace keeps {:.0}% above the floor, so the top rate must be above {}",
            (GIVEN_FLOOR_MARGIN - 1.0) * 100.0,
            Rate(lowest_pace)
        ),
    ))
}

/// Refuses a `--pace` floor that `-R` leaves no room above: the output
/// cap is the top rate when it is lower than the range's own.
pub fn check_pace_under_cap(
    pace: &PaceRequest,
    pace_text: Option<&str>,
    cap: Option<u64>,
    cap_text: Option<&str>,
) -> Result<(), ConfigError> {
    let (PaceRequest::On(settings), Some(cap), Some(cap_text)) = (pace, cap, cap_text) else {
        return Ok(());
    };
    let Some(floor) = settings.floor else {
        return Ok(());
    };
    if settings.ceiling.is_some_and(|c| c <= cap) {
        return Ok(());
    }
    let floor_text = pace_text
        .and_then(|t| t.split(':').next())
        .unwrap_or("")
        .trim();
    room_to_pace(
        floor,
        cap,
        floor_text,
        &format!("-R {cap_text}, the output's cap"),
    )
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
