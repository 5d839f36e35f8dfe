-- 0100_passage_index: an index of the passages (passage_fts's rows) for
-- clause_search's bounded top-k ranking (passageindex.go). It holds the
-- terms passage_fts holds, as the Go tokenizer in tokenize.go produces
-- them, so that BM25 computed from it equals FTS5's bm25(passage_fts).
--
-- Re-running it (a database whose user_version was set back) keeps what
-- is there.
--
-- passage_terms: how many passages hold each term (the document frequency
-- of BM25's idf).
CREATE TABLE IF NOT EXISTS passage_terms (
    term TEXT PRIMARY KEY,
    df   INTEGER NOT NULL
) WITHOUT ROWID;

-- passage_postings: each term's postings (passage id = passage_fts rowid,
-- term frequency over text and summary, passage length in tokens) in blocks
-- of consecutive ids, with what bounds the block's best BM25 contribution
-- (the highest term frequency and the shortest passage). A block never
-- holds ids of both signs (clauses are positive, chunks negative) and
-- blocks of a term never overlap.
CREATE TABLE IF NOT EXISTS passage_postings (
    term    TEXT NOT NULL,
    first   INTEGER NOT NULL,
    last    INTEGER NOT NULL,
    n       INTEGER NOT NULL,
    max_tf  INTEGER NOT NULL,
    min_len INTEGER NOT NULL,
    data    BLOB NOT NULL,
    PRIMARY KEY (term, first)
) WITHOUT ROWID;

-- passage_stats: the passage count and total length (BM25's N and average
-- length), how many passages hold characters the Go tokenizer is not known
-- to treat as FTS5 does (the index is not used while there are any), and
-- whether the index covers every passage: a store that had passages before
-- this migration is built by buildPassageIndex when it is next opened.
CREATE TABLE IF NOT EXISTS passage_stats (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    passages  INTEGER NOT NULL,
    tokens    INTEGER NOT NULL,
    unchecked INTEGER NOT NULL,
    built     INTEGER NOT NULL
);
INSERT OR IGNORE INTO passage_stats(id, passages, tokens, unchecked, built)
VALUES (1, 0, 0, 0, NOT EXISTS (SELECT 1 FROM clauses WHERE coalesce(text, '') <> '' OR coalesce(summary, '') <> '')
    AND NOT EXISTS (SELECT 1 FROM chunks));
