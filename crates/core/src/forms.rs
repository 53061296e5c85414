//! What forms need beyond the entity itself: live validation (the save path, rolled
//! back), the flights a cap can be for, a campaign's flight timeline, reading identifiers
//! from a file, and a segment's uploads.

use flightdeck_model::{
    AudienceDataResult, CampaignFlight, FieldError, FlightCap, Id, Millis, TimezoneName, validate,
};
use flightdeck_offline::audience_file;
use flightdeck_offline::change::{ChangeStatus, EntityRef, Key, Kind};
use flightdeck_offline::workspace::{Draft, Workspace};
use serde::{Deserialize, Serialize};

use crate::{Account, Result};

/// A flight a cap can be for.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CapFlight {
    /// How a cap names it: `Kind::Flight` with its id, or a new flight of the campaign
    /// (posted with it in the same push, the cap after it).
    pub flight: EntityRef,
    /// The service's id; `None` for a new flight.
    pub id: Option<Id>,
    /// `startDate`.
    pub start_date: Option<Millis>,
    /// `endDate`.
    pub end_date: Option<Millis>,
    /// How the form names it, dates in the advertiser's timezone: `#12: 1 Mar 2027 – 31
    /// Mar 2027`, or `new flight starting 1 Apr 2027`.
    pub label: String,
}

/// What the flight-caps form of an ad order offers and holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CapChoices {
    /// The ad order's campaign, when the workspace knows it.
    pub campaign: Option<EntityRef>,
    /// Every flight of that campaign, posted or new, in the campaign's order.
    pub flights: Vec<CapFlight>,
    /// The flight each stored cap is for, by position in the caps `list_flight_caps`
    /// answers: a cap on a new flight has no `flightId` yet.
    pub caps: Vec<Option<EntityRef>>,
}

/// The campaign an ad order belongs to: its parent in the workspace (a draft campaign
/// included), else the one its `campaignId` names.
fn campaign_of(ws: &Workspace, order: &EntityRef) -> Result<Option<EntityRef>> {
    if order.kind != Kind::AdOrder {
        return Ok(None);
    }
    let Some(entity) = ws.get(order)? else {
        return Ok(None);
    };
    if let Some(parent) = entity.parent.filter(|p| p.kind == Kind::Campaign) {
        return Ok(Some(parent));
    }
    Ok(entity
        .working
        .get("campaignId")
        .and_then(|v| v.as_i64())
        .map(|id| EntityRef::new(Kind::Campaign, Key::Id(id))))
}

/// The flights of `campaign` a cap can name, labelled with dates in `tz`.
fn cap_flights(
    ws: &Workspace,
    campaign: &EntityRef,
    tz: Option<&TimezoneName>,
) -> Result<Vec<CapFlight>> {
    let date = |ms: Option<Millis>| {
        ms.map(|ms| validate::format_millis_in(ms, tz))
            .unwrap_or_else(|| "?".to_owned())
    };
    Ok(ws
        .flights_of(campaign)?
        .into_iter()
        .map(|(flight, f)| {
            let label = match f.id {
                Some(id) => format!("#{id}: {} – {}", date(f.start_date), date(f.end_date)),
                None => format!("new flight starting {}", date(f.start_date)),
            };
            CapFlight {
                flight,
                id: f.id,
                start_date: f.start_date,
                end_date: f.end_date,
                label,
            }
        })
        .collect())
}

/// Identifiers read from a file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct IdentifierFile {
    /// The identifiers, in file order, without blanks and exact duplicates.
    pub values: Vec<String>,
    /// The header's columns when the file is a CSV with several, for the buyer to pick
    /// one; empty for a plain list.
    pub columns: Vec<String>,
    /// The column asked for; `None` when the file's own header decided.
    pub column: Option<String>,
    /// Why no identifiers could be read (no column looks like identifiers, a malformed
    /// line); `columns` still lists the header so the buyer can pick one.
    pub problem: Option<String>,
}

/// One upload of a segment and where it stands.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct UploadView {
    /// Outbox order.
    pub seq: i64,
    /// Waiting, sent, applied, failed...
    pub status: ChangeStatus,
    /// Identifiers in the upload.
    pub values: u32,
    /// Their country.
    pub country_code: String,
    /// The service's answer (published, failed and bad-record counts) once it came.
    pub result: Option<AudienceDataResult>,
    /// Why it failed or waits, when it did.
    pub message: Option<String>,
}

/// Reads identifiers from a file's text: one per line, or one column of a CSV
/// (`column` names it; without it the header decides). A file the buyer must pick a
/// column of answers its columns and the problem rather than an error.
pub fn read_identifiers(text: String, column: Option<String>) -> Result<IdentifierFile> {
    let columns = audience_file::columns(&text)?;
    let (values, problem) = match audience_file::identifiers(&text, column.as_deref()) {
        Ok(values) => (values, None),
        Err(flightdeck_offline::Error::Invalid(why)) => (Vec::new(), Some(why)),
        Err(other) => return Err(other.into()),
    };
    Ok(IdentifierFile {
        values,
        columns: if columns.len() > 1 {
            columns
        } else {
            Vec::new()
        },
        column,
        problem,
    })
}

/// One flight on the timeline.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct TimelineBar {
    /// Index in `flights`.
    pub index: u32,
    /// Start (Unix ms), if set.
    pub start: Option<Millis>,
    /// End (Unix ms), if set.
    pub end: Option<Millis>,
    /// The flight's name or position.
    pub label: String,
}

/// Two flights that overlap.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TimelineOverlap {
    /// One flight's index.
    pub a: u32,
    /// The other's.
    pub b: u32,
}

/// A stretch no flight covers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct TimelineGap {
    /// The flight before the gap.
    pub after_index: u32,
    /// Gap start (Unix ms).
    pub from: Millis,
    /// Gap end (Unix ms).
    pub to: Millis,
}

/// What the flights editor draws.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Timeline {
    /// One bar per flight.
    pub bars: Vec<TimelineBar>,
    /// Overlapping pairs (by the same rule that rejects them).
    pub overlaps: Vec<TimelineOverlap>,
    /// Gaps between flights.
    pub gaps: Vec<TimelineGap>,
    /// The flights' broken rules (paths `flights[i]...`).
    pub errors: Vec<FieldError>,
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Lays out a campaign's flights for the timeline, with overlaps, gaps and errors (by the
/// rules that reject them); dates in the errors read in `timezone`, the advertiser's (UTC
/// when `None`).
pub fn flight_timeline(flights: &[CampaignFlight], timezone: Option<&TimezoneName>) -> Timeline {
    let layout = validate::flight_layout(flights);
    let errors = validate::flights(flights, &[], None, timezone)
        .err()
        .map(|e| e.0)
        .unwrap_or_default();
    Timeline {
        bars: flights
            .iter()
            .enumerate()
            .map(|(i, f)| TimelineBar {
                index: index(i),
                start: f.start_date,
                end: f.end_date,
                label: match f.id {
                    Some(id) => format!("Flight {} (id {id})", i + 1),
                    None => format!("Flight {}", i + 1),
                },
            })
            .collect(),
        overlaps: layout
            .overlaps
            .into_iter()
            .map(|(a, b)| TimelineOverlap {
                a: index(a),
                b: index(b),
            })
            .collect(),
        gaps: layout
            .gaps
            .into_iter()
            .map(|g| TimelineGap {
                after_index: index(g.after_index),
                from: g.from,
                to: g.to,
            })
            .collect(),
        errors,
    }
}

impl Account {
    /// Broken rules of a form's content, exactly as [`Account::save`] would record or
    /// refuse them, with the same arguments; nothing is saved.
    pub fn validate(
        &self,
        target: Option<&EntityRef>,
        parent: Option<&EntityRef>,
        draft: &Draft,
    ) -> Result<Vec<FieldError>> {
        Ok(self.workspace()?.validate_draft(target, parent, draft)?)
    }

    /// The flights of an ad order's campaign a cap can be for, new ones included, and
    /// the flight each of the order's stored caps is for.
    pub fn flight_cap_choices(&self, ad_order: &EntityRef) -> Result<CapChoices> {
        let ws = self.workspace()?;
        let ad_order = ad_order.clone();
        let campaign = campaign_of(&ws, &ad_order)?;
        let flights = match &campaign {
            Some(c) if ws.get(c)?.is_some() => {
                let tz = ws.timezone_of(c)?;
                cap_flights(&ws, c, tz.as_ref())?
            }
            _ => Vec::new(),
        };
        let target = EntityRef::new(Kind::FlightCaps, ad_order.key.clone());
        let stored: Vec<FlightCap> = match ws.get(&target)? {
            Some(e) => serde_json::from_value(e.working).map_err(|e| {
                flightdeck_offline::Error::Corrupt(format!("stored flight caps: {e}"))
            })?,
            None => Vec::new(),
        };
        // A cap on a new flight names it by the reference its pending change fills in.
        let waiting = ws
            .latest_change(&target)?
            .map(|c| c.parents)
            .unwrap_or_default();
        let caps = stored
            .iter()
            .enumerate()
            .map(|(i, cap)| {
                let pointer = format!("/{i}/flightId");
                waiting
                    .iter()
                    .find(|p| p.pointer == pointer && p.target.kind == Kind::Flight)
                    .map(|p| p.target.clone())
                    .or_else(|| {
                        cap.flight_id
                            .map(|id| EntityRef::new(Kind::Flight, Key::Id(id)))
                    })
            })
            .collect();
        Ok(CapChoices {
            campaign,
            flights,
            caps,
        })
    }

    /// The uploads of a segment, oldest first, with their counts.
    pub fn audience_uploads(&self, segment: &EntityRef) -> Result<Vec<UploadView>> {
        let ws = self.workspace()?;
        Ok(ws
            .audience_uploads(segment)?
            .into_iter()
            .map(|u| UploadView {
                seq: u.seq,
                status: u.status,
                values: u32::try_from(u.values).unwrap_or(u32::MAX),
                country_code: u.country_code,
                result: u.result,
                message: u.message,
            })
            .collect())
    }
}
