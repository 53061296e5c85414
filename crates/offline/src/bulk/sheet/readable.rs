//! The spreadsheet format's cells ([`SheetFormat::Sheet`](super::SheetFormat)): what a
//! buyer reads in a desktop editor's export, where the wire format writes what the
//! service sends.
//!
//! - Dates (`startDate`, `endDate`) in the advertiser's timezone, ISO 8601 with its
//!   offset: `2026-03-01T00:00:00-05:00` (milliseconds only when there are some).
//! - Money (budgets, `max_bid`, `cpaGoal`) with two decimals: `1250.00`; an amount with
//!   more decimals keeps them all (`0.125`), so nothing is rounded away.
//! - Lists of text or ids as `a; b; c` (`iabCategory`, `channels`, `siteIds`).
//! - A site list's `typeId` by its words (`id based`, `rule based`).
//! - Beside a parent's id (`campaignId`), its name (`campaign`). The name is for reading:
//!   import ignores it, since the id says which parent a row is under.
//!
//! Import reads both formats, cell by cell, so no switch is needed: a date cell may hold
//! epoch milliseconds or a date (without an offset: in the advertiser's timezone; a day
//! alone: its midnight, 23:59 for an end date), a list cell JSON or `a; b`, an amount a `$` and thousands
//! commas. A cell is written readable only when reading it back gives the value exactly;
//! anything else (a list item holding `;`, a date past year 9999, a field holding
//! another type than its own) is written as the wire format writes it, and read back so.
//! Lists of objects (flights, audiences, flight caps) stay JSON.

use flightdeck_model::validate::codes;
use flightdeck_model::{FieldError, TimezoneName};
use serde_json::Value;

use crate::change::Kind;
use crate::diff::same;

/// How a column of the spreadsheet format reads and writes its cells.
#[derive(Debug, Clone, Copy)]
enum Column {
    /// Unix milliseconds as a date in the advertiser's timezone.
    Date,
    /// US dollars with two decimals.
    Money,
    /// A list of text, `a; b; c`.
    Texts,
    /// A list of ids, `1; 2; 3`.
    Ids,
    /// A number the service gives no name, by the words the model's docs give it.
    Words(&'static [(i64, &'static str)]),
}

/// A site list's `typeId`, as `crates/model/src/sitelist.rs` names them.
const SITE_LIST_TYPES: &[(i64, &str)] = &[(5, "id based"), (1, "rule based")];

/// The readable column `path` of `kind` is, if any.
fn column(kind: Kind, path: &str) -> Option<Column> {
    use Column::*;
    Some(match (kind, path) {
        (Kind::Campaign | Kind::AdOrder, "startDate" | "endDate") => Date,
        (Kind::Campaign, "maxBudget" | "dailyBudget") => Money,
        (Kind::AdOrder, "lifetimeBudget" | "dailyBudget" | "max_bid" | "cpaGoal") => Money,
        (Kind::Campaign, "iabCategory") => Texts,
        (Kind::AdOrder, "channels" | "channelsV2") => Texts,
        (Kind::Creative, "channels") => Texts,
        (Kind::Creative, p) if p.ends_with(".mediaUrls") => Texts,
        (Kind::AudienceSegment, "advertiserIds") | (Kind::SiteList, "siteIds") => Ids,
        (Kind::SiteList, "typeId") => Words(SITE_LIST_TYPES),
        _ => return None,
    })
}

/// The parent id fields of `kind`, each with the column of the parent's name written
/// beside it and the parent's kind.
pub(crate) fn name_columns(kind: Kind) -> &'static [(&'static str, &'static str, Kind)] {
    match kind {
        Kind::Campaign => &[("advertiserId", "advertiser", Kind::Advertiser)],
        Kind::AdOrder => &[("campaignId", "campaign", Kind::Campaign)],
        Kind::Creative => &[
            ("advertiserId", "advertiser", Kind::Advertiser),
            ("campaignId", "campaign", Kind::Campaign),
        ],
        _ => &[],
    }
}

/// Whether `column` is where `kind`'s rows carry a parent's name (read by no one).
pub(crate) fn is_name_column(kind: Kind, column: &str) -> bool {
    name_columns(kind).iter().any(|(_, c, _)| *c == column)
}

/// What the spreadsheet format writes beside a row's own fields.
#[derive(Debug, Default)]
pub(crate) struct RowFacts {
    /// The advertiser's timezone, in which the row's dates are written.
    pub(crate) tz: Option<TimezoneName>,
    /// (parent id field, the parent's name) for each parent whose name is known.
    pub(crate) names: Vec<(&'static str, String)>,
}

/// Whether a cell of `column` reads as the type the field holds now: a field holding
/// something else (text where a date belongs) is read as the wire format reads it.
fn fits(col: Column, now: Option<&Value>) -> bool {
    match now {
        None | Some(Value::Null) => true,
        Some(Value::Number(_)) => matches!(col, Column::Date | Column::Money | Column::Words(_)),
        Some(Value::Array(_)) => matches!(col, Column::Texts | Column::Ids),
        Some(_) => false,
    }
}

/// The readable cell of `v` at `path`: `None` when the format has none for it, or when
/// reading it back would not give `v` exactly (then the wire's cell is written).
pub(crate) fn cell(kind: Kind, path: &str, v: &Value, tz: Option<&TimezoneName>) -> Option<String> {
    let col = column(kind, path)?;
    let text = match (col, v) {
        (Column::Date, Value::Number(n)) => {
            super::text_cell(&date_text(n.as_i64()?, tz)?).into_owned()
        }
        (Column::Money, Value::Number(_)) => money_text(v)?,
        (Column::Texts, Value::Array(items)) => super::text_cell(&texts_text(items)?).into_owned(),
        (Column::Ids, Value::Array(items)) => super::text_cell(&ids_text(items)?).into_owned(),
        (Column::Words(words), Value::Number(n)) => {
            let n = n.as_i64()?;
            words.iter().find(|(k, _)| *k == n)?.1.to_owned()
        }
        _ => return None,
    };
    let (t, marked) = super::text_of_cell(&text);
    match read(kind, path, t, marked, Some(v), tz) {
        Some(Ok(back)) if same(&back, v) => Some(text),
        _ => None,
    }
}

/// Whether a date cell names no offset, so reading it needs the advertiser's timezone.
pub(crate) fn needs_zone(kind: Kind, path: &str, cell: &str) -> bool {
    let text = super::text_of_cell(cell).0.trim();
    matches!(column(kind, path), Some(Column::Date)) && !text.is_empty() && instant(text).is_none()
}

/// The value a cell of a readable column asks for (`text` without its text mark;
/// `marked` when it had one): `None` when `column` is none of the format's, or the field
/// holds another type (the wire's reading applies), else the value or the cell's error.
pub(crate) fn read(
    kind: Kind,
    column_name: &str,
    text: &str,
    marked: bool,
    now: Option<&Value>,
    tz: Option<&TimezoneName>,
) -> Option<Result<Value, FieldError>> {
    let col = column(kind, column_name)?;
    if !fits(col, now) {
        return None;
    }
    let bad = |msg: String| FieldError::new(column_name, codes::INVALID, msg);
    let t = text.trim();
    Some(match col {
        Column::Date => read_date(t, tz, column_name.ends_with("endDate")).ok_or_else(|| {
            bad(format!(
                "“{t}” is not a date: write 2026-03-01T00:00:00-05:00, or 2026-03-01 09:30 \
                 or 2026-03-01 in the advertiser's timezone"
            ))
        }),
        Column::Money => read_money(t).ok_or_else(|| {
            bad(format!(
                "“{t}” is not an amount of dollars, such as 1250.00"
            ))
        }),
        Column::Texts if !marked && t.starts_with('[') => {
            serde_json::from_str(t).map_err(|_| bad(format!("“{t}” is not a list: write a; b; c")))
        }
        Column::Texts => Ok(Value::Array(
            items(t).map(|s| Value::String(s.to_owned())).collect(),
        )),
        Column::Ids if !marked && t.starts_with('[') => {
            serde_json::from_str(t).map_err(|_| bad(format!("“{t}” is not a list: write 1; 2; 3")))
        }
        Column::Ids => items(t)
            .map(|s| match serde_json::from_str::<Value>(s) {
                Ok(v @ Value::Number(_)) => Ok(v),
                _ => Err(bad(format!("“{s}” is not an id: write 1; 2; 3"))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        Column::Words(words) => match words.iter().find(|(_, w)| w.eq_ignore_ascii_case(t)) {
            Some((n, _)) => Ok(Value::from(*n)),
            None => match serde_json::from_str::<Value>(t) {
                Ok(v @ Value::Number(_)) => Ok(v),
                _ => Err(bad(format!(
                    "“{t}” is not one of {}",
                    words.iter().map(|(_, w)| *w).collect::<Vec<_>>().join(", ")
                ))),
            },
        },
    })
}

/// What a cell of the readable column `path` holds, for an error naming a bad cell.
pub(crate) fn expected(kind: Kind, path: &str) -> Option<String> {
    Some(match column(kind, path)? {
        Column::Date => "a date like 2026-03-01 or 2026-03-01T09:00-05:00".to_owned(),
        Column::Money => "an amount like 1250.00".to_owned(),
        Column::Texts => "a list like a; b; c".to_owned(),
        Column::Ids => "ids like 1; 2; 3".to_owned(),
        Column::Words(words) => format!(
            "one of {}",
            words.iter().map(|(_, w)| *w).collect::<Vec<_>>().join(", ")
        ),
    })
}

/// The items of `a; b; c`, trimmed, blanks left out.
fn items(text: &str) -> impl Iterator<Item = &str> {
    text.split(';').map(str::trim).filter(|s| !s.is_empty())
}

fn zone(tz: Option<&TimezoneName>) -> jiff::tz::TimeZone {
    tz.and_then(TimezoneName::iana)
        .and_then(|iana| jiff::tz::TimeZone::get(iana).ok())
        .unwrap_or(jiff::tz::TimeZone::UTC)
}

/// `ms` in the advertiser's timezone (UTC when unknown), with its offset; `None` past
/// what ISO 8601 writes (years beyond ±9999).
fn date_text(ms: i64, tz: Option<&TimezoneName>) -> Option<String> {
    let at = jiff::Timestamp::from_millisecond(ms)
        .ok()?
        .to_zoned(zone(tz));
    let format = if ms.rem_euclid(1000) == 0 {
        "%Y-%m-%dT%H:%M:%S%:z"
    } else {
        "%Y-%m-%dT%H:%M:%S%.3f%:z"
    };
    Some(at.strftime(format).to_string())
}

/// A cell naming an instant by itself: a date with its offset, or epoch milliseconds.
fn instant(text: &str) -> Option<Value> {
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Some(Value::from(ts.as_millisecond()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Number(_)) => Some(v),
        _ => None,
    }
}

/// A date cell's instant. A day alone starts at midnight, or for an end date ends at
/// 23:59, as the forms' day pickers and the service's examples end flights, so a flight
/// ending on a day and the next starting the day after leave no gap.
fn read_date(text: &str, tz: Option<&TimezoneName>, end: bool) -> Option<Value> {
    if let Some(v) = instant(text) {
        return Some(v);
    }
    let time = if end {
        jiff::civil::Time::constant(23, 59, 0, 0)
    } else {
        jiff::civil::Time::midnight()
    };
    // jiff reads a day alone as a date and time at midnight, and a date and time as a
    // day: a cell with no time part is the day.
    let civil = if text.contains([' ', 'T', 't']) {
        text.parse::<jiff::civil::DateTime>().ok()?
    } else {
        text.parse::<jiff::civil::Date>().ok()?.to_datetime(time)
    };
    let at = civil.to_zoned(zone(tz)).ok()?;
    Some(Value::from(at.timestamp().as_millisecond()))
}

/// Two decimals when they say the amount exactly, else every digit it has.
fn money_text(v: &Value) -> Option<String> {
    let f = v.as_f64()?;
    let two = format!("{f:.2}");
    if read_money(&two).is_some_and(|back| same(&back, v)) {
        Some(two)
    } else {
        Some(v.to_string())
    }
}

/// An amount: `1250`, `1250.00`, `$1,250.00`, `-$5`. A comma is only a thousands
/// separator (`1,5` is refused rather than read as 15).
fn read_money(text: &str) -> Option<Value> {
    let (minus, rest) = match text.strip_prefix('-') {
        Some(r) => ("-", r.trim_start()),
        None => ("", text),
    };
    let rest = rest.strip_prefix('$').unwrap_or(rest).trim_start();
    let digits = if rest.contains(',') {
        let whole = rest.split(['.', 'e', 'E']).next().unwrap_or("");
        let mut groups = whole.split(',');
        let first = groups.next().unwrap_or("");
        let ok = (1..=3).contains(&first.len())
            && groups.all(|g| g.len() == 3)
            && whole.chars().all(|c| c.is_ascii_digit() || c == ',');
        if !ok {
            return None;
        }
        rest.replace(',', "")
    } else {
        rest.to_owned()
    };
    match serde_json::from_str::<Value>(&format!("{minus}{digits}")) {
        Ok(v @ Value::Number(_)) => Some(v),
        _ => None,
    }
}

/// `a; b; c` when every item is text that reads back as itself: not blank, no `;`, no
/// spaces at its ends, and not starting the cell as JSON would.
fn texts_text(items: &[Value]) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        let s = item.as_str()?;
        if s.is_empty() || s.contains(';') || s.trim() != s || s.starts_with('[') {
            return None;
        }
        parts.push(s);
    }
    Some(parts.join("; "))
}

/// `1; 2; 3` when every item is a whole number.
fn ids_text(items: &[Value]) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::Number(n) if n.is_i64() || n.is_u64() => parts.push(n.to_string()),
            _ => return None,
        }
    }
    Some(parts.join("; "))
}
