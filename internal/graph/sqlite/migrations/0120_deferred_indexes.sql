-- 0120_deferred_indexes: the secondary indexes a bulk import into an empty
-- store drops while it writes and builds once at the end (deferindex.go).
-- A row here is an index that is missing and must be built: the import
-- builds them when it ends, and Open builds any a killed import left.
CREATE TABLE IF NOT EXISTS deferred_indexes (
    name TEXT PRIMARY KEY,
    sql  TEXT NOT NULL
) WITHOUT ROWID;
