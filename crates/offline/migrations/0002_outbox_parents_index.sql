-- Flightdeck workspace, version 2.
-- When a draft lands, the changes that reference it are found by searching `parents`
-- (see `rekey`). Without an index that is a scan of the whole outbox for every applied
-- change, quadratic over a large push; only open changes with references need a look.
CREATE INDEX outbox_open_with_parents ON outbox (seq)
    WHERE parents <> '[]' AND status <> 'applied';
