-- 0020_fts_automerge: merge full-text segments 8 at a time instead of 4.
-- Every committed batch writes one new segment per FTS5 index, and with the
-- default of 4 FTS5 rewrites the same postings once per level of a 4-ary
-- tree; with 8 there are fewer levels, which cuts the merge work of a
-- 100,000-contract import by about a third (import 4,700 -> 5,000
-- contracts/s) for a few percent on a clause search over 100,000 contracts
-- (more segments to read). Results and ranking do not change.
INSERT INTO contract_fts(contract_fts, rank) VALUES ('automerge', 8);
INSERT INTO passage_fts(passage_fts, rank) VALUES ('automerge', 8);
