-- Flightdeck workspace, version 11.
-- A counter every write to what the core's table index reads bumps (an entity's key,
-- JSON or parent; the known ad-order statuses; the outbox's status changes, where
-- pending statuses sit), whoever writes: the app, the CLI, a download. Writes of
-- anything else (the server's copy held back, other outbox changes) leave it. The index the app keeps on disk beside this file carries the
-- counter it was built at, and is used only while the two agree. It starts at a random
-- value, so a workspace made anew does not meet an old index at the same count.
-- IF NOT EXISTS: a workspace rolled back to an older version runs this again.
CREATE TABLE IF NOT EXISTS change_stamp (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT OR IGNORE INTO change_stamp (id, n) VALUES (1, abs(random() % 1000000000000));

CREATE TRIGGER IF NOT EXISTS change_stamp_entities_insert AFTER INSERT ON entities
BEGIN UPDATE change_stamp SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS change_stamp_entities_update AFTER UPDATE OF kind, key, remote_json, working_json, parent_kind, parent_key
ON entities
BEGIN UPDATE change_stamp SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS change_stamp_entities_delete AFTER DELETE ON entities
BEGIN UPDATE change_stamp SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER IF NOT EXISTS change_stamp_status_insert AFTER INSERT ON ad_order_status
BEGIN UPDATE change_stamp SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS change_stamp_status_update AFTER UPDATE ON ad_order_status
BEGIN UPDATE change_stamp SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS change_stamp_status_delete AFTER DELETE ON ad_order_status
BEGIN UPDATE change_stamp SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER IF NOT EXISTS change_stamp_outbox_insert AFTER INSERT ON outbox
WHEN NEW.op = 'set_status'
BEGIN UPDATE change_stamp SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS change_stamp_outbox_update AFTER UPDATE ON outbox
WHEN NEW.op = 'set_status' OR OLD.op = 'set_status'
BEGIN UPDATE change_stamp SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS change_stamp_outbox_delete AFTER DELETE ON outbox
WHEN OLD.op = 'set_status'
BEGIN UPDATE change_stamp SET n = n + 1 WHERE id = 1; END;
