//! Campaigns and their flights.

use flightdeck_model::validate::{self, Op, codes};
use flightdeck_model::{
    BudgetType, Campaign, CampaignFlight, Envelope, FlightStatus, Millis, PacingMode,
    ValidationErrors,
};
use rusqlite::{Transaction, params};
use serde_json::Value;

use super::{
    Object, Table, dedup, errs, exists, fill_null, ignored_on_update, in_catalogue, load_or_404,
    merge, request_id, typed, typed_at, untyped,
};
use crate::error::{Error, Result};
use crate::extract;

/// Members every campaign response carries (flights are attached on output).
const SHAPE: &[&str] = &[
    "id",
    "advertiserId",
    "name",
    "domain",
    "maxBudget",
    "dailyBudget",
    "dailyFrequencyCap",
    "frequencyCapDuration",
    "frequencyCapTimePeriod",
    "startDate",
    "endDate",
    "iabCategory",
    "markupRate",
    "lifetimeImpressionCap",
    "dailyImpressionCap",
    "lifetimeClickCap",
    "dailyClickCap",
    "ioNumber",
    "externalCampaignId",
    "minBidMultiplier",
    "maxBidMultiplier",
    "autoAdvertising",
    "pacingMode",
    "intradayFrontloadPct",
    "objective",
    "channelGroup",
];

/// Members every flight response carries.
const FLIGHT_SHAPE: &[&str] = &[
    "id",
    "status",
    "budgetType",
    "dailyBudget",
    "dailyFrontload",
    "maxBudget",
    "remainingBudget",
    "dailyImpCap",
    "lifetimeImpCap",
    "startDate",
    "endDate",
];

/// `POST /v1/campaign/save`, with or without flights.
pub fn campaign_save(
    tx: &Transaction,
    account_id: i64,
    body: Value,
    now: Millis,
) -> Result<Envelope<Value>> {
    let request = extract::object(body)?;
    let id = request_id(&request, "")?;
    let mut merged = match id {
        None => Object::new(),
        Some(id) => load_or_404(tx, Table::Campaigns, account_id, id)?,
    };
    // The advertiser of a campaign does not move, and hasFlights is read-only.
    // `flights` are merged on their own below.
    let response_only = ["id", "hasFlights", "flights"];
    let ignored = if id.is_some() {
        ignored_on_update(validate::CAMPAIGN_IGNORED_ON_UPDATE, &response_only)
    } else {
        response_only.to_vec()
    };
    // Client id: exclusive on input, both spellings equal on output. The stored pair is
    // set aside so that the request alone decides whether both were sent.
    let stored_client_id = merged.remove("externalCampaignId");
    merged.remove("ioNumber");
    // Fields an update ignores still have to be of their type: checked before the merge
    // drops them.
    typed::<Campaign>(&request)?;
    merge(&mut merged, &request, &ignored);
    let mut campaign: Campaign = typed(&merged)?;
    let (sent, others, mut catalogue) = request_flights(tx, id, &request)?;
    // The model refuses unknown values of these only on create (a listed campaign goes
    // back as it came); the service knows its catalogue for what it is sent.
    if request.contains_key("frequencyCapTimePeriod") {
        in_catalogue(
            &mut catalogue,
            "frequencyCapTimePeriod",
            campaign
                .frequency_cap_time_period
                .as_ref()
                .and_then(Option::as_ref),
        );
    }
    if request.contains_key("pacingMode") {
        in_catalogue(&mut catalogue, "pacingMode", campaign.pacing_mode.as_ref());
    }
    if request.contains_key("objective") {
        in_catalogue(&mut catalogue, "objective", campaign.objective.as_ref());
    }
    campaign.flights = (!sent.is_empty()).then(|| sent.clone());
    let any_flights = !sent.is_empty() || !others.is_empty();
    if any_flights {
        // Campaign-level values come from the flights when not given.
        derive_from_flights(&mut campaign, sent.iter().chain(others.iter()));
        campaign.flights = Some(sent.iter().chain(others.iter()).cloned().collect());
    }
    let op = if id.is_some() { Op::Update } else { Op::Create };
    let tz = match campaign.advertiser_id {
        Some(advertiser_id) => super::advertiser_timezone(tx, account_id, advertiser_id)?,
        None => None,
    };
    dedup(vec![
        errs(validate::campaign(
            &Campaign {
                flights: (!sent.is_empty()).then(|| sent.clone()),
                ..campaign.clone()
            },
            op,
            tz.as_ref(),
        )),
        errs(validate::flights(&sent, &others, None, tz.as_ref())),
        catalogue,
    ])?;
    let advertiser_id = campaign.advertiser_id.unwrap_or_default();
    if id.is_none() && !exists(tx, Table::Advertisers, account_id, advertiser_id)? {
        return Err(Error::field(
            "advertiserId",
            codes::BAD_REFERENCE,
            format!("advertiser {advertiser_id} not found"),
        ));
    }

    let sends_client_id =
        request.contains_key("ioNumber") || request.contains_key("externalCampaignId");
    let client_id = if sends_client_id {
        campaign
            .io_number
            .clone()
            .or_else(|| campaign.external_campaign_id.clone())
            .map(Value::String)
    } else {
        stored_client_id
    };
    campaign.flights = None;
    campaign.has_flights = Some(any_flights);
    campaign.auto_advertising.get_or_insert(false);
    campaign.pacing_mode.get_or_insert(PacingMode::SpendEvenly);
    campaign.intraday_frontload_pct.get_or_insert(0.0);
    campaign
        .channel_group
        .get_or_insert_with(|| "MOBILE_COMPUTER_CTV".to_owned());

    let campaign_id = match id {
        Some(id) => id,
        None => {
            tx.execute(
                "INSERT INTO campaigns(account_id, advertiser_id, body) VALUES (?1, ?2, '{}')",
                params![account_id, advertiser_id],
            )?;
            tx.last_insert_rowid()
        }
    };
    campaign.id = Some(campaign_id);
    let mut body = untyped(&campaign)?;
    body.remove("flights");
    let client_id = client_id.unwrap_or(Value::Null);
    body.insert("ioNumber".into(), client_id.clone());
    body.insert("externalCampaignId".into(), client_id);
    fill_null(&mut body, SHAPE);
    super::update_body(tx, Table::Campaigns, campaign_id, &body)?;
    for flight in sent {
        store_flight(tx, account_id, campaign_id, flight)?;
    }
    Ok(Envelope::new(Value::Object(with_flights(
        tx,
        campaign_id,
        body,
        now,
    )?)))
}

/// The flights a campaign request sends (updates merged over their stored flight) and the
/// campaign's stored flights it does not mention.
fn request_flights(tx: &Transaction, campaign_id: Option<i64>, request: &Object) -> Result<Merged> {
    let items = match request.get("flights") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => extract::array(v.clone())
            .map_err(|_| Error::Malformed("flights: expected an array".into()))?,
    };
    let stored = match campaign_id {
        Some(id) => stored_flights(tx, id)?,
        None => Vec::new(),
    };
    merge_flights(campaign_id, items, stored)
}

/// The flights sent (updates merged over their stored flight), the stored flights not
/// sent, and the catalogue errors of the values sent (see [`in_catalogue`]).
fn merge_flights(
    campaign_id: Option<i64>,
    items: Vec<Value>,
    stored: Vec<(i64, Object)>,
) -> Result<Merged> {
    let mut catalogue = ValidationErrors::default();
    let mut sent = Vec::with_capacity(items.len());
    let mut sent_ids = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let prefix = format!("flights[{i}]");
        let obj = extract::object(item)
            .map_err(|_| Error::Malformed(format!("{prefix}: expected an object")))?;
        let flight: CampaignFlight = match request_id(&obj, &format!("{prefix}."))? {
            None => {
                let mut f: CampaignFlight = typed_at(&obj, &prefix)?;
                f.status = None;
                f
            }
            Some(fid) => {
                let Some((_, base)) = stored.iter().find(|(id, _)| *id == fid) else {
                    let whose = campaign_id
                        .map(|c| format!("campaign {c}"))
                        .unwrap_or_else(|| "this campaign".into());
                    return Err(Error::field(
                        format!("{prefix}.id"),
                        codes::BAD_REFERENCE,
                        format!("flight {fid} is not a flight of {whose}"),
                    ));
                };
                let mut merged = base.clone();
                merge(&mut merged, &obj, &["status", "remainingBudget"]);
                typed_at(&merged, &prefix)?
            }
        };
        if obj.contains_key("budgetType") {
            in_catalogue(
                &mut catalogue,
                &format!("{prefix}.budgetType"),
                flight.budget_type.as_ref(),
            );
        }
        if let Some(id) = flight.id {
            sent_ids.push(id);
        }
        sent.push(flight);
    }
    let mut others = Vec::new();
    for (id, body) in stored {
        if !sent_ids.contains(&id) {
            others.push(typed(&body)?);
        }
    }
    Ok((sent, others, catalogue))
}

/// What [`merge_flights`] gives: flights sent, flights kept, catalogue errors.
type Merged = (Vec<CampaignFlight>, Vec<CampaignFlight>, ValidationErrors);

fn derive_from_flights<'a>(c: &mut Campaign, flights: impl Iterator<Item = &'a CampaignFlight>) {
    let flights: Vec<&CampaignFlight> = flights.collect();
    if c.max_budget.is_none() {
        let total: f64 = flights.iter().filter_map(|f| f.max_budget).sum();
        if flights.iter().any(|f| f.max_budget.is_some()) {
            c.max_budget = Some(total);
        }
    }
    if c.start_date.is_none() {
        c.start_date = flights.iter().filter_map(|f| f.start_date).min();
    }
    if c.end_date.is_none() {
        c.end_date = flights.iter().filter_map(|f| f.end_date).max();
    }
}

/// Stored flights of a campaign, oldest first.
fn stored_flights(tx: &Transaction, campaign_id: i64) -> Result<Vec<(i64, Object)>> {
    let mut stmt =
        tx.prepare_cached("SELECT id, body FROM flights WHERE campaign_id = ?1 ORDER BY id")?;
    let rows = stmt.query_map([campaign_id], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, body) = row?;
        out.push((id, super::parse_body(&body)?));
    }
    Ok(out)
}

/// Ids of a campaign's flights, for checking flight caps.
pub(crate) fn flight_ids(tx: &Transaction, campaign_id: i64) -> Result<Vec<i64>> {
    let mut stmt = tx.prepare_cached("SELECT id FROM flights WHERE campaign_id = ?1")?;
    let ids = stmt
        .query_map([campaign_id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

fn store_flight(
    tx: &Transaction,
    account_id: i64,
    campaign_id: i64,
    mut flight: CampaignFlight,
) -> Result<i64> {
    flight.status = None;
    flight.budget_type.get_or_insert(BudgetType::AutoBudget);
    flight.daily_frontload.get_or_insert(0.0);
    // Nothing is spent in the sandbox, so the whole budget remains.
    flight.remaining_budget = Some(flight.max_budget);
    let id = match flight.id {
        Some(id) => id,
        None => {
            tx.execute(
                "INSERT INTO flights(account_id, campaign_id, body) VALUES (?1, ?2, '{}')",
                params![account_id, campaign_id],
            )?;
            tx.last_insert_rowid()
        }
    };
    flight.id = Some(id);
    let mut body = untyped(&flight)?;
    body.remove("status");
    fill_null(&mut body, FLIGHT_SHAPE);
    super::update_body(tx, Table::Flights, id, &body)?;
    Ok(id)
}

/// A stored flight as the service returns it: with its status at `now`.
fn flight_out(mut body: Object, now: Millis) -> Object {
    let start = body.get("startDate").and_then(Value::as_i64);
    let end = body.get("endDate").and_then(Value::as_i64);
    let status = match (start, end) {
        (Some(s), Some(e)) => serde_json::to_value(FlightStatus::at(s, e, now)).ok(),
        _ => None,
    };
    body.insert("status".into(), status.unwrap_or(Value::Null));
    body
}

fn flights_out(tx: &Transaction, campaign_id: i64, now: Millis) -> Result<Vec<Value>> {
    Ok(stored_flights(tx, campaign_id)?
        .into_iter()
        .map(|(_, b)| Value::Object(flight_out(b, now)))
        .collect())
}

fn with_flights(
    tx: &Transaction,
    campaign_id: i64,
    mut body: Object,
    now: Millis,
) -> Result<Object> {
    let flights = flights_out(tx, campaign_id, now)?;
    body.insert("hasFlights".into(), Value::Bool(!flights.is_empty()));
    body.insert("flights".into(), Value::Array(flights));
    Ok(body)
}

/// `GET /v1/campaign/getCampaignsByAdvertiser?id=`: campaigns with their flights.
pub fn campaigns_by_advertiser(
    tx: &Transaction,
    account_id: i64,
    advertiser_id: i64,
    now: Millis,
) -> Result<Envelope<Value>> {
    if !exists(tx, Table::Advertisers, account_id, advertiser_id)? {
        return Err(super::not_found(Table::Advertisers, advertiser_id));
    }
    let mut stmt = tx.prepare_cached(
        "SELECT id, body FROM campaigns WHERE account_id = ?1 AND advertiser_id = ?2 ORDER BY id",
    )?;
    let rows = stmt
        .query_map(params![account_id, advertiser_id], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, body) in rows {
        out.push(Value::Object(with_flights(
            tx,
            id,
            super::parse_body(&body)?,
            now,
        )?));
    }
    Ok(Envelope::new(Value::Array(out)))
}

/// `POST /v1/campaignflight/byCampaign/{id}`: creates and updates flights, answers all
/// flights of the campaign.
pub fn flights_by_campaign(
    tx: &Transaction,
    account_id: i64,
    campaign_id: i64,
    body: Value,
    now: Millis,
) -> Result<Envelope<Value>> {
    let mut campaign = load_or_404(tx, Table::Campaigns, account_id, campaign_id)?;
    let items = extract::array(body)?;
    let stored = stored_flights(tx, campaign_id)?;
    let (sent, others, catalogue) = merge_flights(Some(campaign_id), items, stored)?;
    let tz = match campaign.get("advertiserId").and_then(Value::as_i64) {
        Some(advertiser_id) => super::advertiser_timezone(tx, account_id, advertiser_id)?,
        None => None,
    };
    dedup(vec![
        errs(validate::flights(&sent, &others, Some(now), tz.as_ref())),
        catalogue,
    ])?;
    for flight in sent {
        store_flight(tx, account_id, campaign_id, flight)?;
    }
    // The campaign's dates span its flights.
    let all: Vec<CampaignFlight> = stored_flights(tx, campaign_id)?
        .iter()
        .map(|(_, b)| typed(b))
        .collect::<Result<_>>()?;
    if let Some(start) = all.iter().filter_map(|f| f.start_date).min() {
        campaign.insert("startDate".into(), start.into());
    }
    if let Some(end) = all.iter().filter_map(|f| f.end_date).max() {
        campaign.insert("endDate".into(), end.into());
    }
    super::update_body(tx, Table::Campaigns, campaign_id, &campaign)?;
    Ok(Envelope::new(Value::Array(flights_out(
        tx,
        campaign_id,
        now,
    )?)))
}
