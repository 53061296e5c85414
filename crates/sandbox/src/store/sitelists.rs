//! Site lists. They have no list endpoint in the spec, so only these four calls exist.

use flightdeck_model::validate::{self, SiteListOp};
use flightdeck_model::{
    Envelope, Message, SITE_LIST_TYPE_ID_BASED, SiteList, SiteListStrategy, SiteRule,
};
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::Value;

use super::typed;
use crate::error::{Error, Result};
use crate::extract;

/// `POST /v1/site-list/addNewSiteList`.
pub fn site_list_add(tx: &Transaction, account_id: i64, body: Value) -> Result<Envelope<Value>> {
    let list: SiteList = typed(&extract::object(body)?)?;
    validate::site_list(&list, SiteListOp::Add, None)?;
    let type_id = list.type_id.unwrap_or(SITE_LIST_TYPE_ID_BASED);
    let strategy = list.strategy.as_ref().map(SiteListStrategy::as_str);
    tx.execute(
        "INSERT INTO site_lists(account_id, name, type_id, strategy) VALUES (?1, ?2, ?3, ?4)",
        params![account_id, list.name, type_id, strategy],
    )?;
    let id = tx.last_insert_rowid();
    let inserted = insert_members(tx, id, &list)?;
    answer(tx, id, Some(inserted))
}

/// `POST /v1/site-list/appendToSiteList`: adds sites or rules; duplicates are not counted.
pub fn site_list_append(tx: &Transaction, account_id: i64, body: Value) -> Result<Envelope<Value>> {
    let (id, list) = existing(tx, account_id, body, SiteListOp::Append)?;
    let inserted = insert_members(tx, id, &list)?;
    answer(tx, id, Some(inserted))
}

/// `POST /v1/site-list/overwriteSiteList`: replaces every site or rule.
pub fn site_list_overwrite(
    tx: &Transaction,
    account_id: i64,
    body: Value,
) -> Result<Envelope<Value>> {
    let (id, list) = existing(tx, account_id, body, SiteListOp::Overwrite)?;
    tx.execute("DELETE FROM site_list_sites WHERE list_id = ?1", [id])?;
    tx.execute("DELETE FROM site_list_rules WHERE list_id = ?1", [id])?;
    let inserted = insert_members(tx, id, &list)?;
    answer(tx, id, Some(inserted))
}

/// `POST /v1/site-list/removeSites`: the answer carries only `id` and `name`, with an
/// `INFO` message saying how many sites went.
pub fn site_list_remove(tx: &Transaction, account_id: i64, body: Value) -> Result<Envelope<Value>> {
    let (id, list) = existing(tx, account_id, body, SiteListOp::Remove)?;
    let mut removed = 0;
    let mut stmt =
        tx.prepare_cached("DELETE FROM site_list_sites WHERE list_id = ?1 AND site_id = ?2")?;
    for site in list.site_ids.iter().flatten() {
        removed += stmt.execute(params![id, site])?;
    }
    let name: String = tx.query_row("SELECT name FROM site_lists WHERE id = ?1", [id], |r| {
        r.get(0)
    })?;
    let entity = SiteList {
        id: Some(id),
        name: Some(name.clone()),
        ..SiteList::default()
    };
    let plural = if removed == 1 { "" } else { "s" };
    Ok(Envelope {
        messages: vec![Message::info(
            "",
            format!("{removed} site{plural} removed from site list {name}"),
        )],
        entity: to_value(&entity)?,
    })
}

/// Parses and validates a call on an existing list; renames it to the `name` sent.
fn existing(
    tx: &Transaction,
    account_id: i64,
    body: Value,
    op: SiteListOp,
) -> Result<(i64, SiteList)> {
    let list: SiteList = typed(&extract::object(body)?)?;
    let stored_type = match list.id {
        Some(id) => Some(
            tx.query_row(
                "SELECT type_id FROM site_lists WHERE id = ?1 AND account_id = ?2",
                params![id, account_id],
                |r| r.get::<_, i64>(0),
            )
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("site list {id} not found")))?,
        ),
        None => None,
    };
    validate::site_list(&list, op, stored_type)?;
    let id = list.id.unwrap_or_default();
    tx.execute(
        "UPDATE site_lists SET name = ?1 WHERE id = ?2",
        params![list.name, id],
    )?;
    Ok((id, list))
}

/// Inserts the list's sites or rules, returning how many were new.
fn insert_members(tx: &Transaction, id: i64, list: &SiteList) -> Result<i64> {
    let mut inserted = 0;
    if let Some(sites) = &list.site_ids {
        let mut stmt = tx.prepare_cached(
            "INSERT OR IGNORE INTO site_list_sites(list_id, site_id) VALUES (?1, ?2)",
        )?;
        for site in sites {
            inserted += stmt.execute(params![id, site])?;
        }
    }
    if let Some(rules) = &list.rules {
        let mut stmt = tx.prepare_cached(
            "INSERT OR IGNORE INTO site_list_rules(list_id, name, type) VALUES (?1, ?2, ?3)",
        )?;
        for SiteRule { name, type_ } in rules {
            let kind = type_.as_ref().map(|t| t.as_str().to_owned());
            inserted += stmt.execute(params![id, name, kind])?;
        }
    }
    Ok(i64::try_from(inserted).unwrap_or(i64::MAX))
}

fn answer(tx: &Transaction, id: i64, inserted: Option<i64>) -> Result<Envelope<Value>> {
    let (name, type_id, strategy): (String, i64, Option<String>) = tx.query_row(
        "SELECT name, type_id, strategy FROM site_lists WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let strategy = strategy.and_then(|s| serde_json::from_value(Value::String(s)).ok());
    let entity = SiteList {
        id: Some(id),
        name: Some(name),
        type_id: Some(type_id),
        strategy,
        site_ids: None,
        rules: None,
        inserted_count: inserted,
    };
    Ok(Envelope::new(to_value(&entity)?))
}

fn to_value(list: &SiteList) -> Result<Value> {
    serde_json::to_value(list).map_err(Error::Json)
}
