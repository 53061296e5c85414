-- Flightdeck workspace, version 9.
-- The creatives associated with an ad order, as `getCreativesByAdOrder` last listed them,
-- and when (Unix ms): an ad order's form shows them offline as last known. A cache only:
-- the associations cannot be edited in Flightdeck, and nothing is posted from here.
-- IF NOT EXISTS: a workspace rolled back to an older version runs this again.
CREATE TABLE IF NOT EXISTS ad_order_creatives (
    ad_order_id INTEGER PRIMARY KEY,
    creatives_json TEXT NOT NULL,
    fetched_at INTEGER NOT NULL
);
