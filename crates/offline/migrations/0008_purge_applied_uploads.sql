-- Flightdeck workspace, version 8.
-- Audience uploads applied before version 8 kept their identifiers (personal data the
-- service already has): they are purged now as an applied upload is today
-- (outbox.rs, `purge_identifiers`): each record keeps only the count of its values
-- (`valueCount`), and the undo steps that queued them go, since their images hold the
-- identifiers too. The workspace runs with `secure_delete`, so the old text is
-- overwritten in the file, not only unlinked.
UPDATE outbox SET payload = (
    SELECT json_group_array(
        CASE WHEN json_type(r.value, '$.values') = 'array'
            THEN json_set(r.value, '$.values', json('[]'),
                          '$.valueCount', json_array_length(r.value, '$.values'))
            ELSE json(r.value) END
        ORDER BY r.key)
    FROM json_each(outbox.payload) AS r)
WHERE op = 'audience_data' AND status = 'applied'
  AND json_valid(payload) AND json_type(payload) = 'array'
  AND EXISTS (SELECT 1 FROM json_each(outbox.payload) AS r
              WHERE json_array_length(r.value, '$.values') > 0);

CREATE TEMP TABLE purged_steps AS
    SELECT DISTINCT h.step FROM history_row h JOIN outbox o ON h.tbl = 'outbox' AND h.rid = o.seq
    WHERE o.op = 'audience_data' AND o.status = 'applied';
DELETE FROM history_step WHERE id IN (SELECT step FROM purged_steps);
DELETE FROM history_row WHERE step IN (SELECT step FROM purged_steps);
DROP TABLE purged_steps;
