//! The SQLite workspace of one profile: the downloaded snapshot with a base version per
//! entity, drafts, the outbox of pending changes and the local → remote id map.
//!
//! # Durability
//!
//! The file runs in WAL mode with `synchronous=FULL`, so every committed transaction is
//! on disk when the call returns: an edit the buyer saw saved survives a power cut. Bulk
//! work (a download, a [`Batch`] of edits) is one transaction, so it pays one sync, not
//! one per row.
//!
//! # Shape
//!
//! * `entities`: per entity, the server JSON it was downloaded as (`remote_json`, the
//!   base) with the sha256 of its canonical text (`base_hash`), the working copy the buyer
//!   edits, and a newer server version held back while edits are pending (`server_json`).
//! * `outbox`: pending changes. Creates and updates coalesce into one row per entity
//!   (payload = whole working entity); site-list and audience-data operations are separate
//!   ordered rows. See [`crate::change`]. A change in conflict keeps base, mine and
//!   theirs per field in `conflicts` ([`Workspace::conflicts`]), and the entity keeps the
//!   server version it collided with as `server_json`, so [`Workspace::resolve_conflict`]
//!   can rebase the change onto it. [`Workspace::markers`] reads the outbox per kind for
//!   the list views.
//!   An applied or refused audience upload keeps the service's answer in `result`
//!   ([`Workspace::audience_uploads`]).
//! * `id_map`: drafts that landed, and new flights mapped to the ids the service gave
//!   them when their campaign landed.
//!
//! # Edits the service would not apply
//!
//! They are refused when made, with [`crate::Error::Refused`] and nothing saved: fields
//! the service ignores on update (`flightdeck_model::validate::*_IGNORED_ON_UPDATE`), and
//! any edit of a posted creative or audience segment (no update endpoint;
//! [`read_only_reason`]). [`Workspace::duplicate_as_new`] is the way to change those.

mod bulk;
mod bulk_plan;
mod draft;
mod edit;
mod history;
mod kept;
mod markers;
mod money_review;
mod outbox;
mod outcome;
mod pull;
mod pull_creatives;
mod resolve;
mod scan;
mod sheet_io;
mod status;
mod upkeep;
mod uploads;
mod validate;
pub use validate::{PENDING_PARENT_ID, PENDING_SEGMENT_ID, flight_caps_on_new_flights};

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};
use rusqlite_migration::{M, Migrations};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The wall clock's one home is the client crate; the workspace's modules take it from
/// here.
pub(crate) use flightdeck_client::now_ms;
use flightdeck_model::validate::limits::READABLE_NESTING_MAX;
use flightdeck_model::{Campaign, CampaignFlight, TimezoneName};

use crate::change::{ChangeStatus, EntityRef, Key, Kind, Op};
use crate::{Error, Result};

pub use bulk::{Planned, Preview, ReadCopy, RowOutcome, RowPreview};
pub use draft::{Draft, SiteListEdit, UploadRequest, upload_form_paths};
pub use edit::{Batch, read_only_reason};
pub use history::{HistoryStep, Undone};
pub(crate) use kept::Asked;
pub use markers::Marker;
pub use outbox::{ChangeMessage, PendingRef};
pub use outcome::Review;
pub use pull::{
    KindCounts, Progress, PullOptions, PullReport, PullScope, ServerChange, ServerChangeKind,
};
pub use pull_creatives::{PullNotice, creative_from_listing};
pub use resolve::Pick;
pub use scan::Scanned;
pub use status::{
    STATUS_BEFORE_UNKNOWN, STATUS_UNKNOWN_WHY, StatusChoice, StatusView, no_status,
    parse_status_word, status_label, status_word, status_words,
};
pub use uploads::AudienceUpload;

fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../../migrations/0001_workspace.sql")),
        M::up(include_str!(
            "../../migrations/0002_outbox_parents_index.sql"
        )),
        M::up(include_str!("../../migrations/0003_outbox_conflicts.sql")),
        M::up(include_str!(
            "../../migrations/0004_audience_upload_records.sql"
        )),
        M::up(include_str!("../../migrations/0005_history.sql")),
        M::up(include_str!("../../migrations/0006_history_rows.sql")),
        M::up(include_str!("../../migrations/0007_outbox_sent_at.sql")),
        M::up(include_str!(
            "../../migrations/0008_purge_applied_uploads.sql"
        )),
        M::up(include_str!("../../migrations/0009_ad_order_creatives.sql")),
        M::up(include_str!("../../migrations/0010_ad_order_status.sql")),
        M::up(include_str!("../../migrations/0011_change_stamp.sql")),
    ])
}

/// Sets `secure_delete` on a connection that writes the workspace. Audience uploads hold
/// personal identifiers until the service has them; then they are purged, and SQLite
/// would otherwise leave the old text in freed pages and cells of the file. Measured on
/// the bulk bench, it costs the zeroing of what a step frees (see the issue notes).
pub(super) fn secure(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "secure_delete", "ON")
}

/// An entity decoded into its wire type, as [`Workspace::list_as`] returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed<T> {
    /// Which entity.
    pub target: EntityRef,
    /// Its owner, when known.
    pub parent: Option<EntityRef>,
    /// The working copy (pending edits applied).
    pub value: T,
    /// True when a change to it is not applied yet.
    pub pending: bool,
}

/// One profile's workspace file.
pub struct Workspace {
    conn: Connection,
    /// Declared after `conn`, so the connection closes before the thread's last
    /// checkpoint.
    upkeep: Option<upkeep::Upkeep>,
    /// The latest bulk preview, for its apply to replay.
    kept: Option<kept::Kept>,
}

/// An entity as the workspace holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Entity {
    /// Which entity.
    pub target: EntityRef,
    /// What the buyer sees: the base with pending edits applied.
    pub working: Value,
    /// The server version edits started from (`None` for drafts).
    pub base: Option<Value>,
    /// A newer server version a refresh held back because of pending changes.
    pub theirs: Option<Value>,
    /// A refresh no longer found it on the server while it had pending changes.
    pub removed_on_server: bool,
    /// The owning entity (advertiser, campaign, ad order), when known.
    pub parent: Option<EntityRef>,
    /// True when a change to it is not applied yet.
    pub pending: bool,
}

impl Workspace {
    /// Opens (or creates) the workspace file at `path` and brings its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<Workspace> {
        let path = path.as_ref();
        match Workspace::open_file(path) {
            Err(Error::Db(e)) if is_damaged(&e) => Err(move_aside(path, e)),
            other => other,
        }
    }

    fn open_file(path: &Path) -> Result<Workspace> {
        let mut conn = Connection::open(path)?;
        private_file(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // FULL: a returned edit is durable (see the module notes).
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // A bulk step over 10,000 rows dirties tens of megabytes of pages; with SQLite's
        // default 2 MB cache they spill to the WAL mid-transaction and are written again
        // at commit. Pages are only allocated as a transaction needs them.
        conn.pragma_update(None, "cache_size", -64 * 1024)?;
        // Deleted and rewritten rows are overwritten, not only unlinked: a purged audience
        // upload's identifiers must not stay readable in freed pages (see `secure`).
        secure(&conn)?;
        migrations().to_latest(&mut conn).map_err(Error::Upgrade)?;
        // Every transaction takes the write lock when it begins and waits for it through
        // the busy timeout: the upkeep connection writes too (purging dropped undo steps),
        // and a deferred transaction that read first could not wait for it (SQLite
        // answers BUSY at once). A bulk apply also relies on it: what it checks at the
        // start of its transaction no other connection can change before it writes.
        conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
        let wal = conn.query_row("PRAGMA journal_mode", [], |r| r.get::<_, String>(0))?;
        let upkeep = if wal.eq_ignore_ascii_case("wal") {
            conn.pragma_update(None, "wal_autocheckpoint", upkeep::BACKSTOP_PAGES)?;
            // The log file shrinks back after a large step is copied out.
            conn.pragma_update(None, "journal_size_limit", 64 * 1024 * 1024)?;
            conn.path().map(Path::new).and_then(upkeep::Upkeep::start)
        } else {
            None
        };
        Ok(Workspace {
            conn,
            upkeep,
            kept: None,
        })
    }

    /// One entity, or `None` when the workspace does not hold it.
    pub fn get(&self, target: &EntityRef) -> Result<Option<Entity>> {
        let row = self
            .conn
            .query_row(
                &format!("{ENTITY_SELECT} WHERE e.kind = ?1 AND e.key = ?2"),
                params![target.kind.name(), key_text(&target.key)],
                raw_entity,
            )
            .optional()?;
        row.map(RawEntity::into_entity).transpose()
    }

    /// Every entity of a kind, drafts included, in key order.
    pub fn list(&self, kind: Kind) -> Result<Vec<Entity>> {
        let mut stmt = self
            .conn
            .prepare(&format!("{ENTITY_SELECT} WHERE e.kind = ?1 ORDER BY e.key"))?;
        let rows = stmt.query_map(params![kind.name()], raw_entity)?;
        let mut out = Vec::new();
        for row in rows {
            out.push(row?.into_entity()?);
        }
        Ok(out)
    }

    /// Every entity of a kind (or one parent's), decoded straight into its wire type:
    /// the working copy only, without the base and server versions [`Workspace::list`]
    /// also parses. What tables read, so 100,000 rows cost one pass of decoding.
    pub fn list_as<T: DeserializeOwned>(
        &self,
        kind: Kind,
        parent: Option<&EntityRef>,
    ) -> Result<Vec<Listed<T>>> {
        let sql = "SELECT e.key, COALESCE(e.working_json, e.remote_json), e.parent_kind, e.parent_key, \
             EXISTS(SELECT 1 FROM outbox o WHERE o.kind = e.kind AND o.key = e.key AND o.status <> 'applied') \
             FROM entities e WHERE e.kind = ?1 \
             AND (?2 IS NULL OR (e.parent_kind = ?2 AND e.parent_key = ?3)) ORDER BY e.key";
        let mut stmt = self.conn.prepare(sql)?;
        let (parent_kind, parent_key) = match parent {
            Some(p) => (Some(p.kind.name()), Some(key_text(&p.key))),
            None => (None, None),
        };
        let mut rows = stmt.query(params![kind.name(), parent_kind, parent_key])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let key: String = r.get(0)?;
            let text: String = r.get(1)?;
            let pk: Option<String> = r.get(2)?;
            let pkey: Option<String> = r.get(3)?;
            let value = serde_json::from_str(&text).map_err(|e| {
                Error::Corrupt(format!("{kind:?} {key} does not fit its resource: {e}"))
            })?;
            out.push(Listed {
                target: EntityRef::new(kind, key_from_text(&key)?),
                parent: match (pk, pkey) {
                    (Some(k), Some(key)) => {
                        Some(EntityRef::new(kind_from_text(&k)?, key_from_text(&key)?))
                    }
                    _ => None,
                },
                value,
                pending: r.get(4)?,
            });
        }
        Ok(out)
    }

    /// How many entities of a kind the workspace holds, drafts included.
    pub fn count(&self, kind: Kind) -> Result<usize> {
        let n: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM entities WHERE kind = ?1",
            params![kind.name()],
            |r| r.get(0),
        )?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// The remote key of an entity: its own key when it came from the server, the
    /// service's key once a draft landed, `None` while it is still a draft.
    pub fn resolve_remote(&self, target: &EntityRef) -> Result<Option<Key>> {
        if !target.key.is_local() {
            return Ok(Some(target.key.clone()));
        }
        let remote: Option<String> = self
            .conn
            .query_row(
                "SELECT remote FROM id_map WHERE kind = ?1 AND local = ?2",
                params![target.kind.name(), key_text(&target.key)],
                |r| r.get(0),
            )
            .optional()?;
        remote.as_deref().map(key_from_text).transpose()
    }

    /// The newest server version known: the one a refresh held back ("theirs") when there
    /// is one, else the base. `None` for drafts.
    pub fn server_version(&self, target: &EntityRef) -> Result<Option<Value>> {
        let text: Option<Option<String>> = self
            .conn
            .query_row(
                "SELECT COALESCE(server_json, remote_json) FROM entities WHERE kind = ?1 AND key = ?2",
                params![target.kind.name(), key_text(&target.key)],
                |r| r.get(0),
            )
            .optional()?;
        text.flatten().as_deref().map(parse_json).transpose()
    }

    /// The flights of a campaign's working copy, each with the reference a flight cap
    /// names it by: its id, or for a new flight (no id yet) an
    /// [`EntityRef::draft_flight`], which caps can name before the flight is posted.
    /// Empty when the campaign has no flights; `NotFound` when it is not in the workspace.
    pub fn flights_of(&self, campaign: &EntityRef) -> Result<Vec<(EntityRef, CampaignFlight)>> {
        let entity = self.get(campaign)?.ok_or_else(|| {
            Error::NotFound(format!("campaign {} is not in the workspace", campaign.key))
        })?;
        let c: Campaign = serde_json::from_value(entity.working)
            .map_err(|e| Error::Corrupt(format!("stored campaign: {e}")))?;
        Ok(c.flights
            .unwrap_or_default()
            .into_iter()
            .filter_map(|f| {
                let target = match (f.id, f.start_date) {
                    (Some(id), _) => EntityRef::new(Kind::Flight, Key::Id(id)),
                    (None, Some(start)) => EntityRef::draft_flight(campaign, start),
                    // Without a start date a new flight cannot be named (nor posted).
                    (None, None) => return None,
                };
                Some((target, f))
            })
            .collect())
    }

    /// The timezone of the advertiser an entity belongs to (itself, for an advertiser),
    /// found through its parents, drafts included; `None` when not known. Dates in
    /// validation messages read in it, as forms show them: pass it to
    /// `flightdeck_model::validate::{campaign, flights, ad_order}`.
    pub fn timezone_of(&self, target: &EntityRef) -> Result<Option<TimezoneName>> {
        validate::Timezones::default().of(&self.conn, target.kind, &target.key)
    }

    /// A value from the `meta` table (for example `last_pull_at`).
    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }
}

const ENTITY_SELECT: &str = "SELECT e.kind, e.key, COALESCE(e.working_json, e.remote_json), e.remote_json, e.server_json, \
     e.server_removed, e.parent_kind, e.parent_key, \
     EXISTS(SELECT 1 FROM outbox o WHERE o.kind = e.kind AND o.key = e.key AND o.status <> 'applied') \
     FROM entities e";

struct RawEntity {
    kind: String,
    key: String,
    working: String,
    remote: Option<String>,
    server: Option<String>,
    removed: bool,
    parent_kind: Option<String>,
    parent_key: Option<String>,
    pending: bool,
}

fn raw_entity(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawEntity> {
    Ok(RawEntity {
        kind: r.get(0)?,
        key: r.get(1)?,
        working: r.get(2)?,
        remote: r.get(3)?,
        server: r.get(4)?,
        removed: r.get(5)?,
        parent_kind: r.get(6)?,
        parent_key: r.get(7)?,
        pending: r.get(8)?,
    })
}

impl RawEntity {
    fn into_entity(self) -> Result<Entity> {
        let parent = match (self.parent_kind, self.parent_key) {
            (Some(k), Some(key)) => Some(EntityRef::new(kind_from_text(&k)?, key_from_text(&key)?)),
            _ => None,
        };
        Ok(Entity {
            target: EntityRef::new(kind_from_text(&self.kind)?, key_from_text(&self.key)?),
            working: parse_json(&self.working)?,
            base: self.remote.as_deref().map(parse_json).transpose()?,
            theirs: self.server.as_deref().map(parse_json).transpose()?,
            removed_on_server: self.removed,
            parent,
            pending: self.pending,
        })
    }
}

// ---- Text encodings of the shared vocabulary (stable: they are in the file) ----

pub(crate) fn kind_from_text(s: &str) -> Result<Kind> {
    Kind::from_name(s).ok_or_else(|| Error::Corrupt(format!("unknown entity kind {s:?}")))
}

pub(crate) fn key_text(key: &Key) -> String {
    match key {
        Key::Id(id) => format!("id:{id}"),
        Key::Segment(s) => format!("seg:{s}"),
        Key::Local(l) => format!("local:{l}"),
    }
}

pub(crate) fn key_from_text(s: &str) -> Result<Key> {
    if let Some(id) = s.strip_prefix("id:") {
        return id
            .parse()
            .map(Key::Id)
            .map_err(|_| Error::Corrupt(format!("bad entity key {s:?}")));
    }
    if let Some(seg) = s.strip_prefix("seg:") {
        return Ok(Key::Segment(seg.to_owned()));
    }
    if let Some(local) = s.strip_prefix("local:") {
        return Ok(Key::Local(local.to_owned()));
    }
    Err(Error::Corrupt(format!("bad entity key {s:?}")))
}

pub(crate) fn op_text(op: Op) -> &'static str {
    match op {
        Op::Create => "create",
        Op::Update => "update",
        Op::SiteListAppend => "site_list_append",
        Op::SiteListOverwrite => "site_list_overwrite",
        Op::SiteListRemoveSites => "site_list_remove_sites",
        Op::AudienceData => "audience_data",
        Op::SetStatus => "set_status",
    }
}

pub(crate) fn op_from_text(s: &str) -> Result<Op> {
    Ok(match s {
        "create" => Op::Create,
        "update" => Op::Update,
        "site_list_append" => Op::SiteListAppend,
        "site_list_overwrite" => Op::SiteListOverwrite,
        "site_list_remove_sites" => Op::SiteListRemoveSites,
        "audience_data" => Op::AudienceData,
        "set_status" => Op::SetStatus,
        other => {
            return Err(Error::Corrupt(format!(
                "unknown change operation {other:?}"
            )));
        }
    })
}

pub(crate) fn status_text(status: ChangeStatus) -> &'static str {
    match status {
        ChangeStatus::Pending => "pending",
        ChangeStatus::Invalid => "invalid",
        ChangeStatus::Sending => "sending",
        ChangeStatus::Applied => "applied",
        ChangeStatus::Failed => "failed",
        ChangeStatus::NeedsReview => "needs_review",
        ChangeStatus::Conflict => "conflict",
        ChangeStatus::Blocked => "blocked",
    }
}

pub(crate) fn status_from_text(s: &str) -> Result<ChangeStatus> {
    Ok(match s {
        "pending" => ChangeStatus::Pending,
        "invalid" => ChangeStatus::Invalid,
        "sending" => ChangeStatus::Sending,
        "applied" => ChangeStatus::Applied,
        "failed" => ChangeStatus::Failed,
        "needs_review" => ChangeStatus::NeedsReview,
        "conflict" => ChangeStatus::Conflict,
        "blocked" => ChangeStatus::Blocked,
        other => return Err(Error::Corrupt(format!("unknown change status {other:?}"))),
    })
}

pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::Corrupt(format!("stored JSON: {e}")))
}

/// JSON text of `value` to store, refused ([`Error::TooDeep`]) when it nests deeper than
/// serde_json reads back: stored, it would fail every read of its row.
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Readable::default());
    value.serialize(&mut ser).map_err(|e| {
        // Writing into a Vec fails only where `Readable` stops it.
        if e.is_io() {
            too_deep()
        } else {
            Error::Encode(e)
        }
    })?;
    utf8(out)
}

/// serde_json's compact output, failing at the first array or object deeper than
/// [`READABLE_NESTING_MAX`].
#[derive(Default)]
struct Readable {
    depth: usize,
}

impl Readable {
    fn open(&mut self) -> std::io::Result<()> {
        self.depth += 1;
        if self.depth > READABLE_NESTING_MAX {
            return Err(std::io::Error::other("nested too deep"));
        }
        Ok(())
    }
}

impl serde_json::ser::Formatter for Readable {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open()?;
        w.write_all(b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        w.write_all(b"]")
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open()?;
        w.write_all(b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        w.write_all(b"}")
    }
}

fn too_deep() -> Error {
    Error::TooDeep {
        limit: READABLE_NESTING_MAX,
    }
}

pub(crate) fn to_value<T: Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(Error::Encode)
}

/// JSON text with object keys sorted at every level, so equal entities hash equally
/// whatever order the service (or serde) wrote their members in. What entities and
/// changes are stored as, so it refuses ([`Error::TooDeep`]) a value nested deeper than
/// serde_json reads back: stored, it would fail every read of its row (and every push).
pub(crate) fn canonical(value: &Value) -> Result<String> {
    let mut out = Vec::with_capacity(512);
    write_canonical(value, &mut out, 0)?;
    utf8(out)
}

/// The text serde_json wrote, which is UTF-8 whenever serde_json works as documented.
fn utf8(out: Vec<u8>) -> Result<String> {
    String::from_utf8(out).map_err(|e| Error::Encode(serde::ser::Error::custom(e)))
}

/// Writes `value`, found inside `above` arrays and objects.
fn write_canonical(value: &Value, out: &mut Vec<u8>, above: usize) -> Result<()> {
    if matches!(value, Value::Object(_) | Value::Array(_)) && above >= READABLE_NESTING_MAX {
        return Err(too_deep());
    }
    match value {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                // Writing a string into a Vec cannot fail.
                let _ = serde_json::to_writer(&mut *out, k);
                out.push(b':');
                write_canonical(v, out, above + 1)?;
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(v, out, above + 1)?;
            }
            out.push(b']');
        }
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
    Ok(())
}

/// The base version: sha256 of the canonical text, in hex.
pub(crate) fn hash_text(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        hex.push(char::from_digit(u32::from(b & 15), 16).unwrap_or('0'));
    }
    hex
}

/// Whether SQLite refused the file itself: not a database, or its pages damaged.
fn is_damaged(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

/// Moves a damaged workspace (with its log files) aside as `NAME.damaged-<unix ms>`, so
/// it is kept for recovery and the next start makes a new one; says where it went.
fn move_aside(path: &Path, e: rusqlite::Error) -> Error {
    let kept = path.with_file_name(format!(
        "{}.damaged-{}",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        now_ms()
    ));
    let moved = std::fs::rename(path, &kept);
    for suffix in ["-wal", "-shm"] {
        let mut from = path.as_os_str().to_owned();
        from.push(suffix);
        let mut to = kept.as_os_str().to_owned();
        to.push(suffix);
        let _ = std::fs::rename(&from, &to);
    }
    match moved {
        Ok(()) => Error::Damaged {
            path: path.display().to_string(),
            kept: kept.display().to_string(),
            detail: e,
        },
        Err(io) => Error::NotMovedAside {
            path: path.display().to_string(),
            detail: e,
            io,
        },
    }
}

/// Workspaces hold the account's data: readable by their user only (0600). SQLite
/// gives its log files the database's mode. A file whose mode cannot be changed (owned
/// by another user, on a file system without modes) still opens: its data is not
/// damaged, and refusing it would keep the buyer from their pending changes.
fn private_file(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path)
            && meta.permissions().mode() & 0o077 != 0
            && let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        {
            tracing::warn!(path = %path.display(), error = %e, "workspace file left readable by others");
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(test)]
mod tests;
