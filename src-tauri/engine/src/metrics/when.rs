//! The ends of a metrics range as people write them: `30m`, `2h`, `7d` before now, an RFC 3339
//! time, or a date (UTC).

use chrono::{DateTime, NaiveDate, SecondsFormat};

/// Which end of a range a time is for; it only matters for a bare date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeBound {
    /// `since`: a date means the start of that day.
    Start,
    /// `until` (exclusive): a date means the end of that day, so `since D until D` is day D.
    End,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeBoundError {
    #[error("empty time; {HINT}")]
    Empty,
    #[error("'{text}' has no unit; {HINT}")]
    NoUnit { text: String },
    #[error("'{text}': unknown unit '{unit}' (s, m, h, d or w)")]
    UnknownUnit { text: String, unit: String },
    #[error("'{text}' is not a date: {reason}")]
    BadDate { text: String, reason: String },
    #[error("'{text}' is not an RFC 3339 time ({reason}); it needs a date, a time and a zone, as in 2025-06-01T12:00:00Z or 2025-06-01T14:00:00+02:00")]
    BadTime { text: String, reason: String },
    #[error("'{text}' is not a time; {HINT}")]
    Unrecognised { text: String },
    #[error("'{text}' is too far from now")]
    OutOfRange { text: String },
}

const HINT: &str = "use a duration before now (30m, 2h, 7d), an RFC 3339 time \
                    (2025-06-01T12:00:00Z) or a date (2025-06-01, UTC)";

/// Reads one end of a range as unix milliseconds.
///
/// * `<n><unit>`: that long before `now_ms`; units `s`, `m` (minutes), `h`, `d`, `w`;
/// * `YYYY-MM-DD`: midnight UTC starting that day ([`TimeBound::Start`]) or ending it
///   ([`TimeBound::End`]);
/// * an RFC 3339 time with its zone (`2025-06-01T12:00:00Z`, `...+02:00`, fractions allowed).
pub fn parse_time_bound(text: &str, now_ms: i64, bound: TimeBound) -> Result<i64, TimeBoundError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(TimeBoundError::Empty);
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    if digits > 0 && unit.bytes().all(|b| b.is_ascii_alphabetic()) {
        return relative(text, number, unit, now_ms);
    }
    if looks_like_date(text) {
        return date(text, bound);
    }
    if digits > 0 && text.contains([':', 'T', 't']) {
        return DateTime::parse_from_rfc3339(text)
            .map(|time| time.timestamp_millis())
            .map_err(|e| TimeBoundError::BadTime {
                text: text.to_owned(),
                reason: e.to_string(),
            });
    }
    Err(TimeBoundError::Unrecognised {
        text: text.to_owned(),
    })
}

fn relative(text: &str, number: &str, unit: &str, now_ms: i64) -> Result<i64, TimeBoundError> {
    let unit_ms: i64 = match unit {
        "" => {
            return Err(TimeBoundError::NoUnit {
                text: text.to_owned(),
            })
        }
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        "w" => 7 * 86_400_000,
        other => {
            return Err(TimeBoundError::UnknownUnit {
                text: text.to_owned(),
                unit: other.to_owned(),
            })
        }
    };
    let out_of_range = || TimeBoundError::OutOfRange {
        text: text.to_owned(),
    };
    let count: i64 = number.parse().map_err(|_| out_of_range())?;
    count
        .checked_mul(unit_ms)
        .and_then(|ago| now_ms.checked_sub(ago))
        .ok_or_else(out_of_range)
}

/// `dddd-dd-dd`, whether or not it is a real date.
fn looks_like_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn date(text: &str, bound: TimeBound) -> Result<i64, TimeBoundError> {
    let bad = |reason: String| TimeBoundError::BadDate {
        text: text.to_owned(),
        reason,
    };
    let day = NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|e| bad(e.to_string()))?;
    let day = match bound {
        TimeBound::Start => Some(day),
        TimeBound::End => day.succ_opt(),
    }
    .ok_or_else(|| bad("out of range".to_owned()))?;
    Ok(day
        .and_time(chrono::NaiveTime::MIN)
        .and_utc()
        .timestamp_millis())
}

/// `ms` as an RFC 3339 UTC time to the second (`2025-06-01T12:00:00Z`), for messages and
/// tables; a time chrono cannot represent is shown as its number of milliseconds.
pub fn format_utc(ms: i64) -> String {
    match DateTime::from_timestamp_millis(ms) {
        Some(time) => time.to_rfc3339_opts(SecondsFormat::Secs, true),
        None => format!("{ms} ms"),
    }
}
