-- Flightdeck workspace, version 6.
-- History rows move to a rowid table: an image is as large as the working copies it
-- carries, and rows that large slow a WITHOUT ROWID table down (SQLite keeps them in the
-- key's b-tree). Images are now written in a binary form (history.rs); those of older
-- steps stay JSON text and are still read.
CREATE TABLE history_row_v6 (
    step   INTEGER NOT NULL,
    tbl    TEXT NOT NULL,
    rid    INTEGER NOT NULL,
    before BLOB,
    after  BLOB,
    UNIQUE (step, tbl, rid)
);
INSERT INTO history_row_v6 (step, tbl, rid, before, after)
    SELECT step, tbl, rid, before, after FROM history_row;
DROP TABLE history_row;
ALTER TABLE history_row_v6 RENAME TO history_row;
