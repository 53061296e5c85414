//! Ad-order status (`POST /v1/adorder/updateStatus`) as a pending change.
//!
//! The service's ad-order listings carry no status, so the workspace keeps two facts
//! apart from the ad order's JSON, and a download touches neither:
//! - the *known* status: what the service last answered a status change with
//!   (`ad_order_status`, written only when one is applied, see `outcome.rs`);
//! - the *pending* status: the latest status change of the ad order not applied yet
//!   (an [`Op::SetStatus`] row of the outbox, payload `{"status": <int>, "from": <int>}`:
//!   `from`, absent when unknown, is the status before the change, for a revert; only
//!   `status` is sent).
//!
//! Setting a status queues one such row per ad order; a second one before it is posted
//! replaces it, and one that puts back the known status removes it. A move the service
//! refuses ([`AdOrderStatus::refusal`]: out of Archived, into Completed) is refused when
//! made, with the model's message. Draft ad orders may get a status: it is posted after
//! their create (`plan.rs`). A posted status step cannot be undone; its revert
//! ([`Workspace::revert`]) queues the statuses from before it, where they are known.

use std::collections::HashMap;

use flightdeck_model::validate::codes;
use flightdeck_model::{AdOrderStatus, FieldError, ValidationErrors};
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::bulk::{Planned, Preview};
use super::edit::{Batch, COALESCE_INTO};
use super::{Workspace, canonical, key_from_text, key_text, parse_json};
use crate::change::{EntityRef, Key, Kind, Op};
use crate::{Error, Result};

/// What the workspace knows of an ad order's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct StatusView {
    /// As the service last answered a status change; `None`: never set through
    /// Flightdeck (the listings do not carry it).
    pub known: Option<AdOrderStatus>,
    /// Set by the buyer and not posted yet.
    pub pending: Option<AdOrderStatus>,
}

impl StatusView {
    /// The status the ad order has once its changes are posted: the pending one, else
    /// the known one.
    pub fn shown(self) -> Option<AdOrderStatus> {
        self.pending.or(self.known)
    }

    /// What a table's Status cell reads: the word of [`StatusView::shown`], or
    /// `unknown` (see [`STATUS_UNKNOWN_WHY`]).
    pub fn word(self) -> String {
        self.shown()
            .map_or_else(|| "unknown".to_owned(), status_word)
    }
}

/// A status a buyer sets: Launch, Pause, Archive, Make inactive. Completed is reached,
/// never set. Named by its word (`active`, `paused` …), as the CLI's `--set` and the
/// UI's actions name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum StatusChoice {
    /// Launch: serving.
    Active,
    /// Pause: stopped, may be resumed.
    Paused,
    /// Archive: put away for good.
    Archived,
    /// Make inactive: not serving.
    Inactive,
}

impl StatusChoice {
    /// Every choice, in the order hosts offer them.
    pub const ALL: [StatusChoice; 4] = [
        StatusChoice::Active,
        StatusChoice::Paused,
        StatusChoice::Archived,
        StatusChoice::Inactive,
    ];

    /// The choice a buyer typed ([`status_word`], any case); `None` for anything else.
    pub fn parse(text: &str) -> Option<StatusChoice> {
        let typed = text.trim();
        StatusChoice::ALL
            .into_iter()
            .find(|c| status_word((*c).into()).eq_ignore_ascii_case(typed))
    }
}

impl From<StatusChoice> for AdOrderStatus {
    fn from(choice: StatusChoice) -> AdOrderStatus {
        match choice {
            StatusChoice::Active => AdOrderStatus::Active,
            StatusChoice::Paused => AdOrderStatus::Paused,
            StatusChoice::Archived => AdOrderStatus::Archived,
            StatusChoice::Inactive => AdOrderStatus::Inactive,
        }
    }
}

/// Why an ad order's status may be unknown, for a table's tooltip.
pub const STATUS_UNKNOWN_WHY: &str = "The service's ad-order listings do not carry status; it is \
     known once set through Flightdeck.";

/// Why a revert leaves an ad order's status as it is: its status before the change was
/// never known.
pub const STATUS_BEFORE_UNKNOWN: &str = "its status before this change is not known (the service's \
     ad-order listings do not carry status, and it had not been set through Flightdeck), so the \
     revert cannot put it back and leaves it as it is";

/// The word a status is written as in files and on the command line (`active`,
/// `paused` …), the model's label in lower case.
pub fn status_word(status: AdOrderStatus) -> String {
    status.label().to_lowercase()
}

/// The status a buyer typed: a word of [`status_word`] in any case, or a wire code.
/// `None` for anything else.
pub fn parse_status_word(text: &str) -> Option<AdOrderStatus> {
    let typed = text.trim();
    if let Ok(code) = typed.parse::<i64>() {
        let status = AdOrderStatus::from_code(code);
        return status.is_known().then_some(status);
    }
    AdOrderStatus::KNOWN
        .iter()
        .copied()
        .find(|s| s.label().eq_ignore_ascii_case(typed))
}

/// The words a buyer may type, for messages.
pub fn status_words() -> String {
    AdOrderStatus::KNOWN
        .iter()
        .map(|s| status_word(*s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The undo step's name: "Pause 3 ad orders", "Launch ad order", "Make 2 ad orders
/// inactive".
pub fn status_label(status: AdOrderStatus, count: usize) -> String {
    let what = if count == 1 {
        Kind::AdOrder.label().to_owned()
    } else {
        format!("{count} {}", Kind::AdOrder.plural())
    };
    match status {
        AdOrderStatus::Active => format!("Launch {what}"),
        AdOrderStatus::Paused => format!("Pause {what}"),
        AdOrderStatus::Archived => format!("Archive {what}"),
        AdOrderStatus::Inactive => format!("Make {what} inactive"),
        other => format!("Set {what} to {}", status_word(other)),
    }
}

/// Why entities of `kind` have no status to set (only ad orders have one), or `None`
/// for ad orders. Hosts refuse a whole kind with it before reading any row.
pub fn no_status(kind: Kind) -> Option<String> {
    (kind != Kind::AdOrder).then(|| {
        format!(
            "only ad orders have a status to set (updateStatus); {} have none",
            kind.plural()
        )
    })
}

/// What setting one ad order's status did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StatusSet {
    /// The status shown before ([`StatusView::shown`]).
    pub(crate) before: Option<AdOrderStatus>,
    /// False when it already had that status: nothing was written.
    pub(crate) changed: bool,
}

fn refused(message: String) -> Error {
    Error::Refused(ValidationErrors(vec![FieldError::new(
        "status",
        codes::INVALID,
        message,
    )]))
}

fn status_of_payload(text: &str) -> Result<AdOrderStatus> {
    let payload: Value = parse_json(text)?;
    payload
        .get("status")
        .and_then(Value::as_i64)
        .map(AdOrderStatus::from_code)
        .ok_or_else(|| Error::Corrupt(format!("a status change without a status: {text}")))
}

/// A change a step made, as [`Workspace::payloads_of`] gives it for a revert.
pub(super) struct ChangeImages {
    /// Its entity, named as it was at the step (a draft by its local key).
    pub(super) target: EntityRef,
    /// Its payload before the step; `None`: the step queued it.
    pub(super) before: Option<String>,
    /// Its payload after the step; `None`: the step removed it.
    pub(super) after: Option<String>,
}

/// A status change's payload: the status to set, and `from`, the status the ad order
/// had before (absent when unknown), which only a revert reads: the request sends
/// `{id, status}` alone (`sync/remote.rs`).
fn status_payload(status: AdOrderStatus, from: Option<AdOrderStatus>) -> Result<String> {
    let mut payload = json!({ "status": status.code() });
    if let Some(from) = from {
        payload["from"] = Value::from(from.code());
    }
    canonical(&payload)
}

/// The `from` of a status change's payload ([`status_payload`]).
fn from_of_payload(text: &str) -> Result<Option<AdOrderStatus>> {
    let payload: Value = parse_json(text)?;
    Ok(payload
        .get("from")
        .and_then(Value::as_i64)
        .map(AdOrderStatus::from_code))
}

impl Batch<'_> {
    /// Sets an ad order's status (downloaded or draft): queues a status change, replaces
    /// the pending one, or removes it when `status` is the known status again. Nothing is
    /// written when the ad order already shows `status`. [`Error::Refused`], with nothing
    /// saved, for a move the service refuses ([`AdOrderStatus::refusal`], from the known
    /// status; from an unknown one only what no ad order may do, such as setting
    /// Completed).
    pub(crate) fn set_status(
        &mut self,
        target: &EntityRef,
        status: AdOrderStatus,
    ) -> Result<StatusSet> {
        if let Some(why) = no_status(target.kind) {
            return Err(Error::Invalid(why));
        }
        if !self.exists(target)? {
            return Err(Error::NotFound(format!(
                "ad order {} is not in the workspace",
                target.key
            )));
        }
        let key = key_text(&target.key);
        let known: Option<i64> = self
            .row(
                "SELECT status FROM ad_order_status WHERE key = ?1",
                [&key],
                |r| r.get(0),
            )
            .optional()?;
        let known = known.map(AdOrderStatus::from_code);
        // Only the latest: one being sent is settled first, and a new one queues.
        let latest: Option<(i64, String, String)> = self
            .row(
                "SELECT seq, payload, status FROM outbox WHERE kind = ?1 AND key = ?2 \
                 AND op = 'set_status' ORDER BY seq DESC LIMIT 1",
                params![Kind::AdOrder.name(), key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        // One being sent is what the service holds once it lands.
        let sending = latest
            .as_ref()
            .filter(|(_, _, s)| s != "applied" && !COALESCE_INTO.contains(&s.as_str()))
            .map(|(_, p, _)| status_of_payload(p))
            .transpose()?;
        let open = latest
            .filter(|(_, _, status)| COALESCE_INTO.contains(&status.as_str()))
            .map(|(seq, payload, _)| (seq, payload));
        let pending = open
            .as_ref()
            .map(|(_, p)| status_of_payload(p))
            .transpose()?;
        let before = pending.or(known);
        if before == Some(status) {
            return Ok(StatusSet {
                before,
                changed: false,
            });
        }
        // The service moves from what it holds, which a pending change replaces.
        let from = known.unwrap_or(AdOrderStatus::Inactive);
        if let Some(why) = from.refusal(status) {
            return Err(refused(why));
        }
        match open {
            Some((seq, _)) if known == Some(status) => {
                self.write("DELETE FROM outbox WHERE seq = ?1", vec![seq.into()])?;
            }
            Some((seq, payload)) => {
                // Coalesced: still from the status before the first of them.
                let first_from = from_of_payload(&payload)?;
                self.write(
                    "UPDATE outbox SET payload = ?2, status = 'pending', errors = '[]', \
                     messages = '[]', updated_at = ?3 WHERE seq = ?1",
                    vec![
                        seq.into(),
                        status_payload(status, first_from)?.into(),
                        super::kept::Arg::Now,
                    ],
                )?;
            }
            None => {
                self.insert_row(
                    target,
                    Op::SetStatus,
                    status_payload(status, sending.or(known))?,
                    &[],
                    None,
                    &[],
                )?;
            }
        }
        Ok(StatusSet {
            before,
            changed: true,
        })
    }
}

impl Workspace {
    /// Sets the status of every ad order of `targets` in one edit, one undo step named
    /// after it ([`status_label`]); with `apply` false, a preview of the same run rolled
    /// back. Rows refused (a move the service refuses, a row that is not an ad order)
    /// say why and leave the others to go ahead.
    pub fn set_status(
        &mut self,
        targets: &[EntityRef],
        status: AdOrderStatus,
        apply: bool,
    ) -> Result<Preview> {
        let plan = targets
            .iter()
            .map(|t| Planned::SetStatus {
                target: t.clone(),
                status,
                line: None,
            })
            .collect();
        self.run(plan, &status_label(status, targets.len()), apply)
    }

    /// What a revert of step `id` does to statuses: each ad order whose status change the
    /// step queued or edited goes back to the status it had before that change began
    /// (its `from`: the status before the first of coalesced changes, which is what the
    /// service held before they were posted), and one whose change the step removed gets
    /// it again. An ad order whose status before was unknown is refused with the reason:
    /// the revert cannot know what to put back, and does not guess.
    pub(crate) fn revert_statuses(&self, id: i64) -> Result<Vec<Planned>> {
        let mut plan = Vec::new();
        for change in self.payloads_of(id, super::op_text(Op::SetStatus))? {
            // A draft since posted is known by the service's key now.
            let target = match self.resolve_remote(&change.target)? {
                Some(key) => EntityRef::new(Kind::AdOrder, key),
                None => change.target,
            };
            let before = match (&change.after, &change.before) {
                (Some(after), _) => from_of_payload(after)?,
                (None, Some(before)) => Some(status_of_payload(before)?),
                (None, None) => continue,
            };
            plan.push(match before {
                Some(status) => Planned::SetStatus {
                    target,
                    status,
                    line: None,
                },
                None => Planned::Failed {
                    target: Some(target),
                    kind: Kind::AdOrder,
                    errors: vec![FieldError::new(
                        "status",
                        codes::INVALID,
                        STATUS_BEFORE_UNKNOWN,
                    )],
                    line: None,
                },
            });
        }
        Ok(plan)
    }

    /// What the workspace knows of one ad order's status. A table window asks this for
    /// each of its rows, so the statements are kept prepared.
    pub fn ad_order_status(&self, target: &EntityRef) -> Result<StatusView> {
        let key = key_text(&target.key);
        let known: Option<i64> = self
            .conn
            .prepare_cached("SELECT status FROM ad_order_status WHERE key = ?1")?
            .query_row([&key], |r| r.get(0))
            .optional()?;
        let pending: Option<String> = self
            .conn
            .prepare_cached(
                "SELECT payload FROM outbox WHERE kind = ?1 AND key = ?2 AND op = 'set_status' \
                 AND status <> 'applied' ORDER BY seq DESC LIMIT 1",
            )?
            .query_row(params![Kind::AdOrder.name(), key], |r| r.get(0))
            .optional()?;
        Ok(StatusView {
            known: known.map(AdOrderStatus::from_code),
            pending: pending.as_deref().map(status_of_payload).transpose()?,
        })
    }

    /// [`Workspace::ad_order_status`] of every ad order with a known or pending status;
    /// those absent have neither. One pass over each table, for the ad-order table.
    pub fn ad_order_statuses(&self) -> Result<HashMap<Key, StatusView>> {
        let mut out: HashMap<Key, StatusView> = HashMap::new();
        let mut stmt = self
            .conn
            .prepare("SELECT key, status FROM ad_order_status")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let key: String = r.get(0)?;
            let code: i64 = r.get(1)?;
            out.entry(key_from_text(&key)?).or_default().known =
                Some(AdOrderStatus::from_code(code));
        }
        let mut stmt = self.conn.prepare(
            "SELECT key, payload FROM outbox WHERE kind = ?1 AND op = 'set_status' \
             AND status <> 'applied' ORDER BY seq",
        )?;
        let mut rows = stmt.query([Kind::AdOrder.name()])?;
        while let Some(r) = rows.next()? {
            let key: String = r.get(0)?;
            let payload: String = r.get(1)?;
            out.entry(key_from_text(&key)?).or_default().pending =
                Some(status_of_payload(&payload)?);
        }
        Ok(out)
    }
}

/// A status change as a diff: from the known status (absent when unknown) to the one
/// in `payload`, in words.
pub(super) fn status_diff(
    ws: &Workspace,
    target: &EntityRef,
    payload: &Value,
) -> Result<Vec<crate::diff::FieldDiff>> {
    let to = status_of_payload(&payload.to_string())?;
    let known = ws.ad_order_status(target)?.known;
    Ok(vec![crate::diff::FieldDiff::new(
        "status",
        known.map(|s| Value::from(status_word(s))),
        Some(Value::from(status_word(to))),
    )])
}

/// Records the status the service answered for an applied status change of ad order
/// `key` (key text), inside the caller's transaction.
pub(super) fn record_known(
    tx: &rusqlite::Transaction<'_>,
    key: &str,
    status: AdOrderStatus,
    now: i64,
) -> Result<()> {
    tx.execute(
        "INSERT OR REPLACE INTO ad_order_status (key, status, updated_at) VALUES (?1, ?2, ?3)",
        params![key, status.code(), now],
    )?;
    Ok(())
}

/// The status an applied status change set: the answer's, else the one sent.
pub(super) fn answered_status(answer: &Value, payload: &str) -> Result<AdOrderStatus> {
    match answer.get("status").and_then(Value::as_i64) {
        Some(code) => Ok(AdOrderStatus::from_code(code)),
        None => status_of_payload(payload),
    }
}
