-- 0010_statutes: the statute knowledge base (graph.StatuteStore).
-- Statutes are nodes of their own: no relationship ties them to contracts;
-- risk reports cite them by their stable id.

CREATE TABLE statutes (
    pk           INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    jurisdiction TEXT NOT NULL,
    code         TEXT NOT NULL DEFAULT '',
    number       TEXT NOT NULL DEFAULT '',
    heading      TEXT NOT NULL DEFAULT '',
    text         TEXT NOT NULL,
    url          TEXT NOT NULL DEFAULT '',
    -- sha256 of the statute's fields: an identical re-import is a no-op
    content_hash TEXT NOT NULL,
    -- little-endian float32 vector, NULL until embedded or after a change
    embedding    BLOB
);
CREATE INDEX statutes_jurisdiction ON statutes(jurisdiction);

-- Full text over the citation (code and number), heading and text;
-- rowid = statutes.pk. Han characters are indexed one per token (the writer
-- spaces them out), so Chinese text is searchable without a segmenter.
CREATE VIRTUAL TABLE statute_fts USING fts5(
    cite, heading, text,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
