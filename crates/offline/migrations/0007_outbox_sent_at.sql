-- Flightdeck workspace, version 7.
-- When the change's latest request left (Unix ms), written durably just before it goes.
-- A create whose answer was lost is believed absent from the service only once a grace
-- period has passed since then (a slow service may still commit it), also after the
-- process died. NULL for changes never sent, and for those marked sending by version 6:
-- a push then counts from its own start.
ALTER TABLE outbox ADD COLUMN sent_at INTEGER;
