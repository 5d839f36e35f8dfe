-- 0085_pages: the pages of contracts whose source was read page by page
-- because OCR recognised some of them (graph.PageStore). Each row is one
-- page: where it lies in the contract's text, whether its text came from
-- the document's text layer or from OCR, and for an OCR page the mean word
-- confidence, the recognised image's size in pixels, the words as JSON
-- ([[start, end, x, y, w, h, conf], ...], offsets into the contract text,
-- boxes in those pixels) and a PNG of the page for display. Rows are keyed
-- by contract id, not rowid, so that re-putting a contract (a merge, a
-- backfill) keeps them; sha256 is the source file's hash they were read
-- from, which readers compare with the contract's before trusting offsets.
CREATE TABLE IF NOT EXISTS contract_pages (
    contract_id TEXT NOT NULL,
    page        INTEGER NOT NULL,
    sha256      TEXT NOT NULL,
    source      TEXT NOT NULL,
    start_off   INTEGER NOT NULL,
    end_off     INTEGER NOT NULL,
    confidence  REAL,
    width       INTEGER,
    height      INTEGER,
    words       TEXT,
    image       BLOB,
    -- A rowid table: page images are too large for WITHOUT ROWID rows.
    UNIQUE (contract_id, page)
);
