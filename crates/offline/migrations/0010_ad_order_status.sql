-- Flightdeck workspace, version 9.
-- The status of ad orders as the service last answered it (`updateStatus`): the
-- listings carry no status, so it is kept apart from the entity's JSON, and a download
-- never wipes it. Keyed by the ad order's key text ('id:42'); written only when a
-- status change is applied (never by an edit, so undo leaves it alone). A status the
-- buyer set and has not posted is the latest open `set_status` change in `outbox`.
CREATE TABLE IF NOT EXISTS ad_order_status (
    key        TEXT PRIMARY KEY,
    status     INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
