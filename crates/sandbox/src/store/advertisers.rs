//! Advertisers.

use flightdeck_model::validate::{self, Op, codes};
use flightdeck_model::{Advertiser, Envelope, TimezoneName};
use rusqlite::{Transaction, params};
use serde_json::Value;

use super::{
    Object, Table, account, fill_null, ignored_on_update, load_or_404, merge, request_id, typed,
    untyped,
};
use crate::error::{Error, Result};
use crate::extract;

/// Fields the spec says `save` ignores on update. `category` is not among them: the
/// spec's own update example reflects a changed category (see DECISIONS.md).
const RESPONSE_ONLY: &[&str] = &["id"];

/// Members every advertiser response carries.
const SHAPE: &[&str] = &[
    "id",
    "name",
    "agencyId",
    "currency",
    "category",
    "timezoneName",
    "externalAdvertiserId",
];

/// `POST /v1/advertiser/save`: creates when `id` is null or absent, else updates.
pub fn advertiser_save(
    tx: &Transaction,
    account_id: i64,
    body: Value,
    _now: i64,
) -> Result<Envelope<Value>> {
    let request = extract::object(body)?;
    let entity = match request_id(&request, "")? {
        None => create(tx, account_id, &request)?,
        Some(id) => update(tx, account_id, id, &request)?,
    };
    Ok(Envelope::new(Value::Object(entity)))
}

fn create(tx: &Transaction, account_id: i64, request: &Object) -> Result<Object> {
    let mut adv: Advertiser = typed(request)?;
    validate::advertiser(&adv, Op::Create)?;
    if adv.agency_id != Some(account_id) {
        return Err(Error::field(
            "agencyId",
            codes::BAD_REFERENCE,
            "is not the agency you are signed in to",
        ));
    }
    if adv.timezone_name.is_none() {
        let tz = account(tx, account_id)?.timezone;
        adv.timezone_name = serde_json::from_value::<TimezoneName>(Value::String(tz)).ok();
    }
    tx.execute(
        "INSERT INTO advertisers(account_id, external_id, body) VALUES (?1, ?2, '{}')",
        params![account_id, adv.external_advertiser_id],
    )?;
    adv.id = Some(tx.last_insert_rowid());
    store(tx, &adv)
}

fn update(tx: &Transaction, account_id: i64, id: i64, request: &Object) -> Result<Object> {
    let mut merged = load_or_404(tx, Table::Advertisers, account_id, id)?;
    // Fields an update ignores still have to be of their type (checked before the merge
    // drops them), and the required ones it may change cannot be cleared.
    typed::<Advertiser>(request)?;
    validate::cleared_on_update(validate::ADVERTISER_KEPT_ON_UPDATE, request)?;
    merge(
        &mut merged,
        request,
        &ignored_on_update(validate::ADVERTISER_IGNORED_ON_UPDATE, RESPONSE_ONLY),
    );
    let adv: Advertiser = typed(&merged)?;
    validate::advertiser(&adv, Op::Update)?;
    store(tx, &adv)
}

fn store(tx: &Transaction, adv: &Advertiser) -> Result<Object> {
    let mut body = untyped(adv)?;
    fill_null(&mut body, SHAPE);
    tx.execute(
        "UPDATE advertisers SET external_id = ?1, body = ?2 WHERE id = ?3",
        params![adv.external_advertiser_id, super::to_text(&body)?, adv.id],
    )?;
    Ok(body)
}

/// `GET /v1/advertiser` and `getAllAdvertisers`: the account's advertisers, optionally
/// only those with one `externalAdvertiserId`.
pub fn advertisers_list(
    tx: &Transaction,
    account_id: i64,
    external_id: Option<&str>,
) -> Result<Envelope<Value>> {
    let mut stmt = tx.prepare_cached(
        "SELECT body FROM advertisers
         WHERE account_id = ?1 AND (?2 IS NULL OR external_id = ?2)
         ORDER BY id",
    )?;
    let rows = stmt.query_map(params![account_id, external_id], |r| r.get::<_, String>(0))?;
    let mut out = Vec::new();
    for row in rows {
        out.push(Value::Object(super::parse_body(&row?)?));
    }
    Ok(Envelope::new(Value::Array(out)))
}
