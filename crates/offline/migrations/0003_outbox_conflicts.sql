-- Flightdeck workspace, version 3.
-- The fields a change in conflict collides on: a JSON array of merge::FieldConflict
-- (path, base, mine, theirs), set together with status 'conflict' and NULL otherwise.
-- Version 2 appended each field's JSON to its message text after ' | '; changes already
-- in conflict move that detail here and keep only the readable text.
ALTER TABLE outbox ADD COLUMN conflicts TEXT;

UPDATE outbox SET conflicts = (
    SELECT json_group_array(json(substr(json_extract(m.value, '$.message'),
                                        instr(json_extract(m.value, '$.message'), ' | ') + 3)))
    FROM json_each(outbox.messages) AS m
    WHERE json_extract(m.value, '$.code') = 'CONFLICT'
      AND instr(json_extract(m.value, '$.message'), ' | ') > 0
      AND json_valid(substr(json_extract(m.value, '$.message'),
                            instr(json_extract(m.value, '$.message'), ' | ') + 3))
)
WHERE status = 'conflict';

UPDATE outbox SET messages = (
    SELECT json_group_array(
        CASE WHEN json_extract(m.value, '$.code') = 'CONFLICT'
                  AND instr(json_extract(m.value, '$.message'), ' | ') > 0
             THEN json_set(m.value, '$.message',
                           substr(json_extract(m.value, '$.message'), 1,
                                  instr(json_extract(m.value, '$.message'), ' | ') - 1))
             ELSE json(m.value)
        END)
    FROM json_each(outbox.messages) AS m
)
WHERE status = 'conflict';
