//! Small checks shared by the rule modules; each pushes at most one error.

use super::codes;
use crate::{Millis, Nullable, OpenEnum, TimezoneName, ValidationErrors};

/// The value of a nullable field, treating absent and null alike.
pub(super) fn value<T: Copy>(n: &Nullable<T>) -> Option<T> {
    n.flatten()
}

/// The value of a nullable field by reference, treating absent and null alike.
pub(super) fn value_ref<T>(n: &Nullable<T>) -> Option<&T> {
    n.as_ref().and_then(Option::as_ref)
}

/// Non-blank string content, or `None` for absent, null or blank.
pub(super) fn non_blank(s: Option<&String>) -> Option<&str> {
    s.map(String::as_str).filter(|s| !s.trim().is_empty())
}

/// Reports `field` as required when it is missing.
pub(super) fn require<'a, T>(
    e: &mut ValidationErrors,
    field: &str,
    v: Option<&'a T>,
) -> Option<&'a T> {
    if v.is_none() {
        e.push(field, codes::REQUIRED, "is required");
    }
    v
}

/// Reports an open enum's value outside the known ones. The model uses it only for fields
/// whose allowed values the spec lists in full; where it says others exist, an unknown
/// value the service sent is sent back as it came. A service (the sandbox) that knows its
/// whole catalogue uses it for the rest too.
pub fn known<T: OpenEnum>(e: &mut ValidationErrors, field: &str, v: Option<&T>) {
    if let Some(v) = v.filter(|v| !v.known()) {
        e.push(
            field,
            codes::INVALID,
            format!(
                "must be {} (got \"{}\")",
                or_list(&T::known_wire()),
                v.wire()
            ),
        );
    }
}

/// Reports `field` as required when it is missing or blank.
pub(super) fn require_str<'a>(
    e: &mut ValidationErrors,
    field: &str,
    v: Option<&'a String>,
) -> Option<&'a str> {
    let s = non_blank(v);
    if s.is_none() {
        e.push(field, codes::REQUIRED, "is required");
    }
    s
}

/// Money and goals: strictly positive.
pub(super) fn positive(e: &mut ValidationErrors, field: &str, v: f64) {
    if v.is_nan() || v <= 0.0 {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must be greater than 0 (got {v})"),
        );
    }
}

/// Ids: strictly positive.
pub(super) fn positive_id(e: &mut ValidationErrors, field: &str, v: i64) {
    if v <= 0 {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must be a positive id (got {v})"),
        );
    }
}

/// Caps and rates that may be zero but not negative.
pub(super) fn non_negative(e: &mut ValidationErrors, field: &str, v: f64) {
    if v.is_nan() || v < 0.0 {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must not be negative (got {v})"),
        );
    }
}

/// Integer caps that may be zero but not negative.
pub(super) fn non_negative_int(e: &mut ValidationErrors, field: &str, v: i64) {
    if v < 0 {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must not be negative (got {v})"),
        );
    }
}

/// Counts such as a frequency-cap limit.
pub(super) fn at_least(e: &mut ValidationErrors, field: &str, v: i64, min: i64) {
    if v < min {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must be at least {min} (got {v})"),
        );
    }
}

/// Percentages and fractions with inclusive bounds.
pub(super) fn within(e: &mut ValidationErrors, field: &str, v: f64, lo: f64, hi: f64) {
    if !(lo..=hi).contains(&v) {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must be between {lo} and {hi} (got {v})"),
        );
    }
}

/// Integer bounds, inclusive.
pub(super) fn within_int(e: &mut ValidationErrors, field: &str, v: i64, lo: i64, hi: i64) {
    if !(lo..=hi).contains(&v) {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must be between {lo} and {hi} (got {v})"),
        );
    }
}

/// A part that must not exceed its whole, such as a daily budget within a lifetime one.
pub(super) fn not_above(
    e: &mut ValidationErrors,
    field: &str,
    v: f64,
    limit_name: &str,
    limit: f64,
) {
    if v > limit {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must not exceed {limit_name} of {limit} (got {v})"),
        );
    }
}

/// Integer form of [`not_above`].
pub(super) fn not_above_int(
    e: &mut ValidationErrors,
    field: &str,
    v: i64,
    limit_name: &str,
    limit: i64,
) {
    if v > limit {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must not exceed {limit_name} of {limit} (got {v})"),
        );
    }
}

/// Start before end, reported on the end (`end_field`) as that is the one usually moved.
pub(super) fn dates_in_order(
    e: &mut ValidationErrors,
    end_field: &str,
    start: Option<Millis>,
    end: Option<Millis>,
    tz: Option<&TimezoneName>,
) {
    let (Some(s), Some(t)) = (start, end) else {
        return;
    };
    if s >= t {
        e.push(
            end_field,
            codes::INVALID,
            format!(
                "must be after startDate ({}; got {})",
                format_millis_in(s, tz),
                format_millis_in(t, tz)
            ),
        );
    }
}

/// Lengths are counted in characters, as a media buyer would count them.
pub(super) fn max_chars(e: &mut ValidationErrors, field: &str, s: &str, max: usize) {
    let n = s.chars().count();
    if n > max {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must be at most {max} characters (got {n})"),
        );
    }
}

/// Joins names as "A, B or C" for messages that list the allowed values.
pub(super) fn or_list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => {
            let head: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} or {}", head.join(", "), last.as_ref())
        }
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Formats Unix milliseconds in the advertiser's timezone for messages, as the forms show
/// them: `1 Jan 2027` at local midnight, `1 Jan 2027 09:30 ET` otherwise. Without a zone
/// (or with one this crate does not know) it is [`format_millis`], in UTC.
pub fn format_millis_in(ms: Millis, tz: Option<&TimezoneName>) -> String {
    let Some((tz_name, iana)) = tz.and_then(|t| Some((t, t.iana()?))) else {
        return format_millis(ms);
    };
    let Ok(zone) = jiff::tz::TimeZone::get(iana) else {
        return format_millis(ms);
    };
    let Ok(ts) = jiff::Timestamp::from_millisecond(ms) else {
        return format_millis(ms);
    };
    let local = ts.to_zoned(zone);
    let date = format!(
        "{} {} {}",
        local.day(),
        MONTHS[usize::try_from(local.month() - 1).unwrap_or(0)],
        local.year()
    );
    let (h, m, sec) = (local.hour(), local.minute(), local.second());
    if h == 0 && m == 0 && sec == 0 && local.subsec_nanosecond() == 0 {
        date
    } else if sec == 0 {
        format!("{date} {h:02}:{m:02} {tz_name}")
    } else {
        format!("{date} {h:02}:{m:02}:{sec:02} {tz_name}")
    }
}

/// Formats Unix milliseconds in UTC for messages: `1 Jan 2027` at midnight,
/// `1 Jan 2027 14:30 UTC` otherwise, so buyers never see raw millis.
pub fn format_millis(ms: Millis) -> String {
    const DAY: i64 = 86_400_000;
    let days = ms.div_euclid(DAY);
    let in_day = ms.rem_euclid(DAY);
    let (y, m, d) = civil_from_days(days);
    let month = MONTHS[usize::try_from(m - 1).unwrap_or(0)];
    if in_day == 0 {
        return format!("{d} {month} {y}");
    }
    let secs = in_day / 1000;
    let (h, min, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if s == 0 && in_day % 1000 == 0 {
        format!("{d} {month} {y} {h:02}:{min:02} UTC")
    } else {
        format!("{d} {month} {y} {h:02}:{min:02}:{s:02} UTC")
    }
}

/// Days since 1970-01-01 to (year, month 1..=12, day 1..=31), proleptic Gregorian
/// (H. Hinnant's algorithm), to avoid a date crate for message text.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_dates_in_utc() {
        assert_eq!(format_millis(0), "1 Jan 1970");
        // 1 Jan 2027 00:00 UTC is 31 Dec 2026 19:00 in New York, 16:00 in Los Angeles.
        let ny = Some(&TimezoneName::ET);
        assert_eq!(
            format_millis_in(1_798_761_600_000, ny),
            "31 Dec 2026 19:00 ET"
        );
        assert_eq!(
            format_millis_in(1_798_761_600_000, Some(&TimezoneName::PT)),
            "31 Dec 2026 16:00 PT"
        );
        // Local midnight reads as a plain date; summer time is applied (EDT, UTC-4).
        assert_eq!(format_millis_in(1_814_414_400_000, ny), "1 Jul 2027");
        assert_eq!(format_millis_in(0, None), "1 Jan 1970");
        let unknown = TimezoneName::Other("XT".into());
        assert_eq!(format_millis_in(0, Some(&unknown)), "1 Jan 1970");
        assert_eq!(format_millis(1_798_761_600_000), "1 Jan 2027");
        assert_eq!(
            format_millis(1_798_761_600_000 + 52_200_000),
            "1 Jan 2027 14:30 UTC"
        );
        assert_eq!(
            format_millis(1_798_761_600_000 + 1_000),
            "1 Jan 2027 00:00:01 UTC"
        );
        assert_eq!(format_millis(951_782_400_000), "29 Feb 2000");
        assert_eq!(format_millis(-86_400_000), "31 Dec 1969");
    }

    #[test]
    fn lists_alternatives() {
        assert_eq!(or_list::<&str>(&[]), "");
        assert_eq!(or_list(&["A"]), "A");
        assert_eq!(or_list(&["A", "B"]), "A or B");
        assert_eq!(or_list(&["A", "B", "C"]), "A, B or C");
    }
}
