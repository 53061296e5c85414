-- Flightdeck workspace, version 5.
-- Undo and redo of local edits. A step is one edit the buyer made (a form save, a bulk
-- edit, an import, a discard): the rows of `entities` and `outbox` it touched, each with
-- its image before and after the step (JSON objects of column values; NULL: the row did
-- not exist). Images keep only the columns the step changed, plus those undo checks
-- (see history.rs), except where the row was created or removed: then the whole row.
--   undone  1 when the step was undone and can be redone; a new step drops those.
CREATE TABLE history_step (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    label      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    undone     INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE history_row (
    step   INTEGER NOT NULL,
    tbl    TEXT NOT NULL,
    rid    INTEGER NOT NULL,
    before TEXT,
    after  TEXT,
    PRIMARY KEY (step, tbl, rid)
) WITHOUT ROWID;
