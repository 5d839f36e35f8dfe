-- 0090_summary_vectors: one embedding per contract of its title, summary and
-- scope (graph.EmbedSummaries), so that summary_search can also find
-- contracts by meaning (graph.SummaryVectorStore). text is what was
-- embedded: a vector whose text no longer matches the contract's is stale,
-- counts as missing and is never searched. Written to run again on a
-- database rolled back to an earlier version.
CREATE TABLE IF NOT EXISTS summary_vectors (
    contract_pk     INTEGER PRIMARY KEY REFERENCES contracts(pk) ON DELETE CASCADE,
    text            TEXT NOT NULL,
    embedding       BLOB NOT NULL,
    embedding_model TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS summary_vectors_model ON summary_vectors(embedding_model);
