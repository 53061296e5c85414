-- Flightdeck workspace, version 1. Forward-only: later versions add files, never edit this one.

-- Small settings: last download time, schema notes.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- One row per entity the buyer can see: downloaded ones and drafts.
--   remote_json  the server version at the last download (or apply): the base of edits.
--                NULL for drafts the service has never seen.
--   base_hash    sha256 of the canonical text of remote_json: the base version.
--   server_json  a newer server version seen by a refresh while the entity had pending
--                changes ("theirs", for the executor's three-way merge); NULL otherwise.
--   server_removed  a refresh no longer found it on the server while it had pending changes.
--   working_json what the buyer sees: the base with their pending edits applied; NULL
--                when it is the base itself, so a download writes each entity once.
--   parent_*     the owning entity (advertiser of a campaign, campaign of an ad order,
--                ad order of its flight caps), for scoped refreshes and cascades.
--   scope        the advertiser id it belongs to, for per-advertiser refreshes.
-- Keys are text: 'id:42', 'seg:<serviceSegmentId>', 'local:<hex>'.
CREATE TABLE entities (
    kind           TEXT NOT NULL,
    key            TEXT NOT NULL,
    remote_json    TEXT,
    base_hash      TEXT,
    server_json    TEXT,
    server_hash    TEXT,
    server_removed INTEGER NOT NULL DEFAULT 0,
    working_json   TEXT,
    parent_kind    TEXT,
    parent_key     TEXT,
    scope          INTEGER,
    updated_at     INTEGER NOT NULL,
    -- A rowid table: rows are large JSON, which WITHOUT ROWID b-trees store badly.
    UNIQUE (kind, key)
);
-- Only drafts' children are looked up by parent (when the draft lands).
CREATE INDEX entities_draft_parent ON entities (parent_kind, parent_key)
    WHERE parent_key GLOB 'local:*';

-- Pending changes, written in the same transaction as the working copy they come from.
--   payload   the body to post (wire JSON); parents: JSON array of ParentRef.
--   base      the server version the change started from (NULL for creates and for
--             site-list/audience-data operations, whose payload is the whole effect).
--   errors    JSON array of FieldError from flightdeck-model; status 'invalid' when not empty.
--   messages  JSON array of the service's messages about the last attempt.
CREATE TABLE outbox (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    op         TEXT NOT NULL,
    payload    TEXT NOT NULL,
    parents    TEXT NOT NULL DEFAULT '[]',
    base       TEXT,
    errors     TEXT NOT NULL DEFAULT '[]',
    status     TEXT NOT NULL,
    client_ref TEXT,
    attempts   INTEGER NOT NULL DEFAULT 0,
    messages   TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX outbox_target ON outbox (kind, key, status);
CREATE INDEX outbox_status ON outbox (status);

-- Drafts that landed: local key -> the key the service assigned.
CREATE TABLE id_map (
    kind   TEXT NOT NULL,
    local  TEXT NOT NULL,
    remote TEXT NOT NULL,
    PRIMARY KEY (kind, local)
) WITHOUT ROWID;
